"""A FastMCP server on the last `mcp` 1.x release, the stack of most deployed Python MCP servers.

Runs only under `.deps/mcp1/bin/python` (mcp==1.30.0, installed by scripts/test-deps), never under the
project's venv (mcp 2.x has no `mcp.server.fastmcp`). Read-only annotated tools, a resource, a prompt.

    python fastmcp1.py                                # stdio
    python fastmcp1.py --http --port P                # Streamable HTTP, stateful: http://127.0.0.1:P/mcp
    python fastmcp1.py --http --stateless --port P    # Streamable HTTP, stateless_http=True
    python fastmcp1.py --sse --port P                 # the 2024 HTTP+SSE transport: http://127.0.0.1:P/sse
"""

from __future__ import annotations

import argparse

from mcp.server.fastmcp import FastMCP
from mcp.types import ToolAnnotations

NOTES = {"n1": "Buy milk", "n2": "Review the MCP server"}
READ_ONLY = ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False)


def build(*, port: int, stateless: bool) -> FastMCP:
    mcp = FastMCP(
        "fastmcp1-notes",
        instructions="Notes for tests: search before you read one.",
        host="127.0.0.1",
        port=port,
        stateless_http=stateless,
        log_level="WARNING",
    )

    @mcp.tool(title="Add numbers", annotations=READ_ONLY)
    def add(a: int, b: int) -> int:
        """Add two integers and return the sum."""
        return a + b

    @mcp.tool(title="Search notes", annotations=READ_ONLY)
    def search_notes(query: str) -> list[str]:
        """Search notes by text. Returns the ids of the notes that contain `query` (case-insensitive)."""
        return [k for k, v in NOTES.items() if query.lower() in v.lower()]

    @mcp.tool(title="Get note", annotations=READ_ONLY)
    def get_note(note_id: str) -> str:
        """Get one note's text by its id (n1, n2)."""
        if note_id not in NOTES:
            raise ValueError(f"no note {note_id!r}")
        return NOTES[note_id]

    @mcp.resource("notes://index", name="index", mime_type="text/plain")
    def index() -> str:
        """Every note id, one a line."""
        return "\n".join(NOTES)

    @mcp.prompt()
    def summarize(topic: str) -> str:
        """Ask for a summary of the notes about a topic."""
        return f"Summarize my notes about {topic}."

    return mcp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--http", action="store_true", help="serve Streamable HTTP on /mcp")
    mode.add_argument("--sse", action="store_true", help="serve the 2024 HTTP+SSE transport on /sse")
    parser.add_argument("--stateless", action="store_true", help="with --http: stateless_http=True")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    mcp = build(port=args.port, stateless=args.stateless)
    mcp.run("streamable-http" if args.http else "sse" if args.sse else "stdio")


if __name__ == "__main__":
    main()
