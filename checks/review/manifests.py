"""Pack `review`: what the server declares outside the protocol (server.json, its Server Card) against the wire.

Pack `review`, a default pack, because seed 003 asks that nothing a server declares go unreviewed: a registry entry
or a card is what a host or a registry reads before it connects, and a review that skips it reads as complete. Both
rules are `n/a` when there is no such document, so they cost nothing on a server without one.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from urllib.parse import urlsplit

from mcp_review.checks.review.common import SEED
from mcp_review.checks.review.discovery import first_document
from mcp_review.manifests import (
    CARD_TYPE,
    Declared,
    Disagreement,
    Unreadable,
    check_schema,
    compare,
    description,
    read_server_json,
)
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule

MAX_ENTRIES = 3  # catalog entries followed, at most


def _judged(ctx: CheckContext, doc: Declared, found: list[Disagreement], seqs: list[int]) -> Iterator[Finding]:
    """One finding per field that disagrees (fail with proof, else warn), or one pass when none does; each cites
    the exchanges that show both sides (`seqs`: the server's hello, and where the document was fetched)."""
    for d in found:
        yield (ctx.fail if d.proven else ctx.warn)(d.field, d.message(f"{doc.what} ({doc.where})"), seqs)
    if not found:
        said = f"{doc.where} agrees with the wire: name, version, title, transports, remotes, packages"
        yield ctx.passed(None, said, seqs)


def _schema(ctx: CheckContext, doc: Declared, draft: bool) -> Iterator[Finding]:
    outcome = check_schema(doc)
    errors = [e for e in outcome.errors if not e.startswith("description:")]  # said with its length, below
    if outcome.unverified:
        yield ctx.blocking("schema", f"{doc.where} could not be validated: {outcome.unverified}")
    elif errors:
        which = "the draft Server Card schema (vendored)" if draft else "the registry's server.json schema 2025-12-11"
        said = f"{doc.where} does not validate against {which}: {'; '.join(errors)}"
        yield ctx.warn("schema", said + " (a draft: it may change)") if draft else ctx.fail("schema", said)
    else:
        apart = " apart from its description's length" if len(errors) < len(outcome.errors) else ""
        yield ctx.passed("schema", f"{doc.where} validates against its schema{apart}")
    if (long := description(doc)) is not None:
        yield (ctx.warn if draft else ctx.fail)("description", long)


@rule(
    "review.server-json",
    concern="contract",
    severity="medium",
    modes=("static",),
    source=f"{SEED} Review: nothing declared goes unreviewed",
)
def server_json(ctx: CheckContext) -> Iterator[Finding]:
    """The server's MCP Registry `server.json` is valid and agrees with what the server says on the wire.

    What it checks: static: the `server.json` the plan found (`--server-json FILE`, else `server.json` in the
    working directory). It validates against the registry's schema 2025-12-11 (vendored, offline, no `$ref` is
    fetched), `description` is at most 100 characters, and it is compared with the live server: `version` with
    `serverInfo.version`, `name` and `title` with `serverInfo`, the declared transports (`remotes[].type`,
    `packages[].transport.type`) with the transport this review speaks, a remote whose URL is the target's with
    its `type` and `supportedProtocolVersions`, each package's `version` with the document's, and the package a
    stdio command runs (`npx ID`, `uvx ID`, `docker run IMAGE`, a path inside `node_modules/ID/`, a `.bin` link
    followed) with `packages[].identifier`, and for an installed npm package its `package.json` `mcpName` with the
    document's `name` (the registry's ownership check). Each disagreement quotes both sides.

    Spec: registry server.json 2025-12-11

    Why: seed 003: nothing a server declares goes unreviewed. A registry entry is what a host installs from; one
    that names another version, transport or package than the server runs misleads every client that reads it.

    Known false positives: a `server.json` of another release than the one running fails on its version (review
    the server with its own). The registry name and `serverInfo.name` are separate namespaces: a difference is a
    warn. A server run from source (not through its package) speaks a transport or runs a command the document
    need not describe: a warn. Only `description`'s length and the schema are checked of the prose.

    Passes: valid and no disagreement. Fails: a schema error; a description over 100 characters; a version, a
    remote's type or supported revisions, a package identifier, or an npm `mcpName` that contradicts the wire.
    Warns: name, title, a transport the document does not declare, a package version that differs from the
    document's. Blocking: the file cannot be read. N/a: no server.json.

    To verify when blocking: fix the path given to `--server-json`, or make the file a JSON object.
    """
    path = ctx.options.server_json
    if path is None:
        yield ctx.na(None, "no server.json in the working directory and none given (--server-json)")
        return
    try:
        doc = read_server_json(path)
    except Unreadable as e:
        yield ctx.blocking(None, f"server.json could not be read: {e}")
        return
    yield from _schema(ctx, doc, draft=False)
    yield from _judged(ctx, doc, compare(doc, ctx.target, ctx.snapshot), [ctx.snapshot.hello_seq])


def card_urls(url: str) -> list[str]:
    """Where a Server Card may be, on the target's own origin: the draft's reserved `<streamable-http-url>/server-card`,
    and the older `/.well-known/mcp/server-card.json`."""
    parts = urlsplit(url)
    return [f"{url.rstrip('/')}/server-card", f"{parts.scheme}://{parts.netloc}/.well-known/mcp/server-card.json"]


def catalog_urls(url: str) -> list[str]:
    parts = urlsplit(url)
    return [f"{parts.scheme}://{parts.netloc}/.well-known/{name}" for name in ("mcp/catalog.json", "ai-catalog.json")]


def same_origin(a: str, b: str) -> bool:
    pa, pb = urlsplit(a), urlsplit(b)
    return (pa.scheme, pa.netloc.lower()) == (pb.scheme, pb.netloc.lower())


async def find_card(ctx: CheckContext) -> tuple[Declared | None, list[int], list[str]]:
    """The Server Card the target serves about itself, read without credentials from its own origin only: (the card,
    the exchanges tried, what was refused). Catalog entries on another origin are named, never fetched."""
    url = ctx.target.url or ""
    refused: list[str] = []
    async with ctx.probe(ctx.target.with_(bearer=None, headers={})) as p:
        doc, where, seqs = await first_document(p, card_urls(url))
        if doc is None:
            catalog, _, more = await first_document(p, catalog_urls(url))
            seqs += more
            entries = catalog.get("entries") if isinstance(catalog, dict) else None
            cards = (
                [e for e in entries if isinstance(e, dict) and e.get("type") == CARD_TYPE]
                if isinstance(entries, list)
                else []
            )
            for entry in cards[:MAX_ENTRIES]:
                link = entry.get("url")
                if not isinstance(link, str) or not same_origin(link, url):
                    refused.append(str(link)[:200])
                    continue
                doc, where, more = await first_document(p, [link])
                seqs += more
                if doc is not None:
                    break
    return (Declared("Server Card", where, doc) if doc is not None else None), seqs, refused


@rule(
    "review.server-card",
    concern="contract",
    severity="medium",
    modes=("probe",),
    source=f"{SEED} Review: nothing declared goes unreviewed",
    transport="http",
)
async def server_card(ctx: CheckContext) -> AsyncIterator[Finding]:
    """The Server Card an HTTP server serves about itself is valid and does not contradict the wire.

    What it checks: probe: credential-less GETs on the target's own origin, on a connection of their own: the
    draft's reserved `<streamable-http-url>/server-card`, then the older `/.well-known/mcp/server-card.json`, then
    the catalogs `/.well-known/mcp/catalog.json` and `/.well-known/ai-catalog.json`, following at most 3 entries of
    type `application/mcp-server-card+json` on the same origin (an entry on another origin is named, never
    fetched). The card validates against the draft schema (SEP-2127, vendored from
    modelcontextprotocol/experimental-ext-server-card) and is compared with the wire as `review.server-json`
    compares: `version`, `name`, `title`, and the remote whose URL is the target's (`type`,
    `supportedProtocolVersions`). Never run for stdio.

    Spec: SEP-2127 (draft): "the values a client observes once connected ... SHOULD NOT contradict the equivalent
    values declared in the Server Card"

    Why: seed 003: nothing declared goes unreviewed. A card is read before the client connects; the draft calls an
    inaccurate one a confusion or downgrade vector.

    Known false positives: the card format is a draft: its schema errors are warns (a card written to an earlier
    draft, with a `/v1/` `$schema`, warns). A card on a path other than these is not found (n/a).

    Passes: a valid card that agrees (and, subject `catalog`, the entries on another origin it did not fetch).
    Fails: a version, a remote's type or supported revisions that contradict the wire. Warns: schema errors; name
    or title differences; a declared transport this review does not speak. N/a: no card served (stdio servers are
    n/a).
    """
    doc, seqs, refused = await find_card(ctx)
    if doc is None:
        away = f"; catalog entries on another origin, not fetched: {', '.join(refused)}" if refused else ""
        yield ctx.na(None, f"the server serves no Server Card at its own well-known locations{away}")
        return
    for finding in _schema(ctx, doc, draft=True):
        finding.evidence = seqs[-1:]
        yield finding
    for finding in _judged(ctx, doc, _card_compare(ctx, doc), [ctx.snapshot.hello_seq, *seqs[-1:]]):
        yield finding
    if refused:
        yield ctx.passed("catalog", f"catalog entries on another origin, not fetched: {', '.join(refused)}", seqs)


def _card_compare(ctx: CheckContext, doc: Declared) -> list[Disagreement]:
    """A card declares no packages (those are server.json's): identity and remotes only."""
    return [d for d in compare(doc, ctx.target, ctx.snapshot) if not d.field.startswith("packages")]
