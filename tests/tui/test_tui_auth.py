"""The app's Auth view (ctrl+l) against a real authorization server (tests/servers/protected.py): the browser step
is automated (the test plays the browser: it fetches the authorization URL, which redirects to the app's loopback
listener), the flow's steps and the token's scopes, audience and expiry are shown, never the token, and the app
reconnects with it."""

from __future__ import annotations

import threading

import httpx
from textual.widgets import Input, Static

from mcp_review.auth import store
from mcp_review.targets import http_target
from mcp_review.tui.app import ReviewApp
from mcp_review.tui.dialogs import AuthScreen, ConfirmScreen, ConnectScreen
from mcp_review.tui.grid import Grid
from tests.support import http_fixture
from tests.tui_pilot import until


def play_browser(url: str) -> None:
    threading.Thread(target=lambda: httpx.get(url, follow_redirects=True, timeout=10), daemon=True).start()


async def test_log_in_from_the_auth_view_and_reconnect(tmp_path, monkeypatch):
    monkeypatch.setenv("MCP_REVIEW_TOKENS", str(tmp_path / "tokens.json"))
    with http_fixture("protected") as url:
        app = ReviewApp(http_target(url), era="legacy", state_dir=tmp_path)
        app.open_browser = play_browser
        async with app.run_test(size=(110, 40)) as pilot:
            await until(pilot, lambda: "401" in str(app.main.query_one("#status", Static).render()))
            await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))  # the 401 offers a login in place
            assert "wants an OAuth login. Log in now?" in str(app.screen.query_one("#result Static", Static).render())
            await pilot.click("#yes")
            await until(pilot, lambda: isinstance(app.screen, AuthScreen))  # the Auth view, its flow started
            screen = app.screen
            await until(pilot, lambda: screen.token is not None)
            token = screen.token
            shown = " ".join(
                str(screen.query_one(f"#auth-{part}", Static).render()) for part in ("token", "steps", "metadata")
            )
            assert f"scope=mcp aud={url} expires in" in shown
            assert "authorize in the browser: " in shown and "logged in: token stored" in shown
            assert '"authorization_servers"' in shown and "code_challenge_methods_supported" in shown
            assert token not in shown
            await pilot.press("escape")
            await until(pilot, lambda: app.workspace.snapshot is not None)
            assert app.main.query_one("#tools", Grid).row_count == 1  # whoami: the server opened with the token
            assert app.workspace.target.bearer == token == store.access_token(url)

            # "Log in again" runs the flow although the stored token is valid: the browser step comes again
            await pilot.press("ctrl+l")
            await until(pilot, lambda: isinstance(app.screen, AuthScreen))
            again = app.screen
            await pilot.press("l")
            await until(pilot, lambda: "authorize in the browser" in str(again.query_one("#auth-steps").render()), 20)
            await pilot.press("escape")  # given up: the token set aside is the stored one again
            await until(pilot, lambda: not isinstance(app.screen, AuthScreen))
            await until(pilot, lambda: store.access_token(url) == token)

            # ctrl+o to the same URL takes the stored token, as --url does
            await pilot.press("ctrl+o")
            await until(pilot, lambda: isinstance(app.screen, ConnectScreen))
            app.screen.query_one("#what", Input).value = url
            await pilot.press("ctrl+s")
            await until(pilot, lambda: app.switcher.trying is None and app.workspace.snapshot is not None)
            assert app.workspace.target.bearer == store.access_token(url) == token
