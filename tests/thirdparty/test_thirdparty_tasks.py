"""The task rules on a third party: server-everything 2026.8.31's `simulate-research-query` (2025-11-25 tasks;
this version has no 2026-07-28 tasks extension, so the extension is proven on tests/servers/tasks.py only)."""

from __future__ import annotations

import asyncio

import pytest

from mcp_review.checking import CheckPlan, run_check
from mcp_review.rules.context import Options
from mcp_review.rules.core import load_rules
from mcp_review.targets import stdio_target
from tests.thirdparty import everything_stdio_argv

TASK_RULES = ("spec.tasks", "spec.task-status", "spec.task-iserror", "spec.task-ttl", "spec.task-unsolicited")
TASK_RULES += ("spec.task-methods",)
TOOL = "simulate-research-query"


@pytest.mark.slow  # the tool takes four seconds of its own
def test_server_everythings_task_tool_passes_the_task_rules():
    others = [r for r in load_rules() if r.startswith("spec.") and r not in TASK_RULES]
    options = Options(calls="all", allow_tools=[TOOL])
    plan = CheckPlan(packs=["spec"], ignore=others, options=options, era="legacy")
    review = asyncio.run(run_check(stdio_target(everything_stdio_argv()), plan))
    got = {(f.rule, f.subject): f for f in review.findings if f.rule in TASK_RULES}
    for rule in ("spec.task-status", "spec.task-ttl"):
        assert got[(rule, TOOL)].status == "pass", got[(rule, TOOL)].message
    assert "working -> " in got[("spec.task-status", TOOL)].message
    assert got[("spec.task-iserror", TOOL)].status == "n/a"  # it ended without isError: nothing to judge
    assert got[("spec.task-unsolicited", TOOL)].status == "pass"
    methods = [f for f in review.findings if f.rule == "spec.task-methods"]
    assert methods and {f.status for f in methods} == {"pass"}, [f.message for f in methods]
    print("\n".join(f"{f.status} {f.rule} {f.subject}: {f.message}" for f in review.findings if f.rule in TASK_RULES))
