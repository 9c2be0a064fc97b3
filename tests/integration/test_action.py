"""The GitHub Action as GitHub runs it: `mcp-review action` with the variables and event file of a `pull_request`
run, the REST API a recording server on 127.0.0.1, a fixture server (surface.py) that changed since the base
branch's lock. Run twice: the first posts the comment, the second finds it by its marker and updates it.

And the pre-commit hook (.pre-commit-hooks.yaml), its entry run as pre-commit runs it."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
import yaml

from mcp_review.cli.github import marker
from mcp_review.report.sarif_valid import problems
from tests.support import ROOT, SERVERS


class GitHub(BaseHTTPRequestHandler):
    """The issue comments endpoints, recording every call."""

    calls: ClassVar[list[tuple[str, str, dict, str]]] = []
    comments: ClassVar[list[dict]] = []

    def _answer(self, status: int, body: object) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _record(self) -> dict:
        size = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(size)) if size else {}
        self.calls.append((self.command, self.path, body, self.headers.get("Authorization", "")))
        return body

    def do_GET(self):
        self._record()
        self._answer(200, self.comments)

    def do_POST(self):
        body = self._record()
        comment = {"id": 100 + len(self.comments), "body": body["body"], "html_url": "https://example.test/c"}
        self.comments.append(comment)
        self._answer(201, comment)

    def do_PATCH(self):
        body = self._record()
        comment = next(c for c in self.comments if self.path.endswith(f"/comments/{c['id']}"))
        comment["body"] = body["body"]
        self._answer(200, comment)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def api():
    GitHub.calls, GitHub.comments = [], [{"id": 1, "body": "someone else's comment"}]
    server = ThreadingHTTPServer(("127.0.0.1", 0), GitHub)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def mcp_review(*argv, cwd, env=None):
    return subprocess.run(
        [sys.executable, "-m", "mcp_review", *argv], cwd=cwd, capture_output=True, text=True, timeout=120, env=env
    )


def git(cwd, *argv):
    return subprocess.run(["git", "-C", str(cwd), *argv], check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """A server repository whose base commit pinned surface.py v1 in mcp-review.lock."""
    ws = tmp_path_factory.mktemp("workspace")
    for name in ("surface.py", "rawserver.py"):
        shutil.copy(SERVERS / name, ws / name)
    pinned = mcp_review("pin", "--", sys.executable, "surface.py", cwd=ws)
    assert pinned.returncode == 0, pinned.stderr
    git(ws, "init", "-q", "-b", "main")
    git(ws, "add", ".")
    git(ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base")
    return ws, git(ws, "rev-parse", "HEAD")


def outputs(path: Path) -> dict[str, str]:
    """GITHUB_OUTPUT's `name<<DELIMITER` blocks, the last value of each name."""
    found = re.findall(r"^([\w-]+)<<(\S+)\n(.*?)\n\2$", path.read_text(), re.S | re.M)
    return {name: value for name, _, value in found}


def action(ws, base, api, tmp, surface, **inputs):
    event = tmp / "event.json"
    event.write_text(json.dumps({"action": "synchronize", "pull_request": {"number": 7, "base": {"sha": base}}}))
    for name in ("summary.md", "output.txt"):
        (tmp / name).unlink(missing_ok=True)
    env = {
        **os.environ,
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": "octo/notes-server",
        "GITHUB_API_URL": api,
        "GITHUB_TOKEN": "t0ken",
        "GITHUB_WORKSPACE": str(ws),
        "GITHUB_STEP_SUMMARY": str(tmp / "summary.md"),
        "GITHUB_OUTPUT": str(tmp / "output.txt"),
        "INPUT_COMMAND": shlex.join([sys.executable, "surface.py", "--surface", surface]),
        **{f"INPUT_{k.upper()}": v for k, v in inputs.items()},  # after: an input given replaces the default
    }
    done = mcp_review("action", cwd=ws, env=env)
    return done, outputs(tmp / "output.txt"), (tmp / "summary.md").read_text()


@pytest.fixture(scope="module")
def runs(workspace, api, tmp_path_factory):
    ws, base = workspace
    tmp = tmp_path_factory.mktemp("runner")
    first = action(ws, base, api, tmp, "v2", FAIL_VERDICTS="NONE")
    calls = list(GitHub.calls)
    second = action(ws, base, api, tmp, "v1", FAIL_VERDICTS="NONE")
    return first, second, calls, GitHub.calls[len(calls) :], ws


def test_the_first_run_posts_the_comment_and_the_second_updates_it(runs):
    _, _, first, second, _ = runs
    assert [(m, p) for m, p, _, _ in first] == [
        ("GET", "/repos/octo/notes-server/issues/7/comments?per_page=100"),
        ("POST", "/repos/octo/notes-server/issues/7/comments"),
    ]
    assert [(m, p) for m, p, _, _ in second] == [
        ("GET", "/repos/octo/notes-server/issues/7/comments?per_page=100"),
        ("PATCH", "/repos/octo/notes-server/issues/comments/101"),
    ]
    assert all(auth == "Bearer t0ken" for *_, auth in first + second)
    assert len(GitHub.comments) == 2 and GitHub.comments[0]["body"] == "someone else's comment"
    posted, updated = first[1][2]["body"], second[1][2]["body"]
    assert posted.startswith(marker("surface-notes")) and updated.startswith(marker("surface-notes"))
    assert "breaking" in posted and "no changes" in updated, "the comment follows the latest push"


def test_exit_follows_the_gates_and_the_outputs_and_summary_say_why(runs):
    (first, out1, summary1), (second, out2, _), *_ = runs
    assert first.returncode == 1 and out1["changes-fail"] == "true" and out1["exit-code"] == "1", first.stderr
    assert second.returncode == 0 and out2["changes-fail"] == "false" and out2["exit-code"] == "0", second.stderr
    review = json.loads(Path(out1["review"]).read_text())
    assert out1["verdict"] == review["verdict"] and f"mcp-review {review['tool']['version']}" in summary1
    assert "**Verdict:" in summary1 and "## Changes" in summary1 and out2["comment-url"] == "https://example.test/c"


def test_the_sarif_is_accepted_and_placed_in_the_workspace(runs):
    (_, out, _), *_ = runs
    doc = json.loads(Path(out["sarif"]).read_text())
    assert problems(doc) == []
    placed = [r["locations"][0].get("physicalLocation") for r in doc["runs"][0]["results"]]
    assert any(p and p["artifactLocation"]["uri"] == "surface.py" for p in placed)
    assert [run["automationDetails"]["id"] for run in doc["runs"]] == [
        "mcp-review/surface-notes/",
        "mcp-review-diff/surface-notes/",
    ]


def test_the_pre_commit_hook_fails_on_a_breaking_change_since_the_lock(workspace):
    ws, _ = workspace
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["language"] == "python" and hook["pass_filenames"] is False
    entry = shlex.split(hook["entry"])
    assert entry[0] == "mcp-review"
    runs = {}
    for surface in ("v1", "v2"):  # as pre-commit runs it: entry, then the hook's args from the user's config
        argv = [*entry[1:], "--", sys.executable, "surface.py", "--surface", surface]
        runs[surface] = mcp_review(*argv, cwd=ws)
    assert runs["v1"].returncode == 0, runs["v1"].stderr
    assert runs["v2"].returncode == 1 and "breaking" in runs["v2"].stdout


def test_a_server_that_cannot_start_is_an_error_not_a_verdict(workspace, api, tmp_path):
    ws, base = workspace
    before = len(GitHub.calls)
    crash = shlex.join([sys.executable, str(SERVERS / "crash.py")])
    done, out, summary = action(ws, base, api, tmp_path, "v1", COMMAND=crash)
    assert done.returncode == 2 and out == {"verdict": "ERROR", "exit-code": "2"}
    assert "The review did not run" in summary and "missing config file" in summary
    assert len(GitHub.calls) == before, "no comment for a review that did not happen"
