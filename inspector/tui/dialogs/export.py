"""Exporting the review: a format (one of `report.FORMATS`), a path with the files it makes said under it (the
short review writes the complete one beside it), and a preview of the short review, which is rendered off the
app's loop and shown when it arrives (`show_preview`). What is done with the answer is `tui/exporting.py`'s."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, Select, Static, TextArea

from mcp_review.report import FORMATS
from mcp_review.report.formats import paths, stem
from mcp_review.tui.dialogs.base import Dialog, Draft
from mcp_review.tui.dialogs.common import DIALOG_CSS

RENDERING = "rendering the preview…"


class ExportScreen(Dialog[dict[str, str] | None]):
    """Export the review: a format, a path, and a preview of the short review (None until it is rendered)."""

    DEFAULT_CSS = (
        DIALOG_CSS
        + """
    #files { height: 1; color: $text-muted; }
    .preview { height: 1fr; border: none; padding: 0; }
    """
    )
    BINDINGS = [Binding("ctrl+s", "submit", "Export", id="export")]

    @dataclass
    class Previewed(Message):
        """The preview, rendered off the loop (or why it could not be), posted from the thread that rendered it."""

        text: str

    def __init__(self, stem: str, preview: str | None = None) -> None:
        super().__init__()
        self.stem, self.preview = stem, preview

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text("Export the review", style="bold"))
            yield Select([(f, f) for f in FORMATS], value="md", allow_blank=False, id="format")
            yield Input(value=f"{self.stem}.{FORMATS['md'].suffix}", id="path")
            yield Static(id="files")
            # a text area draws only the lines in view: 60,000 characters as one Static were laid out whole, on the
            # loop, when they arrived (0.5 s on a busy machine); no id, so no draft keeps the preview
            yield TextArea(RENDERING if self.preview is None else self.preview, read_only=True, classes="preview")
            yield from self.buttons("Export", "export")

    def on_mount(self) -> None:
        super().on_mount()
        self._say_files()

    @on(Previewed)
    def show_preview(self, message: Previewed) -> None:
        """The preview arrives (server text: shown as text, never markup; read-only)."""
        self.preview = message.text
        self.query_one(".preview", TextArea).load_text(message.text)

    @on(Select.Changed, "#format")
    def format_changed(self, event: Select.Changed) -> None:
        """The path typed keeps its folder and name: only another format's suffix is swapped for this one's."""
        field = self.query_one("#path", Input)
        field.value = f"{stem(FORMATS, field.value.strip() or self.stem)}.{FORMATS[str(event.value)].suffix}"

    @on(Input.Changed, "#path")
    def _say_files(self) -> None:
        """Every file the export makes, when it is more than the one typed (md: the complete review beside it)."""
        typed = self.query_one("#path", Input).value.strip()
        fmt = FORMATS.get(str(self.query_one("#format", Select).value))  # none while the dialog is torn down
        made = paths(fmt, typed)[1:] if fmt and typed else []
        said = f"also writes {', '.join(p.name for p in made)} beside it" if made else ""
        self.query_one("#files", Static).update(Text(said))

    def restore(self, draft: Draft) -> None:
        super().restore(draft)
        self._say_files()

    def draft_key(self) -> str:
        return f"export {self.stem}"

    def submit(self) -> None:
        path = self.query_one("#path", Input).value.strip()
        if path:
            self.dismiss({"format": str(self.query_one("#format", Select).value), "path": path})


def export_name(server: str | None) -> str:
    """The file name an export starts with: the server's name, made safe for a file name."""
    return "mcp-review-" + "".join(c if c.isalnum() or c in "-_." else "-" for c in server or "server")
