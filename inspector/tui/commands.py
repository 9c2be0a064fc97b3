"""Command palette: jump to a tool by name; every action bound to a key with a tooltip, the app's (a tab's key
too) and each tab's (chosen from the palette, a tab's action shows its tab first), with its key."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import Any, Protocol, runtime_checkable

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.command import Hit, Hits, Provider
from textual.dom import DOMNode
from textual.widgets import TabbedContent, TabPane

from mcp_review.text import one_line
from mcp_review.workspace import Workspace


def bindings(node: DOMNode) -> list[Binding]:
    """A node's key bindings, its classes' merged (Textual keeps them in `_bindings`)."""
    return [b for key_bindings in node._bindings.key_to_bindings.values() for b in key_bindings]


def bound_commands(app: App[Any], tabs: TabbedContent) -> Iterable[SystemCommand]:
    """The key bindings of the app and of every tab in `tabs` that have a tooltip, as palette commands; each one's
    help starts with its key (Textual's palette has no column for it), so the palette teaches the keys."""
    for binding in bindings(app):
        if binding.tooltip:
            help_text = f"{app.get_key_display(binding)} · {binding.tooltip}"
            yield SystemCommand(binding.description, help_text, partial(app.run_action, binding.action))
    for pane in tabs.query(TabPane):
        where = tabs.get_tab(pane).label_text
        for binding in bindings(pane):
            if binding.tooltip:
                help_text = f"{app.get_key_display(binding)} · {where}: {binding.tooltip}"
                yield SystemCommand(binding.description, help_text, partial(run_in, tabs, pane, binding.action))


async def run_in(tabs: TabbedContent, pane: TabPane, action: str) -> None:
    """A tab's action from the palette: show the tab (its table takes the focus), then run it there."""
    tabs.active = pane.id or ""
    await pane.run_action(action)


@runtime_checkable
class ToolJumper(Protocol):
    """What the provider needs of the app: the tools listed (its workspace's snapshot), and a way to show one."""

    workspace: Workspace

    def jump_to_tool(self, index: int) -> None: ...


class ToolJump(Provider):
    """Command palette: jump to a tool by name."""

    async def search(self, query: str) -> Hits:
        app = self.app
        if not isinstance(app, ToolJumper) or (snapshot := app.workspace.snapshot) is None:
            return
        matcher = self.matcher(query)
        for item in snapshot.tools.items[:20000]:
            name = one_line(item.key, 80)
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), partial(app.jump_to_tool, item.index), help="tool")
