"""What the MCP protocol says, for both eras: the revisions, the client's identity and capabilities, the
handshake's answer, and what a 2026-07-28 request carries (`_meta`, `Mcp-*` headers).

Plain data and pure functions, shared by the `Session` and the raw `Prober`.
"""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from mcp_review import __version__
from mcp_review.connection.channel import HandlerError

MODERN = "2026-07-28"
LATEST_LEGACY = "2025-11-25"
LEGACY_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
KNOWN_VERSIONS = (MODERN, *LEGACY_VERSIONS)
CLIENT_INFO = {"name": "mcp-review", "version": __version__}
META = "io.modelcontextprotocol/"
NAMED_METHODS = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}

EraChoice = Literal["auto", "legacy", "modern"]
Era = Literal["legacy", "modern"]
Json = dict[str, Any]


@dataclass
class ClientHandlers:
    """How this client answers what the server asks. A handler left None is not declared as a capability.

    Each takes the request's params (wire JSON) and returns the result (wire JSON), or raises
    `HandlerError` to answer with a JSON-RPC error.
    """

    sampling: Callable[[Json], Awaitable[Json]] | None = None
    elicitation: Callable[[Json], Awaitable[Json]] | None = None
    roots: Callable[[], Awaitable[list[Json]]] | None = None

    def capabilities(self) -> Json:
        caps: Json = {}
        if self.roots:
            caps["roots"] = {"listChanged": False}
        if self.sampling:
            caps["sampling"] = {}
        if self.elicitation:
            caps["elicitation"] = {"form": {}, "url": {}}
        return caps


def headless_handlers() -> ClientHandlers:
    """What a client without a person answers: no roots, sampling refused, elicitation declined."""

    async def sampling(_params: Json) -> Json:
        raise HandlerError(-1, "sampling declined: mcp-review runs headless here, no one can approve it")

    async def elicitation(_params: Json) -> Json:
        return {"action": "decline"}

    async def roots() -> list[Json]:
        return []

    return ClientHandlers(sampling=sampling, elicitation=elicitation, roots=roots)


@dataclass
class ServerHello:
    """What the server said about itself in the handshake (initialize or server/discover), as sent."""

    era: Era
    revision: str
    result: Json
    seq: int
    server_info: Json | None
    capabilities: Json
    instructions: str | None
    supported_versions: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, era: Era, revision: str, result: Json, seq: int, info: Any, versions: list[str]) -> ServerHello:
        """From a handshake result as sent: fields of the wrong type are dropped, not trusted."""
        caps, text = result.get("capabilities"), result.get("instructions")
        return cls(
            era=era,
            revision=revision,
            result=result,
            seq=seq,
            server_info=info if isinstance(info, dict) else None,
            capabilities=caps if isinstance(caps, dict) else {},
            instructions=text if isinstance(text, str) else None,
            supported_versions=versions,
        )


def param_header_value(value: Any) -> str:
    """Mirror an argument into an `Mcp-Param-*` header (2026-07-28), base64 sentinel when unsafe."""
    text = ("true" if value else "false") if isinstance(value, bool) else str(value)
    safe = text == text.strip() and all(0x20 <= ord(c) < 0x7F for c in text)
    return text if safe else "=?base64?" + base64.b64encode(text.encode()).decode() + "?="


def modern_meta(version: str = MODERN, capabilities: Json | None = None, log_level: str | None = None) -> Json:
    """The `_meta` every 2026-07-28 request carries: who we are, what we can answer, the log level wanted."""
    meta: Json = {
        META + "protocolVersion": version,
        META + "clientCapabilities": capabilities or {},
        META + "clientInfo": CLIENT_INFO,
    }
    if log_level:
        meta[META + "logLevel"] = log_level
    return meta


def modern_headers(method: str, params: Any, tool_schemas: Mapping[str, Json]) -> dict[str, str]:
    """The headers a 2026-07-28 request carries over HTTP: version, method, name, and `Mcp-Param-*` mirrors."""
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    key = NAMED_METHODS.get(method)
    if key and isinstance(params, dict) and isinstance(params.get(key), str):
        headers["Mcp-Name"] = param_header_value(params[key])  # a server's tool name: maybe not ASCII
    if method == "tools/call" and isinstance(params, dict):
        headers.update(_param_headers(tool_schemas, params.get("name"), params.get("arguments")))
    return headers


def _param_headers(tool_schemas: Mapping[str, Json], name: Any, arguments: Any) -> dict[str, str]:
    """Arguments whose schema property names an `x-mcp-header`, mirrored into `Mcp-Param-*` headers."""
    schema = tool_schemas.get(name) if isinstance(name, str) else None
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(props, dict) or not isinstance(arguments, dict):
        return {}
    headers = {}
    for prop, spec in props.items():
        header = spec.get("x-mcp-header") if isinstance(spec, dict) else None
        if isinstance(header, str) and header and prop in arguments and arguments[prop] is not None:
            headers[f"Mcp-Param-{header}"] = param_header_value(arguments[prop])
    return headers
