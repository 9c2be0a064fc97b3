"""An SDK server whose tools ask the client (elicitation, sampling, roots). On 2026-07-28 the SDK asks through
`input_required` results (the client retries with `inputResponses`); on 2025 revisions through server requests."""

from __future__ import annotations

from typing import Annotated

from mcp.server import MCPServer
from mcp.server.mcpserver import AcceptedElicitation, Elicit, ElicitationResult, ListRoots, Resolve, Sample
from mcp.types import CreateMessageResult, ListRootsResult, SamplingMessage, TextContent, ToolAnnotations
from pydantic import BaseModel
from serve import serve

mcp = MCPServer("asking-server", version="1.0.0", log_level="WARNING")
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


class Name(BaseModel):
    name: str


def ask_name() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


@mcp.tool(annotations=READ_ONLY)
async def greet(who: Annotated[ElicitationResult[Name], Resolve(ask_name)]) -> str:
    """Asks the user for a name (elicitation), then greets them."""
    if isinstance(who, AcceptedElicitation):
        return f"Hello, {who.data.name}!"
    return f"No name given ({who.action})"


def draft(topic: str) -> Sample:
    msg = SamplingMessage(role="user", content=TextContent(type="text", text=f"One line about {topic}"))
    return Sample([msg], max_tokens=50)


@mcp.tool(annotations=READ_ONLY)
async def summarize(topic: str, reply: Annotated[CreateMessageResult, Resolve(draft)]) -> str:
    """Asks the client's model for one line about a topic (sampling) and returns it."""
    return reply.content.text if isinstance(reply.content, TextContent) else "(non-text reply)"


def roots() -> ListRoots:
    return ListRoots()


@mcp.tool(annotations=READ_ONLY)
async def show_roots(found: Annotated[ListRootsResult, Resolve(roots)]) -> str:
    """Asks the client for its roots and lists their URIs."""
    return ", ".join(str(r.uri) for r in found.roots) or "(no roots)"


if __name__ == "__main__":
    serve(mcp)
