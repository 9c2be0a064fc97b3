"""What `review.audience-validated` sends a resource server, and how it reads each answer.

Every probe is the era's handshake on a fresh connection with one credential a server must refuse; the answer
must be 401 with a `WWW-Authenticate` that names `resource_metadata` (MCP authorization, RFC 9728 section 5.1).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from checks.context import CheckContext
from inspector.review import Finding
from inspector.targets import Target

_RESOURCE_METADATA = re.compile(r"resource_metadata\s*=", re.IGNORECASE)


def no_answer(ctx: CheckContext, got: Any, what: str) -> Finding | None:
    """A `blocking` finding when a probe got no HTTP status at all: no answer proves nothing."""
    if got.status is not None:
        return None
    return ctx.blocking(None, f"{what} got no answer ({got.failure}): a longer --timeout would verify it", [got.seq])


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
    from inspector.redact import remember

    remember([token])
    ctx.wire.redactor.add([token])
    what = "a real token without a scope the server needs (narrow_token_env)"
    answer = await hello_as(ctx, without_credentials(ctx.target).with_(bearer=token))
    got, seqs = answer.got, [answer.seq]
    silent = no_answer(ctx, got, what)
    if silent is not None:
        return silent
    if got.status < 300:
        return ctx.fail(None, f"{what} was accepted (HTTP {got.status}): scopes are not enforced", seqs)
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
