"""Skills (SEP-2640, issue 24) beside the tools: `mcp-review list` shows each skill's token cost (text and JSON),
`mcp-review pin` keeps them in the lock, and `mcp-review diff` classes a changed skill, against
tests/servers/skills.py over real stdio. A lock written before skills were pinned still loads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcp_review import lock
from mcp_review.catalog import ServerSnapshot
from mcp_review.diff import diff
from tests.integration.test_configs import cli
from tests.support import fixture_argv

NOTES = "skill://release-notes/SKILL.md"
REFUNDS = "skill://acme/billing/refunds/SKILL.md"


@pytest.fixture(scope="module")
def locks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    where = tmp_path_factory.mktemp("skill-locks")
    for mode in ("well-formed", "hidden-instruction", "dynamic"):
        out = cli("pin", "--out", str(where / mode), "--", *fixture_argv("skills", mode))
        assert out.returncode == 0, out.stderr
        assert "skills: 2" in out.stderr
    return {p.name: p for p in where.iterdir()}


def test_list_shows_each_skill_cost_in_text_and_json():
    out = cli("list", "--format", "json", "--", *fixture_argv("skills", "well-formed"))
    assert out.returncode == 0, out.stderr
    skills = json.loads(out.stdout)["skills"]
    assert [s["uri"] for s in skills["skills"]] == [REFUNDS, NOTES]  # the costliest first
    assert all(s["tokens"] > 10 and s["loaded"] > s["tokens"] for s in skills["skills"])
    assert (skills["pages"], skills["error"], skills["stopped"]) == (2, None, None)
    text = cli("list", "--", *fixture_argv("skills", "dynamic"))
    assert "skills by token cost" in text.stdout and "dynamic" in text.stdout, text.stdout


def test_the_lock_pins_each_skill_entry_with_its_cost(locks):
    pinned = json.loads(locks["well-formed"].read_text())
    entries = pinned["items"]["skill"]
    assert [e["key"] for e in entries] == sorted([NOTES, REFUNDS])
    assert all(e["definition"]["resources"][0]["digest"].startswith("sha256:") for e in entries)
    assert pinned["totals"]["skill"]["cl100k_base"] == sum(e["tokens"]["cl100k_base"] for e in entries)
    assert lock.load(locks["well-formed"]).dumps() == locks["well-formed"].read_text()  # reads back byte for byte


def test_a_changed_skill_is_a_change_class(locks):
    old = lock.load(locks["well-formed"])
    edited = {(c.change_class, c.key): c.reasons for c in diff(old, lock.load(locks["hidden-instruction"])).changes}
    assert edited == {("behaviour", NOTES): ["resources changed"]}  # the SKILL.md's digest and size moved
    dynamic = {(c.change_class, c.key): c.reasons for c in diff(old, lock.load(locks["dynamic"])).changes}
    assert dynamic == {("safety", REFUNDS): ['resources now "dynamic": its content can change at run time, unverified']}


def test_an_old_lock_without_skills_loads_and_a_server_without_skills_pins_none(locks):
    data = json.loads(locks["well-formed"].read_text())
    del data["items"]["skill"], data["totals"]["skill"]
    old = lock.parse(data)
    assert "skill" not in old.items and old.kinds == lock.KINDS
    added = diff(old, lock.load(locks["well-formed"])).changes
    assert {(c.change_class, c.key) for c in added} == {("behaviour", NOTES), ("behaviour", REFUNDS)}
    plain = lock.build(ServerSnapshot.unreachable({}, "no server"), ("cl100k_base",))
    assert "skill" not in plain.to_json()["items"] and "skill" not in plain.to_json()["totals"]
