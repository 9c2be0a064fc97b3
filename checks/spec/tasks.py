"""Pack `spec` (seed 002 and the MCP specification): task-augmented calls."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from mcp_review.checks.spec.common import SEED
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule


@rule("spec.tasks", concern="protocol", severity="medium", modes=("probe", "call"), source=f"{SEED} Task handlers")
async def tasks(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Task-augmented calls follow the spec: `tasks/*` semantics and `taskSupport` enforcement.

    What it checks: every `taskSupport` is forbidden|optional|required, and optional|required only on a server that
    declares tasks (warn otherwise). The rest applies only when the server declares tasks (2025-11-25
    `capabilities.tasks`, 2026-07-28 the `io.modelcontextprotocol/tasks` extension): n/a otherwise;
    `tasks/get` with an unknown taskId (on 2026-07-28 declaring the extension in the request) must get -32602;
    a `required` tool called without a task must get -32601 (seed 002 says InvalidParameters:
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
    from mcp_review.tasks import EXTENSION, declaring_meta

    params: dict[str, Any] = {"taskId": "mcp-review-no-such-task"}
    if EXTENSION in ext and ctx.era == "modern":  # 2026-07-28: only a request that declares the extension may ask
        params["_meta"] = declaring_meta(ctx.session)
    reply = await ctx.session.request("tasks/get", params)
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
        record = await ctx.try_call(tool, ctx.arguments(tool), "taskSupport: required enforcement", share="answer")
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


@rule("spec.task-methods", concern="protocol", severity="medium", modes=("probe",), source=f"{SEED} Task handlers")
async def task_methods(ctx: CheckContext) -> AsyncIterator[Finding]:
    """`tasks/list` and `tasks/result` are served only where the revision has them, and 2026-07-28 `tasks/*` only
    to a request that declared the extension.

    What it checks: 2025-11-25 (`capabilities.tasks`): `tasks/result` with an unknown taskId gets -32602 (the
    method exists); `tasks/list` answers when `tasks.list` is declared, and is not served when it is not (warn).
    2026-07-28 (the `io.modelcontextprotocol/tasks` extension): `tasks/list` and `tasks/result` (declaring the
    extension) get -32601, and `tasks/get` from a request that did not declare the extension gets -32021.
    No tool is called: each request names no task or a task that does not exist.
    Why: SEP-2663 removed `tasks/list` (task ids are capabilities: listing them leaks other clients' tasks) and
    `tasks/result` (the result is inline in `tasks/get`), and says undeclared clients get -32021; 2025-11-25
    defines both methods and ties `tasks/list` to `capabilities.tasks.list`.

    Spec: 2025-11-25 tasks; 2026-07-28 ext

    Known false positives: a 2026-07-28 server that answers a removed method with an error other than -32601 is a
    warn, not a fail (it may route every `tasks/*` through one handler that checks the id first). n/a when the
    server declares no tasks.
    Passes: each method answered as its revision says. Fails: a removed method that answers a result, a
    2025-11-25 `tasks/result` or a declared `tasks/list` that is not served, a 2026-07-28 `tasks/get` answered
    without the extension declared. Warns: an undeclared 2025-11-25 `tasks/list` that answers, another error code.
    """
    from mcp_review.tasks import declaring_meta, flavour

    kind = flavour(ctx.session)
    if kind is None:
        yield ctx.na(None, "the server declares no tasks (capabilities.tasks, or the tasks extension)")
        return
    unknown = {"taskId": "mcp-review-no-such-task"}
    if kind == "2026-07-28":
        declared = {"_meta": declaring_meta(ctx.session)}
        for method, params in (("tasks/list", declared), ("tasks/result", {**unknown, **declared})):
            reply = await ctx.session.request(method, params, timeout=ctx.probe_timeout)
            code = (reply.error or {}).get("code")
            if reply.error is None:
                yield ctx.fail(
                    None, f"{method} answered a result: the 2026-07-28 extension has no {method}", [reply.seq]
                )
            elif code == -32601:
                yield ctx.passed(None, f"{method} -> -32601 (not in the 2026-07-28 extension)", [reply.seq])
            else:
                yield ctx.warn(None, f"{method} -> {code}, not -32601: the method may be served", [reply.seq])
        reply = await ctx.session.request("tasks/get", unknown, timeout=ctx.probe_timeout)
        code = (reply.error or {}).get("code")
        verdict = ctx.passed if code == -32021 else ctx.fail
        said = code if reply.error else "a result"
        yield verdict(None, f"tasks/get without the extension declared -> {said} (-32021 wanted)", [reply.seq])
        return
    reply = await ctx.session.request("tasks/result", unknown, timeout=ctx.probe_timeout)
    code = (reply.error or {}).get("code")
    verdict = ctx.passed if code == -32602 else ctx.fail
    yield verdict(
        None, f"tasks/result with an unknown taskId -> {code if reply.error else 'a result'} (-32602)", [reply.seq]
    )
    tasks = ctx.snapshot.capabilities.get("tasks")
    listed = isinstance(tasks, dict) and "list" in tasks
    reply = await ctx.session.request("tasks/list", {}, timeout=ctx.probe_timeout)
    served = reply.error is None or (reply.error or {}).get("code") != -32601
    if served == listed:
        yield ctx.passed(None, f"tasks/list {'answers' if served else '-> -32601'}, as tasks.list says", [reply.seq])
    elif listed:
        yield ctx.fail(None, "capabilities.tasks.list is declared, yet tasks/list -> -32601", [reply.seq])
    else:
        yield ctx.warn(None, "tasks/list is served though capabilities.tasks.list is not declared", [reply.seq])
