"""What the report formats share: server text made inert in markdown (`code`, `cell`, `fence_for`) and in SARIF
messages (`plain`), and the SARIF schema both SARIF writers name (the review's and the diff's).

It is its own module so that the formats import it and not each other: `markdown` and `sarif` each embed the
diff against mcp-review.lock (`changes`), and `changes` quotes with these helpers.
"""

from __future__ import annotations

import re

from mcp_review.text import one_line

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
# a code span (left alone), or what opens a tag or link (escaped)
_MARKUP = re.compile(r"(?<!`)(`+)(?!`).*?(?<!`)\1(?!`)|[\\<\[]")


def clip(shown: str, limit: int) -> str:
    """Text capped at `limit` and then made visible, capped again: escapes make it up to 8 times as long."""
    return shown if len(shown) <= limit + 32 else shown[:limit] + "…"


def _line(text: object, limit: int) -> str:
    """One line of at most about `limit` characters, hidden characters shown as escapes."""
    return clip(one_line(str(text), limit), limit)


def code(text: object, limit: int = 200) -> str:
    """Inline code that survives any content: fenced by one backtick more than the longest run inside."""
    body = _line(text, limit)
    if "`" not in body:
        return f"`{body}`"
    fence = "`" * (max(len(run) for run in re.findall(r"`+", body)) + 1)
    return f"{fence} {body} {fence}"


def fence_for(body: str) -> str:
    """A code fence no line of `body` can close: more backticks than its longest run, and at least three."""
    return "`" * max(3, max((len(run) for run in re.findall(r"`+", body)), default=0) + 1)


def cell(text: object, limit: int = 300) -> str:
    """Inert markdown text, also in a table cell: no pipe, no tag, no `[` that could open a link or an image."""
    shown = _line(text, limit).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return shown.replace("\\", "\\\\").replace("|", "\\|").replace("[", "\\[")  # `\[` must not unescape `[`


def plain(text: str) -> str:
    """A message text no markdown renderer turns into structure (see `sarif`'s docstring): server text
    on one line, `<`, `[` and `\\` outside code spans escaped with a backslash."""
    return _MARKUP.sub(lambda m: m[0] if m[1] else "\\" + m[0], one_line(text, 4000))
