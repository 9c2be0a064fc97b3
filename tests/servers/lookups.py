"""Error channels (`python lookups.py [--missing HOW] [--unknown-tool HOW] [--revision R]`): `review.error-channel-correct`.

The exemplary profile of profiled.py plus a read-only lookup, `get_note(note_id)`, that answers the text of a note
it has (n1, n2). How it answers an id it does not have is `--missing`:

- `is-error` (default): a result with `isError: true` ("no note with id ..."): right.
- `raises`: JSON-RPC -32603 "note ... not found": an ordinary failure raised as a protocol error (the defect).
- `swallows`: a success without isError that says "no note with id ...": a failure swallowed, by its own words.
- `empty`: a success without isError whose text is `null`: a lookup may rightly find nothing (no proof).

`--invalid rpc` answers schema-invalid arguments with JSON-RPC -32602 instead of exemplary's isError result.
`--unknown-tool is-error` answers a call to a tool that does not exist with `isError: true` (as the python and
TypeScript SDKs do) instead of exemplary's -32602. `--revision 2025-06-18` negotiates that revision (exemplary
answers invalid arguments with isError, which up to 2025-06-18 the spec and seed 003 list as a protocol error).
"""

from __future__ import annotations

import argparse

import rawserver
from profiled import NOTES, check_args, exemplary
from rawserver import Handler, RpcError, text_result
from wrapping import Json, add_tool, listed, strict, wrap

DESCRIPTION = "Get one note's text by its id. Use when the user names a note; fails when there is no such note."


def serve(missing: str, unknown_tool: str, invalid: str, revision: str | None) -> None:
    if revision:  # initialize answers the newest version it supports when asked a newer one
        rawserver.SUPPORTED = tuple(v for v in rawserver.SUPPORTED if v <= revision)
    server = exemplary()
    note_id = {"type": "string", "maxLength": 40, "description": "Note id, as search_notes returns it"}
    definition = strict("get_note", DESCRIPTION, {"note_id": note_id}, ["note_id"], "Get note")

    def answer(args: Json) -> Json:
        note_id = args["note_id"]
        if note_id in NOTES:
            return text_result(NOTES[note_id])
        if missing == "raises":
            raise RpcError(-32603, f"note {note_id} not found")
        if missing == "empty":
            return text_result("null")
        return text_result(f"no note with id {note_id}", is_error=missing == "is-error")

    add_tool(server, definition, answer)
    schemas = {name: tool["inputSchema"] for name, tool in listed(server).items()}
    if invalid == "rpc":

        def refuse(inner: Handler, params: Json) -> Json:
            problem = check_args(params, schemas.get(str(params.get("name")), {}))
            if params.get("name") in schemas and problem:
                raise RpcError(-32602, f"Invalid arguments: {problem}")
            return inner(params)

        wrap(server, "tools/call", refuse)
    if unknown_tool == "is-error":

        def around(inner: Handler, params: Json) -> Json:
            name = params.get("name")
            unknown = isinstance(name, str) and name not in schemas
            return text_result(f"Unknown tool: {name}", is_error=True) if unknown else inner(params)

        wrap(server, "tools/call", around)
    server.run()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--missing", choices=("is-error", "raises", "swallows", "empty"), default="is-error")
    parser.add_argument("--unknown-tool", choices=("rpc", "is-error"), default="rpc")
    parser.add_argument("--invalid", choices=("is-error", "rpc"), default="is-error")
    parser.add_argument("--revision")
    args = parser.parse_args()
    serve(args.missing, args.unknown_tool, args.invalid, args.revision)
