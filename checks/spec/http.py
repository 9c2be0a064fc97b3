"""Pack `spec` (seed 002 and the MCP specification): the Streamable HTTP transport."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

from mcp_review.checks.spec.common import BOGUS_VERSION, SEED
from mcp_review.connection.protocol import LEGACY_VERSIONS
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule


@rule("spec.http-transport", modes=("probe",), source=f"{SEED} Server & framework layer", transport="http")
async def http_transport(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Sessions, `MCP-Protocol-Version`, 404 on an unknown session, Origin validation, content types.

    What it checks: probe (fresh connections): legacy era: the session id is visible ASCII; a session the server
    ended (after the client's DELETE was accepted) gets 404 (MUST); a session id never issued should get 404
    (warn); one without a session id gets 400 (SHOULD: warn); an invalid MCP-Protocol-Version gets 400
    (>=2025-06-18); a notification POST gets 202; a foreign Origin gets 403 (>=2025-11-25, any 4xx before).
    2026-07-28: a request without Mcp-Method gets 400 / -32020; GET gets 405 (SHOULD: warn); a foreign Origin gets
    403. Responses to requests are application/json or text/event-stream. n/a on stdio and legacy SSE. Each claim
    cites its own exchanges (the GET; the DELETE and the request after it; the notification POST; the foreign
    Origin's request), the failing ones first.

    Why: seed 002 server layer; Streamable HTTP (HT-02, HT-04, HT-10..HT-14; 2026-07-28 HM-01, HM-04, HM-08):
    session ids and version headers keep one client's state apart from another's, and Origin validation stops
    DNS-rebinding attacks from a browser, on local servers above all.

    Spec: Streamable HTTP ≥2025-03-26 (HT-02, HT-04, HT-10..HT-14); 2026-07-28 (HM-01, HM-04, HM-08)

    Known false positives: none known for a probe that got no answer: it proves nothing, so the rule is
    blocking (not failed) when nothing else failed, and says which probes went unanswered. A server behind a
    gateway is judged by the gateway's status codes. A server that issues no session id skips the
    session checks.

    Passes: every check as the spec says. Fails: any MUST broken (listed). Warns: only SHOULDs broken.
    Blocking: a probe got no answer and nothing else failed.

    To verify when blocking: a longer --timeout (or the probe_timeout option), on a server that answers.
    """
    if ctx.target.kind != "http":
        yield ctx.na(None, "legacy HTTP+SSE transport: see tokens.transport")
        return
    fails, warns, silent = Claims(), Claims(), Claims()  # silent: probes that got no answer prove nothing
    tried: list[int | None] = []  # every probe's reply, cited by a pass
    evil = {"Origin": "http://evil.example"}

    def heard(got: Any, what: str) -> bool:
        tried.append(got.seq)
        if got.status is None:
            silent.add(f"{what} ({got.failure or 'no answer'})", got.seq)
        return got.status is not None

    sid: str | None = None
    async with ctx.probe() as p:
        if ctx.era == "modern":
            got = await p.modern("tools/list", headers={"Mcp-Method": ""}, omit=["Mcp-Method"])
            if heard(got, "no Mcp-Method header") and (got.status != 400 or got.code != -32020):
                fails.add(f"no Mcp-Method header -> HTTP {got.status} {got.code}, not 400 / -32020", got.seq)
            get = await p.http("GET", omit=["Content-Type"], headers={"Accept": "text/event-stream"})
            tried.append(get.seq)
            if get.status != 405:
                warns.add(f"GET -> {get.status}; a modern-only server SHOULD answer 405", get.seq)
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
        async with ctx.probe() as fresh:
            bad_origin = await (
                fresh.modern("server/discover", headers=evil)
                if ctx.era == "modern"
                else fresh.request("initialize", _init_params(ctx.revision), headers=evil)
            )
    want_403 = ctx.revision_at_least("2025-11-25")
    status = bad_origin.status
    if heard(bad_origin, "a foreign Origin") and ((want_403 and status != 403) or (status or 0) < 400):
        said = f"Origin http://evil.example -> HTTP {status}" + (", not 403" if want_403 else ", not rejected")
        fails.add(said, bad_origin.seq)
    unproven = f"no answer in time to: {silent.text()}" if silent else ""
    if fails:
        said = "; ".join(filter(None, (fails.text(), warns.text(), unproven)))
        yield ctx.fail(None, said, fails.seqs + warns.seqs + silent.seqs)
    elif silent:
        yield ctx.blocking(None, f"{unproven}; a longer --timeout would verify them", silent.seqs)
    elif warns:
        yield ctx.warn(None, warns.text(), warns.seqs)
    else:
        yield ctx.passed(None, "sessions, version header, Origin and status codes as the spec says", tried)


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


def _init_params(revision: str) -> dict[str, Any]:
    from mcp_review.connection.protocol import CLIENT_INFO

    version = revision if revision in LEGACY_VERSIONS else LEGACY_VERSIONS[0]
    return {"protocolVersion": version, "capabilities": {}, "clientInfo": CLIENT_INFO}
