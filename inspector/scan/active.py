"""Markdown and HTML that a client would render as active content, found in what a server sends.

Many clients render tool results, prompt messages and descriptions as Markdown, some with HTML, some
render Mermaid diagrams and SVG. What runs or loads when rendered is an attack on the client, not text for
the model: an event handler (`<img src=x onerror=...>`), a script element (HTML, SVG, inside a Mermaid
label), a `javascript:` or `data:text/html` link, an iframe or object that frames another page, a Mermaid
`click` bound to a script, and an image whose URL carries data out (a beacon with a query string).
`find(text)` returns (start, end, severity, message) for each; everything is `fail` but a beacon whose query
holds plain values (an image URL with a query is common; `warn`); one with a slot for the model to fill
(`?q=SUMMARY_HERE`, `?d=<the user's message>`) is `fail`.
"""

from __future__ import annotations

import re

_HANDLER = re.compile(r"<[a-z][\w:-]*\b[^<>]{0,400}?\son[a-z]{3,20}\s*=", re.I)
_SCRIPT = re.compile(r"<\s*script\b[^>]{0,200}>", re.I)
_FRAME = re.compile(r"<\s*(?:iframe|frame|object|embed|base|meta\s+http-equiv\s*=\s*[\"']?refresh)\b[^>]{0,300}>", re.I)
_LINK = r"(?:\]\(|href\s*=\s*[\"']?|src\s*=\s*[\"']?|click\s+\w+\s+[\"'])\s*"
_JS_URL = re.compile(_LINK + r"(?:javascript|vbscript):", re.I)
_DATA_HTML = re.compile(_LINK + r"data:(?:text/html|image/svg\+xml|application/x?html)", re.I)
_MERMAID_CLICK = re.compile(r"^\s*click\s+\S+\s+(?:call\s+\w+\s*\(|href\s+[\"']?javascript:)", re.I | re.M)
_BEACON = re.compile(r"!\[[^\]\n]{0,100}\]\(\s*(https?://[^)\s]+\?[^)\s]*=[^)\s]*)\)", re.I)
# A beacon whose query is a slot for the model to fill: `?q=SUMMARY_HERE`, `?d=<the user's message>`, `{data}`.
_BEACON_SLOT = re.compile(
    r"!\[[^\]\n]{0,100}\]\(\s*https?://[^)\s]+\?[^)]*=\s*(?:[A-Z][A-Z0-9]*_[A-Z0-9_]+|<[^>]{1,80}>|\{[^}]{1,60}\}|\$\w+)"
)

PATTERNS = (
    (_HANDLER, "fail", "an HTML event handler (runs script when a client renders it)"),
    (_SCRIPT, "fail", "a script element (runs when a client renders it)"),
    (_FRAME, "fail", "an iframe, object or redirect (loads another page inside the client)"),
    (_JS_URL, "fail", "a javascript: link (runs script when clicked)"),
    (_DATA_HTML, "fail", "a data: URL with HTML or SVG (a page made of the link itself)"),
    (_MERMAID_CLICK, "fail", "a Mermaid click bound to a script"),
    (_BEACON_SLOT, "fail", "a Markdown image whose URL has a slot for data (the model fills it, the client sends it)"),
    (_BEACON, "warn", "a Markdown image whose URL carries a query (loading it sends data to that host)"),
)


# Code is shown, not rendered: fenced blocks (but Mermaid, which clients draw) and inline code spans.
_FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[\w+-]*)[^\n]*\n.*?(?:^(?P=fence)[ \t]*$|\Z)", re.M | re.S)
_INLINE = re.compile(r"(?<!`)(`+)(?!`)[^\n]+?(?<!`)\1(?!`)")


def _shown_as_code(text: str) -> list[tuple[int, int]]:
    spans = [(m.start(), m.end()) for m in _FENCE.finditer(text) if m.group("info").lower() != "mermaid"]
    return spans + [(m.start(), m.end()) for m in _INLINE.finditer(text)]


def find(text: str) -> list[tuple[int, int, str, str]]:
    """(start, end, severity, message) for each piece of active content in `text` (outside code)."""
    if "<" not in text and ":" not in text and "click" not in text:
        return []
    code = _shown_as_code(text) if "`" in text or "~~~" in text else []
    return [
        (m.start(), m.end(), sev, msg)
        for pattern, sev, msg in PATTERNS
        for m in pattern.finditer(text)
        if not any(start <= m.start() < end for start, end in code)
    ]
