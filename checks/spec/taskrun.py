"""Pack `spec`: tools run as tasks (2025-11-25 tasks, the 2026-07-28 tasks extension), judged on the revision the
server speaks. The runs are made once per review (`task_runs`, shared by the rules) through the run's call gate
(`CallGate.run_task`: the policy, the call cap, and the run kept as a call)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from mcp_review.calls import CallRecord
from mcp_review.catalog import Item
from mcp_review.checks.spec.common import SEED
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule
from mcp_review.tasks import TERMINAL, Flavour, TaskRun, flavour, looks_like_task

SPEC = "2025-11-25 tasks; 2026-07-28 ext"
MAX_TOOLS = 5  # tools run as tasks per review (2026-07-28: the server decides which calls become tasks)


def candidates(ctx: CheckContext, kind: Flavour) -> list[Item]:
    """2025-11-25: the tools whose `taskSupport` is optional|required; 2026-07-28: any tool (server-directed)."""
    out = []
    for tool in ctx.snapshot.tools:
        execution = tool.get("execution")
        support = execution.get("taskSupport") if isinstance(execution, dict) else None
        if tool.name and (kind == "2026-07-28" or support in ("optional", "required")):
            out.append(tool)
    return out[:MAX_TOOLS]


async def task_runs(ctx: CheckContext, what: str) -> AsyncIterator[Finding | tuple[Item, TaskRun]]:
    """Each candidate tool with its run as a task (made once per review), or the finding that replaces it: n/a
    when the server declares no tasks or no tool may run as one, blocking when the policy forbids the call."""
    kind = flavour(ctx.session)
    if kind is None:
        yield ctx.na(None, "the server declares no tasks (capabilities.tasks, or the tasks extension)")
        return
    tools = candidates(ctx, kind)
    if not tools:
        yield ctx.na(None, "no tool has execution.taskSupport optional|required: none can run as a task")
        return
    for tool in tools:
        if ctx.may_call(tool) is not None:
            yield ctx.blocking_call(tool, what)
            continue
        if tool.name not in ctx.task_runs:
            run = await ctx.run_task(tool, ctx.arguments(tool))
            assert run is not None  # the policy allowed it
            ctx.task_runs[tool.name or ""] = run
        yield tool, ctx.task_runs[tool.name or ""]


def unfinished(ctx: CheckContext, tool: Item, run: TaskRun) -> Finding | None:
    """The finding for a run that proves nothing: the call got no answer (a lost connection, the call cap:
    blocking), no task came back (n/a: on 2026-07-28 the server decides), or the task did not end within the caps
    (blocking)."""
    if run.failure and not run.is_task:
        return ctx.blocking(tool, f"running it as a task got no answer: {run.failure}", [run.created_seq])
    if not run.is_task:
        return ctx.na(tool, f"the call did not come back as a task ({run.ended}): nothing to judge")
    if run.failure or run.ended not in TERMINAL:
        wait = f"`mcp-review call {tool.name} --task --task-wait SECONDS` waits longer, or raise --timeout"
        return ctx.blocking(tool, f"the task did not end: {run.failure or run.ended}; {wait}", [run.created_seq])
    return None


@rule("spec.task-status", concern="protocol", severity="medium", modes=("call",), source=f"{SEED} Task handlers")
async def task_status(ctx: CheckContext) -> AsyncIterator[Finding]:
    """A task's status moves only the ways the revision allows.

    What it checks: each tool that may run as a task (2025-11-25: `taskSupport` optional|required; 2026-07-28:
    any tool, up to 5, the server decides) is called as one and polled with `tasks/get` until it ends, then polled
    once more. The task begins `working`; `working` and `input_required` may move to each other or to a terminal
    status (`completed`, `failed`, `cancelled`); a terminal status never changes; no other status exists.
    Why: clients stop polling at a terminal status and act on it: a task that leaves one misleads them (2025-11-25
    Task Status Lifecycle; the 2026-07-28 extension keeps the same machine).

    Spec: 2025-11-25 tasks; 2026-07-28 ext

    Known false positives: none known: every status is quoted as sent. A call that comes back without a task is
    n/a (the 2026-07-28 server decides); a task that does not end within the run's deadline or 600 polls is
    cancelled and blocking.
    Passes: every status seen is legal. Fails: a first status other than `working`, an unknown status, a change out
    of a terminal one. n/a: no tasks declared, no tool that may run as one.
    To verify when blocking: `--calls read-only` for a read-only tool, `--calls all` (consent) for others, or
    calls.allow; `mcp-review call TOOL --task` shows the statuses live.
    """
    async for item in task_runs(ctx, "running the tool as a task"):
        if isinstance(item, Finding):
            yield item
            continue
        tool, run = item
        bad = run.illegal_transitions()
        path = " -> ".join(str(seen.status) for seen in run.seen)
        if bad:
            before, after = bad[0]
            move = f"{before.status!r} -> {after.status!r}" if before else f"began {after.status!r}, not 'working'"
            yield ctx.fail(tool, f"illegal status transition {move} ({after.source}; seen {path})", [after.seq])
        else:
            yield unfinished(ctx, tool, run) or ctx.passed(tool, f"statuses {path}", [run.seen[-1].seq])


def _iserror_verdict(ctx: CheckContext, tool: Item, run: TaskRun) -> Finding:
    seq = [run.result_seq]
    if run.kind == "2026-07-28":
        if run.ended == "failed" and run.result is not None:
            return ctx.fail(
                tool,
                "the task ended 'failed' carrying a tool result: on 2026-07-28 isError:true is 'completed', "
                "'failed' is for JSON-RPC errors",
                seq,
            )
        if not run.is_error:
            return ctx.na(tool, f"the task ended {run.ended!r} without isError: true: nothing to judge")
        return ctx.passed(tool, "isError: true came back in a 'completed' task", seq)
    if not run.is_error:
        return ctx.na(tool, f"the task ended {run.ended!r} without isError: true: nothing to judge")
    if run.ended == "failed":
        return ctx.passed(tool, "isError: true came back from a 'failed' task (2025-11-25)", seq)
    return ctx.fail(tool, f"tasks/result is isError: true, yet the task ended {run.ended!r}, not 'failed'", seq)


@rule("spec.task-iserror", concern="protocol", severity="medium", modes=("call",), source=f"{SEED} Task handlers")
async def task_iserror(ctx: CheckContext) -> AsyncIterator[Finding]:
    """A tool error (`isError: true`) ends a task the way the revision says: `completed` on 2026-07-28, `failed`
    on 2025-11-25.

    What it checks: the tasks of spec.task-status (the same runs). 2026-07-28: a task that ends with a tool
    result carrying `isError: true` is `completed` (the result inline in `tasks/get`); `failed` carries a
    JSON-RPC `error`, never a tool result. 2025-11-25: a task whose `tasks/result` is `isError: true` is `failed`.
    Why: the two revisions disagree (2025-11-25 Task Status: failed "includes cases where the tool call result has
    isError"; SEP-2663: isError is completed): a server mixing them makes a client drop the result or retry a
    finished call.

    Spec: 2025-11-25 tasks; 2026-07-28 ext

    Known false positives: none known. A task that ended without `isError: true` is n/a; when none did, the rule is
    blocking: it can only judge a tool error it has seen.
    Passes: a tool error in the status its revision wants. Fails: the other status.
    To verify when blocking: run a tool as a task with arguments that make it fail
    (`mcp-review call TOOL --task --args ...`); `--calls read-only` for a read-only tool, `--calls all` (consent)
    for others, or calls.allow.
    """
    judged, seen = False, []
    async for item in task_runs(ctx, "running the tool as a task"):
        if isinstance(item, Finding):
            yield item
            continue
        tool, run = item
        seen.append(run.result_seq or run.created_seq)
        finding = unfinished(ctx, tool, run) or _iserror_verdict(ctx, tool, run)
        judged = judged or finding.status in ("pass", "fail")
        yield finding
    if seen and not judged:
        yield ctx.blocking(
            None, "no task ended with isError: true: how this server reports a tool error in a task is not known", seen
        )


def _number_or_null(value: Any) -> bool:
    return value is None or (isinstance(value, int | float) and not isinstance(value, bool) and value >= 0)


def _ttl_verdict(ctx: CheckContext, tool: Item, run: TaskRun) -> Finding:
    ttl_key, poll_key = ("ttlMs", "pollIntervalMs") if run.kind == "2026-07-28" else ("ttl", "pollInterval")
    for seen in run.seen:
        if seen.ttl is ... and run.kind == "2025-11-25" and seen.source.startswith("tasks/get"):
            return ctx.fail(
                tool, f"{seen.source} answered without `ttl` (the actual ttl, or null, MUST be there)", [seen.seq]
            )
        if seen.ttl is not ... and not _number_or_null(seen.ttl):
            return ctx.fail(tool, f"{ttl_key} is {seen.ttl!r}: not a duration in ms, or null", [seen.seq])
        if seen.poll is not ... and not _number_or_null(seen.poll):
            return ctx.fail(tool, f"{poll_key} is {seen.poll!r}: not a duration in ms", [seen.seq])
    ttl = run.seen[0].ttl
    age = (run.recheck_at - run.started) * 1000 if run.recheck_at is not None else None
    error = run.recheck.error if run.recheck is not None else None
    if error is not None and age is not None and (ttl is None or (isinstance(ttl, int | float) and age < ttl)):
        within = "an unlimited ttl (null)" if ttl is None else f"its {ttl_key} of {ttl:g} ms"
        return ctx.fail(
            tool,
            f"the task was gone {age / 1000:.1f}s after it was created (tasks/get -> "
            f"{error.get('code') if isinstance(error, dict) else error}), within {within}",
            [run.recheck.seq if run.recheck else None],
        )
    polls = sum(1 for seen in run.seen if seen.source == "tasks/get")
    return ctx.passed(tool, f"{ttl_key} {ttl!r} kept; polled {polls} times, {poll_key} apart", [run.seen[-1].seq])


@rule("spec.task-ttl", concern="protocol", severity="low", modes=("call",), source=f"{SEED} Task handlers")
async def task_ttl(ctx: CheckContext) -> AsyncIterator[Finding]:
    """A task says how long it lives and how often to poll it, and is kept for as long as it says.

    What it checks: the tasks of spec.task-status. Every `ttl`/`pollInterval` (2025-11-25) or
    `ttlMs`/`pollIntervalMs` (2026-07-28) is a non-negative number of ms (`ttl` may be null: unlimited);
    2025-11-25 `tasks/get` answers carry `ttl` (MUST). Once the task ended and its result was fetched, one more
    `tasks/get` must still find it while its ttl has not run out (2025-11-25 asks for 60 s). mcp-review polls at
    the server's interval (never faster than 10 ms, never slower than 5 s).
    Why: 2025-11-25 TTL and Resource Management: ttl is "time from creation before task may be deleted"; a
    client that fetches the result or re-reads the status within it gets -32602 from a server that ignores it.

    Spec: 2025-11-25 tasks; 2026-07-28 ext

    Known false positives: a server that keeps tasks per connection loses them only when the connection ends;
    the check re-reads on the same connection. A cancelled task may be deleted at once (never judged: the runs
    end by themselves).
    Passes: the durations are numbers and the task is still there. Fails: a missing 2025-11-25 `ttl`, a duration
    that is not a number, a task gone within its ttl.
    To verify when blocking: `--calls read-only` for a read-only tool, `--calls all` (consent) for others, or
    calls.allow.
    """
    async for item in task_runs(ctx, "running the tool as a task"):
        if isinstance(item, Finding):
            yield item
            continue
        tool, run = item
        yield unfinished(ctx, tool, run) or _ttl_verdict(ctx, tool, run)


@rule("spec.task-unsolicited", concern="protocol", severity="medium", modes=("call",), source=f"{SEED} Task handlers")
async def task_unsolicited(ctx: CheckContext) -> AsyncIterator[Finding]:
    """No task comes back unless the request asked for one.

    What it checks: on a server that declares tasks, every tool's sample call (the one shared by the rules that
    read results, made without `params.task` and without declaring the tasks extension) comes back as an ordinary
    result or an error, never as a task. On 2026-07-28 -32021 (the extension is needed) is a right answer.
    Why: 2026-07-28 SEP-2663: a server MUST NOT return `resultType: "task"` to a request that did not declare the
    extension, and answers -32021 when a task is its only option; 2025-11-25: a task is created only for a
    task-augmented request. A client that did not ask cannot poll for the result: it is lost.

    Spec: 2025-11-25 tasks; 2026-07-28 ext

    Known false positives: none known. n/a when the server declares no tasks.
    Passes: an ordinary answer to a call that asked for no task. Fails: a task shape in answer to one.
    To verify when blocking: `--calls read-only` for a read-only tool, `--calls all` (consent) for others, or
    calls.allow.
    """
    if flavour(ctx.session) is None:
        yield ctx.na(None, "the server declares no tasks (capabilities.tasks, or the tasks extension)")
        return

    def judge(tool: Item, record: CallRecord, _result: Any) -> Finding:
        code = (record.error or {}).get("code")
        if looks_like_task(record.result):
            return ctx.fail(tool, "a call that asked for no task came back as a task", [record.seq])
        if code == -32021:
            return ctx.passed(tool, "a call without the tasks extension -> -32021", [record.seq])
        return ctx.passed(tool, f"a call that asked for no task -> {record.outcome}, not a task", [record.seq])

    async for finding in ctx.samples("a call that asks for no task", judge, refusals=True):
        yield finding
