"""Exporting the review (before any checklist run too: its token report and calls): a format, a path, and a
preview of the markdown; an existing file is replaced only once the reviewer says so, and no folder is made."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Input, Select, Static

from mcp_review.output import write_text
from mcp_review.report import FORMATS
from mcp_review.review import Review
from mcp_review.tui.dialogs.base import Dialog
from mcp_review.tui.dialogs.common import DIALOG_CSS
from mcp_review.tui.dialogs.confirm import ConfirmScreen


def export_review(app: App[Any], review: Review, directory: Path) -> None:
    """Ask for a format and a path (relative ones under `directory`), then write the review there."""
    from mcp_review.report import render, render_chunks

    name = "".join(c if c.isalnum() or c in "-_." else "-" for c in review.server.get("name") or "server")

    def write(path: Path, format: str) -> None:
        try:
            write_text(path, render_chunks(review, format))
        except OSError as e:
            app.notify(f"cannot write {path}: {e.strerror}", severity="error", markup=False)
            return
        app.notify(f"wrote {path}", markup=False)

    def chosen(values: dict[str, str] | None) -> None:
        if not values:
            return
        path = Path(values["path"]).expanduser()
        path = path if path.is_absolute() else directory / path
        if not path.parent.is_dir():  # a mistyped folder is never made (write_text would make it)
            app.notify(f"no folder {path.parent}: nothing written", severity="error", markup=False)
            return
        if not path.exists():
            write(path, values["format"])
            return
        question = f"{path} exists. Replace it with this export?"
        app.push_screen(
            ConfirmScreen("Replace the file?", question, yes="Replace"),
            lambda yes: write(path, values["format"]) if yes else app.notify("nothing written", markup=False),
        )

    app.push_screen(ExportScreen(f"mcp-review-{name}", render(review, "md")), chosen)


class ExportScreen(Dialog[dict[str, str] | None]):
    """Export the review: a format, a path, and a preview of the markdown."""

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS = [Binding("ctrl+s", "submit", "Export", id="export")]

    def __init__(self, stem: str, preview: str) -> None:
        super().__init__()
        self.stem, self.preview = stem, preview

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text("Export the review", style="bold"))
            yield Select([(f, f) for f in FORMATS], value="md", allow_blank=False, id="format")
            yield Input(value=f"{self.stem}.{FORMATS['md'].suffix}", id="path")
            with VerticalScroll(id="result"):
                yield Static(Text(self.preview))
            yield from self.buttons("Export", "export")

    @on(Select.Changed, "#format")
    def format_changed(self, event: Select.Changed) -> None:
        """The path typed keeps its folder and name: only another format's suffix is swapped for this one's."""
        field, suffix = self.query_one("#path", Input), FORMATS[str(event.value)].suffix
        path = field.value.strip() or self.stem
        for old in sorted((f".{f.suffix}" for f in FORMATS.values()), key=len, reverse=True):  # sarif.json first
            if path.endswith(old):
                path = path.removesuffix(old)
                break
        field.value = f"{path}.{suffix}"

    def draft_key(self) -> str:
        return f"export {self.stem}"

    def submit(self) -> None:
        path = self.query_one("#path", Input).value.strip()
        if path:
            self.dismiss({"format": str(self.query_one("#format", Select).value), "path": path})
