"""The skills extension (SEP-2640, issue 24) beyond one fixture per rule: each mode of tests/servers/skills.py is
reviewed once over real stdio (the runs are shared with tests/rules/test_rules.py through its cache), and each
planted defect trips its own rule and nothing else on the well-formed server."""

from __future__ import annotations

import pytest

from tests.rules.cases import SKILLS_GOOD
from tests.rules.runs import Run, describe, findings, flagged
from tests.support import SERVERS

# mode -> the rules it may turn fail, warn or blocking on the well-formed server (and no other)
TRIPS = {
    "digest-mismatch": {"spec.skills-digest"},
    "hidden-instruction": {"review.skills-safe"},
    "no-frontmatter": {"spec.skills-frontmatter"},
    "undeclared-directory": {"spec.skills-directory-read"},
    "dynamic": {"spec.skills-static"},
    "no-caching": {"spec.skills-caching"},
    # a pagination loop stops the listing: every rule that judges the listed skills says so (blocking)
    "loop": {"spec.skills-methods", "spec.skills-frontmatter", "spec.skills-digest", "review.skills-safe"},
}
HANGS = Run(("skills", "hangs"), timeout=2.0)  # skills/get never answers: the run waits one timeout for it


def test_every_mode_is_tested():  # "hangs" is tested on its own below
    """Every key of the fixture's DEFECTS (read from its source: it imports the fixtures' own `serve`)."""
    import ast

    tree = ast.parse((SERVERS / "skills.py").read_text(encoding="utf-8"))
    found = next(
        n.value for n in tree.body if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "DEFECTS"
    )
    assert isinstance(found, ast.Dict)
    assert {k.value for k in found.keys if isinstance(k, ast.Constant)} == {*TRIPS, "hangs"}


@pytest.mark.parametrize("mode", sorted(TRIPS))
def test_a_planted_skill_defect_trips_only_its_rules(mode: str):
    assert flagged(Run(("skills", mode))) - flagged(SKILLS_GOOD) == TRIPS[mode]


def test_the_well_formed_server_passes_every_skills_rule_and_reads_each_file():
    items = findings(SKILLS_GOOD)
    rules = {r for r in items if "skills" in r}
    assert len(rules) == 7, sorted(rules)
    assert all(f.status == "pass" for r in rules for f in items[r]), describe([f for r in rules for f in items[r]])
    digests = [f.message for f in items["spec.skills-digest"]]
    assert digests == [f"{n} file(s) read, each matching its digest and size" for n in (2, 1)]


def test_a_legacy_session_sees_no_skills():
    """The SDK declares extensions only on 2026-07-28: the skills rules are n/a on a legacy session."""
    items = findings(Run(("skills", "hidden-instruction"), era="legacy"))
    assert {f.status for r, fs in items.items() if "skills" in r for f in fs} == {"n/a"}


def test_a_looping_listing_stops_and_says_so():
    items = findings(Run(("skills", "loop")))["spec.skills-methods"]
    stopped = [f for f in items if f.status == "blocking"]
    assert len(stopped) == 1 and "pagination loop" in stopped[0].message, describe(items)
    assert "came back (page 2)" in stopped[0].message, describe(items)


@pytest.mark.slow  # a whole check run with a 2 s timeout that the hang spends (about 15 s here)
def test_a_skills_get_that_hangs_costs_one_timeout_and_proves_nothing():
    items = findings(HANGS)["spec.skills-methods"]
    got = [(f.status, f.subject) for f in items if f.subject != "skills/list"]
    assert got == [("blocking", "skill://release-notes/SKILL.md"), ("blocking", "skills/get of an unknown URI")]
    assert "later skills not asked" in items[1].message and "not asked: a skill hung" in items[2].message
    assert all(f.status == "pass" for f in findings(HANGS)["spec.skills-digest"])  # the reads still answer
