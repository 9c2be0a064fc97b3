"""Pack `spec` (seed 002 and the MCP specification): task-augmented calls."""

from __future__ import annotations

from collections.abc import AsyncIterator

from mcp_review.checks.spec.common import SEED
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule


@rule("spec.tasks", modes=("probe", "call"), source=f"{SEED} Task handlers")
async def tasks(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Task-augmented calls follow the spec: `tasks/*` semantics and `taskSupport` enforcement.

    What it checks: every `taskSupport` is forbidden|optional|required, and optional|required only on a server that
    declares tasks (warn otherwise). The rest applies only when the server declares tasks (2025-11-25
    `capabilities.tasks`, 2026-07-28 the `io.modelcontextprotocol/tasks` extension): n/a otherwise;
    `tasks/get` with an unknown taskId must get
    -32602; a `required` tool called without a task must get -32601 (seed 002 says InvalidParameters:
    the spec's tool-level negotiation says -32601 MUST, its error-handling section allows -32600; both
    are cited) — that part needs a call permission, else blocking.
    Why: seed 002 Task handlers (MCP 2025-11-25 tasks): clients rely on tasks/* errors and on `taskSupport`
    enforcement to know whether a call runs as a task.

    Spec: 2025-11-25 tasks; 2026-07-28 ext

    Known false positives: a `required` tool answered with -32600 or -32602 passes (both cited); a call that
    timed out has no error code and fails. A `tasks/get` that gets no answer stops the rule as blocking.
    Passes: -32602 for an unknown taskId; a `required` tool refused without a task. Fails: an invalid
    taskSupport value, another answer to tasks/get, a `required` tool that ran without a task. Warns:
    optional|required on a server that declares no tasks.
    To verify when blocking: `--calls read-only` for a read-only `required` tool, `--calls all` (consent)
    for others, or calls.allow.
    """
    caps = ctx.snapshot.capabilities
    ext = (caps.get("extensions") or {}) if isinstance(caps.get("extensions"), dict) else {}
    declared = "tasks" in caps or "io.modelcontextprotocol/tasks" in ext
    supports = {
        t.name: (t.get("execution") or {}).get("taskSupport")
        for t in ctx.snapshot.tools
        if isinstance(t.get("execution"), dict)
    }
    for tool in ctx.snapshot.tools:
        value = supports.get(tool.name)
        if tool.name in supports and value not in ("forbidden", "optional", "required"):
            yield ctx.fail(tool, f"execution.taskSupport {value!r} is not forbidden|optional|required")
        elif value in ("optional", "required") and not declared:
            yield ctx.warn(
                tool,
                f"execution.taskSupport is {value!r} but the server declares no tasks capability: clients must "
                "not use tasks then, so the tool can never run as one",
            )
    if not declared:  # tasks/* are only defined for a server that declares them: -32601 is then correct
        yield ctx.na(None, "the server declares no tasks capability: tasks/* are not judged")
        return
    reply = await ctx.session.request("tasks/get", {"taskId": "mcp-review-no-such-task"})
    code = (reply.error or {}).get("code")
    if code == -32602:
        yield ctx.passed(None, "tasks/get with an unknown taskId -> -32602", [reply.seq])
    else:
        yield ctx.fail(
            None, f"tasks/get with an unknown taskId -> {code if reply.error else 'a result'}, not -32602", [reply.seq]
        )
    for tool in ctx.snapshot.tools:
        if supports.get(tool.name) != "required":
            continue
        record = await ctx.try_call(tool, ctx.arguments(tool), "taskSupport: required enforcement")
        if isinstance(record, Finding):
            yield record
            continue
        code = (record.error or {}).get("code")
        if code in (-32601, -32600, -32602):
            yield ctx.passed(tool, f"called without a task -> {code}", [record.seq])
        else:
            yield ctx.fail(
                tool, f"taskSupport is required, yet a call without a task -> {record.outcome}", [record.seq]
            )
