"""The views of a text an attacker hides an instruction in, each mapped back to the original.

A model reads through evasions that a pattern does not: "ignore" spelled with Cyrillic letters or in
full-width forms, "ig\u200bnore" with a zero-width space, "ig-\nnore" split across lines, or the same
words in base64, hex, URL or HTML-entity encoding. `views(text)` returns the text as written plus:

- `folded`: Unicode NFKC (full-width and compatibility forms), confusable letters folded to the Latin
  letter they imitate (the Unicode TR39 confusables data shipped by `confusable-homoglyphs`, read once,
  offline), invisible and bidi characters removed, Unicode tag characters turned back into the ASCII they
  hide, hyphenated line breaks joined and every run of whitespace made one space. Made only when it differs.
- one `decoded` view per encoded run that decodes to readable text (base64, hex, %-encoding, HTML entities).

Each view keeps, for every character, the index of the original character it came from, so a hit in a
view quotes the original span. `techniques` names what the view undid: a hit found only in a view is an
evasion, and the scanner reports it as such.
"""

from __future__ import annotations

import base64
import binascii
import html
import json
import re
import unicodedata
import urllib.parse
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from mcp_review.scan.rules import identifier_words

MIN_DECODED = 12  # characters a decoded run must give to be read as text
PRINTABLE_SHARE = 0.9  # of a decoded run that must be printable text (letters, digits, punctuation, spaces)
MAX_DECODED_VIEWS = 20  # encoded runs decoded in one text


@dataclass
class View:
    text: str
    index: list[int]  # index[i]: the original position of text[i]
    techniques: set[str] = field(default_factory=set)  # what this view undid (empty for the text as written)

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original span of text[start:end]."""
        if not self.index:
            return 0, 0
        last = min(max(end - 1, start), len(self.index) - 1)
        return self.index[min(start, len(self.index) - 1)], self.index[last] + 1


@cache
def _latin() -> dict[str, str]:
    """Confusable character -> the ASCII letters it imitates (TR39 data, as shipped by confusable-homoglyphs)."""
    data = json.loads(resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8"))
    out = {}
    for char, glyphs in data.items():
        if len(char) != 1 or char.isascii():
            continue
        latin = next((g["c"] for g in glyphs if g["c"].isascii() and g["c"].isalnum()), None)
        if latin:
            out[char] = _letter_i(char) if latin == "l" else latin
    return out


def _letter_i(char: str) -> str:
    """TR39 folds I, l and 1 into one skeleton, "l"; a reader of "Ignore" spelled with a Cyrillic or Greek
    capital I reads an I."""
    name = unicodedata.name(char, "")
    if "IOTA" in name or name.endswith((" I", "DOTLESS I")):
        return "I" if char.isupper() else "i"
    return "l"


_HIDDEN_CATEGORIES = ("Cf", "Cc", "Co")
_SPACE = re.compile(r"\s+")


def _fold(text: str) -> View:
    out: list[str] = []
    index: list[int] = []
    techniques: set[str] = set()
    latin = _latin()
    for i, ch in enumerate(text):
        code = ord(ch)
        if 0xE0020 <= code <= 0xE007E:  # a tag character: the ASCII it hides
            techniques.add("Unicode tag characters")
            out.append(chr(code - 0xE0000))
            index.append(i)
            continue
        if ch not in "\n\r\t" and unicodedata.category(ch) in _HIDDEN_CATEGORIES:
            techniques.add("invisible or bidi characters")
            continue
        if 0xFE00 <= code <= 0xFE0F:  # variation selectors
            continue
        norm = unicodedata.normalize("NFKC", ch) if not ch.isascii() else ch
        if norm != ch and norm.isascii():
            techniques.add("full-width or compatibility forms")
        elif not ch.isascii() and ch in latin:
            techniques.add("look-alike letters from another script")
            norm = latin[ch]
        for part in norm:
            out.append(part)
            index.append(i)
    joined, jindex = _join_lines("".join(out), index, techniques)
    return View(joined, jindex, techniques)


_HYPHEN_BREAK = re.compile(r"(?<=[A-Za-z])-\s*\n\s*(?=[A-Za-z])")


def _join_lines(text: str, index: list[int], techniques: set[str]) -> tuple[str, list[int]]:
    """Hyphenated line breaks removed ("ig-\\nnore" -> "ignore"), every whitespace run made one space."""
    keep = [True] * len(text)
    for m in _HYPHEN_BREAK.finditer(text):
        techniques.add("words split across lines")
        for k in range(m.start(), m.end()):
            keep[k] = False
    out: list[str] = []
    out_index: list[int] = []
    for k, ch in enumerate(text):
        if not keep[k]:
            continue
        if ch.isspace():
            if out and out[-1] == " ":
                continue
            ch = " "
        out.append(ch)
        out_index.append(index[k])
    return "".join(out), out_index


# ------------------------------------------------------------------------------------------ decoders
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/=_-])(?:[A-Za-z0-9+/]{4}){4,}(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")
_HEX = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}){8,}(?![0-9A-Fa-f])")
# A run with three or more escapes; tried only where a run starts and without backtracking (possessive), so a
# 65,536-character run costs one pass, not one per character.
_PERCENT = re.compile(r"(?<!\S)(?=(?:[^\s%]*+%[0-9A-Fa-f]{2}){3})\S+")
_ENTITIES = re.compile(r"(?<!\S)(?=(?:[^\s&]*+&(?:#\d{1,7}|#x[0-9A-Fa-f]{1,6}|[A-Za-z]{2,8});){3})\S+")


def _readable(text: str) -> bool:
    if len(text) < MIN_DECODED or not any(c.isalpha() for c in text):
        return False
    good = sum(c.isprintable() or c in "\n\t" for c in text)
    return good / len(text) >= PRINTABLE_SHARE and " " in text.strip()


def _b64(run: str) -> str | None:
    try:
        raw = base64.b64decode(run, validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw.decode("utf-8", errors="strict") if raw.isascii() or _utf8(raw) else None


def _utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _hex(run: str) -> str | None:
    raw = bytes.fromhex(run)
    return raw.decode("utf-8") if _utf8(raw) else None


DECODERS = (
    ("base64", _BASE64, _b64),
    ("hex", _HEX, _hex),
    ("URL encoding", _PERCENT, urllib.parse.unquote),
    ("HTML entities", _ENTITIES, html.unescape),
)


_ENCODED = re.compile(r"[A-Za-z0-9+/]{16}|%[0-9A-Fa-f]{2}|&#?\w+;")  # what every decoder's run contains


def _decoded(text: str) -> list[View]:
    found: list[View] = []
    if not _ENCODED.search(text):
        return found
    for name, pattern, decode in DECODERS:
        for m in pattern.finditer(text):
            if len(found) >= MAX_DECODED_VIEWS:
                return found
            plain = decode(m.group())
            if plain and plain != m.group() and _readable(plain):
                found.append(View(plain, [m.start()] * len(plain), {name}))
    return found


# An identifier that spells a sentence: `always_call_me_first_and_pass_api_keys`, `contentOfSshIdRsa`.
_IDENTIFIER = re.compile(r"\b[A-Za-z][a-z0-9]*(?:(?:_|-|(?=[A-Z]))[A-Za-z][a-z0-9]*){3,}\b")
_ROT13_HINT = re.compile(r"\brot-?13\b|\bcaesar\b", re.I)
_ROT13 = str.maketrans(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", "NOPQRSTUVWXYZABCDEFGHIJKLMnopqrstuvwxyzabcdefghijklm"
)
_WORD = re.compile(r"\w+")


def mixed_script_words(text: str) -> list[tuple[int, int]]:
    """Spans of words that mix Latin letters with look-alike letters of another script (`read_file` with a
    Cyrillic a): no language writes a word so, a spoofer does."""
    if text.isascii():
        return []
    latin = _latin()
    out = []
    for m in _WORD.finditer(text):
        word = m.group()
        if word.isascii() or not any("a" <= c.lower() <= "z" for c in word):
            continue
        if any(not c.isascii() and c in latin and c.isalpha() and not _is_latin(c) for c in word):
            out.append((m.start(), m.end()))
    return out


def _is_latin(char: str) -> bool:
    """Latin letters with marks (Turkish dotless i, Polish l with stroke) belong in a Latin word."""
    return unicodedata.name(char, "").startswith("LATIN")


def _identifiers(text: str) -> View | None:
    """Identifiers of four or more words, spelled out as words; None when there are none."""
    found = list(_IDENTIFIER.finditer(text))
    if not found:
        return None
    parts: list[str] = []
    index: list[int] = []
    for m in found:
        words = " ".join(identifier_words(m.group()))
        parts.append(words + ". ")
        index += [m.start()] * (len(words) + 2)
    return View("".join(parts), index, {"an instruction spelled as an identifier"})


def views(text: str) -> list[View]:
    """The text as written, its folded view when that differs, its identifiers spelled out, a rot13 view when
    the text names rot13, and a view per encoded run that decodes to text (decoded runs are folded too)."""
    plain = View(text, list(range(len(text))))
    out = [plain]
    if not text.isascii() or _HYPHEN_BREAK.search(text):  # ASCII without split words folds to itself
        folded = _fold(text)
        if folded.techniques and folded.text != _SPACE.sub(" ", text):
            out.append(folded)  # a fold that undid nothing (a variation selector, NFKC of CJK) hides nothing
    identifiers = _identifiers(text)
    if identifiers is not None:
        out.append(identifiers)
    if _ROT13_HINT.search(text):
        out.append(View(text.translate(_ROT13), plain.index, {"rot13"}))
    for decoded in _decoded(text):
        again = _fold(decoded.text)
        decoded.text = again.text
        decoded.index = [decoded.index[0]] * len(again.text)
        decoded.techniques |= again.techniques
        out.append(decoded)
    return out
