"""Byte-level transports: stdio, Streamable HTTP and legacy HTTP+SSE.

A transport moves JSON-RPC text and records everything in the wire log before anything else sees it.
It knows nothing about MCP semantics; `RpcChannel` correlates ids and `Session` speaks the protocol.
Everything a server sends is untrusted: lines are size-capped, non-JSON stdout is kept as noise (never
fatal), and a dying server surfaces as one `ConnectionFailed` with its exit code and last stderr lines.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import ssl
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

from inspector.connection.errors import (
    AuthRequired,
    CommandNotFound,
    ConnectionFailed,
    HttpError,
    ServerExited,
)
from inspector.connection.wire import WireLog
from inspector.targets import Target, child_env

MAX_MESSAGE_BYTES = 128 * 1024 * 1024  # one message; larger ones are dropped with a note
MAX_LINE_CHARS = 4000  # stderr / noise lines are kept this long at most
STDERR_TAIL = 200


@dataclass(frozen=True)
class Delivery:
    """Where a received message came from: its wire entry, and the HTTP exchange and status if any."""

    seq: int
    exchange: int | None = None
    status: int | None = None
    for_id: Any = None  # over HTTP: the id of the request whose POST this came back on


MessageSink = Callable[[Any, Delivery], None]
ClosedSink = Callable[[ConnectionFailed], None]


def is_jsonrpc(obj: Any) -> bool:
    if isinstance(obj, list):
        return bool(obj) and all(isinstance(m, dict) and "jsonrpc" in m for m in obj)
    return isinstance(obj, dict) and "jsonrpc" in obj


class Transport(ABC):
    kind: str

    def __init__(self, target: Target, wire: WireLog) -> None:
        self.target = target
        self.wire = wire
        self.conn = wire.new_connection()
        self.on_message: MessageSink = lambda _m, _d: None
        self.on_closed: ClosedSink = lambda _e: None
        self.closing = False

    @abstractmethod
    async def start(self) -> None: ...

    @abstractmethod
    async def send(
        self,
        payload: Any,
        *,
        raw: str | None = None,
        headers: Mapping[str, str] | None = None,
        omit: Iterable[str] = (),
    ) -> None:
        """Send one message (or `raw` text as is). `headers`/`omit` adjust HTTP headers (probes)."""

    @abstractmethod
    async def aclose(self) -> None: ...

    def _record_send(self, payload: Any, text: str, exchange: int | None = None) -> None:
        if payload is None:
            self.wire.raw_send(self.conn, text, exchange)
        else:
            self.wire.message("send", self.conn, payload, text, exchange)

    def _receive_text(
        self, text: str, exchange: int | None = None, status: int | None = None, for_id: Any = None
    ) -> bool:
        """Parse one received text; deliver it if it is JSON-RPC, else keep it as noise. True if delivered."""
        try:
            msg = json.loads(text)
        except ValueError:
            self.wire.line("noise", self.conn, text[:MAX_LINE_CHARS])
            return False
        if not is_jsonrpc(msg):
            self.wire.line("noise", self.conn, text[:MAX_LINE_CHARS])
            return False
        entry = self.wire.message("recv", self.conn, msg, text, exchange)
        self.on_message(msg, Delivery(entry.seq, exchange, status, for_id))
        return True


# ------------------------------------------------------------------------------------------- stdio
class StdioTransport(Transport):
    kind = "stdio"

    def __init__(self, target: Target, wire: WireLog) -> None:
        super().__init__(target, wire)
        self.proc: asyncio.subprocess.Process | None = None
        self.stderr_tail: deque[str] = deque(maxlen=STDERR_TAIL)
        self._tasks: list[asyncio.Task[None]] = []
        self.exit_code: int | None = None
        self.shutdown: str | None = None  # how it ended: "exited after stdin closed in 0.1s", "SIGTERM", ...

    async def start(self) -> None:
        cmd = self.target.command or ""
        try:
            self.proc = await asyncio.create_subprocess_exec(
                cmd,
                *self.target.args,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=child_env(self.target),
                cwd=self.target.cwd,
                limit=MAX_MESSAGE_BYTES,
                start_new_session=True,  # its own process group: closing reaches grandchildren (npx -> node)
            )
        except FileNotFoundError as e:
            missing = cmd if not self.target.cwd or os.path.isdir(self.target.cwd) else self.target.cwd
            raise CommandNotFound(f"command not found: {missing}") from e
        except OSError as e:
            raise ConnectionFailed(f"cannot start {cmd}: {e.strerror or e}") from e
        self.wire.line("note", self.conn, f"started pid {self.proc.pid}: {self.target.label()}")
        self._tasks = [
            asyncio.create_task(self._read_stdout()),
            asyncio.create_task(self._read_stderr()),
        ]

    async def _lines(self, stream: asyncio.StreamReader) -> AsyncIterator[bytes]:
        while True:
            try:
                line = await stream.readuntil(b"\n")
            except asyncio.IncompleteReadError as e:
                if e.partial:
                    yield e.partial
                return
            except asyncio.LimitOverrunError:
                await self._discard_line(stream)
                continue
            yield line

    async def _discard_line(self, stream: asyncio.StreamReader) -> None:
        dropped = 0
        while True:
            chunk = await stream.read(1 << 20)
            if not chunk:
                break
            idx = chunk.find(b"\n")
            if idx >= 0:
                dropped += idx
                stream._buffer[:0] = chunk[idx + 1 :]  # type: ignore[attr-defined]  # put back what follows
                break
            dropped += len(chunk)
        self.wire.line("note", self.conn, f"dropped a stdout line of {dropped} bytes (limit {MAX_MESSAGE_BYTES})")

    async def _read_stdout(self) -> None:
        assert self.proc and self.proc.stdout
        async for line in self._lines(self.proc.stdout):
            text = line.decode("utf-8", errors="replace").rstrip("\r\n")
            if text.strip():
                self._receive_text(text)
        await self._exited()

    async def _read_stderr(self) -> None:
        assert self.proc and self.proc.stderr
        async for line in self._lines(self.proc.stderr):
            text = self.wire.redactor.text(line.decode("utf-8", errors="replace").rstrip("\r\n")[:MAX_LINE_CHARS])
            self.stderr_tail.append(text)
            self.wire.line("stderr", self.conn, text)

    async def _exited(self) -> None:
        assert self.proc
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.proc.wait(), 2)
        # Let the stderr reader drain what the process wrote before dying.
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(self._tasks[1]), 0.5)
        self.exit_code = self.proc.returncode
        if not self.closing:
            self.wire.line("note", self.conn, f"server closed stdout (exit code {self.exit_code})")
            self.on_closed(ServerExited(self.exit_code, list(self.stderr_tail)[-10:]))

    async def send(
        self,
        payload: Any,
        *,
        raw: str | None = None,
        headers: Mapping[str, str] | None = None,
        omit: Iterable[str] = (),
    ) -> None:
        assert self.proc and self.proc.stdin
        text = raw if raw is not None else json.dumps(payload, ensure_ascii=False)
        self._record_send(payload if raw is None else None, text)
        try:
            self.proc.stdin.write(text.encode() + b"\n")
            await self.proc.stdin.drain()
        except (BrokenPipeError, ConnectionResetError) as e:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.proc.wait(), 1)
            raise ServerExited(self.proc.returncode, list(self.stderr_tail)[-10:]) from e

    def _signal_group(self, sig: int) -> None:
        assert self.proc
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, sig)

    async def aclose(self, grace: float = 2.0) -> None:
        """Close stdin, wait, then SIGTERM, then SIGKILL (the whole process group): no orphans."""
        self.closing = True
        proc = self.proc
        if proc is None:
            return
        started = time.monotonic()
        if proc.returncode is None:
            with contextlib.suppress(Exception):
                assert proc.stdin
                proc.stdin.close()
                await proc.stdin.wait_closed()
            self.shutdown = await self._wait_or_signal(proc, grace)
        else:
            self.shutdown = "had already exited"
        self._signal_group(signal.SIGKILL)  # anything the server left behind in its group
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self.exit_code = proc.returncode
        took = time.monotonic() - started
        self.wire.line("note", self.conn, f"server stopped: {self.shutdown} (exit code {self.exit_code}, {took:.2f}s)")

    async def _wait_or_signal(self, proc: asyncio.subprocess.Process, grace: float) -> str:
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


# -------------------------------------------------------------------------------------------- HTTP
@dataclass
class SseEvent:
    event: str = "message"
    data: str = ""
    id: str | None = None
    retry: int | None = None


async def sse_events(lines: AsyncIterator[str]) -> AsyncIterator[SseEvent]:
    """Parse a text/event-stream (WHATWG rules, enough for MCP): data lines joined by newlines."""
    ev = SseEvent()
    data: list[str] = []
    async for line in lines:
        if line == "":
            if data or ev.id is not None or ev.event != "message":
                ev.data = "\n".join(data)
                yield ev
            ev, data = SseEvent(), []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            data.append(value)
        elif name == "event":
            ev.event = value
        elif name == "id":
            ev.id = value
        elif name == "retry" and value.isdigit():
            ev.retry = int(value)
    if data:
        ev.data = "\n".join(data)
        yield ev


@dataclass(frozen=True)
class HttpExchange:
    exchange: int
    status: int
    headers: dict[str, str]
    body: str

    def header(self, name: str) -> str | None:
        low = name.lower()
        return next((v for k, v in self.headers.items() if k.lower() == low), None)


def _causes(exc: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    while exc is not None and exc not in chain and len(chain) < 10:
        chain.append(exc)
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return chain


def _describe_http_failure(url: str, exc: Exception) -> ConnectionFailed:
    import httpx

    chain = _causes(exc)
    if any(isinstance(c, ssl.SSLError) for c in chain) or "SSL" in str(exc):
        return ConnectionFailed(f"TLS error connecting to {url}: {exc} (use --insecure or --ca FILE)")
    if any(isinstance(c, ConnectionRefusedError) for c in chain):
        return ConnectionFailed(f"cannot connect to {url}: connection refused")
    if isinstance(exc, httpx.ConnectError):
        return ConnectionFailed(f"cannot connect to {url}: {exc or type(exc).__name__}")
    if isinstance(exc, httpx.TimeoutException):
        return ConnectionFailed(f"timed out talking to {url}")
    return ConnectionFailed(f"HTTP failure talking to {url}: {type(exc).__name__}: {exc}")


class _HttpBase(Transport):
    """What Streamable HTTP and legacy SSE share: the client, headers, exchanges, body handling."""

    def __init__(self, target: Target, wire: WireLog) -> None:
        super().__init__(target, wire)
        import httpx

        verify: bool | ssl.SSLContext = (
            target.verify if isinstance(target.verify, bool) else (ssl.create_default_context(cafile=target.verify))
        )
        self.client = httpx.AsyncClient(
            verify=verify,
            timeout=httpx.Timeout(target.timeout, read=None),
            follow_redirects=False,
        )
        self.url = target.url or ""

    def base_headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        headers.update(self.target.headers)
        if self.target.bearer:
            headers["Authorization"] = f"Bearer {self.target.bearer}"
        return headers

    @staticmethod
    def _adjust(headers: dict[str, str], extra: Mapping[str, str] | None, omit: Iterable[str]) -> dict[str, str]:
        headers.update(extra or {})
        drop = {h.lower() for h in omit}
        return {k: v for k, v in headers.items() if k.lower() not in drop}

    def _log_request(self, exchange: int, method: str, url: str, headers: Mapping[str, str]) -> None:
        self.wire.http(self.conn, exchange, {"method": method, "url": url, "request_headers": dict(headers)})

    def _log_response(self, exchange: int, resp: Any) -> None:
        info = {
            "status": resp.status_code,
            "reason": resp.reason_phrase,
            "response_headers": dict(resp.headers),
        }
        self.wire.http(self.conn, exchange, info)

    async def _read_capped(self, resp: Any) -> str:
        chunks: list[bytes] = []
        size = 0
        async for chunk in resp.aiter_bytes():
            size += len(chunk)
            if size > MAX_MESSAGE_BYTES:
                self.wire.line("note", self.conn, f"response body over {MAX_MESSAGE_BYTES} bytes: dropped")
                return ""
            chunks.append(chunk)
        return b"".join(chunks).decode("utf-8", errors="replace")

    async def _consume(self, resp: Any, exchange: int, url: str, for_id: Any = None) -> None:
        """Deliver every JSON-RPC message in a response body; raise for an HTTP failure without one."""
        status = resp.status_code
        ctype = resp.headers.get("content-type", "")
        delivered = False
        body = ""
        if "text/event-stream" in ctype:
            async for event in sse_events(resp.aiter_lines()):
                if event.data.strip():
                    delivered |= self._receive_text(event.data, exchange, status, for_id)
        else:
            body = await self._read_capped(resp)
            if body.strip():
                delivered = self._receive_text(body, exchange, status, for_id)
        if status >= 400 and not delivered:
            if status == 401:
                raise AuthRequired(status, url, resp.headers.get("www-authenticate"), exchange)
            raise HttpError(status, url, body, exchange)

    async def _post(
        self, url: str, payload: Any, raw: str | None, headers: Mapping[str, str] | None, omit: Iterable[str]
    ) -> None:
        import httpx

        exchange = self.wire.new_exchange()
        text = raw if raw is not None else json.dumps(payload, ensure_ascii=False)
        hdrs = self._adjust(self.base_headers(), headers, omit)
        self._log_request(exchange, "POST", url, hdrs)
        self._record_send(payload if raw is None else None, text, exchange)
        try:
            async with self.client.stream("POST", url, content=text.encode(), headers=hdrs) as resp:
                self._log_response(exchange, resp)
                self._after_response(resp)
                for_id = payload.get("id") if isinstance(payload, dict) and "method" in payload else None
                await self._consume(resp, exchange, url, for_id)
        except httpx.HTTPError as e:
            raise _describe_http_failure(url, e) from e

    def _after_response(self, resp: Any) -> None:
        """Hook: Streamable HTTP keeps the session id."""

    async def exchange(
        self,
        method: str,
        url: str | None = None,
        *,
        headers: Mapping[str, str] | None = None,
        omit: Iterable[str] = (),
        body: str | None = None,
        read: bool = True,
    ) -> HttpExchange:
        """One plain HTTP request (probes: GET/DELETE, odd headers, well-known URLs), logged like the rest."""
        import httpx

        url = url or self.url
        exchange = self.wire.new_exchange()
        hdrs = self._adjust(self.base_headers(), headers, omit)
        self._log_request(exchange, method, url, hdrs)
        try:
            async with self.client.stream(method, url, headers=hdrs, content=body) as resp:
                self._log_response(exchange, resp)
                ctype = resp.headers.get("content-type", "")
                text = await self._read_capped(resp) if read and "text/event-stream" not in ctype else ""
                return HttpExchange(exchange, resp.status_code, dict(resp.headers), text)
        except httpx.HTTPError as e:
            raise _describe_http_failure(url, e) from e

    async def aclose(self) -> None:
        self.closing = True
        await self.client.aclose()


class HttpTransport(_HttpBase):
    """Streamable HTTP (2025-03-26 and later; the stateless shape of 2026-07-28 too)."""

    kind = "http"

    def __init__(self, target: Target, wire: WireLog) -> None:
        super().__init__(target, wire)
        self.session_id: str | None = None
        self.protocol_version: str | None = None  # sent as MCP-Protocol-Version once negotiated
        self._listener: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Nothing to open: every message is its own POST."""

    def base_headers(self) -> dict[str, str]:
        headers = super().base_headers()
        if self.protocol_version:
            headers["MCP-Protocol-Version"] = self.protocol_version
        if self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
        return headers

    def _after_response(self, resp: Any) -> None:
        sid = resp.headers.get("mcp-session-id")
        if sid and not self.session_id:
            self.session_id = sid

    async def send(
        self,
        payload: Any,
        *,
        raw: str | None = None,
        headers: Mapping[str, str] | None = None,
        omit: Iterable[str] = (),
    ) -> None:
        await self._post(self.url, payload, raw, headers, omit)

    def listen(self) -> None:
        """Open the optional GET stream for server-initiated messages (legacy era). 405 is fine."""
        if self._listener is None:
            self._listener = asyncio.create_task(self._listen())

    async def _listen(self) -> None:
        import httpx

        exchange = self.wire.new_exchange()
        hdrs = self._adjust(self.base_headers(), {"Accept": "text/event-stream"}, ["Content-Type"])
        self._log_request(exchange, "GET", self.url, hdrs)
        try:
            async with self.client.stream("GET", self.url, headers=hdrs) as resp:
                self._log_response(exchange, resp)
                if resp.status_code == 200 and "text/event-stream" in resp.headers.get("content-type", ""):
                    async for event in sse_events(resp.aiter_lines()):
                        if event.data.strip():
                            self._receive_text(event.data, exchange, resp.status_code)
        except (httpx.HTTPError, asyncio.CancelledError):
            return

    async def aclose(self) -> None:
        import httpx

        self.closing = True
        if self._listener:
            self._listener.cancel()
            await asyncio.gather(self._listener, return_exceptions=True)
        if self.session_id:
            exchange = self.wire.new_exchange()
            hdrs = self._adjust(self.base_headers(), None, ["Content-Type"])
            self._log_request(exchange, "DELETE", self.url, hdrs)
            with contextlib.suppress(httpx.HTTPError):
                resp = await self.client.delete(self.url, headers=hdrs, timeout=5)
                self._log_response(exchange, resp)
        await super().aclose()


class SseTransport(_HttpBase):
    """Legacy HTTP+SSE (2024-11-05): a GET event stream that names a POST endpoint."""

    kind = "sse"

    def __init__(self, target: Target, wire: WireLog) -> None:
        super().__init__(target, wire)
        self.endpoint: str | None = None
        self._ready: asyncio.Future[str] | None = None
        self._stream: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._ready = asyncio.get_running_loop().create_future()
        self._stream = asyncio.create_task(self._read_stream())
        try:
            self.endpoint = await asyncio.wait_for(asyncio.shield(self._ready), self.target.timeout)
        except TimeoutError as e:
            self._stream.cancel()
            raise ConnectionFailed(f"no 'endpoint' event from {self.url} within {self.target.timeout:g}s") from e

    async def _read_stream(self) -> None:
        import httpx

        assert self._ready
        exchange = self.wire.new_exchange()
        hdrs = self._adjust(self.base_headers(), {"Accept": "text/event-stream"}, ["Content-Type"])
        self._log_request(exchange, "GET", self.url, hdrs)
        try:
            async with self.client.stream("GET", self.url, headers=hdrs) as resp:
                self._log_response(exchange, resp)
                if resp.status_code != 200:
                    body = await self._read_capped(resp)
                    if resp.status_code == 401:
                        raise AuthRequired(401, self.url, resp.headers.get("www-authenticate"), exchange)
                    raise HttpError(resp.status_code, self.url, body, exchange)
                async for event in sse_events(resp.aiter_lines()):
                    if event.event == "endpoint" and not self._ready.done():
                        self._ready.set_result(urljoin(self.url, event.data.strip()))
                    elif event.data.strip():
                        self._receive_text(event.data, exchange, 200)
            failure: ConnectionFailed = ConnectionFailed(f"the server closed the SSE stream {self.url}")
        except ConnectionFailed as e:
            failure = e
        except httpx.HTTPError as e:
            failure = _describe_http_failure(self.url, e)
        except asyncio.CancelledError:
            return
        if not self._ready.done():
            self._ready.set_exception(failure)
        elif not self.closing:
            self.on_closed(failure)

    async def send(
        self,
        payload: Any,
        *,
        raw: str | None = None,
        headers: Mapping[str, str] | None = None,
        omit: Iterable[str] = (),
    ) -> None:
        assert self.endpoint
        await self._post(self.endpoint, payload, raw, headers, omit)

    async def aclose(self) -> None:
        self.closing = True
        if self._stream:
            self._stream.cancel()
            await asyncio.gather(self._stream, return_exceptions=True)
        await super().aclose()


def make_transport(target: Target, wire: WireLog) -> Transport:
    if target.kind == "stdio":
        return StdioTransport(target, wire)
    if target.kind == "sse":
        return SseTransport(target, wire)
    return HttpTransport(target, wire)
