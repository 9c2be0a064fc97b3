"""mcp_review.schemas: server messages checked against the vendored official MCP schemas.

The schema files contain no `examples` keywords. The upstream `schema/draft/examples/` messages that could
be found come from older draft commits (e.g. `ttl` rather than `ttlMs`), so they do not validate against the
pinned 2026-07-28 file. The messages below are written by hand, following each revision's schema.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft7Validator, Draft202012Validator

from mcp_review.catalog import take_snapshot
from mcp_review.connection.session import Session, headless_handlers
from mcp_review.connection.wire import WireEntry, WireLog
from mcp_review.schemas import (
    MAX_PROBLEMS,
    REVISIONS,
    SchemaProblem,
    definition_for,
    validate_message,
    validate_wire,
    validator_class,
)
from mcp_review.targets import stdio_target

SCHEMAS = Path(__file__).resolve().parents[2] / "inspector" / "data" / "schemas"
EXAMPLES = Path(__file__).resolve().parent / "sdk_examples"  # vendored: see its README.md
LEGACY = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN = "2026-07-28"
TOOL = {"name": "echo", "description": "Echo", "inputSchema": {"type": "object", "properties": {}}}
MODERN_LIST = {"resultType": "complete", "ttlMs": 0, "cacheScope": "public"}


def response(result: Any, rpc_id: Any = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rpc_id, "result": result}


def where(problems: list[SchemaProblem]) -> set[tuple[str, str]]:
    return {(p.definition, p.path) for p in problems}


# ------------------------------------------------------------------------------------ vendored files
def test_revisions_and_vendored_hashes_match_sources_md():
    assert (*LEGACY, MODERN) == REVISIONS
    table = dict(re.findall(r"`(\S+\.schema\.json)`.*`([0-9a-f]{64})`", (SCHEMAS / "SOURCES.md").read_text()))
    assert set(table) == {f"{rev}.schema.json" for rev in REVISIONS}
    for name, digest in table.items():
        assert hashlib.sha256((SCHEMAS / name).read_bytes()).hexdigest() == digest, name


@pytest.mark.parametrize("revision", REVISIONS)
def test_dialect_per_revision(revision):
    expected = Draft7Validator if revision <= "2025-06-18" else Draft202012Validator
    assert validator_class(revision) is expected


def test_unknown_revision_is_refused():
    with pytest.raises(ValueError, match="1999-01-01"):
        validate_message(response({}), "1999-01-01", "ping")


# ------------------------------------------------------------------------------------- dispatching
@pytest.mark.parametrize("revision", REVISIONS)
def test_definition_for_is_read_from_the_schema(revision):
    assert definition_for(response({"tools": []}), revision, "tools/list") == "ListToolsResult"
    assert definition_for(response({"content": []}), revision, "tools/call") == "CallToolResult"
    subscribe = definition_for(response({}), revision, "resources/subscribe")
    assert subscribe == (None if revision == MODERN else "EmptyResult")  # 2026-07-28: subscriptions/listen
    assert definition_for(response({}), revision, "vendor/custom") is None
    assert definition_for(response({}), revision, None) is None
    note = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
    assert definition_for(note, revision, None) == "ToolListChangedNotification"
    assert definition_for({"jsonrpc": "2.0", "method": "notifications/nope"}, revision, None) is None
    error = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "no"}}
    assert definition_for(error, revision, "x") == (
        "JSONRPCError" if revision <= "2025-06-18" else "JSONRPCErrorResponse"
    )
    sampling = {"jsonrpc": "2.0", "id": 1, "method": "sampling/createMessage", "params": {}}
    assert definition_for(sampling, revision, None) == (None if revision == MODERN else "CreateMessageRequest")


def test_definition_for_revision_specific_results_and_errors():
    assert definition_for(response({"resultType": "input_required"}), MODERN, "tools/call") == ("InputRequiredResult")
    assert definition_for(response({"resultType": "complete"}), MODERN, "tools/call") == "CallToolResult"
    # tools/list may not answer input_required (ListToolsResultResponse): checked as ListToolsResult.
    assert definition_for(response({"resultType": "input_required"}), MODERN, "tools/list") == ("ListToolsResult")
    # The tasks extension is not in the 2026-07-28 schema: nothing specific to check.
    assert definition_for(response({"resultType": "task"}), MODERN, "tools/call") is None
    assert definition_for(response({}), MODERN, "server/discover") == "DiscoverResult"
    assert definition_for(response({}), "2025-11-25", "server/discover") is None
    task = {"taskId": "t", "status": "working", "createdAt": "2025-01-01T00:00:00Z", "ttl": None}
    assert definition_for(response({"task": task}), "2025-11-25", "tools/call") == "CreateTaskResult"
    assert definition_for(response({"task": task}), "2025-06-18", "tools/call") == "CallToolResult"
    unsupported = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "unsupported"}}
    assert definition_for(unsupported, MODERN, "server/discover") == "UnsupportedProtocolVersionError"
    assert definition_for(unsupported, "2025-11-25", "server/discover") == "JSONRPCErrorResponse"
    url = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32042, "message": "go to the URL"}}
    assert definition_for(url, "2025-11-25", "tools/call") == "URLElicitationRequiredError"


# ---------------------------------------------------------------------------------------- messages
@pytest.mark.parametrize("revision", LEGACY)
def test_valid_initialize_result_passes(revision):
    result = {
        "protocolVersion": revision,
        "capabilities": {"tools": {"listChanged": True}, "logging": {}},
        "serverInfo": {"name": "srv", "version": "1.0"},
        "instructions": "hi",
    }
    assert validate_message(response(result), revision, "initialize") == []
    del result["serverInfo"]
    problems = validate_message(response(result), revision, "initialize", seq=7)
    assert problems == [SchemaProblem(7, "InitializeResult", "result", "'serverInfo' is a required property")]


@pytest.mark.parametrize("revision", REVISIONS)
def test_tool_without_input_schema_fails_with_its_path(revision):
    result = {"tools": [TOOL, TOOL, {"name": "broken"}], **MODERN_LIST}
    problems = validate_message(response(result), revision, "tools/list", seq=3)
    assert [(p.seq, p.definition, p.path, p.message) for p in problems] == [
        (3, "ListToolsResult", "result.tools[2]", "'inputSchema' is a required property")
    ]


@pytest.mark.parametrize("revision", REVISIONS)
def test_error_response_with_a_string_code_fails(revision):
    message = {"jsonrpc": "2.0", "id": 4, "error": {"code": "oops", "message": "string error code"}}
    problems = validate_message(message, revision, "tools/call")
    name = "JSONRPCError" if revision <= "2025-06-18" else "JSONRPCErrorResponse"
    assert [(p.definition, p.path, p.message) for p in problems] == [
        (name, "error.code", "'oops' is not of type 'integer'")
    ]
    message["error"]["code"] = -32602
    assert validate_message(message, revision, "tools/call") == []


def test_error_id_rules_differ_between_revisions():
    no_id = {"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}}
    assert where(validate_message(no_id, "2025-06-18")) == {("JSONRPCError", "")}  # id required
    assert validate_message(no_id, "2025-11-25") == []  # id optional from 2025-11-25
    null_id = {**no_id, "id": None}  # JSON-RPC 2.0 says null; no MCP schema allows it
    for revision in REVISIONS:
        assert [p.path for p in validate_message(null_id, revision)] == ["id"]


def test_modern_list_results_need_result_type_and_cache_hints():
    bare = validate_message(response({"tools": [TOOL]}), MODERN, "tools/list")
    assert {(p.path, p.message) for p in bare} == {
        ("result", "'resultType' is a required property"),
        ("result", "'ttlMs' is a required property"),
        ("result", "'cacheScope' is a required property"),
    }
    assert all(p.definition == "ListToolsResult" for p in bare)  # the envelope's duplicate is dropped
    good = {"tools": [TOOL], "resultType": "complete", "ttlMs": 60000, "cacheScope": "private"}
    assert validate_message(response(good), MODERN, "tools/list") == []
    bad = {**good, "ttlMs": -1, "cacheScope": "shared"}
    assert where(validate_message(response(bad), MODERN, "tools/list")) == {
        ("ListToolsResult", "result.ttlMs"),
        ("ListToolsResult", "result.cacheScope"),
    }
    # The same bare result is fine for a legacy revision.
    assert validate_message(response({"tools": [TOOL]}), "2025-11-25", "tools/list") == []


def test_modern_input_required_and_coded_errors():
    elicit = {
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": "Name?",
            "requestedSchema": {"type": "object", "properties": {}},
        },
    }
    interim = {"resultType": "input_required", "inputRequests": {"name": elicit}, "requestState": "s1"}
    assert validate_message(response(interim), MODERN, "tools/call") == []
    broken = {"resultType": "input_required", "inputRequests": {"name": {"method": "elicitation/create"}}}
    problems = validate_message(response(broken), MODERN, "tools/call")
    assert problems and all(p.definition == "InputRequiredResult" for p in problems)
    assert all(p.path.startswith("result.inputRequests.name") for p in problems)

    error = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "unsupported"}}
    assert where(validate_message(error, MODERN, "server/discover")) == {("UnsupportedProtocolVersionError", "error")}
    error["error"]["data"] = {"supported": ["2026-07-28"], "requested": "2099-01-01"}
    assert validate_message(error, MODERN, "server/discover") == []


@pytest.mark.parametrize("revision", REVISIONS)
def test_misnamed_notification_matches_no_server_notification(revision):
    wrong = {"jsonrpc": "2.0", "method": "notifications/tools/listChanged"}
    problems = validate_message(wrong, revision, seq=9)
    assert len(problems) == 1
    assert (problems[0].seq, problems[0].definition, problems[0].path) == (9, "ServerNotification", "method")
    assert "'notifications/tools/listChanged' is not a notification a server sends" in problems[0].message
    assert len(problems[0].message) <= 300
    right = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
    assert validate_message(right, revision) == []


def test_client_only_messages_and_server_requests():
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert where(validate_message(initialized, "2025-06-18")) == {("ServerNotification", "method")}
    ping = {"jsonrpc": "2.0", "id": 5, "method": "ping"}
    assert validate_message(ping, "2025-06-18") == []
    # 2026-07-28: servers send no requests at all (no ServerRequest union; MRTR instead).
    problems = validate_message(ping, MODERN)
    assert where(problems) == {("ServerRequest", "method")}
    assert "servers send no requests" in problems[0].message
    sampling = {"jsonrpc": "2.0", "id": 6, "method": "sampling/createMessage", "params": {"messages": []}}
    assert where(validate_message(sampling, "2025-06-18")) == {("CreateMessageRequest", "params")}


def test_union_failures_point_into_the_plausible_branch():
    result = {"content": [{"type": "text"}, {"type": "text", "text": "ok"}, 5]}
    problems = validate_message(response(result), "2025-06-18", "tools/call")
    assert [(p.path, p.message) for p in problems] == [
        ("result.content[0]", "'text' is a required property"),
        ("result.content[2]", "5 is not of type 'object'"),
    ]


def test_messages_stay_short_and_problems_are_capped():
    huge = {f"key{i}": "x" * 50 for i in range(2000)}
    problems = validate_message(response({"tools": huge}), "2025-06-18", "tools/list")
    assert [p.path for p in problems] == ["result.tools"]
    assert len(problems[0].message) <= 300 and problems[0].message.endswith("is not of type 'array'")

    bad = [{"name": i} for i in range(10_000)]
    problems = validate_message(response({"tools": bad}), "2025-11-25", "tools/list")
    assert len(problems) == MAX_PROBLEMS + 1
    assert "only the first" in problems[-1].message


def test_odd_paths_are_quoted():
    meta = {"io.modelcontextprotocol/serverInfo": {"name": 3, "version": "1"}}
    result = {"tools": [], **MODERN_LIST, "_meta": meta}
    problems = validate_message(response(result), MODERN, "tools/list")
    assert [p.path for p in problems] == ['result._meta["io.modelcontextprotocol/serverInfo"].name']


def test_not_a_message_at_all():
    problems = validate_message({"jsonrpc": "2.0", "id": 1}, "2025-06-18")
    assert where(problems) == {("JSONRPCMessage", "")}
    assert where(validate_message("hello", "2025-06-18")) == {("JSONRPCMessage", "")}


def test_batches_allowed_only_in_2025_03_26():
    batch = [response({}, 1), {"jsonrpc": "2.0", "id": 2, "error": {"code": "x", "message": "m"}}]
    assert where(validate_message(batch, "2025-03-26", "ping")) == {("JSONRPCError", "[1].error.code")}
    assert where(validate_message(batch, "2025-06-18", "ping")) == {
        ("JSONRPCMessage", ""),
        ("JSONRPCError", "[1].error.code"),
    }


@pytest.mark.slow
def test_ten_thousand_tools_validate():
    """Correctness at size; how long it takes is measured by bench/ (tests never assert timings)."""
    tool = {
        **TOOL,
        "title": "Echo",
        "inputSchema": {
            "type": "object",
            "properties": {
                "text": {"type": "string", "description": "what to echo"},
                "n": {"type": "integer"},
            },
            "required": ["text"],
        },
        "outputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
        "annotations": {"readOnlyHint": True, "openWorldHint": False},
        "icons": [{"src": "data:image/png;base64,AA==", "mimeType": "image/png", "sizes": ["16x16"]}],
    }
    result = {"tools": [{**tool, "name": f"tool_{i}"} for i in range(10_000)], **MODERN_LIST}
    for revision in ("2025-06-18", MODERN):
        validate_message(response({"tools": []}), revision, "tools/list")  # load + build the validators
        assert validate_message(response(result), revision, "tools/list") == []


# ------------------------------------------------------------------------------------ validate_wire
def wire(*rows: tuple[str, int, Any]) -> list[WireEntry]:
    """The rows recorded by a wire log, which pairs them as it records them: ("send"|"recv", conn, message), a
    probe's raw text ("raw", conn, text) or a line ("stderr", conn, text)."""
    log = WireLog()
    for d, c, m in rows:
        if d == "raw":
            log.raw_send(c, m)
        elif d == "stderr":
            log.line("stderr", c, m)
        else:
            log.message(d, c, m, json.dumps(m))  # type: ignore[arg-type]
    return log.entries


def request(method: str, rpc_id: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rpc_id, "method": method, "params": {}}


def test_validate_wire_pairs_responses_per_connection_and_id():
    tools = response({"tools": [TOOL]}, 1)
    prompts = response({"prompts": [{"name": "p"}]}, 1)
    entries = wire(
        ("send", 1, request("tools/list", 1)),
        ("send", 2, request("prompts/list", 1)),
        ("send", 2, request("tools/list", "1")),  # a string id is another id
        ("recv", 2, prompts),
        ("recv", 1, tools),
        ("recv", 2, response({"tools": [{"name": "x"}]}, "1")),
        ("recv", 1, response({"prompts": []}, 1)),  # answered twice: the second has no request left
    )
    problems = validate_wire(entries, "2025-06-18")
    assert [(p.seq, p.definition, p.path) for p in problems] == [(6, "ListToolsResult", "result.tools[0]")]
    assert validate_wire(entries, "2025-06-18", conn=1) == []
    assert [p.seq for p in validate_wire(entries, "2025-06-18", conn={2})] == [6]
    # Swapped pairing would be caught: a tools result checked as ListPromptsResult fails.
    swapped = wire(("send", 1, request("prompts/list", 1)), ("recv", 1, tools))
    assert where(validate_wire(swapped, "2025-06-18")) == {("ListPromptsResult", "result")}


def test_validate_wire_batches_and_skips_what_is_not_a_server_message():
    entries = wire(
        ("send", 1, [request("tools/list", 7), request("ping", 8)]),
        ("recv", 1, [response({}, 8), response({"tools": "none"}, 7)]),
        ("stderr", 1, "a line"),
        ("raw", 1, '{"jsonrpc": "2.0", "id": 9, "method": "tools/list"}'),  # raw text sent by a probe
        ("recv", 1, response({"tools": [{"name": "x"}]}, 9)),
        ("send", 1, {"jsonrpc": "2.0", "method": "notifications/tools/listChanged"}),  # ours: not checked
    )
    problems = validate_wire(entries, "2025-03-26")
    assert [(p.seq, p.definition, p.path) for p in problems] == [
        (2, "ListToolsResult", "[1].result.tools"),
        (5, "ListToolsResult", "result.tools[0]"),
    ]


# ---------------------------------------------------------------------------------- live sessions
async def exercise(s: Session) -> None:
    await take_snapshot(s)
    calls = [
        ("echo", {"text": "hi"}),
        ("add", {"a": 1, "b": 2}),
        ("fail", {}),
        ("no_such_tool", {}),
        ("slow_count", {"n": 2}),
        ("greet", {}),
        ("summarize", {"topic": "x"}),
        ("show_roots", {}),
        ("add_tool_dynamically", {}),
    ]
    for name, arguments in calls:
        await s.complete("tools/call", {"name": name, "arguments": arguments})
    await s.complete("prompts/get", {"name": "review", "arguments": {"code": "x"}})
    await s.complete("resources/read", {"uri": "test://static"})
    ref = {"type": "ref/prompt", "name": "review"}
    await s.complete("completion/complete", {"ref": ref, "argument": {"name": "language", "value": "py"}})
    await s.request("vendor/unknown", {})


@pytest.mark.parametrize(("era", "revision"), [("legacy", "2025-11-25"), ("modern", MODERN)])
@pytest.mark.slow
async def test_good_server_session_has_no_schema_problems(era, revision):
    target = stdio_target([sys.executable, str(EXAMPLES / "good_server.py")])
    async with Session(target, era=era, handlers=headless_handlers()) as s:
        await exercise(s)
    assert s.revision == revision
    assert validate_wire(s.wire.entries, revision) == []
    received = [e for e in s.wire.entries if e.direction == "recv"]
    sent = {(e.conn, e.rpc_id): e.method for e in s.wire.entries if e.direction == "send" and e.method}
    checked = {definition_for(e.message, revision, sent.get((e.conn, e.rpc_id))) for e in received}
    assert {"ListToolsResult", "CallToolResult", "ReadResourceResult", "CompleteResult"} <= checked
    if era == "legacy":
        assert {"InitializeResult", "ElicitRequest", "CreateMessageRequest", "ListRootsRequest"} <= checked
        assert {"LoggingMessageNotification", "ToolListChangedNotification"} <= checked
    else:
        assert {"DiscoverResult", "InputRequiredResult"} <= checked


async def test_raw_bad_server_session_has_its_schema_problems():
    target = stdio_target([sys.executable, str(EXAMPLES / "raw_bad_stdio_server.py")])
    async with Session(target, era="legacy", timeout=5) as s:
        await take_snapshot(s)
        await s.request("tools/call", {"name": "noschema", "arguments": {}})
        await s.request("vendor/unknown", {})  # answered {"result": {}}: not a schema matter
    assert s.revision == "2025-11-25"  # it echoes the version we asked for
    problems = validate_wire(s.wire.entries, s.revision)
    assert [(p.definition, p.path, p.message) for p in problems] == [
        ("ListToolsResult", "result.tools[0].inputSchema", "'type' is a required property"),
        ("JSONRPCErrorResponse", "error.code", "'oops' is not of type 'integer'"),
    ]
    by_seq = {e.seq: e for e in s.wire.entries}
    assert [by_seq[p.seq].rpc_id for p in problems] == [2, 3]
