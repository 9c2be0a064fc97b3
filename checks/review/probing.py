"""The course every active probe rule (checks/review/probes.py) shares: which strings, which calls, what proves.

With the reviewer's consent (`--probe security`) every string of a tool the calling policy lets mcp-review call
is a carrier (checks/review/carriers.py: chosen by what it carries, the payload shaped to stay valid for it),
within `calls_per_tool` calls per tool and probe (every carrier gets its first payload before any gets a second;
what the budget left out is said, in the finding and the review's coverage; `--probe security-all` lifts the
budget). The other arguments are the review's valid ones, and in turn each set of values the tool's own text
offers (`ctx.variants`: an enum member, an example, a value its description lists), so a code path behind a
named value is taken too. Each call is decided by `rules.proof.decide`, never by its refusal:
- proven: the canary's effect shows (a token in the reply, a canary touched, a request at the listener): `fail`,
  with the call's exchange;
- kept: the payload's random marker came back as text, without the effect: not interpreted;
- refused: the tool refused the payload itself (it accepts the same call with ordinary arguments, or the refusal
  quotes the value);
- undecided: taken without effect, or refused for a reason that is not the payload ("unknown service 'x'"):
  neither proven nor ruled out, so the tool's finding is `blocking`, saying what would decide it.
A probe whose effect is seen outside the reply (a request at the listener, a file written) is decided by its
absence too: the effect was looked for where it would show.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field

from mcp_review.calls import CallRecord, consent_reason
from mcp_review.canary import CanaryArea
from mcp_review.catalog import Item
from mcp_review.checks.review.carriers import Carrier, carriers, document, in_area, in_url, is_secret, placed, ranked
from mcp_review.checks.review.common import named_tools
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.proof import Decision, decide, outcome
from mcp_review.rules.util import Json, words

PROBE_MODES = ("security", "security-all")
OS_ERROR = re.compile(
    r"no such file or directory|not a directory|is a directory|file exists|\b(?:ENOENT|ENOTDIR|EISDIR|EEXIST)\b|"
    r"\[Errno (?:2|17|20|21)\]",
    re.I,
)
REFUSAL = re.compile(r"outside|not allowed|denied|forbidden|escap|not permitted|refus|invalid path|travers", re.I)
STOPS = " '\"`\n\t(<[{,="
LISTED = 8  # carriers a blocking finding names


@dataclass(frozen=True)
class Payload:
    value: str  # what the carrier is set to (shaped for it by the probe's `shape`)
    proof: str  # what only the unsafe behaviour can produce (in the reply, at the listener, on disk)
    effect: str = ""  # what a failing call did, when it differs from the probe's `effect`
    planted: str = ""  # the canary file or directory (or write target) the payload leads to, if any
    markers: tuple[str, ...] = ()  # random parts of the value: back in a reply without the proof, it was kept as text
    in_band: bool = True  # its effect shows only in the reply (False: on disk, at the listener, looked for there)


@dataclass(frozen=True)
class Probe:
    what: str  # the injection, as a finding names it
    effect: str  # what a failing call did, as a finding says it
    names: tuple[str, ...] = ()  # parameter name words that make a carrier fit (ranked first)
    formats: tuple[str, ...] = ()  # schema formats that do
    paths: bool = False  # file and directory parameters fit (rules.arguments.is_path)
    keys: tuple[str, ...] = ()  # keys of a JSON document a payload is set to
    settles: str = ""  # what would decide a payload that was taken without effect
    secrets_only: bool = False  # only strings that hold a secret by what they are carry it; any answer but the
    # proof is the safe outcome (a secret taken quietly is what should happen)


Proved = Callable[[CallRecord, Payload], Awaitable[str | bool | None]]  # the effect shown (True: the probe's)
Payloads = Callable[[], list[Payload]]  # fresh canaries for each carrier


@dataclass(frozen=True)
class Canaries:
    """What a probe's plant gives it: fresh payloads per carrier, and what proves one took effect. `settle`, for
    an effect that may come after the answer (a fetch the server defers): awaited once, after every tool's calls,
    it returns when each call has had its time, and `proved` is asked again for each call that showed nothing. One
    wait for the rule, not one per call (a server that fetches nothing cost 3 s per URL parameter)."""

    payloads: Payloads
    proved: Proved
    settle: Callable[[], Awaitable[None]] | None = None


@dataclass(frozen=True)
class Shot:
    """One planned probe call: a payload, shaped, set to one carrier, the other arguments those of variant `base`."""

    carrier: Carrier
    payload: Payload
    value: str
    base: int = 0
    arguments: dict[str, object] = field(default_factory=dict)


@dataclass
class Attempt:
    """One probe call that showed no effect when it was answered, and what it was decided as."""

    shot: Shot
    record: CallRecord
    decision: Decision


@dataclass
class Tried:
    """A tool's probe calls: those that showed no effect, and what the budget left out."""

    quiet: list[Attempt] = field(default_factory=list)
    planned: int = 0
    sent: int = 0
    live: set[int] = field(default_factory=set)  # bases (variants of the other arguments) the tool accepted
    dead: set[int] = field(default_factory=set)  # bases it refused without a payload too

    @property
    def pending(self) -> list[Attempt]:
        """The calls whose effect may still come after their answer: accepted, through a string that fits the
        probe or carries a URL (a deferred fetch of a URL handed in as a `name` is not waited for)."""
        return [
            a
            for a in self.quiet
            if (a.shot.carrier.rank == 0 or a.shot.carrier.shape == "url") and outcome(a.record).accepted
        ]


Plant = Callable[[CheckContext], AbstractAsyncContextManager[Canaries]]  # planted only once the probe may run


def fits(probe: Probe, tool: Item, carrier: Carrier) -> bool:
    """Does the carrier's name or schema say it is what this probe aims at (a path, a URL, a command)?"""
    name = str(carrier.path[-1])
    if carrier.schema.get("format") in probe.formats or (probe.paths and carrier.shape == "path"):
        return True
    return bool(set(words(name)) & set(probe.names)) or name.lower() in probe.names


def candidates(ctx: CheckContext, probe: Probe) -> list[tuple[Item, list[Carrier]]]:
    """Every tool with the strings that could carry this probe's payload, ranked (see carriers.py)."""
    out = []
    for tool in named_tools(ctx):
        found = carriers(tool)
        if probe.secrets_only:
            found = [c for c in found if len(c.path) == 1 and is_secret(tool, str(c.path[0]), c.schema)]
        if found:
            out.append((tool, ranked(tool, found, {c.name for c in found if fits(probe, tool, c)})))
    return out


def reply_text(record: CallRecord) -> str:
    """Everything a call brought back (result and JSON-RPC error), as one string to look for a canary in."""
    return json.dumps([record.result, record.error], ensure_ascii=False)


async def in_reply(record: CallRecord, payload: Payload) -> str | bool | None:
    """The probe's effect when its proof is in the reply, in any case (a tool that upper-cases what it returns
    still shows the joined token; the proof is random, so no reply carries it by chance)."""
    return (payload.effect or True) if payload.proof.lower() in reply_text(record).lower() else None


def joined_outside(record: CallRecord, area: CanaryArea) -> str | None:
    """The effect of a tool that built an absolute path into the canary area from a relative traversal and had
    the operating system act on it (its error says so), without refusing it; None when the reply shows less."""
    text = reply_text(record).replace("\\\\", "\\")
    if not OS_ERROR.search(text) or REFUSAL.search(text):
        return None
    for found in re.finditer(re.escape(area.root.name), text):
        start = max(text.rfind(stop, 0, found.start()) for stop in STOPS) + 1
        if area.holds(text[start : found.end()]):
            end = min((i for i in (text.find(stop, found.end()) for stop in STOPS) if i >= 0), default=len(text))
            said = max(OS_ERROR.findall(text), key=len)  # the words ("Not a directory") over the number
            shown = _shown(text[start:end], 120)
            return f"made the server act on {shown!r}, outside its root (the system answered {said!r})"
    return None


def observed(ctx: CheckContext, record: CallRecord, matches: Callable[[dict[str, object]], bool]) -> bool:
    """Did the observed server do what `matches` picks (an event, `mcp_review.behaviour`) while it answered, or
    right after, the call of `record`? Proof by effect from the same record the behaviour rules read."""
    reply = ctx.wire.get(record.seq) if record.seq else None
    asked = reply.link.request if reply is not None and reply.link is not None else None
    if reply is None or asked is None:
        return False
    ctx.wire.catch_up()
    return any(e.event.get("request") == asked and matches(e.event) for e in ctx.wire.events({reply.conn}) if e.event)


def probing(ctx: CheckContext) -> bool:
    """Did the reviewer opt in to active probes (`--probe security` or `security-all`)?"""
    return bool(set(PROBE_MODES) & ctx.options.probe)


def tokens_only(payloads: Payloads) -> Plant:
    """Canaries that need nothing planted: random values, proven by what the reply carries."""

    @contextlib.asynccontextmanager
    async def plant(_: CheckContext) -> AsyncIterator[Canaries]:
        yield Canaries(payloads, in_reply)

    return plant


async def run_probe(ctx: CheckContext, probe: Probe, plant: Plant) -> AsyncIterator[Finding]:
    """The shared course of every probe rule: n/a, one blocking without consent, else per tool a proof or not.
    The canaries are planted (a file, a listener) only when some tool is probed, and removed after."""
    found = candidates(ctx, probe)
    if not found:
        takes = "a secret (a password, an API key, an access token)" if probe.secrets_only else "a string"
        yield ctx.na(None, f"no tool takes {takes}: nothing could carry {probe.what}")
        return
    if not probing(ctx):
        yield _unconsented(ctx, probe, found)
        return
    for tool, _ in found:
        if ctx.may_call(tool) is not None:
            yield ctx.blocking_call(tool, f"a {probe.what} probe")
    allowed = [(tool, params) for tool, params in found if ctx.may_call(tool) is None]
    if not allowed:
        return
    async with plant(ctx) as canaries:
        undecided: list[tuple[Item, Finding, Tried]] = []
        for tool, params in allowed:
            finding, tried = await probe_tool(ctx, probe, tool, params, canaries)
            if canaries.settle is None or finding.status == "fail" or not tried.pending:
                yield finding
            else:  # a pass, or blocking on a later call: an earlier call's effect may still show
                undecided.append((tool, finding, tried))
        if undecided:
            assert canaries.settle is not None
            await canaries.settle()
            for tool, finding, tried in undecided:
                yield await _late(ctx, probe, tool, tried, canaries.proved) or finding


def _unconsented(ctx: CheckContext, probe: Probe, found: list[tuple[Item, list[Carrier]]]) -> Finding:
    """One blocking finding for the server: which strings could carry the payload, and what would prove it."""
    listed = sorted(((c.rank, f"{tool.name}.{c.name}") for tool, cs in found for c in cs), key=lambda r: r[0])
    names = [name for _, name in listed]
    more = f" and {len(names) - LISTED} more" if len(names) > LISTED else ""
    calls = "all" if any(consent_reason(tool) for tool, _ in found) else "read-only"
    return ctx.blocking(
        None,
        f"{len(names)} string(s) of {len(found)} tool(s) could carry {probe.what} ({', '.join(names[:LISTED])}{more}): "
        f"run with --probe security and --calls {calls} to prove or rule it out with a canary",
        [tool.seq for tool, _ in found],
    )


async def _late(ctx: CheckContext, probe: Probe, tool: Item, tried: Tried, proved: Proved) -> Finding | None:
    """The fail of the first call whose effect showed after its answer, if one did."""
    for attempt in tried.pending:
        if effect := await proved(attempt.record, attempt.shot.payload):
            return _proven(ctx, probe, tool, attempt.shot, attempt.record, effect)
    return None


def _proven(ctx: CheckContext, probe: Probe, tool: Item, shot: Shot, record: CallRecord, effect: str | bool) -> Finding:
    said = probe.effect if effect is True else effect
    return ctx.fail(tool, f"{shot.carrier.name!r} = {_shown(shot.value, 100)!r} {said}: {probe.what}", [record.seq])


def shape(ctx: CheckContext, probe: Probe, carrier: Carrier, payload: Payload) -> list[str]:
    """The values that set `payload` to `carrier`, valid for what it carries (carriers.py): after each prefix its
    text shows, then as it is; none the carrier's schema refuses."""
    from mcp_review.localschema import validate

    value = payload.value
    if carrier.shape == "json":
        value = document(carrier, value, probe.keys)
    elif carrier.shape == "url" and not probe.paths and not value.startswith("http"):
        value = in_url(value)
    elif carrier.shape == "url" and probe.paths and payload.planted:
        value = f"file://{payload.planted}"
    elif carrier.shape == "path" and not probe.paths:
        value = in_area(ctx.area(), value)
    shaped = [p + value for p in carrier.prefixes] + [value]
    return [v for v in shaped if validate(v, carrier.schema).ok]


def plan(
    ctx: CheckContext, probe: Probe, tool: Item, carriers_: list[Carrier], canaries: Canaries, bases: list[Json]
) -> tuple[list[Shot], int]:
    """The calls in the order they are made and how many were planned in all. Per carrier: its first payload with
    each variant of the other arguments (`bases`: every value the tool's text offers is sent once), then its other
    payloads, the variants in turn; across carriers, every carrier's first call before any carrier's second. At most
    `calls_per_tool` are made unless `--probe security-all`; the same arguments are never sent twice."""
    queues: list[list[Shot]] = []
    for carrier in carriers_:
        values = [(p, v) for p in canaries.payloads() for v in shape(ctx, probe, carrier, p)]
        order = [(values[0], b) for b in range(len(bases))] if values else []
        order += [(pv, j % len(bases)) for j, pv in enumerate(values[1:], 1)]
        queues.append([Shot(carrier, p, v, b, placed(bases[b], carrier, v, tool)) for (p, v), b in order])
    seen: set[str] = set()
    shots = []
    for i in range(max((len(q) for q in queues), default=0)):
        for queue in queues:
            if i < len(queue) and (key := json.dumps(queue[i].arguments, sort_keys=True, default=str)) not in seen:
                seen.add(key)
                shots.append(queue[i])
    every = "security-all" in ctx.options.probe
    return (shots if every else shots[: max(ctx.options.calls_per_tool, 1)]), len(shots)


async def probe_tool(
    ctx: CheckContext, probe: Probe, tool: Item, found: list[Carrier], canaries: Canaries
) -> tuple[Finding, Tried]:
    """Send each planned payload (the other arguments valid, in turn each set of values its text offers); the first
    effect seen fails; a call neither proven nor decided safe makes the tool's finding blocking."""
    bases = ctx.variants(tool)
    shots, planned = plan(ctx, probe, tool, found, canaries, bases)
    tried = Tried(planned=planned)
    if not shots:
        said = f"its strings take no {probe.what} payload their schema accepts (a pattern, a length)"
        return ctx.na(tool, said), tried
    control: dict[int, CallRecord | None] = {}  # base -> the same call without a payload (asked on a refusal)
    sent: set[str] = set()
    for planned_shot in shots:
        shot = _rebased(planned_shot, tried, bases, tool)
        if (key := json.dumps(shot.arguments, sort_keys=True, default=str)) in sent:
            continue
        sent.add(key)
        which = shot.base
        record = await ctx.try_call(tool, shot.arguments, f"{probe.what} through {shot.carrier.name!r}")
        if isinstance(record, Finding):
            return record, tried
        tried.sent += 1
        if effect := await canaries.proved(record, shot.payload):
            return _proven(ctx, probe, tool, shot, record, effect), tried
        if outcome(record).accepted:
            tried.live.add(which)
        if probe.secrets_only:
            decision = Decision("kept", "taken without echo")
        else:
            if outcome(record).refused and which not in control:
                control[which] = ordinary = await _ordinary(ctx, tool, bases[which])
                if ordinary is None or not outcome(ordinary).accepted:
                    tried.dead.add(which)  # refused whatever the payload: later payloads go with a live base
                else:
                    tried.live.add(which)
            decision = decide(
                record,
                None,
                markers=shot.payload.markers if shot.carrier.shape != "path" or not probe.paths else (),
                named=(shot.value, shot.payload.planted, shot.payload.proof, *shot.payload.markers),
                ordinary=control.get(which),
            )
            if decision.kind == "undecided" and not shot.payload.in_band and not outcome(record).refused:
                decision = Decision("kept", "no effect where it would show")
        tried.quiet.append(Attempt(shot, record, decision))
    return _judged(ctx, probe, tool, tried), tried


def _rebased(shot: Shot, tried: Tried, bases: list[Json], tool: Item) -> Shot:
    """`shot` with the other arguments of a base the tool accepted, when its own base was refused whatever the
    payload ("Unknown format 'x'"): the payload then reaches the code a refused call never does."""
    if shot.base not in tried.dead or not tried.live:
        return shot
    live = min(tried.live)
    return Shot(shot.carrier, shot.payload, shot.value, live, placed(bases[live], shot.carrier, shot.value, tool))


async def _ordinary(ctx: CheckContext, tool: Item, base: dict[str, object]) -> CallRecord | None:
    """The call of `base` without a payload (the review's sample call of it, shared), when it was answered."""
    record = await ctx.call(tool, base, purpose="sample result", share="answer")
    return record if record is not None and not record.failure else None


def _judged(ctx: CheckContext, probe: Probe, tool: Item, tried: Tried) -> Finding:
    """The tool's finding once no call proved anything: pass when every call was decided safe, else blocking."""
    left = tried.planned - tried.sent
    budget = (
        f"; {left} more payload(s) left out by the budget of {ctx.options.calls_per_tool} calls per tool "
        "(--calls-per-tool, or --probe security-all)"
        if left > 0
        else ""
    )
    if left > 0:
        ctx.left_out.setdefault(ctx.rule.id if ctx.rule else "", {})[tool.name or ""] = left
    open_ = [a for a in tried.quiet if not a.decision.safe and a not in _moot(tried)]
    seqs = [a.record.seq for a in tried.quiet]
    if open_:
        listed = "; ".join(f"{a.shot.carrier.name}={_shown(a.shot.value, 40)!r}: {a.decision.said}" for a in open_[:3])
        more = f" and {len(open_) - 3} more" if len(open_) > 3 else ""
        return ctx.blocking(
            tool,
            f"{probe.what} is neither proven nor ruled out: {listed}{more}; {probe.settles}{budget}",
            [a.record.seq for a in open_],
        )
    shown = ", ".join(f"{a.shot.carrier.name}={_shown(a.shot.value, 40)!r}" for a in tried.quiet[:3])
    more = f" and {len(tried.quiet) - 3} more" if len(tried.quiet) > 3 else ""
    how = "" if probe.secrets_only else "; each refused, kept as text or without effect where it would show"
    return ctx.passed(tool, f"no canary effect ({probe.what}){how}: {shown}{more}{budget}", seqs)


def _moot(tried: Tried) -> list[Attempt]:
    """The calls refused for a reason that is not the payload (the same call without it is refused alike) whose
    carrier another call reached (its payload accepted, or refused as the payload's own): their other arguments
    were refused ("Unknown format 'x'"), and the values the tool's text offers reached the code they would."""
    reached = {a.shot.carrier.path for a in tried.quiet if a.decision.safe or outcome(a.record).accepted}
    return [
        a
        for a in tried.quiet
        if a.decision.kind == "undecided"
        and a.shot.base in tried.dead
        and outcome(a.record).refused
        and a.shot.carrier.path in reached
    ]


def _shown(value: str, limit: int = 60) -> str:
    """A payload as a finding quotes it: a traversal's climb counted (`(../)x24`), then at most `limit` characters,
    so the path it leads to stays readable."""
    value = re.sub(r"(?:\.\./){2,}", lambda climb: f"(../)x{len(climb.group(0)) // 3}", value)
    return value if len(value) <= limit else f"{value[:limit]}…"
