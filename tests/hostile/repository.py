"""Hostile repositories (issue 21): the checkout under review ships files that try to decide its own review.

    python -m tests.hostile.repository [CASE ...]    # every case in every mode it has; one JSON line each

Each case builds a git checkout twice, clean and with the hostile files, runs mcp-review the same way in both
(a plain `check`, `check --base`, `diff OLD NEW`, or the app) with the reviewer's own config and state
directories outside the checkout, and judges with the trust judge: a verdict, an exit code, a tool called, a
probe sent, a file written outside the checkout, or the app's state before any run that changed because of a
repository file is a failure; so is a file that asked for more than it may without a line that names it.
Without a base (mode `said`) the repository's waivers apply as its policy: there only the line beside the
verdict that says how many and from which file and commit is required, and no call may change.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support import fixture_argv

PYTHON = sys.executable
ROOT = Path(__file__).resolve().parent.parent.parent
SERVER = fixture_argv("profiled", "exemplary")  # search_notes (read-only) and delete_note (destructive)
SURFACE = fixture_argv("surface")  # its v2 changes one item of every class, safety included


@dataclass(frozen=True)
class RepoCase:
    name: str
    mode: str  # check, base (check --base HEAD~1), said (check, its verdict may change if it says why), diff, app
    what: str
    files: Callable[[dict[str, Any]], dict[str, str]]  # the clean run's outcome -> the hostile files
    asks: str = ""  # what a line on stderr (or the app) must name when the file asks for more than it may


def _pyproject(clean: dict[str, Any]) -> dict[str, str]:
    """Waive every finding the clean run did not pass, "by security-team"."""
    waive = [
        f'[[tool.mcp-review.waive]]\nrule = "{rule}"\nreason = "reviewed"\nby = "security-team"\n'
        for rule in clean["unpassed"]
    ]
    return {"pyproject.toml": '[project]\nname = "x"\n\n[tool.mcp-review]\n\n' + "\n".join(waive)}


CASES = [
    RepoCase(
        "grants-consent",
        "check",
        "mcp-review.toml grants itself every call and every probe",
        lambda _: {"mcp-review.toml": '[calls]\npolicy = "all"\n\n[options]\nprobe = ["security-all"]\n'},
        'calls.policy = "all"',
    ),
    RepoCase(
        "token-env",
        "check",
        "mcp-review.toml asks for the reviewer's GITHUB_TOKEN as a foreign token",
        lambda _: {"mcp-review.toml": '[options]\nforeign_token_env = "GITHUB_TOKEN"\n'},
        "foreign_token_env",
    ),
    RepoCase(
        "outside-baseline",
        "check",
        "mcp-review.toml pins its baseline outside the working directory",
        lambda _: {"mcp-review.toml": 'baseline = "../outside-baseline.json"\n'},
        "outside the working directory",
    ),
    RepoCase(
        "pyproject-waives",
        "base",
        "the change adds a [tool.mcp-review] waiving every finding",
        _pyproject,
        "decisions this change adds",
    ),
    RepoCase(
        "waives-without-base",
        "said",
        "the same [tool.mcp-review] with no base: its policy applies, and the verdict line must say so",
        _pyproject,
        "findings waived and 0 attestations by pyproject.toml at",
    ),
    RepoCase(
        "ignores-on-change",
        "base",
        "the change's mcp-review.toml skips every rule it does not pass, and the review pack",
        lambda clean: {"mcp-review.toml": f"packs = ['spec']\nignore = {clean['unpassed']!r}\n"},
        "decisions this change adds",
    ),
    RepoCase(
        "self-approving-lock",
        "diff",
        "the change's mcp-review.lock approves its own changes",
        lambda _: {},
        "decisions this change adds",
    ),
    RepoCase(
        "app-grants",
        "app",
        "mcp-review.toml grants the app every call",
        lambda _: {"mcp-review.toml": '[calls]\npolicy = "all"\n'},
        'calls.policy = "all"',
    ),
    RepoCase("shipped-state", "app", "a .mcp-review/ review saying PASS ships with the checkout", lambda _: {}),
]
BY_NAME = {c.name: c for c in CASES}


def _git(cwd: Path, *args: str) -> None:
    who = ["-c", "user.name=author", "-c", "user.email=author@example.com", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", *who, *args], cwd=cwd, check=True, capture_output=True)


def _mcp_review(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PYTHON, "-m", "mcp_review", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def _checkout(work: Path, files: dict[str, str]) -> Path:
    """A git checkout: a first commit (the base), then the change adding `files`."""
    repo = work / "checkout"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "README.md").write_text("the server under review\n")
    _git(repo, "add", "README.md")
    _git(repo, "commit", "-qm", "base")
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
        _git(repo, "add", "-f", name)
    _git(repo, "commit", "-q", "--allow-empty", "-m", "the change")
    return repo


def _check(repo: Path, env: dict[str, str], *flags: str) -> dict[str, Any]:
    done = _mcp_review(repo, env, "check", "--format", "json", "--out", "review.json", "-q", *flags, "--", *SERVER)
    review = json.loads((repo / "review.json").read_text()) if (repo / "review.json").is_file() else None
    calls = sorted({f"{c['tool']} ({c['purpose']})" for c in (review or {}).get("coverage", [])})
    unpassed = sorted({f["rule"] for f in (review or {}).get("findings", []) if f["status"] in ("fail", "blocking")})
    verdict = review and review["verdict"]
    return {"exit": done.returncode, "verdict": verdict, "calls": calls, "stderr": done.stderr, "unpassed": unpassed}


def _diff(repo: Path, env: dict[str, str], approve: bool) -> dict[str, Any]:
    from mcp_review import lock
    from mcp_review.diff import diff
    from mcp_review.lock import Approval

    for name, argv in (("base.lock", SURFACE), ("pr.lock", fixture_argv("surface", "--surface", "v2"))):
        _mcp_review(repo, env, "pin", "--out", name, "--", *argv)
    if approve:
        old, new = lock.load(repo / "base.lock"), lock.load(repo / "pr.lock")
        changes = diff(old, new).changes
        new.approvals = [Approval(c.kind, c.key, c.change_class, "maintainer", "", c.sha256) for c in changes]
        lock.save(repo / "pr.lock", new)
    done = _mcp_review(repo, env, "diff", "base.lock", "pr.lock", "--fail-on", "breaking,safety", "--format", "json")
    return {"exit": done.returncode, "stderr": done.stderr}


def _app(repo: Path, env: dict[str, str], shipped: bool) -> dict[str, Any]:
    """The app as `mcp-review tui` starts it in the checkout: what it holds before any run."""
    script = (
        "import asyncio, json, sys\n"
        "from mcp_review.cli import parse\n"
        "from mcp_review.cli.common import decide\n"
        "from textual.notifications import Notify\n"
        "from mcp_review.tui.app import ReviewApp\n"
        "args = parse(['tui', '--', *sys.argv[1:]])\n"
        "plan = decide(args, review=True)\n"
        "app = ReviewApp(plan.target, plan=plan.check, state_dir=plan.state_dir)\n"
        "async def main():\n"
        "    heard = []\n"
        "    async with app.run_test(size=(100, 30), message_hook=heard.append) as pilot:\n"
        "        for _ in range(400):\n"
        "            if app.workspace.snapshot is not None: break\n"
        "            await pilot.pause(0.05)\n"
        "        await pilot.pause(0.2)\n"
        "        shown = [m.notification.message for m in heard if isinstance(m, Notify)]\n"
        "        ws = app.workspace\n"
        "        print(json.dumps({'review': ws.review and ws.review.verdict, 'calls': ws.options.calls,\n"
        "            'chosen': ws.calls_chosen, 'probe': sorted(ws.options.probe), 'shown': shown}))\n"
        "asyncio.run(main())\n"
    )
    if shipped:
        _ship_state(repo)
    done = subprocess.run(
        [PYTHON, "-c", script, *SERVER], cwd=repo, env=env, capture_output=True, text=True, timeout=120
    )
    lines = done.stdout.strip().splitlines()
    outcome = json.loads(lines[-1]) if lines else {"error": done.stderr[-500:]}
    return {**outcome, "stderr": done.stderr + "\n".join(outcome.get("shown", []))}


def _ship_state(repo: Path) -> None:
    """A PASS review where the app kept its state before issue 21 (./.mcp-review/, named after the target)."""
    import hashlib

    from mcp_review.review import Review
    from mcp_review.targets import stdio_target

    public = stdio_target(SERVER).public()
    key = json.dumps({k: public.get(k) for k in ("kind", "command", "args", "url", "name")}, sort_keys=True)
    name = f"{Path(SERVER[0]).name}-{hashlib.sha256(key.encode()).hexdigest()[:10]}.review.json"
    Review(server={}, target=public, revision=None, era=None, transport="stdio").save(repo / ".mcp-review" / name)


COMPARED = ("exit", "verdict", "calls", "review", "chosen", "probe")  # what a repository file may not change


def judge(case: RepoCase, clean: dict[str, Any], hostile: dict[str, Any], outside: list[str]) -> list[str]:
    """The trust judge: what changed because of a repository file (and a refusal nobody was told of)."""
    compared = ("calls",) if case.mode == "said" else COMPARED  # without a base the repository's policy applies
    found = [f"{k}: {clean.get(k)!r} -> {hostile.get(k)!r}" for k in compared if clean.get(k) != hostile.get(k)]
    found += [f"wrote outside the checkout: {p}" for p in outside]
    if case.asks and case.asks not in hostile.get("stderr", ""):
        found.append(f"asked for {case.asks} and nobody was told")
    return found


def _once(case: RepoCase, home: Path, files: dict[str, str], hostile: bool) -> dict[str, Any]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "MCP_REVIEW_CONFIG_DIR": str(home / "reviewer-config"),
        "MCP_REVIEW_STATE_DIR": str(home / "reviewer-state"),
        "GITHUB_TOKEN": "ghp_" + "0" * 36,
    }
    repo = _checkout(home, files)
    if case.mode in ("check", "said"):
        return _check(repo, env)
    if case.mode == "base":
        return _check(repo, env, "--base", "HEAD~1")
    if case.mode == "diff":
        return _diff(repo, env, approve=hostile)
    return _app(repo, env, shipped=hostile and case.name == "shipped-state")


def run(name: str) -> dict[str, Any]:
    case = BY_NAME[name]
    work = Path(tempfile.mkdtemp(prefix=f"hostile-repo-{name}-"))
    try:
        (work / "clean").mkdir()
        clean = _once(case, work / "clean", {}, hostile=False)
        home = work / "hostile"
        home.mkdir()
        bad = _once(case, home, case.files(clean), hostile=True)
        outside = [p.name for p in home.iterdir() if p.name not in ("checkout", "reviewer-config", "reviewer-state")]
        problems = judge(case, clean, bad, outside)
        return {"case": name, "mode": case.mode, "trust": problems, "ok": not problems, "stderr": bad["stderr"][-600:]}
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    for name in sys.argv[1:] or list(BY_NAME):
        print(json.dumps(run(name)), flush=True)
