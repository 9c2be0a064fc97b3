"""Hostile repositories (issues 21 and 35): the checkout under review ships files that try to decide its own review.

    python -m tests.hostile.repository [CASE ...]    # every case in every mode it has; one JSON line each

Each case builds a git checkout twice, clean and with the hostile files, runs mcp-review the same way in both
(a plain `check`, `check --base`, `diff OLD NEW`, the app before any run, or the app's run of the checklist, judged
against a plain `check` of the clean checkout: the app must reach its verdict) with
the reviewer's own config and state directories outside the checkout, and judges with the trust judge: a verdict,
an exit code, a tool called, a probe sent, a file written outside the checkout, or the app's state or verdict that
changed because of a repository file is a failure; so is a file that asked for more than it may, or decided what
was not applied, without the words that say so (on stderr, or on the app's screen at 80 columns). The checkout is
a pull request's: a base commit on `main` and the change on a branch of its own, unless the case has no base
(`branch=False`: the change on the only branch, so nothing tells the project's decisions from the change's).
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

from mcp_review.review import NEEDS_REVIEWER as NEEDS
from tests.support import fixture_argv

PYTHON = sys.executable
ROOT = Path(__file__).resolve().parent.parent.parent
SERVER = fixture_argv("profiled", "exemplary")  # search_notes (read-only) and delete_note (destructive)
SURFACE = fixture_argv("surface")  # its v2 changes one item of every class, safety included


@dataclass(frozen=True)
class RepoCase:
    name: str
    mode: str  # check, base (check --base HEAD~1), diff, app (before any run), app-check (the app's run vs check's)
    what: str
    files: Callable[[dict[str, Any]], dict[str, str]]  # the clean run's outcome -> the hostile files
    asks: str | tuple[str, ...] = ""  # what stderr (or the app's screen) must say: that it asked, or was not applied
    branch: bool = True  # the change on a branch off main (a pull request's checkout); False: on the only branch


def _pyproject(clean: dict[str, Any]) -> dict[str, str]:
    """Waive every finding the clean run did not pass, and attest each manual rule among them, "by security-team"."""
    attest = [
        f'[[tool.mcp-review.attest]]\nrule = "{rule}"\nnote = "read it"\nby = "security-team"\n'
        for rule in clean["manual"]
    ]
    waive = [
        f'[[tool.mcp-review.waive]]\nrule = "{rule}"\nreason = "reviewed"\nby = "security-team"\n'
        for rule in clean["unpassed"]
    ]
    return {"pyproject.toml": '[project]\nname = "x"\n\n[tool.mcp-review]\n\n' + "\n".join(attest + waive)}


# what stderr, and the app's screen at 80 columns, say of a repository's waivers that were not applied
NOT_APPLIED = ("not applied: ", "of the repository's pyproject.toml", "with them the verdict would be PASS")
ON_A_BRANCH = (*NOT_APPLIED, "(not on the base: the merge base with main (the default branch) at ")
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
        "(not on the base: --base HEAD~1)",
    ),
    RepoCase(
        "pr-waives",
        "check",
        "a plain check in a pull request's checkout whose pyproject.toml waives and attests every finding",
        _pyproject,
        ON_A_BRANCH,
    ),
    RepoCase(
        "pr-waives-app",
        "app-check",
        "the app's run of the checklist in the same checkout: its verdict, and the screen says it whole",
        _pyproject,
        ON_A_BRANCH,
    ),
    RepoCase(
        "waives-without-base",
        "check",
        "the same [tool.mcp-review] on the only branch: no base, so none applies and the verdict line says so",
        _pyproject,
        (*NOT_APPLIED, "(no base tells the project's decisions from the change's: no branch to merge into"),
        branch=False,
    ),
    RepoCase(
        "ignores-on-change",
        "base",
        "the change's mcp-review.toml skips every rule it does not pass, and the review pack",
        lambda clean: {"mcp-review.toml": f"packs = ['spec']\nignore = {clean['unpassed']!r}\n"},
        "(not on the base: --base HEAD~1)",
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


def _checkout(work: Path, files: dict[str, str], branch: bool) -> Path:
    """A git checkout: a first commit on main (the base), then the change adding `files`, on a branch of its own
    (`branch`: a pull request's checkout) or on main."""
    repo = work / "checkout"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "README.md").write_text("the server under review\n")
    _git(repo, "add", "README.md")
    _git(repo, "commit", "-qm", "base")
    if branch:
        _git(repo, "checkout", "-qb", "the-change")
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
    findings = (review or {}).get("findings", [])
    unpassed = sorted({f["rule"] for f in findings if f["status"] in ("fail", "blocking")})
    manual = sorted({f["rule"] for f in findings if f["status"] == "blocking" and f["message"].startswith(NEEDS)})
    verdict = review and review["verdict"]
    outcome = {"exit": done.returncode, "verdict": verdict, "calls": calls, "stderr": done.stderr}
    return {**outcome, "unpassed": unpassed, "manual": manual}


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


def _app(repo: Path, env: dict[str, str], shipped: bool, run: bool) -> dict[str, Any]:
    """The app as `mcp-review tui` starts it in the checkout, at 80x24: what it holds before any run, or (`run`)
    the verdict of its run of the checklist, with the screen's text (the status line over the Overview)."""
    script = (
        "import asyncio, json, sys\n"
        "from mcp_review.cli import parse\n"
        "from mcp_review.cli.common import decide\n"
        "from textual.notifications import Notify\n"
        "from mcp_review.tui.app import ReviewApp\n"
        "from tests.tui_pilot import screen_text\n"
        "run = sys.argv[1] == 'run'\n"
        "args = parse(['tui', '--', *sys.argv[2:]])\n"
        "plan = decide(args, review=True)\n"
        "app = ReviewApp(plan.target, plan=plan.check, state_dir=plan.state_dir)\n"
        "async def main():\n"
        "    heard = []\n"
        "    async with app.run_test(size=(80, 24), message_hook=heard.append) as pilot:\n"
        "        ws = app.workspace\n"
        "        for _ in range(400):\n"
        "            if ws.snapshot is not None: break\n"
        "            await pilot.pause(0.05)\n"
        "        await pilot.pause(0.2)\n"
        "        before = {'review': ws.review and ws.review.verdict, 'calls': ws.options.calls,\n"
        "            'chosen': ws.calls_chosen, 'probe': sorted(ws.options.probe)}\n"
        "        screen = ''\n"
        "        if run:\n"
        "            ws.choose(ws.plan.packs, ws.options)  # the run dialog's defaults, as a reviewer leaves them\n"
        "            app.action_run_checks()\n"
        "            for _ in range(1200):\n"
        "                if ws.review is not None and not ws.checking: break\n"
        "                await pilot.pause(0.05)\n"
        "            app.action_show_tab('tab-overview')\n"
        "            await pilot.pause(0.3)\n"
        "            screen = screen_text(app)\n"
        "            before['verdict'] = ws.review and ws.review.verdict\n"
        "        shown = [m.notification.message for m in heard if isinstance(m, Notify)]\n"
        "        print(json.dumps({**before, 'shown': shown, 'screen': screen}))\n"
        "asyncio.run(main())\n"
    )
    if shipped:
        _ship_state(repo)
    done = subprocess.run(
        [PYTHON, "-c", script, "run" if run else "start", *SERVER],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    lines = done.stdout.strip().splitlines()
    outcome = json.loads(lines[-1]) if lines else {"error": done.stderr[-500:]}
    said = "\n".join([*outcome.get("shown", []), _unwrapped(outcome.get("screen", ""))])
    return {**outcome, "stderr": done.stderr + said}


def _unwrapped(screen: str) -> str:
    """The screen's lines joined where the app wrapped them (a word per line break), its box borders left out: what
    the reviewer reads, as one text to find a sentence in. A scrollbar's thumb (block elements, U+2580-U+259F) at a
    line's right end is left out too: a long screen scrolls."""
    edges = " │┃" + "".join(map(chr, range(0x2580, 0x25A0)))
    lines = [line.strip(edges).rstrip() for line in screen.splitlines()]
    return " ".join(line for line in lines if line)


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
    compared = ("verdict",) if case.mode == "app-check" else COMPARED  # the app's run against a plain check's
    found = [f"{k}: {clean.get(k)!r} -> {hostile.get(k)!r}" for k in compared if clean.get(k) != hostile.get(k)]
    found += [f"wrote outside the checkout: {p}" for p in outside]
    said = hostile.get("stderr", "")
    for words in (case.asks,) if isinstance(case.asks, str) else case.asks:
        if words and words not in said:
            found.append(f"asked for {words} and nobody was told")
    return found


def _once(case: RepoCase, home: Path, files: dict[str, str], hostile: bool) -> dict[str, Any]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "MCP_REVIEW_CONFIG_DIR": str(home / "reviewer-config"),
        "MCP_REVIEW_STATE_DIR": str(home / "reviewer-state"),
        "GITHUB_TOKEN": "ghp_" + "0" * 36,
    }
    repo = _checkout(home, files, case.branch)
    if case.mode == "check" or (case.mode == "app-check" and not hostile):  # the app must reach check's verdict
        return _check(repo, env)
    if case.mode == "base":
        return _check(repo, env, "--base", "HEAD~1")
    if case.mode == "diff":
        return _diff(repo, env, approve=hostile)
    return _app(repo, env, shipped=hostile and case.name == "shipped-state", run=case.mode == "app-check")


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
