"""Pack `spec` (seed 002 and the MCP specification): what a server answers to requests it cannot serve: a 2026-07-28
request without its required `_meta`, a method 2026-07-28 removed, a resource that does not exist.

Each rule asks on the review's own session: a 2026-07-28 session is stateless, so a malformed request on it leaves
nothing behind, and no new connection (over stdio a new process) is opened for it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from mcp_review.checks.spec.common import SEED, ask, stated, streamable
from mcp_review.connection.probe import ProbeResult
from mcp_review.connection.protocol import CLIENT_INFO, META, MODERN
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule

MISSING_URI = "mcp-review-missing://no/such/resource"  # a scheme no server serves


def _got(got: ProbeResult, ctx: CheckContext) -> str:
    """The answer in a few words: HTTP status (over Streamable HTTP) and error code, a result, or why none came."""
    status = f"HTTP {got.status} " if got.status is not None and streamable(ctx) else ""
    if got.error is not None:
        return f"{status}error {got.code}"
    if got.answered:
        return f"{status}a result"
    return f"{status}no JSON-RPC answer ({got.failure})"


@rule(
    "spec.request-meta",
    concern="protocol",
    severity="medium",
    modes=("probe",),
    source=f"{SEED} Protocol layer: version negotiation",
)
async def request_meta(ctx: CheckContext) -> AsyncIterator[Finding]:
    """2026-07-28: a request without its required `_meta` gets -32602 (HTTP 400); one without `clientInfo` is served.

    What it checks: probe, on the review's 2026-07-28 session: `server/discover` with no `_meta`, with `_meta`
    lacking `io.modelcontextprotocol/protocolVersion`, and lacking `io.modelcontextprotocol/clientCapabilities`: each
    MUST be refused with -32602, over HTTP with status 400 (2026-07-28 basic/index.mdx:380-382). `server/discover`
    whose `_meta` lacks only `io.modelcontextprotocol/clientInfo`, which is not required (:376; clients SHOULD send it,
    :384), is expected to be served: refusing it warns. And the per-response field: every result on the review's
    session SHOULD carry `io.modelcontextprotocol/serverInfo` in its `_meta` (:396-398): results without it warn.
    n/a on the legacy revisions, whose requests carry no `_meta` of the kind (the handshake says it once).

    Why: seed 002 version negotiation; spec.md LC-08: with no handshake, the `_meta` of each request is how the
    server knows the revision and what the client can answer; one that serves a request without it guesses both.

    Spec: 2026-07-28 basic/index.mdx (LC-08)

    Known false positives: none known for the fails: the requests differ from a valid one in the one field
    removed. A server that refuses a request without `clientInfo` only warns: the spec does not say it must serve
    it.

    Passes: the three refused with -32602 (and 400), the fourth served, every result naming the server. Fails: any
    of the three served or refused otherwise. Warns: the request without clientInfo refused; results without
    serverInfo. Blocking: no answer.

    To verify when blocking: a longer --timeout (or the probe_timeout option), on a server that answers.
    """
    if ctx.era != "modern":
        yield ctx.na(None, f"{ctx.revision} requests carry no per-request _meta: 2026-07-28 only")
        return
    meta = {META + "protocolVersion": MODERN, META + "clientCapabilities": {}, META + "clientInfo": CLIENT_INFO}
    cases: list[tuple[str, dict[str, Any]]] = [("no _meta", {})]
    for key in ("protocolVersion", "clientCapabilities"):
        cases.append((f"_meta without {META}{key}", {"_meta": {k: v for k, v in meta.items() if k != META + key}}))
    fails, silent, seqs = [], [], []
    for what, params in cases:
        got = await ask(ctx, "server/discover", params, bare=True)
        seqs.append(got.seq)
        if not got.answered and got.status is None:
            silent.append(f"{what}: {got.failure}")
        elif got.code != -32602 or (streamable(ctx) and got.status != 400):
            fails.append((f"server/discover with {what} -> {_got(got, ctx)}", got.seq))
    if fails:
        said = "; ".join(s for s, _ in fails)
        yield ctx.fail(
            None,
            f"{said}: a request missing a required _meta field MUST be refused with -32602, and over HTTP be 400 "
            f"({stated('request-meta', ctx.revision)})",
            [seq for _, seq in fails],
        )
    elif silent:
        yield ctx.blocking(None, f"no answer in time ({'; '.join(silent)}): a longer --timeout would verify it", seqs)
    else:
        said = "no _meta, no protocolVersion, no clientCapabilities: each refused with -32602"
        yield ctx.passed(None, said + (" and HTTP 400" if streamable(ctx) else ""), seqs)
    params = {"_meta": {k: v for k, v in meta.items() if k != META + "clientInfo"}}
    got = await ask(ctx, "server/discover", params, bare=True)
    if got.answered and got.error is None:
        yield ctx.passed("without clientInfo", "server/discover without clientInfo -> a result", [got.seq])
    elif got.answered or got.status is not None:
        yield ctx.warn(
            "without clientInfo",
            f"server/discover with a _meta lacking only {META}clientInfo -> {_got(got, ctx)}: clientInfo is not a "
            f"required field ({stated('client-info', ctx.revision)}), and a client MAY be configured not to send it",
            [got.seq],
        )
    else:
        yield ctx.blocking("without clientInfo", f"no answer in time ({got.failure})")
    yield _server_info(ctx)


def _server_info(ctx: CheckContext) -> Finding:
    """Every result on the review's session SHOULD name the server in its `_meta` (basic/index.mdx:396-398)."""
    conn = ctx.session.channel.conn if ctx.session.channel else None
    results = [
        e
        for e in ctx.wire.messages("recv")
        if e.conn == conn and isinstance(e.message, dict) and isinstance(e.message.get("result"), dict)
    ]
    bare = [e for e in results if not isinstance(_meta_of(e.message["result"]).get(META + "serverInfo"), dict)]
    if bare:
        shown = ", ".join(f"#{e.seq}" for e in bare[:5])
        return ctx.warn(
            "serverInfo in results",
            f"{len(bare)} of {len(results)} results ({shown}) carry no _meta {META}serverInfo: every result SHOULD "
            f"({stated('server-info', ctx.revision)})",
            [e.seq for e in bare[:5]],
        )
    return ctx.passed("serverInfo in results", f"{len(results)} results, each naming the server in its _meta")


def _meta_of(result: dict[str, Any]) -> dict[str, Any]:
    meta = result.get("_meta")
    return meta if isinstance(meta, dict) else {}


REMOVED = ("ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe")


@rule(
    "spec.removed-methods",
    concern="protocol",
    severity="medium",
    modes=("probe",),
    source=f"{SEED} Server & framework layer: handler dispatch",
)
async def removed_methods(ctx: CheckContext) -> AsyncIterator[Finding]:
    """2026-07-28: the methods it removed are answered -32601, over HTTP with status 404.

    What it checks: probe, on the review's 2026-07-28 session: `ping`, `logging/setLevel`, `resources/subscribe`
    and `resources/unsubscribe` (removed, 2026-07-28 changelog.mdx:18-20), and over HTTP `initialize` too (:14), each
    as a 2026-07-28 request. Over HTTP a server that does not implement the requested method MUST answer 404 with
    JSON-RPC -32601 (basic/transports/streamable-http.mdx:271-273): anything else fails. Over stdio and the legacy
    HTTP+SSE transport (whose answers come on its event stream, not in the POST's status), where the spec states no
    status, an answer other than -32601 (JSON-RPC's Method not found) warns: a dual-era server may
    serve the legacy method to the request. n/a on the legacy revisions, which define them all.

    Why: seed 002 handler dispatch; spec.md PING-02: a 2026-07-28 client tells "not in this revision" from a
    failure by 404 and -32601; a server that still answers `ping` or takes a log level the revision moved into
    each request's `_meta` keeps state the revision says it has none of.

    Spec: 2026-07-28 changelog.mdx, basic/transports/streamable-http.mdx (PING-02, HM-04)

    Known false positives: over stdio a dual-era server that answers a removed method (its legacy handler) only
    warns. `initialize` is not sent over stdio: there the legacy handshake follows `server/discover` on the same
    connection, as versioning allows.

    Passes: every removed method -> -32601 (404 over HTTP). Fails: over HTTP, any other answer. Warns: over
    stdio, any other answer. Blocking: no answer.

    To verify when blocking: a longer --timeout (or the probe_timeout option), on a server that answers.
    """
    if ctx.era != "modern":
        yield ctx.na(None, f"{ctx.revision} defines these methods: 2026-07-28 removed them")
        return
    uri = next((r.key for r in ctx.snapshot.resources if isinstance(r.get("uri"), str)), MISSING_URI)
    asks: list[tuple[str, dict[str, Any]]] = [(m, {"uri": uri} if "subscribe" in m else {}) for m in REMOVED]
    asks[1] = ("logging/setLevel", {"level": "info"})
    if streamable(ctx):
        asks.append(("initialize", {}))
    wrong, silent, seqs = [], [], []
    for method, params in asks:
        got = await ask(ctx, method, params)
        seqs.append(got.seq)
        if not got.answered and got.status is None:
            silent.append(f"{method}: {got.failure}")
        elif got.code != -32601 or (streamable(ctx) and got.status != 404):
            wrong.append((f"{method} -> {_got(got, ctx)}", got.seq))
    rev = ctx.revision
    if wrong and streamable(ctx):
        yield ctx.fail(
            None,
            f"{'; '.join(s for s, _ in wrong)}: 2026-07-28 removed them ({stated('removed', rev)}), and the answer "
            f"to a method the server does not implement MUST be 404 with JSON-RPC -32601 ({stated('method-404', rev)})",
            [seq for _, seq in wrong],
        )
    elif wrong:
        yield ctx.warn(
            None,
            f"{'; '.join(s for s, _ in wrong)}: 2026-07-28 removed them ({stated('removed', rev)}); a request of that "
            f"revision gets JSON-RPC's -32601 (Method not found); over {ctx.target.kind} the spec names no status",
            [seq for _, seq in wrong],
        )
    elif silent:
        yield ctx.blocking(None, f"no answer in time ({'; '.join(silent)}): a longer --timeout would verify it", seqs)
    else:
        said = ", ".join(m for m, _ in asks)
        yield ctx.passed(None, f"{said}: each -> -32601" + (" with HTTP 404" if streamable(ctx) else ""), seqs)


@rule(
    "spec.resource-not-found",
    concern="protocol",
    severity="medium",
    modes=("probe",),
    source=f"{SEED} Server & framework layer: resources",
)
async def resource_not_found(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Reading a resource that does not exist gets an error: -32602 on 2026-07-28, never an empty `contents`.

    What it checks: probe, on the review's session, when the server declares `resources`: `resources/read` of
    `mcp-review-missing://no/such/resource`. 2026-07-28: MUST be JSON-RPC -32602 (server/resources.mdx:404), never
    -32002 (basic/index.mdx:138-140), never a result with an empty `contents` (MUST NOT, resources.mdx:410): each
    fails. 2024-11-05 .. 2025-11-25: the server SHOULD answer with an error, the revision naming -32002 (2025-11-25
    server/resources.mdx:386-388): any error passes (its code is said), an empty `contents` warns. n/a without
    `resources`.

    Why: seed 002 server layer; spec.md RS-02: an empty `contents` reads as "the resource exists and is empty";
    a client that asked for something that is not there must be told so.

    Spec: 2024-11-05 .. 2026-07-28 server/resources.mdx (RS-02)

    Known false positives: a server that serves every URI (a template that matches any) answers contents: that is
    blocking, not judged (it may have the resource). Before 2026-07-28 another error code than -32002 passes:
    the revision lists codes for common failures, as a SHOULD.

    Passes: an error (-32602 on 2026-07-28). Fails: on 2026-07-28, another code or an empty contents. Warns: an
    empty contents before 2026-07-28. Blocking: contents served, or no answer.

    To verify when blocking: read a URI you know the server does not serve (`mcp-review call` cannot: use the app's
    raw request), or a longer --timeout when it did not answer.
    """
    if "resources" not in ctx.snapshot.capabilities:
        yield ctx.na(None, "the server declares no resources: reading one is not judged")
        return
    got = await ask(ctx, "resources/read", {"uri": MISSING_URI})
    contents = got.result.get("contents") if isinstance(got.result, dict) else None
    modern = ctx.era == "modern"
    rev = ctx.revision
    if not got.answered and got.status is None:
        yield ctx.blocking(None, f"no answer in time ({got.failure}): a longer --timeout would verify it", [got.seq])
    elif got.error is None and got.answered and contents:
        yield ctx.blocking(None, f"resources/read of {MISSING_URI} served contents: maybe it has one", [got.seq])
    elif modern and got.code != -32602:
        empty = f" (an empty contents MUST NOT: {stated('not-found-empty', rev)})" if contents == [] else ""
        retired = f"; -32002 MUST NOT be emitted ({stated('retired-codes', rev)})" if got.code == -32002 else ""
        yield ctx.fail(
            None,
            f"resources/read of {MISSING_URI} -> {_got(got, ctx)}: a resource that does not exist MUST get -32602 "
            f"({stated('not-found', rev)}){empty}{retired}",
            [got.seq],
        )
    elif not modern and got.error is None:
        yield ctx.warn(
            None,
            f"resources/read of {MISSING_URI} -> {_got(got, ctx)} (contents {contents!r:.40}): a resource not found "
            f"SHOULD get an error, -32002 in this revision ({stated('not-found', rev)})",
            [got.seq],
        )
    else:
        yield ctx.passed(None, f"resources/read of a missing resource -> {_got(got, ctx)}", [got.seq])
