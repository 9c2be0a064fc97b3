"""Our session and catalog against third-party servers nobody here wrote (installed by scripts/test-deps)."""

from __future__ import annotations

import os

import pytest

from mcp_review.catalog import take_snapshot
from mcp_review.connection.session import Session, headless_handlers
from mcp_review.targets import http_target, stdio_target
from tests.thirdparty import everything_stdio_argv, git_argv, time_argv

pytestmark = pytest.mark.thirdparty

# server-everything's tool count depends on the client's declared capabilities (servers.md):
# 13 with none, 17 with sampling + elicitation + roots (what mcp-review declares).
EVERYTHING_TOOLS_WITH_CAPS = 17


async def snapshot_of(target, era="auto", handlers=None):
    async with Session(target, era=era, handlers=handlers or headless_handlers()) as s:
        return await take_snapshot(s), s


async def test_everything_stdio_falls_back_to_legacy_and_lists_everything():
    snap, s = await snapshot_of(stdio_target(everything_stdio_argv()))
    assert (snap.era, snap.revision) == ("legacy", "2025-11-25")
    assert any("server/discover: JSON-RPC error -32601" in n for n in snap.notes)
    assert len(snap.tools) == EVERYTHING_TOOLS_WITH_CAPS
    assert len(snap.resources) >= 7 and len(snap.templates) == 2 and len(snap.prompts) == 4
    assert snap.tool("get-env") is not None
    assert len(snap.instructions or "") > 1000
    # declared roots: the server does not exit on stdin close, so closing had to escalate, and did
    stops = [e.text for e in s.wire.entries if e.direction == "note" and "server stopped" in (e.text or "")]
    assert stops and s.channel.transport.proc.returncode is not None  # type: ignore[union-attr]


async def test_everything_with_no_client_capabilities_lists_13():
    from mcp_review.connection.session import ClientHandlers

    snap, _ = await snapshot_of(stdio_target(everything_stdio_argv()), era="legacy", handlers=ClientHandlers())
    assert len(snap.tools) == 13


async def test_everything_streamable_http(everything_http_url):
    snap, _s = await snapshot_of(http_target(everything_http_url))
    assert snap.era == "legacy" and len(snap.tools) == EVERYTHING_TOOLS_WITH_CAPS
    assert "server/discover: JSON-RPC error -32000 (Bad Request: Server not initialized)" in snap.notes


async def test_everything_legacy_sse(everything_sse_url):
    snap, _ = await snapshot_of(http_target(everything_sse_url))
    assert snap.era == "legacy" and len(snap.tools) == EVERYTHING_TOOLS_WITH_CAPS


@pytest.mark.parametrize(("era", "revision"), [("auto", "2026-07-28"), ("legacy", "2025-11-25")])
async def test_time_server_both_eras(era, revision):
    snap, _ = await snapshot_of(stdio_target(time_argv()), era=era)
    assert snap.revision == revision
    assert sorted(t.name for t in snap.tools) == ["convert_time", "get_current_time"]


@pytest.mark.parametrize(("era", "revision"), [("modern", "2026-07-28"), ("legacy", "2025-11-25")])
async def test_git_server_both_eras(git_repo, era, revision):
    snap, _ = await snapshot_of(stdio_target(git_argv(git_repo)), era=era)
    assert snap.revision == revision and len(snap.tools) == 12


async def test_time_server_call_through_both_eras():
    from mcp_review.calls import CallGate

    for era in ("modern", "legacy"):
        async with Session(stdio_target(time_argv()), era=era) as s:
            snap = await take_snapshot(s)
            tool = snap.tool("get_current_time")
            assert tool is not None
            record = await CallGate.for_reviewer(s).call(tool, {"timezone": "UTC"}, purpose="test")
        assert record is not None and record.error is None and not record.is_error, record.result
        assert "UTC" in record.result["content"][0]["text"]


def test_no_leftover_everything_processes():
    """After the tests above, no server-everything we started is still running."""
    mine = str(os.getpid())
    out = os.popen("ps -eo ppid,args").read()
    assert not [line for line in out.splitlines() if "mcp-server-everything stdio" in line and line.split()[0] == mine]


async def test_everything_token_figures_are_tiktokens_count_of_the_wire_json():
    from mcp_review.encodings import get_encoding
    from mcp_review.tokens import TokenCounter, canonical

    snap, s = await snapshot_of(stdio_target(everything_stdio_argv()))
    page = s.wire.get(snap.tools.seqs[0])
    assert page is not None
    wire_tools = page.message["result"]["tools"]
    enc = get_encoding("cl100k_base")
    counter = TokenCounter()
    for item, sent in zip(snap.tools, wire_tools, strict=True):
        assert item.raw == sent
        assert counter.breakdown(item.raw)["total"] == len(enc.encode_ordinary(canonical(sent)))
    assert counter.tools_total(snap.tools.raw) == len(enc.encode_ordinary(canonical(wire_tools)))
    assert 1500 < counter.tools_total(snap.tools.raw) < 6000  # 17 tools, ~10 KB of JSON


def test_cli_call_describes_binary_content_by_type_and_size():
    import subprocess
    import sys

    argv = everything_stdio_argv()
    out = subprocess.run(
        [sys.executable, "-m", "mcp_review", "call", "get-tiny-image", "--yes", "--", *argv],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert "image image/png, " in out.stdout and " bytes" in out.stdout
    assert "iVBOR" not in out.stdout, "base64 data is described, not dumped"
