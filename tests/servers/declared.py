"""A server that declares itself outside the protocol: a registry server.json, a Server Card, and two eras.

python declared.py MODE                    # stdio
python declared.py MODE --http --port P    # Streamable HTTP at http://127.0.0.1:P/mcp, its card at /mcp/server-card

"declared-server" 1.4.0 with two tools (`notes_get`, read-only; `notes_delete`, destructive). Its server.json files
are beside it in declared/: `agrees.server.json` (valid, version 1.4.0, a stdio package and a streamable-http
remote) and `disagrees.server.json` (version 2.0.0, a 115-character description, another title).

MODES
  agrees     its Server Card (HTTP) agrees with the wire: version 1.4.0, /mcp as streamable-http, both eras.
  disagrees  its card says version 9.9.9 and that /mcp is `sse` speaking only 2025-06-18; every HTTP answer carries
             `Deprecation` and `Sunset` headers (a legacy revision announced for removal).
  catalog    its card (agreeing) is listed in /.well-known/ai-catalog.json at /cards/declared.json, after an entry
             on another origin (http://cards.elsewhere.example/...), which a client must not fetch.
  eras       no card; in the 2026-07-28 era `notes_delete` is listed as read-only and destructive at once, so
             `review.annotations-set` fails under that era only (`check --era both` shows it).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from mcp.server import MCPServer
from mcp.types import ToolAnnotations
from serve import serve

MODES = ("agrees", "disagrees", "eras", "catalog")
MODERN = "2026-07-28"
CARD = "application/mcp-server-card+json"
NOTES = {"n1": "Buy milk"}


class EraServer(MCPServer):
    """The `eras` mode: one listing per era."""

    strip_modern = False

    async def _handle_list_tools(self, ctx: Any, params: Any) -> Any:
        result = await super()._handle_list_tools(ctx, params)
        if self.strip_modern and ctx.protocol_version >= MODERN:
            contradicts = ToolAnnotations(read_only_hint=True, destructive_hint=True, idempotent_hint=True)
            result.tools = [
                t.model_copy(update={"annotations": contradicts}) if t.name == "notes_delete" else t
                for t in result.tools
            ]
        return result


mcp = EraServer("declared-server", version="1.4.0", title="Declared notes", log_level="WARNING")


@mcp.tool(
    annotations=ToolAnnotations(
        read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    )
)
def notes_get(note_id: str) -> str:
    """Get one note by id. Use when the id is known."""
    return NOTES.get(note_id, "")


@mcp.tool(
    annotations=ToolAnnotations(
        read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
    )
)
def notes_delete(note_id: str) -> str:
    """Delete a note permanently. Use when the user asks to remove a note."""
    NOTES.pop(note_id, None)
    return "deleted"


def card(mode: str, origin: str) -> dict[str, Any]:
    agrees = mode == "agrees"
    return {
        "$schema": "https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json",
        "name": "io.github.mcp-review/declared-server",
        "version": "1.4.0" if agrees else "9.9.9",
        "description": "Notes for tests, declared in a card.",
        "title": "Declared notes",
        "remotes": [
            {
                "type": "streamable-http" if agrees else "sse",
                "url": f"{origin}/mcp",
                "supportedProtocolVersions": ["2025-11-25", MODERN] if agrees else ["2025-06-18"],
            }
        ],
    }


class Declares:
    """ASGI middleware: the card at /mcp/server-card; in `disagrees`, Deprecation and Sunset on every answer."""

    def __init__(self, app: Any, mode: str, origin: str) -> None:
        self.app, self.mode, self.origin = app, mode, origin

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        served = {"agrees": "/mcp/server-card", "disagrees": "/mcp/server-card", "catalog": "/cards/declared.json"}
        if scope["type"] == "http" and scope["path"] == served.get(self.mode):
            await self._json(send, card("agrees" if self.mode == "catalog" else self.mode, self.origin))
            return
        if scope["type"] == "http" and scope["path"] == "/.well-known/ai-catalog.json" and self.mode == "catalog":
            entries = [
                {"identifier": "urn:air:elsewhere:x", "type": CARD, "url": "http://cards.elsewhere.example/x.json"},
                {"identifier": "urn:air:127.0.0.1:declared", "type": CARD, "url": f"{self.origin}/cards/declared.json"},
            ]
            await self._json(send, {"specVersion": "draft", "entries": entries})
            return
        if self.mode != "disagrees":
            await self.app(scope, receive, send)
            return

        async def announcing(message: Any) -> None:
            if message["type"] == "http.response.start":
                extra = [(b"deprecation", b"@1785196800"), (b"sunset", b"Wed, 28 Jul 2027 00:00:00 GMT")]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, announcing)

    @staticmethod
    async def _json(send: Any, value: Any) -> None:
        headers = [(b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": json.dumps(value).encode()})


if __name__ == "__main__":
    mode = next((a for a in sys.argv[1:] if a in MODES), "")
    if not mode:
        print("\n".join(MODES))
        sys.exit(0)
    mcp.strip_modern = mode == "eras"
    if "--http" in sys.argv:
        import uvicorn

        port = int(sys.argv[sys.argv.index("--port") + 1])
        app = Declares(mcp.streamable_http_app(host="127.0.0.1"), mode, f"http://127.0.0.1:{port}")
        uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
    else:
        serve(mcp, [a for a in sys.argv[1:] if a != mode])
