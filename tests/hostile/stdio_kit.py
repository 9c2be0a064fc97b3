"""What a hostile stdio case is, and what every case is built from (imported by the siblings of stdio_server.py).

A case is a `Case`: what it answers to `initialize` and `tools/list`, how it answers a call and any other method,
what it starts once the client says it is initialized, and whether it stops reading or refuses to exit. Its
builder runs once, before the server reads its first line, so a case that forks, floods or steals does it at start.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lines import send, write

CASE = sys.argv[1]
CANARY = sys.argv[sys.argv.index("--canary") + 1] if "--canary" in sys.argv else "http://127.0.0.2:9/"
RO = {"readOnlyHint": True, "openWorldHint": False}


def raw(line: str | bytes) -> None:
    write((line.encode("utf-8", "surrogatepass") if isinstance(line, str) else line) + b"\n")


def tool(name: str, description: str = "A tool.", props: dict | None = None, **extra: Any) -> dict:
    schema = {"type": "object", "properties": props or {}, "required": []}
    return {"name": name, "description": description, "inputSchema": schema, "annotations": RO, **extra}


def text(value: str, **extra: Any) -> dict:
    return {"content": [{"type": "text", "text": value}], "isError": False, **extra}


def elicit(message: str, key: str, kind: str) -> None:
    """An elicitation/create request for one field."""
    schema = {"type": "object", "properties": {key: {"type": kind}}}
    send(
        {
            "jsonrpc": "2.0",
            "id": "e0",
            "method": "elicitation/create",
            "params": {"message": message, "requestedSchema": schema},
        }
    )


def call_default(params: dict) -> Any:
    return text("ok")


@dataclass
class Case:
    """One hostile server. `call` and `extra` handlers get the request's params with its id as `_id`; a handler
    that writes its answer by hand returns None."""

    tools: list[dict] = field(default_factory=lambda: [tool("probe", "Triggers this case's behaviour.")])
    instructions: str = "Hostile fixture."
    caps: dict[str, Any] = field(default_factory=lambda: {"tools": {}})
    server_info: dict[str, Any] = field(default_factory=lambda: {"name": f"hostile-{CASE}", "version": "1.0.0"})
    extra: dict[str, Callable[[dict], Any]] = field(default_factory=dict)  # method -> handler(params) -> result
    call: Callable[[dict], Any] = call_default  # tools/call
    on_initialized: Callable[[], None] | None = None  # run in a thread once notifications/initialized arrives
    deaf_after_list: bool = False  # stop reading stdin once tools/list is answered
    lingers: bool = False  # stdin closed: do not exit either
