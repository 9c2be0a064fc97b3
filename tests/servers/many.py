"""`--tools N` generated tools (default 1000), `--page-size` per page (default 100), for benchmarks.

A low-level SDK `Server`, so both eras work (the bench compares mcp-review with the SDK's own Client); with
`--stdlib` the same tools from a standard-library server (`rawserver`, legacy era only), whose own start (~50 ms, no
`import mcp`) leaves a client's cost to show (bench/list.py).
"""

from __future__ import annotations

import argparse
from typing import Any

KINDS = ("records", "invoices", "tickets", "users", "events", "files", "orders", "notes")
VERBS = ("search", "get", "create", "update", "delete", "list", "export", "archive")


def generate_tools(n: int) -> list[dict[str, Any]]:
    """Deterministic wire JSON (camelCase) of `n` realistic tools."""
    tools = []
    for i in range(n):
        kind, verb = KINDS[i % len(KINDS)], VERBS[(i // len(KINDS)) % len(VERBS)]
        props: dict[str, Any] = {
            "query": {"type": "string", "description": f"Text to match against {kind}", "maxLength": 200},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
        }
        for extra in range(i % 4):
            props[f"filter_{extra}"] = {"type": "string", "enum": ["open", "closed", "all"]}
        tools.append(
            {
                "name": f"{kind}_{verb}_{i}",
                "title": f"{verb.title()} {kind} ({i})",
                "description": f"{verb.title()} {kind} in workspace {i}. Use when the user asks to {verb} {kind}; "
                f"returns ids and titles, newest first.",
                "inputSchema": {"type": "object", "properties": props, "required": ["query"]},
                "annotations": {"readOnlyHint": verb in ("search", "get", "list", "export")},
            }
        )
    return tools


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--tools", type=int, default=1000)
    p.add_argument("--page-size", type=int, default=100)
    p.add_argument("--stdlib", action="store_true", help="serve from the standard library alone (no mcp SDK)")
    p.add_argument("--times", help="with --stdlib: write the CPU seconds this server used to this file at its end")
    args, rest = p.parse_known_args()
    if args.stdlib:
        return serve_stdlib(generate_tools(args.tools), args.page_size, args.times)

    import mcp.types as types
    from mcp.server import Server
    from mcp.shared.exceptions import MCPError
    from serve import serve

    tools = [types.Tool.model_validate(t) for t in generate_tools(args.tools)]
    size = args.page_size

    async def list_tools(_ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        cursor = params.cursor if params else None
        if cursor is not None and not (cursor.isdigit() and 0 < int(cursor) < len(tools)):
            raise MCPError(types.INVALID_PARAMS, f"Invalid cursor: {cursor}")
        start = int(cursor) if cursor else 0
        nxt = str(start + size) if start + size < len(tools) else None
        return types.ListToolsResult(tools=tools[start : start + size], next_cursor=nxt)

    names = {t.name for t in tools}

    async def call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in names:
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name}")
        return types.CallToolResult(content=[types.TextContent(type="text", text=f"called {params.name}")])

    serve(Server("many-server", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool), rest)


def serve_stdlib(tools: list[dict[str, Any]], size: int, times: str | None) -> None:
    """`--stdlib`: the same tools and pages from `rawserver`; `times` gets the server's own CPU seconds when its
    input ends or it is told to stop (SIGTERM), so a benchmark can tell a client's CPU from the server's."""
    import os
    import signal

    from rawserver import RawServer, RpcError, text_result

    def ended(*_: object) -> None:
        if times:
            used = os.times()
            with open(times, "w") as f:
                f.write(f"{used.user + used.system}\n")
        os._exit(0)

    signal.signal(signal.SIGTERM, ended)

    server = RawServer("many-server", {"tools": {}})

    def list_tools(params: dict[str, Any]) -> dict[str, Any]:
        cursor = params.get("cursor")
        if cursor is not None and not (isinstance(cursor, str) and cursor.isdigit() and 0 < int(cursor) < len(tools)):
            raise RpcError(-32602, f"Invalid cursor: {cursor}")
        start = int(cursor) if cursor else 0
        page: dict[str, Any] = {"tools": tools[start : start + size]}
        if start + size < len(tools):
            page["nextCursor"] = str(start + size)
        return page

    names = {t["name"] for t in tools}

    def call_tool(params: dict[str, Any]) -> dict[str, Any]:
        if params.get("name") not in names:
            raise RpcError(-32602, f"Unknown tool: {params.get('name')}")
        return text_result(f"called {params['name']}")

    server.handlers |= {"tools/list": list_tools, "tools/call": call_tool}
    server.run()
    ended()


if __name__ == "__main__":
    main()
