"""The third-party servers from scripts/test-deps install and answer raw JSON-RPC (no project client).

Figures measured against the pinned versions (see tests/thirdparty/__init__.py): with no client capabilities
server-everything lists 13 tools, mcp-server-time 2, mcp-server-git 12.
"""

from __future__ import annotations

import contextlib
import json
import queue
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support import stop
from tests.thirdparty import (
    GIT_COMMITS,
    GIT_REPO_HEAD,
    everything_stdio_argv,
    git_argv,
    time_argv,
)

pytestmark = pytest.mark.thirdparty

LEGACY = "2025-11-25"
TIMEOUT = 20.0
ACCEPT = "application/json, text/event-stream"  # Streamable HTTP: every POST must accept both

EVERYTHING_TOOLS = 13  # no client capabilities; 17 with sampling+elicitation+roots, 19 with tasks too
TIME_TOOLS = ["convert_time", "get_current_time"]
GIT_TOOLS = [
    "git_add",
    "git_branch",
    "git_checkout",
    "git_commit",
    "git_create_branch",
    "git_diff",
    "git_diff_staged",
    "git_diff_unstaged",
    "git_log",
    "git_reset",
    "git_show",
    "git_status",
]


def initialize(id_: int = 1) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": id_,
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY,
            "capabilities": {},
            "clientInfo": {"name": "mcp-review-smoke", "version": "0"},
        },
    }


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


class RawStdio:
    """Newline-delimited JSON-RPC over a child's stdin/stdout, read on a thread so waits can time out."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(b"")

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def response(self, id_: int) -> dict[str, Any]:
        """The response to request `id_`, skipping notifications (server-everything sends list_changed)."""
        while True:
            line = self.lines.get(timeout=TIMEOUT)
            if not line:
                raise AssertionError(f"server closed stdout (exit {self.proc.poll()}) before answering {id_}")
            message = json.loads(line)
            if message.get("id") == id_ and "method" not in message:
                return message

    def request(self, id_: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.send({"jsonrpc": "2.0", "id": id_, "method": method, **({"params": params} if params else {})})
        return self.response(id_)


@contextlib.contextmanager
def stdio(argv: list[str]) -> Iterator[RawStdio]:
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        yield RawStdio(proc)
    finally:
        # close stdin, give it a moment to exit on its own, then terminate the group
        assert proc.stdin is not None
        with contextlib.suppress(OSError):
            proc.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=3)
        stop(proc)


def handshake(rpc: RawStdio) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """initialize + notifications/initialized + tools/list; returns (initialize result, tools)."""
    rpc.send(initialize())
    init = rpc.response(1)
    assert "result" in init, init
    rpc.send(INITIALIZED)
    listed = rpc.request(2, "tools/list")
    assert "result" in listed, listed
    assert "nextCursor" not in listed["result"]  # one page: the counts below are the whole list
    return init["result"], listed["result"]["tools"]


@pytest.mark.quick
def test_everything_stdio_initialize_and_tools_list():
    with stdio(everything_stdio_argv()) as rpc:
        init, tools = handshake(rpc)
    assert init["protocolVersion"] == LEGACY
    assert init["serverInfo"]["name"] == "mcp-servers/everything"
    assert len(tools) == EVERYTHING_TOOLS
    assert {"echo", "get-env", "get-sum", "trigger-long-running-operation"} <= {t["name"] for t in tools}


def test_time_stdio_initialize_and_tools_list():
    with stdio(time_argv()) as rpc:
        init, tools = handshake(rpc)
        called = rpc.request(3, "tools/call", {"name": "get_current_time", "arguments": {"timezone": "UTC"}})
    assert init["serverInfo"] == {"name": "mcp-time", "version": "2026.10.19"}
    assert sorted(t["name"] for t in tools) == TIME_TOOLS
    assert called["result"].get("isError") is not True, called
    assert '"timezone": "UTC"' in called["result"]["content"][0]["text"]


def test_git_stdio_initialize_and_tools_list(git_repo: Path):
    with stdio(git_argv(git_repo)) as rpc:
        init, tools = handshake(rpc)
        logged = rpc.request(3, "tools/call", {"name": "git_log", "arguments": {"repo_path": str(git_repo)}})
    assert init["serverInfo"] == {"name": "mcp-git", "version": "2026.10.19"}
    assert sorted(t["name"] for t in tools) == GIT_TOOLS
    text = logged["result"]["content"][0]["text"]
    assert logged["result"].get("isError") is not True, text
    assert f"Commit: {GIT_REPO_HEAD}" in text  # the fixture repository is deterministic
    assert all(f"Message: {subject}" in text for *_, subject in GIT_COMMITS)


def sse_messages(lines: Iterator[str]) -> Iterator[tuple[str, str]]:
    """(event, data) pairs from a text/event-stream, skipping data-less events (a resumability primer)."""
    event, data = "message", []
    for line in lines:
        if not line:
            if any(data):
                yield event, "\n".join(data)
            event, data = "message", []
        elif line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))


def post_rpc(client: httpx.Client, url: str, message: dict[str, Any], **headers: str) -> tuple[httpx.Headers, Any]:
    """POST one request to a Streamable HTTP endpoint; the answer comes as JSON or on an SSE stream."""
    hdrs = {"accept": ACCEPT, **headers}
    with client.stream("POST", url, json=message, headers=hdrs) as r:
        assert r.status_code == 200, r.read()
        if r.headers["content-type"].startswith("application/json"):
            return r.headers, json.loads(r.read())
        for _, data in sse_messages(r.iter_lines()):
            reply = json.loads(data)
            if reply.get("id") == message["id"]:
                return r.headers, reply
    raise AssertionError(f"no answer to {message['method']}")


def test_everything_streamable_http_answers_initialize(everything_http_url: str):
    assert everything_http_url.endswith("/mcp")
    with httpx.Client(timeout=TIMEOUT) as client:
        headers, init = post_rpc(client, everything_http_url, initialize())
        assert init["result"]["protocolVersion"] == LEGACY
        assert init["result"]["serverInfo"]["name"] == "mcp-servers/everything"
        session = {
            "accept": ACCEPT,
            "mcp-session-id": headers["mcp-session-id"],
            "mcp-protocol-version": LEGACY,
        }
        sent = client.post(everything_http_url, json=INITIALIZED, headers=session)
        assert sent.status_code == 202
        _, listed = post_rpc(
            client, everything_http_url, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, **session
        )
        assert len(listed["result"]["tools"]) == EVERYTHING_TOOLS
        assert client.delete(everything_http_url, headers=session).status_code == 200


def test_everything_sse_answers_initialize(everything_sse_url: str):
    assert everything_sse_url.endswith("/sse")
    with httpx.Client(timeout=TIMEOUT) as client, client.stream("GET", everything_sse_url) as stream:
        assert stream.status_code == 200
        events = sse_messages(stream.iter_lines())
        event, endpoint = next(events)
        assert event == "endpoint" and endpoint.startswith("/message?sessionId=")
        posted = client.post(httpx.URL(everything_sse_url).join(endpoint), json=initialize())
        assert posted.status_code == 202
        reply = next(json.loads(data) for _, data in events if json.loads(data).get("id") == 1)
    assert reply["result"]["protocolVersion"] == LEGACY
    assert reply["result"]["serverInfo"]["name"] == "mcp-servers/everything"
