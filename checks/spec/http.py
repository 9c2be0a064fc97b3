"""Pack `spec` (seed 002 and the MCP specification): the Streamable HTTP transport."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

from mcp_review.checks.spec.common import BOGUS_VERSION, FOREIGN_ORIGIN, SEED, stated
from mcp_review.connection.probe import Prober, ProbeResult
from mcp_review.connection.protocol import LEGACY_VERSIONS, META, MODERN, modern_meta
from mcp_review.connection.wire import WireEntry
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule

FOREIGN = "evil.example"  # the attacker's host a DNS-rebinding page is served from
CONCURRENT = 3  # POSTs sent at once (as the official conformance suite does)
NO_TOOL = "mcp-review-no-such-tool"  # a tools/call body no server can run: what a server that lists no resource gets
OTHER_NAME = "mcp-review-other-name"  # an Mcp-Name unlike the body's


@rule(
    "spec.http-transport",
    concern="protocol",
    severity="high",
    modes=("probe", "observe"),
    source=f"{SEED} Server & framework layer",
    transport="http",
)
async def http_transport(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Sessions, `MCP-Protocol-Version`, 404 on an unknown session, Origin validation, content types, several POSTs.

    What it checks: probe (fresh connections): legacy era: the session id is visible ASCII; a session the server
    ended (after the client's DELETE was accepted) gets 404 (MUST); a session id never issued should get 404 (warn);
    one without a session id gets 400 (SHOULD: warn); an invalid MCP-Protocol-Version gets 400 (>=2025-06-18); a
    notification POST gets 202. 2026-07-28: a request without Mcp-Method, one whose Mcp-Method differs from its
    body's in case only (values are case-sensitive), one with an Mcp-Name unlike its body's or none, and one whose
    MCP-Protocol-Version header is not its `_meta`'s version get 400 / -32020 (MUST, streamable-http.mdx:582, :257);
    the header name written mcp-method or MCP-METHOD is served (MUST compare names case-insensitively, :574); GET
    gets 405 (SHOULD: warn) on a server that serves 2026-07-28 only (streamable-http.mdx:680-684): one that answers
    a legacy `initialize` too is dual-era and serves GET as the legacy revisions say. Every era: a foreign Origin
    gets 403 (>=2025-11-25, any 4xx before); a DNS-rebinding request (the Host and the Origin both the attacker's,
    as a browser sends it after DNS rebinding and as the official conformance suite sends it) gets a 4xx (MUST
    validate the Origin to prevent DNS rebinding, 2025-11-25 basic/transports.mdx:78); three requests POSTed at once
    on one session are each answered (every request POSTed MUST be answered with JSON or an event stream, :101; a
    client MAY hold several streams, :158), and no message comes on two of their streams (MUST NOT broadcast, :160);
    2025-11-25: each event stream that answered a POST of the review (the rule runs after the tool calls: observe)
    begins with a priming event, an event id and empty data (SHOULD, :106). A foreign Host with no Origin is a note
    when accepted: the spec names no Host check. Responses to requests are application/json or text/event-stream.
    n/a on stdio and legacy SSE. Each claim cites its own exchanges, the failing ones first.

    Why: seed 002 server layer; Streamable HTTP (HT-02, HT-04, HT-09..HT-14; 2026-07-28 HM-01, HM-04, HM-08):
    session ids and version headers keep one client's state apart from another's; Origin validation stops
    DNS-rebinding attacks from a browser, on local servers above all; a client calls tools in parallel.

    Spec: Streamable HTTP ≥2025-03-26 (HT-02, HT-04, HT-09..HT-14); 2026-07-28 (HM-01, HM-04, HM-08)

    One fact, one fail: a foreign Origin answered is review.browser-origins-refused's finding too (it checks every
    HTTP transport, and CORS); its fail for that fact alone is n/a "settled by" this one.

    Known false positives: none known for a probe that got no answer: it proves nothing, so the rule is blocking
    (not failed) when nothing else failed, and says which probes went unanswered. A server behind a gateway is
    judged by the gateway's status codes (a rate limiter that refuses the concurrent POSTs fails them). A server
    that issues no session id skips the session checks. A 2026-07-28 server that lists no resource has its Mcp-Name
    tried on a `tools/call` of a tool it lacks: an error other than -32020 there may be the unknown tool's, so it is
    a warn (with the SHOULDs) saying a listed resource would show it. The MUSTs broken are the fail; the SHOULDs
    broken are a warn of their own (subject SHOULD), never part of a fail. Not judged: the `retry` field (a SHOULD
    only before a server closes a stream it has not ended, which the conformance suite provokes with a tool of its
    own fixture), an Mcp-Name in whitespace (RFC 9110 5.5; mcp-review's transport never sends one).

    Passes: every check as the spec says. Fails: any MUST broken (listed). Warns: only SHOULDs broken.
    Notes: a foreign Host accepted. Blocking: a probe got no answer and nothing else failed.

    To verify when blocking: a longer --timeout (or the probe_timeout option), on a server that answers.
    """
    if ctx.target.kind != "http":
        yield ctx.na(None, "legacy HTTP+SSE transport: see tokens.transport")
        return
    fails, warns, silent = Claims(), Claims(), Claims()  # silent: probes that got no answer prove nothing
    tried: list[int | None] = []  # every probe's reply, cited by a pass
    port = urlsplit(ctx.target.url or "").port
    foreign = f"{FOREIGN}:{port}" if port else FOREIGN
    evil = {"Origin": f"http://{FOREIGN}"}

    def heard(got: Any, what: str) -> bool:
        tried.append(got.seq)
        if got.status is None:
            silent.add(f"{what} ({got.failure or 'no answer'})", got.seq)
        return got.status is not None

    sid: str | None = None
    async with ctx.probe() as p:
        if ctx.era == "modern":
            await _standard_headers(ctx, p, (fails, warns), heard)
            meta = {"_meta": {f"{META}protocolVersion": BOGUS_VERSION}}  # the header says 2026-07-28
            got = await p.modern("server/discover", meta)
            if heard(got, "a header version unlike _meta's") and (got.status != 400 or got.code != -32020):
                said = f"MCP-Protocol-Version {MODERN} with _meta {BOGUS_VERSION} -> HTTP {got.status} {got.code}"
                fails.add(f"{said}, not 400 / -32020 ({stated('version-header', ctx.revision)})", got.seq)
            get = await p.http("GET", omit=["Content-Type"], headers={"Accept": "text/event-stream"})
            tried.append(get.seq)
            if get.status != 405:  # the SHOULD is a modern-only server's: a dual-era one serves legacy GETs
                legacy = await _first_contact(ctx, {}, era="legacy")
                if legacy.error is not None or not isinstance(legacy.result, dict):
                    should = f"a server of 2026-07-28 only SHOULD answer 405 ({stated('modern-get', ctx.revision)})"
                    warns.add(f"GET -> {get.status}, and no legacy session is served; {should}", get.seq, legacy.seq)
        else:
            init = await p.initialize(ctx.revision)
            tried.append(init.seq)
            sid = getattr(p.transport, "session_id", None)
            if sid is not None and not re.fullmatch(r"[\x21-\x7e]+", sid):
                fails.add("Mcp-Session-Id has characters outside visible ASCII", init.seq)
            if sid is not None:
                # The MUST is about a session the server ended (404 tells the client to start anew); an id it
                # never issued is not named by it, so that answer is only judged against the same SHOULD.
                got = await p.request("tools/list", {}, headers={"Mcp-Session-Id": "mcp-review-bogus-session"})
                if heard(got, "an unknown session id") and got.status != 404:
                    warns.add(f"a session id it never issued -> HTTP {got.status}; 404 is expected", got.seq)
                got = await p.request("tools/list", {}, omit=["Mcp-Session-Id"])
                if heard(got, "no session id") and got.status != 400:
                    warns.add(f"no session id -> HTTP {got.status}; SHOULD be 400", got.seq)
        await _concurrent(ctx, p, fails, heard)
        if sid is not None:
            async with ctx.probe() as ended:  # a session of its own, ended by DELETE, then used again
                await ended.initialize(ctx.revision)
                if getattr(ended.transport, "session_id", None):
                    bye = await ended.http("DELETE", omit=["Content-Type"])
                    tried.append(bye.seq)
                    if 200 <= bye.status < 300:
                        got = await ended.request("tools/list", {})
                        if heard(got, "a session it ended") and got.status != 404:
                            said = f"a session it ended (DELETE -> {bye.status}) -> HTTP {got.status}, not 404"
                            fails.add(said, bye.seq, got.seq)
            if ctx.revision_at_least("2025-06-18"):
                got = await p.request("tools/list", {}, headers={"MCP-Protocol-Version": BOGUS_VERSION})
                if heard(got, f"MCP-Protocol-Version {BOGUS_VERSION}") and got.status != 400:
                    fails.add(f"MCP-Protocol-Version {BOGUS_VERSION} -> HTTP {got.status}, not 400", got.seq)
            ex = await p.http("POST", body='{"jsonrpc":"2.0","method":"notifications/initialized"}')
            tried.append(ex.seq)
            if ex.status != 202:
                fails.add(f"a notification POST -> HTTP {ex.status}, not 202", ex.seq)
    if ctx.era == "legacy" and ctx.revision_at_least("2025-11-25"):
        _priming(ctx, warns, tried)
    bad_origin = await _first_contact(ctx, evil)
    want_403 = ctx.revision_at_least("2025-11-25")
    status = bad_origin.status
    origin = False
    if heard(bad_origin, "a foreign Origin") and ((want_403 and status != 403) or (status or 0) < 400):
        said = f"Origin http://{FOREIGN} -> HTTP {status}" + (", not 403" if want_403 else ", not rejected")
        fails.add(said, bad_origin.seq)
        origin = (status or 0) < 400  # answered: the fact review.browser-origins-refused finds too
    rebound = await _first_contact(ctx, {"Host": foreign, "Origin": f"http://{foreign}"})
    if heard(rebound, "a DNS-rebinding request") and not 400 <= (rebound.status or 0) < 500:
        said = f"a DNS-rebinding request (Host {foreign}, Origin http://{foreign}) -> HTTP {rebound.status}"
        fails.add(
            f"{said}, not refused: Servers MUST validate the Origin ({stated('origin', ctx.revision)})", rebound.seq
        )
    host = await _first_contact(ctx, {"Host": foreign})
    unproven = f"no answer in time to: {silent.text()}" if silent else ""
    if fails:
        said = "; ".join(filter(None, (fails.text(), unproven)))
        yield ctx.fail(None, said, fails.seqs + silent.seqs, fact=FOREIGN_ORIGIN if origin else None)
        if warns:
            yield ctx.warn("SHOULD", warns.text(), warns.seqs)
    elif silent:
        yield ctx.blocking(None, f"{unproven}; a longer --timeout would verify them", silent.seqs)
    elif warns:
        yield ctx.warn(None, warns.text(), warns.seqs)
    else:
        yield ctx.passed(
            None,
            "sessions, version header, Origin, concurrent POSTs, event streams and status codes as the spec says",
            tried,
        )
    if host.status is not None and 200 <= host.status < 300:
        yield ctx.note(
            "Host",
            f"Host {foreign} with no Origin -> HTTP {host.status}: accepted. The spec requires Origin validation to "
            f"prevent DNS rebinding (MUST, {stated('origin', ctx.revision)}) and names no Host check; a browser "
            "sends no Origin on a same-origin GET after DNS rebinding, so only a Host check would refuse that one",
            [host.seq],
        )
    elif host.status is not None:
        yield ctx.passed("Host", f"Host {foreign} with no Origin -> HTTP {host.status}: refused", [host.seq])


async def _first_contact(ctx: CheckContext, headers: dict[str, str], era: str | None = None) -> ProbeResult:
    """The era's first request on a fresh connection, with `headers` (a foreign Origin, a foreign Host)."""
    async with ctx.probe() as fresh:
        if (era or ctx.era) == "modern":
            return await fresh.modern("server/discover", headers=headers)
        return await fresh.request("initialize", _init_params(ctx.revision), headers=headers)


async def _concurrent(ctx: CheckContext, p: Prober, fails: Claims, heard: Any) -> None:
    """CONCURRENT requests POSTed at once on the probe's session: each answered with its own answer, on a stream
    of its own; no message on two of their streams."""
    caps = ctx.snapshot.capabilities
    method = next((f"{c}/list" for c in ("tools", "resources", "prompts") if c in caps), None)
    method = method or ("server/discover" if ctx.era == "modern" else "ping")
    send = p.modern if ctx.era == "modern" else p.request
    got: list[ProbeResult] = list(await asyncio.gather(*(send(method, {}) for _ in range(CONCURRENT))))
    answered = [g for g in got if heard(g, f"{CONCURRENT} concurrent POSTs") and g.answered and (g.status or 0) < 300]
    if len(answered) < len(got) and all(g.status is not None for g in got):
        statuses = ", ".join(f"HTTP {g.status}" + ("" if g.answered else " without its answer") for g in got)
        may = (
            ""
            if ctx.era == "modern"
            else f"a client MAY hold several streams ({stated('streams', ctx.revision)}), and "
        )
        said = f"{CONCURRENT} {method} POSTed at once -> {statuses}: refused; {may}each request POSTed MUST be answered"
        fails.add(f"{said} ({stated('request-answered', ctx.revision)})", *(g.seq for g in got))
    replies = [ctx.wire.get(g.seq) for g in answered if g.seq is not None]
    exchanges = {e.exchange for e in replies if e is not None and e.exchange is not None}
    seen: dict[str, tuple[int, int]] = {}  # a message's text -> (the stream it came on, its wire entry)
    for entry in ctx.wire.messages("recv"):
        if entry.exchange is None or entry.exchange not in exchanges:
            continue
        text = json.dumps(entry.message, sort_keys=True)
        first = seen.setdefault(text, (entry.exchange, entry.seq))
        if first[0] != entry.exchange:
            said = f"#{first[1]} and #{entry.seq}: one message on two streams"
            fails.add(f"{said}: it MUST NOT broadcast ({stated('streams', ctx.revision)})", first[1], entry.seq)
            break


class Claims:
    """What the probes showed, each with the wire entries that show it (in order: a finding cites them first)."""

    def __init__(self) -> None:
        self.said: list[str] = []
        self.seqs: list[int | None] = []

    def add(self, said: str, *seqs: int | None) -> None:
        self.said.append(said)
        self.seqs += seqs

    def text(self) -> str:
        return "; ".join(self.said)

    def __bool__(self) -> bool:
        return bool(self.said)


async def _standard_headers(ctx: CheckContext, p: Prober, claims: tuple[Claims, Claims], heard: Any) -> None:
    """2026-07-28 (SEP-2243): a request whose Mcp-Method or Mcp-Name is missing or unlike its body gets 400 /
    -32020, header values compared case-sensitively; header names match whatever their case. Mcp-Name is tried on
    a `resources/read` of the first resource listed (a valid body: any other answer breaks the MUST); a server
    that lists none gets a `tools/call` of a tool it does not have (nothing can run), where another error than
    -32020 may be the unknown tool's (a warn). Not probed: an Mcp-Name in whitespace (RFC 9110 5.5), which the
    transport never sends (egress.header_safe)."""
    fails, warns = claims
    where = stated("header-mismatch", ctx.revision)
    must = f"the answer to a header missing or unlike the body MUST be 400 / -32020 ({where})"
    case = stated("header-case", ctx.revision)

    def refused(got: ProbeResult, what: str, valid: bool = True) -> None:
        if not heard(got, what) or (got.status == 400 and got.code == -32020):
            return
        said = f"{what} -> HTTP {got.status} {got.code}"
        if valid or got.result is not None:
            fails.add(f"{said}: {must}", got.seq)
        else:
            warns.add(f"{said}: maybe the unknown tool's error; {must}, which a listed resource would show", got.seq)

    refused(await p.modern("tools/list", headers={"Mcp-Method": ""}, omit=["Mcp-Method"]), "no Mcp-Method header")
    got = await p.modern("tools/list", headers={"Mcp-Method": "TOOLS/LIST"})
    refused(got, f"Mcp-Method TOOLS/LIST on a tools/list body (values are case-sensitive, {case})")
    resource = next(iter(ctx.snapshot.resources), None)
    method, key = ("resources/read", "uri") if resource else ("tools/call", "name")
    params = {"uri": resource.key} if resource else {"name": NO_TOOL, "arguments": {}}
    named = f"{method} of {params[key]!r}"
    got = await p.modern(method, params, headers={"Mcp-Name": OTHER_NAME})
    refused(got, f"Mcp-Name {OTHER_NAME} on a {named}", valid=resource is not None)
    refused(await p.modern(method, params), f"no Mcp-Name on a {named}", valid=resource is not None)
    for name in ("mcp-method", "MCP-METHOD"):
        headers = {"MCP-Protocol-Version": MODERN, name: "server/discover"}
        got = await p.request("server/discover", {"_meta": modern_meta()}, headers=headers)
        if heard(got, f"header name {name}") and got.result is None:
            said = f"{name}: server/discover -> HTTP {got.status} {got.code}, refused"
            fails.add(f"{said}: header names MUST be compared case-insensitively ({case})", got.seq)


def _priming(ctx: CheckContext, warns: Claims, tried: list[int | None]) -> None:
    """2025-11-25: each event stream that answers a POST of the review (its tool calls, these probes) begins with
    a priming event, an id and empty data (SHOULD). Read from the wire (the transport records the events that
    carry no message, connection/http.py SSE_KEPT): this rule runs after the calls for it."""
    posts: set[int] = set()
    streams: dict[int, int] = {}  # a POST answered with an event stream -> its status line
    first: dict[int, WireEntry] = {}  # -> the first event or message that came on it
    for entry in ctx.wire.entries:
        ex, info = entry.exchange, entry.http or {}
        if ex is None:
            continue
        if info.get("method") == "POST":
            posts.add(ex)
        elif "status" in info:
            ctype = next(
                (v for k, v in (info.get("response_headers") or {}).items() if k.lower() == "content-type"), ""
            )
            if ex in posts and "text/event-stream" in str(ctype):
                streams[ex] = entry.seq
        elif ex in streams and ex not in first and (entry.direction == "recv" or "event" in info):
            first[ex] = entry
    began = [first[ex] for ex in streams if ex in first]
    unprimed = [e for e in began if not (e.http and e.http["event"]["id"] is not None and not e.http["event"]["data"])]
    if unprimed:
        said = f"{len(unprimed)} of {len(began)} event streams answering a POST began without a priming event"
        should = f"the server SHOULD first send an event id with empty data ({stated('priming', ctx.revision)})"
        warns.add(f"{said}: {should}", *(e.seq for e in unprimed[:3]))
    tried += [e.seq for e in began[:3]]


def _init_params(revision: str) -> dict[str, Any]:
    from mcp_review.connection.protocol import CLIENT_INFO

    version = revision if revision in LEGACY_VERSIONS else LEGACY_VERSIONS[0]
    return {"protocolVersion": version, "capabilities": {}, "clientInfo": CLIENT_INFO}
