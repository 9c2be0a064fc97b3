"""The review screen: the status line over the tabs (one pane each, declared once in `TABS`), the footer; it draws
what crossed the wire into the Wire and logs tabs, and a hidden tab catches up when it is shown. The focus is always
inside the shown tab (the tab bar takes none: the digits switch tabs), so the footer shows that tab's keys and they
work."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import NamedTuple

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Header, Input, Static, TabbedContent, TabPane, Tabs

from mcp_review.tui.closed import SteadyTabs
from mcp_review.tui.footer import Footer
from mcp_review.tui.panes.behaviour import BehaviourPane
from mcp_review.tui.panes.calls import CallsPane
from mcp_review.tui.panes.changes import ChangesPane
from mcp_review.tui.panes.checklist import ChecklistPane
from mcp_review.tui.panes.keys import FilteredPane
from mcp_review.tui.panes.logs import LogsPane
from mcp_review.tui.panes.overview import OverviewPane
from mcp_review.tui.panes.primitives import PrimitivesPane
from mcp_review.tui.panes.skills import SkillsPane
from mcp_review.tui.panes.tail import TailPane
from mcp_review.tui.panes.tools import ToolsPane
from mcp_review.tui.panes.wire import WirePane, WireView
from mcp_review.workspace import Workspace


class Tab(NamedTuple):
    pane: Callable[..., TabPane]  # a TabPane class, made with `title` and `id` (and what `compose` gives it)
    id: str
    title: str
    short: str  # the tab bar's label where the titles do not fit, and shorter where those do not either
    tiny: str


# The tabs, in order: a tab's number is its place here (the tenth's key is 0: `tab_key`). The tab bar's labels, the
# app's digit keys and their help (the footer, `?`, the command palette) are made from this.
TABS = (
    Tab(OverviewPane, "tab-overview", "Overview", "Overview", "Over"),
    Tab(ToolsPane, "tab-tools", "Tools", "Tools", "Tool"),
    Tab(CallsPane, "tab-calls", "Calls", "Calls", "Call"),
    Tab(PrimitivesPane, "tab-primitives", "Resources", "Res", "Res"),
    Tab(ChecklistPane, "tab-checks", "Checklist", "Checks", "Chk"),
    Tab(WirePane, "tab-wire", "Wire", "Wire", "Wire"),
    Tab(LogsPane, "tab-logs", "Logs", "Logs", "Logs"),
    Tab(ChangesPane, "tab-changes", "Changes", "Changes", "Chg"),
    Tab(SkillsPane, "tab-skills", "Skills", "Skills", "Skl"),  # only for a server that declares skills
    Tab(BehaviourPane, "tab-behaviour", "Behaviour", "Behav", "Beh"),  # the tenth: its key is 0
)


def tab_key(number: int) -> str:
    """The digit that shows tab `number` (1-based): 1 to 9, then 0."""
    return str(number % 10)


def labels(width: int, skills: bool) -> list[str]:
    """The tab bar's labels: the titles when every tab fits `width` (a space before each), else the short names,
    else the tiny ones (9 tabs at 80 columns cut `9 Sk`, 8 at 60 ended at `7`); the number always leads."""
    shown = [tab for tab in TABS if skills or tab.id != "tab-skills"]
    for names in ([t.title for t in TABS], [t.short for t in TABS], [t.tiny for t in TABS]):
        said = [f"{tab_key(n)} {name}" for n, name in enumerate(names, 1)]
        if sum(len(s) + 1 for s, tab in zip(said, TABS, strict=True) if tab in shown) <= width:
            break
    return said


class Tabbed(SteadyTabs):
    """Textual's TabbedContent shows the tab of whatever gets the focus. A focus that lands after the reviewer
    already switched to another tab is stale: following it switched back, and with keys pressed quickly the two
    switches chased each other (seen in tmux: 100% CPU, keys applied seconds late to the wrong tab). Only a
    pane that still holds the focus is shown."""

    def shows(self, pane: TabPane) -> bool:
        focused = self.screen.focused
        return focused is not None and pane in focused.ancestors and super().shows(pane)


class ReviewScreen(Screen[None]):
    # `?`: Textual splits the screen for its help, and at 80 columns the tab beside it was squeezed to 8 columns
    # (its table redrawn that narrow, then back). On a layer of its own the panel lies over the tab, which keeps
    # its width. 70 columns hold a key, its description and tooltip (Textual's third of the width wrapped each on
    # three lines); on a narrower terminal it takes the width and its table wraps instead of clipping the keys.
    DEFAULT_CSS = """
    ReviewScreen { layers: default help; }
    ReviewScreen HelpPanel { layer: help; width: 70; min-width: 0; max-width: 100%; background: $panel; }
    ReviewScreen HelpPanel KeyPanel#keys-help { max-width: 100%; background: $panel; }
    ReviewScreen HelpPanel BindingsTable { width: 100%; }
    """
    ready = False

    def __init__(self, ws: Workspace) -> None:
        super().__init__()
        self.ws = ws
        self.wire_log = WireView()  # the Wire and Logs tabs' view of the current server's wire log

    def compose(self) -> ComposeResult:
        counter, log = self.ws.counter, self.wire_log
        made_with: dict[Callable[..., TabPane], tuple[object, ...]] = {  # what each pane is made with
            OverviewPane: (counter,),
            ToolsPane: (counter,),
            CallsPane: (log,),
            PrimitivesPane: (counter,),
            SkillsPane: (counter,),
            ChecklistPane: (log, self.ws.decided_on, self.ws.waiting, self.ws.bind),
            WirePane: (log, counter),
            LogsPane: (log,),
            BehaviourPane: (log,),
            ChangesPane: (self.ws,),
        }
        yield Header()
        yield Static("connecting…", id="status")
        yield Static(id="aside")  # the server's requests set aside (tui/asking.py): shown only while they wait
        with Tabbed():  # opens on its first tab (`closed.SteadyTabs`)
            for number, tab in enumerate(TABS, 1):
                yield tab.pane(*made_with[tab.pane], title=f"{tab_key(number)} {tab.title}", id=tab.id)
        yield Footer(compact=True)  # at 80 columns a tab's keys, then r, e, ? and q, still fit

    def on_mount(self) -> None:
        self.query_one(TabbedContent).query_one(Tabs).can_focus = False
        self.query_one(TabbedContent).hide_tab("tab-skills")
        self._label_tabs()
        self.reset_tails()
        self.ready = True  # every pane is mounted: the wire may be drawn

    def reset_tails(self) -> None:
        for pane in self.query(TailPane):
            pane.redraw()

    def forget(self) -> None:
        """Another server: no wire log, no calls, no checklist until it connects, and no filter typed for the
        last one (its words would hide this one's rows)."""
        for pane in self.query(FilteredPane):
            pane.query_one(Input).value = ""
        self.wire_log.clear()
        self.reset_tails()
        self.query_one(CallsPane).show([])
        self.query_one(ChecklistPane).show(None)
        self.show_skills(False)

    def status(self, text: str, failed: bool = False, whole: bool = False) -> None:
        with contextlib.suppress(NoMatches):  # a timer's last tick (a call's elapsed time) while the app closes
            status = self.query_one("#status", Static)
            status.update(Text(text))
            status.set_class(failed, "-failed")
            status.set_class(whole, "-whole")

    def aside(self, line: str | None) -> None:
        with contextlib.suppress(NoMatches):
            aside = self.query_one("#aside", Static)
            aside.update(Text(line or ""))
            aside.display = line is not None

    def flush_wire(self) -> None:
        """Add what crossed the wire since the last tick (10 times a second). The tables hold every entry,
        and a row's cells (its tokens too) are made only when it is drawn: a flood costs a little
        bookkeeping per message and at most one redraw a tick. The filter searches every entry."""
        pending = self.ws.wire
        if not pending or not self.ready:
            return
        batch = pending[:]  # in place: the session holds this list's append
        pending.clear()
        first, logs_first = len(self.wire_log.entries), len(self.wire_log.log_index)
        events_first = len(self.wire_log.event_index)
        self.wire_log.add(batch)
        with contextlib.suppress(NoMatches):  # a last tick while the app closes: the panes are gone, the log is kept
            active = self.query_one(TabbedContent).active
            self.query_one(WirePane).show(first, shown=active == "tab-wire")
            self.query_one(LogsPane).show(logs_first, shown=active == "tab-logs")
            self.query_one(BehaviourPane).show(events_first, shown=active == "tab-behaviour")

    @on(TabbedContent.TabActivated)
    def _draw_stale(self, event: TabbedContent.TabActivated) -> None:
        """The shown tab gets the focus (its table, or the overview's text); the Wire and logs tables catch up
        with what arrived while they were hidden."""
        if isinstance(event.pane, TailPane):
            event.pane.catch_up()
        main = next(iter(event.pane.query("Grid, VerticalScroll")), None)
        if main is not None and self.query_one(TabbedContent).active == event.pane.id:  # not a tab already left
            # Now, not `main.focus()`: that focuses later, when the reviewer may have left the tab already, and a
            # focus landing there (which `Tabbed.shows` would follow, as it holds the focus) switched back.
            self.set_focus(main)

    def show_tab(self, tab: str) -> None:
        tabs = self.query_one(TabbedContent)
        if tab != "tab-skills" or self.query_one(SkillsPane).snapshot_has_skills:
            tabs.active = tab

    def show_skills(self, declared: bool) -> None:
        """The Skills tab is there only for a server that declares the skills extension."""
        tabs = self.query_one(TabbedContent)
        if declared:
            tabs.show_tab("tab-skills")
        else:
            tabs.hide_tab("tab-skills")
        self.skills = declared
        self._label_tabs()

    skills = False  # the Skills tab is shown

    def on_resize(self) -> None:
        self._label_tabs()

    def _label_tabs(self) -> None:
        """Labels that fit the width (`labels`), set only when they change."""
        tabs = self.query_one(TabbedContent)
        for tab, label in zip(TABS, labels(self.size.width, self.skills), strict=True):
            shown = tabs.get_tab(tab.id)
            if shown.label_text != label:
                shown.label = label
