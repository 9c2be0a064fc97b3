"""The Overview tab: who the server is, what it offers and what its listing costs, the verdict once the
checklist ran; or why the connection failed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static, TabPane

from mcp_review import claims, known
from mcp_review.catalog import ServerSnapshot
from mcp_review.costs import Costs
from mcp_review.encodings import ENCODINGS
from mcp_review.report import headline
from mcp_review.review import Review
from mcp_review.targets import Target
from mcp_review.text import one_line, plural, visible
from mcp_review.tokens import ESTIMATES, TokenCounter
from mcp_review.tui.dialogs.pin import unapproved_counts
from mcp_review.tui.styles import status_style
from mcp_review.workspace import LockDiff

TOP_TOOLS = 10  # the costliest tools named on the overview
ERA_ROWS = 8  # `--era both`: the rules whose verdicts differ, named on the overview (the exports have all)
CLAIM_ROWS = 8  # the repository's decisions not applied, listed on the overview (the exports have all)


def era_lines(eras: dict[str, Any]) -> Text:
    """`--era both` on the overview: each era's verdict, then rule by rule where they differ (the first ERA_ROWS;
    the exports have every one, with each era's message)."""
    out = Text()
    legacy, modern = (eras.get(e) or {} for e in ("legacy", "modern"))
    each = " · ".join(f"{e} {s.get('verdict', 'not served')}" for e, s in (("legacy", legacy), ("modern", modern)))
    differ = eras.get("differ", [])
    out.append(f"both eras: {each} · {plural(len(differ), 'difference')}\n")
    for d in differ[:ERA_ROWS]:
        where = f" {one_line(str(d['subject']), 60)}" if d.get("subject") else ""
        out.append(f"  {one_line(str(d['rule']), 60)}{where}: legacy {d['legacy']} · modern {d['modern']}\n")
    if len(differ) > ERA_ROWS:
        out.append(f"  … {len(differ) - ERA_ROWS} more in the exports\n")
    return out


def repository_lines(review: Review) -> Text:
    """Under the verdict, whole (wrapped, never cut): the repository's decisions it applied, those it did not, why,
    and the verdict with them; then the first CLAIM_ROWS of those, each in the file's own words, inert."""
    out = Text()
    if applied := review.repository_decisions():
        out.append(f"with {visible(applied, newlines=False)}\n")
    if said := claims.said(review):
        out.append(f"{visible(said, newlines=False)}\n", style="bold")
        listed = claims.of(review)
        for claim in listed[:CLAIM_ROWS]:
            out.append(f"  {visible(claims.line(claim), 200, newlines=False)}\n")
        if len(listed) > CLAIM_ROWS:
            out.append(f"  … {len(listed) - CLAIM_ROWS} more in the exports\n")
    return out


class OverviewPane(TabPane):
    # the app's key, shown where a reviewer starts (and lands after a failed connection)
    BINDINGS = [Binding("ctrl+o", "app.connect", "Connect", id="overview-connect")]

    def __init__(self, counter: TokenCounter, *, title: str, id: str) -> None:
        super().__init__(title, id=id)  # from the tab's declaration (screen.TABS)
        self.counter = counter
        self.drift: Text | None = None  # how far the server drifted from the lock (`show_drift`)
        self.pending: str | None = None  # how far the review saved before is read (tui/reopening.py)
        self.elsewhere: str | None = None  # a review of this server's name saved from elsewhere, when it has none
        self.shown: tuple[ServerSnapshot, Target, Costs, Review | None] | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="overview-scroll"):
            yield Static(id="overview")

    def show_drift(self, found: LockDiff) -> None:
        """How far the live server drifted from `mcp-review.lock` (the Changes tab lists it)."""
        if found.error is not None:
            said = Text(f"lock: {one_line(found.error, 200)}", style="bold")
        elif found.other is not None:
            said = Text(f"lock: {one_line(found.other, 200)} ", style="bold")
            said.append("(the Changes tab, 8: c compares anyway, P pins this server over it)", style="")
        elif found.diff is None:
            said = Text("lock: none pinned yet (P in the Changes tab pins mcp-review.lock)")
        elif not found.diff.changes:
            said = Text(f"lock: the live server matches {found.path.name}")
        else:
            counts = unapproved_counts(found.diff.changes)
            said = Text(f"lock: {plural(len(found.diff.changes), 'change')} since {found.path.name} ", style="bold")
            said.append(f"(not approved: {counts}; the Changes tab, 8, lists them)", style="")
        self.drift = said
        if self.shown is not None:
            self.show(*self.shown)

    def show(self, snap: ServerSnapshot, target: Target, costs: Costs, review: Review | None) -> None:
        """What the app is for, on the first screen: who the server is, the verdict (or that there is none
        yet), how far it drifted from the lock, and the tools with what they cost a client's context (as `costs`
        counted them, off the loop: an encoding not counted yet says so)."""
        self.shown = (snap, target, costs, review)
        out = Text()
        out.append(f"{one_line(snap.server_name, 80)} {one_line(snap.server_version or '', 40)}\n", style="bold")
        verdict = review.verdict if review is not None else "NOT_CHECKED"  # one pass over every finding, once
        if review is not None and verdict != "NOT_CHECKED":
            out.append_text(self.verdict_lines(review, verdict))
            out.append_text(repository_lines(review))
        elif self.pending is not None:
            out.append(f"verdict: {self.pending}… (every key works meanwhile)\n")
        else:
            out.append("verdict: not checked yet (r runs the checklist)\n")
            if self.elsewhere is not None:
                out.append(f"{self.elsewhere}\n", style="dim")
        if self.drift is not None:
            out.append_text(self.drift)
            out.append("\n")
        if review and review.eras:  # --era both: each era's verdict, and the rules and subjects that differ
            out.append_text(era_lines(review.eras))
        out.append(f"revision {snap.revision} · {snap.era} era · transport {target.kind}\n")
        out.append(f"target: {one_line(target.label(), 200)}\n")
        out.append(f"capabilities: {one_line(', '.join(sorted(snap.capabilities)) or 'none', 200)}\n")
        offered = (
            (snap.tools, "tool"),
            (snap.resources, "resource"),
            (snap.templates, "template"),
            (snap.prompts, "prompt"),
        )
        out.append(" · ".join(plural(len(items), noun) for items, noun in offered) + "\n")
        totals = " · ".join(
            f"{f.total:,} {e}{' (estimate)' if e in ESTIMATES else ''}" if (f := costs.counted(e)) else f"{e} counting…"
            for e in ENCODINGS
        )
        out.append(f"tools/list costs {totals} tokens (canonical JSON; the estimate as the host wraps tools)\n")
        figures = costs.counted(self.counter.encoding)  # counted before the connection said it was connected
        tools = figures.tools if figures else []
        if snap.instructions and figures:
            out.append(f"instructions cost {figures.instructions:,} {self.counter.encoding} tokens\n")
        costly = sorted(((t["total"], i) for i, t in enumerate(tools)), reverse=True)[:TOP_TOOLS]
        if costly:
            out.append(f"\ntools by token cost (the Tools tab lists all {len(snap.tools):,}):\n", style="bold")
            for total, i in costly:
                out.append(f"{total:>8,}  {one_line(snap.tools.items[i].key, 60)}\n")
        notes = [r for r in review.remarks if r.rule is None] if review else []
        if notes:
            out.append(f"\nthe review's notes ({len(notes)}; N adds one in the Checklist):\n", style="bold")
            for r in notes[-5:]:
                out.append(visible(f"{r.at} {r.by}: {r.text}", 400) + "\n")
        if snap.instructions:
            out.append("\ninstructions:\n", style="bold")
            out.append(visible(snap.instructions, 4000))
        self.query_one("#overview", Static).update(out)

    def verdict_lines(self, review: Review, overall: str) -> Text:
        """Security's verdict first, then every other concern's (those that fail first), the overall verdict and
        the gate's (`overall`: the review's verdict, made once), the decisions live and stale, and each known SDK
        behaviour once, with how to waive it."""
        out = Text()
        (concern, verdict, why), *others = headline.concerns(review)
        said = f"{concern} {headline.WORDS.get(verdict, verdict)}" + (f" ({why})" if why else "")
        out.append(said, style=self._style(verdict))
        for concern, verdict, why in others:
            out.append(" · ")
            out.append(f"{concern} {headline.WORDS.get(verdict, verdict)}", style=self._style(verdict, bold=False))
            out.append(f" ({why})" if why else "")
        gate = headline.gate(review, icons=False)
        out.append(f"\nverdict {overall}" + (f" · {gate}" if gate else ""))
        out.append(f" · reviewed {review.created}\n" if review.created else "\n")
        if decided := headline.decided_counts(review):
            out.append(f"decisions: {decided}\n")
        if found := known.listed(review):
            sdks = sorted({k["sdkName"].split(" (")[0] for k in found})
            said = ", ".join(f"{k['behaviour']} ({k['concern']}, {plural(k['fails'], 'fail')})" for k in found)
            out.append(f"known SDK behaviours, each a true fail said once ({' and '.join(sdks)}): {said}; ")
            out.append('waive one for the whole review with known = "…" in a [[waive]] of its rule\n')
        return out

    def _style(self, verdict: str, bold: bool = True) -> str:
        """A verdict's colour, as its status's (FAIL as a fail, BLOCKED as a blocking finding) in the theme."""
        status = {"FAIL": "fail", "BLOCKED": "blocking", "PASS_WITH_WARNINGS": "warn", "PASS": "pass"}.get(verdict)
        style = status_style(self.app, status) if status else "dim"
        return style if bold else style.replace("bold ", "")

    def show_failure(self, reason: str, detail: Sequence[str]) -> None:
        self.shown = self.drift = None
        lines = "\n".join(f"  | {one_line(line, 200)}" for line in detail[-5:])
        self.query_one("#overview", Static).update(Text(f"{reason}\n{lines}"))
