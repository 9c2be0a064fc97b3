"""The raw prober: send what a well-behaved client never would, on a fresh connection, and keep the answer.

Bogus protocol versions, unknown methods, malformed params, invalid cursors, unparseable JSON, requests
without the required headers or `_meta`: each probe returns exactly what came back (the message, the
HTTP status and headers, or the fact that nothing came). Everything is in the shared wire log, so a
finding can cite the exchange. Use one `Prober` per era: on stdio the first request fixes the era.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcp_review.connection.channel import RpcChannel, make_transport
from mcp_review.connection.errors import ConnectionFailed, HttpError
from mcp_review.connection.protocol import CLIENT_INFO, LATEST_LEGACY, MODERN, modern_meta
from mcp_review.connection.transport import Outgoing, Transport
from mcp_review.connection.wire import WireLog
from mcp_review.targets import Target

if TYPE_CHECKING:
    from mcp_review.connection.channel import Budget
    from mcp_review.connection.http import HttpExchange


@dataclass(frozen=True)
class ProbeResult:
    """What one probe got back. `message` is None when nothing came (see `failure`)."""

    message: dict[str, Any] | None = None
    seq: int | None = None  # wire entry of the reply: its message, else (an HTTP error without one) its status line
    status: int | None = None  # HTTP status, when over HTTP
    failure: str | None = None  # timeout, HTTP error without a JSON-RPC body, server gone
    latency: float = 0.0

    @property
    def answered(self) -> bool:
        return self.message is not None

    @property
    def code(self) -> Any:
        err = self.message.get("error") if self.message else None
        return err.get("code") if isinstance(err, dict) else None

    @property
    def error(self) -> dict[str, Any] | None:
        err = self.message.get("error") if self.message else None
        return err if isinstance(err, dict) else None

    @property
    def result(self) -> Any:
        return self.message.get("result") if self.message else None


class Prober:
    """`async with Prober(target, wire) as p:` opens a fresh connection with no handshake at all."""

    def __init__(self, target: Target, wire: WireLog, *, timeout: float = 5.0, budget: Budget | None = None) -> None:
        self.target = target
        self.wire = wire
        self.timeout = min(timeout, target.timeout)
        self.transport: Transport = make_transport(target, wire)
        self.channel = RpcChannel(self.transport)
        self.channel.budget = budget
        self.channel.on_request = self._refuse  # what the server sends is on the wire log: nothing else keeps it

    async def _refuse(self, msg: dict[str, Any], delivery: Any) -> dict[str, Any]:
        from mcp_review.connection.channel import HandlerError

        raise HandlerError(-32601, "mcp-review prober answers no requests")

    async def __aenter__(self) -> Prober:
        await self.channel.start()
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.channel.close()

    @property
    def conn(self) -> int:
        return self.channel.conn

    async def request(
        self,
        method: str,
        params: Any = None,
        *,
        rpc_id: Any = None,
        message: dict[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        omit: Iterable[str] = (),
        timeout: float | None = None,
    ) -> ProbeResult:
        started = time.monotonic()
        try:
            reply = await self.channel.request(
                method,
                params,
                rpc_id=rpc_id,
                message=message,
                how=Outgoing(headers=headers or {}, omit=omit),
                timeout=timeout or self.timeout,
            )
        except HttpError as e:
            line = self.wire.response_line(e.exchange)
            seq = line.seq if line else None
            return ProbeResult(seq=seq, status=e.status, failure=str(e), latency=time.monotonic() - started)
        except ConnectionFailed as e:
            return ProbeResult(failure=str(e), latency=time.monotonic() - started)
        return ProbeResult(reply.message, reply.seq, reply.delivery.status, latency=reply.latency)

    async def modern(self, method: str, params: dict[str, Any] | None = None, **kw: Any) -> ProbeResult:
        """A 2026-07-28 request: `_meta` and (over HTTP) the Mcp-* headers, unless overridden."""
        params = dict(params or {})
        params["_meta"] = {**modern_meta(), **(params.get("_meta") or {})}
        if self.target.is_http:
            kw["headers"] = {
                "MCP-Protocol-Version": MODERN,
                "Mcp-Method": method,
                **(kw.get("headers") or {}),
            }
        return await self.request(method, params, **kw)

    async def initialize(self, version: str = LATEST_LEGACY, capabilities: dict[str, Any] | None = None) -> ProbeResult:
        """The legacy handshake, as a probe: the answer is returned even when it is wrong."""
        params = {"protocolVersion": version, "capabilities": capabilities or {}, "clientInfo": CLIENT_INFO}
        result = await self.request("initialize", params)
        negotiated = result.result.get("protocolVersion") if isinstance(result.result, dict) else None
        if isinstance(negotiated, str) and hasattr(self.transport, "protocol_version"):
            self.transport.protocol_version = negotiated
        if result.answered and result.error is None:
            await self.notify("notifications/initialized")
        return result

    async def hello(self, era: str, revision: str) -> ProbeResult:
        """The era's first exchange: `server/discover` (2026-07-28) or `initialize` with `revision`."""
        return await (self.modern("server/discover") if era == "modern" else self.initialize(revision))

    async def notify(self, method: str, params: Any = None) -> None:
        try:
            await self.channel.notify(method, params)
        except HttpError:
            return  # the status is in the wire log; probes that care use `http()`

    async def send_raw(self, text: str, *, wait: float = 1.0) -> list[tuple[dict[str, Any], int]]:
        """Send text as is (e.g. unparseable JSON); return whatever arrives within `wait` seconds."""
        before = len(self.channel.unmatched)
        with contextlib.suppress(HttpError):
            await self.channel.send(how=Outgoing(raw=text))
        await asyncio.sleep(wait)
        return [(m, d.seq) for m, d in self.channel.unmatched[before:]]

    async def quiet_for(self, seconds: float) -> list[tuple[dict[str, Any], int]]:
        """Responses that arrive unasked within `seconds` (e.g. an answer to a notification)."""
        before = len(self.channel.unmatched)
        await asyncio.sleep(seconds)
        return [(m, d.seq) for m, d in self.channel.unmatched[before:]]

    async def http(
        self,
        method: str,
        url: str | None = None,
        *,
        headers: Mapping[str, str] | None = None,
        omit: Iterable[str] = (),
        body: str | None = None,
    ) -> HttpExchange:
        """A plain HTTP request on this connection's client (HTTP targets only)."""
        exchange = getattr(self.transport, "exchange", None)
        if exchange is None:
            raise TypeError("http() needs an HTTP target")
        result: HttpExchange = await exchange(method, url, Outgoing(body, headers or {}, omit))
        return result
