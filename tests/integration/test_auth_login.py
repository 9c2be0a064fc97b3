"""mcp-review's OAuth client against a real authorization server on 127.0.0.1 (tests/servers/protected.py):
discovery from the 401, registration, authorization code with PKCE S256 and `resource`, the token stored 0600
outside the repository, and the browser step automated (the test plays the browser: it fetches the URL)."""

from __future__ import annotations

import asyncio
import stat
import subprocess
import threading
import time
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from mcp_review.auth import store
from mcp_review.auth.login import Browser, LoginFailed, login
from mcp_review.auth.refresh import RefreshFailed, usable_token
from mcp_review.redact import scrub
from tests.support import http_fixture

HELLO = {"jsonrpc": "2.0", "id": 1, "method": "initialize"}
HELLO["params"] = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
ACCEPT = {"Accept": "application/json, text/event-stream"}
DEAD = "http://127.0.0.1:1/token"  # a closed port


@pytest.fixture
def tokens(tmp_path, monkeypatch):
    monkeypatch.setenv("MCP_REVIEW_TOKENS", str(tmp_path / "cfg" / "tokens.json"))
    return tmp_path / "cfg" / "tokens.json"


@pytest.fixture
def server():
    with http_fixture("protected") as url:
        yield url


def a_browser(said: list[str]) -> Browser:
    """A browser in another thread, as a real one is another process: it follows the AS's redirect home."""

    def visit(url: str) -> None:
        threading.Thread(target=lambda: httpx.get(url, follow_redirects=True, timeout=10), daemon=True).start()

    return Browser(say=said.append, open=visit)


def accepted(url: str, token: str) -> int:
    return httpx.post(url, json=HELLO, headers={**ACCEPT, "Authorization": f"Bearer {token}"}).status_code


def test_login_with_the_browser_step_stores_a_token_the_server_accepts(server, tokens):
    said: list[str] = []
    token = asyncio.run(login(server, a_browser(said)))
    assert accepted(server, token) == 200
    authorize = next(s for s in said if s.startswith("authorize in the browser: ")).split(": ", 1)[1]
    query = parse_qs(urlsplit(authorize).query)
    assert query["code_challenge_method"] == ["S256"] and query["resource"] == [server]
    assert stat.S_IMODE(tokens.stat().st_mode) == 0o600
    assert stat.S_IMODE(tokens.parent.stat().st_mode) == 0o700
    shown = store.servers()[server]
    assert shown["aud"] == server and shown["scope"] == "mcp" and shown["exp"] > 0
    assert token not in "\n".join(said) and scrub(f"x {token} y") == "x *** y"


def test_no_browser_reads_the_pasted_redirect(server, tokens):
    def paste(_prompt: str) -> str:
        authorize = next(s for s in said if s.startswith("authorize in the browser: ")).split(": ", 1)[1]
        return httpx.get(authorize).headers["location"]  # what the reviewer copies from the address bar

    said: list[str] = []
    opened: list[str] = []
    browser = Browser(say=said.append, open=opened.append, ask=paste, paste=True)
    token = asyncio.run(login(server, browser))
    assert accepted(server, token) == 200 and not opened


def test_a_refusal_in_the_browser_stops_the_login(server, tokens):
    browser = Browser(say=lambda _s: None, paste=True, ask=lambda _p: "http://127.0.0.1:1/callback?error=access_denied")
    with pytest.raises(LoginFailed, match="access_denied"):
        asyncio.run(login(server, browser))
    assert store.access_token(server) is None


def test_logout_forgets_the_server(server, tokens):
    asyncio.run(login(server, a_browser([])))
    assert store.forget(server) == [server]
    assert store.access_token(server) is None and store.servers() == {}


def mcp_review(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    import os
    import sys

    argv = [sys.executable, "-m", "mcp_review", *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, env={**os.environ, **env})


def test_the_cli_lists_uses_and_forgets_a_stored_login(server, tokens):
    token = asyncio.run(login(server, a_browser([])))
    env = {"MCP_REVIEW_TOKENS": str(tokens)}
    listed = mcp_review("auth", "list", env=env)
    assert listed.returncode == 0 and f"{server}  scope=mcp aud={server} expires in" in listed.stdout
    used = mcp_review("list", "--url", server, "--era", "legacy", "--format", "json", env=env)
    assert used.returncode == 0 and "whoami" in used.stdout, used.stderr  # the stored token opened it
    assert token not in listed.stdout + used.stdout + used.stderr
    assert mcp_review("auth", "logout", server, env=env).stdout.strip() == f"logged out of {server}"
    refused = mcp_review("list", "--url", server, "--era", "legacy", env=env)
    assert refused.returncode != 0 and "401" in refused.stderr


def test_a_client_metadata_url_the_server_does_not_offer_falls_back_to_registration(server, tokens):
    """The fixture's AS (the SDK's) has no client_id_metadata_document_supported: the login registers (RFC 7591)
    and works; the CIMD path itself is proven by the conformance suite's auth/basic-cimd."""
    cimd = "https://client.example/mcp-review.json"
    token = asyncio.run(login(server, a_browser([]), client_metadata_url=cimd))
    assert accepted(server, token) == 200
    client = store.get(server)["client"]
    assert client["client_id"] != cimd and client["client_id"]  # the id the AS issued at registration


def test_a_client_metadata_url_that_is_not_https_is_refused_in_one_line(server, tokens):
    refused = mcp_review("auth", "login", server, "--client-metadata-url", "http://client.example/c.json", env={})
    assert refused.returncode != 0 and "login failed: client_metadata_url must be a valid HTTPS URL" in refused.stderr
    assert "Traceback" not in refused.stderr and store.servers() == {}


def test_with_a_keyring_the_secrets_go_there_and_the_file_keeps_none(server, tmp_path, monkeypatch):
    keyring = pytest.importorskip("keyring")
    from keyring.backend import KeyringBackend

    class Memory(KeyringBackend):
        priority = 1  # type: ignore[assignment]

        def __init__(self):
            self.kept: dict[tuple[str, str], str] = {}

        def get_password(self, service, username):
            return self.kept.get((service, username))

        def set_password(self, service, username, password):
            self.kept[(service, username)] = password

        def delete_password(self, service, username):
            del self.kept[(service, username)]

    before = keyring.get_keyring()
    memory = Memory()
    keyring.set_keyring(memory)
    monkeypatch.delenv("MCP_REVIEW_TOKENS", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    try:
        token = asyncio.run(login(server, a_browser([])))
        assert accepted(server, token) == 200 and store.access_token(server) == token
        on_disk = (tmp_path / "mcp-review" / "tokens.json").read_text()
        assert token not in on_disk and "access_token" not in on_disk and '"aud"' in on_disk
        assert token in memory.kept[("mcp-review", server)]
        assert store.forget(server) == [server] and not memory.kept
    finally:
        keyring.set_keyring(before)


def test_the_login_may_reach_only_origins_the_server_names():
    """The guard on every request of the flow: the server's origin, then what its metadata names, nothing else."""
    from types import SimpleNamespace

    from mcp.shared.auth import OAuthMetadata, ProtectedResourceMetadata

    from mcp_review.auth.login import allowed_origins

    context = SimpleNamespace(protected_resource_metadata=None, oauth_metadata=None)
    assert allowed_origins("http://127.0.0.1:5/mcp", context) == {"http://127.0.0.1:5"}
    context.protected_resource_metadata = ProtectedResourceMetadata(
        resource="http://127.0.0.1:5/mcp", authorization_servers=["http://localhost:6/tenant"]
    )
    context.oauth_metadata = OAuthMetadata(
        issuer="http://localhost:6/tenant",
        authorization_endpoint="http://localhost:6/authorize",
        token_endpoint="http://127.0.0.2:7/token",
    )
    assert allowed_origins("http://127.0.0.1:5/mcp", context) == {
        "http://127.0.0.1:5",
        "http://localhost:6",
        "http://127.0.0.2:7",
    }


def expire(url: str, **tokens: str) -> dict:
    """Make the stored login for `url` expired: `exp` in the past and, with `access_token`, a token the server
    refuses (so only a refreshed one can open it). Returns the stored login as it now is."""
    entry = store.get(url)
    store.put(url, tokens={**entry["tokens"], **tokens}, claims={**entry["claims"], "exp": int(time.time()) - 5})
    return store.get(url)


def redeem(url: str, entry: dict, refresh_token: str) -> httpx.Response:
    """What the AS answers a refresh grant with `refresh_token`, as the client `entry` recorded at login."""
    grant = {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": entry["client"]["client_id"]}
    return httpx.post(entry["metadata"]["server"]["token_endpoint"], data=grant | {"resource": url})


@pytest.mark.parametrize("command", [["list", "--format", "json"], ["check", "--pack", "tokens", "-q"]])
def test_an_expired_stored_token_is_refreshed_before_use(server, tokens, command):
    asyncio.run(login(server, a_browser([])))
    before = store.get(server)["tokens"]
    old = expire(server, access_token="expired-and-refused")
    run = mcp_review(*command, "--url", server, "--era", "legacy", env={"MCP_REVIEW_TOKENS": str(tokens)})
    # 0, 1 or the default gate's 3 (security,blocking), never 2: the server accepted the new token
    assert run.returncode in (0, 1, 3) and "whoami" in run.stdout, run.stderr
    new = store.get(server)
    assert new["tokens"]["access_token"] not in (before["access_token"], "expired-and-refused")
    assert new["tokens"]["refresh_token"] != before["refresh_token"]  # the AS rotated it
    assert new["claims"]["exp"] > time.time() + 3000 and new["claims"]["aud"] == server
    assert redeem(server, old, before["refresh_token"]).json()["error"] == "invalid_grant"  # redeemed already
    assert accepted(server, new["tokens"]["access_token"]) == 200
    secrets = [new["tokens"]["access_token"], new["tokens"]["refresh_token"], *before.values()]
    assert not any(str(t) in run.stdout + run.stderr for t in secrets if isinstance(t, str) and len(t) > 8)


def test_a_failing_refresh_says_so_in_one_line(server, tokens):
    asyncio.run(login(server, a_browser([])))
    old = expire(server, refresh_token="revoked-refresh-token")
    run = mcp_review("list", "--url", server, "--era", "legacy", env={"MCP_REVIEW_TOKENS": str(tokens)})
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == (
        f"mcp-review: error: the stored token for {server} expired and refreshing it failed: the authorization"
        f" server answered HTTP 400 ('invalid_grant'); log in again: mcp-review auth login {server}\n"
    )
    assert store.get(server) == old and old["tokens"]["access_token"] not in run.stderr


def test_the_refresh_goes_only_to_the_token_endpoint_recorded_at_login(server, tokens):
    """The server's own /token would answer; the refresh goes to the recorded endpoint, here a closed port."""
    asyncio.run(login(server, a_browser([])))
    old = expire(server)
    store.put(server, metadata={"server": {**store.get(server)["metadata"]["server"], "token_endpoint": DEAD}})
    with pytest.raises(RefreshFailed, match=f"refreshing it failed: ConnectError at {DEAD}$"):
        usable_token(server, timeout=5)
    assert store.get(server)["tokens"] == old["tokens"]
    assert redeem(server, old, old["tokens"]["refresh_token"]).status_code == 200  # never redeemed


def test_a_token_not_yet_expired_is_used_as_stored(server, tokens):
    token = asyncio.run(login(server, a_browser([])))
    store.put(server, metadata={})  # nowhere to refresh at: a refresh would fail
    assert usable_token(server) == token
