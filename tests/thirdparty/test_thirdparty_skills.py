"""A public server of the skills extension (SEP-2640), reviewed as a new user would: `agentskills-mcp-server`
0.7.0 from PyPI (scripts/test-deps, `.deps/skills`, on mcp 2.3.0 and Python 3.12), serving a folder of two skills
over stdio, offline. It declares `io.modelcontextprotocol/skills` on 2026-07-28, answers `skills/list` and
`skills/get` with digests and sizes of the bytes it serves, does not declare `directoryRead`, and carries `ttlMs`
and `cacheScope`: every skills rule passes on it, and `list` shows each skill's cost. Measured on the pinned
version: its one fail is `review.error-channel-correct` (an unknown tool answered as `isError`, the SDK's way)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from mcp_review.checking import CheckPlan, run_check
from mcp_review.review import Review
from mcp_review.rules.context import Options
from mcp_review.rules.core import DEFAULT_PACKS
from mcp_review.targets import Confinement, stdio_target
from tests.thirdparty import make_skills, skills_argv

pytestmark = pytest.mark.thirdparty


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("skills")


@pytest.fixture(scope="module")
def served(folder: Path) -> list[str]:
    """The server's argv, serving SKILLS from a fresh folder."""
    return skills_argv(make_skills(folder))


@pytest.fixture(scope="module")
def review(served: list[str], folder: Path) -> Review:
    plan = CheckPlan(packs=list(DEFAULT_PACKS), options=Options(calls="read-only"))
    allowed = Confinement(allow_read=(str(folder),))  # its config names the skills' folder: the reviewer lets it read
    return asyncio.run(run_check(stdio_target(served).with_(timeout=60.0, confinement=allowed), plan))


def test_every_skills_rule_passes_on_a_public_skills_server(review: Review):
    by_rule: dict[str, set[str]] = {}
    for f in review.findings:
        if "skills" in f.rule:
            by_rule.setdefault(f.rule, set()).add(f.status)
    assert by_rule == {rule: {"pass"} for rule in by_rule} and len(by_rule) == 7, by_rule
    digests = {f.subject: f.message for f in review.findings if f.rule == "spec.skills-digest"}
    assert digests["skill://pdf-notes/SKILL.md"] == "2 file(s) read, each matching its digest and size"
    surfaces = {f.subject: f.status for f in review.findings if f.rule == "review.declared-surfaces-reviewed"}
    assert surfaces["capabilities.extensions.io.modelcontextprotocol/skills"] == "pass"


def test_its_only_fail_is_the_unknown_tool_answered_as_a_result(review: Review):
    assert {f.rule for f in review.findings if f.status == "fail"} == {"review.error-channel-correct"}


def test_list_shows_each_skill_cost(served: list[str], folder: Path, tmp_path: Path):
    from tests.integration.test_configs import cli

    out = cli("list", "--format", "json", "--allow-read", str(folder), "--", *served)
    assert out.returncode == 0, out.stderr
    skills = {s["uri"]: s for s in json.loads(out.stdout)["skills"]["skills"]}
    assert set(skills) == {"skill://pdf-notes/SKILL.md", "skill://release-notes/SKILL.md"}
    assert all(s["tokens"] > 5 and s["loaded"] > s["tokens"] for s in skills.values())
