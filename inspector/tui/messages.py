"""What the connection worker and the panes tell the app: each a Textual `Message`, posted up and routed there."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.message import Message
from textual.screen import Screen

from mcp_review.calls import CallRecord
from mcp_review.catalog import Item, ServerSnapshot
from mcp_review.connection.pace import Slow
from mcp_review.connection.wire import WireLog
from mcp_review.costs import Costs
from mcp_review.review import Finding, Review
from mcp_review.rules.core import Rule
from mcp_review.tui.panes.ordering import Order
from mcp_review.workspace import LockDiff


@dataclass
class Connected(Message):
    snapshot: ServerSnapshot
    costs: Costs  # the snapshot's, counted in the default encoding (the others follow: `Costed`)
    source: object = None  # the `Connection` that connected: the current one, or a server being tried


@dataclass
class Costed(Message):
    """Every encoding of `costs` is counted (the Overview shows each total, the tool screen each breakdown)."""

    costs: Costs


@dataclass
class Connecting(Message):
    """What a connection still waits for while it opens (one line for the status bar)."""

    line: str
    source: object = None  # the `Connection` that waits


@dataclass
class ConnectionLost(Message):
    reason: str
    detail: list[str]
    source: object = None  # the `Connection` that failed


@dataclass
class ChecksProgress(Message):
    done: int
    total: int
    running: str | None  # the rule starting now; None when every rule has run
    new: list[Finding]  # findings of the rules finished since the last message
    slow: Slow | None = None  # what makes every request slow, and what would be faster (`checking.slowness`)


@dataclass
class ChecksDone(Message):
    review: Review
    order: Order  # the Checklist's order of its findings and its rows (`order_findings`)
    worst: dict[str, str]  # each subject's worst status, for the Tools and Skills tabs (`worst_by_subject`)
    verdict: str  # the verdict and the count of each status, for the status line
    wire: WireLog  # the wire log the findings' evidence is in


@dataclass
class CallDone(Message):
    record: CallRecord


@dataclass
class Show(Message):
    body: Text | Screen[None]


@dataclass
class CallAsked(Message):
    """`c` in the Tools tab: the call editor on the highlighted tool (None: nothing highlighted)."""

    tool: Item | None


@dataclass
class PreviewAsked(Message):
    """`b` on an app tool or resource: the app in the reviewer's browser; `B`: in a confined headless Chromium, and
    what it did (tui/previewing.py)."""

    tool: Item | None
    headless: bool = False


@dataclass
class PreviewReady(Message):
    """The app to preview was read (and called), or why it could not be (a string)."""

    found: Any
    headless: bool = False


@dataclass
class AppAsked(Message):
    """The reviewer asked for the app a tool shows (in the Tools tab)."""

    uri: str


@dataclass
class CallChosen(Message):
    call: dict[str, Any]  # a past call, as kept in the review's coverage


@dataclass
class Decided(Message):
    """The reviewer waived, attested or noted something in the review: it is to be saved."""


@dataclass
class RerunAsked(Message):
    only: str  # a rule id, or a pack: its findings are re-run and merged


@dataclass
class CallRefused(Message):
    """The reviewer refused consent to a call with side effects: kept in coverage as not called."""

    tool: str
    arguments: dict[str, Any]


@dataclass
class Fetch(Message):
    """A request for the app to send (read a resource, get a prompt); `render` shows its result (as text, or a
    screen of its own: an app resource's)."""

    method: str
    params: dict[str, Any]
    render: Callable[[Any], Text | Screen[None]]


@dataclass
class ChecksStarted(Message):
    """A run starts: the Checklist shows its rules live (unless a re-run is merged into the review shown)."""

    rules: list[Rule]
    merging: bool


@dataclass
class Saved(Message):
    """The review was written (off the app's loop): `path`, or the error that stopped it."""

    path: Path | None
    error: str | None = None
    say: bool = True  # say it in the status line (a decision saved); an error is always said


@dataclass
class Exported(Message):
    """An export was written (off the app's loop, `Workspace.export`): the files, or the error that stopped it."""

    paths: list[Path]
    error: str | None = None


@dataclass
class LockCompared(Message):
    """The live server against mcp-review.lock, compared off the app's loop (`Workspace.compare_lock`, `pin`)."""

    result: LockDiff
    pinned: int | None = None  # approvals written, when it was pinned


@dataclass
class Reopening(Message):
    """The review saved before is being read (`Workspace.reopen`): how far it is (tui/reopening.py)."""

    state: Any  # workspace.Reopening


@dataclass
class Reopened(Message):
    """The review saved before is read (or could not be): what the screen shows of it made off the loop (the
    Checklist's order of its findings, each subject's worst status: `tui.reopening.Shown`)."""

    state: Any  # workspace.Reopening
    shown: Any  # tui.reopening.Shown | None


@dataclass
class Elsewhere(Message):
    """A review of a server of this name saved under another key (`Workspace.elsewhere`), or None."""

    found: Any  # saved.Elsewhere | None
