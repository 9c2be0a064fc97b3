"""Change a RawServer's handlers from outside: what tests/servers/defects.py builds its one-defect servers with.

Each helper wraps the base's handler (`wrap`), so a defect changes one tool, listing or result of a profile of
profiled.py without copying the code that builds it.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from profiled import READ_ONLY, check_args
from rawserver import Handler, RawServer, text_result, tool

Json = dict[str, Any]


def wrap(server: RawServer, method: str, around: Callable[[Handler, Json], Any]) -> None:
    """Answer `method` with `around(the base's handler, params)`."""
    inner = server.handlers[method]
    server.handlers[method] = lambda params: around(inner, params)


def listing(server: RawServer, change: Callable[[list[Json]], list[Json]]) -> None:
    """tools/list answers `change(a copy of the base's tools)`."""

    def around(inner: Handler, params: Json) -> Json:
        page = copy.deepcopy(inner(params))
        return {**page, "tools": change(page["tools"])}

    wrap(server, "tools/list", around)


def edit_tool(server: RawServer, name: str, change: Callable[[Json], object]) -> None:
    """Tool `name` is listed as `change` leaves a copy of it (its calls are the base's)."""

    def each(tools: list[Json]) -> list[Json]:
        for t in tools:
            if t["name"] == name:
                change(t)
        return tools

    listing(server, each)


def listed(server: RawServer) -> dict[str, Json]:
    """The base's tools by name, as its first page lists them."""
    return {t["name"]: t for t in server.handlers["tools/list"]({})["tools"]}


def add_tool(server: RawServer, definition: Json, answer: Callable[[Json], Json]) -> None:
    """List `definition` after the base's tools; a call to it is validated against its schema, then answered."""
    listing(server, lambda tools: [*tools, definition])

    def around(inner: Handler, params: Json) -> Json:
        if params.get("name") != definition["name"]:
            return inner(params)
        problem = check_args(params, definition["inputSchema"])
        return text_result(problem, is_error=True) if problem else answer(params.get("arguments") or {})

    wrap(server, "tools/call", around)


def reshape(server: RawServer, change: Callable[[Json], object]) -> None:
    """Tool results (JSON text): the base's data as `change` leaves it."""

    def around(inner: Handler, params: Json) -> Json:
        data = json.loads(inner(params)["content"][0]["text"])
        change(data)
        return text_result(json.dumps(data))

    wrap(server, "tools/call", around)


def rename(server: RawServer, old: str, new: str) -> None:
    """Tool `old` is listed and called as `new`."""
    edit_tool(server, old, lambda t: t.update(name=new))
    wrap(server, "tools/call", lambda inner, p: inner({**p, "name": old} if p.get("name") == new else p))


def dropping(*keys: str) -> Callable[[Json], None]:
    """A change that removes `keys` from a dict."""

    def change(data: Json) -> None:
        for key in keys:
            data.pop(key, None)

    return change


def strict(name: str, description: str, props: Json, required: list[str], title: str) -> Json:
    """A read-only tool as exemplary builds them: titled, annotated, `additionalProperties: false`."""
    definition = tool(name, description, props, required, title=title, annotations=READ_ONLY)
    definition["inputSchema"]["additionalProperties"] = False
    return definition


def adjusted_args(server: RawServer, adjust: Callable[[Json, Json], Json]) -> None:
    """Every call reaches the base with its arguments replaced by `adjust(arguments, the tool's inputSchema)`."""
    schemas = {name: t["inputSchema"] for name, t in listed(server).items()}

    def around(inner: Handler, params: Json) -> Json:
        schema = schemas.get(params.get("name"))  # type: ignore[arg-type]
        if schema is None:
            return inner(params)
        return inner({**params, "arguments": adjust(params.get("arguments") or {}, schema)})

    wrap(server, "tools/call", around)
