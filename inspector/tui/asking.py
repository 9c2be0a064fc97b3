"""What the server asks of the reviewer (sampling, elicitation, roots), one dialog at a time.

A server may ask before the app has drawn anything, or send hundreds of requests at once. Requests
wait until the first screen is painted, then come one at a time, in order: each dialog says how many
more are waiting and offers to decline them all. Roots are the client's own state, not a question: the
reviewer's first answer is kept for the rest of the connection, as a client would. A dialog that comes
within the reviewer's own call puts the cursor in its first field; one the server sends on its own takes no
key, so `q` and `r` still work while a server asks again and again.

A checklist run never waits on a person: while one runs, the workspace's policy (`Workspace.requests`, shown and
chosen in the Run dialog) answers instead, unless it is "ask": roots as the reviewer gave them on this connection
(none if never asked), sampling and elicitation declined, each recorded (`Workspace.unattended`, said in the
review's notes and in a notification).
"""

from __future__ import annotations

import asyncio
from typing import Any

from textual.app import App

from mcp_review.connection.channel import HandlerError
from mcp_review.connection.protocol import ClientHandlers
from mcp_review.tui.dialogs import DECLINE_ALL, AnswerScreen, ElicitScreen, RootsScreen, SampleScreen
from mcp_review.tui.dialogs.form import FormDialog
from mcp_review.tui.dialogs.roots import own_directories


class Asker:
    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.painted = asyncio.Event()  # set once the first screen is on the terminal
        self.turn = asyncio.Lock()
        self.waiting = 0  # requests not shown yet
        self.declining = False  # the reviewer declined everything that was waiting
        self._roots: asyncio.Future[list[dict[str, Any]]] | None = None  # the reviewer's one answer to roots/list
        self._roots_waiting = 0  # roots/list requests waiting on that answer

    def handlers(self) -> ClientHandlers:
        """The server's requests (sampling, elicitation, roots) are answered by the reviewer in a dialog."""

        async def elicitation(params: dict[str, Any]) -> dict[str, Any]:
            if self.unattended("elicitation/create", "declined"):
                return {"action": "decline"}
            answer = await self.ask(ElicitScreen(params))
            return answer or {"action": "decline"}

        async def sampling(params: dict[str, Any]) -> dict[str, Any]:
            if self.unattended("sampling/createMessage", "declined"):
                raise HandlerError(-1, "declined: a checklist run does not wait on a person")
            answer = await self.ask(SampleScreen(params))
            if answer is None:
                raise HandlerError(-1, "the reviewer declined the sampling request")
            return answer

        return ClientHandlers(sampling=sampling, elicitation=elicitation, roots=self.roots)

    def unattended(self, method: str, answer: str) -> bool:
        """True when a checklist run answers `method` by its policy, not the reviewer (recorded, and said)."""
        ws = getattr(self.app, "workspace", None)  # the review app's; a bare App has none
        if ws is None or not ws.checking or ws.requests == "ask":
            return False
        ws.unattended.append(f"{method}: {answer}")
        self.app.notify(f"the server asked {method} during the run: {answer} (the Run dialog's policy)", markup=False)
        return True

    async def roots(self) -> list[dict[str, Any]]:
        """The client's roots: asked of the reviewer once (however many requests come at once), then kept."""
        given = self._roots is not None and self._roots.done() and not self._roots.cancelled()
        if not given and self.unattended("roots/list", "the roots given on this connection: none"):
            return []
        if self._roots is None:
            self._roots = asyncio.ensure_future(self._ask_roots())
        asked = self._roots
        self._roots_waiting += 1
        try:
            return await asyncio.shield(asked)
        except asyncio.CancelledError:  # the server withdrew this request
            if self._roots_waiting == 1 and not asked.done():  # and no other waits: its dialog closes
                asked.cancel()
                self._roots = None  # asked again next time
            raise
        finally:
            self._roots_waiting -= 1

    async def _ask_roots(self) -> list[dict[str, Any]]:
        ws = getattr(self.app, "workspace", None)
        answer = await self.ask(RootsScreen({}, own_directories(ws.target.args if ws else [])))
        return list(answer["roots"]) if answer else []

    def _withdrawn(self, screen: AnswerScreen) -> None:
        """A request given up while its dialog is up: the dialog closes (accepting it would answer nothing)."""
        if screen.is_attached and self.app.screen is screen:
            screen.dismiss(None)
            self.app.notify(
                f"the server withdrew its request (or the connection ended): {screen.heading}",
                severity="warning",
                markup=False,
            )

    async def ask(self, screen: AnswerScreen) -> dict[str, Any] | None:
        """The reviewer's answer to one request (None: declined), after every request before it."""
        self.waiting += 1
        shown = False
        try:
            await self.painted.wait()
            async with self.turn:
                self.waiting -= 1
                shown = True
                if self.declining:
                    return None
                screen.waiting = self.waiting
                caller = getattr(self.app, "caller", None)  # the review app's (calling.py); a bare App has none
                if caller is not None and caller.running is not None:
                    # the reviewer's own call asks: type the answer at once. Textual types AUTO_FOCUS a ClassVar but
                    # reads it from the instance (Screen._update_auto_focus), so one screen can differ.
                    screen.AUTO_FOCUS = FormDialog.AUTO_FOCUS  # type: ignore[misc]
                answered: asyncio.Future[dict[str, Any] | None] = asyncio.get_running_loop().create_future()
                self.app.push_screen(screen, lambda value: None if answered.done() else answered.set_result(value))
                try:
                    answer = await answered
                except asyncio.CancelledError:  # withdrawn (notifications/cancelled) or the connection ended
                    self._withdrawn(screen)
                    raise
                if answer is DECLINE_ALL:
                    self.declining = True
                    return None
                return answer
        finally:
            if not shown:
                self.waiting -= 1  # given up while waiting (the connection ended)
            if self.waiting == 0:
                self.declining = False
