"""What the modules of pack `review` share."""

from __future__ import annotations

from checks.context import CheckContext
from inspector.catalog import Item

SEED = "003"
HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def named_tools(ctx: CheckContext) -> list[Item]:
    return [t for t in ctx.snapshot.tools if t.name]
