"""Smoke tests of the fixture servers in tests/servers/ and the bundled demo, with raw JSON lines (no project client).

Each test runs a server as a subprocess, writes JSON-RPC lines to its stdin and reads what comes back, so a
fixture that drifts (a lost defect, a changed count) fails here and not in a puzzling client test.
"""

from __future__ import annotations

import contextlib
import json
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx

from tests.pace import Patience
from tests.support import PYTHON, ROOT, SERVERS, fixture_argv, http_fixture, stop

LEGACY = "2025-11-25"
MODERN = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
}
DEMO = [PYTHON, "-m", "mcp_review.demo"]


class Talk:
    """One running stdio server: send raw lines, collect every stdout line (JSON or not) in order."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(
            argv,
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []  # every stdout line so far, in order
        self.next_id = 100
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.put(raw.decode("utf-8", "replace").rstrip("\n"))
        self.lines.put(None)

    def send(self, message: dict[str, Any] | str) -> None:
        assert self.proc.stdin is not None
        text = message if isinstance(message, str) else json.dumps(message)
        self.proc.stdin.write(text.encode() + b"\n")
        self.proc.stdin.flush()

    def read(self, timeout: float) -> str | None:
        """The next stdout line, or None at end of output or when nothing came within `timeout` (a hang bound at
        the machine's pace, tests/pace.py)."""
        patience = Patience(timeout)
        while True:
            try:
                line = self.lines.get(timeout=min(0.25, patience.left()) or 0.01)
                break
            except queue.Empty:
                if patience.spent():
                    return None
        if line is not None:
            self.seen.append(line)
        return line

    def request(self, method: str, params: dict[str, Any] | None = None, timeout: float = 15.0) -> dict[str, Any]:
        """Send a request and return its response (result or error); other lines stay in `seen`."""
        self.next_id += 1
        rid = self.next_id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        patience = Patience(timeout)
        while not patience.spent():
            line = self.read(patience.remaining)
            if line is None:
                break
            with contextlib.suppress(ValueError):
                reply = json.loads(line)
                if isinstance(reply, dict) and reply.get("id") == rid:
                    return reply
        raise AssertionError(f"no answer to {method} within {timeout}s; stdout so far: {self.seen[-5:]}")

    def result(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        reply = self.request(method, params)
        assert "result" in reply, reply
        return reply["result"]

    def initialize(self, version: str = LEGACY) -> dict[str, Any]:
        init = self.result(
            "initialize",
            {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return init

    def list_all(self, method: str, key: str, params: dict[str, Any] | None = None) -> list[list[Any]]:
        """Follow nextCursor; return the pages (at most 50, to survive a loop)."""
        pages, cursor = [], None
        for _ in range(50):
            page = self.result(method, {**(params or {}), **({"cursor": cursor} if cursor else {})})
            pages.append(page[key])
            cursor = page.get("nextCursor")
            if not cursor:
                break
        return pages


@contextlib.contextmanager
def talk(argv: list[str]) -> Iterator[Talk]:
    t = Talk(argv)
    try:
        yield t
    finally:
        stop(t.proc)


def by_name(tools: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {t["name"]: t for t in tools}


# ------------------------------------------------------------------------------------------------ good


def test_good_legacy_handshake_tools_resources_prompts():
    with talk(fixture_argv("good")) as t:
        init = t.initialize("2025-06-18")
        assert init["protocolVersion"] == "2025-06-18"
        assert init["serverInfo"] == {"name": "good-server", "version": "1.2.0"} and init["instructions"]
        assert set(init["capabilities"]) >= {"tools", "resources", "prompts"}
        tools = by_name(t.result("tools/list")["tools"])
        assert list(tools) == ["notes_search", "notes_get", "notes_save", "notes_delete"]
        for tool in tools.values():
            assert tool["title"] and tool["description"]
            assert set(tool["annotations"]) == {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}
        search = tools["notes_search"]
        assert search["inputSchema"]["required"] == ["query"]
        limit = search["inputSchema"]["properties"]["limit"]
        assert limit["type"] == "integer" and (limit["minimum"], limit["maximum"]) == (1, 50)
        assert search["outputSchema"]["required"] == ["matches"]
        assert tools["notes_save"]["annotations"]["idempotentHint"] is True
        assert tools["notes_save"]["annotations"]["destructiveHint"] is False
        assert tools["notes_delete"]["annotations"]["destructiveHint"] is True
        found = t.result("tools/call", {"name": "notes_search", "arguments": {"query": "milk"}})
        assert found["structuredContent"] == {"matches": [{"id": "n1", "text": "Buy milk"}]}
        assert len(t.result("resources/list")["resources"]) == 2
        assert [r["uriTemplate"] for r in t.result("resources/templates/list")["resourceTemplates"]] == [
            "notes://note/{note_id}"
        ]
        [prompt] = t.result("prompts/list")["prompts"]
        assert prompt["arguments"] == [{"name": "topic", "required": True}]
        assert t.result("ping") == {}
    assert t.proc.stderr is not None and t.proc.stderr.read() == b"", "log level WARNING: nothing on stderr"


def test_good_modern_era_discover_on_a_fresh_process():
    with talk(fixture_argv("good")) as t:
        found = t.result("server/discover", {"_meta": META})
        assert MODERN in found["supportedVersions"]
        assert found["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "good-server"
        assert len(t.result("tools/list", {"_meta": META})["tools"]) == 4
        assert t.request("tools/list", {})["error"]["code"] == -32602, "no _meta: invalid params"


def test_good_over_streamable_http_and_sse():
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
    }
    accept = {"Accept": "application/json, text/event-stream"}
    with http_fixture("good") as url:
        r = httpx.post(url, json=init, headers=accept, timeout=10)
        assert r.status_code == 200 and r.headers.get("mcp-session-id")
        assert '"good-server"' in r.text
    with (
        http_fixture("good", mode="--sse", path="/sse") as url,
        httpx.Client(timeout=10) as client,
        client.stream("GET", url) as stream,
    ):
        lines = stream.iter_lines()
        assert next(lines) == "event: endpoint"
        endpoint = next(lines).removeprefix("data: ")
        assert endpoint.startswith("/messages/")
        posted = client.post(url.removesuffix("/sse") + endpoint, json=init, headers=accept)
        assert posted.status_code == 202
        data = next(line for line in lines if line.startswith("data: "))
        assert json.loads(data.removeprefix("data: "))["result"]["serverInfo"]["name"] == "good-server"


# ------------------------------------------------------------------------------------- rawserver fixtures


def test_rawserver_basics_on_banner():
    with talk(fixture_argv("banner")) as t:
        assert t.read(15) == "Starting banner-server v1 ... ready", "the banner comes first, before any request"
        assert t.initialize("2024-11-05")["protocolVersion"] == "2024-11-05", "a supported version is echoed"
        assert t.initialize("1999-01-01")["protocolVersion"] == LEGACY, "else a counter-offer"
        tools = t.result("tools/list")["tools"]
        assert [x["name"] for x in tools] == ["echo_text", "get_time"]
        assert "debug: listing tools" in t.seen, "junk on stdout on every tools/list"
        assert t.result("ping") == {}
        assert t.request("server/discover", {"_meta": META})["error"]["code"] == -32601, "legacy-era only"
        assert t.request("no/such-method")["error"]["code"] == -32601
        t.send("{this is not json")
        assert json.loads(t.read(5) or "{}")["error"]["code"] == -32700


def test_crash_exits_3_and_explains_on_stderr():
    out = subprocess.run(fixture_argv("crash"), capture_output=True, text=True, timeout=15, stdin=subprocess.DEVNULL)
    assert out.returncode == 3 and out.stdout == ""
    assert "fatal: missing config file /etc/crash-server.toml" in out.stderr


def test_hang_never_answers_survives_stdin_close_and_dies_on_sigterm():
    with talk(fixture_argv("hang")) as t:
        t.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}})
        assert t.read(1.0) is None, "no answer"
        assert t.proc.stdin is not None
        t.proc.stdin.close()
        time.sleep(0.5)
        assert t.proc.poll() is None, "still running after stdin closed"
        t.proc.send_signal(signal.SIGTERM)
        assert t.proc.wait(timeout=5) == -signal.SIGTERM


def test_paginated_pages_invalid_cursor_and_loop():
    with talk(fixture_argv("paginated")) as t:
        t.initialize()
        pages = t.list_all("tools/list", "tools")
        assert [len(p) for p in pages] == [10, 10, 5]
        assert len({x["name"] for p in pages for x in p}) == 25
        assert t.request("tools/list", {"cursor": "!!bogus!!"})["error"]["code"] == -32602
    with talk(fixture_argv("paginated", "--loop")) as t:
        t.initialize()
        first = t.result("tools/list")
        second = t.result("tools/list", {"cursor": first["nextCursor"]})
        assert second["nextCursor"] == first["nextCursor"], "page 2 points back at itself"


def test_malformed_lists():
    with talk(fixture_argv("malformed")) as t:
        assert set(t.initialize()["capabilities"]) == {"tools", "prompts"}
        tools = t.result("tools/list")["tools"]
        assert len(tools) == 6
        assert "name" not in tools[1]
        assert tools[2]["inputSchema"] == "object"
        assert tools[3]["description"] == 42
        assert tools[4]["name"] == tools[0]["name"] == "lookup_word"
        assert tools[5] == "oops"
        prompts = t.result("prompts/list")["prompts"]
        assert any("name" not in p for p in prompts)


def test_markup_carries_hostile_text():
    with talk(fixture_argv("markup")) as t:
        init = t.initialize()
        assert "[bold red]ALERT[/]" in init["instructions"] and "\x1b[2J" in init["instructions"]
        tools = t.result("tools/list")["tools"]
        assert len(tools) == 3
        text = " ".join(str(x.get(k, "")) for x in tools for k in ("name", "title", "description"))
        for needle in ("[bold red]ALERT[/]", "[link=http://x]", "\x1b[31m", "\x1b[2J", "\x1b]8;;http://evil"):
            assert needle in text, needle
        for needle in ("\u202e", "\u200b", "<IMPORTANT>"):
            assert needle in text, needle


def test_names_carries_names_that_test_columns():
    with talk(fixture_argv("names")) as t:
        t.initialize()
        tools = t.result("tools/list")["tools"]
        names = [x.get("name") for x in tools]
        assert len(tools) == 13 and names[0] == names[11] and "name" not in tools[12]
        for needle in ("日本語", "\uff46", "🔧", "\u0301", "\x1b]52;", "\x9b", "\u202e", "\u200b", "\n", "[red]"):
            assert any(needle in name for name in names[:11]), needle
        assert max(len(name) for name in names[:11]) == 200
        uris = [r["uri"] for r in t.result("resources/list")["resources"]]
        assert "\x1b[2J" in uris[0] and len(uris[1]) == 128


def test_many_lists_250_tools_over_pages_and_calls_any():
    with talk(fixture_argv("many", "--tools", "250")) as t:
        t.initialize()
        pages = t.list_all("tools/list", "tools")
        assert [len(p) for p in pages] == [100, 100, 50]
        tools = [x for p in pages for x in p]
        assert len({x["name"] for x in tools}) == 250 and tools[0]["name"] == "records_search_0"
        for x in tools:
            props = x["inputSchema"]["properties"]
            assert 2 <= len(props) <= 5 and all("type" in p for p in props.values())
            assert x["inputSchema"]["required"] == ["query"]
        called = t.result("tools/call", {"name": tools[-1]["name"], "arguments": {"query": "x"}})
        assert called["content"][0]["text"] == f"called {tools[-1]['name']}"
        assert t.request("tools/list", {"cursor": "nope"})["error"]["code"] == -32602
    with talk(fixture_argv("many", "--tools", "30", "--page-size", "7")) as t:
        t.initialize()
        assert [len(p) for p in t.list_all("tools/list", "tools")] == [7, 7, 7, 7, 2]


def test_each_defect_server_answers_as_its_base():
    """Every one-defect server (defects.py; test_rules.py judges what each trips) starts, initializes as its base
    profile and lists tools: a wrapper that breaks shows here, not as a puzzling rule failure."""
    listed = subprocess.run(fixture_argv("defects"), capture_output=True, text=True, timeout=30, check=True)
    names = [line.split()[0] for line in listed.stdout.splitlines()]  # name, base profile, rule
    declared = (SERVERS / "defects.py").read_text(encoding="utf-8").count("\n@defect(")
    declared += (SERVERS / "behaving.py").read_text(encoding="utf-8").count("\n@behaviour(")  # defects.py adds them
    assert len(set(names)) == len(names) == declared and "cursor-loop" in names, "each @defect listed once"
    for name in names:
        with talk(fixture_argv("defects", name)) as t:
            init = t.initialize()
            assert init["serverInfo"]["name"] in ("exemplary-server", "domain-server", "designed-server"), name
            assert t.result("tools/list")["tools"], name


# ------------------------------------------------------------------------------------------------ demo


def test_demo_server_tools_and_its_deliberate_defects():
    with talk(DEMO) as t:
        init = t.initialize()
        assert init["serverInfo"] == {"name": "demo-notes", "version": "0.3.1"} and init["instructions"]
        tools = by_name(t.result("tools/list")["tools"])
        assert set(tools) >= {"search_notes", "get_note", "create_note", "delete_note", "export_notes", "run_query"}
        assert tools["search_notes"]["annotations"]["readOnlyHint"] is True
        assert "annotations" not in tools["create_note"], "defect: no annotations"
        assert tools["delete_note"]["annotations"]["destructiveHint"] is True
        assert "<IMPORTANT>" in tools["export_notes"]["description"], "defect: hidden instruction"
        bag = tools["run_query"]["inputSchema"]["properties"]["query"]
        assert bag.get("type") == "object" and "properties" not in bag, "defect: untyped argument bag"
        assert len(tools["run_query"]["description"]) > 500, "defect: token-heavy description"
        assert [r["uri"] for r in t.result("resources/list")["resources"]] == ["notes://index"]
        [template] = t.result("resources/templates/list")["resourceTemplates"]
        assert template["uriTemplate"].startswith("notes://note/{")
        [prompt] = t.result("prompts/list")["prompts"]
        assert prompt["name"] == "summarize_notes" and prompt["arguments"][0]["name"] == "topic"
        created = t.result("tools/call", {"name": "create_note", "arguments": {"text": "hello"}})
        assert created["isError"] is False
        for line in t.seen:
            json.loads(line)  # stdout carries only JSON-RPC
    assert t.proc.stderr is not None and t.proc.stderr.read() == b""


def test_demo_serves_the_modern_era():
    with talk(DEMO) as t:
        found = t.result("server/discover", {"_meta": META})
        assert MODERN in found["supportedVersions"]
        assert found["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "demo-notes"
