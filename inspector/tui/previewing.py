"""`b` on an app tool (Tools tab) or an app resource (its screen): the app in the reviewer's browser through
`mcp-review app`'s host page on 127.0.0.1 (mcp_review.preview_server), in a Chromium confined to it when one is
installed (mcp_review.preview_browser). The call that feeds the app its result is made like every call: its
arguments in the call editor, the reviewer's consent for a tool that may have side effects (refused: the app opens
without a result), and it is kept in the Calls tab. `b` again closes the preview and shows what the host page saw.
`B` needs no display: the page runs in the confined headless Chromium `mcp-review app TOOL --headless` uses, off
the app's loop, until it is done (or HEADLESS_SECONDS pass), and what the host page saw is shown.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual.app import App

from mcp_review import preview_browser
from mcp_review.apps import links
from mcp_review.calls import Consent
from mcp_review.catalog import Item, ServerSnapshot
from mcp_review.connection.session import Session
from mcp_review.preview import App as AppPreview
from mcp_review.preview import PreviewError, load
from mcp_review.preview_server import Preview
from mcp_review.text import one_line
from mcp_review.tui.calling import Caller
from mcp_review.tui.dialogs import ResultScreen
from mcp_review.tui.messages import PreviewReady
from mcp_review.workspace import Workspace

STYLES = {"fail": "bold red", "warn": "yellow", "info": "dim"}
HEADLESS_SECONDS = 20.0  # as `mcp-review app TOOL --headless`
NO_DISPLAY = "B runs it here in a confined headless Chromium and shows what it did"


class Previewer:
    def __init__(self, app: App[Any], ws: Workspace, caller: Caller, called: Callable[[dict[str, Any]], None]) -> None:
        self.app, self.ws, self.caller = app, ws, caller
        self.called = called  # keeps a call in the Calls tab and the saved state
        self.running: tuple[Preview, preview_browser.Launch, tempfile.TemporaryDirectory[str]] | None = None
        self.launch = preview_browser.open_window  # the browser step (tests play it)

    def ask(self, tool: Item | None, headless: bool = False) -> None:
        """`b`: close a running preview and show what it saw; else the call editor on `tool`, then consent (`B`:
        then the headless run)."""
        if self.running is not None:
            self.show(self.stop())
            return
        if tool is None or not links(tool):
            self.app.notify("this tool names no app resource (_meta.ui.resourceUri, openai/outputTemplate)")
            return
        if headless and preview_browser.find() is None:
            self.app.notify("B needs Chromium (chromium, google-chrome) on PATH; b serves the app for your browser")
            return
        self.caller.edit(tool, {}, lambda arguments, consent: self._load(tool, arguments, consent, headless))

    def show(self, seen: Text) -> None:
        """What the host page saw, in a dialog no toast lies over (the preview's own notes are in it)."""
        self.app.clear_notifications()
        self.app.push_screen(ResultScreen(seen))

    def _load(self, tool: Item, arguments: dict[str, Any], consent: Consent | None, headless: bool = False) -> None:
        name = tool.name or ""
        self.app.notify(f"opening {one_line(name, 60)}'s app…", markup=False)

        async def job(session: Session, _snapshot: ServerSnapshot) -> None:
            try:
                found: AppPreview | str = await load(session, name, arguments, consent=consent is not None)
            except PreviewError as e:
                found = str(e)
            self.app.post_message(PreviewReady(found, headless))

        assert self.ws.connection is not None
        self.ws.connection.submit(job)

    def ready(self, found: AppPreview | str, headless: bool = False) -> None:
        """The app was read (and called): serve it and open the browser (`headless`: run it, then say what it did)."""
        if isinstance(found, str):
            self.app.notify(found, severity="error", markup=False)
            return
        if found.call is not None:
            self.called(found.call.to_json())
        preview = Preview(found)
        preview.start()
        if headless:
            self.app.notify(f"running {found.uri} in a headless Chromium…", title="app preview", markup=False)
            self.app.run_worker(self._headless(preview, found.no_call), group="preview-headless")
            return
        profile = tempfile.TemporaryDirectory(prefix="mcp-review-preview-", ignore_cleanup_errors=True)
        launch = self.launch(preview.url, preview.proxy, preview.ports, profile.name)
        self.running = (preview, launch, profile)
        where = "open in your browser at" if launch.opened else "served at"
        said = [f"{found.uri} is {where} {preview.url} (b again: close it, see what it saw)"]
        said += [note for note in (found.no_call, launch.note) if note]
        if not launch.opened and preview_browser.find() is not None:
            said.append(NO_DISPLAY)
        self.app.notify("\n".join(said), title="app preview", timeout=20, markup=False)

    async def _headless(self, preview: Preview, no_call: str | None) -> None:
        browser = preview_browser.find()
        assert browser is not None  # `ask` made sure
        run = preview_browser.run_headless
        try:
            done = await asyncio.to_thread(
                run, preview.url, preview.proxy, preview.ports, preview.done, HEADLESS_SECONDS, browser
            )
        finally:
            preview.stop()
        notes = [no_call] if no_call else []
        if not done:
            notes.append(f"the page was not done within {HEADLESS_SECONDS:g} s: what it did until then")
        self.show(seen(preview, notes, "in a confined headless Chromium"))

    def stop(self) -> Text:
        """End the preview (its servers, the browser it started): what the host page saw."""
        if self.running is None:
            return Text()
        preview, launch, profile = self.running
        self.running = None
        if launch.process is not None:
            preview_browser.end_browser(launch.process)
        preview.stop()
        profile.cleanup()
        return seen(preview, [launch.note] if launch.note else [])


def seen(preview: Preview, notes: list[str], where: str = "") -> Text:
    """What the host page saw: the preview's findings and the bridge's messages, after `notes`."""
    out = Text()
    out.append(f"{preview.app.uri} in the host page at {preview.url}{' ' + where if where else ''}\n", style="bold")
    for note in notes:
        out.append(f"{note}\n", style="yellow")
    for f in preview.summary():
        out.append(f"{f.status} {one_line(f.message, 400)}\n", style=STYLES.get(f.status, ""))
    bridge = preview.bridge()
    out.append(f"bridge: {', '.join(bridge[:20]) or 'no message'}" + (" …" if len(bridge) > 20 else ""))
    return out
