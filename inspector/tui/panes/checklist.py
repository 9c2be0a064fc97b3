"""The Checklist tab: the findings grouped by pack and seed section (worst first), a filter, every selected rule
live while checks run, the highlighted finding in full with its evidence; and the reviewer's decisions on it
(waive, attest, note), recorded in the review. The app saves them when told (`Decided`)."""

from __future__ import annotations

from collections.abc import Callable
from itertools import groupby
from typing import Any, Literal, cast, get_args

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Input, Static

from mcp_review import known
from mcp_review.connection.pairing import Link, State
from mcp_review.connection.wire import WireEntry, WireLog
from mcp_review.review import WAIVABLE, Attestation, Finding, Remark, Review, Waiver, rank
from mcp_review.rules.core import Rule
from mcp_review.text import one_line, plural, visible
from mcp_review.tui.dialogs import DecisionScreen, ResultScreen
from mcp_review.tui.grid import Grid
from mcp_review.tui.messages import ChecksProgress, Decided, RerunAsked
from mcp_review.tui.panes.keys import FilteredPane
from mcp_review.tui.panes.ordering import Order, Section, by_section, order_findings, sectioned
from mcp_review.tui.panes.table import show_detail, split_filter
from mcp_review.tui.panes.wire import WireView
from mcp_review.tui.styles import status_style

NOT_RUN = "no checklist yet: r runs the checks, R chooses the packs"
SEED_SAID = (  # a section's "seed 003" was never explained
    "A seed is one of the numbered source checklists the rules were written from; `mcp-review rules RULE` shows a "
    "rule's seed, why it exists and what it may flag wrongly."
)
PLACEHOLDER = "filter findings: status:fail, status:blocking… and/or any text"


MAX_EVIDENCE = 50  # wire entries shown of one finding's evidence


def saved_entry(saved: dict[str, Any]) -> WireEntry:
    """A wire entry as a review saved it (`WireEntry.to_json`), to be shown as the Wire shows one. Its HTTP
    exchange is left out: its lines are saved entries of their own, shown beside it."""
    return WireEntry(
        seq=int(saved.get("seq", 0)),
        t=float(saved.get("t", 0)),
        direction=saved.get("dir", "note"),
        conn=int(saved.get("conn", 0)),
        message=saved.get("message"),
        text=saved.get("text"),
        http=saved.get("http"),
        size=int(saved.get("size", 0)),
        notes=saved.get("notes"),
        links=[saved_link(link) for link in saved.get("links") or [] if isinstance(link, dict)] or None,
        answered=[seq for seq in saved.get("answered") or [] if isinstance(seq, int)] or None,
    )


def saved_link(saved: dict[str, Any]) -> Link:
    """A link as a review saved it (`Link.to_json`): which request an answer answered, and how soon."""
    request, method, ms, state = (saved.get(key) for key in ("request", "method", "ms", "state"))
    return Link(
        request if isinstance(request, int) else None,
        method if isinstance(method, str) else None,
        float(ms) if isinstance(ms, (int, float)) else None,
        cast(State, state) if state in get_args(State) else "unpaired",
    )


def related(saved: dict[int, dict[str, Any]], seq: int) -> set[int]:
    """The saved entries that prove `seq`, as `WireLog.exchange_of` chose them when the review was saved: the
    entry, the request it answers, their answers, and the HTTP exchanges that carried them."""
    if seq not in saved:
        return set()
    asked = [link.get("request") for link in saved[seq].get("links") or [] if isinstance(link, dict)]
    pair = {s for s in [seq, *asked] if s in saved}
    found = pair | {a for s in pair for a in saved[s].get("answered") or [] if a in saved}
    exchanges = {saved[s].get("exchange") for s in found} - {None}
    return found | {s for s, e in saved.items() if exchanges and e.get("exchange") in exchanges}


SEVERITY = {"critical": "crit", "high": "high", "medium": "med", "low": "low"}  # four cells: 80 columns fit
WIDE = 100  # columns from which a rule id keeps its pack; narrower, its section's header row names the pack
FINDING_ROOM = 24  # what the finding keeps beside a long rule id: status 8, sev 4, 2 between columns, a scrollbar


def rule_cap(width: int) -> int:
    """The rule column's width when the columns do not fit in `width`: at 80 columns the longest rule id without
    its pack (34, `arguments-validated-and-authorized`), so no id is cut; never under 22 (at 60 columns)."""
    return max(22, width - FINDING_ROOM - 8 - 4 - 2 * 4 - 2)


class ChecklistPane(FilteredPane):
    COLUMNS = ("status", "sev", "rule", "finding")  # the subject leads the finding: it fits in 80 columns
    BINDINGS = [
        Binding("w", "waive", "Waive", id="waive", tooltip="Waive the highlighted finding, with a reason"),
        Binding("a", "attest", "Attest", id="attest", tooltip="Attest the highlighted manual rule"),
        Binding("n", "note", "Note", id="note", tooltip="A note on the highlighted finding"),
        # short words: at 80 columns the footer holds every one of them and `r`
        Binding("u", "rerun('rule')", "Re-run", id="rerun-rule", tooltip="The highlighted finding's rule"),
        Binding("N", "review_notes", "Notes", id="review-notes", tooltip="The review's notes; add one"),
        Binding("p", "rerun('pack')", "Re-run pack", id="rerun-pack", show=False, tooltip="Its whole pack"),
        Binding("R", "app.choose_checks", "Checks…", id="checklist-choose-checks"),  # the app's, shown here
    ]

    def __init__(
        self,
        wire_log: WireView,
        decided_on: Callable[[], Review],
        waiting: Callable[[], str | None],
        bind: Callable[[Finding, Waiver | Attestation], None],
        *,
        title: str,
        id: str,
    ) -> None:
        """`decided_on`: the review a decision goes into before any checklist run (`Workspace.decided_on`);
        `waiting`: what it waits for meanwhile (the review saved before, being read: `Workspace.waiting`);
        `bind`: binds a decision to what it decides, as this session sees it (`Workspace.bind`)."""
        super().__init__(title, id=id)  # from the tab's declaration (screen.TABS)
        self.wire_log = wire_log  # shows the evidence a finding cites
        self.decided_on, self.waiting, self.bind = decided_on, waiting, bind
        self.review: Review | None = None
        self.live: dict[str, str] = {}  # rule id -> queued, running or its worst status, while checks run
        self.order: Order | None = None  # see `_order`
        self.wire: WireLog | None = None  # the wire log the review's evidence is in (see `show`)

    def compose(self) -> ComposeResult:
        yield Input(placeholder=PLACEHOLDER, id="check-filter")
        grid = Grid(
            self.COLUMNS,
            flex="finding",
            caps={"rule": rule_cap(self.app.size.width)},
            least={"status": 8, "sev": 4},
            zebra_stripes=True,
            id="checks",
        )
        grid.empty = NOT_RUN
        yield grid
        with VerticalScroll(classes="detail"):  # focusable: the keys and the mouse scroll it
            yield Static(id="check-detail")

    def on_resize(self) -> None:
        """The rule ids follow the width: their pack kept or left to the section's row, the column as wide as
        they need at 80 columns."""
        grid = self.query_one(Grid)
        grid.caps["rule"] = rule_cap(self.app.size.width)
        grid.redraw()

    def rule_id(self, rule: str, pack: str) -> str:
        """A rule id as the rule column shows it: without its pack below WIDE columns (the section's row names it;
        the finding's detail, the filter and the exports keep the whole id)."""
        narrow = self.app.size.width < WIDE and rule.startswith(f"{pack}.")
        return rule[len(pack) + 1 :] if narrow else rule

    def show(self, review: Review | None, order: Order | None = None, wire: WireLog | None = None) -> None:
        """The review's findings; `order`, when the run made it already (off the app's loop), saves making it.
        `wire`: the wire log its evidence was recorded in (None: a saved review, from another session)."""
        self.review, self.order, self.wire = review, order, wire
        self._fill(self.query_one(Input).value)

    @property
    def shown_findings(self) -> list[Finding | None]:
        """The table's rows: a finding, or None for a section's header (or a rule while checks run)."""
        return [row if isinstance(row, Finding) else None for row in self.query_one(Grid).rows]

    def highlighted(self) -> Finding | None:
        row = self.query_one(Grid).current
        return row if isinstance(row, Finding) else None

    def _order(self) -> Order:
        if self.order is None:  # made once per review and decision, not per keystroke (a run's, in its thread)
            self.order = order_findings(self.review.findings if self.review else [], places=False)
        return self.order

    def _fill(self, needle: str) -> None:
        """Every finding the filter lets through, grouped by pack and seed section (a header row each, with its
        worst status; the sections with a fail or blocking lead), the worst findings first in each."""
        table, was = self.query_one(Grid), self.highlighted()
        statuses, text = split_filter(needle)
        order = self._order()
        if statuses or text:
            findings = [
                f
                for f, searched in zip(order.findings, order.texts, strict=True)
                if (not statuses or f.effective in statuses) and (not text or text in searched)
            ]
            rows, shown = sectioned(findings), len(findings)
        else:  # no filter: the rows made with the order (off the loop after a run)
            rows, shown = order.rows, len(order.findings)
        # stay on the same finding (after a re-run, its successor) or at the same place; at first, the first finding
        key = (was.rule, was.subject) if was else None
        if key is None or statuses or text or order.at is None:
            same = next((i for i, f in enumerate(rows) if isinstance(f, Finding) and (f.rule, f.subject) == key), None)
        else:
            same = order.at.get(key)
        first = 1 if was is None and table.cursor_row == 0 and len(rows) > 1 else None
        table.empty = (
            f"no finding matches {needle.strip()!r}: / edits the filter, ctrl+u there clears it"
            if order.findings
            else NOT_RUN
        )
        table.show(rows, self.cells, cursor=(first if same is None else same) if key else first)
        self.show_count(shown, len(order.findings))

    def cells(self, row: Finding | Section | Rule) -> tuple[Text, Text, str | Text, Text]:
        if isinstance(row, Section):
            return self._section_cells(row)
        if isinstance(row, Rule):  # while checks run
            status = self.live.get(row.id, "queued")
            style = {"queued": "dim", "running": "reverse"}.get(status) or status_style(self.app, status)
            rule, summary = self.rule_id(row.id, row.pack), Text(one_line(row.summary, 200))
            return Text(status, style=style), self._severity(row.severity), rule, summary
        finding = Text(one_line(row.subject or "server", 40), style="bold")
        finding.append(": " + one_line(row.message, 200), style="")
        shown = Text(row.effective, style=status_style(self.app, row.effective))
        return shown, self._severity(row.severity, row.effective), self.rule_id(row.rule, row.pack), finding

    def _severity(self, severity: str, status: str = "") -> Text:
        """A finding's severity in four cells; bold where it counts (a fail, blocking or warn)."""
        weighs = status in ("fail", "blocking", "warn")
        return Text(SEVERITY.get(severity, severity[:4]), style="bold" if weighs else "dim")

    def _section_cells(self, section: Section) -> tuple[Text, Text, Text, Text]:
        """A header row for a pack and seed section, coloured by its worst status (in words in the text, so
        the status column only ever holds a finding's status): nothing to waive or attest on it."""
        about = Text(one_line(section.source, 200), style="bold")
        if section.findings:
            about.append(f" · {plural(section.findings, 'finding')}, worst {section.worst}", style="")
        style = status_style(self.app, section.worst) if section.worst else ""
        return Text("§", style=style), Text(""), Text(section.pack, style="bold"), about

    def start_live(self, rules: list[Rule]) -> None:
        """One row per selected rule, grouped like the findings: queued, then running, then its worst status."""
        self.live = {r.id: "queued" for r in rules}
        rows: list[Section | Rule] = []
        for (pack, source), group in groupby(sorted(rules, key=lambda r: (r.pack, r.source, r.id)), key=by_section):
            rows += [Section("", pack, source), *group]
        self.query_one(Grid).show(rows, self.cells, cursor=0)

    def progress(self, message: ChecksProgress) -> None:
        """A live row per rule: running, then the worst status of its findings."""
        for f in message.new:
            current = self.live.get(f.rule)
            if current in ("queued", "running") or (current is not None and rank(f.status) < rank(current)):
                self.live[f.rule] = f.status
        if message.running in self.live:
            self.live[message.running] = "running"
        self.query_one(Grid).redraw()

    def finding_text(self, f: Finding) -> Text:
        """The finding in full, with every wire exchange it cites (MAX_EVIDENCE of them) as sent."""
        detail = Text()
        subject = one_line(f.subject or "server", 80)
        detail.append(f"{f.effective} {f.rule} · {subject} · {f.concern} · {f.severity} · {f.mode}\n", style="bold")
        detail.append(visible(f.message, 4000) + "\n")
        detail.append(f"source: {f.source}\n", style="dim")
        if f.known is not None:
            sdk = known.SDKS[f.known.sdk].name if f.known.sdk in known.SDKS else "an SDK not told apart"
            detail.append(
                f"a known SDK behaviour, {f.known.behaviour}: the default of {sdk} (the Overview says it "
                f'once; a [[waive]] with known = "{f.known.behaviour}" waives it for the whole review)\n'
            )
        if f.waiver:
            until = f" until {f.waiver.expires}" if f.waiver.expires else " (no expiry)"
            bound = f" · bound to {f.waiver.digest.removeprefix('sha256:')[:12]}" if f.waiver.digest else ""
            waived = f"waived by {f.waiver.by}{until}: {f.waiver.reason}{bound}\n"
            detail.append(visible(waived, 2000), style=status_style(self.app, "waived"))
        if f.lapsed:
            detail.append(visible(f.lapsed, 2000) + "\n", style=status_style(self.app, "blocking"))
        for remark in self.review.remarks if self.review else []:
            if (remark.rule, remark.subject) == (f.rule, f.subject):
                detail.append(visible(f"note by {remark.by} ({remark.at}): {remark.text}\n", 2000), style="italic")
        wire = self.wire
        cited = [e for e in map(wire.get, f.evidence) if e is not None] if wire is not None else []
        if f.evidence and not cited:  # the same seqs name other entries here: never show those as proof
            detail.append_text(self._recorded(f))
            return detail
        if cited:
            entries = f"{len(cited)} wire entr{'y' if len(cited) == 1 else 'ies'}"
            detail.append(f"\nevidence: {entries} (enter: all of it, with Copy)\n", style="bold")
        for entry in cited[:MAX_EVIDENCE]:  # a listing opens at the subject's own item (a tool of tools/list)
            detail.append_text(self.wire_log.entry_text(entry, wire, f.subject))
        return detail

    def _recorded(self, f: Finding) -> Text:
        """The evidence of a restored review: the exchanges it saved, marked as recorded then (not this session's
        wire, whose seqs name other entries)."""
        saved = self.review.exchanges if self.review else {}
        kept = sorted({s for seq in f.evidence for s in related(saved, seq)})
        when = self.review.created if self.review else "an earlier session"
        out = Text()
        if not kept:
            out.append(
                f"\nevidence: {len(f.evidence)} wire entries recorded on {when}, not saved with the review; "
                "re-run the rule (u) to record them again\n",
                style="dim",
            )
            return out
        ending = "y" if len(kept) == 1 else "ies"
        out.append(f"\nevidence: {len(kept)} wire entr{ending} recorded on {when} (saved with the review)\n", "bold")
        # A view of the saved entries alone: their pairs and labels are looked up there, never in this session's
        # wire (whose seqs name other entries); a saved entry's HTTP lines are saved entries of their own.
        recorded = WireView()
        recorded.add([saved_entry(saved[seq]) for seq in kept[:MAX_EVIDENCE]])
        for entry in recorded.entries:  # a listing opens at the subject's own item, as in this session
            out.append_text(recorded.entry_text(entry, None, f.subject))
        return out

    @on(Grid.RowHighlighted, "#checks")
    def show_finding(self) -> None:
        """The finding in full, with the wire exchanges that prove it (the pane scrolls)."""
        row = self.query_one(Grid).current
        if isinstance(row, Finding):
            detail = self.finding_text(row)
        elif isinstance(row, Section):
            detail = Text(f"{row.pack} · {one_line(row.source, 200)}\n", style="bold")
            detail.append(f"{plural(row.findings, 'finding')} below, the worst {row.worst}\n" if row.findings else "")
            detail.append(SEED_SAID, style="dim")
        elif isinstance(row, Rule):  # while checks run
            detail = Text(f"{self.live.get(row.id, 'queued')} {row.id}\n", style="bold")
            detail.append(visible(row.summary, 2000))
        else:
            detail = Text("no finding matches the filter" if self.review else "", style="dim")
        show_detail(self, "#check-detail", detail)

    @on(Grid.RowSelected, "#checks")
    def open_finding(self) -> None:
        """Enter: the finding and its evidence in a scrollable view with Copy."""
        f = self.highlighted()
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
        if finding is None or finding.status not in WAIVABLE:
            self.notify("highlight a fail, blocking or warn finding in the Checklist tab", severity="warning")
            return

        def decided(values: dict[str, str] | None) -> None:
            if values and self.review is not None:
                expires = values["expires"] or None
                waiver = Waiver(finding.rule, values["why"], values["who"], finding.subject, expires, "tui")
                self.bind(finding, waiver)  # to the finding's subject as this session saw it, and the rule's version
                self.review.waive(waiver)
                self._decided()

        old = finding.waiver  # waived already: its waiver, to change (not a blank one over it)
        given = {"who": old.by, "why": old.reason, "expires": str(old.expires or "")} if old is not None else None
        self.app.push_screen(DecisionScreen("waive", finding, given=given), decided)

    def action_attest(self) -> None:
        finding = self.highlighted()
        if finding is None or "manual" not in finding.mode:
            self.notify("highlight a finding of a manual rule in the Checklist tab", severity="warning")
            return

        def decided(values: dict[str, str] | None) -> None:
            if values and self.review is not None:
                status: Literal["pass", "fail"] = "fail" if values["status"] == "fail" else "pass"
                attestation = Attestation(finding.rule, values["who"], values["why"], status, finding.subject, "tui")
                self.bind(finding, attestation)
                self.review.attest(finding, attestation)
                self._decided()

        self.app.push_screen(DecisionScreen("attest", finding), decided)

    def action_note(self, on_review: bool = False) -> None:
        """A note on the highlighted finding (`on_review`: on the review as a whole)."""
        finding = None if on_review else self.highlighted()
        if finding is None and not on_review:
            self.notify("highlight a finding, or N for a note on the review", severity="warning")
            return
        if self.review is None and (waiting := self.waiting()) is not None:
            self.notify(waiting, markup=False)
            return

        def decided(values: dict[str, str] | None) -> None:
            if values:
                rule, subject = (finding.rule, finding.subject) if finding else (None, None)
                self.review = self.review or self.decided_on()  # before any run: the review of the live server
                self.review.remarks.append(Remark(values["who"], values["why"], rule, subject))
                self._decided()

        self.app.push_screen(DecisionScreen("note", finding, notes=self.review_notes()), decided)

    def review_notes(self) -> list[str]:
        """The review's own notes (not on a finding), oldest first, as the app shows them."""
        remarks = self.review.remarks if self.review else []
        return [f"{r.at} {r.by}: {r.text}" for r in remarks if r.rule is None]

    def action_review_notes(self) -> None:
        self.action_note(on_review=True)

    def _decided(self) -> None:
        self.order = None  # a waiver changes a finding's effective status, so its place
        self._fill(self.query_one(Input).value)
        self.post_message(Decided())
