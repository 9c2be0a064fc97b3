"""Issue 21, over real HTTP: a repository's `foreign_token_env = "GITHUB_TOKEN"` never puts the reviewer's GitHub
token in a request, while the reviewer's own config, or the repository's once trusted, does. The server is
tests/hostile/http_server.py's record-auth case on 127.0.0.1: it writes down every Authorization header it
receives and lets in only the reviewer's bearer, so review.audience-validated sends it every token it has."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import free_port, running

HERE = Path(__file__).resolve().parent.parent  # tests/
GITHUB = "ghp_" + "R3v13wer5" * 4  # the reviewer's token, in mcp-review's environment
BEARER = "reviewer-bearer-" + "b" * 24
ASKS = '[options]\nforeign_token_env = "GITHUB_TOKEN"\n'


@pytest.fixture
def recorder(tmp_path):
    """The record-auth server: (its URL, the file of the Authorization headers it got)."""
    port, log = free_port(), tmp_path / "authorization.jsonl"
    log.write_text("")
    argv = [sys.executable, str(HERE / "hostile" / "http_server.py"), "record-auth", "--port", str(port)]
    argv += ["--canary", "http://127.0.0.1:9/", "--far", "http://127.0.0.2:9/", "--bearer", BEARER, "--log", str(log)]
    with running(argv, port):
        yield f"http://127.0.0.1:{port}/mcp", log


def mcp_review(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GITHUB_TOKEN": GITHUB, "PYTHONPATH": str(HERE.parent)}
    return subprocess.run(
        [sys.executable, "-m", "mcp_review", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=180
    )


def check(cwd: Path, url: str, log: Path) -> tuple[subprocess.CompletedProcess[str], list[str], dict]:
    """`check` of the review pack against the recorder: what it said, every Authorization the server got, the
    review."""
    log.write_text("")
    out = mcp_review(cwd, "check", "-q", "--pack", "review", "--format", "json", "--out", "review.json",
                     "--timeout", "5", "--url", url, "--bearer", BEARER)  # fmt: skip
    assert out.returncode in (0, 1, 3), out.stderr
    got = [json.loads(line) for line in log.read_text().splitlines()]
    return out, [g for g in got if g], json.loads((cwd / "review.json").read_text())


def audience(review: dict) -> str:
    return " | ".join(f["message"] for f in review["findings"] if f["rule"] == "review.audience-validated")


def test_a_repository_config_gets_no_request_the_reviewers_github_token(tmp_path, recorder):
    url, log = recorder
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "mcp-review.toml").write_text(ASKS)
    out, seen, review = check(checkout, url, log)
    assert f"Bearer {BEARER}" in seen and len(seen) > 3, "the server saw the review's own requests and probes"
    assert not any(GITHUB in value for value in seen), "the repository's config sent the reviewer's token"
    assert "foreign_token_env = 'GITHUB_TOKEN'" in out.stderr and "refused" in out.stderr
    assert "no real token for another resource" in audience(review)
    # the reviewer's yes: trusting the file as it is, the same run sends it (once, as the foreign token)
    assert mcp_review(checkout, "trust", "mcp-review.toml").returncode == 0
    out, seen, review = check(checkout, url, log)
    assert f"Bearer {GITHUB}" in seen and "refused" not in out.stderr
    assert "a real token issued for another resource" in audience(review)


def test_the_reviewers_own_config_names_the_token_without_trust(tmp_path, recorder, monkeypatch):
    url, log = recorder
    own = tmp_path / "own"
    own.mkdir()
    (own / "mcp-review.toml").write_text(ASKS)
    monkeypatch.setenv("MCP_REVIEW_CONFIG_DIR", str(own))
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    out, seen, _ = check(checkout, url, log)
    assert f"Bearer {GITHUB}" in seen and "refused" not in out.stderr
