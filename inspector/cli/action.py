"""`mcp-review action`: what the GitHub Action (action.yml) runs, one server reviewed as a pull request needs it.

It reads the Action's inputs from `INPUT_*` variables (action.yml passes each through `env`, never pasted into a
script) and the run from GitHub's own variables and event file (`mcp_review.cli.github`), then:

1. reviews the server (`check --format json`, as a child process: its exit code and stderr are the check's), with
   `--base` set to the pull request's base commit so only the base's waivers and attestations count;
2. diffs the server against the base branch's mcp-review.lock (`diff BASE.lock --fail-on`; on a push, against
   the checked-out lock), and puts that diff in the review;
3. writes the short review (job summary, PR comment), the complete one, and SARIF placed in the repository;
4. posts the short review as one PR comment, found again by a hidden marker and updated on every push;
5. sets the outputs and exits as the gates say: the verdict of the findings `check-fail-on` selects (check's
   `--fail-on`, by default security and what could not be verified) when it is one of `fail-verdicts`, or a change
   of a `fail-on` class.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mcp_review.cli.common import UsageError
from mcp_review.review import EXIT_CODES, ExitCode

VERDICTS = ("FAIL", "BLOCKED", "PASS_WITH_WARNINGS")
STEM = "review"  # every file is this with its format's suffix (report.FORMATS): review.json, review.sarif.json
WRITTEN = ("md", "sarif")  # the short review (summary, comment; the complete one beside it), code scanning's file


def arguments(p: argparse.ArgumentParser) -> None:
    p.description = "Inputs come from INPUT_* variables, as action.yml sets them (see README: GitHub Action)."


def inputs(env: Mapping[str, str]) -> dict[str, str]:
    """The Action's inputs by name (`fail-on` from INPUT_FAIL_ON), defaults as action.yml documents them."""
    defaults = {
        "fail-on": "breaking,safety",
        "check-fail-on": "",  # check's --fail-on; empty: its default (security,blocking)
        "fail-verdicts": "FAIL,BLOCKED",
        "lock": "mcp-review.lock",
        "comment": "true",
        "output-dir": "mcp-review-results",
        "working-directory": ".",
    }
    names = (
        "command",
        "url",
        "config",
        "server",
        "args",
        "name",
        "base",
        *defaults,
    )
    return {n: env.get(f"INPUT_{n.upper().replace('-', '_')}", "").strip() or defaults.get(n, "") for n in names}


def target_argv(given: Mapping[str, str]) -> list[str]:
    """The server as a command (after `--`), a URL, or a config entry; exactly one."""
    chosen = [k for k in ("command", "url", "config") if given[k]]
    if len(chosen) != 1:
        raise UsageError("give the Action exactly one of command, url or config (with server)")
    if given["url"]:
        return ["--url", given["url"]]
    if given["config"]:
        return ["--config", given["config"], *(["--server", given["server"]] if given["server"] else [])]
    return ["--", *shlex.split(given["command"])]


def run(args: argparse.Namespace) -> int:
    from mcp_review.cli.github import environment

    given = inputs(os.environ)
    gh = environment()
    root = (gh.workspace / given["working-directory"]).resolve()
    out = (root / given["output-dir"]).resolve()
    out.mkdir(parents=True, exist_ok=True)
    data = named(out, "json")
    data.unlink(missing_ok=True)  # a review left by an earlier run is never read as this one's
    target = target_argv(given)
    split = target.index("--") if "--" in target else len(target)
    options, server = target[:split], target[split:]  # a command stays after `--`, after every option
    extra = shlex.split(given["args"])
    extra += ["--fail-on", given["check-fail-on"]] if given["check-fail-on"] else []
    base = given["base"] or gh.base_sha
    base_ok = bool(base) and _git(root, "cat-file", "-e", f"{base}^{{commit}}") is not None
    checked = _mcp_review(
        root,
        ["check", "--format", "json", "--out", str(data), "-q", *options, *extra]
        + (["--base", str(base)] if base_ok else [])
        + server,
    )
    print(checked.stderr, file=sys.stderr, end="")
    if checked.returncode not in EXIT_CODES.values() or not data.is_file():
        gh.set_outputs({"verdict": "ERROR", "exit-code": str(ExitCode.USAGE)})
        from mcp_review.report.common import fence_for

        said = checked.stderr[-2000:]  # the server's last stderr lines among it: fenced so none can close the fence
        gh.write_summary(f"## mcp-review\n\nThe review did not run:\n\n{fence_for(said)}\n{said}\n{fence_for(said)}")
        return ExitCode.USAGE
    changes, changes_fail = _diff(root, out, given, base if base_ok else None, options + server)
    return _report(gh, root, out, given, changes, changes_fail)


def named(out: Path, fmt: str) -> Path:
    """The file of the review in `fmt` in the output folder, named by the format's record."""
    from mcp_review.report import FORMATS

    return out / f"{STEM}.{FORMATS[fmt].suffix}"


def write_review(review: Any, root: Path, out: Path) -> dict[str, list[Path]]:
    """The review in each format the Action publishes, in `out`, each with what its record asks for (the short
    review its complete one beside it; SARIF the repository, `out` itself not searched): the files of each."""
    from mcp_review.report import FORMATS
    from mcp_review.report.formats import write

    return {fmt: write(FORMATS[fmt], review, named(out, fmt), root=root, skip=out) for fmt in WRITTEN}


def _report(gh: Any, root: Path, out: Path, given: Mapping[str, str], changes: Any, changes_fail: bool) -> int:
    from mcp_review.cli.github import GitHubError, comment_body, upsert_comment
    from mcp_review.report import sarif
    from mcp_review.report.sarif_valid import problems
    from mcp_review.review import Review

    review = Review.from_json(json.loads(named(out, "json").read_text(encoding="utf-8")))
    if changes is not None:
        review.changes = changes
    written = write_review(review, root, out)
    short = written["md"][0].read_text(encoding="utf-8")  # as written: masked
    for problem in problems(json.loads(written["sarif"][0].read_text(encoding="utf-8"))):
        print(f"::warning title=mcp-review SARIF::{problem}")
    gh.write_summary(short)
    key = given["name"] or sarif.category(review)
    outputs = {"verdict": review.verdict, "review": str(named(out, "json")), "markdown": str(written["md"][0])}
    outputs["sarif"] = str(written["sarif"][0])
    verdicts = review.verdicts()
    gated = review.gate() or review.verdict  # the verdict of the findings check-fail-on selects
    outputs |= {"security": verdicts["security"], "verdicts": json.dumps(verdicts), "gate": gated}
    if given["comment"].lower() == "true" and gh.pull_request is not None:
        try:
            done, url = upsert_comment(gh, comment_body(short, key), key)
            outputs["comment-url"] = url
            print(f"mcp-review: {done} the pull request comment {url}", file=sys.stderr)
        except GitHubError as e:  # a fork's read-only token: the summary and SARIF still carry the review
            print(f"::warning title=mcp-review comment::{e}")
    code = gate(gated, given["fail-verdicts"], changes_fail)
    outputs["changes-fail"] = str(changes_fail).lower()
    outputs["exit-code"] = str(int(code))
    gh.set_outputs(outputs)
    said = f"gate {','.join(review.fail_on or ['all'])}: {gated}"
    print(
        f"mcp-review: {review.verdict}; {said}; changes failing fail-on: {changes_fail}; exit {int(code)}",
        file=sys.stderr,
    )
    return code


def gate(verdict: str, fail_verdicts: str, changes_fail: bool) -> ExitCode:
    """The exit code: the gated verdict's (FAIL 1, BLOCKED 3; PASS_WITH_WARNINGS 1; the verdict of the findings
    check-fail-on selects) when it is one of `fail_verdicts`, else 1 when a change since the base's lock is of a
    `fail-on` class, else 0."""
    gated = {v.strip().upper() for v in fail_verdicts.split(",") if v.strip()}
    unknown = gated - set(VERDICTS) - {"NONE"}
    if unknown:
        raise UsageError(f"fail-verdicts: unknown {', '.join(sorted(unknown))} (FAIL, BLOCKED, PASS_WITH_WARNINGS)")
    if verdict in gated:
        return EXIT_CODES[verdict] if verdict != "PASS_WITH_WARNINGS" else ExitCode.FAILED  # type: ignore[index]
    return ExitCode.FAILED if changes_fail else ExitCode.OK


def _diff(
    root: Path, out: Path, given: Mapping[str, str], base: str | None, target: list[str]
) -> tuple[dict[str, Any] | None, bool]:
    """The live server against the base branch's lock (a pull request) or the checked-out one (a push)."""
    lock = root / given["lock"]
    if base:
        shown = _git(root, "show", f"{base}:{Path(given['lock']).as_posix()}")
        if shown is None:
            return None, False  # the base has no lock: nothing to compare with yet
        lock = out / "base.mcp-review.lock"
        lock.write_text(shown, encoding="utf-8")
    elif not lock.is_file():
        return None, False
    argv = ["diff", str(lock), "--format", "json", "--fail-on", given["fail-on"], *target]
    done = _mcp_review(root, argv)
    if done.returncode not in (ExitCode.OK, ExitCode.FAILED):
        print(f"::warning title=mcp-review diff::{done.stderr.strip()[-500:]}")
        return None, False
    return json.loads(done.stdout), done.returncode == ExitCode.FAILED


def _mcp_review(cwd: Path, argv: list[str]) -> subprocess.CompletedProcess[str]:
    """`mcp-review ARGV` without the token that posts the comment: the review never needs it (a stdio server gets
    only `targets.INHERITED` anyway; this keeps it out of every process that talks to the server)."""
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_TOKEN"}
    return subprocess.run([sys.executable, "-m", "mcp_review", *argv], cwd=cwd, capture_output=True, text=True, env=env)


def _git(cwd: Path, *argv: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(cwd), *argv], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None
