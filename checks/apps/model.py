"""What the `apps` rules read: app tools, app resources as a host reads them, and the CSP each declares.

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
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from mcp_review.catalog import Item, ServerSnapshot
from mcp_review.rules.context import CheckContext

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
PAGES_READ = 20  # app resources read per review; a hostile server can list thousands
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


def app_tools(ctx: CheckContext) -> list[Item]:
    """Tools that name an app or set a visibility (an app-only tool names none)."""
    return [t for t in ctx.snapshot.tools if links(t) or "visibility" in ui_meta(t.raw) or _openai_tool(t)]


def _openai_tool(tool: Item) -> bool:
    return any(k in meta(tool.raw) for k in ("openai/visibility", "openai/widgetAccessible"))


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


# the pages each review read, by its snapshot: a later run on the same session (the app's) with a new listing reads
# them again; id() with a weak reference, as a snapshot is a mutable dataclass (unhashable)
_PAGES: dict[int, tuple[weakref.ref[ServerSnapshot], dict[str, Page]]] = {}


def _is_app_resource(item: Item) -> bool:
    return item.key.startswith("ui://") or item.get("mimeType") in (APP_MIME, SKYBRIDGE_MIME)


async def pages(ctx: CheckContext) -> dict[str, Page]:
    """Every app resource: those the app tools name and those listed as `ui://` or with an app MIME type, read once
    per review (every `apps` rule shares the reads), the first PAGES_READ of them."""
    cached = _PAGES.get(id(ctx.snapshot))
    if cached is not None and cached[0]() is ctx.snapshot:
        return cached[1]
    listed = {r.key: r for r in ctx.snapshot.resources}
    found: dict[str, Page] = {}
    for tool in ctx.snapshot.tools:
        for link in links(tool):
            page = found.setdefault(link.uri, Page(link.uri, listed.get(link.uri)))
            page.tools += [tool] if tool not in page.tools else []
    for item in ctx.snapshot.resources:
        if _is_app_resource(item):
            found.setdefault(item.key, Page(item.key, item))
    for page in list(found.values())[:PAGES_READ]:
        await _read(ctx, page)
    for key in [k for k, (ref, _) in _PAGES.items() if ref() is None]:
        del _PAGES[key]
    _PAGES[id(ctx.snapshot)] = (weakref.ref(ctx.snapshot), found)
    return found


async def _read(ctx: CheckContext, page: Page) -> None:
    page.meta = dict(meta(page.listed.raw)) if page.listed else {}
    reply = await ctx.session.request("resources/read", {"uri": page.uri})
    page.seq = reply.seq
    if reply.error is not None:
        page.error = f"resources/read answered an error: {str(reply.error.get('message', reply.error))[:200]}"
        return
    contents = reply.result.get("contents") if isinstance(reply.result, dict) else None
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


def is_app_page(resource: Item, read: Any) -> bool:
    """Whether a `resources/read` answer is an MCP App's page: contents with an app MIME type, or a `ui://` resource
    whose listing or contents carry `_meta.ui` or the Apps SDK's widget keys."""
    parts = read.get("contents") if isinstance(read, dict) else None
    for part in parts if isinstance(parts, list) else []:
        mime = str(part.get("mimeType") or "").replace(" ", "").lower() if isinstance(part, dict) else ""
        if mime in (APP_MIME, SKYBRIDGE_MIME):
            return True
        keys = {*meta(part), *meta(resource.raw)}
        if resource.key.startswith("ui://") and keys & {"ui", "openai/widgetCSP", "openai/widgetDomain"}:
            return True
    return False


PAGE_KINDS = frozenset({"credential"})  # what the prose rules judge in an app's page: a key in its code leaks


def embedded_pages(result: Any) -> tuple[str, ...]:
    """Where a tool result embeds an app page (`content[i].resource.`): an app MIME type, or a `ui://` URI with an
    HTML one (MCP-UI's embedded form, which MCP Apps replaced with predeclared resources)."""
    content = result.get("content") if isinstance(result, dict) else None
    out = []
    for i, block in enumerate(content if isinstance(content, list) else []):
        part = block.get("resource") if isinstance(block, dict) and block.get("type") == "resource" else None
        if not isinstance(part, dict):
            continue
        mime = str(part.get("mimeType") or "").replace(" ", "").lower()
        if mime in (APP_MIME, SKYBRIDGE_MIME) or (str(part.get("uri", "")).startswith("ui://") and "html" in mime):
            out.append(f"content[{i}].resource.")
    return tuple(out)


def unread(found: dict[str, Page]) -> str:
    """What was not read, for a finding's message ("" when every page was)."""
    more = len(found) - PAGES_READ
    return f"; {more} more app resource(s) not read (mcp-review reads {PAGES_READ})" if more > 0 else ""


async def app_like(ctx: CheckContext) -> dict[str, Page] | None:
    """The app pages, or None when the server declares nothing app-like (no app tool, no app resource, no
    `io.modelcontextprotocol/ui` extension): the `apps` rules are then n/a."""
    extensions = ctx.snapshot.capabilities.get("extensions")
    declared = isinstance(extensions, dict) and EXTENSION in extensions
    if not (declared or app_tools(ctx) or any(_is_app_resource(r) for r in ctx.snapshot.resources)):
        return None
    return await pages(ctx)


NOT_APP = "the server declares nothing app-like (no ui:// or app resource, no _meta.ui or openai/* tool keys)"


def purpose(page: Page) -> str:
    """What the tools that show `page` say they do: their names, titles and descriptions."""
    return " ".join(f"{t.key} {t.get('title') or ''} {t.description or ''}" for t in page.tools)
