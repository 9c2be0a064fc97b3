"""Nothing goes anywhere the reviewer did not name.

Every HTTP request mcp-review makes goes through one httpx client whose transport (`OriginGuard`)
refuses any request whose origin (scheme, host, port) is not the target's: an SSE `endpoint` on another
host, a redirect, a `resource_metadata` URL, a probe built from server data. Credentials therefore can
only ever reach the target's origin. Redirects are never followed, proxies and `.netrc` from the
environment are not used (`trust_env=False`: a proxy is a host the reviewer did not name for this
review, and `.netrc` would attach credentials), and every refusal is recorded so that a rule
(`review.same-origin`) can report it with its evidence.

Header values built from server data (a session id, a tool name) are checked before they are sent:
HTTP allows only visible ASCII there, and the MCP session id must be 0x21..0x7E.
"""

from __future__ import annotations

import ssl
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from inspector.connection.errors import ConnectionFailed

Origin = tuple[str, str, int]
DEFAULT_PORTS = {"http": 80, "https": 443}


class EgressRefused(ConnectionFailed):
    """mcp-review refused to send a request to a host the reviewer did not name."""

    def __init__(self, url: str, why: str) -> None:
        super().__init__(f"refused to send a request to {url}: {why}; mcp-review only talks to the target's origin")
        self.url = url
        self.why = why


def origin_of(url: str) -> Origin | None:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if scheme not in DEFAULT_PORTS or not host:
        return None
    return scheme, host, port or DEFAULT_PORTS[scheme]


def same_origin(url: str, target_url: str) -> bool:
    mine = origin_of(target_url)
    return mine is not None and origin_of(url) == mine


def header_safe(value: str) -> bool:
    """Visible ASCII and spaces only: what an HTTP header value may carry without encoding."""
    return all(0x20 <= ord(c) < 0x7F for c in value) and value == value.strip()


def session_id_valid(value: str) -> bool:
    """MCP: a session id contains only visible ASCII (0x21 to 0x7E)."""
    return bool(value) and all(0x21 <= ord(c) <= 0x7E for c in value)


def guarded_client(target_url: str, verify: bool | str, timeout: float, on_refused: Callable[[str], None]) -> Any:
    """The one httpx client of a connection: only `target_url`'s origin, no redirects, nothing from the env."""
    import httpx

    class OriginGuard(httpx.AsyncBaseTransport):
        def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
            self.inner = inner
            self.allowed = origin_of(target_url)

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            url = str(request.url)
            if self.allowed is None or origin_of(url) != self.allowed:
                on_refused(url)
                raise EgressRefused(url, "another origin than the target's")
            return await self.inner.handle_async_request(request)

        async def aclose(self) -> None:
            await self.inner.aclose()

    context: bool | ssl.SSLContext = verify if isinstance(verify, bool) else ssl.create_default_context(cafile=verify)
    inner = httpx.AsyncHTTPTransport(verify=context, trust_env=False)
    return httpx.AsyncClient(
        transport=OriginGuard(inner),
        timeout=httpx.Timeout(timeout, read=None),
        follow_redirects=False,
        trust_env=False,
    )
