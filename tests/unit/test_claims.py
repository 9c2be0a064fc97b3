"""`mcp_review.claims`: what the repository's decisions that were not applied would make the verdict, and the words
that say it beside the reviewer's verdict (issue 35)."""

from __future__ import annotations

from typing import Any

from mcp_review import claims
from mcp_review.review import NEEDS_REVIEWER, Finding, Review
from mcp_review.workspace import summary

FILE = {"file": "pyproject.toml", "commit": "0123456789abcdef0123"}


def claim(kind: str, rule: str, **more: Any) -> dict[str, Any]:
    return {"kind": kind, "rule": rule, "subject": None, "by": "author", "why": "fine", **FILE, **more}


def review(added: list[dict[str, Any]], base: str | None = None, how: str = "not a git checkout") -> Review:
    findings = [
        Finding("review.injection-safe", "review", "blocking", f"{NEEDS_REVIEWER}no shell."),
        Finding("review.annotations-set", "review", "fail", "delete_note has no destructiveHint", "delete_note"),
        Finding("spec.ping", "spec", "warn", "slow"),
        Finding("spec.tools-list", "spec", "pass", "ok"),
    ]
    decisions = {"base": base, "baseHow": how, "added": added}
    return Review({}, {}, None, None, "stdio", findings, packs=["review", "spec"], decisions=decisions)


def test_the_verdict_with_the_claims_follows_each_kind():
    attest = claim("attest", "review.injection-safe", status="pass")
    waive = claim("waive", "review.annotations-set")
    assert review([]).verdict == "FAIL" and claims.said(review([])) is None
    assert claims.verdict_with(review([waive])) == "BLOCKED", "the manual rule still needs a reviewer"
    assert claims.verdict_with(review([waive, attest])) == "PASS_WITH_WARNINGS"
    assert claims.verdict_with(review([waive, {**attest, "status": "fail"}])) == "FAIL", "an attested fail fails"
    assert claims.verdict_with(review([waive, attest, claim("waive", "spec.ping")])) == "PASS"
    assert claims.verdict_with(review([{**waive, "expires": "2000-01-01"}, attest])) == "FAIL", "expired: not applied"
    assert claims.verdict_with(review([{**waive, "subject": "other_tool"}, attest])) == "FAIL"
    skip = {"kind": "ignore", "subject": None, "by": None, "why": "not run", **FILE}
    assert claims.verdict_with(review([{**skip, "rule": "review"}])) == "PASS_WITH_WARNINGS", "a pack skipped"
    packs = {**skip, "kind": "packs", "rule": "spec", "packs": ["spec"]}
    assert claims.verdict_with(review([packs])) == "PASS_WITH_WARNINGS", "fewer packs than the base"
    made = review([waive])
    assert [f.effective for f in made.findings] == ["blocking", "fail", "warn", "pass"], "the review is not changed"


def test_the_sentence_names_the_file_why_and_the_verdict_with_them():
    added = [claim("waive", "review.annotations-set"), claim("attest", "review.injection-safe", status="pass")]
    said = claims.said(review(added))
    assert said == (
        "not applied: 1 waiver and 1 attestation of the repository's pyproject.toml at 0123456789ab (no base tells "
        "the project's decisions from the change's: not a git checkout); with them the verdict would be "
        "PASS_WITH_WARNINGS; `mcp-review trust pyproject.toml` applies the file as it is"
    )
    found = review(added, base="fedcba9876543210", how="the merge base with main (the default branch)")
    assert "(not on the base: the merge base with main (the default branch) at fedcba987654)" in str(claims.said(found))
    assert "(not on the base: --base HEAD~1)" in str(claims.said(review(added, base="HEAD~1", how="--base HEAD~1")))
    assert claims.verdict_line(found) == f"FAIL · {claims.said(found)}"
    assert summary(found).startswith("security ")  # the status line leads with the security verdict (issue 39)
    assert (
        " · verdict FAIL · would be PASS_WITH_WARNINGS with 2 decisions of the repository's pyproject.toml, not applied"
        in summary(found)
    )
    assert claims.line(added[1]) == "attest pass review.injection-safe (every subject) by author: fine"
