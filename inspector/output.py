"""Every sink text leaves mcp-review through: the terminal, files, the clipboard.

Server text is already made visible (`text.visible`) and secrets already masked at the wire boundary;
this is the last line, for whatever reached a sink another way. At every sink:

- every known secret is masked, in any encoding (`redact.scrub`);
- on the terminal, no control character passes except line breaks, tabs, the carriage return of a
  progress line, and the colour and erase-line sequences mcp-review itself writes (`\\e[...m`, `\\e[K`): a
  server's OSC 52 (clipboard), screen clears or hyperlinks cannot reach the terminal. mcp-review writes
  those sequences only to a terminal (or where FORCE_COLOR asks), so elsewhere (a pipe, a CI log) not even
  they pass: a server's colour that reached a sink unescaped is shown as `\\e[31m` there;
- nothing raises on text the stream cannot encode.

Files are written whole and atomically: a crash never leaves half a review behind.
"""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from mcp_review.redact import scrub

_UMASK = os.umask(0)
os.umask(_UMASK)  # read once, at import (single-threaded): files are created as the user's umask says

_OWN = r"\x1b\[[0-9;]*[mK]"  # the only sequences mcp-review writes: colours, and erasing a progress line
_JSON_HIDDEN = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")  # what JSON leaves raw and SafeStream does not
_CONTROLS = "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"
_CONTROL = re.compile(rf"({_OWN})|({_CONTROLS})")
_ANY_CONTROL = re.compile(_CONTROLS)  # what `_CONTROL` finds starts with one of them (ESC too): 5x faster to look for


def _shown(match: re.Match[str]) -> str:
    if match.group(1):
        return match.group(1)
    return _escaped(match)


def _escaped(match: re.Match[str]) -> str:
    if match.group(1):
        return "\\e" + match.group(1)[1:]
    code = ord(match.group(2))
    return "\\e" if code == 0x1B else f"\\x{code:02x}" if code < 0x100 else f"<U+{code:04X}>"


def json_escaped(text: str, chars: re.Pattern[str]) -> str:
    """JSON text with every character `chars` matches (inside strings) written as its `\\u` escape: the same value."""
    return chars.sub(lambda m: f"\\u{ord(m[0]):04x}", text) if chars.search(text) else text


def inert_json(text: str) -> str:
    """JSON text whose strings hold no character a terminal acts on: DEL, C1 controls and bidi overrides become
    `\\u` escapes (JSON escapes C0 itself). What `SafeStream` would change in it would break the JSON."""
    return json_escaped(text, _JSON_HIDDEN)


def json_text(value: Any, **options: Any) -> str:
    """A JSON output (printed or written): strict JSON (RFC 8259: a NaN raises), indented, `inert_json`."""
    return inert_json(json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False, **options))


def terminal_safe(text: str, own: bool = True) -> str:
    """`text` as it may reach a terminal: secrets masked, foreign control characters shown as escapes (and
    mcp-review's own colour and erase-line sequences too, with `own=False`)."""
    text = scrub(text)
    return _CONTROL.sub(_shown if own else _escaped, text) if _ANY_CONTROL.search(text) else text


class SafeStream:
    """A text stream (stdout, stderr) that passes everything written through `terminal_safe`."""

    def __init__(self, inner: TextIO) -> None:
        self._inner = inner
        # where mcp-review's own colours may go: a terminal, or a pipe the user asked colours on (as rich reads it)
        asked = any(os.environ.get(name) for name in ("FORCE_COLOR", "TTY_COMPATIBLE"))
        try:
            self._tty = asked or inner.isatty()
        except (AttributeError, ValueError):
            self._tty = asked

    def write(self, text: str) -> int:
        safe = terminal_safe(text, own=self._tty)
        try:
            self._inner.write(safe)
        except UnicodeEncodeError:
            encoding = getattr(self._inner, "encoding", None) or "ascii"
            self._inner.write(safe.encode(encoding, "replace").decode(encoding, "replace"))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # flush, isatty, fileno, encoding...: the inner stream's
        return getattr(self._inner, name)


def guard_streams() -> None:
    """Route the process's stdout and stderr through `SafeStream` (the command line calls this once)."""
    import sys

    if not isinstance(sys.stdout, SafeStream):
        sys.stdout = SafeStream(sys.stdout)
    if not isinstance(sys.stderr, SafeStream):
        sys.stderr = SafeStream(sys.stderr)


def write_text(path: str | Path, text: str | Iterable[str], compress: bool = False) -> None:
    """Write a file that mcp-review produces (a review, an export, the wire log, saved state): secrets
    masked, written to a temporary file beside it and moved into place. `text` may come in blocks (a big
    review, streamed); each is masked on its own, so a block must never split a secret. `compress`: gzip
    (level 1, no timestamp: the same text gives the same bytes), for the app's saved state."""
    import tempfile  # here: the command line guards its streams with this module before a server starts

    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        os.fchmod(fd, 0o666 & ~_UMASK)
        with os.fdopen(fd, "wb") as out:
            sink: Any = out
            if compress:
                import gzip

                sink = gzip.GzipFile(fileobj=out, mode="wb", compresslevel=1, mtime=0)
            with io.TextIOWrapper(sink, encoding="utf-8", errors="replace") as f:  # closes `sink`: gzip's end
                for block in [text] if isinstance(text, str) else text:
                    f.write(scrub(block))
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
