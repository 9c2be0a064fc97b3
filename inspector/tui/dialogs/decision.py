"""A reviewer's decision on a finding: waive it, attest a manual rule, or write a note."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Input, Select, Static

from mcp_review.text import one_line, visible
from mcp_review.tui.dialogs.base import Dialog
from mcp_review.tui.dialogs.common import DIALOG_CSS
from mcp_review.tui.settings import remember_reviewer, reviewer

PLACEHOLDERS = {
    "waive": "reason",
    "attest": "note: what you checked, and where",
    "note": "note",
    "approve": "note: why this change is fine",
}
REQUIRED = ("who", "why")
BOUND = ("waive", "attest")  # the decisions bound to what they decide (mcp_review.binding)


def bound_to(kind: str, finding: Any) -> str:
    """What a waiver or an attestation made here is bound to, in one line: it lapses when that changes."""
    if finding.subject is None:
        what = "the server as listed now" if kind == "attest" else "this finding's evidence"
    else:
        what = f"{one_line(finding.subject, 24)}'s definition as listed now"
    return f"bound to {what} and the rule's version"


class DecisionScreen(Dialog[dict[str, str] | None]):
    """A reviewer's decision on a finding: waive it (reason, who, optional expiry), attest a manual rule, or
    write a note (on the highlighted finding, or with no finding on the review as a whole)."""

    # at 60x20 a long finding pushed the reason under the buttons: the subject on one line, the finding on two lines
    # that scroll (the Checklist's detail has it whole)
    DEFAULT_CSS = (
        DIALOG_CSS
        + """
    #review-notes { height: auto; max-height: 6; }
    #decided-on { text-wrap: nowrap; text-overflow: ellipsis; }
    #finding-message { height: auto; max-height: 2; overflow-y: auto; }
    """
    )
    AUTO_FOCUS = ""  # the first empty required field instead (`on_mount`)
    BINDINGS = [Binding("ctrl+s", "submit", "Save", id="decide")]

    def __init__(
        self,
        kind: str,
        finding: Any,
        who: str | None = None,
        notes: Sequence[str] = (),
        given: dict[str, str] | None = None,
    ) -> None:
        """`who`: the name offered (by default the one used last, else git's user.name, else $USER); the name
        saved is remembered for the next decision. `notes`: the review's own notes so far (a note on the review).
        `given`: the decision made before (a waiver's who, why and expires), to change."""
        super().__init__()
        self.given = given or {}
        self.kind, self.finding = kind, finding
        self.who = self.given.get("who") or (reviewer() if who is None else who)
        self.notes = list(notes)
        self.typed = False  # a field changed by the reviewer since the dialog opened

    def on_mount(self) -> None:
        super().on_mount()
        # now, before any key is handled: a reason typed at once goes where it belongs, and Tab then reaches
        # the expiry (focused after a frame, fast typing lost its first keys and the rest landed in the reason)
        self._focus_first_empty()
        first = self.focused
        self.call_after_refresh(self._after_draft, first)

    def _after_draft(self, first: object) -> None:
        """A restored draft filled fields: the first empty one, unless the reviewer has typed or moved already."""
        if self.focused is first and not self.typed:
            self._focus_first_empty()

    @on(Input.Changed)
    def _typed(self) -> None:
        self.typed = True  # a draft's restore changes fields quietly (`Dialog.restore`)

    def _focus_first_empty(self) -> None:
        empty = [i for i in self.query(Input) if i.id in REQUIRED and not i.value.strip()]
        self.set_focus(empty[0] if empty else self.query_one("#why", Input))  # at once (`focus()` waits a turn)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="-small"):
            if self.finding is None:
                yield Static(Text(f"notes on the review ({len(self.notes)} so far)", style="bold"))
                with VerticalScroll(id="review-notes"):
                    yield Static(Text("\n".join(visible(n, 2000) for n in self.notes) or "none yet", style="italic"))
            else:
                subject = one_line(self.finding.subject or "the server", 60)
                yield Static(Text(f"{self.kind} {self.finding.rule} for {subject}", style="bold"), id="decided-on")
                message = Text(one_line(self.finding.message, 200 if self.kind in BOUND else 300))
                if self.kind in BOUND:  # what it is bound to, in the finding's two lines (they scroll): at 60x20
                    message.append("\n" + bound_to(self.kind, self.finding), style="dim")  # the fields still fit
                yield Static(message, id="finding-message")
            # each field keeps its name in its frame once it is filled (the placeholder is gone then)
            yield _named(Input(value=self.who, placeholder="who (required)", id="who"), "who")
            why = Input(self.given.get("why", ""), placeholder=f"{PLACEHOLDERS[self.kind]} (required)", id="why")
            yield _named(why, self._label("why"))
            if self.kind == "waive":
                until = self.given.get("expires", "")
                expires = Input(until, placeholder="expires (YYYY-MM-DD, optional)", id="expires")
                yield _named(expires, "expires")
            elif self.kind == "attest":
                yield Select([("pass: it holds", "pass"), ("fail: it does not", "fail")], value="pass", id="verdict")
            yield Static(id="problems")
            yield from self.buttons(self.kind.capitalize(), "ok")

    def _label(self, field: str) -> str:
        """What the dialog calls a field: `why` is the reason of a waiver, the note of an attestation..."""
        return PLACEHOLDERS[self.kind].split(":")[0] if field == "why" else field

    def draft_key(self) -> str:
        """Per decision and finding (a note on the review has none)."""
        finding = (self.finding.rule, self.finding.subject) if self.finding else ()
        return f"{self.kind} {finding}"

    def submit(self) -> None:
        values = {
            "who": self.query_one("#who", Input).value.strip(),
            "why": self.query_one("#why", Input).value.strip(),
        }
        problems = [f"{self._label(k)} is required" for k, v in values.items() if not v]
        wrong = [k for k, v in values.items() if not v]
        if self.kind == "waive":
            values["expires"] = self.query_one("#expires", Input).value.strip()
            if values["expires"]:
                try:
                    past = dt.date.fromisoformat(values["expires"]) < dt.date.today()
                except ValueError:
                    problems.append("expires must be a date like 2027-01-31")
                    wrong.append("expires")
                else:
                    if past:  # a waiver that never applies: the finding would count as if never waived
                        problems.append("expires is in the past: the waiver would never apply")
                        wrong.append("expires")
        elif self.kind == "attest":
            values["status"] = str(self.query_one("#verdict", Select).value)
        if problems:
            self.query_one("#problems", Static).update(Text("; ".join(problems)))
            self.query_one(f"#{wrong[0]}", Input).focus()  # where the first problem is, to type it right
            return
        remember_reviewer(values["who"])
        self.dismiss(values)


def _named(field: Input, name: str) -> Input:
    field.border_title = name
    return field
