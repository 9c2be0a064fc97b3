"""Which of the client's own requests a server's request (sampling, elicitation, roots) belongs to, as the wire says.

A server asks within a request of ours in three ways the wire records:
- a 2026-07-28 `input_required` result: the request is an entry of the `inputRequests` that answered our request
  (a `tools/call`, or a task's `tasks/get`);
- Streamable HTTP: the server's request came on the SSE stream of our request's POST (the SDKs'
  `related_request_id`);
- tasks: its `_meta` names the task (`io.modelcontextprotocol/related-task`, both revisions).
Over stdio a legacy server's own request names nothing: that it came while a call ran proves nothing, and the app
says so rather than guess. The session sets `WITHIN` while a handler answers, so the handlers keep their signature.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from mcp_review.connection.protocol import META
from mcp_review.connection.wire import WireEntry, WireLog
from mcp_review.text import one_line

RELATED_TASK = META + "related-task"


@dataclass(frozen=True)
class Within:
    """Our request a server's request belongs to: its method, the tool it calls, the task it concerns (each None
    when the wire does not say; shown to the reviewer, so bounded)."""

    method: str | None = None
    tool: str | None = None
    task_id: str | None = None


WITHIN: ContextVar[Within | None] = ContextVar("within", default=None)  # the request being answered belongs to


def within(ours: WireEntry | None, params: Any) -> Within | None:
    """What the server's request (`params`) belongs to: our request `ours` (when the wire ties them) and the task
    its `_meta` names; None when nothing does."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    related = meta.get(RELATED_TASK) if isinstance(meta, dict) else None
    task_id = related.get("taskId") if isinstance(related, dict) else None
    message = ours.message if ours is not None and isinstance(ours.message, dict) else {}
    asked = message.get("params")
    asked = asked if isinstance(asked, dict) else {}
    method = ours.method if ours is not None else None
    tool = asked.get("name") if method == "tools/call" else None
    if task_id is None and method is not None and method.startswith("tasks/"):
        task_id = asked.get("taskId")
    if method is None and task_id is None:
        return None
    return Within(method, _shown(tool), _shown(task_id))


def ours_in(wire: WireLog, exchange: int | None) -> WireEntry | None:
    """Our request whose HTTP POST `exchange` is (a server's request on its stream belongs to it), or None."""
    return next((e for e in wire.sent_in(exchange) if e.method is not None), None)


def ours_answered_by(wire: WireLog, seq: int) -> WireEntry | None:
    """Our request that the answer at wire `seq` (an `input_required` result) answers, or None."""
    answer = wire.get(seq)
    link = answer.link if answer is not None else None
    return wire.get(link.request) if link is not None and link.answers and link.request else None


def _shown(value: Any) -> str | None:
    return None if value is None else one_line(str(value), 80)
