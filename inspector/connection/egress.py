"""Nothing goes anywhere the reviewer did not name.

Every HTTP request mcp-review makes goes through one httpx client whose transport (`OriginGuard`)
refuses any request whose origin (scheme, host, port) is not the target's: an SSE `endpoint` on another
host, a redirect, a `resource_metadata` URL, a probe built from server data. Credentials therefore can
only ever reach the target's origin. Redirects are never followed, proxies and `.netrc` from the
environment are not used (`trust_env=False`: a proxy is a host the reviewer did not name for this
review, and `.netrc` would attach credentials), and every refusal is recorded so that a rule
(`review.same-origin`) can report it with its evidence.

Some addresses are never contacted, by any flow and whoever named them (the target included: a project's
`.mcp.json` may name one): cloud metadata services and link-local addresses (`forbidden_host`). A name is
refused when it is a metadata service's name, or when it resolves to such an address; an address is refused
in every spelling the resolver accepts (`2852039166`, `0xa9.0xfe.0xa9.0xfe`, `::ffff:169.254.169.254`). Every
HTTP client of mcp-review asks `check_url` before each request: this transport, the OAuth login's
(`auth.login`) and the token refresh (`auth.refresh`). The name is resolved once here and again by the
connection: a DNS answer that changes in between (rebinding) is not caught.

Header values built from server data (a session id, a tool name) are checked before they are sent:
HTTP allows only visible ASCII there, and the MCP session id must be 0x21..0x7E.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import socket
import ssl
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from mcp_review.connection.errors import ConnectionFailed

Origin = tuple[str, str, int]
DEFAULT_PORTS = {"http": 80, "https": 443}


class EgressRefused(ConnectionFailed):
    """mcp-review refused to send a request to a host the reviewer did not name."""

    def __init__(self, url: str, why: str, rule: str = "; mcp-review only talks to the target's origin") -> None:
        super().__init__(f"refused to send a request to {url[:200]}: {why}{rule}")
        self.url = url
        self.why = why


# Cloud metadata services and link-local ranges (where the metadata services live: AWS, GCP, Azure, OCI,
# OpenStack at 169.254.169.254, AWS's IPv6 one at fd00:ec2::254, Alibaba at 100.100.100.200).
FORBIDDEN_NETS = tuple(
    ipaddress.ip_network(n)
    for n in ("169.254.0.0/16", "fe80::/10", "fd00:ec2::254/128", "100.100.100.200/32", "0.0.0.0/32", "::/128")
)
FORBIDDEN_NAMES = frozenset(
    {"metadata.google.internal", "metadata.goog", "metadata", "instance-data", "instance-data.ec2.internal"}
)
FORBIDDEN_WHY = "a cloud metadata or link-local address, which mcp-review never contacts"


def forbidden_address(address: str) -> bool:
    """Is this IP address (any spelling the resolver accepts) a metadata or link-local one?"""
    try:
        ip: ipaddress.IPv4Address | ipaddress.IPv6Address = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        try:  # the legacy forms inet_aton takes: 2852039166, 0xa9fea9fe, 169.254.43518, octal parts
            ip = ipaddress.IPv4Address(socket.inet_aton(address))
        except OSError:
            return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return any(ip in net for net in FORBIDDEN_NETS)


def _literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host.split("%")[0])
        return True
    except ValueError:
        return False


def forbidden_host(host: str, resolve: bool = True) -> bool:
    """A metadata service's name or address, or a name that resolves to one."""
    host = host.lower().rstrip(".").strip("[]")
    if host in FORBIDDEN_NAMES or forbidden_address(host):
        return True
    if not resolve or _literal(host) or host == "localhost":
        return False
    try:
        found = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return False  # the connection will fail the same way
    return any(forbidden_address(str(info[4][0])) for info in found)


def check_url(url: str) -> None:
    """Raise `EgressRefused` when `url`'s host is one mcp-review never contacts (see `forbidden_host`)."""
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return  # not a URL a client can send either
    if forbidden_host(host):
        raise EgressRefused(url, FORBIDDEN_WHY, rule="")


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


@functools.cache
def tls_context(verify: bool | str) -> ssl.SSLContext | bool:
    """What a client verifies TLS with: the CA bundle httpx trusts (True), `--ca FILE` (its path), or nothing
    (False), one context per process. Given `True`, httpx builds a context per client, loading the whole bundle
    each time (~14 ms), and an OAuth review opens about twenty clients. Raises OSError for an unreadable file."""
    if isinstance(verify, str):
        return ssl.create_default_context(cafile=verify)
    if not verify:
        return False
    import httpx

    return httpx.create_ssl_context()


def guarded_client(target_url: str, verify: bool | str, timeout: float, on_refused: Callable[[str], None]) -> Any:
    """The one httpx client of a connection: only `target_url`'s origin, no redirects, nothing from the env."""
    import httpx

    class OriginGuard(httpx.AsyncBaseTransport):
        def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
            self.inner = inner
            self.allowed = origin_of(target_url)
            self.checked = False

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            url = str(request.url)
            if self.allowed is None or origin_of(url) != self.allowed:
                on_refused(url)
                raise EgressRefused(url, "another origin than the target's")
            if not self.checked:  # one origin: its host is checked once (a name is resolved, off the event loop)
                await asyncio.to_thread(check_url, url)
                self.checked = True
            return await self.inner.handle_async_request(request)

        async def aclose(self) -> None:
            await self.inner.aclose()

    inner = httpx.AsyncHTTPTransport(verify=tls_context(verify), trust_env=False)
    return httpx.AsyncClient(
        transport=OriginGuard(inner),
        timeout=httpx.Timeout(timeout, read=None),
        follow_redirects=False,
        trust_env=False,
    )
