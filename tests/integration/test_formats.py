"""Every report family is records, and every face reads them.

Three families, each a table of `Format` records (`report.formats`): the review's (`report.FORMATS`), a diff's
(`report.changes.FORMATS`) and a fleet's (`fleet.aggregate.FORMATS`). The faces, and which family each offers:

| family | command line | app's export dialog | GitHub Action | fleet |
|---|---|---|---|---|
| review | `check --format`, `--out` | every format | its files, named by the records | a run (SARIF) and a suite (JUnit) per server |
| diff | `diff --format`, `--out` | inside the review it exports | `diff --format json`, into the review | none: a fleet pins nothing |
| fleet | `fleet`/`merge --format`, `--out` | none | none | its report, and `--out DIR/`: a file per server |

A record says what a face must give it (the server's repository, a companion file) and every face gives it through
`formats.write`: the app's SARIF export is placed as `check --format sarif` places it, on a real server's review
in both faces, and the app's `md` has its `md-full` beside it. Each walk runs twice: on the registered formats, and
with one more format registered in each family, which must appear in every face of its family without any other
change (a list of a face's own would leave it out).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from textual import on
from textual.app import App
from textual.screen import Screen
from textual.widgets import Select

from mcp_review import lock
from mcp_review.catalog import Item, ServerSnapshot
from mcp_review.cli import parse
from mcp_review.cli.action import STEM, WRITTEN, write_review
from mcp_review.cli.common import UsageError
from mcp_review.diff import diff
from mcp_review.fleet import aggregate
from mcp_review.output import scrub
from mcp_review.report import FORMATS, changes
from mcp_review.report.formats import Format, paths
from mcp_review.report.sarif_valid import problems
from mcp_review.review import Review
from mcp_review.targets import stdio_target
from mcp_review.tui import messages as msg
from mcp_review.tui.app import ReviewApp
from mcp_review.tui.dialogs import ConfirmScreen, ExportScreen
from mcp_review.tui.exporting import Exporter
from mcp_review.workspace import Workspace
from tests.integration.test_check_cli import check
from tests.integration.test_sarif import located
from tests.support import SERVERS, fixture_argv
from tests.tui_pilot import run_checks, until
from tests.unit.test_reports import sample_review

ONE_MORE = {  # a format each test registers in each family: an existing renderer under another name and suffix
    "review": Format("junit-copy", "copy.xml", "the junit module again", "report.junit:render"),
    "diff": Format("md-copy", "copy.md", "the diff's markdown again", "report.changes:markdown"),
    "fleet": Format("md-copy", "copy.md", "the fleet's markdown again", "fleet.aggregate:markdown"),
}
FAMILIES = {"review": FORMATS, "diff": changes.FORMATS, "fleet": aggregate.FORMATS}
SOURCE = 'def search(q):\n    """Search the notes."""\n\n\ndef create_note(text):\n    """Add a note."""\n'


@pytest.fixture(params=["registered", "one-more"])
def one_more(request, monkeypatch) -> bool:
    if request.param == "one-more":
        for family, fmt in ONE_MORE.items():
            monkeypatch.setitem(FAMILIES[family], fmt.name, fmt)
    return request.param == "one-more"


def repository(folder: Path, source: str = SOURCE) -> Path:
    """A server's repository: its source in git, as code scanning's checkout has it."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "server.py").write_text(source)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    subprocess.run(["git", "-C", str(folder), "add", "."], check=True)
    return folder.resolve()


def locks(folder: Path) -> tuple[Path, Path]:
    """Two pins of a server: `search` read-only, then not, and `drop` added (safety changes, and the cost)."""
    made = []
    for name, tools in {
        "old": [{"name": "search", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}}],
        "new": [{"name": "search", "inputSchema": {"type": "object"}}, {"name": "drop", "inputSchema": {}}],
    }.items():
        snap = ServerSnapshot.unreachable({}, "")
        snap.server_info = {"name": "notes", "version": name}
        snap.lists["tool"].items = [Item("tool", t, 0, 0, i) for i, t in enumerate(tools)]
        lock.save(folder / f"{name}.lock", lock.build(snap, ("cl100k_base",)))
        made.append(folder / f"{name}.lock")
    return made[0], made[1]


def run(*argv: str) -> int:
    """A command as `mcp-review` runs it, in this process: the formats registered here are the ones it reads."""
    args = parse(list(argv))
    return int(args.run(args))


# ------------------------------------------------------------------------------------------------ the command line
def test_every_command_offers_its_familys_formats(one_more, capsys):
    offered = {"check": FORMATS, "diff": {"table": None, **changes.FORMATS}, "fleet": aggregate.FORMATS}
    offered["merge"] = aggregate.FORMATS
    for command, formats in offered.items():
        extra = ["x.json"] if command == "merge" else []
        for name in formats:
            assert parse([command, *extra, "--format", name]).format == name
        with pytest.raises(SystemExit):
            parse([command, *extra, "--format", "nope"])
        choices = ", ".join(f"'{name}'" for name in formats)
        assert f"invalid choice: 'nope' (choose from {choices})" in capsys.readouterr().err, command
    assert ("md-copy" in changes.FORMATS) is one_more and ("junit-copy" in FORMATS) is one_more


def test_the_short_review_names_the_complete_one_beside_it():
    assert [(f.name, f.beside.name) for f in FORMATS.values() if f.beside] == [("md", "md-full")]
    assert all(f.beside is FORMATS[f.beside.name] for f in FORMATS.values() if f.beside)
    assert paths(FORMATS["md"], "out/review.md") == [Path("out/review.md"), Path("out/review.full.md")]
    assert [f.name for f in FORMATS.values() if f.root] == ["sarif"], "the one format placed in the repository"


def test_diff_writes_each_out_in_the_format_its_name_says(one_more, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no review config of this repository's
    old, new = locks(tmp_path)
    outs = {f.name: tmp_path / f"changes.{f.suffix}" for f in changes.FORMATS.values()}
    assert (
        run("diff", str(old), str(new), "--fail-on", "none", "--format", "json", *(f"--out={o}" for o in outs.values()))
        == 0
    )
    document = json.loads(capsys.readouterr().out)
    assert "safety" in {c["class"] for c in document["changes"]}
    for name, out in outs.items():
        assert out.read_text() == scrub(changes.FORMATS[name].render(document)), name
    assert problems(json.loads(outs["sarif"].read_text())) == []
    with pytest.raises(UsageError) as said:
        run("diff", str(old), str(new), "--out", "changes.pdf")
    assert all(f".{f.suffix}" in str(said.value) for f in changes.FORMATS.values())


def test_fleet_reports_write_each_out_in_the_format_its_name_says(one_more, tmp_path, capsys):
    files = []
    for key, name in (("a", "demo-notes"), ("b", "other")):
        review = sample_review()
        review.server = {**review.server, "name": name}
        files.append(tmp_path / f"{key}.json")
        files[-1].write_text(FORMATS["json"].render(review))
    outs = {e: tmp_path / f"fleet{e}" for f in aggregate.FORMATS.values() for e in f.endings()}
    argv = ["merge", *map(str, files), "--format", "json", *(f"--out={o}" for o in outs.values())]
    assert run(*argv, f"--out={tmp_path}/per-server/") == 1  # a server failed
    rows = aggregate.load(files)
    assert json.loads(capsys.readouterr().out) == aggregate.as_json(rows)
    for ending, out in outs.items():
        fmt = next(f for f in aggregate.FORMATS.values() if ending in f.endings())
        assert out.read_text() == scrub(fmt.render(rows)), ending
    sarif = aggregate.FORMATS["sarif"]
    folder = sorted(p.name for p in (tmp_path / "per-server").iterdir())
    assert folder == [f"{row.key}.{sarif.suffix}" for row in sorted(rows, key=lambda r: r.key)]
    # each server's run is the run the review's own SARIF format makes of it
    one = json.loads((tmp_path / "per-server" / f"a.{sarif.suffix}").read_text())["runs"][0]
    own = json.loads(FORMATS["sarif"].render(Review.from_json(json.loads(files[0].read_text()))))["runs"][0]
    assert one["results"] == own["results"] and one["tool"] == own["tool"]
    with pytest.raises(UsageError) as said:
        run("merge", str(files[0]), "--out", "fleet.pdf")
    assert all(e in str(said.value) for f in aggregate.FORMATS.values() for e in f.endings())
    assert "DIR/" in str(said.value)


# ------------------------------------------------------------------------------------------------ the GitHub Action
def test_the_actions_files_are_named_and_given_what_their_records_ask(tmp_path):
    repo = repository(tmp_path / "repo")
    out = repo / "mcp-review-results"
    out.mkdir()
    (out / "stale.py").write_text(SOURCE)  # the output folder is never searched
    review = sample_review()
    written = write_review(review, repo, out)
    assert set(WRITTEN) <= set(FORMATS)
    for name, files in written.items():
        assert files == [out / p.name for p in paths(FORMATS[name], out / f"{STEM}.{FORMATS[name].suffix}")]
    short, full = written["md"]
    assert full.name == "review.full.md" and f"`{full.name}` beside" in short.read_text()
    assert full.read_text() == scrub(FORMATS["md-full"].render(review))
    (sarif,) = written["sarif"]
    assert sarif.read_text() == scrub(FORMATS["sarif"].render(review, root=repo, skip=out))
    doc = json.loads(sarif.read_text())
    assert problems(doc) == []
    placed = {
        loc["physicalLocation"]["artifactLocation"]["uri"]
        for r in doc["runs"][0]["results"]
        for loc in r["locations"]
        if "physicalLocation" in loc
    }
    assert placed == {"server.py"}


# ------------------------------------------------------------------------------------------------ the app
class Face(App[None]):
    """The export as the app does it, on a bare Textual app that is its shell (`tui/shell.py`): the exporter,
    the workspace's files thread and the `Exported` message, without the review screen around them."""

    def __init__(self, workspace: Workspace) -> None:
        super().__init__()
        self.exporter = Exporter(self, workspace)
        self.heard: list[msg.Exported] = []

    def status(self, text: str, failed: bool = False, whole: bool = False) -> None:
        pass

    def ask(self, screen: Screen, then) -> None:  # type: ignore[type-arg]
        self.push_screen(screen, then)

    @on(msg.Exported)
    def exported(self, message: msg.Exported) -> None:
        self.heard.append(message)
        self.exporter.exported(message)


async def export(pilot, app: Face, fmt: str, path: Path) -> None:
    app.exporter.start()
    await until(pilot, lambda: isinstance(app.screen, ExportScreen) and app.screen.preview is not None)
    app.screen.query_one("#format", Select).value = fmt
    await pilot.pause()
    app.screen.query_one("#path").value = str(path)  # type: ignore[attr-defined]
    await pilot.pause()
    app.screen.action_submit()  # type: ignore[attr-defined]


async def test_the_export_dialog_writes_every_format_with_what_its_record_asks(one_more, tmp_path):
    repo = repository(tmp_path / "repo")
    review = sample_review()
    review.changes = diff(*map(lock.load, locks(tmp_path))).to_json()  # the diff family rides in every export
    ws = Workspace(stdio_target(["true"]), export_dir=repo)  # SARIF: placed in the git repository it works in
    ws.review = review
    app = Face(ws)
    async with app.run_test() as pilot:
        for f in FORMATS.values():  # each chosen in the dialog's list (a value it does not offer is refused)
            path = tmp_path / f.name / f"mcp-review-demo-notes.{f.suffix}"
            path.parent.mkdir()
            heard = len(app.heard)
            await export(pilot, app, f.name, path)
            await until(pilot, lambda heard=heard: len(app.heard) > heard)
            assert app.heard[-1].error is None and app.heard[-1].paths == paths(f, path)
            full = f.beside and paths(f, path)[1].name
            assert path.read_text() == scrub(f.render(review, full=full, root=repo)), f.name
            if f.beside:
                assert paths(f, path)[1].read_text() == scrub(f.beside.render(review)), "the complete review beside"
            assert sorted(path.parent.iterdir()) == sorted(paths(f, path))
        # the short review again, over both files: the reviewer is asked, naming each, and nothing is replaced
        before = (tmp_path / "md" / "mcp-review-demo-notes.full.md").read_text()
        await export(pilot, app, "md", tmp_path / "md" / "mcp-review-demo-notes.md")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "mcp-review-demo-notes.md and" in str(app.screen.reason)  # type: ignore[attr-defined]
        await pilot.click("#no")
        assert (tmp_path / "md" / "mcp-review-demo-notes.full.md").read_text() == before
    ws.close()


@pytest.fixture(scope="module")
def steering(tmp_path_factory) -> tuple[Path, dict]:
    """A real server's repository (steering.py, vulnerable) and the SARIF `check` writes of it from there (the
    default root: the git repository of the working directory)."""
    repo = repository(tmp_path_factory.mktemp("steering") / "repo", (SERVERS / "steering.py").read_text())
    out = repo.parent / "cli.sarif.json"
    done = check("--format", "sarif", "--out", str(out), "-q", "--", *fixture_argv("steering", "vulnerable"), cwd=repo)
    assert done.returncode == 1, done.stderr
    return repo, json.loads(out.read_text())


async def test_the_apps_sarif_is_valid_and_placed_as_checks_is(steering, tmp_path):
    repo, cli = steering
    app = ReviewApp(stdio_target(fixture_argv("steering", "vulnerable")), export_dir=repo, state_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.workspace.snapshot is not None)
        await run_checks(pilot, app, calls="none")  # as check's default: no call
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, ExportScreen))
        app.screen.query_one("#format", Select).value = "sarif"
        await pilot.pause()
        app.screen.query_one("#path").value = str(tmp_path / "app.sarif.json")  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await until(pilot, lambda: (tmp_path / "app.sarif.json").is_file())
    doc = json.loads((tmp_path / "app.sarif.json").read_text())
    assert problems(doc) == []
    app_places, cli_places = located(doc), located(cli)
    assert app_places == cli_places and any(app_places.values()), "the same findings on the same lines"
    assert doc["runs"][0]["originalUriBaseIds"] == cli["runs"][0]["originalUriBaseIds"]
