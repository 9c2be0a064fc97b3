"""`mcp-review fleet` and `merge` as CI runs them: one fleet of 22 fixture servers over stdio, Streamable HTTP and SSE
on 127.0.0.1, one of which hangs and one of which crashes, run once and read by every test here; then a resume, a
matrix job and the merge of its review into the rest, and a check stopped at its deadline."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from mcp_review.fleet.runner import Runner, Settings
from mcp_review.fleet.sources import line_entry
from tests.pace import slowness
from tests.support import ROOT, eventually, fixture_argv, http_fixture

STDIO = [
    ("good",),
    ("banner",),
    ("names",),
    ("paginated",),
    ("paginated", "--loop"),
    ("malformed",),
    ("markup",),
    ("profiled", "exemplary"),
    ("profiled", "sloppy"),
    ("profiled", "designed"),
    ("profiled", "domain"),
    ("surface",),
    ("surface", "--surface", "v2"),
    ("relists",),
    ("withdraws",),
    ("many", "--tools", "3"),
    ("hang",),
    ("crash",),
]
HTTP = [("good", "--http", "/mcp"), ("good", "--sse", "/sse"), ("steering", "--http", "/mcp", "guarded")]
OUTS = ("fleet.md", "fleet.txt", "fleet.json", "fleet.sarif", "fleet.junit.xml")


def cli(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "MCP_REVIEW_CONFIG_DIR": str(home / "config"),
        "MCP_REVIEW_STATE_DIR": str(home / "state"),
        "HOME": str(home),  # no client config file of the developer's is discovered
    }
    return subprocess.run(
        [sys.executable, "-m", "mcp_review", *args], capture_output=True, text=True, timeout=600, cwd=cwd, env=env
    )


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    """The fleet, run once: 18 stdio servers and 4 over HTTP (three Streamable HTTP, one SSE), in a directory whose
    mcp-review.lock pins one of them."""
    where = tmp_path_factory.mktemp("fleet")
    with contextlib.ExitStack() as servers:
        lines = [shlex.join(fixture_argv(*spec)) for spec in STDIO]
        for name, mode, path, *extra in HTTP:
            lines.append(servers.enter_context(http_fixture(name, *extra, mode=mode, path=path)))
        lines.append(servers.enter_context(http_fixture("leaks", "benign")) + "  # a comment after a target")
        (where / "servers.txt").write_text("# the fleet\n\n" + "\n".join(lines) + "\n")
        pinned = cli("pin", "--", *fixture_argv("surface"), cwd=where, home=where)  # one server's lock, here
        assert pinned.returncode == 0 and (where / "mcp-review.lock").is_file(), pinned.stderr
        budget = f"{4 * slowness():g}"
        outs = [f"--out={where / name}" for name in OUTS]
        done = cli(
            "fleet", "--list", "servers.txt", "--jobs", "4", "--budget", budget, "--pack", "spec", "--fail-on", "all",
            "--state", "state",
            *outs, cwd=where, home=where,
        )  # fmt: skip
    return where, done


def report(where: Path) -> dict:
    return json.loads((where / "fleet.json").read_text())


def test_every_server_is_reviewed_or_reported_and_none_stops_the_fleet(fleet):
    where, done = fleet
    servers = report(where)["servers"]
    assert len(servers) == 22 == len(list((where / "state").glob("*.json")))
    crash, hang = (next(s for s in servers if s["name"] == f"python {name}.py") for name in ("crash", "hang"))
    assert crash["verdict"] == hang["verdict"] == "ERROR"
    assert "exited with code 3" in crash["error"] and "missing config file" in crash["error"]
    assert "budget" in hang["error"] or "no answer" in hang["error"]
    reviewed = [s for s in servers if s["verdict"] != "ERROR"]
    assert len(reviewed) == 20, [(s["name"], s["error"]) for s in servers if s["error"]]
    assert {s["name"].split(":")[0] for s in reviewed} >= {"http"}  # both transports reviewed
    assert sum(s["name"].endswith("/sse") for s in reviewed) == 1
    assert all(isinstance(s["tokens"], int) and s["tokens"] > 0 for s in reviewed)
    verdicts = {s["verdict"] for s in servers}
    assert "FAIL" in verdicts and done.returncode == 1  # the worst server's exit, as `check --fail-on all` gives it
    assert all(s["gate"] == s["verdict"] for s in reviewed), "--fail-on reached every check: all, the overall verdict"
    assert report(where)["exitCode"] == 1 and report(where)["verdict"] == "FAIL"


def test_progress_is_a_line_per_server_off_a_terminal(fleet):
    _, done = fleet
    lines = [line for line in done.stderr.splitlines() if line.startswith("mcp-review: [")]
    assert len(lines) == 22 and "\x1b" not in done.stderr
    assert any("hang.py: ERROR" in line for line in lines) and lines[-1].startswith("mcp-review: [22/22]")


def test_the_table_has_a_row_per_server_worst_first(fleet):
    where, done = fleet
    md = (where / "fleet.md").read_text()
    rows = [line for line in md.splitlines() if line.startswith("| ") and not line.startswith("| Server")]
    assert len(rows) == 22 and md.startswith("## mcp-review fleet: 22 servers: ")
    order = ["FAIL", "ERROR", "BLOCKED", "PASS_WITH_WARNINGS", "PASS"]
    seen = [line.split(" | ")[2] for line in rows]  # after security's verdict: the overall one
    assert seen == sorted(seen, key=order.index)
    assert "**Not reviewed:**" in md and md.count("\n- ") == 2
    assert done.stdout == (where / "fleet.txt").read_text()  # --format text (the default) on stdout


def test_sarif_has_a_run_per_server_and_junit_a_suite_per_server(fleet):
    where, _ = fleet
    runs = json.loads((where / "fleet.sarif").read_text())["runs"]
    assert len(runs) == 22 and len({r["automationDetails"]["id"] for r in runs}) == 22
    failed = [r for r in runs if r.get("invocations", [{}])[0].get("executionSuccessful") is False]
    assert len(failed) == 2 and all(r["properties"]["verdict"] == "ERROR" for r in failed)
    assert sum(len(r["results"]) for r in runs) > 0
    # ./mcp-review.lock pins one server: no review of the fleet is compared with it (else a run of its changes each)
    assert not any("changes" in json.loads(p.read_text()) for p in (where / "state").glob("*.json"))
    suites = ET.parse(where / "fleet.junit.xml").getroot().findall("testsuite")
    assert len(suites) == 22 and len({s.get("id") for s in suites}) == 22
    assert sum(1 for s in suites if s.find("testcase/error[@type='not reviewed']") is not None) == 2


def test_merge_of_the_state_files_is_the_fleets_own_report(fleet, tmp_path):
    where, done = fleet
    files = sorted((where / "state").glob("*.json"), reverse=True)  # any order: the report sorts
    outs = [f"--out={tmp_path / name}" for name in OUTS]
    merged = cli("merge", *map(str, files), *outs, cwd=tmp_path, home=where)
    assert merged.returncode == done.returncode and merged.stdout == done.stdout
    for name in OUTS:
        assert (tmp_path / name).read_bytes() == (where / name).read_bytes(), name


def test_resume_skips_what_finished_and_reviews_the_rest(fleet, tmp_path):
    where, _ = fleet
    picked = [shlex.join(fixture_argv(*spec)) for spec in (("banner",), ("names",), ("crash",))]
    (tmp_path / "servers.txt").write_text("\n".join(picked) + "\n")
    keys = [line_entry(line, "x").key for line in picked]  # type: ignore[union-attr]
    (tmp_path / "state").mkdir()
    shutil.copy(where / "state" / f"{keys[0]}.json", tmp_path / "state")  # the run was cut off after banner
    again = cli(
        "fleet", "--list", "servers.txt", "--state", "state", "--resume", "--pack", "spec", cwd=tmp_path, home=where
    )
    said = [line for line in again.stderr.splitlines() if line.startswith("mcp-review: [")]
    kept = [line for line in said if "kept from the last run" in line]
    assert len(said) == 3 and len(kept) == 1 and "banner.py" in kept[0], said
    assert (tmp_path / "state" / f"{keys[1]}.json").is_file()
    assert (tmp_path / "state" / f"{keys[0]}.json").read_bytes() == (where / "state" / f"{keys[0]}.json").read_bytes()


def test_a_matrix_job_per_server_and_their_merge_is_the_fleets_report(fleet, tmp_path):
    where, _ = fleet
    matrix = cli("fleet", "matrix", "--list", "servers.txt", cwd=where, home=where)
    jobs = json.loads(matrix.stdout)["include"]
    assert matrix.returncode == 0 and len(matrix.stdout.splitlines()) == 1
    assert {j["key"] for j in jobs} == {p.stem for p in (where / "state").glob("*.json")}
    job = next(j for j in jobs if j["name"].endswith("names.py"))  # one job, as on its own runner
    one = cli(
        "fleet", "--list", "servers.txt", "--only", job["key"], "--state", "job", "--pack", "spec", "--fail-on", "all",
        cwd=where, home=where,
    )  # fmt: skip
    assert one.returncode in (0, 1, 3), one.stderr
    rest = [p for p in (where / "state").glob("*.json") if p.stem != job["key"]]
    merged = cli(
        "merge", str(where / "job" / f"{job['key']}.json"), *map(str, rest), "--format", "json", cwd=where, home=where
    )
    assert json.loads(merged.stdout) == report(where)


def test_a_check_past_its_deadline_is_stopped_with_its_server(tmp_path):
    marker = f"marker-{uuid.uuid4().hex}"
    entry = line_entry(shlex.join(fixture_argv("hang", marker)), "test")
    assert entry is not None
    settings = Settings(tmp_path, jobs=1, budget=60, stop_after=2 * slowness())  # its check would wait 30 s
    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(Runner(settings).one, entry)
        assert eventually(lambda: _running(marker), timeout=3)  # the hanging server is up
        outcome = running.result()
    assert outcome.verdict == "ERROR" and "stopped" in outcome.detail["error"]
    assert json.loads(outcome.file.read_text())["fleet"]["error"] == outcome.detail["error"]
    assert not _running(marker)


def _running(marker: str) -> bool:
    return any(p.name.isdigit() and marker in _cmdline(p) for p in Path("/proc").iterdir())


def _cmdline(proc: Path) -> str:
    try:
        return (proc / "cmdline").read_bytes().decode("utf-8", "replace")
    except OSError:
        return ""


def test_a_fleet_over_twenty_servers_gets_a_sarif_folder_code_scanning_accepts(fleet, tmp_path):
    """Code scanning takes at most 20 runs a file: 22 servers in one .sarif are said on stderr, and `--out DIR/`
    writes one file per server, each valid SARIF within GitHub's limits (mcp_review.report.sarif_valid)."""
    from mcp_review.report.sarif_valid import problems

    where, _ = fleet
    files = sorted((where / "state").glob("*.json"))
    merged = cli(
        "merge", *map(str, files), f"--out={tmp_path}/sarif/", f"--out={tmp_path}/all.sarif", cwd=tmp_path, home=where
    )
    assert "GitHub code scanning takes 20 a file" in merged.stderr, merged.stderr
    written = sorted((tmp_path / "sarif").glob("*.sarif"))
    assert len(written) == 22
    for path in written:
        doc = json.loads(path.read_text())
        assert not problems(doc) and len(doc["runs"]) <= 2, (path.name, problems(doc))
