"""Following a listing's cursors, the same for every list (tools, resources, templates, prompts, skills).

A cursor is opaque: it goes back exactly as the server sent it (`Reply.echo`), not as the review shows it (cut past
256 K characters, the reviewer's secrets masked, a lone surrogate as U+FFFD). Sent back so, a cursor would end the
listing with an error of mcp-review's making, and two long cursors alike up to the cut would look like a loop:
both would be judged the server's defects.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mcp_review.limits import LIMITS

if TYPE_CHECKING:
    from mcp_review.connection.channel import Reply

LISTING_TIMEOUTS = 4  # a whole listing may take this many request timeouts


@dataclass(frozen=True)
class Next:
    """What follows a page: the cursor to send for the next one, or why the listing stops (None, None: it ended)."""

    cursor: str | None = None
    stopped: str | None = None
    broken: bool = False  # it stops on the server's defect (a loop, a cursor that is not a string), not on a cap


@dataclass
class Cursors:
    """The cursors of one listing: each one's successor, a loop, and the characters sent back, which
    `LIMITS.cursor` bounds for the whole listing (500 pages of 1 MB cursors would be 500 MB sent and logged)."""

    seen: set[str] = field(default_factory=set)
    sent: int = 0

    def after(self, reply: Reply, page: int) -> Next:
        """What follows `page` (counted from 1), whose answer is `reply`."""
        shown = reply.result.get("nextCursor") if isinstance(reply.result, dict) else None
        if shown is None:
            return Next()
        if not isinstance(shown, str):
            return Next(stopped=f"nextCursor is not a string: {shown!r:.60}", broken=True)
        cursor = reply.echo("nextCursor")
        if cursor in self.seen:
            return Next(stopped=f"pagination loop: cursor {shown!r:.60} came back (page {page})", broken=True)
        self.sent += len(cursor)
        if self.sent > LIMITS.cursor:
            return Next(
                stopped=f"page {page}: its nextCursor of {len(cursor):,} characters makes {self.sent:,} sent back "
                f"in this listing, over mcp-review's cap of {LIMITS.cursor:,} (MCP_REVIEW_LIMITS cursor)"
            )
        self.seen.add(cursor)
        return Next(cursor)
