"""A tiny hand-rolled stdio JSON-RPC server for deliberately broken fixtures (the SDK refuses to misbehave).

    server = RawServer(capabilities={"tools": {}}, name="x")
    server.handlers["tools/list"] = lambda params: {"tools": [...]}
    server.run()

Answers `initialize` (echoes a supported version, else 2025-11-25), `ping`, ignores notifications,
and answers unknown methods (including `server/discover`: these are legacy-era servers) with -32601.

`modern = True` makes it dual-era: a request before any `initialize` (on stdio), or one the HTTP front
(rawhttp.py) routes as 2026-07-28, is a stateless 2026-07-28 request: `server/discover` answers, `_meta` must
carry protocolVersion and clientCapabilities (-32602), another version gets -32022, the methods 2026-07-28
removed get -32601, and every result carries `resultType` and the server's identity (cache hints on the
cacheable ones). Over HTTP (`outbox` set by the front) what it sends is collected instead of written.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

SUPPORTED = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN = "2026-07-28"
META = "io.modelcontextprotocol/"
REMOVED = ("initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe")  # by 2026-07-28
CACHED = ("server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list")
CACHED += ("resources/read",)  # 2026-07-28: these results carry ttlMs and cacheScope
Handler = Callable[[dict[str, Any]], Any]


class RpcError(Exception):
    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


class NoReply(Exception):
    """Raised by a handler: the request is never answered (a server that hangs on it)."""


class RawServer:
    def __init__(
        self, name: str, capabilities: dict[str, Any], version: str = "1.0.0", instructions: str | None = None
    ):
        self.info = {"name": name, "version": version}
        self.capabilities = capabilities
        self.instructions = instructions
        self.handlers: dict[str, Handler] = {"ping": lambda _p: {}}
        self.negotiated: str | None = None
        self.echo_versions = False  # a defect: answer whatever version the client asked for
        self.on_initialized: Callable[[], None] | None = None
        self.modern = False  # dual-era: serves stateless 2026-07-28 requests too
        self.modern_capabilities: dict[str, Any] | None = None  # what server/discover declares, if not the same
        self.removed: tuple[str, ...] = REMOVED  # what a 2026-07-28 request may not call
        self.requires_meta = True  # a 2026-07-28 request without its required _meta is refused (-32602)
        self.identifies = True  # a 2026-07-28 result names the server in its _meta
        self.echoes_version = True  # a 2026-07-28 -32022 says which version was requested
        self.outbox: list[dict[str, Any]] | None = None  # over HTTP: what a request's handling sent
        self.answering_modern = False  # whether the request being handled is a 2026-07-28 one
        self._asked = 0

    def write_line(self, line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def send(self, message: dict[str, Any]) -> None:
        if self.outbox is not None:
            self.outbox.append(message)
            return
        self.write_line(json.dumps(message))

    def ask_client(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Send a request to the client (elicitation, sampling) and wait on stdin for its answer, handling
        whatever else arrives meanwhile. Returns the result, or {} for an error, a closed stdin, or HTTP (where
        the front answers no server requests)."""
        if self.outbox is not None:
            return {}
        self._asked += 1
        ask_id = f"ask-{self._asked}"
        self.send({"jsonrpc": "2.0", "id": ask_id, "method": method, "params": params})
        for line in sys.stdin:
            reply = json.loads(line)
            if reply.get("id") == ask_id and "method" not in reply:
                return reply.get("result") or {}
            self.handle(reply)
        return {}

    def _initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        asked = params.get("protocolVersion")
        self.negotiated = (
            asked if asked in SUPPORTED or (self.echo_versions and isinstance(asked, str)) else SUPPORTED[-1]
        )
        result: dict[str, Any] = {
            "protocolVersion": self.negotiated,
            "capabilities": self.capabilities,
            "serverInfo": self.info,
        }
        if self.instructions:
            result["instructions"] = self.instructions
        return result

    def _modern(self, method: str, params: dict[str, Any]) -> Any:
        """A 2026-07-28 request: its `_meta` checked, then answered and stamped as that revision wants."""
        meta = params.get("_meta")
        wanted = [META + "protocolVersion", META + "clientCapabilities"]
        if self.requires_meta and not (isinstance(meta, dict) and all(k in meta for k in wanted)):
            raise RpcError(-32602, f"Invalid params: _meta must carry {' and '.join(wanted)}")
        version = meta.get(META + "protocolVersion", MODERN) if isinstance(meta, dict) else MODERN
        if version != MODERN:
            data = {"supported": [MODERN], **({"requested": version} if self.echoes_version else {})}
            raise RpcError(-32022, "Unsupported protocol version", data)
        if method == "server/discover":
            caps = self.capabilities if self.modern_capabilities is None else self.modern_capabilities
            result: Any = {"supportedVersions": [MODERN, *reversed(SUPPORTED)], "capabilities": caps}
            if self.instructions:
                result["instructions"] = self.instructions
        elif method in self.handlers and method not in self.removed:
            result = self.handlers[method](params)
        else:
            raise RpcError(-32601, f"Method not found: {method}")
        if not isinstance(result, dict):
            return result
        stamped = {"resultType": "complete", **result}
        if self.identifies:
            stamped["_meta"] = {**(result.get("_meta") or {}), META + "serverInfo": self.info}
        if method in CACHED:
            stamped = {"ttlMs": 0, "cacheScope": "private", **stamped}
        return stamped

    def handle(self, message: Any, modern: bool | None = None) -> None:
        """Answer one message. `modern`: whether a request is a 2026-07-28 one (None: on a dual-era server, one
        that comes before any `initialize` on this connection is)."""
        if isinstance(message, dict) and message.get("method") == "notifications/initialized" and self.on_initialized:
            self.on_initialized()
        if not isinstance(message, dict) or "method" not in message or "id" not in message:
            return  # notifications and responses need no answer
        method, params = message["method"], message.get("params") or {}
        if modern is None:
            modern = self.modern and self.negotiated is None and method != "initialize"
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        self.answering_modern = modern
        try:
            if modern:
                reply["result"] = self._modern(method, params)
            elif method == "initialize":
                reply["result"] = self._initialize(params)
            elif method in self.handlers:
                reply["result"] = self.handlers[method](params)
            else:
                raise RpcError(-32601, f"Method not found: {method}")
        except RpcError as e:
            reply["error"] = {"code": e.code, "message": e.message, **({"data": e.data} if e.data is not None else {})}
        except NoReply:
            return
        self.send(reply)

    def run(self) -> None:
        for line in sys.stdin:
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError:
                self.send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
                continue
            self.handle(message)


def tool(
    name: str,
    description: str,
    properties: dict[str, Any] | None = None,
    required: list[str] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A well-formed tool definition (wire JSON)."""
    schema: dict[str, Any] = {"type": "object", "properties": properties or {}}
    if required is not None:
        schema["required"] = required
    return {"name": name, "description": description, "inputSchema": schema, **extra}


def text_result(text: str, is_error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": is_error}
