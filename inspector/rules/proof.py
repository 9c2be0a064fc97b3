"""What a call proves: the one judgement of a refusal, and of a probe call's effect, that every call rule reads.

A call that was refused or failed proves neither an action nor its absence: a write tool that answers "Access
denied - path outside allowed directories" neither wrote nor showed that it would ask before writing, and a tool
that answers "Error: unknown service 'x'" never reached the code a probe aims at. So a rule that judges what a
tool *does* reads `outcome(record)` first: `unanswered` (no reply: a timeout, a lost connection), `refused` (a
JSON-RPC error, `isError: true`, or a refusal in plain text or in a structured result, as many tools answer
without `isError`), or `accepted`. Only an accepted call can show an act; a refused one is `blocking` for such a
rule, with what would decide it. Rules that judge *how* a failure is reported (review.error-channel-correct) read
the channel (`Outcome.channel`), which says whether the refusal came as an error, as `isError` or only as text.

A probe call (checks/review/probing.py) is decided by its effect, never by its refusal (`decide`): `proven` when
the canary's effect shows, `kept` when the payload's marker came back as text, `refused` when the tool refused
it and the refusal is the payload's (the tool accepts ordinary arguments, or the refusal quotes the value), and
otherwise `undecided`: neither proven nor ruled out. The canaries' effects (a token in the reply, a file
touched, a request at the listener) are passed in; effects observed outside the wire (the files and connections
a confined server's process touches) are read here too when the review has them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from mcp_review.calls import CallRecord
from mcp_review.rules.util import result_json, result_text

Kind = Literal["unanswered", "refused", "accepted"]
Channel = Literal["", "json-rpc", "isError", "text"]
SHORT = 400  # characters: a reply this short is read whole for a refusal; a longer one by its first line
QUOTED = 100  # characters of a refusal a finding quotes

# A reply that begins by refusing or failing ("Error: ...", "Access denied - ...", "refused: ...", "Unknown service").
LEADING = re.compile(
    r"^[\W_]{0,4}(?:\[?(?:error|err|fatal|failure|exception)\]?\s*(?:[:!\]\-\u2013\u2014]|$)|failed\b|denied\b"
    r"|error\s+(?:executing|calling|running|processing|while|during|occurred|reading|writing|opening|in\s+\w+ing)\b"
    r"|(?:access|permission|request|operation|authori[sz]ation)\s+(?:is\s+|was\s+)?(?:denied|refused|rejected)"
    r"|forbidden|unauthori[sz]ed|not\s+authori[sz]ed|refused|rejected|invalid\b|cannot\b|can(?:'|no)t\b|could\s*n[o']t"
    r"|unable\s+to|not\s+found|no\s+such\b|unknown\b|unsupported|not\s+(?:supported|allowed|permitted|available)"
    r"|blocked\b|unavailable\b|missing\s+(?:required|argument|parameter)"
    r"|(?:tool|command|operation|request|call|action)\s+(?:[\w'\"`.-]+\s+){0,3}"
    r"(?:failed|refused|denied|rejected|blocked|is\s+not\s+allowed|not\s+allowed|unavailable))",
    re.I,
)
# The same anywhere in a short reply ("The write was refused: ...", "send_email is unavailable after ...").
ANYWHERE = re.compile(
    r"\b(?:access|permission)\s+denied\b|\bnot\s+(?:allowed|permitted|authori[sz]ed)\s+(?:to|for|outside|here|in)\b"
    r"|\brefused\b|\bforbidden\b|\bis\s+(?:unavailable|disabled|blocked)\b|\brejected\b"
    r"|\boutside\s+(?:of\s+)?(?:the\s+|its\s+|any\s+)?(?:allowed|permitted|root|workspace|sandbox|base|project)"
    r"|\b(?:error|failed|failure)\s*:",
    re.I,
)
FAILED_STATUSES = frozenset({"error", "failed", "failure", "denied", "refused", "rejected", "forbidden"})
SENT = "\x00"  # what an argument the call sent is replaced with before its reply is read for a refusal


@dataclass(frozen=True)
class Outcome:
    """How a call ended: unanswered, refused (and through which channel), or accepted; `said` quotes the server."""

    kind: Kind
    channel: Channel = ""
    said: str = ""

    @property
    def refused(self) -> bool:
        return self.kind == "refused"

    @property
    def accepted(self) -> bool:
        return self.kind == "accepted"

    def quote(self) -> str:
        """The outcome as a finding says it: `isError: true ('Access denied - path outside …')`."""
        how = {"json-rpc": "a JSON-RPC error", "isError": "isError: true", "text": "a refusal in plain text"}
        head = how.get(self.channel, self.kind)
        return f"{head} ({_short(self.said)!r})" if self.said else head


def outcome(record: CallRecord) -> Outcome:
    """Whether `record`'s call was answered, refused or accepted (the module says what counts as a refusal)."""
    if record.failure:
        return Outcome("unanswered", said=record.failure)
    if record.error is not None:
        return Outcome("refused", "json-rpc", str(record.error.get("message", "")))
    text = result_text(record.result)
    if record.is_error:
        return Outcome("refused", "isError", text)
    said = text_refusal(text, record.arguments) or structured_refusal(record.result)
    return Outcome("refused", "text", said) if said is not None else Outcome("accepted", said=text)


def refused(record: CallRecord) -> bool:
    """A call that did not succeed: refused by any channel (a JSON-RPC error, isError, plain text) or unanswered."""
    return not outcome(record).accepted


def text_refusal(text: str, arguments: Any = None) -> str | None:
    """The refusal a result's text states without `isError` (its words), or None. The call's own arguments are
    blanked first: an echo of what was sent ("Echo: error: ...") is not the tool's refusal."""
    shown = blanked(text.strip(), arguments)
    first = shown.split("\n", 1)[0]
    if LEADING.search(first) or (len(shown) <= SHORT and ANYWHERE.search(shown)):
        return text.strip()
    return None


def blanked(text: str, arguments: Any) -> str:
    """`text` with every string the call sent replaced by one mark (a short one only as a whole word), so two
    replies can be compared for what the server said, not for what it echoed."""
    for value in sorted(_strings(arguments), key=len, reverse=True):
        text = text.replace(value, SENT) if len(value) >= 3 else re.sub(rf"(?<!\w){re.escape(value)}(?!\w)", SENT, text)
    return text


def structured_refusal(result: Any) -> str | None:
    """A structured result that says it failed (`{"error": ...}`, `{"ok": false}`, `{"status": "denied"}`)."""
    data = result_json(result)
    if not isinstance(data, dict):
        return None
    error = data.get("error") or data.get("errors")
    if error and error is not False:
        return error if isinstance(error, str) else json.dumps(error, ensure_ascii=False)[:QUOTED]
    if data.get("ok") is False or data.get("success") is False:
        return str(data.get("message") or data.get("reason") or json.dumps(data, ensure_ascii=False))[:QUOTED]
    status = data.get("status")
    if isinstance(status, str) and status.lower() in FAILED_STATUSES:
        return str(data.get("message") or data.get("reason") or status)
    return None


Decided = Literal["proven", "kept", "refused", "undecided", "unanswered"]


@dataclass(frozen=True)
class Decision:
    """What one probe call showed: `proven` (the effect, said), `kept` (the payload came back as text),
    `refused` (the payload itself was refused), `undecided` (taken or refused without telling either way: said
    why), `unanswered`."""

    kind: Decided
    said: str = ""

    @property
    def safe(self) -> bool:
        return self.kind in ("kept", "refused")


def decide(
    record: CallRecord,
    effect: str | None,
    *,
    markers: tuple[str, ...] = (),
    named: tuple[str, ...] = (),
    ordinary: CallRecord | None = None,
) -> Decision:
    """A probe call's decision: its effect first (`effect`: what the canary showed, None when nothing did), then
    its outcome. `markers` are the payload's random parts: any of them back in an accepted reply, without the
    effect, shows it was kept as text. A refusal is the payload's when the same call without the payload
    (`ordinary`) was accepted, or refused otherwise (the server's words differ once what each call sent is
    blanked), or when the refusal quotes what was sent (`named`: the value, the canary it leads to); a refusal
    the ordinary call got too proves nothing about the payload ("unknown service 'x'")."""
    if effect:
        return Decision("proven", effect)
    got = outcome(record)
    if got.kind == "unanswered":
        return Decision("unanswered", got.said)
    shown = json.dumps([record.result, record.error], ensure_ascii=False)
    if got.refused:
        quotes = any(n and (n in shown or json.dumps(n)[1:-1] in shown) for n in named)
        if quotes or (ordinary is not None and _differs(record, ordinary)):
            return Decision("refused", got.quote())
        return Decision("undecided", f"refused for a reason that is not the payload: {got.quote()}")
    if any(m and m.lower() in shown.lower() for m in markers):  # in any case: an upper-casing tool kept it too
        return Decision("kept", "came back as text")
    return Decision("undecided", "taken without refusal, echo or effect")


def _differs(record: CallRecord, ordinary: CallRecord) -> bool:
    """Was `record` answered otherwise than `ordinary`, the same call without the payload (accepted, or refused in
    other words once what each sent is blanked)?"""
    theirs = outcome(ordinary)
    if theirs.accepted:
        return True
    return blanked(outcome(record).said, record.arguments) != blanked(theirs.said, ordinary.arguments)


def _strings(value: Any, depth: int = 0) -> list[str]:
    if isinstance(value, str):
        return [value] if value else []
    if depth > 6:
        return []
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v, depth + 1)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v, depth + 1)]
    return []


def _short(text: str) -> str:
    one = " ".join(text.split())
    return one if len(one) <= QUOTED else one[: QUOTED - 1] + "…"
