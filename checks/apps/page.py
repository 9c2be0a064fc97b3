"""Where an app page reaches out, read from its HTML and its inline code, and what its code does with tool data.

The HTML is parsed with the standard library's `html.parser` (made for exactly this: a tolerant tokenizer that
never runs anything). Inline code is not parsed: a bounded regular-expression scan finds the request sites whose
URL is a string literal (`fetch("https://…")`, `new WebSocket("wss://…")`, an XHR `open("POST", "https://…")`,
`navigator.sendBeacon`, `import`, `.src = "https://…"`), so every origin it reports is quoted from the page. A
computed URL (`fetch(url)`) names no origin and is not reported: the host's CSP bounds where it can go.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from urllib.parse import urlsplit

WEB_SCHEMES = ("http", "https", "ws", "wss")
QUOTE_CONTEXT = 40  # characters either side of a quoted span
WINDOW = 300  # characters after a call site read for its arguments


@dataclass(frozen=True)
class Reach:
    """One place the page reaches out: kind is connect/resource/frame/base (the CSP list that must allow it), or
    navigate (the page sends itself or a window there: no CSP list of the app bounds it)."""

    kind: str
    url: str
    origin: str
    quote: str
    sends: bool = False  # it carries data out (a request body, a beacon, data appended to the URL)
    carries: tuple[str, ...] = ()  # what it sends that is the user's or the host's: cookies, storage, tool data


def origin_of(url: str) -> str | None:
    """scheme://host[:port] of an absolute web URL (`//host` counts as https), else None (same origin, data:...)."""
    url = url.strip()
    if url.startswith("//"):
        url = "https:" + url
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme.lower() not in WEB_SCHEMES or not parts.hostname:
        return None
    return f"{parts.scheme.lower()}://{parts.hostname}" + (f":{port}" if port else "")


def quote(text: str, start: int, end: int) -> str:
    """The span between « » with some context, on one line."""
    before = text[max(0, start - QUOTE_CONTEXT) : start]
    span = text[start:end][:160]
    after = text[end : end + QUOTE_CONTEXT]
    return " ".join(f"…{before}«{span}»{after}…".split())


# tag -> (attribute, kind) of what the browser loads
LOADS = {
    "script": (("src", "resource"),),
    "img": (("src", "resource"), ("srcset", "resource")),
    "source": (("src", "resource"), ("srcset", "resource")),
    "video": (("src", "resource"), ("poster", "resource")),
    "audio": (("src", "resource"),),
    "track": (("src", "resource"),),
    "embed": (("src", "resource"),),
    "object": (("data", "resource"),),
    "iframe": (("src", "frame"),),
    "frame": (("src", "frame"),),
    "base": (("href", "base"),),
}
LINK_RELS = {"stylesheet", "preload", "modulepreload", "icon", "prefetch", "manifest"}
CSS_URL = re.compile(r"""url\(\s*["']?([^"')\s]{1,2000})|@import\s+["']([^"']{1,2000})""", re.I)


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.reaches: list[Reach] = []
        self.code: list[str] = []  # inline script bodies
        self._in: str | None = None  # "script" or "style" while inside one without src

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k.lower(): v or "" for k, v in attrs}
        shown = self.get_starttag_text() or f"<{tag}>"
        for attr, kind in LOADS.get(tag, ()):
            for url in _urls(values.get(attr, ""), attr == "srcset"):
                self._add(kind, url, shown)
        if tag == "link" and LINK_RELS & set(values.get("rel", "").lower().split()):
            self._add("resource", values.get("href", ""), shown)
        for found in CSS_URL.finditer(values.get("style", "")):
            self._add("resource", found.group(1) or found.group(2), shown)
        if tag in ("script", "style") and not values.get("src"):
            self._in = tag

    def handle_endtag(self, tag: str) -> None:
        if tag == self._in:
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "script":
            self.code.append(data)
        elif self._in == "style":
            for found in CSS_URL.finditer(data):
                self._add("resource", found.group(1) or found.group(2), quote(data, found.start(), found.end()))

    def _add(self, kind: str, url: str, shown: str) -> None:
        origin = origin_of(url)
        if origin:
            self.reaches.append(Reach(kind, url, origin, " ".join(shown.split())[:200]))


def _urls(value: str, srcset: bool) -> list[str]:
    if not srcset:
        return [value]
    return [part.strip().split(" ")[0] for part in value.split(",") if part.strip()]


@dataclass
class Facts:
    reaches: list[Reach]
    code: str  # every inline script, joined


def read_page(html: str) -> Facts:
    parser = _Parser()
    parser.feed(html)
    parser.close()
    code = "\n".join(parser.code)
    return Facts(parser.reaches + list(code_reaches(code)), code)


LIT = r"""(?P<q>["'`])(?P<url>[^"'`\n]{1,2000}?)(?P=q)"""
# a URL held in a name first (`const u = "https://…"; fetch(u, …)`): the name stands where the literal would
NAMED = r"(?P<name>[A-Za-z_$][\w$]{0,60})(?=\s*[,)])"
# a request site with a literal URL: (pattern, kind, sends data by its nature)
SITES = (
    (re.compile(r"\bfetch\s*\(\s*" + LIT), "connect", False),
    (re.compile(r"\bnew\s+(?:WebSocket|EventSource)\s*\(\s*" + LIT), "connect", False),
    (
        re.compile(r"""\.open\s*\(\s*["'](?P<method>GET|POST|PUT|PATCH|DELETE|HEAD)["']\s*,\s*""" + LIT),
        "connect",
        False,
    ),
    (re.compile(r"\bsendBeacon\s*\(\s*" + LIT), "connect", True),
    (re.compile(r"\bimport\s*\(\s*" + LIT), "resource", False),
    (re.compile(r"\bimport\s+(?:[\w$*{},\s]{1,200}\s+from\s+)?" + LIT), "resource", False),
    (re.compile(r"\.src\s*=\s*" + LIT), "resource", False),
    (re.compile(r"\b(?:window\.|document\.)?location(?:\.href)?\s*=\s*" + LIT), "navigate", False),
    (re.compile(r"\bwindow\.open\s*\(\s*" + LIT), "navigate", False),
    (re.compile(r"\b(?:fetch|new\s+(?:WebSocket|EventSource))\s*\(\s*" + NAMED), "connect", False),
    (re.compile(r"\bsendBeacon\s*\(\s*" + NAMED), "connect", True),
    (
        re.compile(r"""\.open\s*\(\s*["'](?P<method>GET|POST|PUT|PATCH|DELETE|HEAD)["']\s*,\s*""" + NAMED),
        "connect",
        False,
    ),
)
ASSIGNED = re.compile(r"\b(?:const|let|var)\s+(?P<name>[A-Za-z_$][\w$]{0,60})\s*=\s*" + LIT)
# what a request carries that is not the page's own: the user's cookies and storage, what the host handed it
CARRIED = (
    ("document.cookie", re.compile(r"\bdocument\.cookie\b")),
    ("the page's storage", re.compile(r"\b(?:localStorage|sessionStorage|indexedDB)\b")),
    (
        "tool data",
        re.compile(r"structuredContent|toolOutput|toolResult|toolInput|widgetState|\.content\s*\[\s*\d+\s*\]\s*\.text"),
    ),
    ("form input", re.compile(r"\bnew\s+FormData\b|\.value\b")),
)
BODY = re.compile(r"\bbody\s*:|method\s*:\s*[\"'](?:POST|PUT|PATCH)", re.I)


def code_reaches(code: str) -> Iterator[Reach]:
    named = {m.group("name"): m.group("url") for m in ASSIGNED.finditer(code)}
    for pattern, kind, sends in SITES:
        for found in pattern.finditer(code):
            groups = found.groupdict()
            url = groups["url"] if groups.get("url") is not None else named.get(groups.get("name") or "")
            if url is None:
                continue  # a computed URL names no origin: the host's CSP bounds where it goes
            prefix = url.split("${", 1)[0]  # a template literal: only what comes before its first ${ is literal
            origin = origin_of(prefix) if "${" not in url or _host_done(prefix) else None
            if origin is None:
                continue
            after = code[found.end() : found.end() + WINDOW]
            method = found.groupdict().get("method")
            carries = (
                sends
                or method not in (None, "GET", "HEAD")
                or (kind == "connect" and bool(BODY.search(after.split(";", 1)[0])))
                or after.lstrip().startswith("+")  # data appended to the URL
                or "${" in url
            )
            sent = after.split(";", 1)[0] + (url if "${" in url else "")
            what = tuple(name for name, marker in CARRIED if carries and marker.search(sent))
            yield Reach(
                kind, url, origin, quote(code, found.start(), found.end() + len(after.split(";", 1)[0])), carries, what
            )


def _host_done(prefix: str) -> bool:
    """A template literal's literal start names a whole host: `https://x.example/${id}`, not `https://${host}`."""
    rest = prefix.split("//", 1)[1] if "//" in prefix else ""
    return "/" in rest or "?" in rest


def covers(entry: str, origin: str) -> bool:
    """Whether a declared CSP entry allows `origin`, read as leniently as CSP Level 3 (a fail must never come from
    a stricter reading than the browser's): `*` and a bare scheme (`https:`) allow every host (apps.csp-origins-only
    fails them), an http(s) entry allows the ws(s) of its host, a `*.` wildcard allows subdomains only, and an entry
    without a port allows the scheme's default port only."""
    text = entry.strip()
    want = urlsplit(origin)
    if text == "*":
        return True
    if text.endswith(":") and "/" not in text:
        return want.scheme in SCHEMES.get(text[:-1].lower(), set())
    try:
        have = urlsplit(text if "://" in text else "https://" + text)
        have_port, want_port = have.port, want.port
    except ValueError:
        return False
    if want.scheme not in SCHEMES.get(have.scheme, set()):
        return False
    host, target = (have.hostname or ""), (want.hostname or "")
    host_ok = target.endswith(host[1:]) if host.startswith("*.") else host == target
    return host_ok and have_port == want_port


SCHEMES = {"https": {"https", "wss"}, "wss": {"wss", "https"}, "http": set(WEB_SCHEMES), "ws": set(WEB_SCHEMES)}


def names(page_text: str, entry: str) -> bool:
    """Whether the page names the host of a declared entry anywhere (its markup, its code, a comment)."""
    try:
        host = urlsplit(entry if "://" in entry else "https://" + entry).hostname or ""
    except ValueError:
        return False
    host = host.removeprefix("*.")
    return bool(host) and host.lower() in page_text.lower()
