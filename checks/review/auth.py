"""Pack `review` (seed 003), security over HTTP: tokens, resource-server metadata, transport, one origin."""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator, Iterator
from typing import Any

from mcp_review.checks.review.bearer import (
    NO_AUTHORIZATION,
    accepted,
    hello_as,
    no_answer,
    not_refused,
    scope_refusal,
    token_probes,
    without_credentials,
)
from mcp_review.checks.review.common import SEED
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule
from mcp_review.targets import masked_args, secret_arg_positions


def _credential_value(args: tuple[str, ...], i: int) -> bool:
    """Does argument `i` (a credential by its name, see `secret_arg_positions`) hold a secret itself, rather
    than where to find one (`--token-file PATH`, `--api-key-env VAR`, `--token=$TOKEN`)?"""
    arg = args[i]
    name, _, value = arg.partition("=") if "=" in arg else (args[i - 1], "", arg)
    where = any(word in name.lower() for word in ("file", "path", "env", "var", "dir", "url", "cmd", "command"))
    pointer = value.startswith(("/", "./", "../", "~", "$", "%")) or os.path.exists(value)
    return bool(value) and not where and not pointer and value.lower() not in ("true", "false", "none", "null")


@rule(
    "review.audience-validated",
    concern="security",
    severity="high",
    modes=("probe",),
    source=f"{SEED} Security: audience-validated",
    transport="http",
)
async def audience_validated(ctx: CheckContext) -> AsyncIterator[Finding]:
    """HTTP: the server refuses every token it did not issue for itself, with 401 naming its metadata.

    What it checks: probe, each on a fresh connection with the handshake: no token; a random string; a
    well-formed JWT signed by a key the server cannot trust (claims copied from the reviewer's token when that
    is a JWT); the same expired; the same for another audience; and, when the reviewer supplies one
    (`foreign_token_env` in the reviewer's own or a trusted mcp-review.toml, e.g. from a second login at the same
    authorization server; a repository's untrusted config cannot name one), a real
    token issued for another resource. Each must get 401 with a `WWW-Authenticate` that names
    `resource_metadata`. The forged tokens are masked in the wire log and every output like the reviewer's own.

    Why: seed 003 audience-validated (MCP 2025-11-25 authorization, RFC 8707, RFC 9068): a resource server must
    validate that a token was issued for it, by its authorization server, and is still valid; one that does not
    accepts tokens minted for any other service, so a token leaked from one server opens this one.

    Spec: 2025-11-25 authorization (RFC 8707 / RFC 9068)

    One fact, one fail: a server that accepts a request without any token checks no token, so the tokens are not
    sent and the finding points to review.transport-config, whose fail states that fact (n/a "settled by" it when
    that rule failed for it, else this fail stands); a server that accepts a random string checks none either, so
    the forged tokens are not sent (its fail also settles review.resource-server-metadata's accepted narrow token).

    Known false positives: none for a fail: an accepted probe is quoted from the wire. A server meant to be
    public (no authorization at all) gets one fail, review.transport-config's; that is a decision to waive, with
    the reason. A forged JWT tests expiry and audience only on a server that skips the signature: a server that
    checks signatures but not audiences refuses every forgery, which is why a real token for another resource is
    asked for (blocking without it, unless a fail of this rule already decides it).

    Passes: every probe refused with 401 and resource_metadata. Fails: any probe accepted (2xx). Warns: refused
    with another status, or a 401 that does not name resource_metadata. Blocking: a probe got no answer, or no
    real token for another resource was supplied. n/a on stdio, and where review.transport-config's fail settles
    it.

    To verify when blocking: set foreign_token_env in your own mcp-review.toml ($XDG_CONFIG_HOME/mcp-review/, or
    the repository's once you ran `mcp-review trust` on it) to an environment variable holding a
    real token issued by the same authorization server for another resource (log in a second time with another
    `resource`), or a longer --timeout when a probe got no answer.
    """
    async for finding in token_probes(ctx):
        yield finding


@rule(
    "review.no-token-passthrough",
    concern="security",
    severity="high",
    modes=("manual", "observe"),
    source=f"{SEED} Security: no-token-passthrough",
    transport="http",
)
def no_token_passthrough(ctx: CheckContext) -> Iterator[Finding]:
    """HTTP: client tokens are never forwarded upstream.

    What it checks: manual: nothing on the wire shows which token the server sends upstream; a reviewer reads
    the upstream calls in the source and attests. What the wire can give is evidence for the reviewer: observe,
    after the review's calls, whether the client's bearer token came back in what the server sent (an echoed
    `Authorization`, shown masked), which warns and cites those messages. n/a on stdio.

    Why: seed 003 no-token-passthrough (MCP 2025-11-25 authorization): upstream calls use a token the server
    obtained as its own OAuth client; passing the client's token through is a confused-deputy exfiltration path,
    explicitly forbidden.

    Spec: 2025-11-25 authorization

    Known false positives: none for a fail: the rule never fails by itself; only a reviewer's attestation decides.
    The warning is evidence, not proof: a debugging tool that shows the caller its own token warns too.

    Passes: attested. Fails: a reviewer attests that tokens are passed through. Warns: the bearer token came back
    in the server's messages. Blocking: until attested.

    To verify when blocking: an [[attest]] entry for review.no-token-passthrough in mcp-review.toml (or the TUI),
    with a note naming what was read.
    """
    if ctx.target.bearer:
        echoed = [e.seq for e in ctx.wire.entries[:MAX_SCANNED] if e.direction == "recv" and _echoes_bearer(e.message)]
        if echoed:
            yield ctx.warn(
                None,
                f"the client's bearer token came back in {len(echoed)} server message(s) (masked here): "
                "a server that holds it may send it upstream; read its upstream calls",
                echoed[:10],
            )
    yield from ctx.manual("the server never forwards the client's token to upstream APIs.")


MAX_SCANNED = 20_000  # wire entries read for an echoed token (a flood is not read to its end)
_ECHOED = re.compile(r'bearer\s+\*\*\*|"authorization"\s*:\s*"\*\*\*', re.IGNORECASE)


def _echoes_bearer(message: Any) -> bool:
    """A received message that shows the bearer token (already masked by the wire log) as an Authorization value."""
    import json

    return isinstance(message, dict) and bool(_ECHOED.search(json.dumps(message, ensure_ascii=False)[:200_000]))


@rule(
    "review.resource-server-metadata",
    concern="security",
    severity="medium",
    modes=("probe",),
    source=f"{SEED} Security: resource-server-metadata",
    transport="http",
)
async def resource_server_metadata(ctx: CheckContext) -> AsyncIterator[Finding]:
    """HTTP: RFC 9728 metadata is served, a 401 carries `WWW-Authenticate` with `resource_metadata`, and the
    authorization servers it names answer discovery.

    What it checks: probe, on fresh connections: the handshake without credentials must get 401 with
    `WWW-Authenticate: Bearer resource_metadata=...` (a `scope` hint is expected too); the metadata document (from
    the header when it names the target's origin, else /.well-known/oauth-protected-resource{path}, then the root)
    is fetched with GET and must be JSON with a non-empty list `authorization_servers` and a `resource` equal to
    the server's URL. Each authorization server it names (the first 3) must answer discovery: RFC 8414 metadata,
    else OpenID Connect's, with issuer, authorization and token endpoints and PKCE S256. A `resource_metadata` on
    another origin is never fetched; an authorization server on the target's origin is asked for its metadata
    only, on a connection of its own without any credential (see checks/review/discovery.py); one on another origin
    is never contacted (a host the reviewer did not name), so the finding is blocking. When the
    reviewer supplies a real token without a scope the server needs (`narrow_token_env` in the reviewer's own or a
    trusted mcp-review.toml), it
    must get 403 with `error="insufficient_scope"` and the scope wanted, so a client can step up.

    Why: seed 003 resource-server-metadata (RFC 9728, RFC 8414; MCP 2025-06-18 / 2025-11-25): clients find the
    authorization server through this document and the 401 challenge; without them, or with an authorization
    server that answers no discovery, a client cannot obtain a token the standard way.

    Spec: 2025-06-18 / 2025-11-25 (RFC 9728, RFC 8414)

    One fact, one fail: a server that accepts a request without a token has no 401 to carry the challenge; that
    fact is review.transport-config's fail, so this one is n/a "settled by" it (a fail when that rule did not fail
    for it). A narrow token accepted by a server that takes any string is review.audience-validated's fail likewise.

    Known false positives: a server that is public on purpose (MCP makes authorization optional), or a loopback
    development server without authorization, fails review.transport-config (this rule points to it): that is
    seed 003's MUST for HTTP servers; waive it with the reason. A handshake that got no answer is blocking, not a
    fail. A server reached through a proxy under another URL than its metadata's `resource` fails on the resource;
    review it at the URL its clients use.

    Passes: a 401 challenge with resource_metadata and a scope hint, metadata for this resource with
    authorization_servers, each answering discovery. Fails: no 401, no header, no document, a malformed one,
    another resource, an authorization server without usable metadata, a narrow token accepted or refused with a
    403 that does not say insufficient_scope. Warns: a narrow token's 403 that names no scope; no scope hint; metadata
    advertised on another origin but served at the target's well-known location. Blocking: the header names
    another origin and the target serves no metadata of its own, or an authorization server is on another origin
    (never contacted). n/a on stdio.

    To verify when blocking: a reviewer fetches the document the header names (on its other origin), checks its
    `authorization_servers`, and waives the finding with a note; or the server also serves it at its own well-known
    location. For an authorization server on another origin: the reviewer checks its RFC 8414 / OpenID discovery
    document (issuer, authorization and token endpoints, PKCE S256) and attests it with a waiver note.
    """
    import re
    from urllib.parse import urlsplit

    from mcp_review.checks.review.discovery import discover, first_document
    from mcp_review.connection.egress import same_origin

    answer = await hello_as(ctx, without_credentials(ctx.target))
    bare = answer.got
    silent = no_answer(ctx, bare, "a request without a token")
    if silent is not None:
        yield silent
        return
    if bare.status != 401:
        yield ctx.fail(
            None,
            f"no 401 challenge (HTTP {bare.status} without a token): no WWW-Authenticate to find the metadata by",
            [answer.seq],
            fact=NO_AUTHORIZATION if accepted(bare) else None,
        )
        return
    header = answer.challenge
    match = re.search(r'resource_metadata="?([^",\s]+)', header)
    parts = urlsplit(ctx.target.url or "")
    advertised = match.group(1) if match else None
    elsewhere = advertised if advertised and not same_origin(advertised, ctx.target.url or "") else None
    candidates = [advertised] if advertised and not elsewhere else []
    candidates += [
        f"{parts.scheme}://{parts.netloc}/.well-known/oauth-protected-resource{parts.path.rstrip('/')}",
        f"{parts.scheme}://{parts.netloc}/.well-known/oauth-protected-resource",
    ]
    async with ctx.probe(ctx.target.with_(bearer=None)) as p:
        doc, where, seqs = await first_document(p, candidates)
    seq = seqs[-1] if seqs else None
    servers = doc.get("authorization_servers") if doc else None
    issuers: list[str] = servers if isinstance(servers, list) and all(isinstance(s, str) for s in servers) else []
    found = bool(issuers)
    away = f"the 401's resource_metadata names another origin ({elsewhere}), which mcp-review does not fetch"
    if elsewhere and not found:
        yield ctx.blocking(None, f"{away}; none at the target's well-known location either", [answer.seq, seq])
        return
    problems = [] if match else ["the 401 has no WWW-Authenticate resource_metadata"]
    remote: list[str] = []
    if doc and not found:
        problems.append(f"malformed metadata at {where}: authorization_servers is not a list of URLs")
    elif doc is None or not found:  # (found means a doc was read: the first test is for the type checker)
        problems.append("no protected-resource metadata with authorization_servers")
    elif str(doc.get("resource", "")).rstrip("/") != (ctx.target.url or "").rstrip("/"):
        problems.append(f"metadata at {where} names resource {str(doc.get('resource'))[:200]!r}, not the server's URL")
    else:
        for issuer in issuers[:3]:
            if not same_origin(issuer, ctx.target.url or ""):
                remote.append(issuer[:200])  # a host the reviewer did not name: never contacted
                continue
            discovered = await discover(ctx, issuer)
            seqs += discovered.seqs
            if discovered.metadata is not None:
                ctx.authorization_servers[issuer] = (discovered.metadata, discovered.seqs)
            if problem := discovered.problem():
                problems.append(problem)
    if problems:
        yield ctx.fail(None, "; ".join(problems), [answer.seq, *seqs])
    elif remote:
        yield ctx.blocking(
            None,
            f"metadata at {where} names authorization server(s) on another origin, which mcp-review does not "
            f"contact (a host the reviewer did not name): {', '.join(remote)}",
            [answer.seq, *seqs],
        )
    elif elsewhere:
        yield ctx.warn(None, f"{away}; metadata is served at {where}", [answer.seq, seq])
    elif "scope=" not in header:
        yield ctx.warn(None, f"metadata served at {where}, but the 401 challenge has no scope hint", [answer.seq])
    else:
        yield ctx.passed(
            None, f"401 challenge, metadata at {where}, authorization servers answer discovery", [answer.seq, *seqs]
        )
    if ctx.options.narrow_token:
        yield await scope_refusal(ctx, str(ctx.options.narrow_token))


@rule(
    "review.transport-config",
    concern="security",
    severity="medium",
    modes=("static", "probe"),
    source=f"{SEED} Security: transport-config",
)
async def transport_config(ctx: CheckContext) -> AsyncIterator[Finding]:
    """stdio: credentials come from the environment; HTTP: HTTPS, a bearer on every request, none in the query.

    What it checks: stdio (static): the launch command's arguments must not carry credentials (`--token X`,
    `password=...`: an argument containing token, secret, password, passwd, api-key, apikey, api_key or credential,
    with `=` or followed by a value). HTTP (probe, fresh connections): the URL must be https (plain http on a
    loopback address warns); a request without the bearer must get 401; with a bearer configured, a request with the
    token in the query string (`access_token=`) instead of the header must get 401.

    Why: seed 003 transport-config (MCP 2025-11-25 authorization): command-line arguments are readable by every
    local process and land in logs, so stdio credentials come from the environment; plain HTTP exposes bearer
    tokens; a token in a query string leaks through logs, history and Referer headers.

    Spec: 2025-11-25 authorization

    This rule owns the fact "a request without a token is accepted" (seed 003 transport-config's own MUST, shown by
    its probe): review.audience-validated and review.resource-server-metadata fail for it too and point here instead
    (n/a "settled by review.transport-config"), so a server without authorization gets this one fail.

    Known false positives: a server that is public on purpose fails ("a request without Authorization was
    accepted"): that is seed 003's MUST for HTTP servers; waive it with the reason (one waiver: the rules that
    point here are n/a). Only 127.0.0.1, localhost
    and ::1 count as loopback: plain http on 127.0.0.2 or a LAN address fails. Not flagged as fails: an
    argument named like a credential that holds a path or a variable (`--token-file PATH`,
    `--api-key-env VAR`, `--token=$TOKEN`) only warns; a refusal with another status than 401 warns; a
    probe that got no answer is blocking.

    Passes: no credentials on the command line (stdio); HTTPS, 401 without a bearer, query-string token refused
    (HTTP). Fails: a credential in the arguments, a non-local plain-HTTP URL, a request accepted (2xx) without the
    header or with a query-string token. Warns: plain HTTP on a loopback address; a refusal that is not 401; an
    argument named like a credential holding a path or variable. Blocking: a probe got no answer.

    To verify when blocking: a longer --timeout, on a server that answers.
    """
    if not ctx.is_http:
        named = secret_arg_positions(ctx.target.args)
        leaks = [i for i in named if _credential_value(ctx.target.args, i)]
        conn = ctx.session.channel.conn if ctx.session.channel else None
        started = next((e.seq for e in ctx.wire.entries if e.direction == "note" and e.conn == conn), None)
        shown = ", ".join(masked_args(ctx.target.args)[i] for i in (leaks or named)[:3])
        if leaks:
            yield ctx.fail(
                None, f"credentials passed as command-line arguments ({shown}): use the environment", [started]
            )
        elif named:
            yield ctx.warn(
                None,
                f"arguments named like credentials ({shown}) hold a path or a variable, not a secret: "
                "check they do not carry one",
                [started],
            )
        else:
            yield ctx.passed(None, "no credentials on the command line (stdio takes them from the environment)")
        return
    from urllib.parse import urlsplit

    parts = urlsplit(ctx.target.url or "")
    local = parts.hostname in ("127.0.0.1", "localhost", "::1")
    if parts.scheme != "https" and not local:
        yield ctx.fail(None, f"served over {parts.scheme}, not HTTPS")
        return
    bare = (await hello_as(ctx, without_credentials(ctx.target))).got
    ended = not_refused(ctx, bare, "a request without Authorization", NO_AUTHORIZATION)
    if ended is not None:
        yield ended
        return
    refusal = "401" if bare.status == 401 else f"HTTP {bare.status} (the spec asks for 401)"
    seqs = [bare.seq]
    if ctx.target.bearer:
        sep = "&" if parts.query else "?"
        leaky = ctx.target.with_(bearer=None, url=f"{ctx.target.url}{sep}access_token={ctx.target.bearer}")
        query = (await hello_as(ctx, leaky)).got
        ended = not_refused(ctx, query, "a token in the query string")
        if ended is not None:
            yield ended
            return
        seqs.append(query.seq)
    message = f"{refusal} without a bearer" + ("; query-string token refused" if ctx.target.bearer else "")
    if bare.status != 401:
        yield ctx.warn(None, message, seqs)
        return
    yield (
        ctx.warn(None, f"plain HTTP on a loopback address; {message}", seqs)
        if parts.scheme != "https"
        else (ctx.passed(None, f"HTTPS; {message}", seqs))
    )


@rule(
    "review.same-origin",
    concern="security",
    severity="high",
    modes=("observe",),
    source=f"{SEED} Security: transport-config",
    transport="http",
    needs_server=False,
)
def same_origin(ctx: CheckContext) -> Iterator[Finding]:
    """HTTP: every URL the server sends the client to stays on the origin the reviewer named.

    What it checks: observe: every request mcp-review refused during the review (the main connection and every
    probe), with the wire entry that names the URL. mcp-review sends nothing to any origin but the target's, so it
    refuses such a request and records it (the official `mcp` SDK's SSE client refuses such an endpoint too).

    Why: seed 003 transport-config: a client sends its credentials where the server tells it to. An SSE `endpoint`
    event that names another host makes a client POST every message, bearer token included, to that host; a redirect
    to another origin does the same for clients that follow redirects.

    Spec: 2024-11-05 HTTP+SSE endpoint; the mcp SDK refuses another origin

    Known false positives: a deployment that really serves its message endpoint from another host (a separate API
    domain) is flagged; waive it with the reason if that host is trusted.

    Passes: nothing pointed elsewhere. Fails: an SSE endpoint on another origin. Warns: a redirect to another origin
    (a redirect is allowed by HTTP; following it with credentials is the risk). n/a on stdio.
    """
    refused = ctx.wire.refusals
    if not refused:
        yield ctx.passed(None, "every request stayed on the target's origin")
        return
    described = "; ".join(f"{r.what} to {r.url[:120]}" for r in refused[:5])
    seqs = [r.seq for r in refused]
    if any(r.what == "endpoint" for r in refused):
        yield ctx.fail(None, f"the server sent the client to another origin (refused): {described}", seqs)
    else:
        yield ctx.warn(None, f"the server pointed the client to another origin (not followed): {described}", seqs)
