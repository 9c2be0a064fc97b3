"""What a closed screen's widgets may still do, and why that is not a crash.

A dialog answered the moment it opens (keys typed ahead, a server that crashes mid-call closing it) still gets the
messages already on their way to its widgets: their mount, their first changes and focus. Their handlers, Textual's
own and ours, then look for widgets that are gone. Textual calls that a crash and stops the app: "No nodes match
'TextArea' on CallScreen()", "No nodes match 'SelectOverlay' on Select", "No Tab with id '--content-tab-tab-form'"
(twice in the hostile corpus; reproduced by popping a dialog 0 to 10 ms after pushing it). So:

- `ClosedScreensApp`: a widget of a screen no longer on the stack, or of any screen once the app is ending (quit
  with a dialog just opened), that misses a widget (`NoMatches`) or cannot mount one (`MountError`) has nothing
  left to do; any other error, or one from a screen still shown, stops the app as before;
- `SteadyTabs`: a pane's focus shows its tab only while that tab exists, and no `initial` tab is ever passed
  (the tabs' mount sets it unchecked, while without one they take their first tab after finding it; compose the
  tab to open on first). Both raise `ValueError`, which no screen's closing excuses.
"""

from __future__ import annotations

from textual._context import active_message_pump
from textual.app import App
from textual.css.query import NoMatches
from textual.dom import NoScreen
from textual.screen import Screen
from textual.widget import MountError, Widget
from textual.widgets import TabbedContent, TabPane

_MISSES = (NoMatches, MountError)  # a widget looked for, or mounted on a screen, that is gone


class ClosedScreensApp(App[None]):
    def _handle_exception(self, error: Exception) -> None:
        """Textual calls this with whatever a handler raised, in the task of the widget that raised it (which
        `active_message_pump` names: Textual's own context variable; Textual is pinned)."""
        if not (
            isinstance(error, _MISSES) and (self._ending() or self._of_a_closed_screen(active_message_pump.get(None)))
        ):
            super()._handle_exception(error)

    def _ending(self) -> bool:
        """Whether the app is ending: its screens, still on the stack, are no longer mounted or are being torn
        down (the app quit with a dialog just opened: "Can't mount widget(s) before CallScreen() is mounted")."""
        return self.return_code is not None or not self.is_running

    def _of_a_closed_screen(self, pump: object) -> bool:
        """Whether `pump` is a screen no longer on the stack, or a widget of one (or of none any more)."""
        if isinstance(pump, Screen):
            return pump not in self.screen_stack
        if not isinstance(pump, Widget):
            return False
        try:
            return pump.screen not in self.screen_stack
        except NoScreen:  # detached: the screen it was on is gone
            return True


class SteadyTabs(TabbedContent):
    def shows(self, pane: TabPane) -> bool:
        """Whether a focus inside `pane` should show it: while its tab exists."""
        try:
            self.get_tab(pane)
        except (NoMatches, ValueError):
            return False
        return True

    def _on_tab_pane_focused(self, event: TabPane.Focused) -> None:
        """Runs before Textual's handler of the same name (Textual calls each class's along the MRO, until one
        prevents the default), which would show the pane."""
        if not self.shows(event.tab_pane):
            event.stop()
            event.prevent_default()
