"""Only the reviewer decides (issue 21): a review config in the checkout under review asks, and is refused with
one line, unless the reviewer trusted it as it is; its decisions carry their file and commit, and with a base
only those the base already had count. Against a real fixture server over stdio, in a real git checkout."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from mcp_review import trust
from mcp_review.config import ConfigFileError
from mcp_review.decisions import resolve
from tests.integration.test_check_cli import cli
from tests.support import fixture_argv

EXEMPLARY = fixture_argv("profiled", "exemplary")  # search_notes (read-only) and delete_note (destructive)
GRANTS = """
[options]
probe = ["security-all"]
foreign_token_env = "GITHUB_TOKEN"

[calls]
policy = "all"
"""
WAIVER = """
[[waive]]
rule = "{rule}"
reason = "fine"
by = "security-team"
"""


def review_of(tmp_path: Path, *flags: str) -> tuple[subprocess.CompletedProcess[str], dict]:
    out = cli("check", "-q", "--format", "json", "--out", "review.json", *flags, "--", *EXEMPLARY, cwd=tmp_path)
    assert out.returncode in (0, 1, 3), out.stderr
    return out, json.loads((tmp_path / "review.json").read_text())


def called(review: dict) -> set[str]:
    return {c["tool"] for c in review["coverage"] if c["consent"] != "refused"}


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def test_a_repository_config_that_grants_itself_calls_and_probes_is_refused_with_one_line(tmp_path):
    (tmp_path / "mcp-review.toml").write_text(GRANTS)
    out, review = review_of(tmp_path)
    refused = [line for line in out.stderr.splitlines() if "refused" in line]
    assert len(refused) == 1, out.stderr
    assert 'mcp-review.toml asks for calls.policy = "all"' in refused[0] and "probe = ['security-all']" in refused[0]
    assert "foreign_token_env = 'GITHUB_TOKEN'" in refused[0] and "mcp-review trust" in refused[0]
    assert "delete_note" not in called(review) and "search_notes" not in called(review)
    assert review["decisions"]["refused"] == refused[0].removeprefix("mcp-review: ").split("\n")
    assert review["decisions"]["configs"][0]["who"] == "repository"


def test_trusted_as_it_is_the_grants_apply_and_a_change_needs_trust_again(tmp_path):
    config = tmp_path / "mcp-review.toml"
    config.write_text(GRANTS)
    trusted = cli("trust", cwd=tmp_path)
    assert trusted.returncode == 0 and "it grants" in trusted.stdout
    out, review = review_of(tmp_path)
    assert "refused" not in out.stderr and "delete_note" in called(review)
    assert review["decisions"]["configs"][0]["who"] == "reviewer"
    config.write_text(GRANTS + "\n# one more line\n")  # a changed file is no longer the one the reviewer read
    out, review = review_of(tmp_path)
    assert "mcp-review.toml asks for" in out.stderr and "delete_note" not in called(review)


def test_the_reviewers_flags_and_own_config_grant_without_trust(tmp_path, monkeypatch):
    (tmp_path / "mcp-review.toml").write_text(GRANTS)
    out, review = review_of(tmp_path, "--calls", "all")
    assert "delete_note" in called(review)
    own = tmp_path / "own"
    own.mkdir()
    (own / "mcp-review.toml").write_text('[calls]\npolicy = "all"\n')
    monkeypatch.setenv("MCP_REVIEW_CONFIG_DIR", str(own))
    (tmp_path / "mcp-review.toml").unlink()
    out, review = review_of(tmp_path)
    assert "refused" not in out.stderr and "delete_note" in called(review)


def test_a_token_env_and_an_outside_baseline_are_not_taken_from_the_repository(tmp_path, monkeypatch):
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "mcp-review.toml").write_text('baseline = "../outside.json"\n' + GRANTS)
    monkeypatch.chdir(tmp_path / "work")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_" + "a" * 36)
    known = ({"review.rug-pull-mitigation"}, {"review"})
    resolved = resolve(None, None, known)
    options = resolved.config.build_options(None)
    assert options.foreign_token is None and options.calls == "none" and not options.probe
    assert resolved.config.baseline is None and "outside the working directory" in resolved.refused[0]
    review_of(tmp_path / "work", "--pack", "review")
    assert not (tmp_path / "outside.json").exists(), "check wrote outside the working directory"
    trust.trust(tmp_path / "work" / "mcp-review.toml")
    assert resolve(None, None, known).config.build_options(None).foreign_token == "ghp_" + "a" * 36


def failing(plain: dict) -> str:
    """A rule the plain review does not pass (for a waiver to waive)."""
    return next(f["rule"] for f in plain["findings"] if f["status"] in ("fail", "blocking"))


def empty_base(tmp_path: Path) -> None:
    """A git checkout whose base commit has an empty mcp-review.toml."""
    git(tmp_path, "init", "-q")
    (tmp_path / "mcp-review.toml").write_text("")
    git(tmp_path, "add", "mcp-review.toml")
    git(tmp_path, "commit", "-qm", "base")


def test_with_a_base_only_the_bases_decisions_count_and_the_added_ones_are_listed(tmp_path, plain):
    empty_base(tmp_path)
    rule = failing(plain)
    (tmp_path / "mcp-review.toml").write_text(WAIVER.format(rule=rule))
    git(tmp_path, "commit", "-qam", "the change waives its own finding")
    _, review = review_of(tmp_path, "--base", "HEAD~1")
    assert not [f for f in review["findings"] if f["status"] == "waived"]
    assert review["verdict"] == plain["verdict"]
    assert [(d["kind"], d["rule"], d["by"]) for d in review["decisions"]["added"]] == [("waive", rule, "security-team")]
    md = cli("check", "-q", "--format", "md-full", "--base", "HEAD~1", "--", *EXEMPLARY, cwd=tmp_path).stdout
    title = "### Decisions this change adds (not on the base, --base HEAD~1: not applied)"
    assert title in md and rule in md.split(title)[1]
    git(tmp_path, "commit", "-q", "--allow-empty", "-m", "later")  # on the base now: it counts
    _, review = review_of(tmp_path, "--base", "HEAD~1")
    assert [f for f in review["findings"] if f["status"] == "waived"] and not review["decisions"]["added"]


def test_an_unknown_base_is_a_usage_error(tmp_path):
    git(tmp_path, "init", "-q")
    out = cli("check", "--base", "no-such-ref", "--", *EXEMPLARY, cwd=tmp_path)
    assert out.returncode == 2 and "--base: no revision 'no-such-ref'" in out.stderr
    try:
        resolve(None, "--upload-pack=x", (set(), set()))
    except ConfigFileError as e:
        assert "no revision" in str(e)
    else:
        raise AssertionError("an option given as a revision was taken")


def test_the_apps_verdict_line_names_the_repositorys_waivers():
    from mcp_review.review import Finding, Review, Waiver
    from mcp_review.workspace import summary

    waiver = Waiver("review.injection-safe", "fine", "security-team", source="mcp-review.toml", origin="repository")
    review = Review({}, {}, None, None, "stdio", [Finding("review.injection-safe", "review", "fail", "x")], [waiver])
    review.apply_waivers()
    assert summary(review).endswith("· with 1 finding waived and 0 attestations by mcp-review.toml")
    review.waivers = [Waiver("review.injection-safe", "fine", "me", origin="reviewer")]
    review.apply_waivers()
    assert "with" not in summary(review), "the reviewer's own waivers are the reviewer's"


def test_the_app_takes_the_repositorys_decisions_fresh_and_keeps_the_reviewers():
    from mcp_review.review import Waiver
    from mcp_review.workspace import current

    mine = Waiver("review.injection-safe", "checked by hand", "me")
    once = Waiver("review.precise-names", "fine", "author", origin="repository")  # saved from a run without --base
    now = Waiver("review.annotations-set", "fine", "author", origin="repository")
    assert current([mine, once], [now]) == [mine, now]
    assert current(None, [now]) == [now]


def test_ignore_and_fewer_packs_are_decisions_too(tmp_path, plain):
    empty_base(tmp_path)
    rule = failing(plain)
    (tmp_path / "mcp-review.toml").write_text(f"packs = ['spec']\nignore = [{rule!r}]\n")
    git(tmp_path, "commit", "-qam", "the change skips what it fails")
    out, review = review_of(tmp_path)  # the only branch: no base, so nothing it skips is skipped
    assert review["verdict"] == plain["verdict"] and rule in {f["rule"] for f in review["findings"]}
    assert "not applied: 1 rule or pack skipped and 1 pack narrowing of the repository's mcp-review.toml" in out.stderr
    _, review = review_of(tmp_path, "--base", "HEAD~1")
    assert review["verdict"] == plain["verdict"] and rule in {f["rule"] for f in review["findings"]}
    assert [(d["kind"], d["rule"]) for d in review["decisions"]["added"]] == [("ignore", rule), ("packs", "spec")]
