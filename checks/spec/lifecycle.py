"""Pack `spec` (seed 002 and the MCP specification): version negotiation and capabilities."""

from __future__ import annotations

from collections.abc import AsyncIterator

from mcp_review.checks.spec.common import BOGUS_VERSION, SEED, stated
from mcp_review.connection.session import KNOWN_VERSIONS
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule


@rule(
    "spec.version-negotiation",
    concern="protocol",
    severity="high",
    modes=("probe",),
    source=f"{SEED} Protocol layer: version negotiation",
)
async def version_negotiation(ctx: CheckContext) -> AsyncIterator[Finding]:
    """An unsupported requested version gets a version the server supports, not an echo; supported ones are honoured.

    What it checks: on a fresh connection each: legacy era: `initialize` with protocolVersion 1999-01-01 must be
    answered with a known version the server supports (echoing 1999-01-01 fails; an error with
    `data.supported` warns: the spec's error-handling example allows it, its normative text asks for a
    counter-offer); `initialize` with the negotiated revision must be echoed. 2026-07-28: `server/discover`
    with version 1999-01-01 must get -32022 UnsupportedProtocolVersion with `data.supported` and `data.requested`
    (its schema requires both; basic/versioning.mdx:48-51), over HTTP with status 400
    (basic/transports/streamable-http.mdx:264-266).
    Why: seed 002 version negotiation (LC-02, LC-03; 2026-07-28 LC-06): a client that is told the version it
    asked for believes the server speaks it; only a counter-offer (or the supported list) lets it fall back.

    Spec: all revisions (LC-02, LC-03; 2026-07-28 LC-06)

    Known false positives: none known for the fails. A probe that got no answer (or a closed connection)
    proves nothing: blocking. A counter-offer of a revision mcp-review does not know yet (newer than
    KNOWN_VERSIONS) only warns. On 2026-07-28 over HTTP the bogus version goes in the header and the body
    alike, so a server that checks they agree is not failed for it.
    Passes: 1999-01-01 gets a supported version (or -32022 with data.supported) and the negotiated revision is
    echoed. Fails: an echo of 1999-01-01 or no version, the negotiated revision not echoed, no -32022 with
    data.supported and data.requested (or not HTTP 400) on 2026-07-28. Warns: an error with data.supported instead
    of a counter-offer, or a revision mcp-review does not know. Blocking: no answer to the probe.

    To verify when blocking: a longer --timeout (or the probe_timeout option), on a server that answers.
    """
    async with ctx.probe() as p:
        if ctx.era == "modern":
            # Valid in everything but the version: over HTTP the header names the same bogus version as the
            # body (a server rightly rejects a header that contradicts the body, which would prove nothing).
            got = await p.modern(
                "server/discover",
                {"_meta": {"io.modelcontextprotocol/protocolVersion": BOGUS_VERSION}},
                headers={"MCP-Protocol-Version": BOGUS_VERSION} if p.target.is_http else None,
            )
            data = (got.error or {}).get("data")
            data = data if isinstance(data, dict) else {}
            wrong = []
            if got.code != -32022 or not data.get("supported"):
                wrong.append(f"{got.code or got.failure or got.result!r:.120} instead of -32022 with data.supported")
            elif data.get("requested") != BOGUS_VERSION:
                wrong.append(f"-32022 whose data.requested is {data.get('requested')!r:.60}, not {BOGUS_VERSION}")
            if p.target.kind == "http" and got.answered and got.status != 400:
                wrong.append(f"HTTP {got.status}: this error MUST be 400 ({stated('unsupported-400', ctx.revision)})")
            if not got.answered:
                yield ctx.blocking(None, f"no answer to server/discover with {BOGUS_VERSION}: {got.failure}", [got.seq])
            elif wrong:
                error = f"UnsupportedProtocolVersionError ({stated('unsupported', ctx.revision)})"
                must = f"an unsupported version MUST get an {error}"
                yield ctx.fail(None, f"1999-01-01 -> {'; '.join(wrong)}: {must}", [got.seq])
            else:
                yield ctx.passed(None, f"1999-01-01 -> -32022 with supported {data.get('supported')}", [got.seq])
            return
        got = await p.initialize(BOGUS_VERSION)
    answered = got.result.get("protocolVersion") if isinstance(got.result, dict) else None
    if not got.answered:  # no answer proves nothing about negotiation
        yield ctx.blocking(None, f"no answer to initialize with {BOGUS_VERSION}: {got.failure}", [got.seq])
        return
    if got.error is not None:
        yield ctx.warn(
            None,
            f"initialize with {BOGUS_VERSION} got error {got.code} instead of a counter-offer "
            "(normative text: respond with a supported version)",
            [got.seq],
        )
    elif answered == BOGUS_VERSION or not isinstance(answered, str):
        yield ctx.fail(
            None, f"initialize with {BOGUS_VERSION} was answered {answered!r}: not a version it supports", [got.seq]
        )
        return
    elif answered not in KNOWN_VERSIONS:  # maybe a revision newer than mcp-review knows: not proof
        yield ctx.warn(
            None,
            f"initialize with {BOGUS_VERSION} was answered {answered!r}, a revision mcp-review does not know",
            [got.seq],
        )
        return
    async with ctx.probe() as p:
        same = await p.initialize(ctx.revision)
    echoed = same.result.get("protocolVersion") if isinstance(same.result, dict) else None
    if echoed != ctx.revision:
        yield ctx.fail(None, f"initialize with its own version {ctx.revision} was answered {echoed!r}", [same.seq])
    elif got.error is None:
        yield ctx.passed(None, f"{BOGUS_VERSION} -> {answered}; {ctx.revision} -> {echoed}", [got.seq, same.seq])


CAPS = (("tools", "tools/list"), ("resources", "resources/list"), ("prompts", "prompts/list"))


@rule(
    "spec.capabilities",
    concern="protocol",
    severity="medium",
    modes=("probe", "observe"),
    source=f"{SEED} Protocol layer: capabilities",
)
async def capabilities(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Declared capabilities match what is served, and their shapes match the schema.

    What it checks: each capability value must be an object (`listChanged`, `subscribe` booleans); for tools,
    resources and prompts not declared, `<x>/list` must not list items (items served is an undeclared
    capability, CAP-01: fail; an empty list warns, -32601 is expected); declared ones must list without
    error; log notifications (`notifications/message`)
    without a declared `logging` capability fail.
    Why: seed 002 capabilities (CAP-01, LG-01): clients decide what to ask for by the declared capabilities;
    a server serving what it did not declare, or declaring what it cannot serve, is misread.

    Spec: all revisions (CAP-01, LG-01)

    Known false positives: none known for the fails (a declared list failing means a JSON-RPC error or a
    result without its array). An empty list served without the capability only warns. Logging is judged
    only by what was sent during the review.
    Passes: declared capabilities well-shaped and served as declared. Fails: a malformed capability, a
    declared list that failed, items served without the capability, logs without `logging`. Warns: an empty
    list answered for an undeclared capability.
    """
    caps = ctx.snapshot.capabilities
    problems: list[str] = []
    quirks: list[str] = []
    seqs: list[int | None] = [ctx.snapshot.hello_seq]
    quiet: list[int | None] = []
    for name, value in caps.items():
        if not isinstance(value, dict):
            problems.append(f"capability {name!r} is {type(value).__name__}, not an object")
        elif any(k in value and not isinstance(value[k], bool) for k in ("listChanged", "subscribe")):
            problems.append(f"capability {name!r} has a non-boolean listChanged/subscribe")
    for name, method in CAPS:
        if name in caps:
            listing = next(li for li in ctx.snapshot.lists.values() if li.spec.method == method)
            if listing.error:
                problems.append(f"declares {name} but {method} failed: {listing.error}")
                seqs.append(listing.error_seq)
            continue
        reply = await ctx.session.request(method, {})
        if reply.error is None:
            items = reply.result.get(name) if isinstance(reply.result, dict) else None
            if items:  # serves items of a capability it did not declare (CAP-01)
                problems.append(f"does not declare {name!r} but {method} lists {len(items)}")
                seqs.append(reply.seq)
            else:  # an empty list serves nothing: suggestive, not a violation
                quirks.append(f"{method} answers an empty list though {name!r} is not declared (-32601 expected)")
                quiet.append(reply.seq)
    logs = [e.seq for e in ctx.wire.messages("recv") if e.method == "notifications/message"]
    if logs and "logging" not in caps:
        problems.append(f"sends notifications/message ({len(logs)}) without declaring logging")
        seqs.append(logs[0])
    if problems:
        yield ctx.fail(None, "; ".join(problems), seqs)
    elif quirks:
        yield ctx.warn(None, "; ".join(quirks), [*seqs, *quiet])
    else:
        yield ctx.passed(None, f"declared {', '.join(sorted(caps)) or 'nothing'}; served as declared", seqs)
