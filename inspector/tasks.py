"""Running a tool as a task, on the revision the server speaks, and keeping a record of how the task went.

Two revisions define tasks, and they disagree:
- 2025-11-25 (`capabilities.tasks`, in core): the client asks for a task with `params.task` (`ttl`); the server
  answers `{task: {...}}`; the client polls `tasks/get`, fetches the result with `tasks/result` (which blocks
  until the task ends) and may list (`tasks/list`) or cancel (`tasks/cancel`). A tool result with `isError: true`
  makes the task `failed`.
- 2026-07-28 (the `io.modelcontextprotocol/tasks` extension, SEP-2663): the client declares the extension in each
  request's `_meta` client capabilities and the server decides whether to answer with a task (`resultType:
  "task"`, the task's fields inline, `ttlMs`, `pollIntervalMs`). `tasks/get` carries the result (or the JSON-RPC
  error) inline; `tasks/update` answers `inputRequests`; there is no `tasks/list` and no `tasks/result`.
  `isError: true` is `completed`, the opposite of 2025-11-25.

Everything the server says is hostile: polling waits at least the server's poll interval but never more than
`MAX_POLL_WAIT`, stops after `LIMITS.task_polls` polls or the caller's deadline, and a task that never ends is
cancelled, never waited on. Textual-free. The `tools/call` that creates a task is not sent from here: every
caller (the checklist, `call --task`, the app) runs a task through `calls.CallGate.run_task`, which decides whether the
tool may be called, hands the driver its `create` step and records the run as a call.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from mcp_review.connection.channel import Reply
from mcp_review.connection.errors import ConnectionFailed
from mcp_review.connection.protocol import META
from mcp_review.connection.session import Session
from mcp_review.limits import LIMITS

Flavour = Literal["2025-11-25", "2026-07-28"]
Json = dict[str, Any]
EXTENSION = "io.modelcontextprotocol/tasks"
TERMINAL = frozenset({"completed", "failed", "cancelled"})
STATUSES = frozenset({"working", "input_required", *TERMINAL})
REQUESTED_TTL_MS = 60_000  # what mcp-review asks for on 2025-11-25 (the spec's own example)
DEFAULT_POLL = 0.5  # seconds between polls when the server suggests none
MIN_POLL, MAX_POLL_WAIT = 0.01, 5.0  # seconds: a poll interval of 0 is no licence to spin, a day no reason to hang
CANCEL_WAIT = 5.0  # seconds a tasks/cancel may take


def flavour(session: Session) -> Flavour | None:
    """Which tasks the server declared on the revision it speaks, or None when it declared none."""
    return declared(session.era, session.hello.capabilities if session.hello else {})


def declared(era: str, caps: Json) -> Flavour | None:
    """Which tasks capabilities `caps` declare in `era` (a session's, or a snapshot's), or None."""
    if era == "modern":
        ext = caps.get("extensions")
        return "2026-07-28" if isinstance(ext, dict) and EXTENSION in ext else None
    return "2025-11-25" if isinstance(caps.get("tasks"), dict) else None


def declaring_meta(session: Session) -> Json:
    """The `_meta` of a 2026-07-28 request that declares the tasks extension (per request, as SEP-2663 wants)."""
    caps = {**session.handlers.capabilities(), "extensions": {EXTENSION: {}}}
    return {META + "clientCapabilities": caps}


def task_of(result: Any, kind: Flavour) -> Json | None:
    """The task a `tools/call` answer carries, or None when it is an ordinary result."""
    if not isinstance(result, dict):
        return None
    if kind == "2026-07-28":
        return result if result.get("resultType") == "task" else None
    task = result.get("task")
    return task if isinstance(task, dict) and "content" not in result else None


def looks_like_task(result: Any) -> bool:
    """Either revision's task shape, for judging an answer to a request that asked for none."""
    return task_of(result, "2026-07-28") is not None or task_of(result, "2025-11-25") is not None


@dataclass
class Observation:
    """One status the server reported (create, tasks/get, tasks/cancel), as sent."""

    status: Any
    message: str | None
    ttl: Any  # `ttl` (2025-11-25) or `ttlMs` (2026-07-28); absent is `...`
    poll: Any  # `pollInterval` / `pollIntervalMs`; absent is `...`
    seq: int
    at: float  # time.monotonic() when it arrived
    source: str  # the method that reported it


@dataclass
class TaskRun:
    """One tool run as a task: what was asked, every status seen, and how it ended."""

    tool: str
    arguments: Any
    kind: Flavour
    ttl_asked: int | None = None
    created_seq: int | None = None
    task_id: str | None = None
    seen: list[Observation] = field(default_factory=list)
    result: Any = None  # the tool's result, as sent
    error: Json | None = None  # a JSON-RPC error: the call's, or the task's (failed)
    result_seq: int | None = None
    ended: str = "not started"  # completed | failed | cancelled | ran without a task | refused | gave up: ...
    failure: str | None = None  # no answer, a lost connection, a cap reached
    recheck: Reply | None = None  # the tasks/get asked once the task had ended (`TaskDriver.recheck`)
    recheck_at: float | None = None  # time.monotonic() of its answer
    started: float = field(default_factory=time.monotonic)

    @property
    def is_task(self) -> bool:
        return self.task_id is not None

    @property
    def status(self) -> Any:
        return self.seen[-1].status if self.seen else None

    @property
    def is_error(self) -> bool:
        return isinstance(self.result, dict) and self.result.get("isError") is True

    def illegal_transitions(self) -> list[tuple[Observation | None, Observation]]:
        """Statuses the revisions forbid, with the one before (None: the first): a task that did not begin
        `working`, an unknown status, any change out of a terminal one."""
        out: list[tuple[Observation | None, Observation]] = []
        if self.seen and self.seen[0].status != "working":
            out.append((None, self.seen[0]))
        for before, after in zip(self.seen, self.seen[1:], strict=False):
            if not legal(before.status, after.status):
                out.append((before, after))
        return out


def legal(before: Any, after: Any) -> bool:
    """Both revisions: working -> input_required | terminal; input_required -> working | terminal; a terminal
    status never changes."""
    known = before in STATUSES and after in STATUSES
    return known and (after == before or before not in TERMINAL)


StatusCallback = Callable[[TaskRun, Observation], None]
Create = Callable[[Json, float], Awaitable[Reply]]  # sends the tools/call that creates the task: (params, timeout)


def _observe(run: TaskRun, task: Json, reply: Reply, source: str) -> Observation:
    ttl_key, poll_key = ("ttlMs", "pollIntervalMs") if run.kind == "2026-07-28" else ("ttl", "pollInterval")
    message = task.get("statusMessage")
    seen = Observation(
        status=_status(task.get("status")),
        message=message[:500] if isinstance(message, str) else None,
        ttl=task.get(ttl_key, ...),
        poll=task.get(poll_key, ...),
        seq=reply.seq,
        at=time.monotonic(),
        source=source,
    )
    run.seen.append(seen)
    return seen


def _status(value: Any) -> Any:
    """A status as sent when it is a short string; anything else as a short repr (still not a known status)."""
    return value if isinstance(value, str) and len(value) <= 40 else repr(value)[:40]


def poll_wait(poll: Any) -> float:
    """Seconds to wait before the next poll: the server's interval (ms), within MIN_POLL..MAX_POLL_WAIT."""
    if isinstance(poll, bool) or not isinstance(poll, int | float) or poll != poll:
        return DEFAULT_POLL
    return min(max(poll / 1000, MIN_POLL), MAX_POLL_WAIT)


class TaskDriver:
    """Runs one tool as a task: `await driver.run()`; `driver.cancel()` (another task, the app's button) asks the
    server to cancel it. Cancelling the awaiting asyncio task (Ctrl-C) sends tasks/cancel too, then re-raises.
    `create` sends the call that asks for the task (the gate's: `calls.CallGate.run_task`)."""

    def __init__(
        self,
        session: Session,
        create: Create,
        tool: str,
        arguments: Any,
        kind: Flavour,
        *,
        deadline: float,
        on_status: StatusCallback | None = None,
        ttl: int | None = REQUESTED_TTL_MS,
    ) -> None:
        self.session = session
        self.create = create
        self.state = TaskRun(tool, arguments, kind, ttl_asked=ttl if kind == "2025-11-25" else None)
        self.deadline = deadline  # seconds for the whole run
        self.on_status = on_status
        self._stop = asyncio.Event()
        self._body: Json = {}  # the last tasks/get result: on 2026-07-28 it carries the tool's result

    def cancel(self) -> None:
        self._stop.set()

    def _params(self, extra: Json) -> Json:
        if self.state.kind == "2026-07-28":
            return {**extra, "_meta": declaring_meta(self.session)}
        return extra

    def _left(self) -> float:
        return self.deadline - (time.monotonic() - self.state.started)

    def _wait(self, wait: float | None = None) -> float:
        return max(min(wait or self.session.timeout, self._left()), 0.01)

    async def _ask(self, method: str, params: Json, wait: float | None = None) -> Reply:
        return await self.session.request(method, self._params(params), timeout=self._wait(wait))

    def _report(self, task: Json, reply: Reply, source: str) -> None:
        seen = _observe(self.state, task, reply, source)
        if self.on_status:
            self.on_status(self.state, seen)

    async def run(self) -> TaskRun:
        run = self.state
        try:
            await self._create()
            if run.is_task:
                await self._follow()
        except ConnectionFailed as e:
            run.failure = run.failure or str(e)
            run.ended = f"gave up: {e}"
        except asyncio.CancelledError:
            await asyncio.shield(self._send_cancel())
            raise
        return run

    async def _create(self) -> None:
        run = self.state
        params: Json = {"name": run.tool, "arguments": run.arguments}
        if run.kind == "2025-11-25":
            params["task"] = {"ttl": run.ttl_asked} if run.ttl_asked is not None else {}
        reply = await self.create(self._params(params), self._wait())
        run.created_seq = reply.seq
        task = task_of(reply.result, run.kind)
        if reply.error is not None or task is None:
            run.result, run.error, run.result_seq = reply.result, _error(reply), reply.seq
            run.ended = "refused" if reply.error is not None else "ran without a task"
            return
        task_id = task.get("taskId")
        run.task_id = task_id if isinstance(task_id, str) else str(task_id)
        self._report(task, reply, "tools/call")

    async def _follow(self) -> None:
        """Poll until the task ends, the reviewer cancels, or a cap is reached (then cancel it)."""
        run = self.state
        polls = 0
        while polls == 0 or run.status not in TERMINAL:  # one tasks/get at least: it carries the 2026 result
            if polls >= LIMITS.task_polls or self._left() <= 0:
                run.failure = (
                    f"the task was still {run.status!r} after {polls} polls and "
                    f"{time.monotonic() - run.started:.1f}s (limit {LIMITS.task_polls} polls, {self.deadline:g}s)"
                )
                await self._send_cancel()
                run.ended = f"gave up: {run.failure}"
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), min(poll_wait(run.seen[-1].poll), max(self._left(), 0)))
            if self._stop.is_set():
                await self._send_cancel()
                run.ended = "cancelled by the reviewer (tasks/cancel sent)"
                return
            reply = await self._ask("tasks/get", {"taskId": run.task_id})
            polls += 1
            if reply.error is not None or not isinstance(reply.result, dict):
                run.error, run.result_seq = _error(reply), reply.seq
                run.ended = f"gave up: tasks/get answered {_describe(reply)}"
                return
            self._body = reply.result
            self._report(reply.result, reply, "tasks/get")
            if run.kind == "2026-07-28" and run.status == "input_required":
                await self._answer_inputs(reply.result)
            elif run.kind == "2025-11-25" and run.status == "input_required":
                await self._fetch_result()  # the spec: call tasks/result at once; requests come through it
                return
        await self._finish()

    async def _answer_inputs(self, task: Json) -> None:
        requests = task.get("inputRequests")
        if isinstance(requests, dict):
            first = dict(list(requests.items())[:50])
            answers = await self.session.fulfil_all(first, self.state.seen[-1].seq, "tasks/get")
            await self._ask("tasks/update", {"taskId": self.state.task_id, "inputResponses": answers})

    async def _finish(self) -> None:
        run = self.state
        if run.kind == "2025-11-25":
            await self._fetch_result()
            return
        run.result = self._body.get("result")
        err = self._body.get("error")
        run.error = err if isinstance(err, dict) else None
        run.result_seq = run.seen[-1].seq
        run.ended = str(run.status)

    async def _fetch_result(self) -> None:
        run = self.state
        reply = await self._ask("tasks/result", {"taskId": run.task_id}, wait=self._left())
        run.result, run.error, run.result_seq = reply.result, _error(reply), reply.seq
        if run.status not in TERMINAL:  # tasks/result blocks until the task ends: its status says how it ended
            got = await self._ask("tasks/get", {"taskId": run.task_id})
            if got.error is None and isinstance(got.result, dict):
                self._report(got.result, got, "tasks/get")
        run.ended = str(run.status) if run.status in TERMINAL else f"{run.status}, then tasks/result answered"

    async def recheck(self) -> None:
        """One more tasks/get once the task has ended (for the rules): its status must not change, and a task
        inside its ttl must still be there. Nothing is asked when there is no task or it did not end."""
        run = self.state
        if run.task_id is None or run.status not in TERMINAL:
            return
        reply = await self.session.request("tasks/get", self._params({"taskId": run.task_id}))
        run.recheck, run.recheck_at = reply, time.monotonic()
        if reply.error is None and isinstance(reply.result, dict):
            self._report(reply.result, reply, "tasks/get, after the end")

    async def _send_cancel(self) -> None:
        """Ask the server to cancel the task (bounded); the answer is one more observation when it is a task."""
        run = self.state
        if run.task_id is None or run.status in TERMINAL:
            return
        with contextlib.suppress(ConnectionFailed):
            reply = await self.session.request(
                "tasks/cancel", self._params({"taskId": run.task_id}), timeout=CANCEL_WAIT
            )
            if run.kind == "2025-11-25" and isinstance(reply.result, dict) and "status" in reply.result:
                self._report(reply.result, reply, "tasks/cancel")


def _error(reply: Reply) -> Json | None:
    err = reply.error
    if err is None:
        return None
    return err if isinstance(err, dict) else {"message": repr(err)[:200]}


def _describe(reply: Reply) -> str:
    err = _error(reply)
    return f"JSON-RPC error {err.get('code')}" if err else "something that is not a task"


def flavour_for(session: Session) -> Flavour:
    """The tasks of the revision the server speaks (a server that declares no tasks gets its era's: the answer shows
    whether it makes one)."""
    return flavour(session) or ("2026-07-28" if session.era == "modern" else "2025-11-25")
