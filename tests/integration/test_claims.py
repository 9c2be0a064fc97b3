"""The reviewer's verdict by default (issue 35): the decisions a repository's review config adds relative to the base
the change will merge into are claims, listed and not applied, unless the reviewer trusted the file as it is or
named the base (`--base`); where there is no base (not git, no branch to merge into) every one of them is a claim.
Each case is a plain `check` against a real fixture server over stdio, in a real directory or git checkout; the
exports are rendered from the review it wrote."""

from __future__ import annotations

import json
from pathlib import Path

from mcp_review.report import render
from mcp_review.review import NEEDS_REVIEWER, Review
from tests.integration.test_check_cli import cli
from tests.integration.test_trust import EXEMPLARY, git, review_of
from tests.support import verdict_line

WAIVE = '[[waive]]\nrule = "{rule}"\nreason = "reviewed"\nby = "security-team"\n'
ATTEST = '[[attest]]\nrule = "{rule}"\nnote = "read it"\nby = "security-team"\n'


def unpassed(review: dict) -> list[str]:
    return sorted({f["rule"] for f in review["findings"] if f["status"] in ("fail", "blocking")})


def everything(review: dict) -> str:
    """A config that waives every rule the plain review did not pass and attests its manual rules."""
    manual = {f["rule"] for f in review["findings"] if f["message"].startswith(NEEDS_REVIEWER)}
    return "\n".join(
        [*(ATTEST.format(rule=r) for r in sorted(manual)), *(WAIVE.format(rule=r) for r in unpassed(review))]
    )


def pull_request(tmp_path: Path, base: str, change: str) -> None:
    """A checkout: mcp-review.toml as `base` on main, then as `change` on a branch of its own."""
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "mcp-review.toml").write_text(base)
    git(tmp_path, "add", "mcp-review.toml")
    git(tmp_path, "commit", "-qm", "base")
    git(tmp_path, "checkout", "-qb", "the-change")
    (tmp_path / "mcp-review.toml").write_text(change)
    git(tmp_path, "commit", "-qam", "the change")


def waived(review: dict) -> set[str]:
    return {f["rule"] for f in review["findings"] if f["status"] == "waived"}


def test_outside_git_the_repositorys_decisions_are_claims_in_every_export(tmp_path, plain):
    (tmp_path / "mcp-review.toml").write_text(everything(plain))
    out, review = review_of(tmp_path)
    assert (out.returncode, review["verdict"]) == ({"FAIL": 1, "BLOCKED": 3}[plain["verdict"]], plain["verdict"])
    assert not waived(review) and not [a for a in review["attestations"] if a["origin"] == "repository"]
    decisions = review["decisions"]
    assert decisions["base"] is None and decisions["baseHow"] == "not a git checkout"
    assert len(decisions["added"]) == len(everything(plain).split("[[")) - 1, "every decision is listed"
    assert review["verdictWithClaims"] in ("PASS", "PASS_WITH_WARNINGS")
    line = next(line for line in out.stderr.splitlines() if "not applied" in line)
    assert (
        line.startswith(f"mcp-review: {plain['verdict']} · not applied: ")
        and "of the repository's mcp-review.toml" in line
    )
    assert "(no base tells the project's decisions from the change's: not a git checkout)" in line
    assert f"with them the verdict would be {review['verdictWithClaims']}; `mcp-review trust mcp-review.toml`" in line
    loaded = Review.from_json(review)
    for fmt in ("md", "md-full"):
        md = render(loaded, fmt)
        said = verdict_line(md)
        assert said.startswith("**Verdict: ") and f"{plain['verdict']}**" in said
        assert f"with them the verdict would be {review['verdictWithClaims']}" in said
        assert "### The repository's decisions (no base: not a git checkout; none applied)" in md
    junit = render(loaded, "junit")
    assert 'name="mcp-review.claims" value="not applied: ' in junit and junit.count('name="mcp-review.claim"') > 1
    sarif = json.loads(render(loaded, "sarif"))["runs"][0]["properties"]
    assert sarif["verdictWithClaims"] == review["verdictWithClaims"] and sarif["decisions"]["added"]


def test_in_git_without_a_base_none_applies(tmp_path, plain):
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "mcp-review.toml").write_text(WAIVE.format(rule=unpassed(plain)[0]))
    git(tmp_path, "add", "mcp-review.toml")
    git(tmp_path, "commit", "-qm", "the only branch: nothing tells the project's decisions from the change's")
    out, review = review_of(tmp_path)
    assert not waived(review) and review["decisions"]["base"] is None
    assert review["decisions"]["baseHow"].startswith("no branch to merge into")
    assert "1 waiver of the repository's mcp-review.toml at " in out.stderr


def test_the_bases_decisions_apply_and_the_change_adds_claims(tmp_path, plain):
    kept, added = unpassed(plain)[:2]
    pull_request(tmp_path, WAIVE.format(rule=kept), WAIVE.format(rule=kept) + WAIVE.format(rule=added))
    base = git(tmp_path, "rev-parse", "main")
    out, review = review_of(tmp_path)
    assert waived(review) == {kept}, "the base had it: it applies"
    assert [(d["kind"], d["rule"]) for d in review["decisions"]["added"]] == [("waive", added)]
    assert review["decisions"]["base"] == base
    said = f"(not on the base: the merge base with main (the default branch) at {base[:12]})"
    assert said in out.stderr and " findings waived and 0 attestations by mcp-review.toml at " in out.stderr
    md = cli("check", "-q", "--format", "md-full", "--", *EXEMPLARY, cwd=tmp_path).stdout
    assert "### Decisions this change adds (not on the base, the merge base with main (the default branch)" in md


def test_a_trusted_file_and_an_explicit_base_apply_what_they_say(tmp_path, plain):
    pull_request(tmp_path, "", everything(plain))
    _, named = review_of(tmp_path, "--base", "HEAD")  # the reviewer names the base: the change's own commit
    assert named["verdict"] in ("PASS", "PASS_WITH_WARNINGS") and waived(named)
    assert not named["decisions"]["added"] and named["decisions"]["baseHow"] == "--base HEAD"
    _, main = review_of(tmp_path, "--base", "main")
    assert not waived(main) and main["verdict"] == plain["verdict"]
    trusted = cli("trust", cwd=tmp_path)
    assert trusted.returncode == 0 and "its decisions now count as yours: " in trusted.stdout
    out, applied = review_of(tmp_path)
    assert applied["verdict"] == named["verdict"] and waived(applied) == waived(named)
    assert not applied["decisions"]["added"] and applied["decisions"]["configs"][0]["who"] == "reviewer"
    assert "not applied" not in out.stderr
