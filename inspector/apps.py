"""MCP Apps as a host reads them, headless: which tools name an app resource, the resource read as a page (its
MIME type, `_meta`, HTML) and the CSP it declares. The `apps` rule pack judges them (`mcp_review.checks.apps.model`
reads the pages once per review); the app shows one (`tui/dialogs/app_page.py`), so this lives in the core, which
may not import a rule pack.

Names are the specs': the ext-apps spec 2026-01-26 (SEP-1865, extension `io.modelcontextprotocol/ui`): a tool's
`_meta.ui.resourceUri` (the deprecated flat `_meta["ui/resourceUri"]` too) and `_meta.ui.visibility`; a resource's
`_meta.ui.csp` {connectDomains, resourceDomains, frameDomains, baseUriDomains}, `permissions`, `domain`,
`prefersBorder`, MIME type `text/html;profile=mcp-app`. The OpenAI Apps SDK keys that came before it:
`openai/outputTemplate`, `openai/widgetAccessible`, `openai/visibility` on tools; `openai/widgetCSP`
{connect_domains, resource_domains, frame_domains}, `openai/widgetDomain` on resources, MIME `text/html+skybridge`.
A resource's `_meta` is read from its listing and from its `resources/read` contents (the contents' win).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from mcp_review.catalog import Item, ServerSnapshot

EXTENSION = "io.modelcontextprotocol/ui"
APP_MIME = "text/html;profile=mcp-app"
SKYBRIDGE_MIME = "text/html+skybridge"
# where a tool names its app: the key as the finding quotes it, and how to read it from `_meta`
LINK_KEYS = ("_meta.ui.resourceUri", "_meta.ui/resourceUri", "_meta.openai/outputTemplate")
CSP_KEYS = {
    "connectDomains": "connect",
    "resourceDomains": "resource",
    "frameDomains": "frame",
    "baseUriDomains": "base",
}
OPENAI_CSP_KEYS = {"connect_domains": "connect", "resource_domains": "resource", "frame_domains": "frame"}
PAGE_CHARS = 8 * 1024 * 1024  # characters of one page that are analysed


def meta(raw: Any) -> dict[str, Any]:
    value = raw.get("_meta") if isinstance(raw, dict) else None
    return value if isinstance(value, dict) else {}


def ui_meta(raw: Any) -> dict[str, Any]:
    value = meta(raw).get("ui")
    return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class Link:
    """A tool naming its app resource."""

    tool: Item
    uri: str
    key: str  # one of LINK_KEYS


def links(tool: Item) -> list[Link]:
    found = {
        "_meta.ui.resourceUri": ui_meta(tool.raw).get("resourceUri"),
        "_meta.ui/resourceUri": meta(tool.raw).get("ui/resourceUri"),
        "_meta.openai/outputTemplate": meta(tool.raw).get("openai/outputTemplate"),
    }
    return [Link(tool, uri, key) for key, uri in found.items() if isinstance(uri, str) and uri]


@dataclass
class Page:
    """An app resource as the host reads it (`resources/read`)."""

    uri: str
    listed: Item | None
    tools: list[Item] = field(default_factory=list)  # the tools that name it
    seq: int | None = None  # the read's exchange
    error: str | None = None  # why the read gave no page
    mime: str | None = None
    html: str = ""
    meta: dict[str, Any] = field(default_factory=dict)  # listing `_meta` updated by the contents' `_meta`

    @property
    def ui(self) -> dict[str, Any]:
        value = self.meta.get("ui")
        return value if isinstance(value, dict) else {}

    @property
    def evidence(self) -> list[int | None]:
        return [self.listed.seq if self.listed else None, self.seq]

    def csp(self) -> Iterator[tuple[str, str, Any]]:
        """(where, kind, the raw list) for each CSP list the page declares: kind is connect/resource/frame/base."""
        csp = self.ui.get("csp")
        for key, kind in CSP_KEYS.items():
            if isinstance(csp, dict) and key in csp:
                yield f"_meta.ui.csp.{key}", kind, csp[key]
        widget = self.meta.get("openai/widgetCSP")
        for key, kind in OPENAI_CSP_KEYS.items():
            if isinstance(widget, dict) and key in widget:
                yield f"_meta.openai/widgetCSP.{key}", kind, widget[key]

    def declared(self) -> dict[str, list[str]]:
        """kind -> the string entries declared for it (shapes are apps.csp-origins-only's to judge)."""
        out: dict[str, list[str]] = {}
        for _, kind, entries in self.csp():
            if isinstance(entries, list):
                out.setdefault(kind, []).extend(e for e in entries if isinstance(e, str))
        return out


def is_app_resource(item: Item) -> bool:
    return item.key.startswith("ui://") or item.get("mimeType") in (APP_MIME, SKYBRIDGE_MIME)


def linked(snapshot: ServerSnapshot) -> dict[str, Page]:
    """Every app resource, unread: those the tools name (with the tools that name it) and those listed as `ui://` or
    with an app MIME type."""
    listed = {r.key: r for r in snapshot.resources}
    found: dict[str, Page] = {}
    for tool in snapshot.tools:
        for link in links(tool):
            page = found.setdefault(link.uri, Page(link.uri, listed.get(link.uri)))
            page.tools += [tool] if tool not in page.tools else []
    for item in snapshot.resources:
        if is_app_resource(item):
            found.setdefault(item.key, Page(item.key, item))
    return found


def take(page: Page, result: Any) -> None:
    """`page` as a `resources/read` result gives it: its MIME type, `_meta` (the listing's, updated by the
    contents'), HTML (at most PAGE_CHARS), or why there is none."""
    page.meta = dict(meta(page.listed.raw)) if page.listed else {}
    contents = result.get("contents") if isinstance(result, dict) else None
    first = next((c for c in contents if isinstance(c, dict)), None) if isinstance(contents, list) else None
    if first is None:
        page.error = "resources/read answered no contents"
        return
    page.mime = first.get("mimeType") if isinstance(first.get("mimeType"), str) else None
    page.meta.update(meta(first))
    text = first.get("text")
    if isinstance(text, str):
        page.html = text[:PAGE_CHARS]
    elif isinstance(first.get("blob"), str):
        try:
            page.html = base64.b64decode(first["blob"][: PAGE_CHARS * 2], validate=False).decode("utf-8", "replace")
        except (binascii.Error, ValueError):
            page.error = "its blob is not base64"
    else:
        page.error = "its contents carry neither text nor blob"
