"""What `review.audience-validated` sends a resource server, and how it reads each answer.

Every probe is the era's handshake on a fresh connection with one credential a server must refuse; the answer
must be 401 with a `WWW-Authenticate` that names `resource_metadata` (MCP authorization, RFC 9728 section 5.1).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from mcp_review.review import Fact, Finding
from mcp_review.rules.context import CheckContext
from mcp_review.targets import Target

_RESOURCE_METADATA = re.compile(r"resource_metadata\s*=", re.IGNORECASE)
# No authorization layer at all. It is seed 003 transport-config's own MUST ("require Authorization: Bearer on every
# request") and that rule's probe shows it directly; audience-validated (no token to validate) and
# resource-server-metadata (no 401 to carry the challenge) only follow from it, so they point to that fail.
NO_AUTHORIZATION = Fact("review.transport-config", "a request without a token is accepted")
# Tokens are not checked at all: a random string is accepted. Every forged or narrow token then passes as well.
ANY_TOKEN = Fact("review.audience-validated", "a random string is accepted as a bearer token")


def accepted(got: Any) -> bool:
    """Did a probe get a 2xx?"""
    return got.status is not None and got.status < 300


def no_answer(ctx: CheckContext, got: Any, what: str) -> Finding | None:
    """A `blocking` finding when a probe got no HTTP status at all: no answer proves nothing."""
    if got.status is not None:
        return None
    return ctx.blocking(None, f"{what} got no answer ({got.failure}): a longer --timeout would verify it", [got.seq])


def not_refused(ctx: CheckContext, got: Any, what: str, fact: Fact | None = None) -> Finding | None:
    """None when `what` was refused over HTTP; else the finding that ends the rule: blocking when nothing
    answered, fail (for `fact`, if given) when it was accepted (2xx)."""
    silent = no_answer(ctx, got, what)
    if silent is not None:
        return silent
    if got.status < 300:
        return ctx.fail(None, f"{what} was accepted (HTTP {got.status})", [got.seq], fact=fact)
    return None


@dataclass(frozen=True)
class Answer:
    """A probe's answer: the probe's result, its HTTP status line's wire entry and the challenge it carried."""

    got: Any
    seq: int | None
    challenge: str
    request: str  # the request as the wire log has it (credentials masked), quoted by a finding


async def hello_as(ctx: CheckContext, target: Target) -> Answer:
    """The era's handshake on a fresh connection to `target` (the review's, with other credentials). The answer
    cites the reply (its message, or the status line of an HTTP error), whose exchange shows request and status."""
    async with ctx.probe(target) as p:
        got = await p.hello(ctx.era, ctx.revision)
        conn = p.conn
    reply = ctx.wire.get(got.seq) if got.seq is not None else None
    status = ctx.wire.response_line(reply.exchange) if reply else None
    headers = status.http.get("response_headers", {}) if status and status.http else {}
    challenge = next((str(v) for k, v in headers.items() if k.lower() == "www-authenticate"), "")
    lines = [e for e in ctx.wire.entries if e.direction == "http" and e.conn == conn and e.http]
    return Answer(got, got.seq, challenge, _quoted(lines))


def _quoted(lines: list[Any]) -> str:
    """The first request of a probe's connection: method, URL and Authorization, as recorded (masked)."""
    sent = next((e.http for e in lines if e.http and "method" in e.http), None)
    if not sent:
        return "the request"
    auth = next((str(v) for k, v in (sent.get("request_headers") or {}).items() if k.lower() == "authorization"), "")
    return f"{sent['method']} {str(sent.get('url', ''))[:200]}" + (f" with Authorization: {auth}" if auth else "")


def without_credentials(target: Target) -> Target:
    """`target` with no bearer and no Authorization header."""
    headers = {k: v for k, v in target.headers.items() if k.lower() != "authorization"}
    return target.with_(bearer=None, headers=headers)


def issuer_of(target: Target) -> str:
    """The origin of the server, the best guess at its authorization server's issuer for a forged `iss`."""
    parts = urlsplit(target.url or "")
    return f"{parts.scheme}://{parts.netloc}"


async def scope_refusal(ctx: CheckContext, token: str) -> Finding:
    """A real token without a scope the server needs must get 403 with error="insufficient_scope" and the scope
    wanted (MCP authorization, scope challenge; RFC 6750 section 3.1), so a client knows to step up."""
    from mcp_review.redact import remember

    remember([token])
    ctx.wire.redactor.add([token])
    what = "a real token without a scope the server needs (narrow_token_env)"
    answer = await hello_as(ctx, without_credentials(ctx.target).with_(bearer=token))
    got, seqs = answer.got, [answer.seq]
    silent = no_answer(ctx, got, what)
    if silent is not None:
        return silent
    if got.status < 300:  # on a server that takes any string, audience-validated's fail says it already
        return ctx.fail(None, f"{what} was accepted (HTTP {got.status}): scopes are not enforced", seqs, ANY_TOKEN)
    named = "insufficient_scope" in answer.challenge
    if got.status == 403 and not named:
        return ctx.fail(None, f"{what} got 403 without error=insufficient_scope: no client can tell to step up", seqs)
    if got.status != 403:
        return ctx.warn(None, f"{what} got HTTP {got.status}, not 403 insufficient_scope", seqs)
    if "scope=" not in answer.challenge:
        return ctx.warn(None, f"{what} got 403 insufficient_scope without the scope it needs (scope=...)", seqs)
    return ctx.passed(None, f"{what} got 403 insufficient_scope naming the scope needed", seqs)


def judge(ctx: CheckContext, what: str, answer: Answer) -> Finding:
    """One probe's finding: accepted (2xx) fails; refused otherwise than 401 + resource_metadata warns."""
    got = answer.got
    silent = no_answer(ctx, got, what)
    if silent is not None:
        return silent
    if got.status < 300:
        return ctx.fail(
            None,
            f"{what} was accepted (HTTP {got.status}): {answer.request} -> {got.status}",
            [answer.seq],
        )
    if got.status != 401:
        return ctx.warn(None, f"{what} got HTTP {got.status}, not 401 as the authorization spec asks", [answer.seq])
    if not _RESOURCE_METADATA.search(answer.challenge):
        return ctx.warn(None, f"{what} got 401 without WWW-Authenticate resource_metadata", [answer.seq])
    return ctx.passed(None, f"{what} got 401 with WWW-Authenticate resource_metadata", [answer.seq])


async def token_probes(ctx: CheckContext) -> AsyncIterator[Finding]:
    """review.audience-validated's probes: no token, then the forgeries and the reviewer's foreign token, each
    judged. A server that takes no token, or a random one, checks none: the rest are not sent (one fact, one fail)."""
    from mcp_review.auth.forged import Forged, forgeries
    from mcp_review.redact import remember

    bare = without_credentials(ctx.target)
    unauthorized = await hello_as(ctx, bare)
    if accepted(unauthorized.got):
        finding = judge(ctx, "no token", unauthorized)
        finding.message += "; a server that needs no token checks no token's audience: none was sent"
        finding.fact = NO_AUTHORIZATION
        yield finding
        return
    yield judge(ctx, "no token", unauthorized)
    probes = forgeries(ctx.target.url or "", issuer_of(ctx.target), ctx.target.bearer)
    foreign = ctx.options.foreign_token
    if foreign:
        probes.append(Forged("a real token issued for another resource (foreign_token_env)", str(foreign)))
    ctx.wire.redactor.add(p.token for p in probes)  # the wire log masks them like the reviewer's own token
    remember(p.token for p in probes)  # and so does every sink
    seqs = [unauthorized.seq]
    for i, probe in enumerate(probes):
        answer = await hello_as(ctx, bare.with_(bearer=probe.token))
        seqs.append(answer.seq)
        finding = judge(ctx, probe.what, answer)
        if i == 0 and accepted(answer.got):  # forgeries() sends the random string first
            finding.message += "; a server that takes any string checks no token: the forged ones were not sent"
            finding.fact = ANY_TOKEN
            yield finding
            return
        yield finding
    if not foreign:
        yield ctx.blocking(
            None,
            "no real token for another resource: a server that checks signatures but not audiences refuses "
            "every forgery (these exchanges); set foreign_token_env in your own (or a trusted) mcp-review.toml",
            seqs,
        )
