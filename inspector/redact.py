"""One redaction layer: every value mcp-review knows to be secret is masked wherever text leaves the process.

What is secret: the bearer token, credential header values, `--env` values, secret arguments of a server's
command line, and values of our own environment whose names say they are credentials (see
`targets.Target.secret_values`). They are registered once (`remember`) in a process-wide `Redactor`, and
masked in every form a server might echo them in (`secret_forms`): whole, encoded or computed from it (escaped,
hex, base64, reversed, rot13, base32, spelled out...), and in pieces: any run of `secret_forms.PIECE` characters
of a random key, in those forms, so a secret a server cuts in halves, thirds or pieces with other text between is
masked piece by piece. Known false positives: text that spells a long secret's letters and digits in order with at
most 5 other characters between each, or that holds PIECE characters in a row of a random key (never by chance
for a random key, see `secret_forms.PIECE`).

Where it applies: at the wire boundary (every message, header, body and stderr line is masked before the
rest of the program sees it: the snapshot, call results, findings and the app never hold a secret), and
again at every sink (terminal, exported files, saved state, clipboard), in case a secret came from
somewhere else. Matching is on text, so masking is safe to repeat.
"""

from __future__ import annotations

import hashlib
import html
import os
import re
import string
from collections.abc import Iterable, Mapping
from typing import Any

import ahocorasick

from mcp_review.secret_forms import LONG, WIDE, Pieces, encoded_forms, spelled, tokens

MASK = "***"
MIN_SECRET = 4  # shorter values would mask ordinary text everywhere
LONG_TEXT = 16_384  # a text this long found clean is remembered (by a keyed digest) and not scanned again
_DIGEST_KEY = os.urandom(32)
_ALNUM = frozenset(string.digits + string.ascii_lowercase)
_NOT_ALNUM = bytes(b for b in range(256) if chr(b) not in _ALNUM)  # what `bytes.translate` deletes to keep those
# Escapes a secret may hide behind in text: \uXXXX, \xXX, %XX, &#NN; / &#xHH;, \/ (JSON's escaped slash).
_ESCAPE = re.compile(r"\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2}|%[0-9a-fA-F]{2}|&#[xX]?[0-9a-fA-F]+;|\\/")
_SECRET_HEADER_WORDS = ("authorization", "cookie", "token", "secret", "api-key", "apikey", "password", "credential")
# Headers whose values are never credentials (not registered as secrets, never masked by name).
PLAIN_HEADERS = frozenset(
    {"accept", "content-type", "user-agent", "mcp-protocol-version", "accept-language", "cache-control", "origin"}
)


def is_secret_header(name: str) -> bool:
    """Headers that carry credentials by their name: masked by name in the wire log, whatever their value."""
    low = name.lower()
    return low not in PLAIN_HEADERS and any(word in low for word in _SECRET_HEADER_WORDS)


def _unescape_one(match: re.Match[str]) -> str:
    token = match.group(0)
    try:
        if token == "\\/":
            return "/"
        if token.startswith("&#"):
            return html.unescape(token)
        return chr(int(token[2:] if token[0] == "\\" else token[1:], 16))
    except (ValueError, OverflowError):
        return token


def _has_escape(text: str) -> bool:
    """Does `text` hold one of the escapes above? Three substring tests at C speed first, where the expression's
    search tries five alternatives at every character: most messages hold none, and are done there."""
    return ("\\" in text or "%" in text or "&#" in text) and _ESCAPE.search(text) is not None


def unescape(text: str) -> str:
    """`text` with the escapes above decoded: what a reader (or a model) would see in it."""
    return _ESCAPE.sub(_unescape_one, text) if _has_escape(text) else text


def _lowered(text: str) -> str:
    """`text` with ASCII letters lowered, same length (spans map back), and WIDE appended. `str.lower` is what
    that is for ASCII text; other text may hold letters whose lowercase is longer, so it is lowered as UTF-8
    bytes, where `bytes.lower` touches only ASCII and every other character keeps its bytes (lone surrogates too,
    passed through): 15 times faster than `str.translate` on a megabyte."""
    if text.isascii():
        return text.lower() + WIDE
    return text.encode("utf-8", "surrogatepass").lower().decode("utf-8", "surrogatepass") + WIDE


def _char_pattern(ch: str) -> str:
    """Every way one character may be written in escaped text."""
    code = ord(ch)
    forms = [re.escape(ch)]
    if code < 0x10000:
        forms.append(rf"\\u{code:04x}")
    if code < 0x100:
        forms += [rf"\\x{code:02x}", rf"%{code:02x}", rf"&#x0*{code:x};", rf"&#0*{code};"]
    if ch == "/":
        forms.append(r"\\/")
    if ch == " ":
        forms.append(r"\+")
    return "(?:" + "|".join(forms) + ")"


def _trie(alternatives: Iterable[tuple[str, ...]]) -> str:
    """One regex for many alternatives, factored by common prefixes (the engine then tries only the branches
    whose first character matches), longest match first: a secret that contains another is masked whole."""
    root: dict[str, Any] = {}
    for pieces in alternatives:
        node = root
        for piece in pieces:
            node = node.setdefault(piece, {})
        node[""] = {}

    def build(node: dict[str, Any]) -> str:
        branches = []
        for piece, child in node.items():
            run = [piece]
            while len(child) == 1 and "" not in child:  # a chain without choices: one literal run
                ((piece, child),) = child.items()
                run.append(piece)
            branches.append("".join(run) + build(child) if piece else "")
        rest = sorted((b for b in branches if b), key=len, reverse=True)
        body = rest[0] if len(rest) == 1 else "(?:" + "|".join(rest) + ")" if rest else ""
        return f"(?:{body})?" if "" in node and body else body

    return build(root)


class _Automaton:
    """An Aho-Corasick automaton of words (each word's value is its length): a text is searched for all of them in
    one pass, linear in its size whatever the number of words or the text's shape (pyahocorasick, C). A substring
    test per word costs a pass each, and on a text of one repeated letter each pass steps one character at a time:
    142 ms a megabyte for 75 forms, against 4 ms; on ordinary text the automaton is within 2x of those passes, and
    2x faster on a short message. Where it finds them is where masking masks. Words added later go into the same
    trie, which is made an automaton again (linear in its size, in C) rather than built anew word by word. Its
    text ends with `secret_forms.WIDE`, so that it is read in place, not copied."""

    def __init__(self) -> None:
        self._automaton = ahocorasick.Automaton()

    def add(self, words: Iterable[str]) -> None:
        for word in words:
            self._automaton.add_word(word, len(word))
        if len(self._automaton):
            self._automaton.make_automaton()

    def holds(self, text: str) -> bool:
        """Does `text` hold one of the words?"""
        return len(self._automaton) > 0 and next(self._automaton.iter(text), None) is not None

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where `text` holds a word: every occurrence, overlapping ones too."""
        if not len(self._automaton):
            return []
        return [(end + 1 - size, end + 1) for end, size in self._automaton.iter(text)]


class _Spelled:
    """The spelled-out forms of the long secrets added together, as one expression compiled on first use:
    compiling those of one long JWT takes tens of ms (hundreds with the pure-Python parts of `re` profiled), each
    redactor of a session compiled them again, and only a text whose letters and digits hold one needs it."""

    def __init__(self, tokens: list[tuple[str, ...]]) -> None:
        self._tokens = tokens
        self._pattern: re.Pattern[str] | None = None

    def pattern(self) -> re.Pattern[str]:
        if self._pattern is None:
            self._pattern = re.compile(_trie(self._tokens))
        return self._pattern


class Redactor:
    """Masks known secret values in text and JSON, and credential headers by name.

    Every form of every secret is precomputed once (`add`), and the text is searched with ASCII letters lowered
    (same length, so spans map back): its literal forms all at once, by an automaton that also says where they are
    (`_Automaton`: every occurrence); their pieces by another, each run of them the longest (`secret_forms.Pieces`);
    its spelled-out forms first as its letters and digits alone (the same automaton search), then, only where
    those hold one, with one expression per batch of long secrets added together, compiled when first needed
    (`_Spelled`). Overlapping spans are masked as one, so a secret that contains another is masked whole. Each step
    is linear in the text's size (bench/redact.py measures it on 10 MB). Adding a secret adds its words to the
    automatons and compiles nothing: an OAuth review registers its logins and forged tokens one by one, in every
    redactor of the session, and compiling their forms was most of its time.
    A long text found clean is remembered by a keyed digest, so that showing it again costs no scan.
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self.secrets: set[str] = set()
        self._find_forms = _Automaton()  # the literal forms, lowered
        self._find_pieces = Pieces()  # them and their pieces: what a text holds, if anything
        self._find_bare = _Automaton()  # the spelled-out forms' letters and digits, without separators
        self._spelling: list[_Spelled] = []  # per batch of LONG secrets added together
        self._pattern_of: dict[str, re.Pattern[str]] = {}  # each secret's escaped-text pattern, compiled when needed
        self._clean: set[bytes] = set()  # digests of long texts that hold no secret
        self.add(secrets)

    def _digest(self, text: str) -> bytes | None:
        """A long text's digest, keyed per process (no server can make two texts collide); None if short."""
        if len(text) < LONG_TEXT:
            return None
        return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16, key=_DIGEST_KEY).digest()

    def _found_clean(self, digest: bytes | None) -> None:
        if digest is not None:
            if len(self._clean) >= 4096:
                self._clean.clear()
            self._clean.add(digest)

    def add(self, values: Iterable[str]) -> None:
        new = {v for v in values if isinstance(v, str) and len(v) >= MIN_SECRET} - self.secrets
        if not new:
            return
        self.secrets |= new
        self._clean.clear()  # clean of the old secrets only
        self._find_forms.add({f for s in new for f in encoded_forms(s)})
        self._find_pieces.add(new)
        bare = {f for s in new if len(s) >= LONG for f in spelled(s)}
        if bare:
            self._find_bare.add(bare)
            self._spelling.append(_Spelled([tokens(f) for f in bare]))

    def pieces_size(self) -> int:
        """Bytes the pieces' trie takes (bench/redact.py)."""
        return self._find_pieces.size()

    def _patterns(self) -> list[re.Pattern[str]]:
        """Each secret as a pattern over escaped text, longest first (rarely needed: compiled on first use)."""
        for secret in self.secrets - self._pattern_of.keys():
            self._pattern_of[secret] = re.compile("".join(_char_pattern(c) for c in secret), re.IGNORECASE)
        return [self._pattern_of[s] for s in sorted(self.secrets, key=len, reverse=True)]

    def needed(self, text: str) -> bool:
        """Does `text` hold a secret, in any of the forms above (escapes decoded)?"""
        digest = self._digest(text)
        if not self.secrets or digest in self._clean:
            return False
        if self._found(_lowered(text)) or self._escaped(text) is not None:
            return True
        self._found_clean(digest)
        return False

    def _found(self, low: str) -> bool:
        """Does the lowered text hold a form, as is or spelled out?"""
        return self._find_pieces.holds(low) or self._spells(low)

    def _spells(self, low: str) -> bool:
        """Does the lowered text spell out a long secret?"""
        return self._may_spell(low) and any(s.pattern().search(low) for s in self._spelling)

    def _may_spell(self, low: str) -> bool:
        """Do the text's letters and digits hold a long secret's, as a substring? The separators an expression allows
        between a form's characters are exactly the rest, so a text whose letters and digits do not cannot spell
        one. Only a text that does is searched with the expressions, which try every position (~12 ms a megabyte
        each; a server that echoed 1 MB of round state eight times per call cost a check 25 s)."""
        if not self._spelling:
            return False
        letters = low.encode("utf-8", "surrogatepass").translate(None, _NOT_ALNUM).decode("ascii")
        return self._find_bare.holds(letters)

    def _spans(self, low: str) -> list[tuple[int, int]]:
        """Where the lowered text holds a form: every literal form the automaton finds, every run of pieces, every
        spelled-out form."""
        found = self._find_pieces.runs(low)
        if found:  # then every whole form too (the runs' search goes on past each run: one that began inside is cut)
            found += self._find_forms.spans(low)
        if self._may_spell(low):  # searched once, where it matches (no search first, then the same one to find where)
            found += [m.span() for s in self._spelling for m in s.pattern().finditer(low)]
        return _merged(found)

    def _escaped(self, text: str) -> str | None:
        """`text` with its escapes decoded, if a secret (whole or a piece, in any form) shows once they are."""
        if not _has_escape(text):
            return None
        decoded = unescape(text)
        return decoded if self._found(_lowered(decoded)) else None

    def _masked(self, text: str) -> str:
        """`text` with every span where a form is masked."""
        pieces, last = [], 0
        for start, end in self._spans(_lowered(text)):
            pieces += [text[last:start], MASK]
            last = end
        return "".join(pieces) + text[last:] if pieces else text

    def text(self, text: str) -> str:
        digest = self._digest(text)
        if not self.secrets or digest in self._clean:
            return text
        masked = self._masked(text)
        if masked is text and not _has_escape(text):
            self._found_clean(digest)
        text = masked
        if self._escaped(text) is not None:
            for pattern in self._patterns():  # a whole secret behind escapes: masked, the escapes around it kept
                text = pattern.sub(MASK, text)
            decoded = self._escaped(text)
            if decoded is not None:  # pieces behind escapes, which no pattern follows: masked in the decoded text
                text = self._masked(decoded)
        return text

    def headers(self, headers: Mapping[str, str]) -> dict[str, str]:
        return {k: (MASK if is_secret_header(k) else self.text(v)) for k, v in headers.items()}

    def json(self, obj: Any) -> Any:
        """A copy of `obj` with every string (keys too) masked; `obj` itself when nothing needs it."""
        if not self.secrets:
            return obj
        return map_strings(obj, self.text)


def _merged(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans in order, those that overlap or touch joined: what two batches both found is masked once, whole."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out


def map_strings(obj: Any, fn: Any) -> Any:
    """`obj` with `fn` applied to every string (dict keys too), without recursion (any depth is safe).

    Containers are copied only where something changed; an unchanged tree is returned as is.
    """
    if isinstance(obj, str):
        return fn(obj)
    if not isinstance(obj, dict | list):
        return obj
    # Post-order over an explicit stack: each container is rebuilt after its children.
    done: dict[int, Any] = {}
    stack: list[tuple[Any, bool]] = [(obj, False)]
    while stack:
        node, expanded = stack.pop()
        if not expanded:
            stack.append((node, True))
            children = node.values() if isinstance(node, dict) else node
            stack.extend((c, False) for c in children if isinstance(c, dict | list) and id(c) not in done)
            continue
        if isinstance(node, dict):
            changed, out = False, {}
            for key, value in node.items():
                new_key = fn(key) if isinstance(key, str) else key
                new_value = fn(value) if isinstance(value, str) else done.get(id(value), value)
                changed |= new_key is not key or new_value is not value
                out[new_key] = new_value
            done[id(node)] = out if changed else node
        else:
            items = [fn(v) if isinstance(v, str) else done.get(id(v), v) for v in node]
            changed = any(a is not b for a, b in zip(items, node, strict=True))
            done[id(node)] = items if changed else node
    return done[id(obj)]


# The process-wide registry: what every sink masks.
KNOWN = Redactor()


def remember(values: Iterable[str]) -> None:
    """Register secret values for the life of the process (a secret is never forgotten)."""
    KNOWN.add(values)


def scrub(text: str) -> str:
    """`text` with every known secret masked, in any form."""
    return KNOWN.text(text)


def scrub_json(obj: Any) -> Any:
    return KNOWN.json(obj)
