"""An OAuth-protected MCP server with a real authorization server on the same origin (the `mcp` SDK's AS routes).

python protected.py --http --port P [--defect NAME]

The SDK co-hosts RFC 9728 metadata (/.well-known/oauth-protected-resource/mcp), RFC 8414 metadata, RFC 7591
registration (/register), /authorize (auto-consent: it redirects at once with a code), /token (authorization code
with PKCE S256, refresh) and the bearer-protected /mcp. Access tokens are RS256 JWTs (RFC 9068) signed with a key
made at start-up; `aud` is the RFC 8707 `resource` the client asked for. Done right, the resource server checks
the signature, `exp` and that `aud` is its own URL, and the 401 names `resource_metadata` and a `scope` hint.

Defects (one each, for the rules of checks/review/auth.py):
  accept-any     any bearer string is accepted
  any-key        the signature is not checked (claims are: exp, aud)
  no-expiry      neither signature nor exp is checked
  any-audience   signature and exp are checked, aud is not (a real token for another resource is accepted)
  no-prm         the protected-resource metadata is not served (404)
  bad-prm        the metadata's authorization_servers is a string, not a list
  dead-as        the metadata names an authorization server that answers no discovery
  remote-as      the metadata names an authorization server on another origin (127.0.0.2): never to be contacted
  no-scope-hint  the 401 challenge has no scope hint
  echo-token     the whoami tool returns the caller's bearer token (what a passthrough server holds)
  bare-403       a token without the scope needed gets 403 with no WWW-Authenticate (no insufficient_scope)
  query-token    a token in the query string (?access_token=) is accepted
"""

from __future__ import annotations

import argparse
import json
import logging
import secrets
import time
import warnings
from typing import Any
from urllib.parse import parse_qs

import jwt
import uvicorn
from cryptography.hazmat.primitives.asymmetric import rsa
from mcp.server import MCPServer
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken, AuthorizationCode, RefreshToken, construct_redirect_uri
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.shared.auth import OAuthToken
from mcp.shared.exceptions import MCPDeprecationWarning

SCOPE = "mcp"
DEFECTS = ("accept-any", "any-key", "no-expiry", "any-audience", "no-prm", "bad-prm", "dead-as", "no-scope-hint")
DEFECTS += ("query-token", "bare-403", "echo-token", "remote-as")
PRM = "/.well-known/oauth-protected-resource"


class JwtAuthorizationServer:
    """The SDK's OAuthAuthorizationServerProvider protocol, in memory, issuing signed JWT access tokens."""

    def __init__(self, issuer: str, resource: str, defect: str | None) -> None:
        self.issuer, self.resource, self.defect = issuer, resource, defect
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.clients: dict[str, Any] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.refresh: dict[str, RefreshToken] = {}

    async def get_client(self, client_id: str) -> Any:
        return self.clients.get(client_id)

    async def register_client(self, client_info: Any) -> None:
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: Any, params: Any) -> str:
        code = AuthorizationCode(
            code=secrets.token_urlsafe(16),
            client_id=client.client_id,
            scopes=params.scopes or [SCOPE],
            expires_at=time.time() + 300,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        self.codes[code.code] = code
        return construct_redirect_uri(str(params.redirect_uri), code=code.code, state=params.state)

    async def load_authorization_code(self, client: Any, authorization_code: str) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        now = int(time.time())
        claims = {"iss": self.issuer, "sub": "tester", "client_id": client_id, "scope": " ".join(scopes)}
        claims |= {"aud": resource or self.resource, "iat": now, "exp": now + 3600, "jti": secrets.token_hex(8)}
        access = jwt.encode(claims, self.key, algorithm="RS256", headers={"kid": "fixture", "typ": "at+jwt"})
        refresh = RefreshToken(token=secrets.token_urlsafe(24), client_id=client_id, scopes=scopes, resource=resource)
        self.refresh[refresh.token] = refresh
        scope = " ".join(scopes)
        return OAuthToken(access_token=access, expires_in=3600, scope=scope, refresh_token=refresh.token)

    async def exchange_authorization_code(self, client: Any, authorization_code: AuthorizationCode) -> OAuthToken:
        del self.codes[authorization_code.code]
        return self._issue(client.client_id, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client: Any, refresh_token: str) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(self, client: Any, refresh_token: RefreshToken, scopes: list[str]) -> OAuthToken:
        del self.refresh[refresh_token.token]
        return self._issue(client.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def revoke_token(self, token: Any) -> None:
        self.refresh.pop(getattr(token, "token", ""), None)

    async def load_access_token(self, token: str) -> AccessToken | None:
        """The resource server's check: signature, expiry and audience, unless a defect skips one."""
        if self.defect == "accept-any":
            return AccessToken(token=token, client_id="anyone", scopes=[SCOPE])
        trusting = self.defect in ("any-key", "no-expiry")
        options = {"verify_signature": not trusting, "verify_exp": self.defect != "no-expiry", "verify_aud": False}
        try:
            claims = jwt.decode(token, self.key.public_key(), algorithms=["RS256"], options=options)
        except jwt.PyJWTError:
            return None
        if self.defect != "any-audience" and claims.get("aud") != self.resource:
            return None
        scopes = str(claims.get("scope", "")).split()
        return AccessToken(token=token, client_id=str(claims.get("client_id")), scopes=scopes, resource=self.resource)


class Defects:
    """ASGI middleware for the defects the SDK's routes cannot be configured into (and the scope hint it omits)."""

    def __init__(self, app: Any, defect: str | None) -> None:
        self.app, self.defect = app, defect

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.defect in ("no-prm", "bad-prm", "dead-as", "remote-as") and scope["path"].startswith(PRM):
            await self._metadata(scope, send)
            return
        query = parse_qs(scope.get("query_string", b"").decode())
        if self.defect == "query-token" and "access_token" in query:
            bearer = f"Bearer {query['access_token'][0]}".encode()
            scope = {**scope, "headers": [*scope["headers"], (b"authorization", bearer)]}

        async def hinted(message: dict[str, Any]) -> None:
            """The scope the server needs in its 401 and 403 challenges (the SDK names none), unless a defect."""
            status = message.get("status") if message["type"] == "http.response.start" else None
            if (status == 401 and self.defect != "no-scope-hint") or (status == 403 and self.defect != "bare-403"):
                headers = [
                    (k, v + f', scope="{SCOPE}"'.encode() if k == b"www-authenticate" else v)
                    for k, v in message["headers"]
                ]
                message = {**message, "headers": headers}
            elif status == 403:
                message = {**message, "headers": [(k, v) for k, v in message["headers"] if k != b"www-authenticate"]}
            await send(message)

        await self.app(scope, receive, hinted)

    async def _metadata(self, scope: Any, send: Any) -> None:
        """The protected-resource metadata as the defect has it: missing, malformed, or naming a dead issuer."""
        origin = f"http://{dict(scope['headers'])[b'host'].decode()}"
        servers: object = origin if self.defect == "bad-prm" else [f"{origin}/no-such-issuer"]
        if self.defect == "remote-as":  # another origin (a host the reviewer never named): must not be contacted
            servers = ["http://127.0.0.2:9/issuer"]
        body = (
            b""
            if self.defect == "no-prm"
            else json.dumps({"resource": f"{origin}/mcp", "authorization_servers": servers}).encode()
        )
        headers = [(b"content-type", b"application/json")] if body else []
        await send({"type": "http.response.start", "status": 404 if not body else 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def main() -> None:
    warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
    logging.getLogger().setLevel(logging.WARNING)
    p = argparse.ArgumentParser()
    p.add_argument("--http", action="store_true", help="the only transport: OAuth protects HTTP servers")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--defect", choices=DEFECTS)
    args = p.parse_args()
    origin = f"http://127.0.0.1:{args.port}"
    provider = JwtAuthorizationServer(origin, f"{origin}/mcp", args.defect)
    auth = AuthSettings(
        issuer_url=origin,
        resource_server_url=f"{origin}/mcp",
        required_scopes=[SCOPE],
        client_registration_options=ClientRegistrationOptions(
            enabled=True, valid_scopes=[SCOPE, "read"], default_scopes=[SCOPE]
        ),
    )
    server = MCPServer(
        "protected-server", version="1.0.0", auth=auth, auth_server_provider=provider, log_level="WARNING"
    )

    @server.tool()
    def whoami() -> str:
        """Who the bearer token says the caller is: its client id and scopes."""
        token = get_access_token()
        if token and args.defect == "echo-token":
            return f"upstream sent Authorization: Bearer {token.token}"
        return f"client={token.client_id} scopes={token.scopes}" if token else "anonymous"

    app = Defects(server.streamable_http_app(host="127.0.0.1"), args.defect)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
