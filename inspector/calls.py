"""The one door to a tool: `CallGate` decides whether a tool may be called under the reviewer's policy, with which
consent, within which cap, sends the `tools/call` and records it. Every caller goes through it: the checklist's rules
(`rules.context.CheckContext`, tasks included), `mcp-review call`, the app's calls and its app preview
(`tests/unit/test_call_gate.py` fails on any other place that sends `tools/call`).

The policy: a tool may only be called without explicit consent when its annotations say it is read-only and
closed-world (`openWorldHint: false`: MCP's default for an absent hint is open-world) and not destructive.
Annotations are the server's claims, not proof, but a tool that does not even claim to be harmless is never called
behind the reviewer's back. A name the server defined more than once is judged by its most dangerous definition.
Consent is given for a whole run (`--calls all`, the app's run dialog) or for one call (`call --yes`, the app's
consent dialog), and every record says which consent it was made on.

The choices of a run's policy are described once, in `POLICIES`: `check --help` and its notice, the app's run
dialog and every finding that names what would allow a call read them.
"""

from __future__ import annotations

import base64
import binascii
import json
import shlex
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from mcp_review.connection.channel import Reply
from mcp_review.connection.errors import ConnectionFailed
from mcp_review.connection.session import Session
from mcp_review.limits import LIMITS
from mcp_review.targets import Target
from mcp_review.tasks import StatusCallback, TaskDriver, TaskRun, flavour_for
from mcp_review.untrusted import original_length

if TYPE_CHECKING:
    from mcp_review.catalog import Item
    from mcp_review.connection.wire import WireEntry, WireLog
    from mcp_review.tokens import Figure, TokenCounter

Json = dict[str, Any]
Policy = Literal["none", "read-only", "all"]  # which tools a run's rules may call
POLICIES: dict[Policy, str] = {  # what each lets the checks call, as every face says it
    "none": "no tool, so the rules that need a call stay blocking",
    "read-only": "tools annotated read-only and closed-world",
    "all": "every tool, side effects included: the reviewer's consent",
}
# The calls a run of the default packs makes per tool it may call (the review's valid arguments, schema-invalid ones
# and a lookup of something missing; each shared by the rules that read it): 3, counted on tests/servers/many.py.
# Probes add theirs. The app's run dialog multiplies it by the tools a policy lets the checks call.
CALLS_PER_TOOL = 3
Consent = Literal["read-only", "reviewer"]  # what one call was made on: no consent needed, or the reviewer's
# What a call is for, where a recorded call answers it as well as a new one would: "answer" (the review's valid
# arguments, to read what the tool returns) and "refusal" (schema-invalid arguments, to read how they are refused).
# None: a call of its own each time (a rule that compares two answers, a probe whose canary must show now).
Share = Literal["answer", "refusal"]

# Spec defaults (2025-03-26 on) for a tool that does not say.
HINT_DEFAULTS = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}


def tool_annotations(tool: Any) -> dict[str, Any]:
    ann = tool.get("annotations") if isinstance(tool, dict) else None
    return ann if isinstance(ann, dict) else {}


def effective_hints(tool: Any) -> dict[str, tuple[bool, bool]]:
    """Each hint's value after defaults, and whether the server set it explicitly."""
    ann = tool_annotations(tool)
    return {
        hint: (ann[hint], True) if isinstance(ann.get(hint), bool) else (default, False)
        for hint, default in HINT_DEFAULTS.items()
    }


def is_destructive(tool: Any) -> bool:
    """Destructive by its annotations read with the spec's defaults: not read-only, and not destructiveHint: false."""
    hints = effective_hints(tool)
    return not hints["readOnlyHint"][0] and hints["destructiveHint"][0]


def side_effect_reasons(tool: Any) -> list[str]:
    """Why calling this tool needs consent (every reason that applies); none when it claims to be read-only and
    closed-world."""
    ann = tool_annotations(tool)
    world = ann.get("openWorldHint")
    return [
        *(["it is not annotated readOnlyHint: true"] if ann.get("readOnlyHint") is not True else []),
        *(["it is annotated destructiveHint: true"] if ann.get("destructiveHint") is True else []),
        *(["it is annotated openWorldHint: true"] if world is True else []),
        # MCP's default for an absent openWorldHint is true: such a tool may reach hosts nobody named
        *(["it does not say openWorldHint: false (open-world is MCP's default)"] if world is None else []),
    ]


def consent_reason(tool: Item) -> str | None:
    """Why calling `tool` needs consent, read from every definition the server gave for its name in the review
    (`tool.definitions`: all pages, every re-listing): a second definition that asks for more is named, and
    consent follows the most dangerous. None when every definition claims read-only and closed-world."""
    reasons = side_effect_reasons(tool.raw)
    others: list[int] = []
    seen = tool.definitions.of(tool.name) if tool.definitions is not None and tool.name is not None else []
    for hints, seq in seen:
        more = [r for r in side_effect_reasons({"annotations": hints}) if r not in reasons]
        if more:
            reasons += more
            others.append(seq)
    if not reasons:
        return None
    if not others:
        return "; ".join(reasons)
    wires = ", ".join(f"#{seq}" for seq in others)
    return (
        f"{'; '.join(reasons)} (the server gave this name a second definition that asks for more, wire {wires}: "
        "consent follows the most dangerous definition of a name)"
    )


@dataclass
class CallRecord:
    """One tool call, as review coverage: what was sent, on whose authority, what came back."""

    tool: str
    arguments: Any
    consent: Consent
    purpose: str = "reviewer"  # who asked: the reviewer, or a rule id
    result: Any = None  # the raw result object
    error: dict[str, Any] | None = None  # a JSON-RPC error, as sent
    failure: str | None = None  # the connection failed or timed out
    latency_ms: float = 0.0
    seq: int | None = None  # wire entry of the reply
    at: float = field(default_factory=time.time)
    span: tuple[int, int] = (0, 0)  # the wire entries recorded while it ran: `wire.entries[span[0]:span[1]]`
    reused_by: list[str] = field(default_factory=list)  # the other purposes it answered (`Share`), not called again
    sent_invalid: list[str] = field(default_factory=list)  # the reviewer sent arguments the inputSchema refuses: why

    @property
    def is_error(self) -> bool:
        return bool(isinstance(self.result, dict) and self.result.get("isError") is True)

    @property
    def outcome(self) -> str:
        if self.failure:
            return f"failed: {self.failure}"
        if self.error is not None:
            return f"JSON-RPC error {self.error.get('code')}"
        return "isError: true" if self.is_error else "ok"

    def to_json(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "arguments": self.arguments,
            "consent": self.consent,
            "purpose": self.purpose,
            "outcome": self.outcome,
            "latencyMs": round(self.latency_ms, 1),
            "seq": self.seq,
            **({"reusedBy": self.reused_by} if self.reused_by else {}),
            **({"sentInvalid": self.sent_invalid} if self.sent_invalid else {}),  # on purpose: "Send anyway"
        }


def reply_tokens(record: CallRecord, wire: WireLog | None, counter: TokenCounter) -> Figure | None:
    """The tokens of a call's reply as the Wire shows them on its row (`TokenCounter.count_sent` of the message
    and its bytes): extrapolated where mcp-review cut it. A reply not in the wire log is counted from its result
    as kept; a call that got none has no figure."""
    entry = wire.get(record.seq) if wire is not None and record.seq is not None else None
    if entry is not None and entry.message is not None:
        return counter.count_sent(entry.message, entry.size)
    kept = record.result if record.error is None else {"error": record.error}
    return None if kept is None else counter.count_sent(kept, 0)


def callable_tools(tools: Sequence[Item], policy: Policy, allow: Collection[str] | None = None) -> int:
    """How many of `tools` a run's gate lets the checks call under `policy` (and the allow-list)."""
    if policy == "none":
        return 0
    allowed = [t for t in tools if allow is None or t.name in allow]
    return len(allowed) if policy == "all" else sum(consent_reason(t) is None for t in allowed)


def estimate(tools: int, per_tool: float) -> str:
    """A run's calls before it starts: tools it may call times calls per tool, and the cap when it would bite."""
    if not tools:
        return "no tool may be called: the rules that need a call stay blocking"
    calls, cap = round(tools * per_tool), LIMITS.calls  # the run's gate's cap (`for_run`)
    said = f"about {calls:,} calls ({tools:,} tools, {per_tool:.3g} each)"
    if calls > cap:
        said += f"; the run stops at {cap:,} (MCP_REVIEW_LIMITS calls): the rest stay blocking"
    return said


def per_tool(coverage: Sequence[dict[str, Any]]) -> float:
    """Calls per tool a run made, from a review's coverage (the reviewer's own left out); CALLS_PER_TOOL without."""
    made = [c for c in coverage if c.get("purpose") != "reviewer" and c.get("seq") is not None]
    tools = {c.get("tool") for c in made}
    return len(made) / len(tools) if tools else CALLS_PER_TOOL


def outcome_said(call: dict[str, Any]) -> str:
    """A call's outcome as coverage says it: with arguments sent invalid on purpose said first ("Send anyway")."""
    return ("arguments invalid, sent on purpose: " if call.get("sentInvalid") else "") + str(call["outcome"])


def refused_call(tool: str, arguments: Any) -> dict[str, Any]:
    """Coverage of a call the reviewer was asked to consent to and refused: wanted, not made."""
    return {
        "tool": tool,
        "arguments": arguments,
        "consent": "refused",
        "purpose": "reviewer",
        "outcome": "not called",
        "latencyMs": 0,
        "seq": None,
    }


def call_command(call: dict[str, Any], target: Target) -> str:
    """A call kept in coverage as an `mcp-review call` command line, with no secret in it."""
    parts = ["mcp-review", "call", call["tool"], "--args", json.dumps(call["arguments"], ensure_ascii=False)]
    if call.get("consent") == "reviewer":
        parts.append("--yes")
    return " ".join(shlex.quote(p) for p in parts + target.cli_args())


class CallGate:
    """The one door to `tools/call` (the module's docstring says the policy). A run's gate (`for_run`) has its
    policy, its allow-list (`calls.allow`) and the call cap (MCP_REVIEW_LIMITS calls), and shares a call a second
    rule needs (`Share`); the reviewer's (`for_reviewer`: `call`, the app, its preview) calls a read-only tool, or
    one the reviewer consented to, each time it is asked, without a cap: a person asks for each of those calls."""

    def __init__(
        self,
        session: Session,
        policy: Policy = "read-only",
        *,
        allow: Collection[str] | None = None,
        cap: int | None = None,
        listed: Callable[[str], bool] = lambda _name: False,
    ) -> None:
        self.session = session
        self.policy = policy
        self.allow = None if allow is None else frozenset(allow)
        self.cap = cap
        self.listed = listed  # whether the server listed a tool of this name (`unlisted` refuses those)
        self.calls: list[CallRecord] = []  # every call made through this gate, in order: the review's coverage
        self._shared: dict[tuple[str, str, Share], CallRecord] = {}

    @classmethod
    def for_run(
        cls, session: Session, policy: Policy, allow: Collection[str] | None, listed: Callable[[str], bool]
    ) -> CallGate:
        """A checklist run's gate: the reviewer's policy and allow-list, capped at MCP_REVIEW_LIMITS calls (10,000
        tools called by six rules each took most of a minute)."""
        return cls(session, policy, allow=allow, cap=LIMITS.calls, listed=listed)

    @classmethod
    def for_reviewer(cls, session: Session) -> CallGate:
        """The reviewer's own calls: a read-only tool, or any the reviewer consents to for that one call."""
        return cls(session, "read-only")

    # ------------------------------------------------------------------------------------------- the policy
    def refusal(self, tool: Item, consented: bool = False) -> str | None:
        """None when `tool` may be called (`consented`: the reviewer consented to this one call); else what would
        allow it, as a run's findings say it."""
        name = tool.name or ""
        if self.allow is not None and name not in self.allow:
            return f"add {name!r} to the tools allowed for calls in mcp-review.toml (calls.allow)"
        if self.policy == "none":
            return "run with --calls read-only (or --calls all) to let mcp-review call tools"
        reason = consent_reason(tool)
        if reason and self.policy != "all" and not consented:
            return f"{reason}: only --calls all (the reviewer's consent) lets mcp-review call it"
        return None

    @staticmethod
    def consent(tool: Item) -> Consent:
        """The consent a call of `tool` is recorded with: none was needed, or the reviewer's."""
        return "reviewer" if consent_reason(tool) else "read-only"

    def _capped(self, record: CallRecord) -> bool:
        if self.cap is None or len(self.calls) < self.cap:
            return False
        record.failure = f"none was asked: the run made {self.cap:,} calls already (MCP_REVIEW_LIMITS calls)"
        return True

    # ------------------------------------------------------------------------------------------ the calls
    async def call(
        self,
        tool: Item,
        arguments: Any,
        *,
        purpose: str,
        consented: bool = False,
        share: Share | None = None,
        timeout: float | None = None,
        on_progress: Callable[[Json], None] | None = None,
        sent_invalid: Sequence[str] = (),
    ) -> CallRecord | None:
        """Call `tool` and record it; None when the policy does not allow it (`refusal` says what would). With
        `share`, a call of that class with the same arguments made before answers instead, its record saying so.
        `sent_invalid`: why the arguments do not match the tool's inputSchema, when the reviewer sends them anyway
        (the same consent as any call; the record says they were sent invalid on purpose)."""
        if self.refusal(tool, consented) is not None:
            return None
        name = tool.name or ""
        key = (name, json.dumps(arguments, sort_keys=True, default=repr), share) if share else None
        if key is not None and (made := self._shared.get(key)) is not None:
            if purpose != made.purpose and purpose not in made.reused_by:
                made.reused_by.append(purpose)
            return made
        record = CallRecord(name, arguments, self.consent(tool), purpose, sent_invalid=list(sent_invalid))
        if self._capped(record):
            return record
        began, first = time.monotonic(), len(self.session.wire.entries)
        try:
            reply = await self.session.complete(
                "tools/call", {"name": name, "arguments": arguments}, timeout=timeout, on_progress=on_progress
            )
        except ConnectionFailed as e:
            record.failure = str(e)
        else:
            record.seq = reply.seq
            if reply.error is not None:
                record.error = reply.error if isinstance(reply.error, dict) else {"message": repr(reply.error)}
            else:
                record.result = reply.result
        record.latency_ms = (time.monotonic() - began) * 1000
        record.span = (first, len(self.session.wire.entries))
        self.calls.append(record)
        if key is not None:
            self._shared[key] = record
        return record

    async def run_task(
        self,
        tool: Item,
        arguments: Any,
        *,
        purpose: str,
        deadline: float,
        consented: bool = False,
        on_status: StatusCallback | None = None,
        started: Callable[[TaskDriver], None] | None = None,
        recheck: bool = False,
        sent_invalid: Sequence[str] = (),
    ) -> tuple[CallRecord, TaskRun] | None:
        """Run `tool` as a task on the revision the server speaks and record it as a call; None when the policy does
        not allow it. `started` gets the driver (to cancel it); `recheck` asks tasks/get once more at
        the end (`TaskDriver.recheck`). A task run is never shared: the request differs from a plain call's."""
        if self.refusal(tool, consented) is not None:
            return None
        name = tool.name or ""
        record = CallRecord(name, arguments, self.consent(tool), purpose, sent_invalid=list(sent_invalid))
        kind = flavour_for(self.session)
        driver = TaskDriver(self.session, self._request, name, arguments, kind, deadline=deadline, on_status=on_status)
        run = driver.state
        if self._capped(record):
            run.failure, run.ended = record.failure, f"gave up: {record.failure}"
            return record, run
        if started is not None:
            started(driver)
        first = len(self.session.wire.entries)
        await driver.run()
        if recheck:
            await driver.recheck()
        record.result, record.error, record.seq = run.result, run.error, run.result_seq
        record.failure = run.failure or (run.ended if run.ended.startswith(("gave up", "cancelled by")) else None)
        record.latency_ms = (time.monotonic() - run.started) * 1000
        record.span = (first, len(self.session.wire.entries))
        self.calls.append(record)
        return record, run

    async def unlisted(self, params: Json) -> Reply:
        """A `tools/call` naming no tool the server listed (a made-up name, or no name, to see how it is refused): it
        can run nothing, so it needs no consent and is no tool's call (the wire log keeps it, coverage does not)."""
        name = params.get("name")
        if isinstance(name, str) and self.listed(name):
            raise ValueError(f"{name!r} is a tool the server listed: call it through `CallGate.call`")
        return await self._request(params, self.session.timeout)

    async def _request(self, params: Json, timeout: float) -> Reply:
        return await self.session.request("tools/call", params, timeout=timeout)

    def during(self, record: CallRecord) -> list[WireEntry]:
        """What the wire log recorded while `record`'s call ran: its request and reply, and what the server asked
        meanwhile (an elicitation, a sampling request)."""
        return self.session.wire.entries[record.span[0] : record.span[1]]


def _b64_size(data: Any) -> str:
    if not isinstance(data, str):
        return "no data"
    length = original_length(data)
    if length != len(data):  # cut at the wire boundary: its size is all that is left of it
        return f"about {length * 3 // 4:,} bytes (base64 of {length:,} characters; not kept whole)"
    try:
        return f"{len(base64.b64decode(data, validate=True))} bytes"
    except (binascii.Error, ValueError):
        return f"invalid base64, {len(data)} characters"


def describe_block(block: Any) -> tuple[str, str | None]:
    """(heading, text) for one content block; binary content is described by type and size only."""
    if not isinstance(block, dict):
        return ("invalid block", json.dumps(block)[:200])
    kind = block.get("type")
    if kind == "text":
        text = block.get("text")
        return ("text", text if isinstance(text, str) else repr(text))
    if kind in ("image", "audio"):
        return (f"{kind} {block.get('mimeType', '?')}, {_b64_size(block.get('data'))}", None)
    if kind == "resource_link":
        return (f"resource link {block.get('uri')} ({block.get('name', '')})", block.get("description"))
    if kind == "resource":
        res = block.get("resource")
        res = res if isinstance(res, dict) else {}
        if "blob" in res:
            return (
                f"embedded resource {res.get('uri')} {res.get('mimeType', '')}, {_b64_size(res['blob'])}",
                None,
            )
        return (f"embedded resource {res.get('uri')} {res.get('mimeType', '')}", str(res.get("text", "")))
    return (f"{kind} block", json.dumps(block, ensure_ascii=False)[:2000])
