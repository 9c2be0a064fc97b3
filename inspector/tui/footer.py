"""Textual's footer, rebuilt only when the keys it shows change.

Textual's `Footer` recomposes (a widget per key) on every `bindings_updated` signal: each change of focus, each
screen pushed or popped, each `refresh_bindings`. Most of them leave the same keys shown, and a rebuild costs
~10 ms: in a review driven through the app, 35 rebuilds were 17% of the app's CPU, and each one is time a key
waits. This footer compares the active bindings it builds from (key, description, action, shown or not, group, enabled,
tooltip) with those of its last build, and rebuilds only when they differ. The rest is Textual's (the pinned version).
"""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.widgets import Footer as TextualFooter


def shown(screen: Screen[Any]) -> tuple[Any, ...]:
    """What a footer on `screen` is built from, as a value to compare."""
    return tuple(
        (key, binding.description, binding.action, binding.show, binding.group, enabled, tooltip)
        for key, (_, binding, enabled, tooltip) in screen.active_bindings.items()
    )


class Footer(TextualFooter):
    _shown: tuple[Any, ...] | None = None

    def bindings_changed(self, screen: Screen[Any]) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen and (now := shown(screen)) != self._shown:
            self._shown = now
            self.call_after_refresh(self.recompose)
