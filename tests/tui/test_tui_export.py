"""The export never holds the app's loop: its preview is rendered and its files written in the workspace's files
thread, and the app answers keys meanwhile.

The review exported here is the app's own (the demo server's, before any run) with one difference: making its JSON
waits until the test lets go, as a big review's does for seconds (100,000 findings). The test holds that point while
the reviewer works, so what it asserts is an order, not a time: the dialog opens and a key is answered before the
preview is rendered and before the export is written, and what is written afterwards is the export asked for. A
render on the loop would either be done before the key (the preview there at once, the file written before `2` is
handled) or stop the loop where the review waits (it is said, `on_loop`, instead of waiting there).
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import json
import threading
from typing import Any

from textual.message import Message
from textual.widgets import Input, Select, TabbedContent, TextArea

from mcp_review.review import Review
from mcp_review.targets import demo_target
from mcp_review.tui import messages as msg
from mcp_review.tui.app import ReviewApp
from mcp_review.tui.dialogs import ExportScreen
from mcp_review.tui.dialogs.export import RENDERING
from tests.tui_pilot import until


@dataclasses.dataclass(repr=False)
class HeldReview(Review):
    """A review whose JSON is made only once `go` is set; `making` is set when a thread starts making it."""

    go: threading.Event = dataclasses.field(default_factory=threading.Event)
    making: threading.Event = dataclasses.field(default_factory=threading.Event)
    on_loop: bool = False  # made on the app's loop (the thread running the test and the app): never waited there

    def to_json(self, findings: list[Any] | None = None) -> dict[str, Any]:
        if threading.current_thread() is threading.main_thread():
            self.on_loop = True
        else:
            self.making.set()
            self.go.wait(60)  # a hang bound: the test sets it long before
        return super().to_json(findings)


async def test_the_app_answers_keys_while_the_export_is_rendered_and_written(tmp_path):
    app = ReviewApp(demo_target(), export_dir=tmp_path, state_dir=tmp_path)
    heard: list[Message] = []
    async with app.run_test(size=(80, 24), message_hook=heard.append) as pilot:
        ws = app.workspace
        await until(pilot, lambda: ws.snapshot is not None)
        own = ws.decided_on()
        ws.review = review = HeldReview(**{f.name: getattr(own, f.name) for f in dataclasses.fields(Review)})

        ws.save()  # a decision's save, say: the files thread now waits in the review's JSON
        await until(pilot, lambda: review.making.is_set() or review.on_loop)
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, ExportScreen))
        screen = app.screen
        assert screen.preview is None and screen.query_one(".preview", TextArea).text == RENDERING
        review.go.set()  # the save is written; the preview, queued behind it, arrives in the open dialog
        await until(pilot, lambda: screen.preview is not None)
        assert "NOT_CHECKED" in screen.preview

        review.go.clear()
        review.making.clear()
        screen.query_one("#format", Select).value = "json"
        await pilot.pause()
        path = tmp_path / "big.json"
        screen.query_one("#path", Input).value = str(path)
        await pilot.press("ctrl+s")
        await until(pilot, lambda: review.making.is_set() or review.on_loop)
        assert not review.on_loop, "the export is made in the files thread, not on the app's loop"
        await pilot.press("2")  # while it is being written, the reviewer goes to the Tools tab
        await until(pilot, lambda: app.main.query_one(TabbedContent).active == "tab-tools")
        assert not isinstance(app.screen, ExportScreen)
        assert not path.exists() and not any(isinstance(m, msg.Exported) for m in heard), "answered first"

        review.go.set()
        await until(pilot, lambda: any(isinstance(m, msg.Exported) for m in heard))
        (exported,) = [m for m in heard if isinstance(m, msg.Exported)]
        assert exported.error is None and exported.paths == [path]
        assert json.loads(path.read_text())["server"]["name"] == own.server["name"]
        assert not review.on_loop, "nothing of the export was made on the app's loop"


class DoneElsewhere(concurrent.futures.Future[str]):
    """A render finished by another thread the moment the exporter listens for it: before the dialog is pushed."""

    def add_done_callback(self, fn: Any) -> None:
        super().add_done_callback(fn)
        finisher = threading.Thread(target=self.set_result, args=("the preview",))
        finisher.start()
        finisher.join()


async def test_a_preview_rendered_before_its_dialog_is_pushed_still_reaches_it(tmp_path):
    """Seen in a full run: a quick render, done in the files thread before the dialog was on screen, posted to a
    screen that could not find its app from there; the preview was lost and the dialog said "rendering" for good."""
    app = ReviewApp(demo_target(), export_dir=tmp_path, state_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        ws = app.workspace
        await until(pilot, lambda: ws.snapshot is not None)
        ws.render = lambda fmt, review: DoneElsewhere()  # type: ignore[method-assign]
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, ExportScreen))
        screen = app.screen
        await until(pilot, lambda: screen.preview is not None, 10)
        assert screen.query_one(".preview", TextArea).text == "the preview"
