"""The course every active probe rule (checks/review/probes.py) shares: which parameters, which calls, what proves.

A probe sets one string parameter at a time to a payload; the other arguments are the rule's valid ones
(`ctx.arguments`: values the tool names, paths inside the review's canary area for a tool that may write). Each
answer is read four ways, in this order:
- proven: the canary's effect shows (`Proved` says which effect): `fail`, with the call's exchange;
- refused: a JSON-RPC error or `isError: true`;
- kept as text: the reply carries the payload back verbatim, so it was not interpreted (for probes where an echo
  can prove that; an echoed path proves nothing);
- taken: none of these. The tool accepted the payload and showed no effect: neither proven nor ruled out, so the
  tool's finding is a `warn` that says what would settle it, never a `pass`.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass

from mcp_review.calls import CallRecord, consent_reason
from mcp_review.canary import CanaryArea
from mcp_review.catalog import Item
from mcp_review.checks.review.common import named_tools
from mcp_review.review import Finding
from mcp_review.rules.arguments import is_path
from mcp_review.rules.context import CheckContext
from mcp_review.rules.util import input_schema, properties, rejected, words

PROBE_MODES = ("security", "security-all")
OS_ERROR = re.compile(
    r"no such file or directory|not a directory|is a directory|file exists|\b(?:ENOENT|ENOTDIR|EISDIR|EEXIST)\b|"
    r"\[Errno (?:2|17|20|21)\]",
    re.I,
)
REFUSAL = re.compile(r"outside|not allowed|denied|forbidden|escap|not permitted|refus|invalid path|travers", re.I)
STOPS = " '\"`\n\t(<[{,="


@dataclass(frozen=True)
class Payload:
    value: str  # what the parameter is set to
    proof: str  # what only the unsafe behaviour can produce (in the reply, at the listener, on disk)
    effect: str = ""  # what a failing call did, when it differs from the probe's `effect`
    planted: str = ""  # the canary file or directory (or write target) the payload leads to, if any


@dataclass(frozen=True)
class Probe:
    what: str  # the injection, as a finding names it
    effect: str  # what a failing call did, as a finding says it
    names: tuple[str, ...] = ()  # parameter name words that make a parameter a candidate
    formats: tuple[str, ...] = ()  # schema formats that do
    paths: bool = False  # parameters that name files or directories (rules.arguments.is_path) are candidates
    widen: bool = True  # `--probe security-all` sets every string parameter, not only those chosen by name
    echo_is_inert: bool = True  # the payload coming back verbatim shows it was kept as text
    settles: str = ""  # what would settle a payload that was taken without effect (a warn says it)
    needs_refusal: bool = True  # False: taking the payload quietly is the safe outcome


Proved = Callable[[CallRecord, Payload], Awaitable[str | bool | None]]  # the effect shown (True: the probe's)
Payloads = Callable[[], list[Payload]]  # fresh canaries for each parameter


@dataclass(frozen=True)
class Canaries:
    """What a probe's plant gives it: fresh payloads per parameter, and what proves one took effect. `settle`, for
    an effect that may come after the answer (a fetch the server defers): awaited once, after every tool's calls,
    it returns when each call has had its time, and `proved` is asked again for each call that showed nothing. One
    wait for the rule, not one per call (a server that fetches nothing cost 3 s per URL parameter)."""

    payloads: Payloads
    proved: Proved
    settle: Callable[[], Awaitable[None]] | None = None


@dataclass(frozen=True)
class Attempt:
    """One probe call that showed no effect when it was answered."""

    param: str
    payload: Payload
    record: CallRecord


Plant = Callable[[CheckContext], AbstractAsyncContextManager[Canaries]]  # planted only once the probe may run


def is_string(schema: dict[str, object]) -> bool:
    kind = schema.get("type")
    return kind == "string" or (isinstance(kind, list) and "string" in kind)


def fits(probe: Probe, tool: Item, name: str, schema: dict[str, object]) -> bool:
    if schema.get("format") in probe.formats or (probe.paths and is_path(tool, name, schema)):
        return True
    return bool(set(words(name)) & set(probe.names)) or name.lower() in probe.names


def candidates(ctx: CheckContext, probe: Probe) -> list[tuple[Item, list[str]]]:
    """Every tool with the string parameters this probe would set: chosen by name and format, or all of them."""
    every = probe.widen and "security-all" in ctx.options.probe
    out = []
    for tool in named_tools(ctx):
        params = [
            name
            for name, schema in properties(input_schema(tool)).items()
            if is_string(schema)
            and (every or (fits(probe, tool, name, schema) and (probe.paths or not is_path(tool, name, schema))))
        ]
        if params:
            out.append((tool, params))
    return out


def reply_text(record: CallRecord) -> str:
    """Everything a call brought back (result and JSON-RPC error), as one string to look for a canary in."""
    return json.dumps([record.result, record.error], ensure_ascii=False)


def echoed(record: CallRecord, value: str) -> bool:
    """Did the reply carry `value` back verbatim (as JSON text or inside a JSON string)?"""
    text = reply_text(record)
    return value in text or json.dumps(value, ensure_ascii=False)[1:-1] in text


async def in_reply(record: CallRecord, payload: Payload) -> str | bool | None:
    return (payload.effect or True) if payload.proof in reply_text(record) else None


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
        yield ctx.na(None, f"no tool takes a string parameter that could carry {probe.what}")
        return
    if not probing(ctx):
        params = [f"{tool.name}.{p}" for tool, ps in found for p in ps]
        calls = "all" if any(consent_reason(tool) for tool, _ in found) else "read-only"
        yield ctx.blocking(
            None,
            f"{len(params)} parameter(s) could carry {probe.what} ({', '.join(params[:8])}): run with "
            f"--probe security and --calls {calls} to prove or rule it out with a canary",
            [tool.seq for tool, _ in found],
        )
        return
    for tool, _ in found:
        if ctx.may_call(tool) is not None:
            yield ctx.blocking_call(tool, f"a {probe.what} probe")
    allowed = [(tool, params) for tool, params in found if ctx.may_call(tool) is None]
    if not allowed:
        return
    async with plant(ctx) as canaries:
        undecided: list[tuple[Item, Finding, list[Attempt]]] = []
        for tool, params in allowed:
            finding, quiet = await probe_tool(ctx, probe, tool, params, canaries)
            if canaries.settle is None or finding.status == "fail":
                yield finding
            else:  # a pass, a warn, or blocking on a later call: an earlier call's effect may still show
                undecided.append((tool, finding, quiet))
        if undecided:
            assert canaries.settle is not None
            await canaries.settle()
            for tool, finding, quiet in undecided:
                yield await _late(ctx, probe, tool, quiet, canaries.proved) or finding


async def _late(ctx: CheckContext, probe: Probe, tool: Item, quiet: list[Attempt], proved: Proved) -> Finding | None:
    """The fail of the first call whose effect showed after its answer, if one did."""
    for attempt in quiet:
        if effect := await proved(attempt.record, attempt.payload):
            return _proven(ctx, probe, tool, attempt, effect)
    return None


def _proven(ctx: CheckContext, probe: Probe, tool: Item, attempt: Attempt, effect: str | bool) -> Finding:
    said = probe.effect if effect is True else effect
    shown = _shown(attempt.payload.value, 100)
    return ctx.fail(tool, f"{attempt.param!r} = {shown!r} {said}: {probe.what}", [attempt.record.seq])


def confined(ctx: CheckContext, probe: Probe, tool: Item, param: str, value: str) -> str:
    """The value a probe sends: a payload of another class (a command, a template) set to a path parameter of a tool
    that may write goes inside the canary area, after a traversal to it, so a tool that writes where the value
    leads writes there and nowhere else; the injection itself is still in the value."""
    schema = properties(input_schema(tool)).get(param, {})
    if probe.paths or consent_reason(tool) is None or not is_path(tool, param, schema):
        return value
    area = ctx.area()
    return f"{area.traversal(area.root / 'scratch')}/{value}"


def _shown(value: str, limit: int = 60) -> str:
    """A payload as a finding quotes it: a traversal's climb counted (`(../)x24`), then at most `limit` characters,
    so the path it leads to stays readable."""
    value = re.sub(r"(?:\.\./){2,}", lambda climb: f"(../)x{len(climb.group(0)) // 3}", value)
    return value if len(value) <= limit else f"{value[:limit]}…"


async def probe_tool(
    ctx: CheckContext, probe: Probe, tool: Item, params: list[str], canaries: Canaries
) -> tuple[Finding, list[Attempt]]:
    """Set each parameter to each payload in turn (the other arguments valid); the first effect seen fails;
    a payload taken without refusal, echo or effect makes the tool's finding a warn. With it, every call that
    showed no effect (for `Canaries.settle`)."""
    tried: list[str] = []
    quiet: list[Attempt] = []
    taken: list[tuple[str, int | None]] = []
    base = ctx.arguments(tool)
    for param in params:
        for payload in canaries.payloads():
            value = confined(ctx, probe, tool, param, payload.value)
            record = await ctx.try_call(tool, {**base, param: value}, f"{probe.what} through {param!r}")
            if isinstance(record, Finding):
                return record, quiet
            attempt = Attempt(param, payload, record)
            if effect := await canaries.proved(record, payload):
                return _proven(ctx, probe, tool, attempt, effect), quiet
            quiet.append(attempt)
            tried.append(f"{param}={_shown(payload.value, 40)!r}")
            kept = probe.echo_is_inert and echoed(record, payload.value)
            if probe.needs_refusal and not rejected(record) and not kept:
                taken.append((f"{param}={_shown(payload.value, 40)!r}", record.seq))
    if taken:
        listed = ", ".join(t for t, _ in taken[:3]) + (f" and {len(taken) - 3} more" if len(taken) > 3 else "")
        return ctx.warn(
            tool,
            f"took {listed} without refusing it and showed no effect: {probe.what} is neither proven nor "
            f"ruled out; {probe.settles}",
            [s for _, s in taken],
        ), quiet
    shown = ", ".join(tried[:3]) + (f" and {len(tried) - 3} more" if len(tried) > 3 else "")
    how = "; each refused or kept as text" if probe.needs_refusal else ""
    return ctx.passed(tool, f"no canary effect ({probe.what}){how}: {shown}", [a.record.seq for a in quiet]), quiet
