"""The session, transports and wire log against real servers over stdio, Streamable HTTP and SSE."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from mcp_review.catalog import take_snapshot
from mcp_review.connection.errors import (
    AuthRequired,
    CommandNotFound,
    ConnectionFailed,
    RequestTimeout,
    ServerExited,
)
from mcp_review.connection.session import Session
from mcp_review.connection.transport import PLAIN, Outgoing
from mcp_review.targets import http_target, stdio_target
from mcp_review.untrusted import original_length, parse_message
from tests.support import eventually, fixture_argv, free_port, http_fixture


def good() -> object:
    return stdio_target(fixture_argv("good"))


async def test_auto_era_picks_modern_on_a_dual_era_stdio_server():
    async with Session(good()) as s:
        snap = await take_snapshot(s)
    assert (snap.era, snap.revision) == ("modern", "2026-07-28")
    assert snap.server_name == "good-server"
    assert len(snap.tools) >= 4 and not any(t.problems for t in snap.tools)
    hello = s.wire.get(snap.hello_seq)
    assert hello and hello.direction == "recv" and "supportedVersions" in hello.message["result"]


@pytest.mark.quick
async def test_legacy_era_uses_initialize_and_keeps_wire_json():
    async with Session(good(), era="legacy") as s:
        snap = await take_snapshot(s)
    assert (snap.era, snap.revision) == ("legacy", "2025-11-25")
    methods = [e.method for e in s.wire.messages("send")]
    assert methods[:2] == ["initialize", "notifications/initialized"]
    assert "server/discover" not in methods
    # items are the wire objects themselves (camelCase), taken from the page's response entry
    tool = snap.tools.items[0]
    assert "inputSchema" in tool.raw
    page = s.wire.get(tool.seq)
    assert page and tool.raw in page.message["result"]["tools"]


@pytest.mark.parametrize("era", ["auto", "legacy"])
async def test_streamable_http_both_eras(era):
    with http_fixture("good") as url:
        async with Session(http_target(url), era=era) as s:
            snap = await take_snapshot(s)
    assert snap.era == ("modern" if era == "auto" else "legacy")
    assert len(snap.tools) >= 4
    http = [e.http for e in s.wire.entries if e.direction == "http"]
    assert any(h.get("status") == 200 for h in http)
    if era == "legacy":
        sent = [h["request_headers"] for h in http if "request_headers" in h]
        assert any("Mcp-Session-Id" in h for h in sent), "the session id is sent back"
        assert any(h.get("method") == "DELETE" for h in http), "the session is ended on close"
    else:
        posted = [h["request_headers"] for h in http if h.get("method") == "POST"]
        assert all(h.get("Mcp-Method") for h in posted), "2026-07-28 requests carry Mcp-Method"


async def test_legacy_sse_transport():
    with http_fixture("good", mode="--sse", path="/sse") as url:
        async with Session(http_target(url), era="legacy") as s:
            snap = await take_snapshot(s)
    assert s.target.kind == "sse" and snap.revision == "2025-11-25" and len(snap.tools) >= 4


async def test_stdout_noise_is_kept_and_flagged_not_fatal():
    async with Session(stdio_target(fixture_argv("banner")), era="legacy") as s:
        snap = await take_snapshot(s)
    assert len(snap.tools) == 2
    noise = [e.text for e in s.wire.entries if e.direction == "noise"]
    assert any("banner" in (t or "").lower() for t in noise)


async def test_server_that_exits_at_start_reports_code_and_stderr():
    with pytest.raises(ServerExited) as info:
        async with Session(stdio_target(fixture_argv("crash"))):
            pass
    assert info.value.code == 3
    assert "fatal: missing config" in str(info.value)
    assert any("fatal" in line for line in info.value.detail)


@pytest.mark.quick
async def test_wrong_command():
    with pytest.raises(CommandNotFound, match="command not found: no-such-mcp-server"):
        async with Session(stdio_target(["no-such-mcp-server", "--x"])):
            pass


async def test_hang_times_out_and_leaves_no_process():
    target = stdio_target(fixture_argv("hang")).with_(timeout=1.0)
    session = Session(target, era="legacy")
    with pytest.raises(RequestTimeout, match="no answer to initialize within 1s"):
        await session.open()
    proc = session.channel.transport.proc  # type: ignore[union-attr]
    assert proc.returncode is not None, "the hung server was stopped"
    notes = [e.text for e in session.wire.entries if e.direction == "note"]
    assert any("SIGTERM" in (n or "") or "SIGKILL" in (n or "") for n in notes), notes


async def test_refused_port():
    url = f"http://127.0.0.1:{free_port()}/mcp"
    with pytest.raises(ConnectionFailed, match="connection refused"):
        async with Session(http_target(url)):
            pass


async def test_pagination_follows_cursors_and_stops_on_a_loop():
    async with Session(stdio_target(fixture_argv("paginated")), era="legacy") as s:
        snap = await take_snapshot(s)
    assert len(snap.tools) == 25 and len(snap.tools.seqs) == 3 and snap.tools.stopped is None
    async with Session(stdio_target(fixture_argv("paginated", "--loop")), era="legacy") as s:
        snap = await take_snapshot(s)
    assert snap.tools.stopped and "pagination loop" in snap.tools.stopped


async def test_malformed_items_are_kept_and_marked():
    async with Session(stdio_target(fixture_argv("malformed")), era="legacy") as s:
        snap = await take_snapshot(s)
    problems = {i.index: i.problems for i in snap.tools}
    assert len(snap.tools) == 6
    flat = " | ".join("; ".join(p) for p in problems.values())
    for expected in (
        "no name",
        "inputSchema is not an object",
        "description is not a string",
        "duplicate name",
        "not an object",
    ):
        assert expected in flat
    assert any(not p for p in problems.values()), "the valid tool has no problems"
    assert any("no name" in "; ".join(p.problems) for p in snap.prompts)


async def test_secrets_never_reach_the_wire_log_or_errors():
    code = "import os,sys; sys.stderr.write('key=' + os.environ['API_KEY'] + '\\n'); sys.exit(4)"
    target = stdio_target([sys.executable, "-c", code], env={"API_KEY": "sk-supersecret-123"})
    s = Session(target)
    with pytest.raises(ServerExited) as info:
        await s.open()
    assert "sk-supersecret-123" not in str(info.value) + " ".join(info.value.detail)
    dump = s.wire.to_jsonl()
    assert "sk-supersecret-123" not in dump and "key=***" in dump


# ------------------------------------------------------------------------ HTTP servers in a thread
class _Handler(BaseHTTPRequestHandler):
    mode = "401"

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        if self.mode == "401":
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Bearer resource_metadata="http://127.0.0.1/.well-known/x"')
            self.end_headers()
        elif self.mode == "hang":
            threading.Event().wait(5)

    def log_message(self, *args: object) -> None:
        pass


def _serve(mode: str) -> Iterator[str]:
    handler = type("H", (_Handler,), {"mode": mode})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp"
    finally:
        server.shutdown()


@pytest.fixture
def unauthorized_url() -> Iterator[str]:
    yield from _serve("401")


@pytest.fixture
def hanging_url() -> Iterator[str]:
    yield from _serve("hang")


async def test_401_says_auth_is_needed_and_masks_the_bearer(unauthorized_url):
    target = http_target(unauthorized_url, bearer="tok-abcdef-999")
    s = Session(target)
    with pytest.raises(AuthRequired, match="needs authorization") as info:
        await s.open()
    assert "resource_metadata" in str(info.value)
    dump = s.wire.to_jsonl()
    assert "tok-abcdef-999" not in dump and '"Authorization": "***"' in dump


async def test_http_hang_times_out(hanging_url):
    target = http_target(hanging_url).with_(timeout=1.0)
    with pytest.raises(RequestTimeout):
        async with Session(target, era="legacy"):
            pass


async def test_tls_error_is_explained():
    with http_fixture("good") as url:
        target = http_target(url.replace("http://", "https://")).with_(timeout=3.0)
        with pytest.raises(ConnectionFailed, match="TLS error"):
            async with Session(target):
                pass


def test_no_orphans_after_close():
    """Closing escalates to the process group: nothing the server spawned survives."""
    code = (
        "import subprocess,sys,time; subprocess.Popen([sys.executable,'-c','import time; time.sleep(60)']);"
        "print(flush=True); time.sleep(60)"
    )

    async def run() -> list[int]:
        s = Session(stdio_target([sys.executable, "-c", code]).with_(timeout=0.5), era="legacy")
        with pytest.raises(ConnectionFailed):
            await s.open()
        return [s.channel.transport.proc.pid]  # type: ignore[union-attr]

    (pid,) = asyncio.run(run())

    def gone() -> bool:
        try:
            os.killpg(pid, 0)
        except ProcessLookupError:
            return True
        return False

    # SIGKILLed members vanish once init reaps them
    assert eventually(gone, timeout=5), f"process group {pid} still has members after close"


async def test_stdio_servers_inherit_only_a_safe_environment(monkeypatch):
    monkeypatch.setenv("CI_DEPLOY_TOKEN", "ci-secret-value-42")
    code = "import json,os,sys; sys.stderr.write(json.dumps(dict(os.environ)) + '\\n'); sys.exit(5)"
    s = Session(stdio_target([sys.executable, "-c", code], env={"GIVEN": "yes"}))
    with pytest.raises(ServerExited) as info:
        await s.open()
    seen = info.value.detail[-1]
    assert '"GIVEN": "yes"' in seen and '"PATH"' in seen
    assert "CI_DEPLOY_TOKEN" not in seen and "ci-secret-value-42" not in s.wire.to_jsonl()


def test_send_options_are_frozen_copies_of_what_the_caller_passed():
    headers = {"X-Probe": "1"}
    how = Outgoing(headers=headers, omit=["Content-Type"])
    headers["X-Probe"] = "2"  # a caller reusing its dict does not change a send already described
    assert dict(how.headers) == {"X-Probe": "1"} and how.omit == ("Content-Type",)
    with pytest.raises(TypeError):
        PLAIN.headers["X-Probe"] = "3"  # type: ignore[index]  # the shared default cannot be changed
    assert PLAIN.text({"a": "é"}) == '{"a": "é"}' and Outgoing(raw="{x").text({"a": 1}) == "{x"


# A raw server that answers `initialize`, then any request with FLOOD log notifications first (the id of each
# answer spelled with an escape, as JSON allows), a progress notification for its token, then the answer: a tool
# whose description is LONG characters, after a stderr line as long (when over 10).
CHATTY = r"""
import json, sys
FLOOD, LONG = int(sys.argv[1]), int(sys.argv[2])
log = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"chatter"}}\n'
for line in sys.stdin.buffer:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    if msg["method"] == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "chatty", "version": "1"}}
    else:
        sys.stdout.buffer.write(log * FLOOD)
        token = msg["params"].get("_meta", {}).get("progressToken")
        progress = {"progressToken": token, "progress": 1, "message": "half"}
        sys.stdout.buffer.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/progress", "params": progress}).encode() + b"\n")
        if LONG > 10:
            sys.stderr.buffer.write(b"e" * LONG + b"\n")
            sys.stderr.buffer.flush()
        result = {"tools": [{"name": "big", "description": "d" * LONG, "inputSchema": {"type": "object"}}]}
    answer = json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}).replace('"id"', '"\\u0069d"')
    sys.stdout.buffer.write(answer.encode() + b"\n")
    sys.stdout.buffer.flush()
"""


def chatty(flood: int, long: int) -> object:
    return stdio_target([sys.executable, "-c", CHATTY, str(flood), str(long)])


async def test_chatter_past_the_cap_is_counted_unparsed_and_answers_still_arrive(monkeypatch):
    """Past MAX_CHATTER, chatter is counted without being parsed (a flood cost the app's screen ~30 µs a line);
    an answer whose id is spelled with an escape, and the progress of a request, still arrive through it."""
    from mcp_review.connection import transport, wire

    monkeypatch.setattr(wire, "MAX_CHATTER", 100)
    parsed = []
    monkeypatch.setattr(transport, "parse_message", lambda text, *a: parsed.append(text) or parse_message(text, *a))
    progress = []
    async with Session(chatty(300, 10), era="legacy") as s:
        for _ in range(2):
            reply = await s.complete("tools/list", {}, on_progress=progress.append)
            assert reply.result["tools"][0]["name"] == "big"
        assert [p["message"] for p in progress] == ["half", "half"]
        await s.complete("tools/list", {})  # its progress names no token waited for: counted, not parsed
        assert not s.wire.awaited
    logs = [e for e in s.wire.entries if e.method == "notifications/message"]
    assert len(logs) == 100 and s.wire.dropped == 803  # 800 logs and the 3 progress notifications past it
    assert sum('"notifications/message"' in text for text in parsed) == 100  # the 800 past the cap: not parsed
    assert sum('"notifications/progress"' in text for text in parsed) == 2


async def test_a_line_longer_than_the_read_buffer_arrives_whole_and_stderr_is_cut():
    """The pipes buffer 512 KB: a 3 MB message is gathered whole, a 3 MB stderr line kept to its first 4,000
    characters (what a stderr line may keep), with no note of a dropped line."""
    async with Session(chatty(0, 3_000_000), era="legacy") as s:
        reply = await s.complete("tools/list", {})
    assert original_length(reply.result["tools"][0]["description"]) == 3_000_000  # parsed whole, then cut to show
    stderr = [e.text for e in s.wire.entries if e.direction == "stderr"]
    assert stderr == ["e" * 4000]
    assert not [e for e in s.wire.entries if e.text and "dropped" in e.text]


# A raw server that answers `initialize`, then each request after DELAY seconds, in order: one that names the tool
# "stuck" is never answered, nor anything after it (it reads no more).
SLOW = r"""
import json, sys, time
DELAY = float(sys.argv[1])
for line in sys.stdin.buffer:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    if msg["method"] == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "slow", "version": "1"}}
    elif msg.get("params", {}).get("name") == "stuck":
        time.sleep(3600)
    else:
        time.sleep(DELAY)
        result = {}
    sys.stdout.buffer.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}).encode() + b"\n")
    sys.stdout.buffer.flush()
"""


async def test_after_two_unanswered_requests_no_more_is_sent_until_the_server_answers():
    """A server stuck in a call answers nothing after it: the third request is not sent (and says why, at once)
    instead of waiting its whole timeout too. A server that answers late is not stuck: its late answers count."""
    from mcp_review.connection.errors import Unresponsive

    stuck = stdio_target([sys.executable, "-c", SLOW, "0"]).with_(timeout=0.5)
    async with Session(stuck, era="legacy") as s:
        await s.request("ping")
        for method, params in (("tools/call", {"name": "stuck"}), ("ping", None)):
            with pytest.raises(RequestTimeout):
                await s.request(method, params)
        started = asyncio.get_running_loop().time()
        with pytest.raises(Unresponsive, match="not sent, as the last 2 requests on this connection went unanswered"):
            await s.request("tools/list")
        assert asyncio.get_running_loop().time() - started < 0.2
        assert "tools/list" not in [e.method for e in s.wire.messages("send")]
    late = stdio_target([sys.executable, "-c", SLOW, "1.2"]).with_(timeout=1.0)
    async with Session(late, era="legacy") as s:
        for _ in range(3):  # each answer comes after the next request was sent: the server still answers
            with pytest.raises(RequestTimeout) as timed_out:
                await s.request("ping")
            assert not isinstance(timed_out.value, Unresponsive)
