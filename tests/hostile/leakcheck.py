"""The secret judge: planted secrets, and every form of them a hostile server can produce (written independently
of mcp-review's redactor, so that one cannot vouch for itself): whole, and in pieces (`PIECE` characters of a
secret in a row, or of its reversed, rot13, hex, base64 or base32 form: what is left of a secret a server cut in
halves, thirds or pieces with other text between)."""

from __future__ import annotations

import base64
import codecs
import functools
import html
import re
import secrets as random
from typing import Any
from urllib.parse import unquote

import ahocorasick

PIECE = 10  # characters of a secret in a row that the judge calls a piece of it (hex: twice as many, base64: 14...)


def plant() -> dict[str, str]:
    return {
        "GITHUB_TOKEN": "ghp_" + random.token_hex(18),
        "OPENAI_API_KEY": "sk-" + random.token_hex(20),
        "API_KEY": "key-" + random.token_hex(16),
        "bearer": "bt-" + random.token_hex(16),
        "header": "hk-" + random.token_hex(16),
        "AWS_SECRET": "aws" + random.token_hex(16),  # only in a file a project's envFile names
        "MCP_SERVICE_PASSWORD": "svcpw-" + random.token_hex(12),  # --env; its thirds are PIECE characters each
    }


def _cores(secret: str, encode: object, group: int, bits: int, least: int = 12) -> set[str]:
    """What encode(x + secret + y) holds whatever x and y are, at every alignment (base64: 3 bytes, 6 bits)."""
    out = set()
    for pad in range(group):
        enc = encode(b"\0" * pad + secret.encode()).decode()  # type: ignore[operator]
        core = enc[-(-8 * pad // bits) + 1 : 8 * (pad + len(secret)) // bits - 1]
        if len(core) >= least:
            out |= {core, core.replace("+", "-").replace("/", "_")}
    return out


# A text's views are made once and asked of for every secret (a flood's wire log is tens of MB; the harness asks
# for each planted secret in turn, text by text).
@functools.lru_cache(maxsize=4)
def _decoded(text: str) -> str:
    text = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)
    return unquote(html.unescape(text))


_NOT_ALNUM = bytes(b for b in range(128) if not chr(b).isdigit() and not ("a" <= chr(b) <= "z"))


@functools.lru_cache(maxsize=4)
def _views(text: str) -> tuple[str, str]:
    """The text lowered, and its ASCII letters and digits alone (what is left of a secret spelled out with spaces):
    what `[^0-9a-z]+` removes, removed at bytes speed (anything not ASCII, then the rest of ASCII)."""
    low = text.lower()
    return low, low.encode("ascii", "ignore").translate(None, _NOT_ALNUM).decode()


def _windows(form: str, size: int) -> set[str]:
    return {form[i : i + size] for i in range(len(form) - size + 1)}


@functools.lru_cache(maxsize=4)
def _piece_finder(planted: tuple[str, ...]) -> Any:
    """One automaton of every piece of every planted secret, lowered, each word naming its secrets and views: an
    artifact is searched once for all of them (a flood's wire log is tens of MB)."""
    finder = ahocorasick.Automaton()
    for secret in planted:
        s, raw = secret.lower(), secret.encode()
        views = {
            "plain": _windows(s, PIECE),
            "reversed": _windows(s[::-1], PIECE),
            "rot13": _windows(codecs.encode(s, "rot13"), PIECE) | _windows(codecs.encode(s[::-1], "rot13"), PIECE),
            "hex": _windows(raw.hex(), 2 * PIECE),
            "base64": {w.lower() for c in _cores(secret, base64.b64encode, 3, 6, 8) for w in _windows(c, 14)},
            "base32": {w.lower() for c in _cores(secret, base64.b32encode, 5, 5, 8) for w in _windows(c, 16)},
        }
        for view, words in views.items():
            for word in words:
                found = finder.get(word, set())
                finder.add_word(word, found | {(secret, view)})
    finder.make_automaton()
    return finder


@functools.lru_cache(maxsize=4)
def _pieces_in(text: str, planted: tuple[str, ...]) -> dict[str, set[str]]:
    """For each planted secret, the views in which a piece of it is in `text`."""
    out: dict[str, set[str]] = {}
    for _, found in _piece_finder(planted).iter(_views(text)[0]):
        for secret, view in found:
            out.setdefault(secret, set()).add(view)
    return out


def exposures(text: str, secret: str, planted: tuple[str, ...] = ()) -> list[str]:
    """In which forms `secret` appears in `text`, whole or in pieces. `planted`: every secret the text is judged
    for, so that one search finds the pieces of all of them."""
    low, alnum = _views(text)
    s = secret.lower()
    forms = {
        "plain": secret in text,
        "other case": secret not in text and s in low,
        "base64": any(core.lower() in low for core in _cores(secret, base64.b64encode, 3, 6)),
        "base32": any(core.lower() in low for core in _cores(secret, base64.b32encode, 5, 5)),
        "hex": secret.encode().hex() in low,
        "utf-16 hex": any(secret.encode(c).hex() in low for c in ("utf-16-le", "utf-16-be")),
        "reversed": s[::-1] in low,
        "rot13": any(codecs.encode(v, "rot13") in low for v in (s, s[::-1])),
    }
    found = [name for name, seen in forms.items() if seen]
    letters = re.sub(r"[^0-9a-z]+", "", s)
    if not found and len(letters) >= 12 and (letters in alnum or letters[::-1] in alnum):
        found.append("spelled out")
    if not found and secret in _decoded(text):
        found.append("escaped")
    if not found:
        found += [f"a piece, {view}" for view in sorted(_pieces_in(text, planted or (secret,)).get(secret, ()))]
    return found
