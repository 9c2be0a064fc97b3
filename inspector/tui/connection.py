"""The connection worker: one task owns the session for its whole life (it enters and leaves it), and the
app's jobs wait on its queue. What it learns comes back to the app as messages (`Connected`,
`ConnectionLost`, and while it connects, `Connecting`: what it waits for, never a bare "connecting…" while a
server's dialog is up); what crosses the wire is appended to a list the app drains on a timer. A connection that
ends while no job runs (the server exits, or asks past the session's bound) is said at once, not at the next job."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json

from rich.text import Text
from textual.app import App
from textual.worker import Worker

from mcp_review.catalog import ServerSnapshot, take_snapshot
from mcp_review.connection import procs
from mcp_review.connection.channel import Budget
from mcp_review.connection.errors import ConnectionFailed
from mcp_review.connection.protocol import ClientHandlers
from mcp_review.connection.session import Session
from mcp_review.connection.wire import WireEntry, WireLog
from mcp_review.costs import Costs
from mcp_review.encodings import ENCODINGS
from mcp_review.targets import Target
from mcp_review.text import visible
from mcp_review.tokens import TokenCounter
from mcp_review.tui.messages import Connected, Connecting, ConnectionLost, Costed, Fetch, Show
from mcp_review.workspace import Job

CLOSE_WAIT = 5.0  # seconds the app waits for a connection to close when it quits
SAY_EVERY = 1.0  # seconds between two lines of what a connection still waits for
IDLE_CHECK = 0.5  # seconds between two looks, while no job runs, at whether the connection has ended


class Connection:
    """The session's worker and its job queue; `open` starts a new one, the old one ends on its own."""

    def __init__(self, app: App[None], handlers: ClientHandlers, counter: TokenCounter) -> None:
        self.app = app
        self.handlers = handlers
        self.counter = counter
        self.jobs: asyncio.Queue[Job | None] = asyncio.Queue()
        self.worker: Worker[None] | None = None
        self.wire = WireLog()  # every session of this server, reconnects too: one numbering (see `pairing`)
        self.fed = False  # the app's list of entries to show is subscribed to `wire`

    def open(self, target: Target, era: str, wire: list[WireEntry]) -> None:
        """Connect (again): the previous worker is told to stop and gets no more jobs; `wire` collects every
        entry of this server's sessions (the first list given: a reconnect appends to the same)."""
        self.stop()
        if not self.fed:
            self.wire.subscribe(wire.append)  # same loop: the app drains the list on a timer
            self.fed = True
        for encoding in ENCODINGS:  # built while the server starts and lists: the first figures count in all
            TokenCounter(encoding).preload()
        self.jobs = asyncio.Queue()
        self.worker = self.app.run_worker(  # its own group: a server being tried leaves the working one alone
            self._hold(target, era, self.jobs),
            group=f"connection-{id(self)}",
            exclusive=True,
            exit_on_error=False,
        )

    def stop(self) -> None:
        """The session ends after the job it is running (another server replaced it)."""
        self.jobs.put_nowait(None)

    def submit(self, job: Job) -> None:
        self.jobs.put_nowait(job)

    async def close(self) -> None:
        """Close the session in its own task before Textual cancels workers: no orphan server process.

        An idle connection closes at once; a busy one (a call, a question to the reviewer) is cancelled,
        which closes it too. Whatever still runs after that is killed by `procs` when the process exits.
        """
        self.stop()
        if self.worker is None:
            return
        for _ in range(2):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.worker.wait(), CLOSE_WAIT)
            if self.worker.is_finished:
                return
            self.worker.cancel()

    async def _hold(self, target: Target, era: str, jobs: asyncio.Queue[Job | None]) -> None:
        """Own the server connection for its whole life: enter and leave the session in this one task."""
        session = Session(target, era=era, handlers=self.handlers, wire=self.wire)  # type: ignore[arg-type]
        session.budget = Budget(4 * session.timeout)  # a listing of endless slow pages still ends
        saying = asyncio.ensure_future(self._say_waits(session))
        try:
            async with session:
                snapshot = await take_snapshot(session)
                saying.cancel()
                session.budget = None  # the reviewer's own calls wait as long as --timeout says
                # counted in a thread, so 10,000 tools do not freeze the screen (bench/tui.py measures the lag): the
                # default encoding before the first screen, the others after it (the Overview's totals follow)
                costs = Costs(snapshot)
                await asyncio.to_thread(costs.of, self.counter.encoding)
                # The listing lives as long as the session: the collector stops scanning it. Each of its full
                # passes over 10,000 tools' objects held every thread, the app's too, for 0.1-0.15 s (a key
                # waited that long). Freezing only stops cycle collection: the listing is freed when dropped.
                gc.freeze()
                self.app.post_message(Connected(snapshot, costs, self))
                self.app.run_worker(lambda: self._count_all(costs), thread=True, group="costs", exit_on_error=False)
                while (job := await self._next(jobs, session)) is not None:
                    await job(session, snapshot)
                    if session.failure is not None:  # the server died during the job: say so, offer reconnect
                        raise session.failure
        except ConnectionFailed as e:
            self.app.post_message(ConnectionLost(str(e), e.detail, self))
        finally:
            saying.cancel()
            procs.reap_strays(everything=False)  # what the server left detached (when mcp-review adopts orphans)

    @staticmethod
    async def _next(jobs: asyncio.Queue[Job | None], session: Session) -> Job | None:
        """The next job; a connection that ends meanwhile raises its failure (its reason is said now)."""
        getter = asyncio.ensure_future(jobs.get())
        try:
            while not getter.done():
                await asyncio.wait([getter], timeout=IDLE_CHECK)
                if session.failure is not None and not getter.done():
                    raise session.failure
            return getter.result()
        finally:
            getter.cancel()

    async def _say_waits(self, session: Session) -> None:
        """While the session opens and lists, say every second what it waits for and what the server asks."""
        while True:
            await asyncio.sleep(SAY_EVERY)
            line = waiting_line(session)
            if line:
                self.app.post_message(Connecting(line, self))

    def fetch(self, request: Fetch) -> None:
        """A request the reviewer asked for (read a resource, get a prompt); its result comes back as `Show`."""

        async def job(session: Session, _snapshot: ServerSnapshot) -> None:
            try:
                reply = await session.complete(request.method, request.params)
            except ConnectionFailed as e:
                if session.failure is not None:
                    raise  # the connection itself is gone
                # this request only: no answer in time, too many rounds, too many requests of the client
                self.app.post_message(Show(Text(visible(str(e)))))
                return
            error = Text(visible(json.dumps(reply.error)))
            self.app.post_message(Show(request.render(reply.result) if reply.error is None else error))

        self.submit(job)

    def _count_all(self, costs: Costs) -> None:
        """Every other encoding, in a thread worker of its own (jobs do not wait for it), then the app is told."""
        try:
            for encoding in ENCODINGS:
                costs.of(encoding)
        finally:
            self.app.post_message(Costed(costs))


def waiting_line(session: Session) -> str | None:
    """What an opening session waits for, in words: the request sent and how long ago, and what the server asked of
    the client meanwhile (its dialog does not hold the connection: the server's answer does)."""
    channel = session.channel
    oldest = channel.oldest() if channel is not None else None
    if oldest is None:
        return None
    method, waited, timeout = oldest
    line = f"connecting… no answer to {method} yet ({waited:.0f}s of {timeout:g}s)"
    if session.asked.total:
        line += (
            f" · the server asked the client meanwhile ({session.asked.counts()}): answering it does not end this"
            f" wait, the server's answer to {method} does"
        )
    return line
