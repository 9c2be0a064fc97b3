"""The server utilities and the 2026-07-28 request rules, one planted defect per mode: `utilities.py MODE` over
stdio, `utilities.py MODE --http --port P` over Streamable HTTP (rawhttp.py); `MODE+MODE...` plants several at once
(tests/thirdparty/test_conformance_server.py runs the official suite on them so).

A dual-era RawServer (2024-11-05 .. 2025-11-25 after `initialize`, and stateless 2026-07-28) that declares tools,
resources (with `subscribe` before 2026-07-28, which subscribes through `subscriptions/listen`, not served
here), prompts, `logging` and `completions`, named as the official conformance suite's own
fixture names them, so the suite's scenarios can run on it too: the tool `test_tool_with_progress` (progress
0, 50, 100 of 100 when the call carries a progressToken), the tool `test_logging_tool` (one `notifications/message`
at `info`, when the level allows: set by `logging/setLevel`, or a 2026-07-28 request's `logLevel`, else none), the
tool `test_reconnection` (the same, so that its answer comes on an event stream), the resource `test://watched-resource`, the prompt
`test_prompt_with_arguments` (arg1, arg2) whose arguments complete from a short list.

Modes (the rule each fails in brackets):
- `well-formed`: none.
- `setlevel-refused`: `logging/setLevel` answers -32601 though `logging` is declared [spec.logging-level].
- `subscribe-refused`: `resources/subscribe` answers -32601 though `subscribe` is declared
  [spec.resource-subscriptions].
- `completion-refused`: `completion/complete` answers -32601 though `completions` is declared [spec.completion].
- `progress-backwards`: progress 50, 0, 100: it goes back [spec.progress].
- `wrong-id`: an error answer carries `"id": "server-error"` (as mcp 1.x servers over HTTP); over stdio, where
  such an answer would leave its request waiting, each error is answered, then sent again with that id
  [spec.response-ids].
- `meta-unchecked`: a 2026-07-28 request without its required `_meta` is served [spec.request-meta].
- `empty-contents`: reading an unknown resource answers `contents: []` [spec.resource-not-found].
- `removed-served`: a 2026-07-28 `ping`, `logging/setLevel` or `resources/subscribe` is answered as before
  [spec.removed-methods].
- `logs-unasked`: `test_logging_tool` logs to a 2026-07-28 request that set no `logLevel` [spec.logging-level].
- `version-sloppy`: a 2026-07-28 -32022 says no `requested` version (and comes with HTTP 200)
  [spec.version-negotiation].
- `anonymous`: 2026-07-28 results carry no `serverInfo` in their `_meta` (a SHOULD: spec.request-meta warns).
- `shuffled`: each `tools/list` gives the tools in the order opposite to the last one's (a 2026-07-28 SHOULD:
  spec.tool-order warns).
- over HTTP only: `serial-posts` (a POST while another is answered gets 409), `host-unchecked` (any Host, the
  Origin still checked), `origin-unchecked` (any Host, any Origin), `version-header-unchecked` (a 2026-07-28
  MCP-Protocol-Version unlike the body's is served), `headers-loose` (Mcp-Name unchecked, Mcp-Method compared
  case-insensitively), `headers-strict` (Mcp-* header names matched in their exact case), `sse-unprimed` (a legacy
  event stream begins with no priming event: a SHOULD, a warn) [spec.http-transport].
"""

from __future__ import annotations

import itertools
import sys
from typing import Any

from rawhttp import serve_argv
from rawserver import META, RawServer, RpcError, text_result, tool

MODES = (
    "well-formed",
    "setlevel-refused",
    "subscribe-refused",
    "completion-refused",
    "progress-backwards",
    "wrong-id",
    "meta-unchecked",
    "empty-contents",
    "removed-served",
    "logs-unasked",
    "version-sloppy",
    "anonymous",
    "shuffled",
    "serial-posts",
    "host-unchecked",
    "origin-unchecked",
    "version-header-unchecked",
    "headers-loose",
    "headers-strict",
    "sse-unprimed",
)
LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
WATCHED = "test://watched-resource"
PROMPT = "test_prompt_with_arguments"
WORDS = ("paris", "park", "party", "test", "testing")


def build(modes: frozenset[str]) -> RawServer:
    caps = {"tools": {}, "resources": {"subscribe": True}, "prompts": {}, "logging": {}, "completions": {}}
    server = RawServer("utilities-server", caps, instructions="Conformance fixtures: progress, subscriptions.")
    server.modern = True
    server.modern_capabilities = {**caps, "resources": {}}  # 2026-07-28 subscribes through subscriptions/listen
    progress = (50, 0, 100) if "progress-backwards" in modes else (0, 50, 100)
    reporter = tool(
        "test_tool_with_progress",
        "Report progress three times, then answer. Use to watch progress notifications; returns a short text.",
        title="Progress",
        annotations=READ_ONLY,
    )
    logger = tool(
        "test_logging_tool",
        "Log one line at info level, then answer. Use to watch log notifications; returns a short text.",
        title="Logging",
        annotations=READ_ONLY,
    )
    reconnection = tool(  # the suite's server-sse-polling calls it: its answer comes on an event stream
        "test_reconnection",
        "Log one line at info level, then answer, on one event stream. Use to watch streams; returns a short text.",
        title="Reconnection",
        annotations=READ_ONLY,
    )
    level = {"now": "info"}  # legacy: what logging/setLevel set
    resource = {
        "uri": WATCHED,
        "name": "watched",
        "description": "A resource to subscribe to.",
        "mimeType": "text/plain",
    }
    prompt = {
        "name": PROMPT,
        "description": "Ask about two values.",
        "arguments": [{"name": "arg1", "description": "First", "required": True}, {"name": "arg2"}],
    }

    calls = {"count": 0}
    tools = [reporter, logger, reconnection]

    def list_tools(params: dict[str, Any]) -> dict[str, Any]:
        if "shuffled" in modes:
            tools.reverse()
        return page(params, {"tools": list(tools)})

    def log(params: dict[str, Any]) -> dict[str, Any]:
        wanted = (params.get("_meta") or {}).get(META + "logLevel") if server.answering_modern else level["now"]
        if "logs-unasked" in modes or (wanted in LEVELS and LEVELS.index("info") >= LEVELS.index(wanted)):
            note = {"level": "info", "logger": "utilities", "data": "logged by test_logging_tool"}
            server.send({"jsonrpc": "2.0", "method": "notifications/message", "params": note})
        return text_result("logged")

    def call(params: dict[str, Any]) -> dict[str, Any]:
        if params.get("name") in (logger["name"], reconnection["name"]):
            return log(params)
        if params.get("name") != reporter["name"]:
            raise RpcError(-32602, f"Unknown tool: {params.get('name')}")
        token = (params.get("_meta") or {}).get("progressToken")
        if token is not None:
            for value in progress:
                note = {"progressToken": token, "progress": value, "total": 100}
                server.send({"jsonrpc": "2.0", "method": "notifications/progress", "params": note})
        calls["count"] += 1  # a live count: the answer is not static data
        return text_result(f"progress reported (call {calls['count']})")

    def read(params: dict[str, Any]) -> dict[str, Any]:
        uri = params.get("uri")
        if uri == WATCHED:
            return {"contents": [{"uri": WATCHED, "mimeType": "text/plain", "text": "watched"}]}
        if "empty-contents" in modes:
            return {"contents": []}
        raise RpcError(-32602 if server.answering_modern else -32002, "Resource not found", {"uri": uri})

    def subscribe(params: dict[str, Any]) -> dict[str, Any]:
        if "subscribe-refused" in modes:
            raise RpcError(-32601, "Method not found: resources/subscribe")
        if params.get("uri") != WATCHED:
            raise RpcError(-32602, "Resource not found", {"uri": params.get("uri")})
        return {}

    def set_level(params: dict[str, Any]) -> dict[str, Any]:
        if "setlevel-refused" in modes:
            raise RpcError(-32601, "Method not found: logging/setLevel")
        if params.get("level") not in LEVELS:
            raise RpcError(-32602, f"Invalid log level: {params.get('level')!r}")
        level["now"] = params["level"]
        return {}

    def complete(params: dict[str, Any]) -> dict[str, Any]:
        if "completion-refused" in modes:
            raise RpcError(-32601, "Method not found: completion/complete")
        ref, argument = params.get("ref") or {}, params.get("argument") or {}
        if ref.get("type") == "ref/prompt" and ref.get("name") != PROMPT:
            raise RpcError(-32602, f"Unknown prompt: {ref.get('name')}")
        prefix = str(argument.get("value") or "")
        values = [w for w in WORDS if w.startswith(prefix)]
        return {"completion": {"values": values, "total": len(values), "hasMore": False}}

    def get_prompt(params: dict[str, Any]) -> dict[str, Any]:
        if params.get("name") != PROMPT:
            raise RpcError(-32602, f"Unknown prompt: {params.get('name')}")
        args = params.get("arguments") or {}
        text = f"Tell me about {args.get('arg1', '')} and {args.get('arg2', '')}."
        return {"messages": [{"role": "user", "content": {"type": "text", "text": text}}]}

    server.handlers.update(
        {
            "tools/list": list_tools,
            "tools/call": call,
            "resources/list": lambda _p: {"resources": [resource]},
            "resources/templates/list": lambda _p: {"resourceTemplates": []},
            "resources/read": read,
            "resources/subscribe": subscribe,
            "resources/unsubscribe": subscribe,
            "prompts/list": lambda _p: {"prompts": [prompt]},
            "prompts/get": get_prompt,
            "logging/setLevel": set_level,
            "completion/complete": complete,
        }
    )
    if "meta-unchecked" in modes:
        server.requires_meta = False
    if "removed-served" in modes:
        server.removed = ("initialize",)
    if "version-sloppy" in modes:
        server.echoes_version = False
    if "anonymous" in modes:
        server.identifies = False
    if "wrong-id" in modes:
        misnumber(server, over_http="--http" in sys.argv)
    return server


def page(params: dict[str, Any], listing: dict[str, Any]) -> dict[str, Any]:
    """The only page: any cursor is one this server never gave (-32602)."""
    if params.get("cursor") is not None:
        raise RpcError(-32602, "Invalid cursor")
    return listing


def misnumber(server: RawServer, over_http: bool) -> None:
    """Error answers carry `"id": "server-error"` (over stdio: sent again with it, after the right one)."""
    send = server.send

    def wrong(message: dict[str, Any]) -> None:
        if "error" not in message or "method" in message:
            send(message)
            return
        if not over_http:
            send(message)
        send({**message, "id": "server-error"})

    server.send = wrong  # type: ignore[method-assign]


def mode_of(argv: list[str]) -> str:
    """The one argument that is neither a flag nor the port's value (the harness puts the flags first)."""
    named = [a for before, a in itertools.pairwise(argv) if not a.startswith("-") and before != "--port"]
    return named[0] if named else "well-formed"


if __name__ == "__main__":
    MODES_ASKED = frozenset(mode_of(sys.argv).split("+"))  # one mode, or several joined by "+"
    if unknown := sorted(MODES_ASKED - set(MODES)):
        raise SystemExit(f"unknown mode {unknown}: each one of {', '.join(MODES)}")
    TRANSPORT = {  # the modes that are defects of the HTTP front (rawhttp.DEFECTS)
        "serial-posts": {"serial"},
        "host-unchecked": {"any-host"},
        "origin-unchecked": {"any-host", "any-origin"},
        "version-header-unchecked": {"any-version-header"},
        "version-sloppy": {"unsupported-200"},
        "headers-loose": {"loose-headers"},
        "headers-strict": {"strict-headers"},
        "sse-unprimed": {"unprimed"},
    }
    front = frozenset().union(*(TRANSPORT.get(mode, ()) for mode in MODES_ASKED))
    serve_argv(build(MODES_ASKED), sys.argv, front)
