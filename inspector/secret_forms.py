"""What a secret looks like in text a server wrote: every form `redact` masks, whole and in pieces.

Whole: as is, JSON `\\uXXXX` / `\\xXX` escapes (whole or mixed with plain characters, `redact` decodes those),
percent-encoding, HTML character references, hex, and base64 (standard and URL-safe, at any alignment inside a
longer base64 string, e.g. `Basic base64(user:secret)`); and, for a secret of LONG characters or more, what a
server can compute from it to slip past a masker that knows only those: reversed, rot13 (of either), base32 (any
alignment), the hex of UTF-16 LE/BE, and its letters and digits (or its hex) spelled out with separators,
forwards or backwards. Matching ignores ASCII case, so swapcase and any case of hex, base32 and base64 are caught.
A secret shorter than LONG is matched in its plain encodings only: its computed forms would be ordinary words.

In pieces: a server that cuts a secret (halves, thirds, pieces with other text between, two secrets' pieces
interleaved) prints no form of it whole. Any PIECE characters in a row of a secret's key part (`key_part`) are a
piece of it, in each literal form above too (reversed, rot13, hex, base64, base32, UTF-16 hex, percent- or
JSON-escaped: as many characters of that form as PIECE characters of the key make), and `redact` masks each run of
pieces whole, the longest around a piece found (`Pieces`). Not in pieces: the spelled-out forms (a piece's letters
with separators between), which are masked whole only (finding where a spelled-out piece is would take a search of
the text per piece); and a secret whose key part is not random (`key_part`) or shorter than 12 characters, which is
masked whole only, as its pieces would be ordinary text.
"""

from __future__ import annotations

import base64
import codecs
import functools
import html
import json
import math
import re
import string
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote, quote_plus

import ahocorasick

from mcp_review.entropy import randomish

MIN_FORM = 6  # an encoded form shorter than this (base64 of a short secret, cut) is not matched on its own
LONG = 8  # a secret this long is matched in its computed forms too (reversed, rot13, separated...)
SEPARATOR = r"[^0-9a-z]{0,5}"  # between the letters and digits of a secret spelled out separated
# A piece of a secret is PIECE characters of its key part in a row, in any literal form. Long enough that ordinary
# text never holds one by chance: a key's letters and digits are not in word-like runs (`key_part` takes pieces
# only of keys that are random), so prose, code and identifiers hold none; the text most like a key is random
# text of its alphabet, and even in hex, the poorest alphabet keys use (4 bits a character), a piece is 40 bits:
# a megabyte of random hex holds one of a 40-character key's ~60 plain and reversed pieces with odds of 1 in
# 20,000 (1e6 x 60 / 2^40), where 8 characters (32 bits) would be 1 in 70 and 6 a sure match. Short enough that
# what it leaves unmasked cannot identify the key: a piece shorter than PIECE is at most 9 characters, 36 bits of
# a hex key and 54 of a base62 one, of keys of 128 bits and more (a 32-character hex key keeps 92 unseen bits
# whatever 9 of its characters show); and the thirds of a 30-character key are still pieces. What it cannot stop:
# a server that cuts a key into pieces all shorter than PIECE prints the key in parts that are each text like any
# other. Secrets from 12 to 2 x PIECE characters have their pieces masked, not their halves.
PIECE = 10
# How many characters of the key proper (past its label, `key_part`) a piece must hold: another key of the same
# kind shares the label (`github_pat_`, `sk-ant-api03-`), and masking it would hide a credential from the scanner
# that must find it; sharing 4 more characters by chance is 1 in 65,536 in hex, 1 in 1.7 million in base36.
KEYED = 4
# Appended to a text before it is searched: a string holding a character past the BMP is stored as UCS-4, which
# pyahocorasick reads in place, where it copies any other string whole at every search (and both automata, the
# whole forms' and the pieces', search each text; the pieces' restart after every run).
WIDE = "\U0010ffff"
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
_ALNUM = frozenset(string.digits + string.ascii_lowercase)
# What names the kind of a key, not the key: short words (with a version number) each ended by - or _.
_LABEL = re.compile(r"(?:[a-z]{1,8}[0-9]{0,2}[-_])+", re.IGNORECASE)
# A JWT: its header and claims are base64 of JSON that every token of its issuer shares the start of; its
# signature is the token's own.
_JWT = re.compile(r"eyJ[\w-]+\.eyJ[\w-]+\.(?P<signature>[\w-]+)", re.ASCII)


def _aligned_forms(raw: bytes, encode: Any, group: int, bits: int) -> set[str]:
    """The part of encode(prefix + raw + suffix) that depends on `raw` alone, at each alignment in a group of
    `group` bytes (3 for base64, 5 for base32), `bits` per output character."""
    out = set()
    for offset in range(group):
        encoded = encode(b"\0" * offset + raw).decode()
        start, end = -(-8 * offset // bits), 8 * (offset + len(raw)) // bits
        out.add(encoded[start:end])
    return out


# Computed once per secret: every redactor of a session (the process's, each wire log's) adds the same ones.
@functools.lru_cache(maxsize=1024)
def encoded_forms(secret: str) -> frozenset[str]:
    """The plain-substring forms of one secret: as is, JSON-escaped, percent-encoded, hex and base64; and for a
    secret of LONG characters or more what a server can compute from it: reversed, rot13, base32, the hex of
    UTF-16 (LE and BE). Matching ignores ASCII case, so swapcase and any case of hex/base32/base64 are caught."""
    raw = secret.encode()
    forms = {secret, json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]}
    forms |= {quote(secret, safe=""), quote_plus(secret), raw.hex(), html.escape(secret)}
    b64 = _aligned_forms(raw, base64.b64encode, 3, 6)
    forms |= b64 | {f.replace("+", "-").replace("/", "_") for f in b64}
    if len(secret) >= LONG:
        forms |= {secret[::-1], codecs.encode(secret, "rot13"), codecs.encode(secret[::-1], "rot13")}
        forms |= _aligned_forms(raw, base64.b32encode, 5, 5)
        forms |= {secret.encode("utf-16-le").hex(), secret.encode("utf-16-be").hex()}
    return frozenset(f.translate(_ASCII_LOWER) for f in forms if len(f) >= MIN_FORM or f == secret)


def key_part(secret: str) -> str | None:
    """The part of `secret` its pieces are taken from, or None when its pieces would not identify it.

    That is the secret past its label (`ghp_`, `github_pat_`, `sk-ant-api03-`, `svcpw-`: the kind of key, not the
    key), or a JWT's signature; with the PIECE - KEYED characters before it, so that a piece may straddle the
    label while holding KEYED characters of the key. None when the key is not random (`entropy.randomish`: 12 or
    more characters, letters and digits not in word-like runs): a passphrase, a path, a URL, a host name, a word
    (any `--env` value of 8 or more characters is a secret) would have pieces that ordinary text holds, such as
    `/home/user` or `localhost:`; and None for a value with a space in it (`Bearer x`: x is registered too)."""
    jwt = _JWT.fullmatch(secret)
    label = _LABEL.match(secret)
    start = jwt.start("signature") if jwt else label.end() if label else 0
    key = secret[start:]
    if any(c.isspace() for c in key) or not randomish(key):
        return None
    return secret[max(0, start - (PIECE - KEYED)) :]


@functools.lru_cache(maxsize=1024)
def piece_forms(secret: str) -> dict[str, tuple[tuple[str, int, int], ...]]:
    """The words that find the pieces of a secret: every PIECE characters in a row of each literal form of its key
    part, lowered, with where each is (the form, the offset) and how long a run of that form must be to be a piece:
    as many characters as PIECE characters of the key make (PIECE, twice that in hex, four times in UTF-16 hex).
    A word is PIECE characters in every form: a longer one in the forms that are longer would cost a trie node a
    character each (a JWT's signature in UTF-16 hex, 40 a word, was 6 MB), and a run found shorter than its form
    asks for is not masked."""
    part = key_part(secret)
    out: dict[str, tuple[tuple[str, int, int], ...]] = {}
    if part is None or WIDE in part:  # no form holds WIDE: a run's end is found without a bound (`Pieces.runs`)
        return out
    for form in encoded_forms(part):
        need = math.ceil(PIECE * len(form) / len(part))
        for at in range(len(form) - PIECE + 1 if len(form) >= need else 0):
            word = form[at : at + PIECE]
            out[word] = (*out.get(word, ()), (form, at, need))
    return out


class Pieces:
    """Where a text holds the secrets added, whole or in pieces: each run of pieces, the longest, as one span.

    The words (`piece_forms`) are an Aho-Corasick automaton's (pyahocorasick, C; one pass, linear in the text),
    each with the forms it is in and where. A word found is a seed: the run around it is followed along its form,
    both ways, by comparing characters; it is a piece if it is as long as its form asks; and the search goes on
    past the run. Going on from where the run ends, not taking every word the automaton finds, is what keeps a text
    made of a secret linear with a small constant: a run holds a word at every character, 8 million in 10 MB of
    the secret repeated, each a step in Python (13 s where its whole forms took 1.2 s); a step a run is 250,000.
    The text searched ends with WIDE, so a restart costs no copy. What a restart past a run can miss is a run of
    another form that began inside it: fewer than PIECE characters of that form show past it, which cannot
    identify the key (`redact` finds the whole forms apart too, every one). The secrets' whole forms are words
    too, each a run of its own, so that one search says whether a text holds anything to mask: most hold
    nothing, and cost that one pass."""

    def __init__(self) -> None:
        self._automaton = ahocorasick.Automaton()

    def add(self, secrets: Iterable[str]) -> None:
        words: dict[str, tuple[tuple[str, int, int], ...]] = {}
        for secret in secrets:
            for form in encoded_forms(secret):
                words[form] = (*words.get(form, ()), (form, 0, len(form)))
            for word, places in piece_forms(secret).items():
                words[word] = (*words.get(word, ()), *places)
        known = len(self._automaton) > 0  # words of secrets added before: their places are kept
        for word, places in words.items():
            before = self._automaton.get(word, (0, ()))[1] if known else ()
            self._automaton.add_word(word, (len(word), (*before, *places)))
        if len(self._automaton):
            self._automaton.make_automaton()

    def size(self) -> int:
        """Bytes its trie takes."""
        return int(self._automaton.get_stats()["total_size"])

    def holds(self, low: str) -> bool:
        """Does the lowered text (WIDE at its end) hold a secret, whole or a piece?"""
        return bool(self.runs(low, first=True))

    def runs(self, low: str, first: bool = False) -> list[tuple[int, int]]:
        """Where the lowered text (WIDE at its end) holds whole forms and runs of pieces, the longest around each
        piece found (the `first` only: `holds`)."""
        hit = next(self._automaton.iter(low), None) if len(self._automaton) else None
        out: list[tuple[int, int]] = []
        while hit is not None:
            last, (size, places) = hit
            end = 0
            for form, at, need in places:  # most words are in one place of one form
                start, stop, after = last + 1 - size, last + 1, at + size
                if start and at and low[start - 1] == form[at - 1]:
                    start -= _agree_before(low, start, form, at)
                if low.startswith(form[after:], stop):  # the form's end, at once (a whole secret)
                    stop += len(form) - after
                else:  # a mismatch comes before the form's end or at WIDE, which no form holds
                    while low[stop] == form[after]:
                        stop, after = stop + 1, after + 1
                if stop - start >= need:
                    out.append((start, stop))
                end = max(end, stop)
            if first and out:
                break
            hit = next(self._automaton.iter(low, end), None) if end < len(low) else None
        return out


def _agree_before(text: str, i: int, form: str, j: int) -> int:
    """How many characters `text` before `i` and `form` before `j` have in common, backwards."""
    most = min(i, j)
    if text.endswith(form[j - most : j], 0, i):
        return most
    agree = 0
    while text[i - agree - 1] == form[j - agree - 1]:  # a mismatch comes within `most`: the test above failed
        agree += 1
    return agree


def spelled(secret: str) -> set[str]:
    """The letters and digits of a secret, forwards and backwards, and of its hex: what a server may spell out
    with separators. Only [0-9a-z]: the separators are the other characters, so a match never backtracks."""
    forms = {secret.translate(_ASCII_LOWER), secret.encode().hex()}
    forms |= {f[::-1] for f in forms}
    alnum = {"".join(c for c in f if c in _ALNUM) for f in forms}
    return {f for f in alnum if len(f) >= LONG}


def tokens(form: str) -> tuple[str, ...]:
    """`form` spelled out, as regex pieces, one per character: up to 5 separators (spaces, dashes, dots,
    newlines...) may stand between any two of its characters."""
    chars = [re.escape(c) for c in form]
    return (chars[0], *(SEPARATOR + c for c in chars[1:]))
