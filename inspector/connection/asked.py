"""What a server asks of the client in one session, counted, and answered within one bound (issue 35).

A server may ask the client (sampling, elicitation, roots, ping) as JSON-RPC requests of its own, or as the
`inputRequests` of a 2026-07-28 `input_required` result (MRTR). Either way each asks a person or a model in a
real client, and a server can ask without end: each decline brings the next (a sampling loop), a round asks a
thousand things and comes back after every answer, a server that never reads its input keeps sending. One bound,
`LIMITS.client_requests`, counts both kinds for the whole session, headless (`check`, `list`, `call`) and in the
app alike, so the two see the same review:

- within it, every request is answered as the session's handlers say (headless: declined; the app: a dialog, or
  the Run dialog's policy);
- past it, a round of `inputRequests` is not answered: the request that carried it ends with no result
  (`ClientRequestsExceeded`), and later rounds are refused as they come;
- past it, a JSON-RPC request ends the connection (`ClientFlood`): it is the only way to stop a server that asks on
  its own, as declining it at once only made the next one come at once (a loop that held a full core, and grew
  the wire log, for as long as the connection lived), and leaving it pending kept reading a server that floods
  without reading.

It is said once: a note on the wire when the bound is reached (the evidence), one line in the review's notes
and one finding (`review.client-requests-safe`), each with the count, never one per request.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from mcp_review.connection.errors import ConnectionFailed, ProtocolError
from mcp_review.connection.wire import WireLog
from mcp_review.limits import LIMITS
from mcp_review.text import one_line


class ClientRequestsExceeded(ProtocolError):
    """A request whose `input_required` rounds asked more of the client than the session answers: no result came."""


class ClientFlood(ConnectionFailed):
    """The server asked the client more, on its own, than a session answers: the connection was ended."""


class Asked:
    """The requests of the client one session saw: how many of each method, and where the bound was reached."""

    def __init__(self, wire: WireLog) -> None:
        self.wire = wire
        self.methods: Counter[str] = Counter()  # every request seen, answered or not
        self.answered = 0  # handed to the handlers (within the bound)
        self.over: tuple[int, int] | None = None  # (the note saying the bound was reached, the entry that crossed it)
        self.ended = False  # a JSON-RPC request past the bound ended the connection

    @property
    def total(self) -> int:
        return sum(self.methods.values())

    @property
    def cap(self) -> int:
        return LIMITS.client_requests

    def admit(self, methods: Iterable[str], conn: int, seq: int, how: str) -> bool:
        """Count requests that came together (one JSON-RPC request, or one round of `inputRequests`); True when
        they may be answered, False (said once, on the wire) when they would take the session past its bound."""
        asked = [one_line(m, 80) for m in methods]  # the server's own names: shown as text, short
        self.methods.update(asked)
        if self.over is None and self.answered + len(asked) <= self.cap:
            self.answered += len(asked)
            return True
        if self.over is None:
            where = f"wire #{seq}: {one_line(how, 160)}"
            text = (
                f"the server asked the client {self.total:,} times in this session ({where}); mcp-review answers "
                f"{self.cap:,} in a session (client_requests, MCP_REVIEW_LIMITS): no more is answered"
            )
            self.over = (self.wire.line("note", conn, text).seq, seq)
        return False

    def counts(self) -> str:
        """The methods asked, most asked first: "roots/list 10,001, sampling/createMessage 3"."""
        return ", ".join(f"{method} {n:,}" for method, n in self.methods.most_common(6))

    def refusal(self, method: str) -> str:
        """Why a request of ours got no result, or the connection ended: one line, with the count."""
        ended = "so mcp-review ended the connection" if self.ended else f"so {method} got no result"
        return (
            f"the server asked the client {self.total:,} times in this session ({self.counts()}); mcp-review answers "
            f"{self.cap:,} in a session (client_requests, MCP_REVIEW_LIMITS), {ended}"
        )

    def said(self) -> str:
        """What happened, with the count (the finding's message; the note adds where)."""
        what = "ended the connection" if self.ended else "answered no more (the requests that asked got no result)"
        return (
            f"the server asked the client {self.total:,} times in this session ({self.counts()}): mcp-review answered "
            f"the first {self.answered:,} (client_requests, MCP_REVIEW_LIMITS) and {what}"
        )

    def note(self) -> str | None:
        """The review's one note on it, once the bound was reached."""
        return None if self.over is None else f"{self.said()} (wire #{self.over[0]})"
