"""`mcp-review list` and `call` end to end, as a user runs them: real processes, real servers."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from mcp_review.encodings import get_encoding
from mcp_review.tokens import EXACT_CHARS, canonical
from tests.support import fixture_argv, http_fixture, run_cli


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, env={"COLUMNS": "160"}, timeout=timeout)


def test_list_json_figures_are_tiktokens_count_of_the_wire_json(tmp_path):
    wire = tmp_path / "wire.jsonl"
    out = cli(
        "list", "--format", "json", "--encoding", "o200k_base", "--wire-log", str(wire), "--", *fixture_argv("good")
    )
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["encoding"] == "o200k_base" and doc["revision"] == "2026-07-28" and doc["transport"] == "stdio"
    assert {t["name"] for t in doc["tools"]} == {"notes_search", "notes_get", "notes_save", "notes_delete"}
    entries = [json.loads(line) for line in wire.read_text().splitlines()]
    listed = next(
        e["message"]["result"]["tools"]
        for e in entries
        if e["dir"] == "recv" and isinstance(e["message"].get("result", {}).get("tools"), list)
    )
    enc = get_encoding("o200k_base")
    for tool in listed:
        figures = next(t["tokens"] for t in doc["tools"] if t["name"] == tool["name"])
        assert figures["total"] == len(enc.encode_ordinary(canonical(tool)))
        assert figures["description"] == len(enc.encode_ordinary(f'"description":{canonical(tool["description"])}'))
    assert doc["total"] == len(enc.encode_ordinary(canonical(listed)))
    totals = [t["tokens"]["total"] for t in doc["tools"]]
    assert totals == sorted(totals, reverse=True)


def test_list_counts_each_field_of_many_tools_as_tiktoken_counts_it_alone(tmp_path):
    """300 tools over 3 pages: counted in one batch (distinct texts once, on the pool), every figure is still the
    count of its own text: each member `"key":value`, each tool's JSON, the list's JSON."""
    wire = tmp_path / "wire.jsonl"
    out = cli("list", "--format", "json", "--wire-log", str(wire), "--", *fixture_argv("many", "--tools", "300"))
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    entries = [json.loads(line) for line in wire.read_text().splitlines()]
    listed = [
        tool
        for e in entries
        if e["dir"] == "recv" and isinstance(e["message"].get("result", {}).get("tools"), list)
        for tool in e["message"]["result"]["tools"]
    ]
    assert len(listed) == len(doc["tools"]) == 300
    enc = get_encoding("cl100k_base")
    figures = {t["name"]: t["tokens"] for t in doc["tools"]}
    for tool in listed:
        members = {key: len(enc.encode_ordinary(f"{canonical(key)}:{canonical(value)}")) for key, value in tool.items()}
        assert figures[tool["name"]] == {"total": len(enc.encode_ordinary(canonical(tool))), **members}
    assert len(canonical(listed)) <= EXACT_CHARS  # counted whole, not over a prefix
    assert doc["total"] == len(enc.encode_ordinary(canonical(listed)))


def test_list_loads_neither_the_checks_nor_the_app_nor_the_sdk():
    """`list` imports what it needs: not the rules, the TUI (Textual), the mcp SDK, jsonschema or the login code
    (`import mcp` alone costs about a second). Read from `python -X importtime`, which names every module loaded,
    in any thread."""
    argv = [sys.executable, "-X", "importtime", "-m", "mcp_review", "list", "--format", "json"]
    out = subprocess.run([*argv, "--", *fixture_argv("good")], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    loaded = {line.rsplit("|", 1)[1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")}
    assert {"mcp_review.catalog", "mcp_review.tokens", "tiktoken"} <= loaded  # what it needs: the parse works
    heavy = ("mcp", "textual", "jsonschema", "mcp_review.checks", "mcp_review.tui", "mcp_review.auth")
    assert [name for name in loaded if any(name == h or name.startswith(f"{h}.") for h in heavy)] == []


def test_list_demo_server_by_default():
    out = cli("list", "--format", "json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["server"]["name"] == "demo-notes" and len(doc["tools"]) == 7
    assert [p["name"] for p in doc["prompts"]] == ["summarize_notes"] and doc["instructions"] > 0


def test_list_table_shows_server_text_as_text():
    out = cli("list", "--", *fixture_argv("markup"))
    assert out.returncode == 0, out.stderr
    assert "[bold red]ALERT[/]" in out.stdout, "markup is printed, not interpreted"
    assert "\x1b" not in out.stdout and "\\e[31m" in out.stdout and "<U+202E>" not in out.stdout.split("tools")[0]


def test_list_over_http_with_header_and_bearer(tmp_path):
    wire = tmp_path / "w.jsonl"
    with http_fixture("good") as url:
        out = cli(
            "list",
            "--format",
            "json",
            "--url",
            url,
            "--header",
            "X-Team: a",
            "--bearer",
            "tok-XYZ-123",
            "--wire-log",
            str(wire),
        )
    assert out.returncode == 0, out.stderr
    log = wire.read_text()
    assert '"X-Team": "a"' in log and "tok-XYZ-123" not in log and '"Authorization": "***"' in log


def test_call_read_only_tool_prints_every_part():
    out = cli("call", "notes_search", "--args", '{"query": "milk"}', "--", *fixture_argv("good"))
    assert out.returncode == 0, out.stderr
    assert "notes_search" in out.stdout and " ms " in out.stdout and "Buy milk" in out.stdout
    assert re.search(r"  ok  ·  reply \d+ cl100k_base tokens\n", out.stdout), "the reply's figure, as the app's"
    assert "structuredContent:" in out.stdout and "isError: false" in out.stdout
    raw = cli("call", "notes_search", "--format", "json", "--args", '{"query": "milk"}', "--", *fixture_argv("good"))
    assert json.loads(raw.stdout)["structuredContent"]["matches"][0]["id"] == "n1"


def test_call_refuses_a_tool_with_side_effects_without_consent():
    out = cli("call", "notes_delete", "--args", '{"note_id": "n1"}', "--", *fixture_argv("good"))
    assert out.returncode == 2
    assert "refusing to call 'notes_delete'" in out.stderr and "--yes" in out.stderr and "Traceback" not in out.stderr
    ok = cli("call", "notes_delete", "--yes", "--args", '{"note_id": "n1"}', "--", *fixture_argv("good"))
    assert ok.returncode == 0 and "deleted" in ok.stdout


def test_call_tool_error_exits_1():
    out = cli("call", "notes_get", "--args", '{"note_id": "nope"}', "--", *fixture_argv("good"))
    assert out.returncode == 1 and "isError: true" in out.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["list", "--", *fixture_argv("crash")], "server exited with code 3"),
        (["list", "--", "no-such-mcp-binary"], "command not found: no-such-mcp-binary"),
        (["list", "--url", "http://127.0.0.1:9/mcp"], "connection refused"),
        (
            ["list", "--timeout", "1", "--era", "legacy", "--", *fixture_argv("hang")],
            "no answer to initialize within 1s",
        ),
        (["list", "--encoding", "p50k"], "unknown encoding 'p50k'"),
        (["call", "x", "--args", "[1]"], "--args must be a JSON object"),
        (["call", "nope", "--", *fixture_argv("good")], "the server lists no tool named 'nope'"),
    ],
)
@pytest.mark.quick
def test_failures_are_one_clear_line_and_exit_2(args, message):
    out = cli(*args)
    assert out.returncode == 2, out.stdout + out.stderr
    first = out.stderr.splitlines()[0]
    assert first.startswith("mcp-review: error: ") and message in first
    assert "Traceback" not in out.stderr


def test_crash_shows_the_servers_last_stderr_lines():
    out = cli("list", "--", *fixture_argv("crash"))
    assert "  | fatal: missing config file /etc/crash-server.toml" in out.stderr


def test_debug_shows_the_traceback():
    out = cli("list", "--debug", "--", "no-such-mcp-binary")
    assert out.returncode != 0 and "Traceback" in out.stderr


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)


def test_list_loads_its_own_command_and_starts_its_server_before_the_heavy_modules():
    """The server starts first (`procs.launch`, here replaced by a probe): what only the listing needs (asyncio, the
    session, the catalog, tiktoken, rich) and the other commands' modules load while it starts, not before."""
    probe = (
        "import sys\nfrom mcp_review import cli\nfrom mcp_review.connection import procs\n"
        "def launch(target):\n"
        "    heavy = ('asyncio', 'mcp_review.connection.session', 'mcp_review.catalog', 'tiktoken', 'rich')\n"
        "    print(target.command, sorted(m for m in sys.modules if m.startswith('mcp_review.cli.') or m in heavy))\n"
        "    raise SystemExit(0)\n"
        "procs.launch = launch\ncli.main(['list', '--', 'no-such-server'])\n"
    )
    assert _python(probe).stdout.split() == ["no-such-server", "['mcp_review.cli.common',", "'mcp_review.cli.listing']"]


def test_the_quick_exit_waits_for_a_thread_still_at_work():
    """`entry` ends the process without the interpreter's teardown only when nothing else runs: a thread still
    writing is waited for, as the usual exit waits."""
    late = (
        "import threading, time\nfrom mcp_review import cli\n"
        "def main():\n"
        "    threading.Thread(target=lambda: (time.sleep(0.2), print('written', flush=True))).start()\n"
        "    return 0\n"
        "cli.main = main\ncli.entry()\n"
    )
    assert _python(late).stdout == "written\n"


def test_a_profiled_run_keeps_its_profile(tmp_path):
    """Under cProfile (or a tracer such as coverage) the quick exit stands aside: they write what they measured at
    the interpreter's exit."""
    profile = tmp_path / "rules.prof"
    done = subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(profile), "-m", "mcp_review", "rules"],
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0 and profile.stat().st_size > 0, done.stderr
