"""HTTP transports: what Streamable HTTP and legacy SSE (`sse.py`) share, and Streamable HTTP (2025-03-26
on, and the stateless shape of 2026-07-28).

All requests go through one `egress.guarded_client` per connection: only the target's origin, no
redirects, nothing from the environment. Bodies and event streams are read in bounded pieces (a line,
an event, a body: MAX_MESSAGE_BYTES each), plain requests have one overall deadline, and header values
that came from a server are checked before they are sent back.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

from mcp_review.connection.egress import guarded_client, header_safe, same_origin, session_id_valid
from mcp_review.connection.errors import AuthRequired, ConnectionFailed, HttpError, ProtocolError
from mcp_review.connection.eventstream import capped_lines, sse_events
from mcp_review.connection.transport import MAX_MESSAGE_BYTES, PLAIN, Outgoing, Transport
from mcp_review.connection.wire import Refusal, WireLog
from mcp_review.targets import Target
from mcp_review.untrusted import safe_text

BODY_SNIPPET = 2000  # characters of a failed response's body kept for the error
SSE_KEPT = 3  # per stream: the events that carry no message (priming, `retry`), in the wire log for spec rules
_EVENT_STREAM = Outgoing(headers={"Accept": "text/event-stream"}, omit=["Content-Type"])  # a GET for a stream


@dataclass(frozen=True)
class HttpExchange:
    exchange: int
    status: int
    headers: dict[str, str]
    body: str
    seq: int  # the wire entry of its status line: what a finding cites (its exchange shows the request too)

    def header(self, name: str) -> str | None:
        low = name.lower()
        return next((v for k, v in self.headers.items() if k.lower() == low), None)


def _causes(exc: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    while exc is not None and exc not in chain and len(chain) < 10:
        chain.append(exc)
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return chain


def describe_http_failure(url: str, exc: Exception) -> ConnectionFailed:
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


class HttpBase(Transport):
    """What Streamable HTTP and legacy SSE share: the client, headers, exchanges, body handling."""

    def __init__(self, target: Target, wire: WireLog) -> None:
        super().__init__(target, wire)
        self.url = target.url or ""
        self.client = guarded_client(self.url, target.verify, target.timeout, self._refused)

    def _refused(self, url: str, what: str = "request") -> None:
        seq = self.note(f"refused to follow a {what} to {url}: not the target's origin")
        self.wire.refusals.append(Refusal(seq, url, what))

    def base_headers(self) -> dict[str, str]:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "Accept-Encoding": "identity",  # no decompression bombs
        }
        headers.update(self.target.headers)
        if self.target.bearer:
            headers["Authorization"] = f"Bearer {self.target.bearer}"
        return headers

    def _headers(self, how: Outgoing) -> dict[str, str]:
        """The headers of one request: ours, changed as `how` asks, each checked before it is sent."""
        headers = self.base_headers()
        headers.update(how.headers)
        drop = {h.lower() for h in how.omit}
        out = {}
        for key, value in headers.items():
            if key.lower() in drop:
                continue
            if not (header_safe(key) and header_safe(value)):  # server data never reaches a header unchecked
                self.note(f"header {key[:60]!r} not sent: its value is not visible ASCII")
                continue
            out[key] = value
        return out

    def _log_request(self, exchange: int, method: str, url: str, headers: Mapping[str, str]) -> None:
        self.wire.http(self.conn, exchange, {"method": method, "url": url, "request_headers": dict(headers)})

    def _log_response(self, exchange: int, resp: Any) -> int:
        info = {
            "status": resp.status_code,
            "reason": safe_text(resp.reason_phrase[:200]),
            "response_headers": {k[:200]: safe_text(v[:4000]) for k, v in resp.headers.items()},
        }
        return self.wire.http(self.conn, exchange, info).seq

    def _lines(self, resp: Any) -> AsyncIterator[str]:
        return capped_lines(resp.aiter_bytes(), MAX_MESSAGE_BYTES, self._line_dropped)

    def _line_dropped(self, size: int) -> None:
        self.note(f"dropped an event-stream line of {size:,} bytes (limit {MAX_MESSAGE_BYTES:,})")

    async def _read_capped(self, resp: Any) -> str | None:
        """The whole body, or None (with a note) when it is larger than one message may be."""
        chunks: list[bytes] = []
        size = 0
        async for chunk in resp.aiter_bytes():
            size += len(chunk)
            if size > MAX_MESSAGE_BYTES:
                self.note(f"response body over {MAX_MESSAGE_BYTES:,} bytes: dropped")
                return None
            chunks.append(chunk)
        return b"".join(chunks).decode("utf-8", errors="replace")

    async def _consume(self, resp: Any, exchange: int, url: str, for_id: Any = None) -> None:
        """Deliver every JSON-RPC message in a response body; raise for an HTTP failure without one."""
        status = resp.status_code
        ctype = resp.headers.get("content-type", "")
        delivered = False
        body: str | None = ""
        if "text/event-stream" in ctype:
            kept = 0  # events without a message recorded (SSE_KEPT at most): a priming event, a retry field
            async for event in sse_events(self._lines(resp)):
                if (event.retry is not None or not event.data.strip()) and kept < SSE_KEPT:
                    kept += 1
                    info = {"id": event.id, "retry": event.retry, "data": bool(event.data.strip())}
                    self.wire.http(self.conn, exchange, {"event": info})
                if event.event == "dropped":
                    self.note(f"dropped an event of over {MAX_MESSAGE_BYTES:,} characters")
                    self.on_dropped(for_id, "the server's event was too large")
                elif event.data.strip():
                    delivered |= self._receive_text(event.data, exchange, status, for_id)
        else:
            body = await self._read_capped(resp)
            if body is None:
                self.on_dropped(for_id, "the response body was too large")
            elif body.strip():
                delivered = self._receive_text(body, exchange, status, for_id)
        if status >= 300 and not delivered:
            raise self._failed(resp, url, body or "", exchange)

    def _failed(self, resp: Any, url: str, body: str, exchange: int) -> HttpError:
        """The error for a response that carried no JSON-RPC message: a redirect, a 401, any other failure."""
        redactor = self.wire.redactor
        if resp.status_code == 401:
            challenge = safe_text(resp.headers.get("www-authenticate") or "", redactor)
            return AuthRequired(401, url, challenge or None, exchange)
        if 300 <= resp.status_code < 400:
            location = safe_text(resp.headers.get("location", "")[:300], redactor)
            if not same_origin(urljoin(url, location), self.url):
                self._refused(urljoin(url, location), "redirect")
            body = f"a redirect to {location!r}, which mcp-review does not follow"
        return HttpError(resp.status_code, url, safe_text(body[:BODY_SNIPPET], redactor), exchange)

    async def send(self, payload: Any, how: Outgoing = PLAIN) -> None:
        await self._post(self._post_url(), payload, how)

    def _post_url(self) -> str:
        """Where messages are POSTed: the target's URL (legacy SSE: the endpoint its stream named)."""
        return self.url

    async def _post(self, url: str, payload: Any, how: Outgoing) -> None:
        import httpx

        exchange = self.wire.new_exchange()
        hdrs = self._headers(how)
        self._log_request(exchange, "POST", url, hdrs)
        text = self._record_send(payload, how, exchange)
        try:
            async with self.client.stream("POST", url, content=text.encode(), headers=hdrs) as resp:
                self._log_response(exchange, resp)
                self._after_response(resp, payload)
                for_id = payload.get("id") if isinstance(payload, dict) and "method" in payload else None
                streams = for_id is not None and "text/event-stream" in resp.headers.get("content-type", "")
                if streams:
                    self.streaming.add(for_id)
                try:
                    await self._consume(resp, exchange, url, for_id)
                finally:
                    self.streaming.discard(for_id)
        except httpx.HTTPError as e:
            raise describe_http_failure(url, e) from e

    @contextlib.asynccontextmanager
    async def _event_stream(self) -> AsyncIterator[tuple[int, Any]]:
        """GET the target's URL as an event stream, logged like every exchange: (its exchange, the response)."""
        exchange = self.wire.new_exchange()
        hdrs = self._headers(_EVENT_STREAM)
        self._log_request(exchange, "GET", self.url, hdrs)
        async with self.client.stream("GET", self.url, headers=hdrs) as resp:
            self._log_response(exchange, resp)
            yield exchange, resp

    def _after_response(self, resp: Any, payload: Any) -> None:
        """Hook: Streamable HTTP keeps the session id."""

    async def exchange(
        self, method: str, url: str | None = None, how: Outgoing = PLAIN, *, read: bool = True
    ) -> HttpExchange:
        """One plain HTTP request (probes: GET/DELETE, odd headers, well-known URLs), logged like the rest,
        ended after the target's timeout however slowly the server answers. `how.raw` is the body, if any."""
        import httpx

        url = url or self.url
        exchange = self.wire.new_exchange()
        hdrs = self._headers(how)
        self._log_request(exchange, method, url, hdrs)
        try:
            async with asyncio.timeout(self.target.timeout):
                async with self.client.stream(method, url, headers=hdrs, content=how.raw) as resp:
                    seq = self._log_response(exchange, resp)
                    ctype = resp.headers.get("content-type", "")
                    text = await self._read_capped(resp) if read and "text/event-stream" not in ctype else ""
                    safe = {k: safe_text(v, self.wire.redactor) for k, v in resp.headers.items()}
                    body = safe_text(text or "", self.wire.redactor)
                    return HttpExchange(exchange, resp.status_code, safe, body, seq)
        except TimeoutError:
            raise ConnectionFailed(f"no complete answer from {url} within {self.target.timeout:g}s") from None
        except httpx.HTTPError as e:
            raise describe_http_failure(url, e) from e

    async def aclose(self) -> None:
        self.closing = True
        with contextlib.suppress(Exception):
            async with asyncio.timeout(min(5.0, self.target.timeout)):
                await self.client.aclose()


class HttpTransport(HttpBase):
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

    def _after_response(self, resp: Any, payload: Any) -> None:
        """A session id is taken only from a successful `initialize`: mcp 1.x servers send one on error
        answers too (to `server/discover`, say), and using it would get every later request a 404."""
        sid = resp.headers.get("mcp-session-id")
        initialize = isinstance(payload, dict) and payload.get("method") == "initialize"
        if sid and not self.session_id and initialize and resp.status_code < 300:
            if not session_id_valid(sid):
                shown = json.dumps(sid[:80])
                raise ProtocolError(f"the server's Mcp-Session-Id {shown} is not visible ASCII (0x21-0x7E)")
            self.session_id = sid

    def listen(self) -> None:
        """Open the optional GET stream for server-initiated messages (legacy era). 405 is fine."""
        if self._listener is None:
            self._listener = asyncio.create_task(self._listen())

    async def _listen(self) -> None:
        import httpx

        try:
            async with self._event_stream() as (exchange, resp):
                if resp.status_code == 200 and "text/event-stream" in resp.headers.get("content-type", ""):
                    async for event in sse_events(self._lines(resp)):
                        if event.event != "dropped" and event.data.strip():
                            self._receive_text(event.data, exchange, resp.status_code)
        except (httpx.HTTPError, ConnectionFailed, asyncio.CancelledError):
            return

    async def aclose(self) -> None:
        self.closing = True
        if self._listener:
            self._listener.cancel()
            await asyncio.gather(self._listener, return_exceptions=True)
        if self.session_id:
            with contextlib.suppress(ConnectionFailed):
                await self.exchange("DELETE", how=Outgoing(omit=["Content-Type"]), read=False)
        await super().aclose()
