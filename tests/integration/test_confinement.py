"""What a confined server can do (issue 38): not read the reviewer's home, not reach anything but its own loopback,
not leave a process behind, and not delete anything but canaries when told to `rm -rf ~`.

The server is tests/servers/behaves.py, which does what its one tool is told, reviewed the way mcp-review runs
every stdio server (mcp_review.sandbox): confined by bubblewrap, observed by strace. The reviewer's home here is a
temporary directory (HOME points there), holding a file the server must never see. The tests skip where this
machine cannot confine (no bubblewrap, no user namespaces) and fail there under scripts/test.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from mcp_review.connection.procs import MARK
from mcp_review.connection.session import Session, headless_handlers
from mcp_review.connection.stdio import StdioTransport
from mcp_review.sandbox import confine, known_run, observe
from mcp_review.targets import Confinement, stdio_target
from tests.support import PYTHON, SERVERS, copied_server, eventually

pytestmark = pytest.mark.skipif(
    bool(confine.unavailable() or observe.unavailable()) and not os.environ.get("MCP_REVIEW_REQUIRE_THIRDPARTY"),
    reason=f"cannot confine or observe here: {confine.unavailable() or observe.unavailable()}",
)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The reviewer's home: a directory with a file the server must never read."""
    real = tmp_path / "reviewer"
    (real / ".aws").mkdir(parents=True)
    (real / ".aws" / "credentials").write_text("[default]\naws_access_key_id = AKIAREALREALREALREAL\n")
    (real / "diary.txt").write_text("the reviewer's own words\n")
    monkeypatch.setenv("HOME", str(real))
    return real


@contextlib.asynccontextmanager
async def behaves(run: str, **env: str) -> AsyncIterator[Session]:
    target = stdio_target([PYTHON, str(SERVERS / "behaves.py")], env=env)
    target = target.with_(confinement=Confinement(observe=True, run=run), timeout=20)
    async with Session(target, handlers=headless_handlers()) as session:
        yield session


async def act(session: Session, **arguments: str) -> str:
    result, _ = await session.result("tools/call", {"name": "act", "arguments": arguments})
    return str(result["content"][0]["text"])


def events(session: Session) -> list[dict[str, object]]:
    session.wire.catch_up()
    return [e.event for e in session.wire.events() if e.event]


async def test_the_server_sees_canaries_in_place_of_the_reviewers_home(home: Path):
    async with behaves("home") as session:
        assert session.wire.runs and all(r.confined and r.observed for r in session.wire.runs.values())
        diary = await act(session, what="read", path=str(home / "diary.txt"))
        credentials = await act(session, what="read", path=str(home / ".aws" / "credentials"))
        dotenv = await act(session, what="read", path=".env")
        seen = events(session)
    assert diary.startswith("error: FileNotFoundError"), diary
    assert "AKIAREALREALREALREAL" not in credentials and "aws_secret_access_key" in credentials
    run = known_run("home")
    assert run is not None
    planted = {value for value, path, _ in run.values() if path == f"{home}/.aws/credentials"}
    assert planted and all(value in credentials for value in planted), "the canary, made for this run"
    assert "STRIPE_SECRET_KEY=sk_live_" in dotenv, "a canary .env in its working directory"
    opened = [e for e in seen if e.get("path") == f"{home}/.aws/credentials"]
    assert opened and opened[0]["where"] == "canary" and opened[0]["phase"] == "during", opened
    assert (home / ".aws" / "credentials").read_text().count("REAL") == 4, "the real file is as it was"


async def test_nothing_leaves_and_the_attempt_is_recorded_with_its_address(home: Path):
    listener = socket.create_server(("127.0.0.1", 0))  # the machine's loopback: not the server's
    port = listener.getsockname()[1]
    try:
        async with behaves("net") as session:
            outside = await act(session, what="connect", host="203.0.113.7", port="443")  # TEST-NET-3: nothing answers
            local = await act(session, what="connect", host="127.0.0.1", port=str(port))
            leak = await act(session, what="exfiltrate")
            seen = events(session)
    finally:
        listener.close()
    assert "Network is unreachable" in outside, outside
    assert "Connection refused" in local, "the machine's 127.0.0.1 is not reachable from its own loopback"
    assert leak == "done", "an exfiltration that shows only in behaviour"
    connects = {(e["address"], e["result"]) for e in seen if e["kind"] == "connect"}
    assert ("203.0.113.7:443", "ENETUNREACH") in connects
    names = [str(e["name"]) for e in seen if e["kind"] == "dns"]
    run = known_run("net")
    assert run is not None
    key = next(v for v, p, _ in run.values() if p.endswith("/.aws/credentials") and v.startswith("AKIA"))
    assert f"{key.lower()}.exfil.example" in names, names


async def test_no_process_is_left_behind(home: Path):
    async with behaves("procs") as session:
        transport = session.channel.transport if session.channel else None
        assert isinstance(transport, StdioTransport) and transport.token
        token = transport.token
        pid = await act(session, what="detach")
        assert pid.isdigit(), pid
        assert marked(token), "the detached process runs, carrying the marker"
    assert eventually(lambda: not marked(token), timeout=10), f"left behind: {marked(token)}"


def marked(token: str) -> list[int]:
    """Live processes whose environment carries the server's marker."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if f"{MARK}={token}".encode() in Path(entry.path, "environ").read_bytes():
                    stat = Path(entry.path, "stat").read_text()
                    if stat[stat.rindex(")") + 2] != "Z":
                        found.append(int(entry.name))
    return found


async def test_rm_rf_home_deletes_only_canaries(home: Path, tmp_path: Path):
    checkout = Path(__file__).resolve().parents[2]
    before = {p: p.stat().st_mtime_ns for p in (checkout / "pyproject.toml", Path(PYTHON).resolve())}
    async with behaves("wipe", BEHAVES_MAY_WIPE=str(home)) as session:
        left = await act(session, what="wipe-home")
        after = await act(session, what="read", path=str(home / ".aws" / "credentials"))
    assert after.startswith("error: FileNotFoundError"), "the canaries are gone inside"
    run = known_run("wipe")
    assert run is not None
    planted = [Path(p) for p in (run.home / ".aws" / "credentials", run.home / ".ssh" / "id_rsa")]
    assert not any(p.exists() for p in planted), "what it deleted was the run's canaries"
    assert (home / "diary.txt").read_text() == "the reviewer's own words\n", f"the real home is intact ({left!r})"
    assert (home / ".aws" / "credentials").exists()
    assert {p: p.stat().st_mtime_ns for p in before} == before, "the checkout and the interpreter are untouched"


def test_a_shell_in_the_confinement_cannot_remount_or_write(home: Path, tmp_path: Path):
    """Root inside keeps no capability: / stays read-only even to `mount -o remount,rw /`."""
    import subprocess

    from mcp_review.sandbox import prepare

    target = stdio_target(["sh", "-c", "mount -o remount,rw / ; touch /etc/mcp-review-escape; echo done"])
    target = target.with_(confinement=Confinement(run="remount"))
    argv = prepare(target, [target.command or "", *target.args], {"PATH": os.environ["PATH"], "HOME": str(home)})
    done = subprocess.run(argv.argv, capture_output=True, text=True, timeout=30)
    assert "done" in done.stdout and "Read-only file system" in done.stderr, done.stderr
    assert not Path("/etc/mcp-review-escape").exists()


def test_the_review_records_how_the_server_ran(home: Path, tmp_path: Path):
    """`check` says it in the review: confined, observed, who decided, and the allowances with their source."""
    from tests.support import run_cli

    out = tmp_path / "review.json"
    done = run_cli(
        "check", "-q", "--pack", "review", "--allow-read", str(tmp_path), "--format", "json", "--out", str(out),
        "--", PYTHON, str(SERVERS / "behaves.py"),
        env={"HOME": str(home)},
    )  # fmt: skip
    assert done.returncode in (0, 1, 3), done.stderr
    review = json.loads(out.read_text())
    decided = review["decisions"]["provenance"]["confinement"]
    assert decided["confine"] is True and decided["who"] == "default"
    assert decided["allowRead"] == [{"what": str(tmp_path), "who": "reviewer", "how": "--allow-read"}]
    assert decided["observe"] is False, "no calls, no probes: not observed unless asked"
    blocked = [f for f in review["findings"] if f["rule"] == "review.hosts-named"]
    assert [f["status"] for f in blocked] == ["blocking"] and "unobserved" in blocked[0]["message"]


def test_probes_are_proven_by_what_the_confined_server_did(home: Path):
    """peek opens a traversal's canary and answers only "peeked"; fetch requests the listener's URL, which its own
    loopback refuses: neither answer shows anything, the observed events prove both."""
    from mcp_review.checking import CheckPlan, run_check
    from mcp_review.rules.context import Options

    target = stdio_target([PYTHON, str(SERVERS / "behaves.py")]).with_(
        confinement=Confinement(observe=True, run="probes"), timeout=20
    )
    options = Options(calls="all", probe=frozenset({"security"}))
    plan = CheckPlan(packs=["review"], options=options)
    review = asyncio.run(run_check(target, plan))
    found = {(f.rule, f.subject): (f.status, f.message) for f in review.findings}
    status, said = found[("review.paths-confined", "peek")]
    assert status == "fail" and "(observed: " in said and "opened the canary path" in said, said
    status, said = found[("review.urls-confined", "fetch")]
    assert status == "fail" and "tried to connect to the canary listener (observed" in said, said


def test_a_path_the_command_names_is_shown_but_never_the_home_itself(home: Path):
    """A reviewer's command line (or --env) naming a file under a hidden root shows it read-only; naming the home
    itself, or a folder that holds it, does not: only --allow-read shows that."""
    (home / "data").mkdir()
    args = (str(home), str(home.parent), f"--root={home / 'data'}", str(home / "nothing-here"))
    target = stdio_target([PYTHON, *args], env={"WIPE": str(home), "DATA": str(home / "data")})
    assert confine.named_paths(target) == [str(home / "data")]


def test_a_checkout_under_a_hidden_root_runs_its_script_with_its_project(tmp_path: Path):
    """`python /tmp/checkout/tests/servers/x.py`: the script imports its siblings, so the project it belongs to (its
    nearest folder with a pyproject.toml, package.json, setup.py or .git) is shown read-only. A fresh clone under
    /tmp or /home ran none of its fixture servers before (`ModuleNotFoundError: rawserver`)."""

    from tests.support import run_cli

    servers = tmp_path / "checkout" / "tests" / "servers"
    copied_server(servers, "profiled.py")
    (tmp_path / "checkout" / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (tmp_path / "elsewhere").mkdir()
    target = stdio_target([PYTHON, str(servers / "profiled.py"), "exemplary"])
    assert confine.named_paths(target) == [str((tmp_path / "checkout").resolve())]
    listed = run_cli(
        "list", "--format", "json", "--", PYTHON, str(servers / "profiled.py"), "exemplary", cwd=tmp_path / "elsewhere"
    )
    assert listed.returncode == 0 and json.loads(listed.stdout)["tools"], listed.stderr


def test_a_venvs_editable_install_under_a_hidden_root_is_shown_with_its_project(tmp_path: Path):
    """`.venv/bin/python -m server` where the venv holds an editable install (`pip install -e`: a `.pth` naming the
    project's source) of a project under a hidden root: the source's project is shown read-only, as the venv's own
    tree is. mcp-review's own demo (`python -m mcp_review.demo`) failed so from a clone under /tmp or /home run
    from another folder (`No module named 'mcp_review'`); so does a server a reviewer installs editable."""
    import subprocess

    from tests.support import run_cli

    project = tmp_path / "project"
    copied_server(project / "src", "profiled.py")
    (project / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    subprocess.run([PYTHON, "-m", "venv", "--without-pip", str(tmp_path / "venv")], check=True)
    (site,) = (tmp_path / "venv" / "lib").glob("python*/site-packages")
    (site / "__editable__.x.pth").write_text(f"{project / 'src'}\nimport os; os.environ.get('X')\n")
    (tmp_path / "elsewhere").mkdir()
    venv_python = str(tmp_path / "venv" / "bin" / "python")
    assert str(project.resolve()) in confine.own_trees(stdio_target([venv_python, "-m", "profiled"]), dict(os.environ))
    listed = run_cli(
        "list", "--format", "json", "--", venv_python, "-m", "profiled", "exemplary", cwd=tmp_path / "elsewhere"
    )
    assert listed.returncode == 0 and json.loads(listed.stdout)["tools"], listed.stderr
