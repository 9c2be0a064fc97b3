"""What the `apps` rules read: app tools, and every app resource read once per review (what an app resource is, how
a page is read from `resources/read`, and the CSP it declares are the core's, `mcp_review.apps`: the app shows them
too, and only the rule packs may import a rule pack).
"""

from __future__ import annotations

import weakref
from typing import Any

from mcp_review.apps import (
    APP_MIME,
    EXTENSION,
    SKYBRIDGE_MIME,
    Page,
    is_app_resource,
    linked,
    links,
    meta,
    take,
    ui_meta,
)
from mcp_review.catalog import Item, ServerSnapshot
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext

PAGES_READ = 20  # app resources read per review; a hostile server can list thousands


def app_tools(ctx: CheckContext) -> list[Item]:
    """Tools that name an app or set a visibility (an app-only tool names none)."""
    return [t for t in ctx.snapshot.tools if links(t) or "visibility" in ui_meta(t.raw) or _openai_tool(t)]


def _openai_tool(tool: Item) -> bool:
    return any(k in meta(tool.raw) for k in ("openai/visibility", "openai/widgetAccessible"))


# the pages each review read, by its snapshot: a later run on the same session (the app's) with a new listing reads
# them again; id() with a weak reference, as a snapshot is a mutable dataclass (unhashable)
_PAGES: dict[int, tuple[weakref.ref[ServerSnapshot], dict[str, Page]]] = {}


async def pages(ctx: CheckContext) -> dict[str, Page]:
    """Every app resource: those the app tools name and those listed as `ui://` or with an app MIME type, read once
    per review (every `apps` rule shares the reads), the first PAGES_READ of them."""
    cached = _PAGES.get(id(ctx.snapshot))
    if cached is not None and cached[0]() is ctx.snapshot:
        return cached[1]
    found = linked(ctx.snapshot)
    for page in list(found.values())[:PAGES_READ]:
        await _read(ctx, page)
    for key in [k for k, (ref, _) in _PAGES.items() if ref() is None]:
        del _PAGES[key]
    _PAGES[id(ctx.snapshot)] = (weakref.ref(ctx.snapshot), found)
    return found


async def _read(ctx: CheckContext, page: Page) -> None:
    reply = await ctx.session.request("resources/read", {"uri": page.uri})
    page.seq = reply.seq
    if reply.error is not None:
        page.meta = dict(meta(page.listed.raw)) if page.listed else {}
        page.error = f"resources/read answered an error: {str(reply.error.get('message', reply.error))[:200]}"
        return
    take(page, reply.result)


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
    if not (declared or app_tools(ctx) or any(is_app_resource(r) for r in ctx.snapshot.resources)):
        return None
    return await pages(ctx)


NOT_APP = "the server declares nothing app-like (no ui:// or app resource, no _meta.ui or openai/* tool keys)"


async def read_pages(ctx: CheckContext, *, html: bool = False) -> list[Page] | Finding:
    """The app resources read without error (`html`: only those with a page), or the n/a finding that says why a
    rule has none to judge."""
    found = await app_like(ctx)
    if found is None:
        return ctx.na(None, NOT_APP)
    read = [p for p in found.values() if p.seq is not None and not p.error and (p.html or not html)]
    what = "page" if html else "resource"
    return read or ctx.na(None, f"no app {what} could be read (apps.resource-resolves says why)")


def purpose(page: Page) -> str:
    """What the tools that show `page` say they do: their names, titles and descriptions."""
    return " ".join(f"{t.key} {t.get('title') or ''} {t.description or ''}" for t in page.tools)
