"""A snapshot of what a server offers, built from the wire JSON it sent (never from SDK models).

Every item is kept exactly as sent (camelCase, unknown fields and all) with the wire entry of the page
that carried it. Malformed items are kept and marked with their problems: a review must see them.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from mcp_review import binding
from mcp_review.binding import Content
from mcp_review.connection.channel import BudgetSpent
from mcp_review.connection.errors import RequestTimeout, RpcError
from mcp_review.connection.session import Session
from mcp_review.definitions import Definitions
from mcp_review.limits import LIMITS
from mcp_review.paging import LISTING_TIMEOUTS, Cursors
from mcp_review.skills import Catalog, list_skills
from mcp_review.skills import settings as skills_settings

Kind = Literal["tool", "resource", "template", "prompt"]


@dataclass(frozen=True)
class ListSpec:
    kind: Kind
    method: str
    key: str  # the array in the result
    capability: str


LISTS = (
    ListSpec("tool", "tools/list", "tools", "tools"),
    ListSpec("resource", "resources/list", "resources", "resources"),
    ListSpec("template", "resources/templates/list", "resourceTemplates", "resources"),
    ListSpec("prompt", "prompts/list", "prompts", "prompts"),
)


@dataclass
class Item:
    kind: Kind
    raw: Any  # the wire JSON, as sent
    seq: int  # wire entry of the response that carried it
    page: int
    index: int  # position across all pages
    problems: list[str] = field(default_factory=list)
    # every definition the server gave for this name in the review (the wire log's index): consent reads them all
    definitions: Definitions | None = field(default=None, repr=False, compare=False)

    def _str(self, key: str) -> str | None:
        value = self.raw.get(key) if isinstance(self.raw, dict) else None
        return value if isinstance(value, str) else None

    @property
    def name(self) -> str | None:
        return self._str("name")

    @property
    def key(self) -> str:
        """How a reviewer names it: the name (tools, prompts), the URI (resources), or its position."""
        ident = {"resource": "uri", "template": "uriTemplate"}.get(self.kind, "name")
        return self._str(ident) or self.name or f"<{self.kind} #{self.index + 1} without a name>"

    @property
    def description(self) -> str | None:
        return self._str("description")

    def get(self, key: str, default: Any = None) -> Any:
        return self.raw.get(key, default) if isinstance(self.raw, dict) else default


@dataclass
class Listing:
    spec: ListSpec
    items: list[Item] = field(default_factory=list)
    seqs: list[int] = field(default_factory=list)  # one response entry per page
    declared: bool = True
    error: str | None = None  # the list request failed: why
    error_seq: int | None = None
    stopped: str | None = None  # pagination stopped early: why (loop, page cap)
    broken: bool = False  # it stopped on a pagination defect the server showed (a loop, a bad cursor), not a limit

    def __iter__(self) -> Iterator[Item]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    @property
    def raw(self) -> list[Any]:
        return [i.raw for i in self.items]


class _ListingOf:
    """A snapshot's listing of one kind as an attribute: `snapshot.tools` is `snapshot.lists["tool"]`."""

    def __init__(self, kind: Kind) -> None:
        self.kind = kind

    def __get__(self, snapshot: ServerSnapshot | None, owner: type) -> Listing:
        if snapshot is None:
            raise AttributeError(f"the {self.kind} listing is an attribute of a snapshot, not of its class")
        return snapshot.lists[self.kind]


@dataclass(repr=False)
class ServerSnapshot:
    """What the server said about itself (the handshake) and every list it served, page by page."""

    target: dict[str, Any]
    era: str
    revision: str
    server_info: dict[str, Any] | None
    capabilities: dict[str, Any]
    instructions: str | None
    hello: dict[str, Any]
    hello_seq: int
    notes: list[str]
    lists: dict[Kind, Listing]
    skills: Catalog | None = None  # `skills/list` when the server declares the skills extension (SEP-2640)

    def __repr__(self) -> str:  # compact: a repr of 10,000 tools is made by asyncio's Runner at exit
        return f"<ServerSnapshot {self.revision} {len(self.tools.items)} tools>"

    tools = _ListingOf("tool")
    resources = _ListingOf("resource")
    templates = _ListingOf("template")
    prompts = _ListingOf("prompt")

    @classmethod
    def unreachable(cls, target: dict[str, Any], why: str) -> ServerSnapshot:
        """What is known of a server no session could be opened with: nothing but why."""
        lists = {spec.kind: Listing(spec, declared=False) for spec in LISTS}
        return cls(target, "legacy", "unknown", None, {}, None, {}, 0, [why], lists)

    def tool(self, name: str) -> Item | None:
        return next((t for t in self.tools if t.name == name), None)

    def contents(self, keys: Iterable[str | None]) -> dict[str, Content]:
        """What a decision on each of these items is bound to (`binding`): "kind:key" -> the content of every
        definition listed under that key, as sent. Hashed only for the keys asked: 10,000 tools cost a second."""
        wanted = {k for k in keys if k is not None}
        found: dict[str, list[Any]] = {}
        for spec in LISTS:
            for item in self.lists[spec.kind] if wanted else ():
                if item.key in wanted:
                    found.setdefault(f"{item.kind}:{item.key}", []).append(item.raw)
        return {key: binding.of_definitions(raws) for key, raws in found.items()}

    def surface(self) -> Content:
        """What an attestation on the server is bound to: serverInfo, instructions and every listing, as sent."""
        lists = {spec.key: self.lists[spec.kind].raw for spec in LISTS}
        return binding.of_server({"serverInfo": self.server_info, "instructions": self.instructions, **lists})

    @property
    def server_name(self) -> str:
        info = self.server_info or {}
        name = info.get("name")
        return name if isinstance(name, str) else "(unnamed server)"

    @property
    def server_version(self) -> str | None:
        version = (self.server_info or {}).get("version")
        return version if isinstance(version, str) else None


def _problems(kind: Kind, raw: Any) -> list[str]:
    if not isinstance(raw, dict):
        return [f"not an object: {type(raw).__name__}"]
    out: list[str] = []
    required = {"tool": "name", "prompt": "name", "resource": "uri", "template": "uriTemplate"}[kind]
    if not isinstance(raw.get(required), str):
        out.append(f"no {required}" if required not in raw else f"{required} is not a string")
    if kind in ("resource", "template") and not isinstance(raw.get("name"), str):
        out.append("no name")
    for key in ("title", "description"):
        if key in raw and not isinstance(raw[key], str):
            out.append(f"{key} is not a string")
    if kind == "tool":
        for key in ("inputSchema", "outputSchema"):
            if key not in raw:
                if key == "inputSchema":
                    out.append("no inputSchema")
                continue
            schema = raw[key]
            if not isinstance(schema, dict):
                out.append(f"{key} is not an object")
            elif schema.get("type") != "object" and key == "inputSchema":
                out.append('inputSchema.type is not "object"')
        if "annotations" in raw and not isinstance(raw["annotations"], dict):
            out.append("annotations is not an object")
    if kind == "prompt" and "arguments" in raw and not isinstance(raw["arguments"], list):
        out.append("arguments is not an array")
    return out


async def list_all(
    session: Session, spec: ListSpec, *, max_pages: int = LIMITS.listing_pages, max_items: int = LIMITS.listing_items
) -> Listing:
    """Follow cursors until the end, a repeated cursor, `max_pages`, `max_items`, or LISTING_TIMEOUTS x the request
    timeout in all (a cursor that never ends, however fast each page comes); keep every item as sent."""
    listing = Listing(spec)
    ends = time.monotonic() + LISTING_TIMEOUTS * session.timeout
    cursors = Cursors()
    cursor: str | None = None
    names: dict[str, int] = {}
    for page in range(max_pages):
        params = {"cursor": cursor} if cursor is not None else {}
        try:
            result, reply = await session.result(spec.method, params)
        except RpcError as e:
            listing.error = f"JSON-RPC error {e.code}: {e.message[:200]}"
            listing.error_seq = e.seq
            return listing
        except (RequestTimeout, BudgetSpent) as e:
            if not listing.seqs:
                raise  # nothing listed at all: the connection is not usable
            listing.stopped = f"page {page + 1}: {e}"  # keep the pages that came
            return listing
        listing.seqs.append(reply.seq)
        items = result.get(spec.key) if isinstance(result, dict) else None
        if not isinstance(items, list):
            listing.error = f"{spec.method} result has no '{spec.key}' array (wire #{reply.seq})"
            listing.error_seq = reply.seq
            return listing
        if len(listing.items) + len(items) > max_items:
            kept = max_items - len(listing.items)
            listing.stopped = (
                f"stopped at {max_items:,} {spec.key}: page {page + 1} held {len(items):,} more than the "
                f"{kept:,} left under mcp-review's cap (MCP_REVIEW_LIMITS listing_items); the rest was not kept"
            )
            items = items[:kept]
        for raw in items:
            item = Item(spec.kind, raw, reply.seq, page + 1, len(listing.items), _problems(spec.kind, raw))
            item.definitions = session.wire.definitions
            if spec.kind in ("tool", "prompt") and item.name is not None:
                if item.name in names:
                    item.problems.append(f"duplicate name (first at position {names[item.name] + 1})")
                else:
                    names[item.name] = item.index
            listing.items.append(item)
        if listing.stopped:
            return listing
        after = cursors.after(reply, page + 1)
        if after.cursor is None:
            listing.stopped, listing.broken = after.stopped, after.broken
            return listing
        cursor = after.cursor
        if time.monotonic() > ends:
            took = LISTING_TIMEOUTS * session.timeout
            listing.stopped = f"stopped after {page + 1} pages: the listing took over {took:g}s (4 x --timeout)"
            return listing
    listing.stopped = f"stopped after {max_pages} pages (mcp-review's cap, MCP_REVIEW_LIMITS listing_pages)"
    return listing


async def take_snapshot(session: Session, *, kinds: tuple[Kind, ...] | None = None) -> ServerSnapshot:
    hello = session.hello
    assert hello is not None, "open the session first"
    lists: dict[Kind, Listing] = {}
    for spec in LISTS:
        if (kinds is not None and spec.kind not in kinds) or spec.capability not in hello.capabilities:
            lists[spec.kind] = Listing(spec, declared=False)
        else:
            lists[spec.kind] = await list_all(session, spec)
    session.tool_schemas = {
        t.name: t.get("inputSchema") for t in lists["tool"] if t.name and isinstance(t.get("inputSchema"), dict)
    }
    declared = kinds is None and skills_settings(hello.capabilities) is not None
    return ServerSnapshot(
        skills=await list_skills(session) if declared else None,
        target=session.target.public(),
        era=hello.era,
        revision=hello.revision,
        server_info=hello.server_info,
        capabilities=hello.capabilities,
        instructions=hello.instructions,
        hello=hello.result,
        hello_seq=hello.seq,
        notes=list(session.notes),
        lists=lists,
    )
