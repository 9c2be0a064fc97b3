"""The Checklist tab: the findings grouped by pack and seed section (worst first), a filter, every selected rule
live while checks run, the highlighted finding in full with its evidence; and the reviewer's decisions on it
(waive, attest, note), recorded in the review. The app saves them when told (`Decided`)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from itertools import groupby

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.css.query import NoMatches
from textual.widgets import DataTable, Input, Static
from textual.widgets.data_table import CellDoesNotExist

from checks.core import Rule
from inspector.review import Attestation, Finding, Remark, Review, Waiver, rank
from inspector.text import one_line, visible
from inspector.tui.dialogs import DecisionScreen, ResultScreen
from inspector.tui.messages import ChecksProgress, Decided, RerunAsked
from inspector.tui.panes.keys import FilteredPane, RowTable
from inspector.tui.panes.table import Filler, Row, reset_table, split_filter
from inspector.tui.panes.wire import WireLog
from inspector.tui.styles import status_style

CHECK_ROWS = 10_000  # findings shown at most, the worst: 10,000 tools make over 100,000 (mostly passes)
PLACEHOLDER = "filter findings: status:fail, status:blocking… and/or any text"


def by_section(item: Finding | Rule) -> tuple[str, str]:
    """How the checklist groups rules and findings: pack, then seed section."""
    return item.pack, item.source


MAX_EVIDENCE = 50  # wire entries shown of one finding's evidence


class ChecklistPane(FilteredPane):
    COLUMNS = ("status", "rule", "finding")  # the subject leads the finding: it fits in 80 columns
    BINDINGS = [
        Binding("w", "waive", "Waive", id="waive", tooltip="Waive the highlighted finding, with a reason"),
        Binding("a", "attest", "Attest", id="attest", tooltip="Attest the highlighted manual rule"),
        Binding("n", "note", "Note", id="note", tooltip="A note on the highlighted finding, or the review"),
        Binding("u", "rerun('rule')", "Re-run rule", id="rerun-rule", show=False, tooltip="The highlighted finding's"),
        Binding("p", "rerun('pack')", "Re-run pack", id="rerun-pack", show=False, tooltip="Its whole pack"),
    ]

    def __init__(self, wire_log: WireLog) -> None:
        super().__init__("5 Checklist", id="tab-checks")
        self.wire_log = wire_log  # the evidence a finding cites
        self.review: Review | None = None
        self.shown_findings: list[Finding | None] = []  # None: a section's header row, or a rule running
        self.live: dict[str, str] = {}  # rule id -> queued, running or its worst status, while checks run
        self.filler = Filler()

    def compose(self) -> ComposeResult:
        yield Input(placeholder=PLACEHOLDER, id="check-filter")
        yield RowTable(id="checks", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(classes="detail"):  # focusable: the keys and the mouse scroll it
            yield Static(id="check-detail")

    def on_mount(self) -> None:
        reset_table(self.query_one(DataTable), self.COLUMNS)

    def show(self, review: Review | None) -> None:
        self.review = review
        self._fill(self.query_one(Input).value)

    def highlighted(self) -> Finding | None:
        table = self.query_one(DataTable)
        if not table.row_count or table.cursor_row >= len(self.shown_findings):
            return None
        return self.shown_findings[table.cursor_row]

    def _fill(self, needle: str) -> None:
        """Grouped by pack and seed section (a header row each, with its worst status), worst findings first; of
        more than CHECK_ROWS findings, the worst CHECK_ROWS (the filter searches all of them)."""
        row, was = self.query_one(DataTable).cursor_row, self.highlighted()
        table = reset_table(self.query_one(DataTable), self.COLUMNS)
        statuses, text = split_filter(needle)
        findings = [
            f
            for f in (self.review.findings if self.review else [])
            if (not statuses or f.effective in statuses)
            and (not text or text in f"{f.effective} {f.rule} {f.subject or ''} {f.message}".lower())
        ]
        shown = sorted(findings, key=lambda f: rank(f.effective))[:CHECK_ROWS]
        more = f"; the worst {CHECK_ROWS:,} of {len(findings):,} shown" if len(findings) > CHECK_ROWS else ""
        self.query_one("#check-filter", Input).placeholder = PLACEHOLDER + more
        entries: list[
            Finding | tuple[str, str, str, int]
        ] = []  # a finding, or a section's (worst, pack, source, count)
        ordered = sorted(shown, key=lambda f: (f.pack, f.source, rank(f.effective), f.rule))
        sections = [list(group) for _key, group in groupby(ordered, key=by_section)]
        sections.sort(key=lambda items: rank(items[0].effective))  # sections with a fail or blocking lead
        for items in sections:
            entries += [(items[0].effective, items[0].pack, items[0].source, len(items)), *items]
        self.shown_findings = [e if isinstance(e, Finding) else None for e in entries]
        rows: Iterator[Row] = (
            (self._finding_cells(e) if isinstance(e, Finding) else self._section_cells(*e), None) for e in entries
        )
        if was is not None:  # stay on the same finding (after a re-run, its successor) or at the same place
            same = ((i, f) for i, f in enumerate(self.shown_findings) if f)
            row = next((i for i, f in same if (f.rule, f.subject) == (was.rule, was.subject)), row)
        self.filler.fill(table, rows, lambda: table.move_cursor(row=min(row, table.row_count - 1)))

    def _finding_cells(self, f: Finding) -> tuple[Text, str, Text]:
        finding = Text(one_line(f.subject or "server", 40), style="bold")
        finding.append(": " + one_line(f.message, 200), style="")
        return Text(f.effective, style=status_style(self.app, f.effective)), f.rule, finding

    def _section_cells(self, worst: str, pack: str, source: str, count: int = 0) -> tuple[Text, Text, Text]:
        """A header row for a pack and seed section, coloured by its worst status (in words in the text, so
        the status column only ever holds a finding's status): nothing to waive or attest on it."""
        about = Text(one_line(source, 200), style="bold")
        if count:
            about.append(f" · {count} finding{'s' if count != 1 else ''}, worst {worst}", style="")
        return Text("§", style=status_style(self.app, worst) if worst else ""), Text(pack, style="bold"), about

    def start_live(self, rules: list[Rule]) -> None:
        """One row per selected rule, grouped like the findings: queued, then running, then its worst status."""
        self.live = {r.id: "queued" for r in rules}
        self.filler.stop()
        table = reset_table(self.query_one(DataTable), self.COLUMNS)
        self.shown_findings = []
        for (pack, source), group in groupby(sorted(rules, key=lambda r: (r.pack, r.source, r.id)), key=by_section):
            table.add_row(*self._section_cells("", pack, source))
            self.shown_findings.append(None)
            for r in group:
                table.add_row(Text("queued", style="dim"), r.id, Text(one_line(r.summary, 200)), key=r.id)
                self.shown_findings.append(None)

    def progress(self, message: ChecksProgress) -> None:
        """A live row per rule: running, then the worst status of its findings."""
        changed: dict[str, str] = {}
        for f in message.new:
            current = changed.get(f.rule) or self.live.get(f.rule)
            if current in (None, "queued", "running") or rank(f.status) < rank(current):
                changed[f.rule] = f.status
        if message.running:
            changed[message.running] = "running"
        table = self.query_one(DataTable)
        for rule_id, status in changed.items():
            if rule_id not in self.live:
                continue
            self.live[rule_id] = status
            style = "reverse" if status == "running" else status_style(self.app, status)
            with contextlib.suppress(CellDoesNotExist):  # the table was refilled (a filter typed meanwhile)
                table.update_cell(rule_id, "status", Text(status, style=style))

    def finding_text(self, f: Finding) -> Text:
        """The finding in full, with every wire exchange it cites (MAX_EVIDENCE of them) as sent."""
        detail = Text()
        detail.append(f"{f.effective} {f.rule} · {one_line(f.subject or 'server', 80)} · {f.mode}\n", style="bold")
        detail.append(visible(f.message, 4000) + "\n")
        detail.append(f"source: {f.source}\n", style="dim")
        if f.waiver:
            detail.append(f"waived by {f.waiver.by}: {f.waiver.reason}\n", style=status_style(self.app, "waived"))
        by_seq = {e.seq: e for e in self.wire_log.entries}
        cited = [by_seq[seq] for seq in f.evidence if seq in by_seq]
        if cited:
            entries = f"{len(cited)} wire entr{'y' if len(cited) == 1 else 'ies'}"
            detail.append(f"\nevidence: {entries} (enter: all of it, with Copy)\n", style="bold")
        for entry in cited[:MAX_EVIDENCE]:
            detail.append_text(self.wire_log.entry_text(entry))
        return detail

    @on(DataTable.RowHighlighted, "#checks")
    def show_finding(self, event: DataTable.RowHighlighted) -> None:
        """The finding in full, with the wire exchanges that prove it (the pane scrolls)."""
        if event.cursor_row >= len(self.shown_findings) or self.review is None:
            return
        f = self.shown_findings[event.cursor_row]
        if f is None:
            return
        with contextlib.suppress(NoMatches):  # a table's last highlight comes late, while the screen is torn down
            self.query_one("#check-detail", Static).update(self.finding_text(f))

    @on(DataTable.RowSelected, "#checks")
    def open_finding(self, event: DataTable.RowSelected) -> None:
        """Enter: the finding and its evidence in a scrollable view with Copy."""
        f = self.shown_findings[event.cursor_row] if event.cursor_row < len(self.shown_findings) else None
        if f is not None:
            self.app.push_screen(ResultScreen(self.finding_text(f), f"{f.rule} · {f.subject or 'server'}"))

    @on(Input.Changed, "#check-filter")
    def filter_checks(self, event: Input.Changed) -> None:
        self._fill(event.value)

    # ----------------------------------------------------------------- the reviewer's decisions
    def action_rerun(self, what: str = "rule") -> None:
        """Ask the app to re-run the highlighted finding's rule (or, with `what="pack"`, its pack)."""
        finding = self.highlighted()
        if finding is None:
            self.notify("highlight a finding in the Checklist tab", severity="warning")
            return
        self.post_message(RerunAsked(finding.pack if what == "pack" else finding.rule))

    def action_waive(self) -> None:
        finding = self.highlighted()
        if finding is None or finding.status not in ("fail", "blocking"):
            self.notify("highlight a fail or blocking finding in the Checklist tab", severity="warning")
            return

        def decided(values: dict[str, str] | None) -> None:
            if values and self.review is not None:
                expires = values["expires"] or None
                self.review.waive(Waiver(finding.rule, values["why"], values["who"], finding.subject, expires, "tui"))
                self._decided()

        self.app.push_screen(DecisionScreen("waive", finding, os.environ.get("USER", "")), decided)

    def action_attest(self) -> None:
        finding = self.highlighted()
        if finding is None or "manual" not in finding.mode:
            self.notify("highlight a finding of a manual rule in the Checklist tab", severity="warning")
            return

        def decided(values: dict[str, str] | None) -> None:
            if values and self.review is not None:
                status = "fail" if values["status"] == "fail" else "pass"
                attestation = Attestation(finding.rule, values["who"], values["why"], status, finding.subject, "tui")
                self.review.attest(finding, attestation)
                self._decided()

        self.app.push_screen(DecisionScreen("attest", finding, os.environ.get("USER", "")), decided)

    def action_note(self) -> None:
        if self.review is None:
            self.notify("run the checks first (r): notes belong to a review", severity="warning")
            return
        finding = self.highlighted()

        def decided(values: dict[str, str] | None) -> None:
            if values and self.review is not None:
                rule, subject = (finding.rule, finding.subject) if finding else (None, None)
                self.review.remarks.append(Remark(values["who"], values["why"], rule, subject))
                self._decided()

        self.app.push_screen(DecisionScreen("note", finding, os.environ.get("USER", "")), decided)

    def _decided(self) -> None:
        self._fill(self.query_one(Input).value)
        self.post_message(Decided())
