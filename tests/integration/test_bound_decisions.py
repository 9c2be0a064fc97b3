"""Decisions bound to what they decided (issue 39), in `check` and the GitHub Action: a waiver written on a tool's
definition stops applying when the definition changes, says what changed, and applies again when it changes back.

The server is one command whose code changes between runs, as a server's does between two commits: `server.py`
runs tests/servers/surface.py at the version its `version.txt` names (v2 rewords `notes_list`'s description), so
the target and its saved state stay the same while the definition changes. The waiver is on
`review.annotations-set` for `notes_list`, a warn both versions share."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from mcp_review.report import render
from mcp_review.review import Review
from tests.integration.test_check_cli import cli
from tests.support import copied_server

RULE, TOOL = "review.annotations-set", "notes_list"
WRAPPER = """import os, sys
from pathlib import Path
here = Path(__file__).parent
version = (here / "version.txt").read_text().strip()
os.execv(sys.executable, [sys.executable, str(here / "surface.py"), "--surface", version])
"""


def server(folder: Path, version: str) -> list[str]:
    """The wrapper and surface.py in `folder` (the project the confined server is shown: tests/support.py)."""
    copied_server(folder, "surface.py")
    (folder / "server.py").write_text(WRAPPER)
    (folder / "version.txt").write_text(version)
    return [sys.executable, str(folder / "server.py")]


def toml(value: object) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml(v)}" for k, v in value.items()) + " }"
    return json.dumps(value)


def waiver(**binding: object) -> str:
    said = "".join(f"{key} = {toml(value)}\n" for key, value in binding.items())
    return f'[[waive]]\nrule = "{RULE}"\nsubject = "{TOOL}"\nreason = "annotations land in 0.4"\nby = "alice"\n{said}'


def reviewed(folder: Path, version: str, *extra: str) -> tuple[dict, subprocess.CompletedProcess[str]]:
    out = folder / f"review-{version}.json"
    done = cli("check", "--pack", "review", "--no-pins", "--format", "json", "--out", str(out), *extra, "--",
               *server(folder, version), cwd=folder)  # fmt: skip
    assert done.returncode in (0, 1, 3), done.stderr  # v2's notes_tag orders the model to read ~/.ssh: security fails
    return json.loads(out.read_text()), done


def on_tool(review: dict) -> dict:
    return next(f for f in review["findings"] if f["rule"] == RULE and f["subject"] == TOOL)


def own_config() -> Path:
    """The reviewer's own mcp-review.toml (tests/conftest.py gives each test its own config folder): its decisions
    are the reviewer's, applied without a base."""
    return Path(os.environ["MCP_REVIEW_CONFIG_DIR"]) / "mcp-review.toml"


def test_a_waiver_stops_applying_when_the_definition_changes_and_applies_again(tmp_path):
    """Bound on first use (a file written without a digest), then written with its digest: either way the waiver
    lapses on the changed definition, saying what changed, and applies again when the definition changes back."""
    own_config().write_text(waiver())
    first, done = reviewed(tmp_path, "v1")
    [bound] = first["waivers"]
    assert on_tool(first)["status"] == "waived" and bound["state"] == "live"
    assert bound["digest"].startswith("sha256:") and bound["version"] == 1 and bound["bound"].startswith("on first use")
    assert first["decisionCounts"] == {"live": 1, "boundOnFirstUse": 1}
    assert f"{RULE} on {TOOL} bound on first use" in done.stderr and f'digest = "{bound["digest"]}"' in done.stderr
    changed, _ = reviewed(tmp_path, "v2")  # the state directory kept the binding: the definition changed since
    finding = on_tool(changed)
    assert finding["status"] == "warn" and changed["decisionCounts"]["stale"] == 1
    assert finding["lapsed"].startswith("waived for an earlier version by alice (annotations land in 0.4)")
    assert "its description changed" in finding["lapsed"]

    (Path(os.environ["MCP_REVIEW_STATE_DIR"]) / "bindings.json").unlink()  # nothing remembered: the file decides
    own_config().write_text(waiver(digest=bound["digest"], version=1, parts=bound["parts"]))
    review, done = reviewed(tmp_path, "v2")
    finding = on_tool(review)
    assert finding["status"] == "warn" and "its description changed" in finding["lapsed"]
    assert "bound on first use" not in done.stderr, "bound in the file: nothing to say"
    md = render(Review.from_json(review), "md")
    assert "waived for an earlier version" in md and "stale (made on an earlier version)" in md
    assert on_tool(reviewed(tmp_path, "v1")[0])["status"] == "waived"


def git(cwd: Path, *argv: str) -> str:
    return subprocess.run(["git", "-C", str(cwd), *argv], check=True, capture_output=True, text=True).stdout


def test_the_action_applies_the_bases_waiver_only_to_the_definition_it_was_made_on(tmp_path):
    """A pull request's base holds the waiver with its digest: the job on an unchanged definition applies it, the
    job on a changed one reports the warn as waived for an earlier version (the JSON review the Action writes)."""
    ws = tmp_path / "repo"
    ws.mkdir()
    own_config().write_text(waiver())  # the digest of v1, as a first review bound it
    digest = reviewed(tmp_path, "v1")[0]["waivers"][0]["digest"]
    own_config().unlink()
    (Path(os.environ["MCP_REVIEW_STATE_DIR"]) / "bindings.json").unlink()
    server(ws, "v1")
    (ws / "mcp-review.toml").write_text('packs = ["review"]\n' + waiver(digest=digest, version=1))
    git(ws, "init", "-q", "-b", "main")
    git(ws, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    git(ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    base = git(ws, "rev-parse", "HEAD").strip()
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 7, "base": {"sha": base}}}))
    for version, status in (("v2", "warn"), ("v1", "waived")):
        (ws / "version.txt").write_text(version)
        env = {
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_WORKSPACE": str(ws),
            "GITHUB_OUTPUT": str(tmp_path / "out.txt"),
            "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
            "INPUT_COMMAND": f"{sys.executable} server.py",
            "INPUT_COMMENT": "false",
            "INPUT_ARGS": "--no-pins",
        }
        (tmp_path / "summary.md").unlink(missing_ok=True)  # the job summary is appended to, as GitHub's is
        done = cli("action", cwd=ws, env=env)
        review = json.loads((ws / "mcp-review-results" / "review.json").read_text())
        assert done.returncode in (0, 1, 3), done.stderr
        assert on_tool(review)["status"] == status, (version, on_tool(review))
        summary = (tmp_path / "summary.md").read_text()
        assert ("waived for an earlier version" in summary) == (version == "v2")
