"""The call gate against real servers over stdio (tests/servers/profiled.py exemplary, tests/servers/tasks.py): what
each caller's gate lets through, the consent each call is recorded with, the cap (task runs too), and a call shared
only within its class. tests/unit/test_call_gate.py proves no other place sends `tools/call`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace

from mcp_review import calls
from mcp_review.calls import CallGate
from mcp_review.catalog import Item, ServerSnapshot, take_snapshot
from mcp_review.checking import CheckPlan, review_session
from mcp_review.connection.session import Session
from mcp_review.rules.context import Options
from mcp_review.rules.core import load_rules
from mcp_review.targets import stdio_target
from tests.support import fixture_argv


@asynccontextmanager
async def served(*argv: str) -> AsyncIterator[tuple[Session, ServerSnapshot]]:
    async with Session(stdio_target(fixture_argv(*argv))) as session:
        yield session, await take_snapshot(session)


def sent_calls(session: Session) -> int:
    return sum(1 for e in session.wire.entries if e.direction == "send" and e.method == "tools/call")


def tool(snapshot: ServerSnapshot, name: str) -> Item:
    found = snapshot.tool(name)
    assert found is not None
    return found


async def test_the_reviewers_gate_calls_a_side_effect_only_with_consent_to_that_call():
    async with served("profiled", "exemplary") as (session, snapshot):
        gate = CallGate.for_reviewer(session)
        search, delete = tool(snapshot, "search_notes"), tool(snapshot, "delete_note")
        record = await gate.call(search, {"query": "milk"}, purpose="reviewer")
        assert record is not None and record.consent == "read-only" and record.outcome == "ok"
        assert await gate.call(delete, {"note_id": "n9"}, purpose="reviewer") is None
        assert sent_calls(session) == 1, "a refused call sends nothing"
        consented = await gate.call(delete, {"note_id": "n9"}, purpose="reviewer", consented=True)
        assert consented is not None and consented.consent == "reviewer"
        again = await gate.call(search, {"query": "milk"}, purpose="reviewer", share="answer")
        assert sent_calls(session) == 3 and again is not record, "the reviewer asked: each call is made"
        assert gate.cap is None and [r.tool for r in gate.calls] == ["search_notes", "delete_note", "search_notes"]


async def test_a_runs_gate_follows_the_policy_and_its_allow_list():
    async with served("profiled", "exemplary") as (session, snapshot):
        search, delete = tool(snapshot, "search_notes"), tool(snapshot, "delete_note")

        def gate(policy: calls.Policy, allow: list[str] | None = None) -> CallGate:
            return CallGate.for_run(session, policy, allow, lambda name: snapshot.tool(name) is not None)

        assert "--calls read-only" in (gate("none").refusal(search) or "")
        assert gate("read-only").refusal(search) is None
        assert "only --calls all" in (gate("read-only").refusal(delete) or "")
        assert gate("read-only").refusal(delete, consented=True) is None, "one call's consent lifts it"
        assert gate("all").refusal(delete) is None and gate("all").cap == calls.LIMITS.calls
        assert "calls.allow" in (gate("all", ["search_notes"]).refusal(delete) or "")
        run = gate("all")
        record = await run.call(delete, {"note_id": "n9"}, purpose="rule.x")
        assert record is not None and record.consent == "reviewer", "consent given for the run is recorded"
        assert [e.method for e in run.during(record) if e.method] == ["tools/call", "elicitation/create"]
        refused = await run.unlisted({"name": "mcp_review_no_such_tool", "arguments": {}})
        assert refused.error is not None and run.calls == [record], "an unknown name runs nothing: no coverage"


async def test_a_call_is_shared_only_within_its_class_with_the_same_arguments():
    async with served("profiled", "exemplary") as (session, snapshot):
        gate = CallGate(session, "read-only")
        search = tool(snapshot, "search_notes")
        first = await gate.call(search, {"query": "milk", "limit": 2}, purpose="rule.a", share="answer")
        shared = await gate.call(search, {"limit": 2, "query": "milk"}, purpose="rule.b", share="answer")
        assert shared is first and sent_calls(session) == 1
        assert first is not None and first.to_json()["reusedBy"] == ["rule.b"]
        await gate.call(search, {"query": "milk", "limit": 2}, purpose="rule.c")  # no class: a call of its own
        await gate.call(search, {"query": "milk", "limit": 2}, purpose="rule.d", share="refusal")  # another class
        await gate.call(search, {"query": "buy", "limit": 2}, purpose="rule.e", share="answer")  # other arguments
        assert sent_calls(session) == 4 and len(gate.calls) == 4


async def test_the_cap_holds_for_calls_and_task_runs():
    async with served("tasks", "well-formed") as (session, snapshot):
        gate = CallGate(session, "all", cap=1)
        report, flaky = tool(snapshot, "slow_report"), tool(snapshot, "flaky_job")
        made = await gate.run_task(report, {"topic": "x"}, purpose="task run", deadline=10)
        assert made is not None and made[1].ended == "completed" and gate.calls == [made[0]]
        capped = await gate.run_task(flaky, {}, purpose="task run", deadline=10)
        assert capped is not None and "MCP_REVIEW_LIMITS calls" in (capped[1].failure or "")
        over = await gate.call(report, {"topic": "x"}, purpose="rule.x")
        assert over is not None and "MCP_REVIEW_LIMITS calls" in (over.failure or "")
        assert sent_calls(session) == 1 and len(gate.calls) == 1


async def test_the_checklists_task_runner_is_capped_and_says_so(monkeypatch):
    """spec.task-status runs each task-capable tool through the run's gate: past the cap its run is blocking."""
    monkeypatch.setattr(calls, "LIMITS", replace(calls.LIMITS, calls=1))
    others = [rule for rule in load_rules() if rule.startswith("spec.") and rule != "spec.task-status"]
    plan = CheckPlan(packs=["spec"], ignore=others, options=Options(calls="all"))
    async with served("tasks", "well-formed") as (session, snapshot):
        review = await review_session(session, snapshot, plan)
    statuses = {f.subject: f for f in review.findings}
    assert statuses["slow_report"].status == "pass", statuses
    assert statuses["flaky_job"].status == "blocking" and "MCP_REVIEW_LIMITS calls" in statuses["flaky_job"].message
    assert [c["purpose"] for c in review.coverage] == ["task run"]
