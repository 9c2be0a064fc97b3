"""JSON-RPC over one transport: ids, pending requests, timeouts, and requests from the server.

It returns raw messages (dicts as sent by the server): judging them is the caller's business. The
session and the raw prober both sit on this class, so correlation logic exists once.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcp_review.connection.errors import ConnectionFailed, ProtocolError, RequestTimeout, Unresponsive
from mcp_review.connection.transport import PLAIN, Delivery, Outgoing, Transport
from mcp_review.connection.wire import WireLog
from mcp_review.targets import Target

if TYPE_CHECKING:
    from mcp_review.connection.procs import Launched

CANCEL_GRACE = 1.0  # at most this long to tell the server a request was abandoned
MAX_UNMATCHED = 1000  # responses nobody asked for, kept for probes
# Requests in a row that may time out on one connection, with no answer to anything meanwhile, before no more is
# sent there until the server answers something: a server stuck in one call (or a loop) answers nothing after
# it, and a check waited a whole timeout for each of its requests (9 in a row against a flood of progress).
UNANSWERED = 2
RequestHandler = Callable[[dict[str, Any], Delivery], Awaitable[dict[str, Any]]]
Admission = Callable[[dict[str, Any], Delivery], bool]  # may this request of the server's be answered?
NotificationHandler = Callable[[dict[str, Any], Delivery], None]


def make_transport(target: Target, wire: WireLog, launched: Launched | None = None) -> Transport:
    """The transport `target` names, chosen here, one layer above the transports (as the mcp SDK's client and httpx
    do), so the base class never knows its subclasses. Imported lazily: a stdio review never loads httpx.
    `launched`: a stdio target's server, already started (`procs.launch`)."""
    if target.kind == "stdio":
        from mcp_review.connection.stdio import StdioTransport

        return StdioTransport(target, wire, launched)
    assert launched is None, "only a stdio server is launched ahead"
    if target.kind == "sse":
        from mcp_review.connection.sse import SseTransport

        return SseTransport(target, wire)
    from mcp_review.connection.http import HttpTransport

    return HttpTransport(target, wire)


class BudgetSpent(ConnectionFailed):
    """The overall time allowed for a run of requests is used up."""


class Budget:
    """One overall deadline for a run of requests (a listing, a check, a command) that grows with their number.

    It starts at `seconds`; every request adds `per_request`. A server that answers each request within
    about `per_request` never runs out; one that is slow or silent uses it up, and every later request
    fails at once (`BudgetSpent`) instead of waiting its own timeout: timeouts cannot add up.
    """

    def __init__(self, seconds: float, per_request: float = 1.0) -> None:
        self.seconds = seconds
        self.per_request = per_request
        self.ends = time.monotonic() + seconds
        self.requests = 0
        # methods a request of which got an event stream that ran to its timeout without the answer, and why: not
        # waited for again in this run, on any of its connections (a server that streams forever for every
        # tools/call would otherwise hold each later call, and the run, for a whole timeout each)
        self.stalled: dict[str, str] = {}

    @property
    def spent(self) -> bool:
        return time.monotonic() >= self.ends

    def exhausted(self) -> str:
        return (
            f"the time budget is spent ({self.seconds:g}s + {self.per_request:g}s for each of {self.requests} "
            "requests): the server answers too slowly (raise it with --budget, or --timeout)"
        )

    def clip(self, timeout: float) -> float:
        """The timeout one more request may use; raises `BudgetSpent` when nothing is left."""
        left = self.ends - time.monotonic()
        if left <= 0:
            raise BudgetSpent(self.exhausted())
        self.requests += 1
        self.ends += self.per_request
        return min(timeout, left + self.per_request)


class HandlerError(Exception):
    """Raised by a request handler to answer with a JSON-RPC error."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_json(self) -> dict[str, Any]:
        err: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            err["data"] = self.data
        return err


@dataclass(frozen=True)
class Reply:
    """A response message as received, where it came from, and how long it took."""

    message: dict[str, Any]
    delivery: Delivery
    latency: float

    @property
    def seq(self) -> int:
        return self.delivery.seq

    @property
    def error(self) -> dict[str, Any] | None:
        return self.message.get("error", None)

    @property
    def result(self) -> Any:
        return self.message.get("result")

    def echo(self, key: str) -> Any:
        """`result[key]` as the server sent it, to send back (a page's cursor, a state): the result shows it as the
        review keeps it, cut or masked (`untrusted.raw_echoes`)."""
        if key in self.delivery.echoes:
            return self.delivery.echoes[key]
        return self.result.get(key) if isinstance(self.result, dict) else None


class RpcChannel:
    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        self.wire = transport.wire
        transport.on_message = self._on_message
        transport.on_closed = self._on_closed
        transport.on_dropped = self._on_dropped
        self._pending: dict[Any, asyncio.Future[Reply]] = {}
        self._asked: dict[Any, tuple[str, float, float]] = {}  # pending id -> (method, sent at, timeout)
        self._ids = itertools.count(1)
        self._tasks: set[asyncio.Task[Any]] = set()
        self._answering: dict[Any, asyncio.Task[Any]] = {}  # the server's requests being answered, by id
        self.failure: ConnectionFailed | None = None
        self.on_request: RequestHandler | None = None
        self.admit: Admission | None = None  # asked before a server's request is answered (the session's bound)
        self.on_notification: NotificationHandler | None = None
        self.on_abandon: Callable[[Any, str, str], Awaitable[None]] | None = None  # timed out or cancelled
        self.unmatched: list[tuple[Any, Delivery]] = []  # responses nobody asked for (probes read these)
        self.budget: Budget | None = None  # an overall deadline shared with other requests, if any
        self.unanswered = 0  # requests in a row that timed out with no answer to anything since (see UNANSWERED)

    @property
    def conn(self) -> int:
        return self.transport.conn

    async def start(self) -> None:
        await self.transport.start()

    def next_id(self) -> int:
        return next(self._ids)

    # ------------------------------------------------------------------------------------ sending
    async def request(
        self,
        method: str,
        params: Any = None,
        *,
        timeout: float,
        rpc_id: Any = None,
        message: dict[str, Any] | None = None,
        how: Outgoing = PLAIN,
    ) -> Reply:
        """Send a request and wait for the response with the same id (an error response is returned too)."""
        if self.failure:
            raise self.failure
        rid = self.next_id() if rpc_id is None else rpc_id
        if message is None:
            message = {"jsonrpc": "2.0", "id": rid, "method": method}
            if params is not None:
                message["params"] = params
        else:
            rid = message.get("id", rid)
        if self.budget is not None and method in self.budget.stalled:
            raise ConnectionFailed(self.budget.stalled[method])
        if self.unanswered >= UNANSWERED:
            self.wire.line("note", self.conn, f"{method} not sent: {self.unanswered} requests in a row went unanswered")
            raise Unresponsive(method, timeout, self.unanswered)
        if self.budget is not None:
            timeout = self.budget.clip(timeout)
        fut: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        started = time.monotonic()
        self._asked[rid] = (method, started, timeout)
        sender = self._spawn(self.transport.send(message, how))
        sender.add_done_callback(lambda t: self._send_done(t, fut))
        try:
            reply = await asyncio.wait_for(asyncio.shield(fut), timeout)
        except TimeoutError:
            if rid in self.transport.streaming and self.budget is not None:  # it kept sending, never the answer
                self.budget.stalled[method] = _stalled(method, timeout)
            await self._abandon(sender, fut, rid, method, f"no answer to {method} in time")
            self.unanswered += 1
            raise RequestTimeout(method, timeout) from None
        except asyncio.CancelledError:
            await self._abandon(sender, fut, rid, method, "cancelled by the reviewer")
            raise
        finally:
            self._pending.pop(rid, None)
            self._asked.pop(rid, None)
        return Reply(reply.message, reply.delivery, time.monotonic() - started)

    def oldest(self) -> tuple[str, float, float] | None:
        """The request waited on longest: (method, seconds waited, its timeout), or None when none waits."""
        if not self._asked:
            return None
        method, sent, timeout = min(self._asked.values(), key=lambda asked: asked[1])
        return method, time.monotonic() - sent, timeout

    async def _abandon(
        self, sender: asyncio.Task[Any], fut: asyncio.Future[Reply], rid: Any, method: str, reason: str
    ) -> None:
        """Stop waiting for a request, and tell the server (notifications/cancelled) where the protocol allows."""
        sender.cancel()
        fut.cancel()
        if self.on_abandon and not self.failure:
            with contextlib.suppress(ConnectionFailed, OSError, TimeoutError):
                await asyncio.wait_for(self.on_abandon(rid, method, reason), CANCEL_GRACE)

    @staticmethod
    def _send_done(task: asyncio.Task[None], fut: asyncio.Future[Reply]) -> None:
        if task.cancelled() or fut.done():
            return
        exc = task.exception()
        if exc is not None:
            fut.set_exception(exc)

    async def send(self, message: Any = None, how: Outgoing = PLAIN) -> None:
        """Send a notification, a response, or raw text (`how.raw`); nothing is awaited back."""
        if self.failure:
            raise self.failure
        await self.transport.send(message, how)

    async def notify(self, method: str, params: Any = None) -> None:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        await self.send(msg)

    # ---------------------------------------------------------------------------------- receiving
    def _on_message(self, msg: Any, delivery: Delivery) -> None:
        for one in msg if isinstance(msg, list) else [msg]:
            self._dispatch(one, delivery)

    def _dispatch(self, msg: Any, delivery: Delivery) -> None:
        if not isinstance(msg, dict):
            return
        if "method" in msg:
            if "id" in msg:
                if self.failure is None and (self.admit is None or self.admit(msg, delivery)):
                    self._answer_later(msg, delivery)
                return
            if msg["method"] == "notifications/cancelled":
                self._withdrawn(msg.get("params"))
            if self.on_notification:
                self.on_notification(msg, delivery)
            return
        rid = msg.get("id")
        self.unanswered = 0  # the server answers (late, or what nobody asked, still shows it reads and answers)
        fut = self._pending.get(rid) if _is_id(rid) else None
        if fut is None and "error" in msg and delivery.for_id is not None:
            # An error on the POST of a request answers that request, whatever id it carries: null when the
            # server could not read ours, "server-error" from mcp 1.x servers. Waiting for an answer with our
            # id would turn the server's error into a timeout.
            fut = self._pending.get(delivery.for_id)
            if fut is not None and rid != delivery.for_id:
                self.wire.line(
                    "note", self.conn, f"error #{delivery.seq} (id {rid!r:.80}) answers request {delivery.for_id!r}"
                )
        if fut is not None and not fut.done():
            fut.set_result(Reply(msg, delivery, 0.0))
        elif len(self.unmatched) < MAX_UNMATCHED:
            self.unmatched.append((msg, delivery))
            self.wire.line("note", self.conn, f"response #{delivery.seq} matches no pending request (id {rid!r:.80})")

    def _on_dropped(self, rid: Any, why: str) -> None:
        """A message too big to keep seemed to answer `rid`: fail that request now, rather than at its timeout."""
        fut = self._pending.get(rid) if _is_id(rid) else None
        if fut is not None and not fut.done():
            fut.set_exception(ProtocolError(f"the server's answer was not kept: {why}"))

    def _answer_later(self, msg: dict[str, Any], delivery: Delivery) -> None:
        """Answer a server request in its own task, kept by id until it ends so the server can withdraw it."""
        rid = msg.get("id")
        task = self._spawn(self._answer(msg, delivery))
        if _is_id(rid):
            self._answering[rid] = task
            task.add_done_callback(lambda _t: self._answering.get(rid) is task and self._answering.pop(rid))

    def _withdrawn(self, params: Any) -> None:
        """notifications/cancelled for one of the server's requests: stop answering it (its handler, a dialog
        in the app, is cancelled) and send nothing back, as the spec says."""
        rid = params.get("requestId") if isinstance(params, dict) else None
        task = self._answering.get(rid) if _is_id(rid) else None
        if task is not None:
            task.cancel()

    async def _answer(self, msg: dict[str, Any], delivery: Delivery) -> None:
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": msg.get("id")}
        try:
            if self.on_request is None:
                raise HandlerError(-32601, f"Method not found: {msg.get('method')}")
            reply["result"] = await self.on_request(msg, delivery)
        except HandlerError as e:
            reply["error"] = e.to_json()
        except Exception as e:  # a handler bug must not kill the connection: answer, and say what broke
            reply["error"] = {"code": -32603, "message": f"client error: {type(e).__name__}: {e}"}
        with contextlib.suppress(ConnectionFailed):
            await self.send(reply)

    def end(self, failure: ConnectionFailed) -> None:
        """End the connection from this side: every pending request fails with `failure`, nothing more is sent
        or answered, and the server's requests being answered are dropped (their dialogs close)."""
        self._on_closed(failure)
        for task in list(self._answering.values()):
            task.cancel()

    def _on_closed(self, failure: ConnectionFailed) -> None:
        if self.failure is None:
            self.failure = failure
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(failure)

    def _spawn(self, coro: Awaitable[Any]) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(_consume_exception)
        return task

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.transport.aclose()


def _stalled(method: str, timeout: float) -> str:
    return (
        f"no answer to {method} within {timeout:g}s: an earlier {method} got an event stream that kept sending for "
        f"{timeout:g}s and never answered, so no {method} is waited for again in this run (a longer --timeout waits "
        "longer)"
    )


def _is_id(value: Any) -> bool:
    """A JSON-RPC id we could have sent: a string or an integer (true is not 1)."""
    return isinstance(value, str | int) and not isinstance(value, bool)


def _consume_exception(task: asyncio.Task[Any]) -> None:
    if not task.cancelled():
        task.exception()  # retrieved: reported through the request future, never "never retrieved"
