"""Pack `review` (seed 003): around the MCP endpoint: browsers kept out, and a server that stays up under review.

`review.browser-origins-refused` asks what a web page the user opens could do with a server on this machine, over
every HTTP transport (Streamable HTTP and legacy SSE alike). `review.survives-probes` reads what the runner saw
between rules (`CheckContext.outages`): a server that died or dropped the session while a rule probed it, and
whether the review could go on with a fresh connection.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator

from mcp_review.checks.review.common import SEED
from mcp_review.checks.spec.common import FOREIGN_ORIGIN
from mcp_review.connection.errors import ConnectionFailed
from mcp_review.connection.http import HttpExchange
from mcp_review.connection.probe import Prober
from mcp_review.connection.protocol import CLIENT_INFO, LATEST_LEGACY
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule

EVIL = "http://evil.example"  # a foreign origin: `.example` is reserved (RFC 2606), no page of it exists


# what, method, URL (None: the target's), headers, body, headers left out
Asked = tuple[str, str, str | None, dict[str, str], str | None, tuple[str, ...]]


@rule(
    "review.browser-origins-refused",
    concern="security",
    severity="high",
    modes=("probe",),
    source=f"{SEED} Security: transport-config (Origin, DNS rebinding)",
    transport="http",
)
async def browser_origins_refused(ctx: CheckContext) -> AsyncIterator[Finding]:
    """HTTP, Streamable and legacy SSE alike: a web page on another origin can neither reach the server nor read it.

    What it checks: probe, on a fresh connection: the requests a client starts with, sent as a browser would send
    them from a page on `http://evil.example`: over Streamable HTTP the first POST (`initialize`); over legacy SSE the
    GET of the event stream and the first POST to the endpoint it names; each with `Origin:
    http://evil.example`, and a CORS preflight (OPTIONS with that Origin, `Access-Control-Request-Method: POST`,
    `Access-Control-Request-Headers: content-type`) of the URL a page would POST to. A foreign Origin answered with
    a success (2xx) fails; CORS headers that let that origin read the answers (`Access-Control-Allow-Origin: *`
    or the origin echoed back) and a preflight that allows the POST are named with it.

    Why: MCP's transports say servers MUST validate the Origin header on every incoming connection to prevent DNS
    rebinding (2024-11-05 HTTP+SSE; Streamable HTTP from 2025-03-26, 403 from 2025-11-25): a page the user opens
    can rename its own host to 127.0.0.1 and talk to a local server as if it were the client, and
    `Access-Control-Allow-Origin: *` lets any page read what comes back (a legacy SSE server with it is open to
    every site the user visits). spec.http-transport checks Streamable HTTP's Origin among its other checks; this
    rule covers the legacy SSE transport too, and CORS on both.

    Spec: 2024-11-05 (HTTP with SSE: Origin); 2025-03-26 and later (Streamable HTTP: Origin)

    One fact, one fail: over Streamable HTTP, an accepted foreign Origin (with no CORS opening on top of it) is
    spec.http-transport's fail as well; this fail is then n/a "settled by" it.

    Known false positives: a server meant to be reached from web pages on any origin (a public, authenticated API
    behind CORS on purpose) fails the Origin part: waive it naming the authentication that protects it. A server
    behind a gateway is judged by what the gateway answers. CORS headers on a refused request open nothing and are
    not judged.

    Passes: every request with the foreign Origin refused (4xx). Fails: one answered with a success. Blocking: a
    probe got no answer.

    To verify when blocking: a longer --timeout (or the probe_timeout option), on a server that answers.
    """
    exchanges: list[tuple[str, HttpExchange]] = []
    silent: list[str] = []
    preflight: HttpExchange | None = None
    hello = {"protocolVersion": LATEST_LEGACY, "capabilities": {}, "clientInfo": CLIENT_INFO}
    body = json.dumps({"jsonrpc": "2.0", "id": "mcp-review-origin", "method": "initialize", "params": hello})
    cors = {"Origin": EVIL, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}
    try:
        async with ctx.probe() as p:
            url = getattr(p.transport, "endpoint", None) if ctx.target.kind == "sse" else None
            json_post = {"Origin": EVIL, "Content-Type": "application/json"}
            asked: list[Asked] = [("the first POST a client sends", "POST", url, json_post, body, ())]
            if url is not None:  # legacy SSE: the stream a page would open, then the endpoint it names
                stream = {"Origin": EVIL, "Accept": "text/event-stream"}
                asked.insert(0, ("GET of the event stream", "GET", None, stream, None, ("Content-Type",)))
            for what, method, where, headers, sent, omit in asked:
                if (got := await _asked(p, method, where, headers, sent, omit)) is not None:
                    exchanges.append((what, got))
                else:
                    silent.append(what)
            preflight = await _asked(p, "OPTIONS", url, cors, None, ("Content-Type", "Authorization"))
    except ConnectionFailed as e:
        silent.append(f"a fresh connection ({e})")
    if not exchanges:
        said = f"a request with a foreign Origin got no answer ({'; '.join(silent)}): nothing is proven"
        yield ctx.blocking(None, said, [ex.seq for _, ex in exchanges])
        return
    yield _judged(ctx, exchanges, preflight)


async def _asked(
    p: Prober, method: str, url: str | None, headers: dict[str, str], body: str | None, omit: tuple[str, ...]
) -> HttpExchange | None:
    """One request with the foreign Origin, asked again once when the connection failed (a server that refused the
    last one may have closed the connection it kept alive); None when neither got an answer."""
    for _ in range(2):
        try:
            return await p.http(method, url, headers=headers, body=body, omit=omit)
        except ConnectionFailed:
            continue
    return None


def _readable(ex: HttpExchange) -> str | None:
    """The CORS header of `ex` that lets the foreign origin read it, as said, or None."""
    allowed = ex.header("access-control-allow-origin")
    if allowed is None or allowed.strip() not in ("*", EVIL):
        return None
    credentials = (ex.header("access-control-allow-credentials") or "").strip().lower() == "true"
    return f"Access-Control-Allow-Origin: {allowed.strip()}" + (" with credentials" if credentials else "")


def _judged(ctx: CheckContext, exchanges: list[tuple[str, HttpExchange]], preflight: HttpExchange | None) -> Finding:
    taken = [(what, ex) for what, ex in exchanges if 200 <= ex.status < 300]
    tried = "; ".join(f"{what} -> HTTP {ex.status}" for what, ex in exchanges)
    seqs = [ex.seq for _, ex in exchanges] + ([preflight.seq] if preflight else [])
    if not taken:
        return ctx.passed(None, f"a foreign Origin ({EVIL}) was refused: {tried}", seqs)
    said = "; ".join(f"{what} with Origin {EVIL} -> HTTP {ex.status}" for what, ex in taken)
    opened = [f"{what} carries {cors}" for what, ex in taken if (cors := _readable(ex))]
    allows = _readable(preflight) if preflight else None
    if preflight and allows and 200 <= preflight.status < 300:
        opened.append(f"the OPTIONS preflight -> HTTP {preflight.status} allows the POST ({allows})")
    read = f"; {', '.join(opened)}: any web page can read what it answers" if opened else ""
    fact = FOREIGN_ORIGIN if ctx.target.kind == "http" and not opened else None
    return ctx.fail(
        None,
        f"{said}: a web page the user opens can reach this server (DNS rebinding){read}",
        [ex.seq for _, ex in taken] + ([preflight.seq] if preflight and allows else []),
        fact=fact,
    )


@rule(
    "review.survives-probes",
    concern="security",
    severity="medium",
    modes=("observe",),
    source=f"{SEED} Security: injection-safe",
    needs_server=False,
)
def survives_probes(ctx: CheckContext) -> Iterator[Finding]:
    """The server stays up and keeps its session while the review probes it.

    What it checks: observe: after every rule the runner looks at the review's connection (and, over HTTP, after
    each rule that opened probe connections or made a call that got no answer, asks `ping`): a connection lost (a
    stdio server that exited, an event stream that ended, an HTTP server that no longer answers) or a session the
    server dropped (a `ping` refused) is recorded with the rule that was running, and the review reconnects (stdio:
    a fresh process; HTTP: a fresh session) and goes on. Each such outage fails, naming the rule and the call that
    got no answer (else the last request it sent).

    Why: seed 003 injection-safe and MCP's lifecycle: a server that a malformed value, an odd header or a second
    connection takes down is down for every client (a TypeScript SDK server that crashes when a second SSE stream
    opens lets any local page end it), and a review that stopped at the first outage would leave every later rule
    blocking without saying why.

    Known false positives: a server restarted or stopped by someone else during the review is read as an outage
    under whatever rule ran then. A server that ends a session on purpose (a single-client server told so by a
    second client) fails: the finding says which probe did it, and a reviewer who accepts it waives it.

    Passes: the connection and its session held through every rule. Fails: an outage (the rule, the last request,
    whether the review could reconnect).
    """
    if not ctx.outages:
        yield ctx.passed(None, "the server stayed up, its session held, through every rule of the review")
        return
    for outage in ctx.outages:
        after = "the review reconnected and went on" if outage.reconnected else f"no fresh connection: {outage.why}"
        yield ctx.fail(
            None,
            f"the server {outage.what} while {outage.rule} ran{outage.last}: {outage.failure}; {after}",
            outage.evidence,
        )
