"""The Changes tab: the live server against `mcp-review.lock`, every changed item with its class and token delta,
the highlighted one's reasons whole and its definition side by side, line against line (changed words highlighted);
Enter opens the change in full (its reasons, approval and a unified diff, to scroll and copy). The reviewer
approves a change (`a`) or every change of its class (`A`; a flipped safety annotation only one by one), with a
note, and pins the lock again with the approvals (`P`), once a dialog listed what is not approved and the
reviewer ticked each unapproved breaking or safety change. Approvals go into the review's diff (exported with
it), which the app saves at once (`Decided`), checklist run or not; the summary says how many are not in the
lock yet. The lock is read, built, compared and written by the workspace, off the app's loop: the result comes
back as `LockCompared`."""

from __future__ import annotations

import concurrent.futures
import difflib
import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from rich import box
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static, TabPane

from mcp_review import lock
from mcp_review.catalog import ServerSnapshot
from mcp_review.diff import Diff
from mcp_review.text import one_line, plural, visible
from mcp_review.tui.dialogs import ConfirmScreen, DecisionScreen, PinScreen, ResultScreen
from mcp_review.tui.grid import Grid
from mcp_review.tui.messages import Decided, LockCompared
from mcp_review.workspace import LockDiff, Workspace

OLD_STYLE, NEW_STYLE = "bold white on red", "bold black on green"
WORDS = re.compile(r"\s+|\w+|[^\w\s]")  # words, runs of blanks, single punctuation: what the diff highlights
DEFINITION_CHARS = 20_000  # of each side's JSON shown (a hostile definition can be megabytes)


def definition_text(value: Any) -> str:
    if value is None:
        return "(absent)"
    text = value if isinstance(value, str) else json.dumps(value, indent=1, ensure_ascii=False, sort_keys=True)
    return visible(text, DEFINITION_CHARS)


def changed_words(old: str, new: str) -> tuple[Text, Text]:
    """Two lines as text, the words only one side has highlighted (difflib over words)."""
    a, b = WORDS.findall(old), WORDS.findall(new)
    left, right = Text(), Text()
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        left.append("".join(a[i1:i2]), style="" if op == "equal" else OLD_STYLE)
        right.append("".join(b[j1:j2]), style="" if op == "equal" else NEW_STYLE)
    return left, right


def side_by_side(old: Any, new: Any) -> list[tuple[Text, Text]]:
    """Both definitions line against line (difflib over lines): a line only one side has faces a blank, a changed
    line its counterpart with the changed words highlighted. Each pair is a row of one table, so a line that wraps
    on one side pushes both down (two texts side by side drifted apart at the first line one side lacked)."""
    a, b = definition_text(old).splitlines(), definition_text(new).splitlines()
    rows: list[tuple[Text, Text]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            rows.extend((Text(line), Text(line)) for line in a[i1:i2])
            continue
        for k in range(max(i2 - i1, j2 - j1)):
            left, right = (a[i1 + k] if i1 + k < i2 else None), (b[j1 + k] if j1 + k < j2 else None)
            if left is not None and right is not None:
                rows.append(changed_words(left, right))
            else:
                rows.append((Text(left or "", style=OLD_STYLE), Text(right or "", style=NEW_STYLE)))
    return rows


def sides_table(rows: list[tuple[Text, Text]]) -> Table:
    table = Table("in the lock", "live", box=box.MINIMAL, expand=True, padding=(0, 1), header_style="bold")
    for column in table.columns:
        column.ratio, column.overflow = 1, "fold"  # a long token wraps, never runs under the other side
    for left, right in rows:
        table.add_row(left, right)
    return table


def change_text(change: Any) -> Text:
    """A change in full: what it is, every reason on a line of its own, tokens, approval, and a unified diff."""
    out = Text()
    out.append(f"{change.change_class} · {one_line(change.kind, 40)} {one_line(change.key, 200)}\n", style="bold")
    for reason in change.reasons:
        out.append(f"- {visible(reason, 4000, newlines=False)}\n")
    out.append(f"tokens: {tokens_cell(change.tokens)}\n")
    if change.approval:
        out.append(f"approved by {one_line(change.approval.by, 80)}: {visible(change.approval.note, 2000)}\n")
    elif change.flips_annotation:
        out.append("a flipped safety annotation: approved on its own (a), never with its class\n")
    old, new = definition_text(change.old).splitlines(), definition_text(change.new).splitlines()
    for line in difflib.unified_diff(old, new, "in the lock", "live", lineterm="", n=3):
        out.append(line + "\n", style=OLD_STYLE if line[:1] == "-" else NEW_STYLE if line[:1] == "+" else "")
    return out


def tokens_cell(delta: dict[str, int]) -> str:
    return " ".join(f"{v:+d}" for v in delta.values()) or "0"


class ChangesPane(TabPane):
    COLUMNS = ("class", "item", "what changed", "tokens", "approved")
    BINDINGS = [
        # before the table's own Enter, so the footer names it
        Binding("enter", "open", "Open", id="open-change", priority=True, tooltip="The highlighted change in full"),
        Binding("a", "approve", "Approve", id="approve", tooltip="Approve the highlighted change, with a note"),
        Binding(
            "A", "approve_class", "Approve class", id="approve-class", tooltip="Its whole class (not annotation flips)"
        ),
        Binding("P", "pin", "Pin lock", id="pin-lock", tooltip="Write mcp-review.lock from the live server, approved"),
        Binding("c", "compare_anyway", "Compare anyway", id="compare-anyway", tooltip="With a lock of another server"),
    ]
    DEFAULT_CSS = """
    ChangesPane #changes { height: 45%; }
    ChangesPane #change-detail { height: 1fr; }
    ChangesPane #change-why { padding: 0 1; }
    """

    def __init__(self, ws: Workspace, *, title: str, id: str) -> None:
        super().__init__(title, id=id)  # from the tab's declaration (screen.TABS)
        self.ws = ws
        self.diff: Diff | None = None
        self.requested: ServerSnapshot | None = None  # the snapshot last sent to be compared with the lock
        self.compared: ServerSnapshot | None = None  # the snapshot `diff` is of (None: no answer yet)
        self.lock_path: Path | None = None
        self.approvals: list[lock.Approval] = []
        self.other: str | None = None  # the lock is another server's: whose (`lock.other_server`)
        self.anyway = False  # the reviewer said to compare it all the same (c)

    def compose(self) -> ComposeResult:
        yield Static("no lock yet: P pins mcp-review.lock from the live server", id="changes-summary")
        # at 80 columns "what changed" keeps what the others give way to (the detail below has it whole)
        caps = {"item": 20, "approved": 10}
        yield Grid(self.COLUMNS, flex="what changed", caps=caps, zebra_stripes=True, id="changes")
        with VerticalScroll(id="change-detail"):
            yield Static(id="change-why")  # the reasons whole: the table's column cuts them
            yield Static(id="change-sides")

    def show(self) -> None:
        """The workspace's live server against its lock (in the folder mcp-review.toml is looked for), with the
        approvals its review recorded; a new snapshot is compared again (once: every item in every encoding)."""
        snapshot, review = self.ws.snapshot, self.ws.review
        if snapshot is None:
            return
        if review is not None and review.changes:  # approvals recorded in a saved review come back
            known = {(a.kind, a.key, a.change_class) for a in self.approvals}
            for change in review.changes.get("changes", []):
                if change.get("approval") and (change["kind"], change["key"], change["class"]) not in known:
                    self.approvals.append(lock.Approval.from_json(change["approval"]))
        if snapshot is not self.requested:
            self.requested, self.anyway = snapshot, False
            self._answer(self.ws.compare_lock())
        elif self.compared is snapshot:
            self._refresh()

    def _answer(self, future: concurrent.futures.Future[LockDiff], pinned: int | None = None) -> None:
        """The workspace's answer, as a message to this pane (from the workspace's thread)."""
        future.add_done_callback(lambda done: self.post_message(LockCompared(done.result(), pinned)))

    @on(LockCompared)
    def _compared(self, message: LockCompared) -> None:
        found = message.result
        if found.snapshot is not self.ws.snapshot:  # another server answered meanwhile
            return
        self.compared, self.diff, self.lock_path = found.snapshot, found.diff, found.path
        if found.other is not None or not self.anyway:
            self.other = found.other
        if message.pinned is not None and found.error is None:
            self.approvals, self.other, self.anyway = [], None, False  # the lock is this server's now
            self.notify(f"pinned {found.path} with {message.pinned} approvals")
        self.refresh_bindings()
        if found.error is not None:
            self.query_one("#changes-summary", Static).update(Text(one_line(found.error, 200)))
            self.query_one(Grid).show([], self.cells)
            return
        self._refresh()

    def _refresh(self) -> None:
        summary = self.query_one("#changes-summary", Static)
        if self.diff is None and self.other is not None:
            said = f"{one_line(self.other, 200)} · c compares anyway · P pins this server over it (asks first)"
            summary.update(Text(said, style="bold"))
            self.query_one(Grid).show([], self.cells)
            return
        if self.diff is None:
            summary.update("no mcp-review.lock here: P pins it from the live server")
            self.query_one(Grid).show([], self.cells)
            return
        self.diff.approve(self.approvals)
        self.ws.record_changes(self.diff)
        counts = ", ".join(f"{n:,} {c}" for c, n in self.diff.to_json()["counts"].items() if n) or "no changes"
        where = self.lock_path.name if self.lock_path else "lock"
        where += f" (of another server, compared at your word: {self.other})" if self.other else ""
        pending = self.pending()
        waiting = f" · {pending} approval{'s' if pending != 1 else ''} not in the lock yet (P pins)" if pending else ""
        summary.update(Text(f"{where} -> live: {counts}{waiting} · a approve · A class · P pin"))
        self.query_one(Grid).show(self.diff.changes, self.cells)

    @staticmethod
    def cells(c: Any) -> tuple[str, Text, Text, str, str]:
        approved = f"✓ {c.approval.by}" if c.approval else ("flip" if c.flips_annotation else "")
        reasons = Text(one_line("; ".join(c.reasons), 200))
        return c.change_class, Text(f"{c.kind} {one_line(c.key, 40)}"), reasons, tokens_cell(c.tokens), approved

    def pending(self) -> int:
        """Approvals made since the lock was pinned, which only a pin writes into it."""
        return sum(c.approval is not None for c in self.diff.changes) if self.diff else 0

    def highlighted(self) -> Any:
        return self.query_one(Grid).current

    @on(Grid.RowHighlighted, "#changes")
    def _show_highlighted(self) -> None:
        change = self.highlighted()
        why = Text("\n".join(visible(r, 4000, newlines=False) for r in change.reasons)) if change else Text()
        self.query_one("#change-why", Static).update(why)
        sides = sides_table(side_by_side(change.old, change.new)) if change else ""
        self.query_one("#change-sides", Static).update(sides)

    @on(Grid.RowSelected, "#changes")
    def action_open(self) -> None:
        """Enter: the change in full, to scroll and copy."""
        change = self.highlighted()
        if change is not None:
            self.app.push_screen(ResultScreen(change_text(change), f"{change.kind} {change.key}"))

    def action_approve(self) -> None:
        change = self.highlighted()
        if change is None:
            return
        shown = SimpleNamespace(
            subject=f"{change.kind} {change.key}",
            rule=f"the {change.change_class} change",
            message="; ".join(change.reasons),
        )
        self._ask(shown, [change])

    def action_approve_class(self) -> None:
        change = self.highlighted()
        if change is None or self.diff is None:
            return
        chosen = [c for c in self.diff.of_class(change.change_class) if c.approval is None and not c.flips_annotation]
        flips = sum(c.flips_annotation and c.approval is None for c in self.diff.of_class(change.change_class))
        if flips:
            flipped = plural(flips, "flipped safety annotation")
            self.notify(f"{flipped} {'is' if flips == 1 else 'are'} approved one by one (a), not with their class")
        if not chosen:
            return
        shown = SimpleNamespace(
            subject=plural(len(chosen), "change"),
            rule=f"every {change.change_class} change",
            message=", ".join(c.key for c in chosen[:20]),
        )
        self._ask(shown, chosen)

    def _ask(self, shown: Any, changes: list[Any]) -> None:
        if (waiting := self.ws.waiting()) is not None:  # the approval goes into the review being read
            self.notify(waiting, markup=False)
            return

        def decided(values: dict[str, str] | None) -> None:
            if not values:
                return
            for c in changes:
                approval = lock.Approval(c.kind, c.key, c.change_class, values["who"], values["why"], c.sha256)
                self.approvals.append(approval)
            self.ws.decided_on()  # before any run too: the review holds the diff with its approvals, saved now
            self._refresh()
            self.post_message(Decided())

        self.app.push_screen(DecisionScreen("approve", shown), decided)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """c is there only beside a lock of another server (in the footer too)."""
        return action != "compare_anyway" or (self.other is not None and not self.anyway)

    def action_compare_anyway(self) -> None:
        """The lock is another server's: compare it with this one all the same (every item may differ)."""
        if self.other is None or self.anyway or self.ws.snapshot is None:
            return
        self.anyway = True
        self._answer(self.ws.compare_lock(anyway=True))

    def action_pin(self) -> None:
        """Ask first (what is not approved, by class; a tick per breaking or safety change), then pin; over
        another server's lock, only once the reviewer said so."""
        if self.ws.snapshot is None:
            return
        if self.other is not None:
            name = one_line(self.ws.snapshot.server_name, 60)
            said = f"{self.other}. Pin {name} over it? That server's pins are replaced by this one's."

            def over(yes: bool | None) -> None:
                if yes:
                    self.other = None  # the reviewer's word: this server's lock from now on
                    self.action_pin()

            self.app.push_screen(ConfirmScreen("A lock of another server", said, yes="Pin over it"), over)
            return
        changes = self.diff.changes if self.diff else []
        approved = [c.approval for c in changes if c.approval]

        def decided(pin: bool | None) -> None:
            if pin:
                self._answer(self.ws.pin(approved), len(approved))

        if not changes:  # nothing to decide: the first lock, or the same surface again
            decided(True)
            return
        self.app.push_screen(PinScreen(self.lock_path.name if self.lock_path else lock.LOCK_NAME, changes), decided)
