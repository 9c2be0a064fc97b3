"""A report format is one record in `report.FORMATS`, and every face reads it: `check --format` offers its names,
`check --out` writes the format it names `beside`, and the app's export dialog lists it and names the file with its
suffix. Each test runs twice: on the registered formats, and with one more registered, which must appear everywhere
without any other change (a list of its own in the CLI or the dialog would leave it out)."""

from __future__ import annotations

import pytest
from textual.app import App
from textual.widgets import Select

from mcp_review.cli import parse
from mcp_review.output import scrub
from mcp_review.report import FORMATS, Format, render
from mcp_review.tui.dialogs import ExportScreen, export_review
from tests.tui_pilot import until
from tests.unit.test_reports import sample_review

EXTRA = Format("junit-copy", "copy.xml", "a format this test registers: the junit module again", "junit")


@pytest.fixture(params=["registered", "one-more"])
def formats(request, monkeypatch) -> list[Format]:
    if request.param == "one-more":
        monkeypatch.setitem(FORMATS, EXTRA.name, EXTRA)
    return list(FORMATS.values())


def test_check_offers_every_format(formats, capsys):
    for f in formats:
        assert parse(["check", "--format", f.name]).format == f.name
    with pytest.raises(SystemExit):
        parse(["check", "--format", "nope"])
    assert "invalid choice: 'nope' (choose from " + ", ".join(f"'{f.name}'" for f in formats) in capsys.readouterr().err


def test_the_short_review_names_the_complete_one_beside_it():
    assert [(f.name, f.beside) for f in FORMATS.values() if f.beside] == [("md", "md-full")]
    assert {f.beside for f in FORMATS.values() if f.beside} <= set(FORMATS)


async def test_the_export_dialog_writes_every_format(formats, tmp_path):
    review = sample_review()
    app: App[None] = App()
    async with app.run_test() as pilot:
        for f in formats:
            export_review(app, review, tmp_path)
            await until(pilot, lambda: isinstance(app.screen, ExportScreen))
            app.screen.query_one("#format", Select).value = f.name
            await pilot.pause()
            app.screen.action_submit()  # type: ignore[attr-defined]
            path = tmp_path / f"mcp-review-demo-notes.{f.suffix}"
            await until(pilot, path.is_file)
            assert path.read_text() == scrub(render(review, f.name))
    assert len(list(tmp_path.iterdir())) == len(formats) == len(set(f.suffix for f in formats))
