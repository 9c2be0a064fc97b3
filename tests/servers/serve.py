"""Run an SDK server (high-level MCPServer or low-level Server) as the command line says.

python SERVER.py                    # stdio
python SERVER.py --http --port P    # Streamable HTTP at http://127.0.0.1:P/mcp
python SERVER.py --sse --port P     # legacy HTTP+SSE at http://127.0.0.1:P/sse

Defects of the HTTP transports: --unsafe-origin (no Origin checks), --also-sse (Streamable HTTP that also serves
the legacy SSE transport at /sse), --sticky-sessions (a DELETE is answered 200 but the session lives on),
--cors-any (every answer carries `Access-Control-Allow-Origin: *`, and a CORS preflight is allowed from anywhere).
"""

from __future__ import annotations

import argparse
import logging
import warnings
from typing import Any


def serve(server: Any, argv: list[str] | None = None, wrap: Any = None) -> None:
    """Serve `server` as the command line says; `wrap`, when given, wraps the HTTP app (a fixture's own defect)."""
    from mcp.shared.exceptions import MCPDeprecationWarning

    warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
    logging.getLogger().setLevel(logging.WARNING)  # MCPServer configures root logging at INFO
    p = argparse.ArgumentParser()
    p.add_argument("--http", action="store_true")
    p.add_argument("--sse", action="store_true")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--unsafe-origin", action="store_true", help="defect: no Host/Origin (DNS rebinding) checks")
    p.add_argument("--also-sse", action="store_true", help="defect: legacy HTTP+SSE at /sse beside /mcp")
    p.add_argument("--sticky-sessions", action="store_true", help="defect: DELETE answered 200, session kept")
    p.add_argument("--cors-any", action="store_true", help="defect: Access-Control-Allow-Origin: * on every answer")
    p.add_argument("--auth", metavar="TOKEN", help="require this bearer token; serve RFC 9728 metadata")
    args, _ = p.parse_known_args(argv)
    if args.http or args.sse:
        import uvicorn
        from mcp.server.transport_security import TransportSecuritySettings

        security = TransportSecuritySettings(enable_dns_rebinding_protection=False) if args.unsafe_origin else None
        kw = {"transport_security": security} if security else {}
        app = server.sse_app(host="127.0.0.1", **kw) if args.sse else server.streamable_http_app(host="127.0.0.1", **kw)
        if args.also_sse:
            app.router.routes += server.sse_app(host="127.0.0.1", **kw).routes  # /sse and /messages/ beside /mcp
        if args.sticky_sessions:
            app = StickySessions(app)
        if args.cors_any:
            app = AnyOrigin(app)
        if args.auth:
            app = BearerGate(app, args.auth, f"http://127.0.0.1:{args.port}")
        if wrap is not None:
            app = wrap(app)
        uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")
        return
    import anyio
    from mcp.server.stdio import stdio_server

    if hasattr(server, "run_stdio_async"):
        anyio.run(server.run_stdio_async)
        return

    async def run() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)


class StickySessions:
    """ASGI middleware: a DELETE of the session is answered 200 and never reaches the server (the session lives on)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] == "DELETE":
            await BearerGate._reply(send, 200, b"", [])
            return
        await self.app(scope, receive, send)


class AnyOrigin:
    """ASGI middleware: CORS open to every origin, as `cors()` with no options makes it in Express."""

    ALLOW = ((b"access-control-allow-origin", b"*"),)

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["method"] == "OPTIONS":
            allowed = [(b"access-control-allow-methods", b"GET,POST,DELETE"), (b"access-control-allow-headers", b"*")]
            await BearerGate._reply(send, 204, b"", [*self.ALLOW, *allowed])
            return

        async def opened(message: Any) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *self.ALLOW]}
            await send(message)

        await self.app(scope, receive, opened)


class BearerGate:
    """ASGI middleware: an OAuth resource server in miniature (one valid token; RFC 9728 metadata)."""

    def __init__(self, app: Any, token: str, origin: str) -> None:
        self.app, self.token, self.origin = app, token, origin
        self.metadata = f"{origin}/.well-known/oauth-protected-resource/mcp"

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        import json

        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"].startswith("/.well-known/oauth-protected-resource"):
            body = json.dumps(
                {
                    "resource": f"{self.origin}/mcp",
                    "authorization_servers": [f"{self.origin}/auth"],
                    "scopes_supported": ["notes"],
                }
            ).encode()
            await self._reply(send, 200, body, [(b"content-type", b"application/json")])
            return
        headers = dict(scope["headers"])
        if headers.get(b"authorization", b"").decode() != f"Bearer {self.token}":
            challenge = f'Bearer resource_metadata="{self.metadata}", scope="notes"'.encode()
            await self._reply(send, 401, b"", [(b"www-authenticate", challenge)])
            return
        await self.app(scope, receive, send)

    @staticmethod
    async def _reply(send: Any, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
