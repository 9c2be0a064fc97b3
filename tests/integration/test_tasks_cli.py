"""`mcp-review call TOOL --task` end to end: a real process against tests/servers/tasks.py on both revisions, the
status on stderr, the result on stdout, a task that never ends given up and cancelled, Ctrl-C cancelling."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.integration.test_cli import cli
from tests.pace import slowness
from tests.support import eventually, fixture_argv


def sent(wire: Path, method: str) -> list[dict]:
    entries = [json.loads(line) for line in wire.read_text().splitlines()]
    return [e["message"] for e in entries if e["dir"] == "send" and e.get("message", {}).get("method") == method]


@pytest.mark.parametrize("era", [(), ("--modern",)], ids=["2025-11-25", "2026-07-28"])
def test_a_task_runs_to_its_result_with_its_status_on_stderr(era, tmp_path):
    wire = tmp_path / "wire.jsonl"
    argv = fixture_argv("tasks", "well-formed", *era)
    out = cli("call", "slow_report", "--task", "--args", '{"topic": "x"}', "--wire-log", str(wire), "--", *argv)
    assert out.returncode == 0, out.stderr
    assert "Report: all good." in out.stdout and "task" not in out.stdout
    lines = [line for line in out.stderr.splitlines() if line.startswith("task task-0001")]
    assert [line.split(": ")[1] for line in lines] == ["working", "working", "completed"], out.stderr
    call = sent(wire, "tools/call")[0]["params"]
    if era:  # 2026-07-28: the extension declared in the request, and no tasks/result
        caps = call["_meta"]["io.modelcontextprotocol/clientCapabilities"]
        assert "io.modelcontextprotocol/tasks" in caps["extensions"] and not sent(wire, "tasks/result")
    else:
        assert call["task"] == {"ttl": 60000} and len(sent(wire, "tasks/result")) == 1


def test_a_task_that_never_ends_is_given_up_and_cancelled(tmp_path):
    wire = tmp_path / "wire.jsonl"
    argv = fixture_argv("tasks", "never-ends", "--modern")
    out = cli(
        "call", "slow_report", "--task", "--task-wait", "0.5", "--args", "{}", "--wire-log", str(wire), "--", *argv
    )
    assert out.returncode != 0 and "still 'working'" in out.stderr, out.stderr
    assert len(sent(wire, "tasks/cancel")) == 1


def test_ctrl_c_cancels_the_task(tmp_path):
    wire = tmp_path / "wire.jsonl"
    argv = fixture_argv("tasks", "never-ends")
    args = ["call", "slow_report", "--task", "--args", "{}", "--wire-log", str(wire), "--", *argv]
    proc = subprocess.Popen([sys.executable, "-m", "mcp_review", *args], stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    assert proc.stderr is not None
    reader = threading.Thread(target=lambda: lines.extend(iter(proc.stderr.readline, "")), daemon=True)  # type: ignore[union-attr]
    reader.start()
    try:
        assert eventually(lambda: any("working" in line for line in lines)), lines
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20 * slowness())
    finally:
        proc.kill()
    reader.join(5)
    assert proc.returncode != 0 and any("cancelled" in line for line in lines), lines
    assert len(sent(wire, "tasks/cancel")) == 1


@pytest.mark.parametrize("era", [(), ("--modern",)], ids=["2025-11-25", "2026-07-28"])
def test_a_task_that_asks_for_input_is_answered(era, tmp_path):
    """2026-07-28: the elicitation in `inputRequests` is answered with tasks/update (headless: declined);
    2025-11-25: input_required sends tasks/result at once, and the status after it says how the task ended."""
    wire = tmp_path / "wire.jsonl"
    argv = fixture_argv("tasks", "asks", *era)
    out = cli("call", "slow_report", "--task", "--args", '{"topic": "x"}', "--wire-log", str(wire), "--", *argv)
    assert out.returncode == 0, out.stderr
    assert [line.split(": ")[1] for line in out.stderr.splitlines() if line.startswith("task ")][-2:] == [
        "input_required",
        "completed",
    ]
    if era:
        assert sent(wire, "tasks/update")[0]["params"]["inputResponses"] == {"topic": {"action": "decline"}}
        assert '{"topic": {"action": "decline"}}' in out.stdout
    else:
        assert len(sent(wire, "tasks/result")) == 1


def test_a_tool_the_server_runs_without_a_task_is_said_not_silent(tmp_path):
    """--task on a tool that declares no task support (apps.py's show_weather): the server answers the call itself,
    and the reviewer who asked for a task is told so on stderr, the result still on stdout."""
    out = cli("call", "show_weather", "--task", "--", *fixture_argv("apps", "well-formed"))
    assert out.returncode == 0, out.stderr
    assert "Sunny in Lisbon" in out.stdout
    assert "the server made no task: it answered the call itself (the tool's taskSupport: not declared)" in out.stderr
