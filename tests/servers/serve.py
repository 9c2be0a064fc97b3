"""Run an SDK server (high-level MCPServer or low-level Server) as the command line says.

python SERVER.py                    # stdio
python SERVER.py --http --port P    # Streamable HTTP at http://127.0.0.1:P/mcp
python SERVER.py --sse --port P     # legacy HTTP+SSE at http://127.0.0.1:P/sse
"""

from __future__ import annotations

import argparse
import logging
import warnings
from typing import Any


def serve(server: Any, argv: list[str] | None = None) -> None:
    from mcp.shared.exceptions import MCPDeprecationWarning

    warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
    logging.getLogger().setLevel(logging.WARNING)  # MCPServer configures root logging at INFO
    p = argparse.ArgumentParser()
    p.add_argument("--http", action="store_true")
    p.add_argument("--sse", action="store_true")
    p.add_argument("--port", type=int, default=0)
    args, _ = p.parse_known_args(argv)
    if args.http or args.sse:
        import uvicorn

        app = server.sse_app(host="127.0.0.1") if args.sse else server.streamable_http_app(host="127.0.0.1")
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
