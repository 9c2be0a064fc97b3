"""Which server the app talks to: ctrl+o tries another one beside the working one and switches only once it
has answered (a typo leaves the current server, its tools and its review as they were), ctrl+r reconnects,
and ctrl+l's Auth view logs in again and reconnects with the new token. The working server is the workspace's;
the app asks here and shows what changed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp_review.connection.wire import WireEntry
from mcp_review.targets import Target
from mcp_review.text import one_line
from mcp_review.tui.connection import Connection
from mcp_review.tui.dialogs import AuthScreen, ConfirmScreen
from mcp_review.tui.messages import Connected, ConnectionLost
from mcp_review.tui.shell import Shell
from mcp_review.workspace import Workspace


class Switcher:
    def __init__(self, ws: Workspace, shell: Shell, new_connection: Callable[[], Connection]) -> None:
        self.ws = ws
        self.shell = shell
        self.new_connection = new_connection  # a connection worker, not opened yet
        self.trying: tuple[Connection, Target, list[WireEntry]] | None = None  # a server tried beside this one

    async def close(self) -> None:
        if self.trying is not None:
            await self.trying[0].close()

    def reconnect(self) -> None:
        ws = self.ws
        assert ws.connection is not None
        ws.connecting()
        self.shell.status("connecting…")
        ws.connection.open(ws.target, ws.era, ws.wire)

    def auth(self, open_browser: Callable[[str], Any], login_now: bool = False) -> None:
        """The Auth view of an HTTP server (with `login_now`, its login flow started); a new login there reconnects
        with its token."""
        if not self.ws.target.is_http:
            self.shell.status("Auth: only an HTTP server is protected by OAuth")
            return

        def logged_in(token: str | None) -> None:
            if token:
                self.ws.log_in(token)
                self.reconnect()

        self.shell.ask(AuthScreen(self.ws.target.url or "", open_browser, login_now), logged_in)

    def offer_login(self, open_browser: Callable[[str], Any]) -> None:
        """The working HTTP server answered 401: log in now, in place? Yes opens the Auth view with its flow
        started, as ctrl+l then l do, and the app reconnects with the token."""
        url = one_line(self.ws.target.url or "", 200)
        reason = (
            f"{url} answered 401: it wants an OAuth login. Log in now? The Auth view runs the flow: your browser "
            "opens at the server's authorization server, and the app reconnects with the token it gives "
            "(stored, as `mcp-review auth login` stores it). ctrl+l opens the Auth view at any time."
        )

        def answered(yes: bool | None) -> None:
            if yes:
                self.auth(open_browser, login_now=True)

        self.shell.ask(ConfirmScreen("The server wants a login", reason, yes="Log in"), answered)

    def try_target(self, target: Target) -> None:
        """Connect to `target` beside the working server; it becomes the working one once it answers."""
        if self.trying is not None:
            self.trying[0].stop()  # a server tried before this one ends once it has answered
        self.trying = (self.new_connection(), target, [])
        self.shell.status(f"connecting to {one_line(target.label(), 80)}… (the current server stays until then)")
        self.trying[0].open(target, self.ws.era, self.trying[2])

    def adopt(self, message: Connected) -> bool:
        """Whether `message` comes from the server being tried, which then becomes the working one (with its own
        saved review, wire log and call history: the screen forgets the old one's)."""
        if self.trying is None or message.source is not self.trying[0]:
            return False
        connection, target, wire = self.trying
        self.trying = None
        self.ws.switch(connection, target, wire)  # the old session, still closing, appends to the old list
        return True

    def failed(self, message: ConnectionLost) -> bool:
        """Whether `message` ends the working connection; a tried server that failed only says so."""
        if self.trying is not None and message.source is self.trying[0]:
            tried, self.trying = self.trying[1], None
            working = one_line(self.ws.target.label(), 80)
            still = f"still connected to {working}" if self.ws.snapshot else "not connected"
            self.shell.status(f"could not connect to {one_line(tried.label(), 80)}: {one_line(message.reason, 200)}")
            self.shell.notify(f"{one_line(message.reason, 300)} ({still})", severity="error", markup=False)
            return False
        return message.source is self.ws.connection
