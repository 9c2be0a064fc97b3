"""Log in to an OAuth-protected MCP server: discovery, registration, authorization code + PKCE, tokens.

The `mcp` SDK's `OAuthClientProvider` runs the flow (RFC 9728 discovery from the 401, RFC 8414 / OpenID
metadata, Client ID Metadata Document or RFC 7591 registration, authorization code with PKCE S256 and the RFC
8707 `resource`, refresh, step-up on 403 insufficient_scope), and its `ClientCredentialsOAuthProvider` the
client-credentials grant: the SDK is maintained against the MCP authorization spec itself, which authlib (a
general OAuth library) is not, so its discovery order and resource checks follow each spec revision. What is
ours: the browser step (open the browser, always print the URL, catch the redirect on a loopback port, or read
the pasted redirect URL with `no_browser`), where tokens are kept (`store`), and the egress rule: the flow may
only reach the server's origin and the authorization server its own metadata names (its endpoints included),
and never a cloud metadata or link-local address (`egress.check_url`), whoever names it.
The SDK is imported inside the functions: the core loads without it (tests/unit/test_layers.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import webbrowser
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from mcp_review.auth import store
from mcp_review.auth.forged import claims_of
from mcp_review.connection.egress import EgressRefused, check_url
from mcp_review.redact import remember

WAIT_FOR_BROWSER = 300.0  # seconds the loopback listener waits for the redirect
# The SDK logs a failed flow with its traceback ("OAuth flow error"), which Python prints to stderr when nothing
# handles it: the reason reaches the reviewer as one line (`LoginFailed`), so its log goes nowhere.
QUIET = logging.NullHandler()
DONE_PAGE = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nmcp-review: logged in; close this tab.\n"
)


@dataclass
class Browser:
    """The browser step: `say` always prints the URL; `open` opens it unless `paste` (then `ask` reads the
    redirect URL the reviewer pastes back). Tests replace `open` with a fetch of the URL."""

    say: Callable[[str], None] = print
    open: Callable[[str], Any] = webbrowser.open
    ask: Callable[[str], str] = input
    paste: bool = False
    steps: list[str] = field(default_factory=list)  # the flow as it happens, for the app's Auth view

    def step(self, text: str) -> None:
        self.steps.append(text)
        self.say(text)


@contextlib.asynccontextmanager
async def loopback() -> AsyncIterator[tuple[str, asyncio.Queue[str]]]:
    """A listener on 127.0.0.1: (its redirect URI, the queue of redirects' request targets). A session may log
    in more than once (a step-up asks for more scopes), so each redirect is queued, not just the first."""
    got: asyncio.Queue[str] = asyncio.Queue(maxsize=8)

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(Exception):
            line = (await asyncio.wait_for(reader.readline(), 10)).decode("latin-1")[:8000]
            parts = line.split(" ")
            if len(parts) >= 2 and parts[1].startswith("/callback"):
                got.put_nowait(parts[1])
            writer.write(DONE_PAGE)
            await writer.drain()
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/callback", got
    finally:
        server.close()


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def allowed_origins(url: str, context: Any) -> set[str]:
    """The server's origin and those its own metadata names: its authorization servers and their endpoints."""
    allowed = {origin(url)}
    prm = context.protected_resource_metadata
    allowed |= {origin(str(s)) for s in (prm.authorization_servers if prm else [])}
    meta = context.oauth_metadata
    if meta is not None:
        ends = (meta.issuer, meta.authorization_endpoint, meta.token_endpoint, meta.registration_endpoint)
        allowed |= {origin(str(e)) for e in ends if e}
    return allowed


def keep_tokens(url: str, tokens: Any) -> None:
    """Store the SDK's `OAuthToken` for `url` with what it says about itself (scope, audience, expiry, issuer),
    its secrets registered with `redact` first. The login's and `refresh`'s one way in."""
    remember(t for t in (tokens.access_token, tokens.refresh_token) if t)
    claims = claims_of(tokens.access_token)
    expires = claims.get("exp") or (int(time.time()) + tokens.expires_in if tokens.expires_in else None)
    shown = {"scope": tokens.scope or claims.get("scope"), "aud": claims.get("aud"), "exp": expires}
    shown["iss"] = claims.get("iss")
    store.put(url, tokens=tokens.model_dump(mode="json", exclude_none=True), claims=shown)


class StoredTokens:
    """The SDK's `TokenStorage` on `store`: tokens and the registered client per server URL."""

    def __init__(self, url: str) -> None:
        self.url = url

    async def get_tokens(self) -> Any:
        from mcp.shared.auth import OAuthToken

        saved = store.get(self.url).get("tokens")
        return OAuthToken.model_validate(saved) if saved else None

    async def set_tokens(self, tokens: Any) -> None:
        keep_tokens(self.url, tokens)

    async def get_client_info(self) -> Any:
        from mcp.shared.auth import OAuthClientInformationFull

        saved = store.get(self.url).get("client")
        return OAuthClientInformationFull.model_validate(saved) if saved else None

    async def set_client_info(self, client_info: Any) -> None:
        store.put(self.url, client=client_info.model_dump(mode="json", exclude_none=True))


async def login(
    url: str,
    browser: Browser | None = None,
    *,
    scope: str | None = None,
    client_id: str | None = None,
    client_secret: str | None = None,
    client_metadata_url: str | None = None,
) -> str:
    """Run the flow for the MCP server at `url`; store and return the access token.

    With `client_id` and `client_secret`, the client-credentials grant (for CI); else the authorization code
    flow with the browser step, where the client is, in this order: `client_metadata_url` (a Client ID Metadata
    Document) when given and the authorization server advertises `client_id_metadata_document_supported`, else
    the client stored at an earlier login, else one registered now (RFC 7591). Raises `LoginFailed`."""
    browser = browser or Browser()
    client = {"client_id": client_id, "client_secret": client_secret, "client_metadata_url": client_metadata_url}
    async with authorized_client(url, browser, scope=scope, **client) as http:
        await _trigger(url, http)
    token = store.access_token(url)
    if not token:
        raise LoginFailed("the flow ended without an access token")
    browser.step("logged in: token stored")
    return token


@contextlib.asynccontextmanager
async def authorized_client(
    url: str,
    browser: Browser,
    *,
    scope: str | None = None,
    client_id: str | None = None,
    client_secret: str | None = None,
    client_metadata_url: str | None = None,
) -> AsyncIterator[Any]:
    """An httpx2 client that logs in to `url` when a request needs it (a 401, or a 403 insufficient_scope: the
    SDK's step-up) and refreshes its token; for a whole MCP session (the SDK's `streamable_http_client`)."""
    import httpx2

    logging.getLogger("mcp.client.auth").addHandler(QUIET)  # the same handler: added once
    async with loopback() as (redirect, callback):
        client = (client_id, client_secret, client_metadata_url)
        provider = _provider(url, browser, redirect, callback, scope, *client)

        async def guard(request: Any) -> None:
            if origin(str(request.url)) not in allowed_origins(url, provider.context):
                raise LoginFailed(f"refused to send a request to {str(request.url)[:200]}: not named by the server")
            try:  # never a metadata or link-local address, whoever named it
                await asyncio.to_thread(check_url, str(request.url))
            except EgressRefused as e:
                raise LoginFailed(str(e)) from e
            browser.step(f"{request.method} {str(request.url)[:200]}")

        async with httpx2.AsyncClient(auth=provider, trust_env=False, event_hooks={"request": [guard]}) as http:
            yield http
        _keep_metadata(url, provider.context)


def _keep_metadata(url: str, context: Any) -> None:
    """What discovery found (no secret in it), for the app's Auth view: the resource's and the AS's metadata."""
    found = {
        name: meta.model_dump(mode="json", exclude_none=True)
        for name, meta in (("resource", context.protected_resource_metadata), ("server", context.oauth_metadata))
        if meta is not None
    }
    if found and store.get(url):
        store.put(url, metadata=found)


class LoginFailed(Exception):
    """The flow stopped; the message says where."""


def _provider(
    url: str,
    browser: Browser,
    redirect: str,
    callback: asyncio.Queue[str],
    scope: str | None,
    client_id: str | None,
    client_secret: str | None,
    client_metadata_url: str | None,
) -> Any:
    from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
    from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
    from mcp.shared.auth import OAuthClientMetadata

    if client_id and client_secret:
        remember([client_secret])
        return ClientCredentialsOAuthProvider(url, StoredTokens(url), client_id, client_secret, scope=scope)

    async def open_browser(authorize: str) -> None:
        browser.step(f"authorize in the browser: {authorize}")
        if not browser.paste:
            browser.open(authorize)

    async def redirected() -> AuthorizationCodeResult:
        if browser.paste:
            try:
                target = await asyncio.to_thread(browser.ask, "paste the URL the browser was sent to: ")
            except EOFError as e:  # stdin closed (CI, a pipe): nothing will ever be pasted
                raise LoginFailed("stdin is closed: nothing to read the redirect URL from (--no-browser)") from e
        else:
            target = await asyncio.wait_for(callback.get(), WAIT_FOR_BROWSER)
        query = parse_qs(urlsplit(target.strip()).query)
        if "error" in query:
            raise LoginFailed(f"the authorization server refused: {query['error'][0][:200]}")
        code = query.get("code", [""])[0]
        remember([code])
        browser.step("redirect received")
        return AuthorizationCodeResult(code=code, state=query.get("state", [None])[0], iss=query.get("iss", [None])[0])

    metadata = OAuthClientMetadata(
        client_name="mcp-review",
        redirect_uris=[redirect],  # type: ignore[list-item]
        grant_types=["authorization_code", "refresh_token"],
        token_endpoint_auth_method="none",
        scope=scope,
    )
    try:  # the SDK checks the URL (HTTPS, a path) and uses it only when the AS advertises CIMD, else registers
        return OAuthClientProvider(
            url, metadata, StoredTokens(url), open_browser, redirected, client_metadata_url=client_metadata_url
        )
    except ValueError as e:
        raise LoginFailed(str(e)[:300]) from e


async def _trigger(url: str, http: Any) -> None:
    """POST the legacy handshake: the server's 401 starts the flow; 2xx means the token is usable."""
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize"}
    hello["params"] = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "mcp-review"}}
    try:
        response = await http.post(url, json=hello, headers={"Accept": "application/json, text/event-stream"})
    except LoginFailed:
        raise
    except Exception as e:  # the SDK raises its own errors and httpx2's; all stop the login the same way
        raise LoginFailed(f"{type(e).__name__}: {str(e)[:300]}") from e
    if response.status_code >= 300:
        raise LoginFailed(f"the server still answers HTTP {response.status_code} with the new token")
