"""Running the checklist from the app: which packs run and which tools their rules may call (asked of the
reviewer before the first run that calls, with consent before calling every tool), and each run as a job on
the connection worker. The run choices and the review are the workspace's (`mcp_review.workspace`); what the
screen shows comes back to the app as messages (`ChecksStarted`, `ChecksProgress`, `ChecksDone`).

The rules run in a thread of their own (`off_the_ui`), not on the app's event loop: on a 10,000-tool server a
rule works for seconds without awaiting anything, and every key would wait for it (issue 12). Their requests to
the server still go through the app's session, on the app's loop, where its transport lives (`OnLoop`)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import functools
import gc
import inspect
import threading
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import replace
from typing import Any, TypeVar, cast

from mcp_review.catalog import ServerSnapshot
from mcp_review.checking import review_session, run_check
from mcp_review.connection.pace import Slow
from mcp_review.connection.session import Session
from mcp_review.review import Finding
from mcp_review.rules.core import Rule
from mcp_review.tui.dialogs import ConfirmScreen, RunScreen
from mcp_review.tui.dialogs.run import Choice
from mcp_review.tui.messages import ChecksDone, ChecksProgress, ChecksStarted
from mcp_review.tui.panes.ordering import order_findings
from mcp_review.tui.panes.tools import worst_by_subject
from mcp_review.tui.shell import Shell
from mcp_review.workspace import Workspace, summary

T = TypeVar("T")


def run_checks(ws: Workspace, shell: Shell, only: str | None = None) -> None:
    """Run the chosen packs with the chosen calling policy; `only` (a rule id or a pack) re-runs just that
    and merges its findings into the review. The Checklist shows every selected rule live meanwhile."""
    if ws.snapshot is None or ws.connection is None:
        shell.notify(ws.not_connected(), severity="warning", markup=False)
        return
    if (waiting := ws.waiting()) is not None:  # the run's review is merged with the one being read
        shell.notify(waiting, markup=False)
        return
    plan = ws.run_plan(only)
    rules = ws.rules(plan)
    callers = [r.id for r in rules if "call" in r.modes]
    if callers and not ws.calls_chosen:  # the reviewer decides what call rules may call, once
        choose_checks(ws, shell, f"{len(callers)} of the selected rules call tools to check their results.", only)
        return
    # What exists now (the snapshot, the wire log, the screen) outlives the run: the collector stops scanning it.
    # Its full collections stop every thread, the app's too, for as long as they scan (0.85 s measured on 10,000
    # tools); the review is frozen too once made (below).
    gc.freeze()
    shell.status(f"running {only or 'the checklist'}…")
    ws.checking = True
    ws.unattended.clear()
    shell.post_message(ChecksStarted(rules, merging=bool(only and ws.review)))

    async def job(session: Session, snapshot: ServerSnapshot) -> None:
        seen = 0

        def progress(done: int, total: int, rule: Rule | None, findings: Sequence[Finding], slow: Slow | None) -> None:
            nonlocal seen
            shell.post_message(ChecksProgress(done, total, rule.id if rule else None, list(findings[seen:]), slow))
            seen = len(findings)
            # A rule's findings live as long as the review: out of the collector with them. Its full passes grew
            # with the findings made (0.03 s, then 0.1, then 0.18 s on 10,000 tools) and held every thread.
            gc.freeze()

        bridged = OnLoop(session, asyncio.get_running_loop())
        try:
            if plan.era == "both" and not only:  # each era on connections of its own (mcp_review.eras)
                made = await off_the_ui(lambda: run_check(ws.target, plan, progress))
            else:
                costs = ws.costs if ws.costs is not None and ws.costs.snapshot is snapshot else None  # counted once
                made = await off_the_ui(
                    lambda: review_session(cast(Session, bridged), snapshot, plan, progress, costs=costs)
                )
        finally:  # the app quit (this job is cancelled) or the rules are done: no rule asks the server any more
            bridged.close()
        review = ws.merged(made, only)
        # the last phase says what it does: on 10,000 tools it takes seconds
        shell.status(f"every rule done · saving the review ({len(review.findings):,} findings)…")
        await asyncio.wrap_future(ws.save(review))  # 100,000 findings take seconds to write: the files thread
        shell.status(f"every rule done · review saved · ordering {len(review.findings):,} findings…")
        # the Checklist's order, each subject's worst status and the verdict's counts: 0.3 s, 0.1 s and 0.1 s over
        # 110,000 findings, not on the app's loop
        order, worst, verdict = await asyncio.to_thread(
            lambda: (order_findings(review.findings), worst_by_subject(review), summary(review))
        )
        gc.freeze()
        shell.post_message(ChecksDone(review, order, worst, verdict, session.wire))

    ws.connection.submit(job)


def choose_checks(ws: Workspace, shell: Shell, why: str = "", only: str | None = None) -> None:
    """Packs and calling policy; consent before checks may call tools with side effects. Then run
    (`only`: the rule or pack whose re-run asked for it)."""

    def chosen(choice: Choice | None) -> None:
        if not choice:
            return
        packs, options, both, requests, fail_on = choice
        if options.calls != "all":
            ws.choose(packs, options, both, requests, fail_on)
            run_checks(ws, shell, only)
            return

        def consent(yes: bool | None) -> None:
            ws.choose(packs, options if yes else replace(options, calls="read-only"), both, requests, fail_on)
            run_checks(ws, shell, only)

        from mcp_review.rules.arguments import CALLS_SEND, PROBES_SEND

        probes = f" The {PROBES_SEND}." if options.probe else ""
        message = (
            "Checks may then call every tool, including ones that change or delete data. "
            f"The {CALLS_SEND}.{probes} Allow it?"
        )
        shell.ask(ConfirmScreen("Consent to call every tool", message, yes="Allow"), consent)

    options = ws.options if ws.calls_chosen else replace(ws.options, calls="read-only")
    estimate, gate = ws.call_estimate, ws.plan.fail_on
    shell.ask(RunScreen(ws.plan.packs, options, why, ws.plan.era == "both", ws.requests, estimate, gate), chosen)


QUIT = "the app quit while the checklist ran"


class OnLoop:
    """A session seen from another thread: its coroutine methods run on `loop` (the app's, where the session's
    transport and timeouts live) and are awaited from the caller's loop; attributes are read and set as they are.

    Once `close`d, or once the app's loop is closed, a call raises `CancelledError` (`QUIT`), which no rule catches,
    so the rules' thread ends at its next request. Not `asyncio.run_coroutine_threadsafe`: it needs the coroutine
    made in the calling thread, and when the app's loop is closed, or closes before running it, that coroutine is
    never awaited (Python's RuntimeWarning, and a rule error per rule until the thread saw its cancellation). Here
    the coroutine is made on the app's loop, only when it runs there, in the context this bridge was made in (the
    app's: a request the server answers with `input_required` opens a dialog, and a dialog needs the active app)."""

    def __init__(self, session: Session, loop: asyncio.AbstractEventLoop) -> None:
        object.__setattr__(self, "_session", session)
        object.__setattr__(self, "_loop", loop)
        object.__setattr__(self, "_closed", threading.Event())
        object.__setattr__(self, "_context", contextvars.copy_context())

    def close(self) -> None:
        """Calls not started on the app's loop yet never start; later ones raise `CancelledError` at once."""
        self._closed.set()

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._session, name)
        if name == "channel" and value is not None:  # a probe's bare request (`checks/spec`) goes through it
            return self._beside(value)
        if not inspect.iscoroutinefunction(value):
            return value

        @functools.wraps(value)
        async def on_loop(*args: Any, **kwargs: Any) -> Any:
            # cancelling this await cancels the call on the app's loop too
            return await asyncio.wrap_future(self._start(functools.partial(value, *args, **kwargs)))

        return on_loop

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._session, name, value)

    def _beside(self, other: Any) -> OnLoop:
        """`other` (the session's channel) bridged as the session is: its coroutine methods run on the app's loop,
        where its transport lives. Called on the rules' loop, a request waited there for an answer the app's loop
        would never hand it: each timed out (spec.request-meta: 107 s of a run on 10,000 tools, and blocking)."""
        bridge = object.__new__(OnLoop)
        for name in ("_loop", "_closed", "_context"):
            object.__setattr__(bridge, name, getattr(self, name))
        object.__setattr__(bridge, "_session", other)
        return bridge

    def _start(self, call: Callable[[], Coroutine[Any, Any, T]]) -> concurrent.futures.Future[T]:
        """`call()` run as a task on the app's loop; its outcome, or its cancellation by either side, in the future."""
        done: concurrent.futures.Future[T] = concurrent.futures.Future()

        def start() -> None:  # on the app's loop, which is running: the task made here is run
            if self._closed.is_set():
                done.cancel()
            if done.cancelled():  # the app quit, or the rule was cancelled before its call began
                return
            task = self._loop.create_task(call(), context=self._context.copy())
            task.add_done_callback(functools.partial(_settle, done))
            done.add_done_callback(lambda _: cancel_on(self._loop, task) if done.cancelled() else None)

        if self._closed.is_set():
            raise asyncio.CancelledError(QUIT)
        try:
            self._loop.call_soon_threadsafe(start)
        except RuntimeError as closed:  # the app's loop is closed
            raise asyncio.CancelledError(QUIT) from closed
        return done


def _settle(done: concurrent.futures.Future[T], task: asyncio.Task[T]) -> None:
    """Hand a finished task's outcome to the thread awaiting it (unless that thread gave up on it)."""
    if task.cancelled():
        done.cancel()
    if not done.set_running_or_notify_cancel():
        return
    if (error := task.exception()) is not None:
        done.set_exception(error)
    else:
        done.set_result(task.result())


def cancel_on(loop: asyncio.AbstractEventLoop, task: asyncio.Task[Any]) -> None:
    """Cancel `task` from another thread; on a closed loop it ended already."""
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(task.cancel)


async def off_the_ui(work: Callable[[], Awaitable[T]]) -> T:
    """Await `work()` run on an event loop of its own in a daemon thread (a quitting app does not wait for it);
    cancelling this await cancels it there, however early."""
    result: concurrent.futures.Future[T] = concurrent.futures.Future()
    started: concurrent.futures.Future[tuple[asyncio.AbstractEventLoop, asyncio.Task[T]]] = concurrent.futures.Future()

    async def main() -> T:
        started.set_result((asyncio.get_running_loop(), cast("asyncio.Task[T]", asyncio.current_task())))
        return await work()

    def run() -> None:
        if not result.set_running_or_notify_cancel():
            return
        try:
            result.set_result(asyncio.run(main()))
        except BaseException as e:  # handed to the awaiting task, which raises it
            result.set_exception(e)

    threading.Thread(target=run, daemon=True, name="checklist").start()
    try:
        return await asyncio.wrap_future(result)
    except asyncio.CancelledError:  # now if it has started, else as soon as it does
        started.add_done_callback(lambda _: cancel_on(*started.result()))
        raise
