"""Command palette: jump to a tool by name; every action bound to a key with a tooltip."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import Any, Protocol, runtime_checkable

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.command import Hit, Hits, Provider

from inspector.catalog import ServerSnapshot
from inspector.text import one_line


def bound_commands(app: App[Any]) -> Iterable[SystemCommand]:
    """The app's key bindings that have a tooltip, as palette commands."""
    for binding in app.BINDINGS:
        if isinstance(binding, Binding) and binding.tooltip:
            yield SystemCommand(binding.description, binding.tooltip, partial(app.run_action, binding.action))


@runtime_checkable
class ToolJumper(Protocol):
    """What the provider needs of the app: the tools listed, and a way to show one."""

    snapshot: ServerSnapshot | None

    def jump_to_tool(self, index: int) -> None: ...


class ToolJump(Provider):
    """Command palette: jump to a tool by name."""

    async def search(self, query: str) -> Hits:
        app = self.app
        if not isinstance(app, ToolJumper) or app.snapshot is None:
            return
        matcher = self.matcher(query)
        for item in app.snapshot.tools.items[:20000]:
            name = one_line(item.key, 80)
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), partial(app.jump_to_tool, item.index), help="tool")
