"""Refresh a stored access token that has expired (or is about to) before `--url` uses it.

RFC 6749 §6 (`grant_type=refresh_token`) with the RFC 8707 `resource` of the server, authenticated as the
client registered at login. The pieces are the `mcp` SDK's, the ones its own refresh uses: `OAuthContext`
picks the `resource` (the server's URL, or the protected resource its metadata names) and adds the client's
credentials the way it registered (`none`, `client_secret_post` or `client_secret_basic`); `OAuthToken` reads
the answer. The SDK's provider refreshes only inside an httpx2 flow it drives itself, which `list`, `check`
and the app (our own transports) do not use, so the request is made here, with httpx2.

Egress: one POST, to the token endpoint recorded at login for this server, nowhere else. Reaching it is safe:
the URL came from the authorization server's metadata, which the server's own protected-resource metadata
named, during a login the reviewer started (`login.authorized_client` let no request leave those origins),
and it is read from the reviewer's token store, not from anything a server sends now. No redirect is
followed, the proxy environment is ignored, the answer is read within bounds, and a metadata or link-local
address is never contacted (`egress.check_url`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from typing import Any

from mcp_review.auth import store
from mcp_review.auth.login import StoredTokens, keep_tokens
from mcp_review.connection.egress import EgressRefused, check_url, tls_context
from mcp_review.redact import scrub

EARLY = 30  # seconds before its `exp` a token counts as expired: it must outlive the request it goes with
MAX_ANSWER = 64 * 1024  # bytes of the token endpoint's answer read


class RefreshFailed(Exception):
    """The stored token expired and could not be refreshed; the message says why (never a token)."""


def usable_token(url: str, *, verify: bool | str = True, timeout: float = 30.0) -> str | None:
    """The stored access token for `url`, refreshed first when its expiry has passed or is less than EARLY
    seconds away; None when no token is stored. Raises `RefreshFailed` when a refresh was needed and failed."""
    entry = store.get(url)
    token = (entry.get("tokens") or {}).get("access_token")
    if not token:
        return None
    exp = (entry.get("claims") or {}).get("exp")
    if not isinstance(exp, int | float) or exp > time.time() + EARLY:
        return str(token)
    try:
        _refresh(url, entry, verify, timeout)
    except RefreshFailed as e:
        raise RefreshFailed(f"the stored token for {url} expired and refreshing it failed: {e}") from e
    return store.access_token(url)


def _refresh(url: str, entry: dict[str, Any], verify: bool | str, timeout: float) -> None:
    """One refresh grant at the recorded token endpoint; the store gets the new tokens (atomically)."""
    import httpx2
    from mcp.client.auth import OAuthTokenError
    from mcp.client.auth.oauth2 import OAuthContext
    from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken, ProtectedResourceMetadata

    tokens, client = entry.get("tokens") or {}, entry.get("client")
    metadata = entry.get("metadata") or {}
    endpoint = (metadata.get("server") or {}).get("token_endpoint")
    if not (tokens.get("refresh_token") and client and endpoint):
        raise RefreshFailed("the login recorded no refresh token, client or token endpoint")
    resource = metadata.get("resource")
    try:
        info = OAuthClientInformationFull.model_validate(client)
        context = OAuthContext(
            server_url=url,
            client_metadata=OAuthClientMetadata.model_construct(),  # what to register: not read here
            storage=StoredTokens(url),
            redirect_handler=None,
            callback_handler=None,
            client_info=info,
            protected_resource_metadata=ProtectedResourceMetadata.model_validate(resource) if resource else None,
        )
        grant = {"grant_type": "refresh_token", "refresh_token": str(tokens["refresh_token"])}
        grant |= {"client_id": info.client_id, "resource": context.get_resource_url()}
        data, headers = context.prepare_token_auth(grant, {"Content-Type": "application/x-www-form-urlencoded"})
    except (ValueError, OAuthTokenError) as e:  # a stored client or metadata the SDK cannot use
        raise RefreshFailed(f"the client recorded at login is unusable ({type(e).__name__})") from e
    try:
        check_url(str(endpoint))
    except EgressRefused as e:
        raise RefreshFailed(str(e)) from e
    try:
        with (
            httpx2.Client(trust_env=False, verify=tls_context(verify), timeout=timeout, follow_redirects=False) as http,
            http.stream("POST", str(endpoint), data=data, headers=headers) as response,
        ):
            status, body = response.status_code, _bounded(response.iter_bytes())
    except (httpx2.HTTPError, OSError) as e:  # OSError: an unreadable `--ca` file
        raise RefreshFailed(f"{type(e).__name__} at {str(endpoint)[:200]}") from e
    if status != 200:
        raise RefreshFailed(f"the authorization server answered HTTP {status}{_error_code(body)}")
    try:
        new = OAuthToken.model_validate_json(body)
    except ValueError as e:
        raise RefreshFailed("the authorization server's answer is not a token response") from e
    # RFC 6749 §6: an answer may omit the refresh token (not rotated) and the scope (unchanged): keep them.
    new.refresh_token = new.refresh_token or tokens["refresh_token"]
    new.scope = new.scope or tokens.get("scope")
    keep_tokens(url, new)


def _bounded(chunks: Iterable[bytes]) -> bytes:
    body = b""
    for chunk in chunks:
        body += chunk
        if len(body) > MAX_ANSWER:
            raise RefreshFailed(f"the authorization server's answer is over {MAX_ANSWER} bytes")
    return body


def _error_code(body: bytes) -> str:
    """The RFC 6749 §5.2 `error` code of a refusal, as short masked text, if it has one."""
    try:
        error = json.loads(body).get("error")
    except (ValueError, AttributeError, RecursionError):
        return ""
    return f" ({scrub(str(error))[:80]!r})" if error else ""
