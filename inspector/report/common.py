"""What the report formats share: server text made inert in markdown (`code`, `cell`, `fence_for`) and in SARIF
messages (`plain`), and the SARIF schema both SARIF writers name (the review's and the diff's).

It is its own module so that the formats import it and not each other: `markdown` and `sarif` each embed the
diff against mcp-review.lock (`changes`), and `changes` quotes with these helpers.
"""

from __future__ import annotations

import re
from typing import Any

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


REACHED = 12  # tools, parameters or rules a coverage line names before it counts the rest


def reach_lines(reach: dict[str, Any] | None) -> list[str]:
    """The review's reach in words (`Review.reach`), for the coverage section of both markdown reviews: the budget
    of calls per tool, the values the server's own text offers and which were sent, what a probe's budget left
    out. Server text is quoted inert (`code`)."""
    if not reach:
        return []
    out = [f"Up to {reach.get('callsPerTool')} calls per tool and rule (`--calls-per-tool`)."]
    offered = reach.get("offered") or {}
    pairs = [(f"{tool}.{param}", v) for tool, params in offered.items() for param, v in params.items()]
    if pairs:
        total = sum(len(v.get("offered", [])) for _, v in pairs)
        sent = sum(len(v.get("sent", [])) for _, v in pairs)
        named = [
            f"{code(name, 60)}: " + ", ".join(code(x, 40) for x in v.get("sent", [])[:6])
            for name, v in pairs[:REACHED]
            if v.get("sent")
        ]
        unsent = [
            f"{code(name, 60)}: " + ", ".join([code(x, 40) for x in v["offered"] if x not in v.get("sent", [])][:6])
            for name, v in pairs
            if len(v.get("sent", [])) < len(v.get("offered", []))
        ]
        line = f"Values the server's own text offers: {sent} of {total} sent"
        line += f" ({'; '.join(named)})" if named else ""
        line += f"; not sent: {'; '.join(unsent[:REACHED])}" if unsent else ""
        out.append(line + ".")
    left = reach.get("leftOut") or {}
    if left:
        said = [
            f"{rule}: " + ", ".join(f"{code(tool, 60)} ({n})" for tool, n in list(tools.items())[:REACHED])
            for rule, tools in left.items()
        ]
        out.append(f"Payloads left out by that budget: {'; '.join(said)}.")
    return out
