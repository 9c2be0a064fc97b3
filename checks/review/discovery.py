"""Authorization server discovery, as `review.resource-server-metadata` checks it (RFC 8414 and OpenID Connect).

Egress: the review sends nothing to a host the reviewer did not name. An authorization server named in the
protected-resource metadata is asked for its metadata only when it is on the target's own origin:
credential-less GETs of its well-known documents, on a connection of its own (guarded to that origin, no
redirects, no bearer, none of the reviewer's headers), recorded in the wire log like everything else. One on
another origin is never contacted (a hostile server could name any internal host); the rule says so as blocking.
A `resource_metadata` the 401 names on another origin is never fetched either.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from mcp_review.connection.errors import ConnectionFailed
from mcp_review.connection.probe import Prober
from mcp_review.rules.context import CheckContext
from mcp_review.untrusted import loads

NEEDED = ("issuer", "authorization_endpoint", "token_endpoint")


def metadata_urls(issuer: str) -> list[str]:
    """Where an issuer's metadata may be: RFC 8414 (path inserted), then OpenID Connect (both placements)."""
    parts = urlsplit(issuer)
    origin, path = f"{parts.scheme}://{parts.netloc}", parts.path.rstrip("/")
    urls = [f"{origin}/.well-known/{name}{path}" for name in ("oauth-authorization-server", "openid-configuration")]
    return urls + ([f"{origin}{path}/.well-known/openid-configuration"] if path else [])


@dataclass(frozen=True)
class Discovered:
    """What an authorization server answered: its metadata (None when no location answered), where, the exchanges."""

    issuer: str
    metadata: dict[str, Any] | None
    where: str
    seqs: list[int]

    def problem(self) -> str | None:
        """Why a client could not use this server, or None."""
        if self.metadata is None:
            return f"authorization server {self.issuer[:200]} does not answer discovery (RFC 8414 or OpenID)"
        missing = [k for k in NEEDED if not isinstance(self.metadata.get(k), str)]
        if missing:
            return f"authorization server metadata at {self.where} lacks {', '.join(missing)}"
        if "S256" not in (self.metadata.get("code_challenge_methods_supported") or []):
            return f"authorization server metadata at {self.where} does not list PKCE S256 (MCP requires it)"
        return None


async def first_document(p: Prober, urls: list[str]) -> tuple[dict[str, Any] | None, str, list[int]]:
    """GET `urls` in order until one answers 200 with a JSON object: (it, its URL, the exchanges tried)."""
    seqs: list[int] = []
    for url in urls:
        try:
            ex = await p.http("GET", url, omit=["Content-Type"])
        except ConnectionFailed:
            break  # refused, gone or timed out: the note is in the wire log
        seqs.append(ex.seq)
        try:
            doc = loads(ex.body) if ex.status == 200 else None
        except ValueError:
            doc = None
        if isinstance(doc, dict):
            return doc, url, seqs
    return None, "", seqs


async def discover(ctx: CheckContext, issuer: str) -> Discovered:
    """`issuer`'s metadata, from a credential-less connection to its origin."""
    async with ctx.probe(ctx.target.with_(url=issuer, bearer=None, headers={})) as p:
        doc, where, seqs = await first_document(p, metadata_urls(issuer))
    return Discovered(issuer, doc, where, seqs)
