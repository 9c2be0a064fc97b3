"""A well-behaved MCPServer: full annotations, typed schemas, structured output, resources, a template, a prompt."""

from __future__ import annotations

from typing import Annotated

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field
from serve import serve

mcp = MCPServer(
    "good-server", version="1.2.0", instructions="Notes for tests: search before you create.", log_level="WARNING"
)
NOTES = {"n1": "Buy milk", "n2": "Review the MCP server"}
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
DESTRUCTIVE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)


class Match(BaseModel):
    id: str
    text: str


class SearchResult(BaseModel):
    matches: list[Match]


@mcp.tool(title="Search notes", annotations=READ_ONLY)
def notes_search(
    query: Annotated[str, Field(max_length=200)], limit: Annotated[int, Field(ge=1, le=50)] = 10
) -> SearchResult:
    """Search notes by text. Use when the user asks to find a note. Returns matching ids and texts."""
    hits = [Match(id=k, text=v) for k, v in NOTES.items() if query.lower() in v.lower()]
    return SearchResult(matches=hits[:limit])


@mcp.tool(title="Get note", annotations=READ_ONLY)
def notes_get(note_id: str) -> str:
    """Get one note by id. Use when the id is known."""
    if note_id not in NOTES:
        raise ToolError(f"no note {note_id}")
    return NOTES[note_id]


@mcp.tool(title="Save note", annotations=WRITES)
def notes_save(note_id: str, text: str) -> str:
    """Create or update a note (writes it in memory). Use when the user wants to store text."""
    NOTES[note_id] = text
    return "saved"


@mcp.tool(title="Delete note", annotations=DESTRUCTIVE)
def notes_delete(note_id: str) -> str:
    """Delete a note permanently. Use when the user asks to remove a note."""
    NOTES.pop(note_id, None)
    return "deleted"


@mcp.resource("notes://index", mime_type="text/plain")
def index() -> str:
    """Every note id."""
    return "\n".join(NOTES)


@mcp.resource("notes://about", mime_type="text/plain")
def about() -> str:
    """What this server is."""
    return "good-server: a fixture for mcp-review"


@mcp.resource("notes://note/{note_id}", mime_type="text/plain")
def note(note_id: str) -> str:
    """One note."""
    return NOTES.get(note_id, "")


@mcp.prompt(title="Summarize notes")
def summarize(topic: str) -> str:
    """Summarize the notes about a topic."""
    return f"Summarize my notes about {topic}."


if __name__ == "__main__":
    serve(mcp)
