"""What the modules of pack `tokens` share."""

from __future__ import annotations

from mcp_review.catalog import Item
from mcp_review.rules.context import CheckContext

SEED = "000"


def named_tools(ctx: CheckContext) -> list[Item]:
    return [t for t in ctx.snapshot.tools if t.name]
