"""Legacy HTTP+SSE (2024-11-05): a GET event stream that names the endpoint where messages are POSTed.

Everything but the stream (the client, headers, POSTs, bodies, failures) is shared with Streamable HTTP
in `http.HttpBase`.
"""

from __future__ import annotations

import asyncio
from urllib.parse import urljoin

from mcp_review.connection.egress import EgressRefused, same_origin
from mcp_review.connection.errors import ConnectionFailed
from mcp_review.connection.eventstream import sse_events
from mcp_review.connection.http import HttpBase, describe_http_failure
from mcp_review.connection.transport import MAX_MESSAGE_BYTES
from mcp_review.connection.wire import WireLog
from mcp_review.targets import Target


class SseTransport(HttpBase):
    """Legacy HTTP+SSE (2024-11-05): a GET event stream that names a POST endpoint on the same origin."""

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

    def _endpoint(self, data: str) -> None:
        """The first `endpoint` event: where to POST. Another origin is refused (the bearer would go there)."""
        assert self._ready
        endpoint = urljoin(self.url, data.strip()[:2000])
        if same_origin(endpoint, self.url):
            self._ready.set_result(endpoint)
            return
        self._refused(endpoint, "endpoint")
        self._ready.set_exception(EgressRefused(endpoint, "the SSE 'endpoint' event names another origin"))

    async def _read_stream(self) -> None:
        import httpx

        assert self._ready
        try:
            async with self._event_stream() as (exchange, resp):
                if resp.status_code != 200:
                    raise self._failed(resp, self.url, await self._read_capped(resp) or "", exchange)
                async for event in sse_events(self._lines(resp)):
                    if event.event == "endpoint" and not self._ready.done():
                        self._endpoint(event.data)
                    elif event.event == "dropped":
                        self.note(f"dropped an event of over {MAX_MESSAGE_BYTES:,} characters")
                    elif event.data.strip():
                        self._receive_text(event.data, exchange, 200)
            failure: ConnectionFailed = ConnectionFailed(f"the server closed the SSE stream {self.url}")
        except ConnectionFailed as e:
            failure = e
        except httpx.HTTPError as e:
            failure = describe_http_failure(self.url, e)
        except asyncio.CancelledError:
            return
        if not self._ready.done():
            self._ready.set_exception(failure)
        elif not self.closing:
            self.on_closed(failure)

    def _post_url(self) -> str:
        assert self.endpoint
        return self.endpoint

    async def aclose(self) -> None:
        self.closing = True
        if self._stream:
            self._stream.cancel()
            await asyncio.gather(self._stream, return_exceptions=True)
        await super().aclose()
