"""What hides text, reported and removed: the view the pattern rules read.

- invisible-character: zero-width and other format characters (`warn` alone; `fail` for runs of 4+),
  bidi embeddings/overrides/isolates U+202A-E and U+2066-9 (`fail`), tag characters U+E0000-E007F
  (`fail`, the hidden ASCII is decoded into the message) and runs of variation selectors (`fail`,
  bytes decoded). Legitimate uses are skipped: a ZWJ/ZWNJ joining two visible non-ASCII characters
  (emoji sequences, Persian, Indic scripts) and emoji subdivision flags.
- escape-sequence (`fail`): ANSI CSI, OSC (OSC 8 hyperlinks and OSC 52 clipboard writes named), other
  escape and control strings, and C0/C1 control characters other than \\n \\r \\t.

`neutralise(text)` returns those hits and the view: the text with them removed, so
"ig\\u200bnore previous instructions" is still an instruction, and for each character of the view its
index in the text, which `to_original` uses to map spans back. Folding (Unicode NFKC, confusables,
encodings) makes further views in `fold`, each read by every pattern module too.
"""

from __future__ import annotations

import re
import unicodedata

from mcp_review.scan.rules import Raw, snip
from mcp_review.text import INVISIBLE, is_hidden, visible

_ESCAPE = re.compile(
    r"(?P<osc>(?:\x1b\]|\x9d)(?P<body>[^\x07\x1b\x9c]*)(?:\x07|\x1b\\|\x9c)?)"
    r"|(?P<csi>(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?)"
    r"|(?P<string>\x1b[PX^_][^\x1b\x9c]*(?:\x1b\\|\x9c)?)"
    r"|(?P<esc>\x1b[ -/]*[0-~]?)"
    r"|(?P<c0>[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f-\x9a\x9c\x9e\x9f])"
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_CONTROL_NAMES = {
    "\x00": "NUL",
    "\x07": "BEL",
    "\x08": "backspace (can overwrite displayed text)",
    "\x0b": "vertical tab",
    "\x0c": "form feed",
    "\x7f": "DEL",
}
BIDI = frozenset({0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069})
_JOINERS = frozenset({0x200C, 0x200D})


def _escapes(text: str) -> list[Raw]:
    raw: list[Raw] = []
    for m in _ESCAPE.finditer(text):
        shown = snip(m.group(), 40)
        if m.group("osc") is not None:
            body = m.group("body")
            if body.startswith("8;"):
                target = body.split(";", 2)[-1]
                message = (
                    f"OSC 8 hyperlink to '{snip(target, 60)}' (a terminal shows link text that points elsewhere)"
                    if target
                    else "OSC 8 hyperlink terminator (part of a disguised link)"
                )
            elif body.startswith("52;"):
                message = f"OSC 52 clipboard write '{shown}' (a terminal would put text on the user's clipboard)"
            else:
                message = f"OSC escape '{shown}' (sets terminal state such as the title or colours)"
        elif m.group("csi") is not None:
            message = f"CSI escape '{shown}' (can recolour, hide, move the cursor or erase the screen)"
        elif m.group("string") is not None:
            message = f"terminal control string '{shown}'"
        elif m.group("esc") is not None:
            message = f"escape sequence '{shown}'"
        else:
            ch = m.group()
            message = f"control character {visible(ch)} ({_CONTROL_NAMES.get(ch, 'a terminal control code')})"
        raw.append(("escape-sequence", "fail", m.start(), m.end(), message))
    return raw


def _char_name(ch: str) -> str:
    return f"<U+{ord(ch):04X}> {unicodedata.name(ch, '').lower()}".rstrip()


def _invisible_run(text: str, start: int, end: int) -> Raw | None:
    run = text[start:end]
    codes = [ord(c) for c in run]
    tags = [c for c in codes if 0xE0000 <= c <= 0xE007F]
    if tags:
        before = text[start - 1] if start else ""
        flag = (
            before == "\U0001f3f4"
            and codes[-1] == 0xE007F
            and 2 <= len(codes) <= 8
            and all(0xE0030 <= c <= 0xE0039 or 0xE0061 <= c <= 0xE007A for c in codes[:-1])
        )
        if flag:
            return None  # an emoji subdivision flag (England, Scotland, Wales)
        hidden = "".join(chr(c - 0xE0000) for c in tags if 0x20 <= c - 0xE0000 < 0x7F)
        return (
            "invisible-character",
            "fail",
            start,
            end,
            f"{len(tags)} tag characters hide text the model reads but people do not see: '{snip(hidden, 100)}'",
        )
    bidi = [c for c in codes if c in BIDI]
    if bidi:
        return (
            "invisible-character",
            "fail",
            start,
            end,
            f"bidi control {_char_name(chr(bidi[0]))} (text displays in a different order than the model reads it)",
        )
    if len(run) == 1 and codes[0] in _JOINERS and start > 0 and end < len(text):
        around = text[start - 1] + text[end]
        if all(ord(c) > 0x7F and not is_hidden(c) for c in around):
            return None  # ZWJ/ZWNJ inside an emoji sequence or a Persian/Indic word
    if len(run) >= 4:
        return (
            "invisible-character",
            "fail",
            start,
            end,
            f"run of {len(run)} invisible characters (can hide data or split words past filters)",
        )
    message = f"invisible character {_char_name(run[0])} (can split words past filters or hide data)"
    if len(run) > 1:
        message = f"{len(run)} invisible characters from {_char_name(run[0])} (can split words past filters)"
    return ("invisible-character", "warn", start, end, message)


def _variation_run(start: int, end: int, text: str) -> Raw | None:
    if end - start < 2:
        return None  # one selector after an emoji or CJK character is ordinary
    data = bytes((ord(c) - 0xFE00) if ord(c) <= 0xFE0F else (ord(c) - 0xE0100 + 16) for c in text[start:end])
    hidden = data.decode("utf-8", "replace")
    return (
        "invisible-character",
        "fail",
        start,
        end,
        f"{end - start} variation selectors encode hidden bytes: '{snip(hidden, 100)}'",
    )


def _invisibles(text: str) -> list[Raw]:
    """Runs of hidden format characters and of variation selectors (control characters are escapes)."""
    raw: list[Raw] = []
    runs: list[list[int]] = []  # [class, start, end]; class 0 = hidden, 1 = variation selector
    for m in _NON_ASCII.finditer(text):
        ch = m.group()
        code = ord(ch)
        if 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF:
            cls = 1
        elif (code in INVISIBLE or is_hidden(ch)) and not 0x80 <= code <= 0x9F:
            cls = 0
        else:
            continue
        i = m.start()
        if runs and runs[-1][0] == cls and runs[-1][2] == i:
            runs[-1][2] = i + 1
        else:
            runs.append([cls, i, i + 1])
    for cls, start, end in runs:
        hit = _invisible_run(text, start, end) if cls == 0 else _variation_run(start, end, text)
        if hit:
            raw.append(hit)
    return raw


def _strip(text: str, spans: list[tuple[int, int]]) -> tuple[str, list[int] | None]:
    """`text` without `spans`, and for each kept character its index in `text` (None: nothing removed)."""
    if not spans:
        return text, None
    pieces: list[str] = []
    index: list[int] = []
    pos = 0
    for s, e in sorted(spans):
        if s > pos:
            pieces.append(text[pos:s])
            index.extend(range(pos, s))
        pos = max(pos, e)
    pieces.append(text[pos:])
    index.extend(range(pos, len(text)))
    index.append(len(text))
    return "".join(pieces), index


def neutralise(text: str) -> tuple[list[Raw], str, list[int] | None]:
    """The escapes and invisible characters in `text` as hits, and the view: `text` without them, with for
    each kept character its index in `text` (None: nothing removed)."""
    raw: list[Raw] = []
    if not text.isascii():
        raw += _invisibles(text)
    if _CONTROL.search(text) or not text.isascii():
        raw += _escapes(text)
    view, index = _strip(text, [(h[2], h[3]) for h in raw if not text[h[2] : h[3]].isspace()])
    return raw, view, index


def to_original(found: list[Raw], index: list[int] | None) -> list[Raw]:
    """`found`, hits in the view, with their spans in the original text."""
    if index is None:
        return found
    return [(k, s, index[a], index[b - 1] + 1 if b > a else index[a], m) for k, s, a, b, m in found]
