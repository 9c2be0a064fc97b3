"""A server from the registry reviewed as mcp-review runs every stdio server (issue 38): mcp-server-time (PyPI,
installed by scripts/test-deps), confined and observed under --calls all. Its normal behaviour shows as expected:
it reads its own install and the system's files (its interpreter, the time zone database), starts no other program,
reaches no host, writes nothing; every behaviour rule passes, and the review's Behaviour section says how it ran."""

from __future__ import annotations

import asyncio

import pytest

from mcp_review.checking import CheckPlan, run_check
from mcp_review.review import Review
from mcp_review.rules.context import Options
from mcp_review.targets import Confinement, stdio_target
from tests.thirdparty import time_argv

pytestmark = pytest.mark.thirdparty


@pytest.fixture(scope="module")
def review() -> Review:
    target = stdio_target(time_argv()).with_(timeout=60.0, confinement=Confinement(observe=True, run="time"))
    return asyncio.run(run_check(target, CheckPlan(packs=["review"], options=Options(calls="all"))))


BEHAVIOUR = {
    "review.secrets-read", "review.secrets-sent", "review.hosts-named", "review.no-shell-on-call",
    "review.writes-in-scratch", "review.startup-quiet", "review.read-only-verified", "review.open-world-verified",
    "review.destructive-verified",
}  # fmt: skip


def test_every_behaviour_rule_passes(review: Review):
    judged = {(f.rule, f.subject): f.status for f in review.findings if f.rule in BEHAVIOUR}
    assert {rule for rule, _ in judged} == BEHAVIOUR and set(judged.values()) == {"pass"}, judged


def test_its_behaviour_is_its_own_files_and_nothing_else(review: Review):
    said = review.behaviour
    assert said is not None
    (process,) = said["processes"]
    assert process["confined"] and process["observed"], process
    assert said["events"]["observed"] > 100, "its interpreter's start alone opens hundreds of files"
    assert {c["tool"] for c in review.coverage} == {"get_current_time", "convert_time"}, "both called, observed"
    answering = [row for row in said["requests"] if row["request"] is not None]
    assert all(set(row["counts"]) <= {"read"} and not row["notable"] for row in answering), answering
    (start,) = [row for row in said["requests"] if row["request"] is None]
    assert [e["said"] for e in start["notable"]] == [f"started {' '.join(time_argv())!r}"], "itself, nothing else"
    assert not said["sightings"]
