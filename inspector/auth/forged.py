"""Tokens a resource server must refuse, for `review.audience-validated`'s probes.

Each is a JWT access token (RFC 9068) shaped like the reviewer's own when that is a JWT (its header's `alg`
family and `kid`, its claims), signed with a key made here and thrown away, so no server can trust it: one with
every claim valid, one expired, one for another audience. A server that accepts the first checks no signature;
one that accepts the others checks no signature and, besides, no expiry or no audience. PyJWT (with
`cryptography`, both already required by the `mcp` SDK) signs them: a maintained JOSE implementation rather than
hand-built base64 and RSA.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any

from mcp_review.redact import remember


@dataclass(frozen=True)
class Forged:
    """A token to send and what it is, in words for a finding."""

    what: str
    token: str


def claims_of(token: str | None) -> dict[str, Any]:
    """The claims of a JWT, unverified (they are only copied into forgeries), or {} for anything else."""
    import jwt

    if not token or token.count(".") != 2:
        return {}
    try:
        claims = jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError:
        return {}
    return claims if isinstance(claims, dict) else {}


def forgeries(resource: str, issuer: str, reviewer_token: str | None = None) -> list[Forged]:
    """A random string and three JWTs signed by an untrusted key: valid claims, expired, another audience.

    `resource` is the server's URL (the audience a valid token names), `issuer` its authorization server as far
    as the review knows. Every token is registered with `redact`, so the wire log and every output mask it.
    """
    import jwt
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    header = _header_of(reviewer_token)
    now = int(time.time())
    base = {"iss": issuer, "sub": "mcp-review", "aud": resource, "scope": "", "iat": now, "exp": now + 3600}
    base |= {k: v for k, v in claims_of(reviewer_token).items() if k in ("iss", "sub", "scope", "client_id", "azp")}

    def sign(**changes: Any) -> str:
        return jwt.encode({**base, "jti": secrets.token_hex(8), **changes}, key, algorithm="RS256", headers=header)

    made = [
        Forged("a random string", f"mcp-review-made-up-{secrets.token_hex(12)}"),
        Forged("a JWT signed by a key the server does not trust", sign()),
        Forged("an expired JWT (signed by an untrusted key)", sign(iat=now - 7200, exp=now - 3600)),
        Forged(
            "a JWT for another audience (signed by an untrusted key)",
            sign(aud=f"https://mcp-review.invalid/other-{secrets.token_hex(4)}"),
        ),
    ]
    remember(f.token for f in made)
    return made


def _header_of(token: str | None) -> dict[str, Any]:
    """The reviewer's token's `kid` and `typ`, so a forgery names the key a careless server looks up."""
    import jwt

    if not claims_of(token):
        return {"typ": "at+jwt"}
    try:
        header = jwt.get_unverified_header(str(token))
    except jwt.PyJWTError:
        return {"typ": "at+jwt"}
    return {k: str(header[k])[:200] for k in ("kid", "typ") if k in header}
