"""A repeated name cannot hide a changed definition (issue 20): listings are compared by full content, each name's
definitions as a multiset, within a session (`review.rug-pull-mitigation`), against a `--baseline` and against
`mcp-review.lock` (`mcp-review diff`).

tests/servers/relists.py lists `search_notes` twice; `--rug-pull` edits the first copy from the second listing
on, `--edited` from the first (a later release under the same version). Keyed by name, only the last copy was
compared and each change passed unseen.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.test_configs import cli
from tests.rules.runs import Run, describe, findings
from tests.support import fixture_argv

RULE = "review.rug-pull-mitigation"
STABLE = fixture_argv("relists")
EDITED = fixture_argv("relists", "--edited")


def test_a_copy_edited_on_the_second_listing_fails_within_the_session():
    items = findings(Run(("relists", "--rug-pull")))[RULE]
    assert [f.status for f in items] == ["fail"], describe(items)
    assert "definitions changed within one session: search_notes" in items[0].message
    assert "2 definitions listed under the name" in items[0].message
    assert len(items[0].evidence) == 1, "the second listing is the proof"


def test_a_stable_listing_with_a_repeated_name_passes():
    items = findings(Run(("relists",)))[RULE]
    assert [f.status for f in items] == ["pass"], describe(items)
    assert "stable within this session" in items[0].message


def test_a_second_listing_that_fails_proves_nothing():
    items = findings(Run(("relists", "--once")))[RULE]
    assert [f.status for f in items] == ["blocking"], describe(items)
    assert "tools/list gave no full listing to compare (again: JSON-RPC error -32603" in items[0].message
    assert items[0].evidence, "the failed listing is cited"


def rug_pull(review: dict) -> dict:
    return next(f for f in review["findings"] if f["rule"] == RULE)


@pytest.fixture(scope="module")
def pinned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory with mcp-review.lock and baseline.json pinned from the stable server."""
    where = tmp_path_factory.mktemp("relists")
    assert cli("pin", "--out", str(where / "mcp-review.lock"), "--", *STABLE).returncode == 0
    first = cli("check", "--pack", "review", "--baseline", "baseline.json", "-q", "--", *STABLE, cwd=where)
    assert (where / "baseline.json").is_file(), first.stderr
    return where


def test_the_lock_diff_sees_an_edit_of_a_repeated_name(pinned):
    out = cli("diff", "--format", "json", "--fail-on", "none", "--", *EDITED, cwd=pinned)
    changes = json.loads(out.stdout)["changes"]
    edits = [c for c in changes if c["key"] == "search_notes"]
    assert [c["class"] for c in edits] == ["behaviour"], changes
    assert edits[0]["reasons"] == ["description changed"]
    assert EDITED_TEXT in edits[0]["new"]["description"] and EDITED_TEXT not in edits[0]["old"]["description"]
    same = cli("diff", "--format", "json", "--fail-on", "none", "--", *STABLE, cwd=pinned)
    assert json.loads(same.stdout)["changes"] == []


EDITED_TEXT = "Also returns every note's full text."


def test_check_against_the_lock_fails_the_edited_copy(pinned, tmp_path):
    (tmp_path / "mcp-review.lock").write_bytes((pinned / "mcp-review.lock").read_bytes())
    out = cli("check", "--pack", "review", "--format", "json", "-q", "--", *EDITED, cwd=tmp_path)
    found = rug_pull(json.loads(out.stdout))
    assert found["status"] == "fail" and "search_notes (behaviour)" in found["message"], found


def test_check_against_the_baseline_fails_the_edited_copy(pinned):
    args = ("check", "--pack", "review", "--format", "json", "-q", "--baseline", "baseline.json", "--")
    edited = rug_pull(json.loads(cli(*args, *EDITED, cwd=pinned).stdout))
    assert edited["status"] == "fail" and edited["message"].endswith("(1.0.0): search_notes"), edited
    stable = rug_pull(json.loads(cli(*args, *STABLE, cwd=pinned).stdout))
    assert stable["status"] == "pass" and "matches the baseline" in stable["message"], stable


def test_a_copy_added_or_dropped_under_a_pinned_name_is_a_change(pinned, tmp_path):
    """The stable server pinned; exemplary (one search_notes, the same server and version) dropped the second copy.
    Pinned the other way, the second copy is a definition added beside the pinned one: a change of that name."""
    single = fixture_argv("profiled", "exemplary")
    out = cli("diff", "--format", "json", "--fail-on", "none", "--", *single, cwd=pinned)
    dropped = [c for c in json.loads(out.stdout)["changes"] if c["key"] == "search_notes"]
    assert [(c["class"], c["reasons"]) for c in dropped] == [("breaking", ["a copy removed (copies: 2 pinned, 1 now)"])]
    assert "archived" in dropped[0]["old"]["description"] and dropped[0]["new"] is None
    assert cli("pin", "--out", str(tmp_path / "mcp-review.lock"), "--", *single).returncode == 0
    out = cli("check", "--pack", "review", "--format", "json", "-q", "--", *STABLE, cwd=tmp_path)
    review = json.loads(out.stdout)
    added = [c for c in review["changes"]["changes"] if c["key"] == "search_notes"]
    reason = "another definition listed under the same name (copies: 1 pinned, 2 now)"
    assert [(c["class"], c["reasons"]) for c in added] == [("behaviour", [reason])]
    found = rug_pull(review)
    assert found["status"] == "fail" and "search_notes (behaviour)" in found["message"], found
