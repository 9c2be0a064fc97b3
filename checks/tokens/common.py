"""What the modules of pack `tokens` share."""

from __future__ import annotations

from checks.context import CheckContext
from inspector.catalog import Item

SEED = "000"


def named_tools(ctx: CheckContext) -> list[Item]:
    return [t for t in ctx.snapshot.tools if t.name]
