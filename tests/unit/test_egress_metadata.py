"""Cloud metadata and link-local addresses are never contacted, whoever names them: proven before any connect
(the socket layer is watched: 169.254.169.254 cannot be bound here), in the transport's client and the refresh.
The OAuth login's flow is proven end to end by tests/hostile (case oauth-metadata)."""

from __future__ import annotations

import asyncio
import socket

import pytest

from mcp_review.connection.egress import EgressRefused, forbidden_address, forbidden_host, guarded_client

METADATA = "http://169.254.169.254/latest/meta-data/iam/security-credentials/"


@pytest.fixture
def connects(monkeypatch):
    """Every TCP connect the process attempts, refused (nothing may leave during these tests)."""
    seen: list[object] = []

    def connect(self: socket.socket, address: object) -> None:
        seen.append(address)
        raise ConnectionRefusedError(111, "refused by the test")

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", lambda self, address: seen.append(address) or 111)
    return seen


@pytest.mark.parametrize(
    "host",
    [
        "169.254.169.254",
        "169.254.170.2",  # ECS task metadata
        "2852039166",
        "0xa9.0xfe.0xa9.0xfe",
        "0251.0376.0251.0376",
        "169.254.43518",
        "::ffff:169.254.169.254",
        "[fe80::1]",
        "fe80::1%eth0",
        "fd00:ec2::254",
        "100.100.100.200",
        "metadata.google.internal",
        "METADATA.GOOGLE.INTERNAL.",
    ],
)
def test_metadata_and_link_local_hosts_are_forbidden(host):
    assert forbidden_host(host, resolve=False)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "10.0.0.5", "::1", "fd00::1", "100.100.100.201"])
def test_ordinary_hosts_are_not(host):
    assert not forbidden_host(host, resolve=False) and not forbidden_address(host.strip("[]"))


def test_a_name_that_resolves_to_a_metadata_address_is_forbidden(monkeypatch):
    real = socket.getaddrinfo

    def resolve(host: str, *args: object, **kw: object) -> list:
        if host == "rebind.test":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("169.254.169.254", 0))]
        return real(host, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    assert forbidden_host("rebind.test") and not forbidden_host("127.0.0.1")


@pytest.mark.parametrize("url", [METADATA, "http://[fd00:ec2::254]/latest/api/token", "http://2852039166/"])
def test_the_transport_refuses_before_any_connect_even_as_the_target(url, connects):
    refused: list[str] = []

    async def send() -> None:
        async with guarded_client(url, True, 5.0, refused.append) as client:
            await client.get(url)

    with pytest.raises(EgressRefused) as caught:
        asyncio.run(send())
    assert "cloud metadata or link-local" in str(caught.value) and "\n" not in str(caught.value)
    assert connects == []


def test_the_transport_still_reaches_an_ordinary_target(connects):
    """The guard is what refused above: the same client to 127.0.0.1 gets as far as the socket."""

    async def send() -> None:
        async with guarded_client("http://127.0.0.1:9/mcp", True, 5.0, lambda url: None) as client:
            await client.get("http://127.0.0.1:9/mcp")

    with pytest.raises(Exception):  # noqa: B017 - the test's socket refuses: any transport error
        asyncio.run(send())
    assert connects and connects[0][0] == "127.0.0.1"


@pytest.mark.slow
def test_a_refresh_at_a_metadata_token_endpoint_is_refused_before_any_connect(tmp_path, monkeypatch, connects):
    import time

    from mcp_review.auth import store
    from mcp_review.auth.refresh import RefreshFailed, usable_token

    monkeypatch.setenv("MCP_REVIEW_TOKENS", str(tmp_path / "tokens.json"))
    url = "http://127.0.0.1:9/mcp"
    store.put(
        url,
        tokens={"access_token": "at-old-123456", "token_type": "Bearer", "refresh_token": "rt-old-123456"},
        client={
            "client_id": "c1",
            "redirect_uris": ["http://127.0.0.1:1/callback"],
            "token_endpoint_auth_method": "none",
        },
        claims={"exp": int(time.time()) - 5},
        metadata={"server": {"token_endpoint": "http://169.254.169.254/token"}},
    )
    with pytest.raises(RefreshFailed, match="cloud metadata or link-local"):
        usable_token(url, timeout=5)
    assert connects == []


def test_one_tls_context_per_setting_for_the_process(tmp_path):
    """httpx built a context per client, loading the CA bundle each time: one per setting now, verifying."""
    import ssl

    import certifi

    from mcp_review.connection.egress import tls_context

    default = tls_context(True)
    assert isinstance(default, ssl.SSLContext) and default is tls_context(True)
    assert default.verify_mode == ssl.CERT_REQUIRED and default.check_hostname
    assert default.cert_store_stats()["x509_ca"] > 0  # the bundle is loaded
    ca = tls_context(certifi.where())  # `--ca FILE`
    assert isinstance(ca, ssl.SSLContext) and ca is not default and ca.verify_mode == ssl.CERT_REQUIRED
    assert tls_context(False) is False
    with pytest.raises(OSError):
        tls_context(str(tmp_path / "missing.pem"))
