"""The Auth view: an OAuth-protected server's discovered metadata, the login flow's steps as they happen, and
what the token says about itself (scopes, audience, expiry: decoded, never the token), with a re-login action.

The flow is `mcp_review.auth.login` (the headless core's); this screen only shows it. `opener` opens the browser
(the app's, so a test can play the browser). Closing returns the new token, if a login here got one, for the app
to reconnect with.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from mcp_review.text import one_line, visible
from mcp_review.tui.dialogs.common import DIALOG_CSS


class AuthScreen(ModalScreen[str | None]):
    DEFAULT_CSS = DIALOG_CSS + "#auth-body { height: 1fr; }\n#auth-token { margin-bottom: 1; }"
    BINDINGS = [
        Binding("escape", "close", "Close", id="close-auth"),
        Binding("l", "login", "Log in again", id="login"),
    ]

    def __init__(self, url: str, opener: Callable[[str], Any], login_now: bool = False) -> None:
        super().__init__()
        self.url, self.opener, self.login_now = url, opener, login_now  # login_now: the flow starts on opening
        self.token: str | None = None
        self.steps: list[str] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text(f"Authorization · {one_line(self.url, 200)}", style="bold"))
            with VerticalScroll(id="auth-body"):
                yield Static(id="auth-token")
                yield Static(id="auth-steps")
                yield Static(id="auth-metadata")
            with Horizontal(id="buttons"):
                yield Button("Log in again", id="login", variant="primary")
                yield Button("Close", id="close")

    def on_mount(self) -> None:
        self.refresh_stored()
        if self.login_now:
            self.action_login()

    def refresh_stored(self) -> None:
        from mcp_review.auth import store

        entry = store.get(self.url)
        token = Text("token: ", style="bold")
        stored = entry.get("tokens")
        token.append(store.describe(entry.get("claims") or {}) if stored else "none stored: press l to log in")
        self.query_one("#auth-token", Static).update(token)
        found = json.dumps(entry.get("metadata") or {}, indent=2, ensure_ascii=False)
        meta = Text("discovered metadata:\n", style="bold")
        meta.append(visible(found, 8000) if entry.get("metadata") else "none yet")
        self.query_one("#auth-metadata", Static).update(meta)

    def step(self, text: str) -> None:
        self.steps.append(one_line(text, 300))
        shown = Text("flow:\n", style="bold")
        shown.append(visible("\n".join(self.steps[-40:])))
        self.query_one("#auth-steps", Static).update(shown)

    @on(Button.Pressed, "#login")
    def action_login(self) -> None:
        self.steps.clear()
        self.login()

    @work(exclusive=True, group="auth")
    async def login(self) -> None:
        from mcp_review.auth import store
        from mcp_review.auth.login import Browser, LoginFailed, login

        # "Log in again" runs the flow even with a valid token stored (the flow would reuse it): the stored tokens
        # are set aside for it (the registered client stays), and come back if it fails
        kept = store.get(self.url).get("tokens")
        if kept:
            store.put(self.url, tokens={})
        try:
            self.token = await login(self.url, Browser(say=self.step, open=self.opener))
        except LoginFailed as e:
            self.step(f"login failed: {e}")
        finally:  # failed, or given up (the view closed): the token set aside is the stored one again
            if kept and self.token is None:
                store.put(self.url, tokens=kept)
        self.refresh_stored()

    @on(Button.Pressed, "#close")
    def action_close(self) -> None:
        self.dismiss(self.token)
