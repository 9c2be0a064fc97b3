"""The stdio transport: a server process, one JSON-RPC message per line on its stdin and stdout.

Every wait is bounded: a write to a server that stops reading its input fails after the request timeout, or
at once when LIMITS.write_buffer bytes already wait (and fails the connection: a server that does not read
cannot be talked to, and what waits for it must not grow), closing never blocks on a
full pipe, and a reader that dies says why and fails every pending request at once. Closing ends the
server and everything it started (see `procs`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import AsyncIterator
from typing import Any, NoReturn

from mcp_review import sandbox
from mcp_review.connection import procs
from mcp_review.connection.errors import CommandNotFound, ConnectionFailed, ServerExited
from mcp_review.connection.transport import MAX_LINE_CHARS, MAX_MESSAGE_BYTES, PLAIN, Outgoing, Transport
from mcp_review.connection.wire import WireLog
from mcp_review.limits import LIMITS
from mcp_review.targets import Target
from mcp_review.untrusted import safe_text

STDERR_TAIL = 200
YIELD_EVERY = 64  # lines read before the reader lets other tasks run
# Once the server has sent more chatter than is kept (`WireLog.flooded`), a reader pauses this long every
# YIELD_EVERY lines: at most 64,000 lines a second. A flood read as fast as the server writes it took most of the
# loop, and the app's screen, sharing it, answered a key in seconds; an answer behind the flood waits for the
# lines ahead of it in the pipes (~600 KB: tens of ms at that pace).
PACE = 0.001
DRAIN_GRACE = 0.5  # after the process exits, how long stdout may still deliver what it wrote
# What a pipe's reader buffers before it stops reading (asyncio pauses at twice its limit). A line may be longer:
# `_lines` gathers it past the limit. Were the limit the largest message (32 MB), a flood would sit 32-64 MB deep
# in the buffer: every answer waited behind it, and each read copied the buffer to grow it.
BUFFERED = 512 * 1024


def abort(pipe: asyncio.WriteTransport) -> None:
    """Drop what waits to be written to a pipe and close it, unless its end is already on its way. asyncio's pipe
    transport does not check: an abort after its peer closed the pipe, after another abort, or after a close with
    nothing left to write runs its end twice, and the second prints a traceback from the loop (`'NoneType' object
    has no attribute 'close'`). Its end is on its way exactly when it is closing with nothing buffered: a close
    that still waits on bytes has not scheduled it, and an abort is what ends that wait."""
    if not pipe.is_closing() or pipe.get_write_buffer_size():
        pipe.abort()


class ServerProcess:
    """A server process `procs.launch` started, seen as `asyncio.create_subprocess_exec` shows one: its pipes as
    streams (the same pipe transports asyncio makes) and an awaitable exit. Its exit is awaited on a thread, as
    asyncio's own `ThreadedChildWatcher` does, so a process started before the event loop existed is adopted."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.pid = process.pid
        self.returncode: int | None = None
        self._exited = asyncio.Event()
        self.stdin: asyncio.StreamWriter
        self.stdout = asyncio.StreamReader(limit=BUFFERED)
        self.stderr = asyncio.StreamReader(limit=BUFFERED)
        self._pipes: list[asyncio.BaseTransport] = []

    async def adopt(self) -> None:
        loop = asyncio.get_running_loop()
        await self._read(loop, self.stdout, self.process.stdout)
        await self._read(loop, self.stderr, self.process.stderr)
        writing = asyncio.StreamReaderProtocol(asyncio.StreamReader())  # drain and wait_closed, nothing read
        transport, _ = await loop.connect_write_pipe(lambda: writing, self.process.stdin)
        self._pipes.append(transport)
        self.stdin = asyncio.StreamWriter(transport, writing, None, loop)
        threading.Thread(target=self._wait, args=(loop,), daemon=True, name=f"server {self.pid}").start()

    async def _read(self, loop: asyncio.AbstractEventLoop, reader: asyncio.StreamReader, pipe: Any) -> None:
        protocol = asyncio.StreamReaderProtocol(reader)
        transport, _ = await loop.connect_read_pipe(lambda: protocol, pipe)
        self._pipes.append(transport)

    def _wait(self, loop: asyncio.AbstractEventLoop) -> None:
        code = self.process.wait()
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits any more
            loop.call_soon_threadsafe(self._exit, code)

    def _exit(self, code: int) -> None:
        self.returncode = code
        self._exited.set()

    async def wait(self) -> int:
        await self._exited.wait()
        assert self.returncode is not None
        return self.returncode

    def close(self) -> None:
        """Close the pipes now, not when a collector gets to them after the loop is gone."""
        for pipe in self._pipes:
            pipe.close()


class StdioTransport(Transport):
    kind = "stdio"

    def __init__(self, target: Target, wire: WireLog, launched: procs.Launched | None = None) -> None:
        super().__init__(target, wire)
        self.proc: ServerProcess | None = None
        self.stderr_tail: deque[str] = deque(maxlen=STDERR_TAIL)
        self._tasks: list[asyncio.Task[None]] = []
        self.exit_code: int | None = None
        self.shutdown: str | None = None  # how it ended: "exited after stdin closed in 0.1s", "SIGTERM", ...
        self.launched = launched  # started already (`procs.launch`): `start` adopts it
        self.token: str | None = None  # the server's marker (`procs.MARK`), once started
        self.failure: ConnectionFailed | None = None
        self.unread = 0  # bytes of stdout after the connection failed: drained and counted, not parsed
        self.ran: sandbox.Ran | None = None  # how the server runs (confined, observed), once started
        self._trace: sandbox.Trace | None = None  # what strace writes about it, read as it comes

    async def start(self) -> None:
        cmd = self.target.command or ""
        launched, self.launched = self.launched or procs.launch(self.target), None
        self.token, error = launched.token, launched.error
        if isinstance(error, FileNotFoundError):
            missing = cmd if not self.target.cwd or os.path.isdir(self.target.cwd) else self.target.cwd
            raise CommandNotFound(f"command not found: {missing}") from error
        if error is not None:
            raise ConnectionFailed(f"cannot start {cmd}: {error.strerror or error}") from error
        assert launched.process is not None
        proc = ServerProcess(launched.process)
        await proc.adopt()
        self.proc = proc
        self.note(f"started pid {self.proc.pid}: {self.target.label()}")
        if launched.ran is not None:
            self.ran, self._trace = launched.ran, launched.trace
            self.wire.launched(self.conn, launched.ran, self._observe if self._trace else None)
            if self._trace is not None and self._trace.fd is not None:
                asyncio.get_running_loop().add_reader(self._trace.fd, self._observe)
        self._tasks = [
            asyncio.create_task(self._guarded(self._read_stdout(), "the server's stdout")),
            asyncio.create_task(self._guarded(self._read_stderr(), "the server's stderr")),
            asyncio.create_task(self._guarded(self._watch_exit(), "the server process")),
        ]

    def _observe(self) -> None:
        """Record what strace has reported of the server so far."""
        if self._trace is not None and self.ran is not None:
            for event in self._trace.read():
                self.wire.event(self.conn, event, self.ran.layout)

    def _unobserve(self) -> None:
        """The process has ended: record the rest of what it did, and stop reading its trace."""
        trace, self._trace = self._trace, None
        if trace is None or self.ran is None:
            return
        if trace.fd is not None:
            with contextlib.suppress(RuntimeError, ValueError):  # the loop is closing
                asyncio.get_running_loop().remove_reader(trace.fd)
        for event in trace.close():
            self.wire.event(self.conn, event, self.ran.layout)
        self.wire.unobserved(self.conn)

    def _fail(self, failure: ConnectionFailed) -> None:
        """The connection is over: say why once, and let the channel fail everything pending."""
        if self.failure is None:
            self.failure = failure
            if not self.closing:
                self.note(str(failure))
                self.on_closed(failure)

    async def _guarded(self, work: Any, what: str) -> None:
        try:
            await work
        except asyncio.CancelledError:
            raise
        except Exception as e:  # a reader must never die silently: every pending request would wait
            self._fail(ConnectionFailed(f"mcp-review stopped reading {what}: {type(e).__name__}: {e}"))

    async def _lines(self, stream: asyncio.StreamReader, cut: int | None = None) -> AsyncIterator[bytes]:
        """Each line (the last one may have no newline). With `cut`, only its first `cut` bytes are kept (stderr);
        without, a line over MAX_MESSAGE_BYTES is dropped with a note. Memory stays within what is kept. Every
        YIELD_EVERY lines the other tasks run (a flood is read from a full buffer without ever waiting), after a
        pause once the server floods (PACE)."""
        keep = cut or MAX_MESSAGE_BYTES
        count = 0
        parts: list[bytes] = []  # a line longer than the reader's buffer: the pieces kept so far
        size = 0  # its length so far, kept or not
        while True:
            try:
                piece, ended = await stream.readuntil(b"\n"), True
            except asyncio.IncompleteReadError as e:
                piece, ended = e.partial, False
            except asyncio.LimitOverrunError as e:  # the bytes it names hold no newline: keep them, read on
                piece = await stream.readexactly(e.consumed)
                parts.append(piece[: max(0, keep - size)])
                size += len(piece)
                continue
            size += len(piece)
            if cut is None and size > MAX_MESSAGE_BYTES:
                self.note(f"dropped an output line of {size:,} bytes (limit {MAX_MESSAGE_BYTES:,})")
            elif size:
                yield b"".join([*parts, piece[: max(0, keep - size + len(piece))]]) if parts else piece[:keep]
            if not ended:
                return
            parts, size, count = [], 0, count + 1
            if count % YIELD_EVERY == 0:
                await asyncio.sleep(PACE if self.wire.flooded else 0)

    async def _read_stdout(self) -> None:
        assert self.proc and self.proc.stdout
        async for line in self._lines(self.proc.stdout):
            if self.failure is not None:  # nothing can use it now (every request failed): drained, so the server is
                self.unread += len(line)  # not blocked on a full pipe, but a flood is not parsed (no-read-flood: 2 s)
                continue
            end = len(line)
            while end and line[end - 1] in b"\r\n":
                end -= 1
            text = str(memoryview(line)[:end], "utf-8", "replace")  # one copy of a line that may be 32 MB
            del line
            if text.strip():
                self._observe()  # what the server did before it answered is recorded before the answer
                self._receive_text(text)
        await self._exited("closed stdout")

    async def _read_stderr(self) -> None:
        assert self.proc and self.proc.stderr
        async for line in self._lines(self.proc.stderr, cut=MAX_LINE_CHARS * 4):
            raw = line.decode("utf-8", errors="replace").rstrip("\r\n")[:MAX_LINE_CHARS]
            text = safe_text(raw, self.wire.redactor)
            self.stderr_tail.append(text)
            self.wire.line("stderr", self.conn, text)

    async def _watch_exit(self) -> None:
        """The process may exit while a child of it keeps stdout open: notice it anyway."""
        assert self.proc
        await self.proc.wait()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._tasks[0]), DRAIN_GRACE)
        await self._exited("exited")

    async def _exited(self, how: str) -> None:
        assert self.proc
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.proc.wait(), 2)
        # Let the stderr reader drain what the process wrote before dying.
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(self._tasks[1]), DRAIN_GRACE)
        self.exit_code = self.proc.returncode
        if self.failure is None and not self.closing:
            self.note(f"server {how} (exit code {self.exit_code})")
        self._fail(ServerExited(self.exit_code, list(self.stderr_tail)[-10:], self._confined_hint()))

    def _confined_hint(self) -> str:
        """What the confinement kept from a server that ended before it first answered (`Ran.hint`)."""
        if self.ran is None or self.wire.answered_on(self.conn):
            return ""
        self._observe()
        return self.ran.hint([e.event for e in self.wire.events({self.conn}) if e.event])

    async def send(self, payload: Any, how: Outgoing = PLAIN) -> None:
        assert self.proc and self.proc.stdin
        if self.failure is not None:
            raise self.failure
        if self.closing:
            raise ConnectionFailed("the connection to the server is closing")
        if self.proc.stdin.is_closing():  # the pipe is gone: writing would only log warnings
            await self._gone()
        data = self._record_send(payload, how).encode() + b"\n"
        waiting = self.proc.stdin.transport.get_write_buffer_size()
        if waiting and waiting + len(data) > LIMITS.write_buffer:  # one message alone may exceed it: it waits alone
            self._stopped_reading(f"{waiting:,} bytes already wait to be written (cap {LIMITS.write_buffer:,})")
        try:
            self.proc.stdin.write(data)
            del data
            await asyncio.wait_for(self.proc.stdin.drain(), self.target.timeout)
        except TimeoutError:
            self._stopped_reading(f"a write waited {self.target.timeout:g}s")
        except (BrokenPipeError, ConnectionResetError):
            await self._gone()

    def _stopped_reading(self, how: str) -> NoReturn:
        """The server does not read what is sent to it: the connection ends (what waits is not kept growing)."""
        failure = ConnectionFailed(f"the server stopped reading its input ({how})")
        self._fail(failure)
        assert self.proc and self.proc.stdin
        abort(self.proc.stdin.transport)  # the buffered bytes go now, not when the process is gone
        raise failure from None

    async def _gone(self) -> None:
        """The server's input is closed: say how it ended (its exit code and last stderr lines)."""
        assert self.proc
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.proc.wait(), 1)
        raise ServerExited(self.proc.returncode, list(self.stderr_tail)[-10:])

    def _signal_group(self, sig: int) -> None:
        assert self.proc
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, sig)

    async def aclose(self, grace: float = 2.0) -> None:
        """Close stdin, wait, then SIGTERM, then SIGKILL (the group, and everything the server started)."""
        self.closing = True
        proc = self.proc
        if proc is None:
            return
        grace = min(grace, self.target.timeout)
        started = time.monotonic()
        if proc.returncode is None:
            await self._close_stdin(proc, grace)
            self.shutdown = await self._wait_or_signal(proc, grace)
        else:
            self.shutdown = "had already exited"
        # Whatever the server left behind, however it detached. On a thread: the scan reads /proc, and beside a
        # flood and the rules' thread it held the loop (the app's screen) 1 to 1.2 s per server stop.
        await asyncio.to_thread(procs.kill_tree, proc.pid, self.token)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proc.wait(), grace)
        self._unobserve()
        proc.close()
        procs.unregister(proc.pid)
        self.exit_code = proc.returncode
        took = time.monotonic() - started
        if self.unread:
            self.note(f"{self.unread:,} bytes of output after the connection failed were counted, not read")
        self.note(f"server stopped: {self.shutdown} (exit code {self.exit_code}, {took:.2f}s)")

    @staticmethod
    async def _close_stdin(proc: ServerProcess, grace: float) -> None:
        """Close the server's input; a pipe the server stopped reading is aborted, not waited for."""
        stdin = proc.stdin  # always there: `ServerProcess.adopt` made it
        with contextlib.suppress(Exception):
            stdin.close()
            await asyncio.wait_for(asyncio.shield(stdin.wait_closed()), grace / 4)  # shield: asyncio sets it later
        if stdin.transport.get_write_buffer_size():
            abort(stdin.transport)

    async def _wait_or_signal(self, proc: ServerProcess, grace: float) -> str:
        for how, sig in (
            ("exited after stdin closed", None),
            ("SIGTERM", signal.SIGTERM),
            ("SIGKILL", signal.SIGKILL),
        ):
            if sig is not None:
                self._signal_group(sig)
            try:
                await asyncio.wait_for(proc.wait(), grace)
                return how
            except TimeoutError:
                continue
        return "did not exit"
