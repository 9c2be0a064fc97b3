"""What `mcp-review action` reads from and writes to GitHub Actions: the run's environment and event file, the
step summary and outputs, and the one pull-request comment it keeps up to date (REST API, `GITHUB_API_URL`).

Only what GitHub documents is used: the default environment variables (GITHUB_EVENT_PATH, GITHUB_REPOSITORY,
GITHUB_API_URL, GITHUB_STEP_SUMMARY, GITHUB_OUTPUT, GITHUB_WORKSPACE), the `pull_request` event payload, and
the issue comments endpoints (list, create, update). httpx (a dependency already) makes the calls.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

COMMENT_LIMIT = 65_536  # GitHub's limit on a comment body, in characters
MARKER = "<!-- mcp-review:{} -->"  # hidden in the comment: the next run finds and updates it
API_VERSION = "2022-11-28"


class GitHubError(Exception):
    """A REST call GitHub refused: said in one line, the review itself stands."""


@dataclass(frozen=True)
class Run:
    """The Actions run: where to write, and the pull request it is for (None: a push or another event)."""

    repository: str
    api: str
    token: str | None
    workspace: Path
    summary: Path | None
    output: Path | None
    pull_request: int | None
    base_sha: str | None
    base_ref: str | None

    @classmethod
    def of(cls, env: Mapping[str, str]) -> Run:
        event: dict[str, Any] = {}
        if env.get("GITHUB_EVENT_PATH") and Path(env["GITHUB_EVENT_PATH"]).is_file():
            event = json.loads(Path(env["GITHUB_EVENT_PATH"]).read_text(encoding="utf-8"))
        pr = event.get("pull_request") if isinstance(event.get("pull_request"), dict) else None
        base = (pr or {}).get("base") or {}
        return cls(
            repository=env.get("GITHUB_REPOSITORY", ""),
            api=env.get("GITHUB_API_URL", "https://api.github.com").rstrip("/"),
            token=env.get("GITHUB_TOKEN") or None,
            workspace=Path(env.get("GITHUB_WORKSPACE") or "."),
            summary=Path(env["GITHUB_STEP_SUMMARY"]) if env.get("GITHUB_STEP_SUMMARY") else None,
            output=Path(env["GITHUB_OUTPUT"]) if env.get("GITHUB_OUTPUT") else None,
            pull_request=pr.get("number") if pr else None,
            base_sha=base.get("sha"),
            base_ref=base.get("ref"),
        )

    def write_summary(self, markdown: str) -> None:
        if self.summary:
            with self.summary.open("a", encoding="utf-8") as f:
                f.write(markdown.rstrip("\n") + "\n")

    def set_outputs(self, outputs: Mapping[str, str]) -> None:
        """Each output as `name<<DELIMITER` lines (GitHub's multiline form): a value cannot end it early."""
        if not self.output:
            return
        with self.output.open("a", encoding="utf-8") as f:
            for name, value in outputs.items():
                delimiter = f"mcp_review_{uuid.uuid4().hex}"
                f.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")


def marker(key: str) -> str:
    """The hidden line that names this server's comment; `key` made safe inside an HTML comment."""
    return MARKER.format(re.sub(r"[^A-Za-z0-9._/-]+", "-", key)[:100])


def comment_body(markdown: str, key: str) -> str:
    """The PR comment: the marker, then the short review, cut to GitHub's limit with a line saying so."""
    body = f"{marker(key)}\n{markdown}"
    if len(body) <= COMMENT_LIMIT:
        return body
    cut = "\n\n… cut to fit a comment: the job summary and the review artifact have it whole.\n"
    return body[: COMMENT_LIMIT - len(cut)] + cut


def upsert_comment(run: Run, body: str, key: str) -> tuple[str, str]:
    """Create the pull request's mcp-review comment, or update the one carrying `key`'s marker; (action, url)."""
    import httpx

    if run.pull_request is None or not run.token or not run.repository:
        raise GitHubError("no pull request, token or repository in this run: nothing to comment on")
    headers = {
        "Authorization": f"Bearer {run.token}",
        "Accept": "application/vnd.github+json",
        "X-GitHub-Api-Version": API_VERSION,
        "User-Agent": "mcp-review",
    }
    issue = f"{run.api}/repos/{run.repository}/issues"
    mark = marker(key)
    with httpx.Client(headers=headers, timeout=30, follow_redirects=False) as client:
        existing = None
        url: str | None = f"{issue}/{run.pull_request}/comments?per_page=100"
        pages = 0
        while url and existing is None and pages < 30:  # 3,000 comments: a PR with more is not worth scanning
            answer = _checked(client.get(url))
            existing = next((c for c in answer.json() if mark in str(c.get("body") or "")), None)
            url = answer.links.get("next", {}).get("url")
            pages += 1
        if existing is not None:
            done = _checked(client.patch(f"{issue}/comments/{existing['id']}", json={"body": body}))
            return "updated", str(done.json().get("html_url", ""))
        done = _checked(client.post(f"{issue}/{run.pull_request}/comments", json={"body": body}))
        return "created", str(done.json().get("html_url", ""))


def _checked(answer: Any) -> Any:
    if answer.status_code >= 400:
        raise GitHubError(f"GitHub answered {answer.status_code} to {answer.request.method} {answer.request.url.path}")
    return answer


def environment() -> Run:
    return Run.of(os.environ)
