"""The reviewer's exports (`e`): the dialog, its preview and the files. Nothing of it is rendered or written on the
app's loop (a key waits for whatever runs there; 100,000 findings as JSON take seconds): the preview is rendered
and the export written in the workspace's files thread (`Workspace.render`, `Workspace.export`), behind a save
the review may be waiting on, and each answers with a message: the dialog hears `ExportScreen.Previewed`, the app
`Exported`.

An export is written as `check --out` writes it: each format with what its record asks for (`report.formats`), so
SARIF is placed in the server's repository and the short review has the complete one beside it. An existing file
is replaced only once the reviewer says so, and no folder is made.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from pathlib import Path

from mcp_review import claims
from mcp_review.report import FORMATS
from mcp_review.report.formats import Format, paths
from mcp_review.review import Review
from mcp_review.text import one_line
from mcp_review.tui import messages as msg
from mcp_review.tui.dialogs import ConfirmScreen, ExportScreen
from mcp_review.tui.dialogs.export import export_name
from mcp_review.tui.settings import reviewer
from mcp_review.tui.shell import Shell
from mcp_review.workspace import Workspace, verdict_said

PREVIEW = FORMATS["md"]  # the short review: its size is bounded (a PR comment's) whatever the review's


class Exporter:
    def __init__(self, shell: Shell, workspace: Workspace) -> None:
        self.shell, self.workspace = shell, workspace

    def start(self) -> None:
        """The dialog at once; its preview when the files thread has rendered it."""
        review = self.workspace.decided_on()
        review.reviewer = reviewer() or None  # the sign-off names who the app knows (as a decision dialog does)
        screen = ExportScreen(export_name(review.server.get("name")))
        # The preview goes to the dialog through the app's loop, never posted from the files thread: a screen finds
        # its app from another thread only once it is pushed, and a quick render was done before that (Textual's
        # NoActiveAppError in that thread, the preview lost, the dialog "rendering…" for good).
        loop = asyncio.get_running_loop()

        def rendered(done: concurrent.futures.Future[str]) -> None:
            error = done.exception()
            said = ExportScreen.Previewed(f"no preview: {error}" if error else done.result())
            loop.call_soon_threadsafe(screen.post_message, said)

        self.workspace.render(PREVIEW, review).add_done_callback(rendered)
        self.shell.ask(screen, lambda values: self._chosen(review, values))

    def _chosen(self, review: Review, values: dict[str, str] | None) -> None:
        if not values:
            return
        fmt = FORMATS[values["format"]]
        path = Path(values["path"]).expanduser()
        path = path if path.is_absolute() else self.workspace.export_dir / path
        if not path.parent.is_dir():  # a mistyped folder is never made (write_text would make it)
            self.shell.notify(f"no folder {path.parent}: nothing written", severity="error", markup=False)
            return
        there = [p for p in paths(fmt, path) if p.exists()]
        if not there:
            self._write(fmt, review, path)
            return
        question = f"{' and '.join(map(str, there))} exist{'s' if len(there) == 1 else ''}. Replace with this export?"
        self.shell.ask(
            ConfirmScreen("Replace the file?", question, yes="Replace"),
            lambda yes: self._write(fmt, review, path) if yes else self.shell.notify("nothing written", markup=False),
        )

    def _write(self, fmt: Format[Review], review: Review, path: Path) -> None:
        self.shell.status(f"exporting {fmt.name} to {path}…")

        def written(done: concurrent.futures.Future[list[Path]]) -> None:
            error = done.exception()
            said = f"cannot write {path}: {getattr(error, 'strerror', None) or error}" if error else None
            self.shell.post_message(msg.Exported([] if error else done.result(), said))

        self.workspace.export(fmt, review, path).add_done_callback(written)

    def exported(self, message: msg.Exported) -> None:
        """The export is written, or why not: said in a notification, the status line back to the verdict."""
        if message.error is not None:
            self.shell.notify(one_line(message.error, 300), severity="error", markup=False)
            self.shell.status(message.error, failed=True)
            return
        first, *beside = message.paths
        also = f" and {', '.join(p.name for p in beside)} beside it" if beside else ""
        self.shell.notify(f"wrote {first}{also}", markup=False)
        review = self.workspace.review
        if review is not None:  # as a save says it: never the verdict the repository's decisions would make
            self.shell.status(f"{verdict_said(review)} · exported to {first}", whole=bool(claims.of(review)))
