"""The caps that end a flood from a server (issue 21): how much of anything one server may make mcp-review wait
for, keep or send. Reaching one is never silent: the request fails with a line naming the cap, and the rule
that needed it is blocking (or the listing says where it stopped).

Each can be changed with MCP_REVIEW_LIMITS, e.g. `MCP_REVIEW_LIMITS="listing_items=500,input_rounds=2"`: tests
hit the caps fast that way, and a reviewer with a larger server can raise them. An unknown name or a value that
is not a positive integer is ignored (the default stays).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace


@dataclass(frozen=True)
class Limits:
    listing_pages: int = 500  # pages of one listing followed
    listing_items: int = 12_000  # items of one listing kept (10,000 tools, and a few more, are reviewed whole)
    input_rounds: int = 8  # `input_required` rounds answered for one request
    # requests a server makes of the client (sampling, elicitation, roots, ping: JSON-RPC requests and `inputRequests`
    # entries alike) answered in one session, headless and in the app (connection/asked.py says what happens past it)
    client_requests: int = 10_000
    request_state: int = 4 << 20  # characters of `requestState` echoed back for one request, over its rounds
    session_state: int = 32 << 20  # ... and for every request of one connection
    cursor: int = 1 << 20  # characters of `nextCursor` sent back over one listing: past them it stops there
    task_polls: int = 600  # tasks/get polls of one task before mcp-review stops waiting for it
    calls: int = 20_000  # tool calls one check run makes; later ones are not made (their rules are blocking)
    prompt_messages: int = 1_000  # messages of one prompts/get result judged
    schema_bytes: int = 1 << 20  # a received message larger than this is not validated against the schema
    write_buffer: int = 8 << 20  # bytes waiting to be written to a stdio server that does not read them


def _from_env(text: str) -> Limits:
    known = {f.name for f in fields(Limits)}
    changes = {}
    for part in text.split(","):
        name, _, value = part.partition("=")
        name, value = name.strip(), value.strip()
        if name in known and value.isdigit() and int(value) > 0:
            changes[name] = int(value)
    return replace(Limits(), **changes)


LIMITS = _from_env(os.environ.get("MCP_REVIEW_LIMITS", ""))
