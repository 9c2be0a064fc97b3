"""mcp-review's CLI against real servers on the stacks reviewers meet, over every transport each one serves.

Every server x transport (see tests/thirdparty/__init__.py for versions and launch lines) is listed (`list --format
json`: the exact tool names, the transport, the era `--era auto` settles on), checked (`check --calls
read-only`, packs review and spec: a verdict, no rule that crashed) and called once (`call`: the real result).
Stacks: mcp 1.x FastMCP (stdio, Streamable HTTP stateful and stateless, SSE) and a 1.x low-level server, the
TypeScript SDK (stdio, Streamable HTTP), mcp 2.x, FastMCP 2+ (stdio, Streamable HTTP, SSE). server-everything,
mcp-server-time and mcp-server-git are listed and called in test_thirdparty_smoke.py and _client.py.

Tools not annotated `readOnlyHint: true` (or open-world, like fetch) are only called with `--yes`; each such
call below is harmless: arithmetic, an echo, a SELECT, a page on 127.0.0.1.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from tests.pace import slowness
from tests.support import finish
from tests.thirdparty import (
    FILESYSTEM_FILES,
    MEMORY_GRAPH,
    SQLITE_NOTES,
    calculator_argv,
    fastmcp1_argv,
    fastmcp1_http_url,  # noqa: F401 (fixture)
    fastmcp1_sse_url,  # noqa: F401 (fixture)
    fastmcp1_stateless_url,  # noqa: F401 (fixture)
    fastmcp_argv,
    fastmcp_http_url,  # noqa: F401 (fixture)
    fastmcp_sse_url,  # noqa: F401 (fixture)
    fetch_argv,
    filesystem_argv,
    loopback_page_url,  # noqa: F401 (fixture)
    make_files,
    make_memory_file,
    make_sqlite_db,
    memory_argv,
    sdk_example_http_url,  # noqa: F401 (fixture)
    sequential_thinking_argv,
    sqlite_argv,
)

pytestmark = pytest.mark.thirdparty

TIMEOUT = 10  # mcp-review's --timeout (every wait) on the reference machine, scaled by its slowness when given
VERDICTS = {"PASS", "PASS_WITH_WARNINGS", "FAIL", "BLOCKED"}


class Data(NamedTuple):
    """What the servers read, made once per module: nothing here is written by a read-only call."""

    files: Path
    memory: Path
    db: Path
    page_url: str


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory, loopback_page_url: str) -> Data:  # noqa: F811
    root = tmp_path_factory.mktemp("stacks")
    return Data(
        files=make_files(root / "files"),
        memory=make_memory_file(root / "memory.jsonl"),
        db=make_sqlite_db(root / "notes.db"),
        page_url=loopback_page_url,
    )


Target = Callable[[pytest.FixtureRequest, Data], list[str]]


def stdio(argv: Callable[[Data], list[str]]) -> Target:
    return lambda _request, data: ["--", *argv(data)]


def url(fixture: str, *extra: str) -> Target:
    return lambda request, _data: ["--url", request.getfixturevalue(fixture), *extra]


@dataclass(frozen=True)
class Case:
    id: str
    target: Target
    transport: str  # what `list` reports: stdio, http or sse
    era: str  # what --era auto settles on: legacy (initialize), modern (server/discover)
    tools: tuple[str, ...]  # every tool, sorted
    tool: str  # the one `call` calls
    args: Callable[[Data], dict[str, Any]]
    expect: str  # in the text of the call's content
    consent: bool = False  # --yes: the tool is not annotated read-only, or is open-world


FASTMCP1_TOOLS = ("add", "get_note", "search_notes")
FASTMCP_TOOLS = ("call_tool_bulk", "call_tools_bulk", "echo_tool")


def fastmcp1_case(id_: str, target: Target, transport: str) -> Case:
    return Case(id_, target, transport, "legacy", FASTMCP1_TOOLS, "get_note", lambda _: {"note_id": "n2"}, "Review")


def fastmcp_case(id_: str, target: Target, transport: str) -> Case:
    # fastmcp takes about 4 s to import before it reads stdin: `server/discover` waits --timeout, so even a
    # slow start settles on the era the server speaks.
    echo = {"text": "hello from the review"}
    return Case(id_, target, transport, "modern", FASTMCP_TOOLS, "echo_tool", lambda _: echo, echo["text"], True)


CASES = [
    # mcp 1.x (1.30.0): our FastMCP fixture on every transport it has, and two real servers
    fastmcp1_case("fastmcp1-stdio", stdio(lambda _: fastmcp1_argv()), "stdio"),
    fastmcp1_case("fastmcp1-http", url("fastmcp1_http_url"), "http"),
    fastmcp1_case("fastmcp1-http-stateless", url("fastmcp1_stateless_url"), "http"),
    fastmcp1_case("fastmcp1-sse", url("fastmcp1_sse_url", "--transport", "sse"), "sse"),
    Case(
        "calculator-stdio",
        stdio(lambda _: calculator_argv()),
        "stdio",
        "legacy",
        ("calculate",),
        "calculate",
        lambda _: {"expression": "2*(3+4)"},
        "14",
        consent=True,
    ),
    Case(
        "sqlite-stdio",
        stdio(lambda d: sqlite_argv(d.db)),
        "stdio",
        "legacy",
        ("append_insight", "create_table", "describe_table", "list_tables", "read_query", "write_query"),
        "read_query",
        lambda _: {"query": "SELECT body FROM notes WHERE id = 'n2'"},
        SQLITE_NOTES[1][1],
        consent=True,
    ),
    # TypeScript SDK
    Case(
        "sdk-example-http",
        url("sdk_example_http_url"),
        "http",
        "legacy",
        (
            "collect-user-info",
            "collect-user-info-task",
            "delay",
            "greet",
            "list-files",
            "multi-greet",
            "start-notification-stream",
        ),
        "multi-greet",  # read-only; sends two log notifications a second apart, then answers
        lambda _: {"name": "Ada"},
        "Good morning, Ada!",
    ),
    Case(
        "memory-stdio",
        stdio(lambda d: memory_argv(d.memory)),
        "stdio",
        "legacy",
        (
            "add_observations",
            "create_entities",
            "create_relations",
            "delete_entities",
            "delete_observations",
            "delete_relations",
            "open_nodes",
            "read_graph",
            "search_nodes",
        ),
        "search_nodes",
        lambda _: {"query": "Ada"},
        MEMORY_GRAPH[0]["observations"][0],
    ),
    Case(
        "filesystem-stdio",
        stdio(lambda d: filesystem_argv(d.files)),
        "stdio",
        "legacy",
        (
            "create_directory",
            "directory_tree",
            "edit_file",
            "get_file_info",
            "list_allowed_directories",
            "list_directory",
            "list_directory_with_sizes",
            "move_file",
            "read_file",
            "read_media_file",
            "read_multiple_files",
            "read_text_file",
            "search_files",
            "write_file",
        ),
        "list_directory",
        lambda d: {"path": str(d.files)},
        "\n".join(f"[FILE] {name}" for name in sorted(FILESYSTEM_FILES)),
    ),
    Case(
        "sequential-thinking-stdio",
        stdio(lambda _: sequential_thinking_argv()),
        "stdio",
        "legacy",
        ("sequentialthinking",),
        "sequentialthinking",
        lambda _: {
            "thought": "Read the wire first",
            "nextThoughtNeeded": False,
            "thoughtNumber": 1,
            "totalThoughts": 1,
        },
        '"thoughtHistoryLength": 1',
    ),
    # mcp 2.x
    Case(
        "fetch-stdio",
        lambda _request, _data: ["--allow-net", "127.0.0.1", "--", *fetch_argv()],  # the page it fetches: named
        "stdio",
        "modern",
        ("fetch",),
        "fetch",
        lambda d: {"url": d.page_url, "raw": True},  # raw: the markdown path runs node's Readability (~5 s)
        "The wire is the truth.",
        consent=True,  # annotated read-only but open-world
    ),
    # FastMCP 2+ (4.1.2)
    fastmcp_case("fastmcp-stdio", stdio(lambda _: fastmcp_argv()), "stdio"),
    fastmcp_case("fastmcp-http", url("fastmcp_http_url"), "http"),
    fastmcp_case("fastmcp-sse", url("fastmcp_sse_url", "--transport", "sse"), "sse"),
]


def review(request: pytest.FixtureRequest, data: Data, case: Case, *command: str) -> tuple[int, str]:
    """Run `mcp-review COMMAND... --timeout T TARGET`; (exit code, stdout). stderr goes into the failure."""
    timeout = f"{TIMEOUT * slowness():g}"
    argv = [sys.executable, "-m", "mcp_review", *command, "--timeout", timeout, *case.target(request, data)]
    out = finish(argv, 120)  # a generous hang bound on top, at the machine's pace
    assert out.returncode in (0, 1, 3), f"exit {out.returncode}: {out.stderr}"
    return out.returncode, out.stdout


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_list(request, data, case):
    _, out = review(request, data, case, "list", "--format", "json")
    listed = json.loads(out)
    assert sorted(t["name"] for t in listed["tools"]) == list(case.tools)
    assert listed["transport"] == case.transport
    assert listed["era"] == case.era


# No authorization layer: one fail, transport-config's; audience-validated and resource-server-metadata point to it.
NO_AUTH = ("review.transport-config",)
# An unknown tool answered with isError: true (the SDKs' way): seed 003 says it MUST be a JSON-RPC error (issue 20).
UNKNOWN_TOOL = "review.error-channel-correct"
# Every rule that fails each server under the default packs, each judged true in docs/examples/README.md: a
# new fail here is a false one until someone judges it (and a fail gone is a catch lost).
FAILS = {
    "calculator-stdio": (UNKNOWN_TOOL, "spec.unknown-method"),  # -32602 for an unknown method
    "filesystem-stdio": (UNKNOWN_TOOL,),
    "memory-stdio": (UNKNOWN_TOOL,),
    "sequential-thinking-stdio": (UNKNOWN_TOOL,),
    "sqlite-stdio": ("review.error-channel-correct", "spec.unknown-method"),  # an unknown tool succeeds
    "sdk-example-http": (*NO_AUTH, UNKNOWN_TOOL, "spec.http-transport", "spec.icons", "spec.wire-schema"),
    "fastmcp1-stdio": (UNKNOWN_TOOL, "spec.unknown-method"),
    # mcp 1.x answers an error on a request's POST with `"id": "server-error"`, not the request's id
    "fastmcp1-http": (*NO_AUTH, UNKNOWN_TOOL, "spec.unknown-method", "spec.response-ids"),
    "fastmcp1-http-stateless": (*NO_AUTH, UNKNOWN_TOOL, "spec.unknown-method", "spec.response-ids"),
    "fastmcp1-sse": (*NO_AUTH, UNKNOWN_TOOL, "spec.unknown-method"),
    "fastmcp-stdio": (UNKNOWN_TOOL,),
    "fastmcp-http": (*NO_AUTH, UNKNOWN_TOOL, "spec.http-transport"),  # accepts a foreign Origin
    # legacy SSE takes a foreign Origin (review.browser-origins-refused: every HTTP transport, issue 37); an answer
    # on the event stream carries another id than its request's
    "fastmcp-sse": (*NO_AUTH, UNKNOWN_TOOL, "review.browser-origins-refused", "spec.response-ids"),
}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_check(request, data, case):
    code, out = review(request, data, case, "check", "--format", "json", "--calls", "read-only")
    report = json.loads(out)
    assert report["verdict"] in VERDICTS
    # the exit code is the gate's (default --fail-on security,blocking), not the overall verdict's
    assert report["failOn"] == ["security", "blocking"]
    assert code == {"FAIL": 1, "BLOCKED": 3}.get(report["gate"], 0)
    assert report["findings"]
    assert not [f for f in report["findings"] if "rule error" in f["message"]]
    failed = sorted({f["rule"] for f in report["findings"] if f["status"] == "fail"})
    assert failed == sorted(FAILS.get(case.id, ())), [f for f in report["findings"] if f["status"] == "fail"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_call(request, data, case):
    consent = ["--yes"] if case.consent else []
    args = json.dumps(case.args(data))
    code, out = review(request, data, case, "call", case.tool, "--args", args, "--format", "json", *consent)
    result = json.loads(out)
    assert code == 0 and result.get("isError") is not True, result
    assert case.expect in "\n".join(block.get("text", "") for block in result["content"])


def test_fastmcp1_http_auto_era_is_the_legacy_review(request, data):
    """mcp 1.x answers server/discover with HTTP 400, `"id": "server-error"` and a session id of its own: auto
    takes that error as "legacy" at once, keeps no session id from it, and reviews exactly as --era legacy."""
    case = next(c for c in CASES if c.id == "fastmcp1-http")

    def findings(*era: str) -> set[tuple[str, str | None, str]]:
        _, out = review(request, data, case, "check", "--format", "json", "--calls", "read-only", *era)
        # spec.wire-schema counts the messages it validated: auto has one more (the discover error)
        # spec.response-ids: auto's server/discover is answered with `"id": "server-error"`, a request legacy never
        # sends (its fail is test_check's)
        return {
            (f["rule"], f["subject"], f["status"])
            for f in json.loads(out)["findings"]
            if f["rule"] != "spec.response-ids"
        }

    assert findings() == findings("--era", "legacy")


def test_fastmcp1_http_error_answer_is_reported_as_itself(fastmcp1_http_url):  # noqa: F811
    """An error answer is that error, said at once, never a timeout: --era modern on a legacy server."""
    argv = [
        sys.executable,
        "-m",
        "mcp_review",
        "list",
        "--era",
        "modern",
        "--timeout",
        f"{30 * slowness():g}",
        "--url",
        fastmcp1_http_url,
    ]
    out = finish(argv, 20)  # far less than --timeout, at any pace
    assert out.returncode == 2
    assert "server/discover: JSON-RPC error -32600 (Bad Request: Missing session ID)" in out.stderr, out.stderr
