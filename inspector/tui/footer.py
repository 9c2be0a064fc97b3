"""Textual's footer, rebuilt only when the keys it shows change, with the keys a reviewer must always see pinned
to its right.

Textual's `Footer` recomposes (a widget per key) on every `bindings_updated` signal: each change of focus, each
screen pushed or popped, each `refresh_bindings`. Most of them leave the same keys shown, and a rebuild costs
~10 ms: in a review driven through the app, 35 rebuilds were 17% of the app's CPU, and each one is time a key
waits. This footer compares the active bindings it builds from (key, description, action, shown or not, group, enabled,
tooltip) and its width class with those of its last build, and rebuilds only when they differ.

Textual's footer clips what does not fit at its right end, and its keys come focused widget first: at 60 columns a
tab's keys left `? K` of the help key, and a running call's `x` (a global key, so last) fell off at 80. `PINNED` keys
sit at the right edge instead, before anything is clipped; Textual's `^p palette` joins them where there is room
(WIDE columns: `?` lists the keys, the palette is in the README's keymap). The rest is Textual's (the pinned
version).
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import HorizontalGroup
from textual.screen import Screen
from textual.widgets import Footer as TextualFooter
from textual.widgets._footer import FooterKey

PINNED = ("x", "i", "question_mark")  # a running call's cancel, the server's requests set aside (each shown only
# then), the keys' help
WIDE = 100  # columns from which the palette's key is shown too


def shown(screen: Screen[Any]) -> tuple[Any, ...]:
    """What a footer on `screen` is built from, as a value to compare."""
    return tuple(
        (key, binding.description, binding.action, binding.show, binding.group, enabled, tooltip)
        for key, (_, binding, enabled, tooltip) in screen.active_bindings.items()
    )


class Footer(TextualFooter):
    DEFAULT_CSS = """
    Footer HorizontalGroup#pinned { dock: right; width: auto; padding-left: 1; background: $footer-background; }
    Footer HorizontalGroup#pinned FooterKey.-command-palette { dock: none; }
    Footer HorizontalGroup#pinned FooterKey.-pinned { margin-right: 1; }
    """
    _shown: tuple[Any, ...] | None = None

    def _wide(self) -> bool:
        return self.app.size.width >= WIDE

    def compose(self) -> ComposeResult:
        pinned: list[FooterKey] = []
        for widget in super().compose():
            if isinstance(widget, FooterKey) and widget.key in PINNED:
                pinned.append(widget.add_class("-pinned"))
            elif isinstance(widget, FooterKey) and widget.has_class("-command-palette"):
                if self._wide():
                    pinned.append(widget)
            else:
                yield widget
        pinned.sort(key=lambda key: PINNED.index(key.key) if key.key in PINNED else len(PINNED))
        if pinned:
            yield HorizontalGroup(*pinned, id="pinned")

    def bindings_changed(self, screen: Screen[Any]) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen and (now := (shown(screen), self._wide())) != self._shown:
            self._shown = now
            self.call_after_refresh(self.recompose)

    def on_resize(self) -> None:
        """Across WIDE columns the palette's key comes or goes."""
        self.bindings_changed(self.screen)
