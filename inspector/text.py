"""Server text is data: make control, escape, bidi and invisible characters visible, and cap sizes.

Everything a server sends (names, descriptions, results, stderr) goes through `visible()` before it
reaches a terminal, so an ANSI/OSC escape cannot repaint the screen or plant a hyperlink, and a
right-to-left override cannot disguise text. Rich markup is never interpreted: callers wrap the result
in `rich.text.Text`, never in a markup string.
"""

from __future__ import annotations

import re
import unicodedata

from mcp_review.redact import scrub

# Characters that change how text displays without being visible themselves.
INVISIBLE = {
    0x200B,
    0x200C,
    0x200D,
    0x200E,
    0x200F,
    0x2060,
    0x2061,
    0x2062,
    0x2063,
    0x2064,
    0xFEFF,
    0x00AD,
    0x180E,
    0x202A,
    0x202B,
    0x202C,
    0x202D,
    0x202E,
    0x2066,
    0x2067,
    0x2068,
    0x2069,
}
_BREAKS = re.compile(r"[\n\r\t]+")
NAMED = {"\x1b": "\\e", "\t": "\\t", "\r": "\\r", "\x07": "\\a", "\x08": "\\b", "\x00": "\\0"}


def is_hidden(ch: str) -> bool:
    code = ord(ch)
    if code in INVISIBLE or 0xE0000 <= code <= 0xE007F:  # tag characters carry hidden ASCII
        return True
    return unicodedata.category(ch) in ("Cc", "Cf", "Co") and ch != "\n"


def visible(text: str, limit: int | None = None, *, newlines: bool = True, cut: str | None = None) -> str:
    """`text` with every hidden character shown as an escape, e.g. ESC as `\\e`, U+202E as `<U+202E>`.

    `newlines=False` also shows line breaks (for one-line cells). `limit` caps the length and says so (with
    `cut` when the caller knows better than the count of what is left in `text`).
    """
    text = scrub(text)  # whatever the text is, no known secret is shown
    clipped = ""
    if limit is not None and len(text) > limit:
        clipped = cut or f"… [{len(text) - limit} more characters]"
        text = text[:limit]
    if text.isascii() and text.isprintable() and "\x1b" not in text:
        return text + clipped
    out = []
    for ch in text:
        if ch == "\n" and newlines:
            out.append(ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch in NAMED:
            out.append(NAMED[ch])
        elif is_hidden(ch):
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"<U+{code:04X}>")
        else:
            out.append(ch)
    return "".join(out) + clipped


def one_line(text: str, limit: int = 120) -> str:
    """For a table cell: runs of line breaks and tabs become one space, the rest as `visible()`."""
    return visible(" ".join(part for part in _BREAKS.split(text) if part), limit, newlines=False)


def plural(n: int, noun: str) -> str:
    """`n` with its thousands separated and `noun` in the plural unless it is one: "1 tool", "25,003 tools"."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"
