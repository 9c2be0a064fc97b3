"""One step decides what a run uses and knows where each piece came from (issue 21, `mcp_review.plan`): the target,
its secrets, consent, the review config and the lock, each said as the reviewer's, the repository's (file and
commit), the server's or the default; and the review carries that record into every export. In real git
checkouts, against a real fixture server over stdio."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

from mcp_review.plan import Asked, PlanError, decide
from mcp_review.report import render
from mcp_review.review import load_review
from tests.integration.test_check_cli import cli
from tests.integration.test_trust import git
from tests.support import fixture_argv

EXEMPLARY = fixture_argv("profiled", "exemplary")


def committed(tmp_path: Path, files: dict[str, str]) -> str:
    git(tmp_path, "init", "-q")
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    git(tmp_path, "add", *files)
    git(tmp_path, "commit", "-q", "-m", "the change")
    return git(tmp_path, "rev-parse", "HEAD")


def test_the_record_says_who_decided_the_target_its_secrets_and_consent(tmp_path, monkeypatch):
    entry = {"command": sys.executable, "args": ["-V"], "env": {"TOKEN": "${GITHUB_TOKEN}", "KEY": "${OPENAI_KEY}"}}
    commit = committed(
        tmp_path,
        {
            ".mcp.json": json.dumps({"mcpServers": {"notes-dev": entry}}),
            "mcp-review.toml": '[calls]\npolicy = "read-only"\nallow = ["search_notes"]\n',
        },
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_" + "p" * 36)
    monkeypatch.setenv("OPENAI_KEY", "sk-" + "k" * 30)
    asked = Asked(config=".mcp.json", server="notes-dev", allow_env=("OPENAI_KEY",))
    plan = decide(asked, os.environ, review=True)
    said = plan.provenance()
    assert said["target"] == {"who": "repository", "how": str((tmp_path / ".mcp.json").resolve()), "commit": commit}
    assert said["secrets"]["withheld"] == ["${GITHUB_TOKEN}"] and said["secrets"]["allowedByReviewer"] == ["OPENAI_KEY"]
    assert plan.target is not None and plan.target.env == {"TOKEN": "", "KEY": "sk-" + "k" * 30}, "as the record says"
    assert said["calls"]["policy"] == "read-only" and said["calls"]["how"] == "mcp-review.toml"
    assert said["calls"]["who"] == "repository" and said["calls"]["commit"] == commit
    assert said["calls"]["perTool"]["who"] == "server", "which tools a read-only policy calls: their annotations"
    assert said["calls"]["allowList"]["who"] == "repository"
    assert any("${GITHUB_TOKEN}" in line for line in plan.notices), "said before anything runs"
    flagged = decide(Asked(calls="none", probe=("security",), bearer="b", url="http://127.0.0.1:9/mcp"), {})
    assert flagged.provenance()["secrets"]["bearer"] == {"who": "reviewer", "how": "--bearer"}
    assert flagged.check is None and flagged.review is None, "list, call and pin resolve no review config"


def test_the_reviewers_own_config_names_a_token_env_and_the_record_says_whose(tmp_path, monkeypatch):
    own = tmp_path / "own"
    own.mkdir()
    (own / "mcp-review.toml").write_text('[options]\nforeign_token_env = "OTHER"\n')
    monkeypatch.setenv("MCP_REVIEW_CONFIG_DIR", str(own))
    monkeypatch.chdir(tmp_path)
    plan = decide(Asked(), {"OTHER": "tok-" + "o" * 20}, review=True)
    assert plan.check is not None and plan.check.options is not None
    assert plan.check.options.foreign_token == "tok-" + "o" * 20, "read from the env the step was given"
    (token,) = plan.provenance()["secrets"]["tokenEnv"]
    assert token["env"] == "OTHER" and token["who"] == "reviewer" and token["how"] == str(own / "mcp-review.toml")
    assert plan.provenance()["target"]["who"] == "default"


def test_every_export_carries_who_decided(tmp_path):
    commit = committed(tmp_path, {"mcp-review.toml": '[calls]\npolicy = "read-only"\n'})
    out = cli("check", "-q", "--format", "json", "--out", "review.json", "--", *EXEMPLARY, cwd=tmp_path)
    assert out.returncode in (0, 1, 3), out.stderr
    data = json.loads((tmp_path / "review.json").read_text())
    said = data["decisions"]["provenance"]
    assert said["calls"] == {
        "policy": "read-only",
        "who": "repository",
        "how": "mcp-review.toml",
        "commit": commit,
        "perTool": {"who": "server", "how": "annotations of each tool, its most dangerous definition"},
    }
    assert said["target"] == {"who": "reviewer", "how": "command after --"}
    review = load_review(tmp_path / "review.json")
    assert review is not None
    sarif = json.loads(render(review, "sarif"))
    assert sarif["runs"][0]["properties"]["decisions"]["provenance"] == said
    suite = ET.fromstring(render(review, "junit")).find("testsuite")
    assert suite is not None and suite[0].tag == "properties", "JUnit: properties before the test cases"
    props = {p.get("name"): p.get("value") for p in suite[0]}
    assert props["mcp-review.decided.calls"] == (
        f"read-only: the repository's mcp-review.toml at {commit[:12]}; which tools: the server's annotations of "
        "each tool, its most dangerous definition"
    )
    assert props["mcp-review.decided.target"] == "the reviewer's command after --"
    for fmt in ("md", "md-full"):
        text = render(review, fmt)
        assert (
            "## Who decided" in text
            and f"- calls: read-only: the repository's mcp-review.toml at {commit[:12]}" in text
        )
    flagged = cli(
        "check", "--calls", "read-only", "--format", "json", "--out", "r.json", "--", *EXEMPLARY, cwd=tmp_path
    )
    assert "checks may call tools annotated read-only and closed-world (reviewer: --calls)" in flagged.stderr


def test_what_the_reviewer_chooses_in_the_app_becomes_the_reviewers(tmp_path, monkeypatch):
    """The app's workspace re-decides two pieces (the server, ctrl+o; what checks may call, the run dialog): the
    record it carries into the review then says the reviewer chose them there, not the file that did before."""
    from mcp_review.checking import CheckPlan
    from mcp_review.plan import chosen_in_app

    commit = committed(tmp_path, {"mcp-review.toml": '[calls]\npolicy = "read-only"\n'})
    monkeypatch.chdir(tmp_path)
    check = decide(Asked(), os.environ, review=True).check
    assert check is not None and check.decisions["provenance"]["calls"]["commit"] == commit
    chosen = chosen_in_app(check, "calls", "chosen in the app's run dialog", policy="none")
    assert chosen.decisions["provenance"]["calls"] == {
        "policy": "none",
        "who": "reviewer",
        "how": "chosen in the app's run dialog",
    }
    assert check.decisions["provenance"]["calls"]["who"] == "repository", "the record it came from is left as it was"
    assert chosen_in_app(CheckPlan(packs=["review"]), "target", "x").decisions is None, "no record: nothing to say"


def test_the_server_json_is_the_reviewers_flag_or_the_checkouts_file(tmp_path, monkeypatch):
    """`--server-json FILE` (the reviewer's), else `server.json` in the working directory (the repository's, with
    its commit); the review's options carry it to `review.server-json`."""
    commit = committed(tmp_path, {"server.json": json.dumps({"name": "io.github.x/y"})})
    monkeypatch.chdir(tmp_path)
    found = decide(Asked(server_command=tuple(EXEMPLARY)), {}, review=True)
    assert found.provenance()["serverJson"] == {"who": "repository", "how": "server.json", "commit": commit}
    assert found.check is not None and found.check.options is not None
    assert found.check.options.server_json == "server.json"
    (tmp_path / "mine.json").write_text("{}")
    flagged = decide(Asked(server_command=tuple(EXEMPLARY), server_json="mine.json"), {}, review=True)
    assert flagged.provenance()["serverJson"] == {"who": "reviewer", "how": "--server-json"}
    try:
        decide(Asked(server_command=tuple(EXEMPLARY), server_json="missing.json"), {}, review=True)
        raise AssertionError("a missing --server-json file must be refused")
    except PlanError as e:
        assert "missing.json" in str(e)
    try:
        decide(Asked(server_command=tuple(EXEMPLARY), era="both"), {})
        raise AssertionError("--era both is a review's: list, call and pin speak one era")
    except PlanError as e:
        assert "only check and the app" in str(e)
    (tmp_path / "server.json").unlink()
    assert "serverJson" not in decide(Asked(server_command=tuple(EXEMPLARY)), {}, review=True).provenance()
