"""What an app page's inline code does with untrusted data: a bounded regular-expression scan, not a parser.

A finding is proof only when the quoted code shows it: tool data (`structuredContent`, `toolOutput`, a result's
`content[0].text`) written into `innerHTML` or passed to `eval`/`new Function`, or a message posted to `'*'` at a
window that is not the host (a nested frame's `contentWindow`, `window.opener`, `frames[i]`). Code that merely
could carry tool data (an identifier named `result` or `data`) is suggestive: a warn. Posting to `'*'` at
`window.parent` is the spec's own bridge (the sandboxed app cannot know the host's origin) and is not judged.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from mcp_review.checks.apps.page import WINDOW, quote

TOOL_DATA = re.compile(
    r"structuredContent|toolOutput|toolResult|toolInput|widgetState|\.content\s*\[\s*\d+\s*\]\s*\.text", re.I
)
SUSPECT = re.compile(r"\b(?:result|response|data|message|content|text|html|input|args|params|payload)\b", re.I)
LITERAL_ONLY = re.compile(r"""^\s*(?:"[^"\n]*"|'[^'\n]*'|`[^`$\n]*`)\s*$""")
SINKS = (
    ("innerHTML", re.compile(r"\.(?:innerHTML|outerHTML)\s*\+?=\s*(?!=)")),
    ("insertAdjacentHTML", re.compile(r"\.insertAdjacentHTML\s*\(\s*[\"'][\w-]+[\"']\s*,")),
    ("document.write", re.compile(r"\bdocument\.write(?:ln)?\s*\(")),
    ("eval", re.compile(r"(?<![\w$.])eval\s*\(")),
    ("new Function", re.compile(r"\bnew\s+Function\s*\(")),
)
POST = re.compile(r"\.\s*postMessage\s*\(")
# the window a call posts to, read back from the call within TARGET_CHARS (a regex run over a whole page from every
# start would take quadratic time on a long chain of names)
TARGET = re.compile(r"(?P<target>[\w$]+(?:\s*\.\s*[\w$]+|\[[^\]\n]{1,40}\])*)\s*$")
TARGET_CHARS = 120
HOST_TARGETS = re.compile(r"^(?:(?:window|self|globalThis)\s*\.\s*)?(?:parent|top)$")
FOREIGN_TARGETS = re.compile(r"(?:contentWindow|opener|frames\s*\[[^\]]*\])$")
STAR = re.compile(r""",\s*["']\*["']\s*[,)]""")


SITES_READ = 2000  # call sites of one kind read per page; past that, what was not read is said (blocking)


@dataclass(frozen=True)
class Hit:
    severity: str  # "fail", "warn", or "blocking" (sites past SITES_READ not read)
    what: str
    quote: str


def _expression(code: str, start: int) -> str:
    """The expression after a sink, up to the end of its statement (bounded by WINDOW characters)."""
    tail = code[start : start + WINDOW]
    depth = 0
    for i, ch in enumerate(tail):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                return tail[:i]
            depth -= 1
        elif ch in ";\n" and depth == 0:
            return tail[:i]
    return tail


def sinks(code: str) -> Iterator[Hit]:
    """Untrusted data written into HTML or run as code."""
    for name, pattern in SINKS:
        for i, found in enumerate(pattern.finditer(code)):
            if i == SITES_READ:
                yield Hit("blocking", f"more than {SITES_READ:,} {name} sites: only the first {SITES_READ:,} read", "")
                break
            value = _expression(code, found.end())
            if not value.strip() or LITERAL_ONLY.match(value):
                continue
            shown = quote(code, found.start(), found.end() + len(value))
            if TOOL_DATA.search(value):
                yield Hit("fail", f"tool data reaches {name}", shown)
            elif name in ("eval", "new Function") or SUSPECT.search(value):
                yield Hit("warn", f"{name} of a computed value (proof would be that it carries tool data)", shown)


def posts_to_any(code: str) -> Iterator[Hit]:
    """postMessage(..., '*') at a window that is not the host."""
    for i, found in enumerate(POST.finditer(code)):
        if i == SITES_READ:
            yield Hit("blocking", f"more than {SITES_READ:,} postMessage calls: only the first {SITES_READ:,} read", "")
            break
        named = TARGET.search(code[max(0, found.start() - TARGET_CHARS) : found.start()])
        target = re.sub(r"\s+", "", named.group("target")) if named else ""
        args = _expression(code, found.end())
        if not STAR.search(args + ")") or HOST_TARGETS.match(target):
            continue
        start = found.start() - len(named.group(0)) if named else found.start()
        shown = quote(code, start, found.end() + len(args))
        if FOREIGN_TARGETS.search(target):
            yield Hit("fail", f"posts to '*' at {target}, a window whose origin can be anyone's", shown)
