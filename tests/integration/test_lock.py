"""`mcp-review pin` and `mcp-review diff` (issue 13) against real servers: tests/servers/surface.py in its two
versions (one change of every class, read both ways) and server-everything with the capabilities it is
offered growing (13, 17, 19 tools)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import rfc8785

from mcp_review import lock
from mcp_review.diff import TokenBudget, diff
from mcp_review.lock import Approval
from tests.integration.test_configs import cli
from tests.support import fixture_argv

V1 = fixture_argv("surface")
V2 = fixture_argv("surface", "--surface", "v2")


@pytest.fixture(scope="module")
def locks(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    where = tmp_path_factory.mktemp("locks")
    for name, argv in (("v1.lock", V1), ("v2.lock", V2)):
        out = cli("pin", "--out", str(where / name), "--", *argv)
        assert out.returncode == 0, out.stderr
    return where / "v1.lock", where / "v2.lock"


def changes_of(old: Path, new: Path, budget: TokenBudget | None = None) -> dict[tuple[str, str], list[str]]:
    """{(class, item key): reasons} of the diff old -> new."""
    found = diff(lock.load(old), lock.load(new), budget)
    return {(c.change_class, c.key): c.reasons for c in found.changes}


def test_pin_writes_every_definition_with_its_jcs_hash_and_costs(locks, tmp_path):
    data = json.loads(locks[0].read_text())
    assert data["server"] == {"name": "surface-notes", "version": "1.0.0", "revision": "2025-11-25"}
    tools = data["items"]["tool"]
    assert [t["key"] for t in tools] == sorted(t["key"] for t in tools)  # stable order
    search = next(t for t in tools if t["key"] == "notes_search")
    assert search["sha256"] == hashlib.sha256(rfc8785.dumps(search["definition"])).hexdigest()
    assert search["definition"]["annotations"] == {"readOnlyHint": True}  # annotations are pinned (and hashed)
    assert set(search["tokens"]) == set(data["encodings"]) and all(n > 10 for n in search["tokens"].values())
    assert data["totals"]["tool"]["cl100k_base"] > sum(t["tokens"]["cl100k_base"] for t in tools) - len(tools)
    assert data["instructions"]["text"] == "Notes of one user."
    # pinned again, the same bytes: a lock only changes when the server does
    again = tmp_path / "again.lock"
    assert cli("pin", "--out", str(again), "--", *V1).returncode == 0
    assert again.read_bytes() == locks[0].read_bytes()


def test_annotations_and_meta_are_part_of_the_hash():
    tool = {"name": "t", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}}
    flipped = {**tool, "annotations": {"readOnlyHint": False}}
    meta = {**tool, "_meta": {"x": 1}}
    assert len({lock.definition_sha256(t) for t in (tool, flipped, meta)}) == 3
    assert lock.definition_sha256({"a": 1, "b": 2.0}) == lock.definition_sha256({"b": 2, "a": 1})  # JCS numbers


def test_v1_to_v2_names_one_change_of_every_class(locks):
    found = changes_of(*locks)
    assert found[("breaking", "notes_purge")] == ["tool removed"]
    assert found[("breaking", "notes_download")] == ["renamed from 'notes_export'"]
    search = found[("breaking", "notes_search")]
    assert "parameter 'tag' removed" in search
    assert "new required parameter 'workspace'" in search
    assert any(r.startswith("parameter 'limit' narrowed") for r in search)
    assert "parameter 'sort': enum values removed: 'oldest'" in search
    assert "output field 'total' no longer in the output schema" in search
    assert found[("breaking", "summarize")] == ["new required argument 'style'"]
    assert found[("safety", "notes_get")] == ["readOnlyHint true → dropped"]
    assert found[("safety", "notes_archive")] == ["destructiveHint turned on"]
    assert any("hidden-instruction" in r for r in found[("safety", "notes_tag")])
    assert found[("safety", "notes_share")] == ["new tool, not marked read-only"]
    assert found[("behaviour", "notes_list")] == ["description changed"]
    assert found[("behaviour", "notes_count")] == ["tool added"]
    assert found[("behaviour", "instructions")] == ["instructions changed"]
    assert "over max_token_growth_percent 10" in found[("cost", "tools total")][-1]
    # nothing else: an unchanged tool and a safe edit are not reported
    assert not [k for k in found if k[1] in ("notes_export",)]
    assert not [k for k in found if k[0] in ("breaking", "safety") and k[1] in ("notes_list", "notes_count")]


def test_v2_to_v1_reads_the_other_way(locks):
    found = changes_of(locks[1], locks[0])
    assert found[("breaking", "notes_count")] == ["tool removed"]
    assert found[("breaking", "notes_export")] == ["renamed from 'notes_download'"]
    assert found[("breaking", "notes_search")] == ["parameter 'workspace' removed"]  # tag back is no break
    assert found[("breaking", "summarize")] == ["argument 'style' removed"]
    assert found[("safety", "notes_purge")] == ["new tool, not marked read-only"]
    # readOnlyHint coming back, destructiveHint turned off and the injected order removed are not safety changes
    assert [k for k in found if k[0] == "safety"] == [("safety", "notes_purge")]
    assert found[("behaviour", "notes_get")] == ["annotations changed"]
    assert found[("behaviour", "notes_tag")] == ["description changed"]
    shrink = found[("cost", "tools total")]
    assert len(shrink) == 1 and "over" not in shrink[0]  # shrinking is reported, over no budget


def test_budgets_from_the_review_config(locks):
    found = diff(
        lock.load(locks[0]), lock.load(locks[1]), TokenBudget(max_tool_tokens=500, max_token_growth_percent=None)
    )
    cost = {c.key: c for c in found.of_class("cost")}
    assert cost["notes_list"].over_budget and "over max_tool_tokens 500" in cost["notes_list"].reasons[0]
    assert not cost["tools total"].over_budget
    assert [c.key for c in found.fails(["cost"])] == ["notes_list"]


def test_approvals_bind_to_the_approved_definition(locks):
    old, new = lock.load(locks[0]), lock.load(locks[1])
    found = diff(old, new)
    flip = next(c for c in found.changes if c.key == "notes_get")
    ok = Approval("tool", "notes_get", "safety", "alice", "the tool writes an audit log now", flip.sha256)
    stale = Approval("tool", "notes_archive", "safety", "alice", "", "0" * 64)
    approved = diff(old, new, approvals=[ok, stale])
    by_key = {(c.change_class, c.key): c for c in approved.changes}
    assert by_key[("safety", "notes_get")].approval == ok
    assert by_key[("safety", "notes_archive")].approval is None  # approved for another definition
    assert ("safety", "notes_get") not in {(c.change_class, c.key) for c in approved.fails(["safety"])}


@pytest.mark.parametrize(
    ("fail_on", "code"), [("breaking", 1), ("safety", 1), ("cost", 1), ("any", 1), ("none", 0), ("behaviour", 1)]
)
def test_fail_on_exit_codes(locks, fail_on, code):
    out = cli("diff", str(locks[0]), str(locks[1]), "--fail-on", fail_on, "--format", "json")
    assert out.returncode == code, out.stderr
    assert json.loads(out.stdout)["counts"] == {"breaking": 4, "safety": 4, "behaviour": 3, "cost": 1}


def test_live_server_against_its_own_lock_has_no_change(locks, tmp_path):
    (tmp_path / "mcp-review.lock").write_bytes(locks[0].read_bytes())  # found like mcp-review.toml
    out = cli("diff", "--fail-on", "any", "--", *V1, cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "no changes" in out.stdout
    live = cli("diff", "--fail-on", "safety", "--format", "md", "--", *V2, cwd=tmp_path)
    assert live.returncode == 1 and "notes_share" in live.stdout and "readOnlyHint true → dropped" in live.stdout


def test_formats(locks):
    md = cli("diff", str(locks[0]), str(locks[1]), "--format", "md", "--fail-on", "none").stdout
    assert md.startswith("## Changes: ") and "| safety | tool `notes_get` | readOnlyHint true → dropped |" in md
    sarif = json.loads(cli("diff", str(locks[0]), str(locks[1]), "--format", "sarif", "--fail-on", "none").stdout)
    results = sarif["runs"][0]["results"]
    assert sarif["version"] == "2.1.0" and len(results) == 12
    assert {r["ruleId"] for r in results} == {"diff.breaking", "diff.safety", "diff.behaviour", "diff.cost"}
    assert all(r["level"] == "error" for r in results if r["ruleId"] == "diff.safety")


def test_usage_errors(tmp_path):
    none_here = cli("diff", "--", *V1, cwd=tmp_path)
    assert none_here.returncode == 2 and "no mcp-review.lock here" in none_here.stderr
    (tmp_path / "bad.lock").write_text("{}")
    bad = cli("diff", str(tmp_path / "bad.lock"), str(tmp_path / "bad.lock"))
    assert bad.returncode == 2 and "not an mcp-review lock" in bad.stderr
    unknown = cli("diff", "a", "b", "--fail-on", "breaking,oops")
    assert unknown.returncode == 2 and "unknown oops" in unknown.stderr


def rug_pull(review: dict) -> dict:
    return next(f for f in review["findings"] if f["rule"] == "review.rug-pull-mitigation")


@pytest.mark.parametrize(
    ("version", "status", "says"),
    [
        ("1.0.0", "fail", "changed since mcp-review.lock without a version bump (1.0.0): instructions (behaviour), "),
        ("2.0.0", "pass", "version bumped 1.0.0 -> 2.0.0; changed since mcp-review.lock: "),
    ],
)
def test_check_reads_the_lock_for_rug_pulls_and_exports_the_diff(locks, tmp_path, version, status, says):
    (tmp_path / "mcp-review.lock").write_bytes(locks[0].read_bytes())
    out = cli("check", "--pack", "review", "--format", "json", "-q", "--", *V2, "--version", version, cwd=tmp_path)
    review = json.loads(out.stdout)
    assert rug_pull(review)["status"] == status and rug_pull(review)["message"].startswith(says)
    assert "notes_get (safety)" in rug_pull(review)["message"]
    assert review["changes"]["counts"] == {"breaking": 4, "safety": 4, "behaviour": 3, "cost": 1}
    md = cli("check", "--pack", "review", "-q", "--", *V2, "--version", version, cwd=tmp_path).stdout
    assert "## Changes: mcp-review.lock -> surface-notes " in md
    assert "| safety | tool `notes_archive` | destructiveHint turned on |" in md
    sarif = json.loads(cli("check", "--pack", "review", "--format", "sarif", "--", *V2, cwd=tmp_path).stdout)
    assert [len(run["results"]) for run in sarif["runs"]][1] == 12  # the diff: a run of its own


def test_check_with_an_unchanged_lock_passes_and_without_one_has_no_changes_section(locks, tmp_path):
    out = cli("check", "--pack", "review", "--format", "json", "-q", "--", *V1, cwd=tmp_path)
    assert "changes" not in json.loads(out.stdout) and rug_pull(json.loads(out.stdout))["status"] == "blocking"
    (tmp_path / "mcp-review.lock").write_bytes(locks[0].read_bytes())
    out = cli("check", "--pack", "review", "--format", "json", "-q", "--", *V1, cwd=tmp_path)
    review = json.loads(out.stdout)
    assert rug_pull(review)["status"] == "pass" and "every pinned definition matches" in rug_pull(review)["message"]
    assert review["changes"]["changes"] == []


def test_the_lock_and_list_carry_the_claude_estimate(locks):
    data = json.loads(locks[0].read_text())
    assert data["encodings"] == ["cl100k_base", "o200k_base", "claude"]
    tools = data["items"]["tool"]
    # the estimate wraps the list: 549 once any tool exists (claude-sonnet-4.5), each tool's cost counts 53 per
    # tool after the first
    assert data["totals"]["tool"]["claude"] == 549 + sum(t["tokens"]["claude"] for t in tools) - 53
    listed = json.loads(cli("list", "--format", "json", "--encoding", "claude", "--", *V1).stdout)
    assert listed["total"] == data["totals"]["tool"]["claude"]
    assert listed["counted"].startswith("estimate for anthropic/claude-sonnet-4.5 (coder/ai-tokenizer")


@pytest.mark.quick
def test_values_jcs_cannot_express_still_hash():
    """A hostile server's integer beyond 2**53, NaN or lone surrogate: hashed from sorted compact JSON instead."""
    odd = [{"a": 2**60}, {"a": 2**60 + 1}, {"a": float("nan")}, {"a": "\udc80"}]
    assert len({lock.definition_sha256(v) for v in odd}) == 4


def test_a_dropped_false_hint_turns_it_on_by_the_spec_defaults():
    """destructiveHint and openWorldHint default to true: dropping `false` turns them on (issue 20)."""
    from mcp_review.diff import _annotation_flips

    closed = {"annotations": {"readOnlyHint": False, "destructiveHint": False, "openWorldHint": False}}
    assert list(_annotation_flips(closed, {"annotations": {"readOnlyHint": False}})) == [
        "destructiveHint turned on (dropped: true by MCP's default)",
        "openWorldHint turned on (dropped: true by MCP's default)",
    ]
    assert list(_annotation_flips({}, {"annotations": {"destructiveHint": True}})) == [], "true by default already"


def test_a_change_cannot_approve_itself_only_the_bases_approvals_count(locks, tmp_path):
    """Issue 21: the PR's own lock approving its safety changes "by maintainer" leaves `diff base pr` failing; the
    approvals it adds are listed with their file, not applied. The same approvals already on the base count."""
    old, new = lock.load(locks[0]), lock.load(locks[1])
    safety = [c for c in diff(old, new).changes if c.change_class in ("safety", "breaking")]
    approvals = [Approval(c.kind, c.key, c.change_class, "maintainer", "fine", c.sha256) for c in safety]
    pr, base = tmp_path / "pr.lock", tmp_path / "base.lock"
    new.approvals, old.approvals = approvals, []
    lock.save(pr, new)
    lock.save(base, old)
    out = cli("diff", str(base), str(pr), "--fail-on", "breaking,safety", "--format", "json")
    assert out.returncode == 1, out.stderr
    added = json.loads(out.stdout)["decisionsThisChangeAdds"]
    assert len(added) == len(approvals) and {a["file"] for a in added} == {str(pr)}
    assert f"decisions this change adds: {pr} approves" in out.stderr and "not applied" in out.stderr
    old.approvals = approvals  # the base approved them already (pinned on the base branch): they count
    lock.save(base, old)
    out = cli("diff", str(base), str(pr), "--fail-on", "breaking,safety", "--format", "json")
    assert out.returncode == 0, out.stderr
    document = json.loads(out.stdout)
    assert "decisionsThisChangeAdds" not in document and "decisions this change adds" not in out.stderr
    assert {c["approval"]["file"] for c in document["changes"] if c["approval"]} == {str(base)}


def test_a_lock_of_another_server_is_said_and_never_compared_silently(locks, tmp_path):
    """Issue 40: a folder holding one server's lock, another server reviewed beside it: `diff` refuses (exit 2) unless
    told `--other-server`; `check` says so on stderr and in the review's notes, and exports no diff."""
    data = json.loads(locks[0].read_text())
    data["server"]["name"] = "another-server"
    (tmp_path / "mcp-review.lock").write_text(json.dumps(data))
    refused = cli("diff", "--", *V1, cwd=tmp_path)
    said = "mcp-review.lock pins another-server 1.0.0, not surface-notes: not compared"
    assert refused.returncode == 2 and said in refused.stderr and "--other-server" in refused.stderr
    anyway = cli("diff", "--other-server", "--fail-on", "any", "--", *V1, cwd=tmp_path)
    assert anyway.returncode == 0 and "no changes" in anyway.stdout, anyway.stderr
    two = cli("diff", str(tmp_path / "mcp-review.lock"), str(locks[1]))
    assert two.returncode == 2 and "pins another-server 1.0.0, not surface-notes" in two.stderr

    out = cli("check", "--pack", "review", "--format", "json", "-q", "--", *V1, cwd=tmp_path)
    review = json.loads(out.stdout)
    assert "changes" not in review and said in out.stderr
    assert any(said in note for note in review["notes"]) and rug_pull(review)["status"] == "blocking"
