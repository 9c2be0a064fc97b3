"""`b` on an app tool (Tools tab) or an app resource (its screen): the app in the reviewer's browser through
`mcp-review app`'s host page on 127.0.0.1 (mcp_review.preview_server), in a Chromium confined to it when one is
installed (mcp_review.preview_browser). The call that feeds the app its result is made like every call: its
arguments in the call editor, the reviewer's consent for a tool that may have side effects (refused: the app opens
without a result), and it is kept in the Calls tab. `b` again closes the preview and shows what the host page saw.
"""

from __future__ import annotations

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


class Previewer:
    def __init__(self, app: App[Any], ws: Workspace, caller: Caller, called: Callable[[dict[str, Any]], None]) -> None:
        self.app, self.ws, self.caller = app, ws, caller
        self.called = called  # keeps a call in the Calls tab and the saved state
        self.running: tuple[Preview, preview_browser.Launch, tempfile.TemporaryDirectory[str]] | None = None
        self.launch = preview_browser.open_window  # the browser step (tests play it)

    def ask(self, tool: Item | None) -> None:
        """`b`: close a running preview and show what it saw; else the call editor on `tool`, then consent."""
        if self.running is not None:
            self.app.push_screen(ResultScreen(self.stop()))
            return
        if tool is None or not links(tool):
            self.app.notify("this tool names no app resource (_meta.ui.resourceUri, openai/outputTemplate)")
            return
        self.caller.edit(tool, {}, lambda arguments, consent: self._load(tool, arguments, consent))

    def _load(self, tool: Item, arguments: dict[str, Any], consent: Consent | None) -> None:
        name = tool.name or ""
        self.app.notify(f"opening {one_line(name, 60)}'s app…", markup=False)

        async def job(session: Session, _snapshot: ServerSnapshot) -> None:
            try:
                found: AppPreview | str = await load(session, name, arguments, consent=consent is not None)
            except PreviewError as e:
                found = str(e)
            self.app.post_message(PreviewReady(found))

        assert self.ws.connection is not None
        self.ws.connection.submit(job)

    def ready(self, found: AppPreview | str) -> None:
        """The app was read (and called): serve it and open the browser."""
        if isinstance(found, str):
            self.app.notify(found, severity="error", markup=False)
            return
        if found.call is not None:
            self.called(found.call.to_json())
        preview = Preview(found)
        preview.start()
        profile = tempfile.TemporaryDirectory(prefix="mcp-review-preview-", ignore_cleanup_errors=True)
        launch = self.launch(preview.url, preview.proxy, preview.ports, profile.name)
        self.running = (preview, launch, profile)
        where = "open in your browser at" if launch.opened else "served at"
        said = [f"{found.uri} is {where} {preview.url} (b again: close it, see what it saw)"]
        said += [note for note in (found.no_call, launch.note) if note]
        self.app.notify("\n".join(said), title="app preview", timeout=20, markup=False)

    def stop(self) -> Text:
        """End the preview (its servers, the browser it started): what the host page saw."""
        out = Text()
        if self.running is None:
            return out
        preview, launch, profile = self.running
        self.running = None
        if launch.process is not None:
            preview_browser.end_browser(launch.process)
        preview.stop()
        profile.cleanup()
        out.append(f"{preview.app.uri} in the host page at {preview.url}\n", style="bold")
        if launch.note:
            out.append(f"{launch.note}\n", style="yellow")
        for f in preview.summary():
            out.append(f"{f.status} {one_line(f.message, 400)}\n", style=STYLES.get(f.status, ""))
        bridge = preview.bridge()
        out.append(f"bridge: {', '.join(bridge[:20]) or 'no message'}" + (" …" if len(bridge) > 20 else ""))
        return out
