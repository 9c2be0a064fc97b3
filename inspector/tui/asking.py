"""What the server asks of the reviewer (sampling, elicitation, roots), one dialog at a time.

A server may ask before the app has drawn anything, or send hundreds of requests at once. Requests
wait until the first screen is painted, then come one at a time, in order: each dialog says how many
more are waiting and offers to decline them all. Roots are the client's own state, not a question: the
reviewer's first answer is kept for the rest of the connection, as a client would. A dialog that comes
within the reviewer's own call puts the cursor in its first field; one the server sends on its own takes no
key, so `q` and `r` still work while a server asks again and again.

A server that asks again at once, however it is answered (a sampling loop), would keep a dialog over the tabs for
good (issue 35). So the reviewer can set its requests aside: a digit in the dialog does it and shows that tab, and
after STREAK declines in a row of what the server asked on its own they are set aside too. Set aside, a request
waits, unanswered (the server waits with it: a loop stops), behind one line over the tabs that says what waits and
that `i` shows it again; every key works meanwhile. How many requests a session answers at all is bounded in the
session (`connection/asked.py`), the same for the app and `check`.

A checklist run never waits on a person: while one runs, the workspace's policy (`Workspace.requests`, shown and
chosen in the Run dialog) answers instead, unless it is "ask": roots as the reviewer gave them on this connection
(none if never asked), sampling and elicitation declined, each counted (`Workspace.unattended`, said in one note of
the review and one notification a run, whatever the count).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from textual.app import App

from mcp_review.connection.channel import HandlerError
from mcp_review.connection.protocol import ClientHandlers
from mcp_review.connection.within import WITHIN, Within
from mcp_review.text import one_line
from mcp_review.tui.dialogs import DECLINE_ALL, AnswerScreen, ElicitScreen, RootsScreen, SampleScreen
from mcp_review.tui.dialogs.answer import LATER
from mcp_review.tui.dialogs.form import FormDialog
from mcp_review.tui.dialogs.roots import own_directories
from mcp_review.tui.screen import TABS

STREAK = 3  # declines in a row of requests the server sent on its own, after which its requests are set aside


def asked_for(seen: Within | None, caller: Any) -> str:
    """Which call asks, as the wire says (`connection/within.py`: its tool, its task); else that the reviewer's call
    runs meanwhile, which proves nothing and is said so; "" when the server asks on its own."""
    if seen is not None and seen.task_id is not None:
        tool = seen.tool or (caller.task_tool(seen.task_id) if caller is not None else None)
        return f"asked by task {seen.task_id}" + (f" of the tool {tool}" if tool else "")
    if seen is not None and seen.tool is not None:
        return f"asked by the call of {seen.tool}"
    if seen is not None and seen.method is not None:
        return f"asked within {seen.method}"
    running = one_line(caller.calling, 60) if caller is not None and caller.running is not None else ""
    return f"came while your call of {running} runs: nothing on the wire ties it to that call" if running else ""


class Asker:
    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.painted = asyncio.Event()  # set once the first screen is on the terminal
        self.turn = asyncio.Lock()
        self.waiting = 0  # requests not shown yet
        self.declining = False  # the reviewer declined everything that was waiting
        self._roots: asyncio.Future[list[dict[str, Any]]] | None = None  # the reviewer's one answer to roots/list
        self._roots_waiting = 0  # roots/list requests waiting on that answer
        self.streak = 0  # declines in a row of what the server asked on its own
        self.aside: list[str] = []  # the headings of the requests set aside, oldest first
        self._shown = asyncio.Event()  # set: requests are shown; clear: they are set aside until `i`
        self._shown.set()
        self.on_aside: Callable[[str | None], None] = lambda _line: None  # the line over the tabs (None: gone)

    def handlers(self) -> ClientHandlers:
        """The server's requests (sampling, elicitation, roots) are answered by the reviewer in a dialog."""

        async def elicitation(params: dict[str, Any]) -> dict[str, Any]:
            if self.unattended("elicitation/create", "declined"):
                return {"action": "decline"}
            answer = await self.ask(ElicitScreen, params)
            return answer or {"action": "decline"}

        async def sampling(params: dict[str, Any]) -> dict[str, Any]:
            if self.unattended("sampling/createMessage", "declined"):
                raise HandlerError(-1, "declined: a checklist run does not wait on a person")
            answer = await self.ask(SampleScreen, params)
            if answer is None:
                raise HandlerError(-1, "the reviewer declined the sampling request")
            return answer

        return ClientHandlers(sampling=sampling, elicitation=elicitation, roots=self.roots)

    def unattended(self, method: str, answer: str) -> bool:
        """True when a checklist run answers `method` by its policy, not the reviewer: counted, and said once a
        run (a server that asks 10,000 times gets one notification and one note, with the count)."""
        ws = getattr(self.app, "workspace", None)  # the review app's; a bare App has none
        if ws is None or not ws.checking or ws.requests == "ask":
            return False
        if not ws.unattended:
            said = f"the server asks the client during the run: {method} {answer}, and so on (the Run dialog's policy)"
            self.app.notify(f"{said}; the review's notes count them", markup=False)
        ws.unattended[(method, answer)] += 1
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
        offered = own_directories(ws.target.args if ws else [])
        answer = await self.ask(RootsScreen, {}, offered)
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

    # ------------------------------------------------------------------------------------------ set aside
    @property
    def holding(self) -> bool:
        """Are the server's own requests set aside now (what it asks waits until `i`)?"""
        return not self._shown.is_set()

    def show_again(self) -> None:
        """`i`: the requests set aside come back, one dialog at a time, the oldest first."""
        self.streak = 0
        self._shown.set()

    def _hold(self) -> None:
        self._shown.clear()
        self._say()

    async def _held(self, heading: str) -> None:
        """Wait, set aside, until the reviewer asks for the server's requests again (`i`)."""
        self.aside.append(heading)
        self._say()
        try:
            await self._shown.wait()
        finally:
            self.aside.remove(heading)
            self._say()

    def _say(self) -> None:
        """The line over the tabs: what waits set aside (nothing: no line)."""
        if not self.aside:
            self.on_aside(None)
            return
        more = f" (and {len(self.aside) - 1} more)" if len(self.aside) > 1 else ""
        self.on_aside(f"i answers the server · set aside, waiting: {self.aside[0]}{more}")  # the key first: never cut

    # ------------------------------------------------------------------------------------------ one dialog
    async def ask(self, kind: type[AnswerScreen], *args: Any) -> dict[str, Any] | None:
        """The reviewer's answer to one request (None: declined), after every request before it. Its dialog, a
        `kind(*args)`, is made when it is shown (again, after it was set aside): a thousand requests waiting are a
        thousand coroutines, not a thousand screens."""
        self.waiting += 1
        shown, aside = False, False
        caller = getattr(self.app, "caller", None)  # the review app's (calling.py); a bare App has none
        within_call = caller is not None and caller.running is not None  # the reviewer's own call asks
        about = asked_for(WITHIN.get(), caller)  # the session says which request of ours this one belongs to
        try:
            await self.painted.wait()
            while True:
                held = aside or not within_call  # set aside, this request waits until the reviewer asks for it
                if held and not self._shown.is_set():
                    await self._held(kind.heading)
                async with self.turn:
                    if held and not self._shown.is_set():
                        continue  # set aside while it waited for its turn
                    if not shown:
                        self.waiting -= 1
                        shown = True
                    if self.declining:
                        return None
                    screen = kind(*args)
                    screen.asked_by = about
                    answer = await self._show(screen, within_call)
                if answer is LATER:  # a digit: set aside, and that tab shown
                    aside = True
                    self._hold()
                    self._show_tab(screen.tab_after)
                    continue
                return self._answered(answer, within_call)
        finally:
            if not shown:
                self.waiting -= 1  # given up while waiting (the connection ended)
            if self.waiting == 0:
                self.declining = False

    async def _show(self, screen: AnswerScreen, within_call: bool) -> dict[str, Any] | None:
        screen.waiting = self.waiting
        if within_call:
            # type the answer at once. Textual types AUTO_FOCUS a ClassVar but reads it from the instance
            # (Screen._update_auto_focus), so one screen can differ.
            screen.AUTO_FOCUS = FormDialog.AUTO_FOCUS  # type: ignore[misc]
        answered: asyncio.Future[dict[str, Any] | None] = asyncio.get_running_loop().create_future()
        self.app.push_screen(screen, lambda value: None if answered.done() else answered.set_result(value))
        try:
            return await answered
        except asyncio.CancelledError:  # withdrawn (notifications/cancelled) or the connection ended
            self._withdrawn(screen)
            raise

    def _answered(self, answer: dict[str, Any] | None, within_call: bool) -> dict[str, Any] | None:
        """The answer sent back; a decline of what the server asked on its own counts towards setting it aside."""
        if answer is DECLINE_ALL:
            self.declining = True
            return None
        if within_call:
            return answer
        refused = answer is None or answer.get("action") in ("decline", "cancel")  # an elicitation says which
        self.streak = self.streak + 1 if refused else 0
        if self.streak >= STREAK:  # it asks again as soon as it is declined: what it asks next waits
            self.streak = 0
            self._hold()
            self.app.notify(
                f"declined {STREAK} times in a row: what the server asks next waits, set aside (i answers it)",
                markup=False,
            )
        return answer

    def _show_tab(self, number: int) -> None:
        """The tab the reviewer's digit named, once the dialog it set aside has closed."""
        show = getattr(self.app, "action_show_tab", None)  # the review app's; a bare App has no tabs
        if show is not None and 0 < number <= len(TABS):
            show(TABS[number - 1].id)
