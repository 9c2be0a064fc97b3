"""Run the checklist against a live server and produce a `Review`.

Order: static and call rules on the main session, probe rules on fresh connections, observe rules
last (they read the wire log of everything that happened). A rule that raises yields a `blocking`
finding naming the error, beside what it found before (a fail it proved settles that blocking); a server
that dies mid-run yields a review with what was verified and the rest blocking. Nothing a server does can
crash the run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from mcp_review import baseline, behaviour, known, lock
from mcp_review.catalog import ServerSnapshot, take_snapshot
from mcp_review.connection.channel import Budget
from mcp_review.connection.egress import EgressRefused
from mcp_review.connection.errors import ConnectionFailed, HttpError, RequestTimeout
from mcp_review.connection.pace import Slow, slow_note
from mcp_review.connection.session import Session, headless_handlers
from mcp_review.connection.wire import WireEntry, WireLog
from mcp_review.costs import Costs, review_tokens
from mcp_review.diff import Diff, TokenBudget, diff
from mcp_review.review import Attestation, Finding, Review, Waiver, settle
from mcp_review.rules.context import CheckContext, Options, Outage
from mcp_review.rules.core import Rule, select
from mcp_review.targets import Target
from mcp_review.tokens import TokenCounter
from mcp_review.untrusted import CUT
from mcp_review.verdicts import DEFAULT_FAIL_ON

PING_SECONDS = 10.0  # at most this long for the `ping` that asks whether an HTTP session outlived a rule
ORDER = {"static": 0, "baseline": 0, "manual": 0, "call": 1, "probe": 2, "observe": 3}
# (rules done, rules in all, the rule starting now or None at the end, every finding so far, what makes every
# request slow or None: `slowness`)
Progress = Callable[[int, int, Rule | None, Sequence[Finding], Slow | None], None]


@dataclass
class CheckPlan:
    packs: Sequence[str]
    ignore: Sequence[str] = ()
    options: Options | None = None
    waivers: Sequence[Waiver] = ()
    attestations: Sequence[Attestation] = ()
    era: str = "auto"
    baseline: str | None = None  # path of the pinned tool hashes (written on the first run)
    budget: float | None = None  # seconds the run may wait on the server, before 1 s per request (None: 4 x timeout)
    lock: str | None = None  # mcp-review.lock: the review carries the diff against it (rug-pull reads it too)
    diff_budget: TokenBudget | None = None  # the cost budgets of that diff
    decisions: dict[str, Any] | None = None  # where the review config came from (mcp_review.decisions)
    notices: Sequence[str] = ()  # what a repository file asked for and was refused, one line each
    fail_on: Sequence[str] = DEFAULT_FAIL_ON  # the gate: which findings hold a merge (mcp_review.verdicts)


def _stage(rule: Rule) -> int:
    return max(ORDER[m] for m in rule.modes)


async def run_rules(
    ctx: CheckContext, rules: Sequence[Rule], plan: CheckPlan, progress: Progress | None
) -> list[Finding]:
    findings: list[Finding] = []
    ctx.earlier = findings  # every rule's view reads what the rules before it found (`CheckContext.earlier`)
    ordered = sorted(rules, key=_stage)
    for i, rule in enumerate(ordered):
        if progress:
            progress(i, len(ordered), rule, findings, slowness(ctx.session))
        one = ctx.for_rule(rule)  # its own `rule` (findings carry its id); calls and samples stay shared
        if rule.transport == "http" and not one.is_http:
            findings.append(one.na(None, f"applies to HTTP servers; this one is {one.target.kind}"))
            continue
        if rule.transport == "stdio" and one.is_http:
            findings.append(one.na(None, f"applies to stdio servers; this one is {one.target.kind}"))
            continue
        if one.unreachable and rule.needs_server:
            findings.append(one.blocking(None, f"could not run: {one.unreachable}"))
            continue
        budget = one.session.budget
        if budget is not None and budget.spent:
            findings.append(one.blocking(None, f"not run: {budget.exhausted()}"))
            continue
        gone = one.session.failure
        lost = gone is not None and rule.needs_server
        if lost and any(m in ("call", "observe") for m in rule.modes) and "probe" not in rule.modes:
            findings.append(one.blocking(None, f"could not run: the server connection was lost ({gone})"))
            continue
        produced: list[Finding] = []  # what the rule decided before it stopped is kept (see `settle`)
        began, called = len(ctx.wire.entries), len(ctx.gate.calls)
        try:
            async for finding in rule.run(one):
                produced.append(finding)
        except ConnectionFailed as e:
            produced.append(one.blocking(None, f"could not finish: {e}"))
        except Exception as e:  # a rule bug must not end the review: say so, block the rule
            produced.append(one.blocking(None, f"rule error: {type(e).__name__}: {e}"))
        findings += produced or [one.na(None, "nothing to check on this server")]
        if not ctx.unreachable:
            await outlived(ctx, rule, began, called)
    if progress:
        progress(len(ordered), len(ordered), None, findings, slowness(ctx.session))
    return findings


async def outlived(ctx: CheckContext, rule: Rule, began: int, called: int) -> None:
    """After a rule: did the server die or drop the session while it ran? The review's connection failed (a stdio
    server exited, an event stream ended), or, over HTTP after a rule that opened probe connections of its own (a
    second SSE stream, a bogus session) or one of whose calls got no answer (`called`: the gate's calls before
    it; an HTTP server that died leaves no connection to fail, only requests), a `ping` on it is refused. Recorded
    for review.survives-probes with the rule's first call that got no answer, else the last request it sent (wire
    entries from `began`), then a fresh connection (stdio: a fresh process;
    HTTP: a fresh session) so the rules after it run; the app's own session is left to the app (`ctx.reconnect`)."""
    session = ctx.session
    failure: Exception | None = session.failure
    what, pinged = "closed the connection", len(ctx.wire.entries)
    unanswered = any(record.failure for record in ctx.gate.calls[called:])
    if failure is None and ctx.is_http and ("probe" in rule.modes or unanswered) and session.channel is not None:
        try:
            await session.request("ping", timeout=min(ctx.probe_timeout, PING_SECONDS))
        except RequestTimeout:
            return  # slow is not gone: the rules after it will say so
        except HttpError as e:
            failure, what = e, "dropped the session"
        except Exception as e:  # whatever the connection raises, the server is not answering on it
            failure, what = e, "stopped answering"
    if failure is None:
        return
    sent = [(e, _asked(e)) for e in ctx.wire.entries[began:pinged]]
    sent = [(e, asked) for e, asked in sent if asked]
    if lost := _first_lost(ctx, called):  # the call that took it down: the first one with no answer
        sent = [lost]
    last = f", after {sent[-1][1]} (wire #{sent[-1][0].seq})" if sent else ""
    conn = session.channel.conn if session.channel is not None else 0
    again = "reconnecting" if ctx.reconnect else "the app reconnects its own session"
    note = ctx.wire.line("note", conn, f"mcp-review: the connection was lost while {rule.id} ran ({failure}); {again}")
    cited = [*([sent[-1][0].seq] if sent else []), *(e.seq for e in ctx.wire.entries[pinged : note.seq - 1]), note.seq]
    outage = Outage(rule.id, what, str(failure), last, cited, reconnected=False)
    if not ctx.reconnect:
        outage.why = "this is the app's session: reconnect it there"
    else:
        try:
            await session.open()
            outage.reconnected = True
        except Exception as e:  # a server that cannot be reached again: the rules after it cannot run
            outage.why = str(e) or type(e).__name__
    ctx.outages.append(outage)
    if not outage.reconnected:
        ctx.unreachable = f"the server {what} while {rule.id} ran and could not be reached again ({outage.why})"


def _first_lost(ctx: CheckContext, called: int) -> tuple[WireEntry, str] | None:
    """The request of the rule's first call that got no answer (`called`: the gate's calls before the rule), as an
    outage names it: `tools/call lookup, which got no answer (Server disconnected ...)`; None when every call had
    one."""
    for record in ctx.gate.calls[called:]:
        if record.failure:
            for entry in ctx.wire.entries[record.span[0] : record.span[1]]:
                if entry.direction == "send" and entry.method == "tools/call":
                    return entry, f"tools/call {record.tool}, which got no answer ({record.failure[:160]})"
    return None


def _asked(entry: WireEntry) -> str | None:
    """What a wire entry asked of the server, as an outage names it: a JSON-RPC request's method, or an HTTP request
    that carries none (the GET of a second event stream, a DELETE); None for anything else."""
    if entry.direction == "send" and entry.method:
        return entry.method
    info = entry.http or {}
    if entry.direction == "http" and info.get("method") and info.get("method") != "POST":
        return f"{info['method']} {str(info.get('url', ''))[:120]}"
    return None


def slowness(session: Session) -> Slow | None:
    """What makes this server's every request slow, and what would be faster (`pace.slow_note`); None when
    requests are quick."""
    transport = session.channel.transport if session.channel is not None else None
    stateful = bool(getattr(transport, "session_id", None))
    return slow_note(session.wire.pace, session.target.kind, session.era, stateful)


async def run_check(
    target: Target,
    plan: CheckPlan,
    progress: Progress | None = None,
    keep_wire: Callable[[WireLog], None] | None = None,
) -> Review:
    """Connect, snapshot, run the selected rules, and return the review (waivers applied).
    `keep_wire` gets the whole wire log at the end, however the run ended (`check --wire-log`)."""
    if plan.era == "both":
        return await run_both(target, plan, progress, keep_wire)
    session = Session(target, era=plan.era, handlers=headless_handlers())  # type: ignore[arg-type]
    session.budget = run_budget(plan, session.timeout)  # the listing and every rule share one budget
    try:
        try:
            await session.open()
        except EgressRefused as e:  # the server sent us elsewhere before a session existed: that is a finding
            snapshot = ServerSnapshot.unreachable(target.public(), str(e))
            return await review_session(session, snapshot, plan, progress, unreachable=str(e))
        try:
            snapshot = await take_snapshot(session)
            return await review_session(session, snapshot, plan, progress)
        finally:
            await session.close()
    finally:
        if keep_wire is not None:
            keep_wire(session.wire)


async def run_both(
    target: Target, plan: CheckPlan, progress: Progress | None, keep_wire: Callable[[WireLog], None] | None
) -> Review:
    """`--era both` (mcp_review.eras): the whole review under each era, each on fresh connections; the modern one
    carries the comparison. An era the server does not serve is said, and the other era's review stands. The wire
    log kept is that of the review returned."""
    from mcp_review import eras

    done: dict[str, Review | str] = {}
    wires: dict[str, WireLog] = {}
    for era in eras.ERAS:

        def keep(wire: WireLog, era: str = era) -> None:
            wires[era] = wire

        try:
            done[era] = await run_check(target, replace(plan, era=era), progress, keep)
        except ConnectionFailed as e:
            done[era] = f"{type(e).__name__}: {e}"
    legacy, modern = done["legacy"], done["modern"]
    if isinstance(legacy, str) and isinstance(modern, str):
        raise ConnectionFailed(f"neither era could be reviewed: legacy: {legacy}; modern: {modern}")
    if isinstance(modern, str):
        assert isinstance(legacy, Review)
        review, said = legacy, eras.unserved(legacy, "modern", modern)
    elif isinstance(legacy, str):
        review, said = modern, eras.unserved(modern, "legacy", legacy)
    else:
        review, said = modern, eras.compare(legacy, modern)
    review.eras = said
    if keep_wire is not None and said["shown"] in wires:
        keep_wire(wires[said["shown"]])
    return review


def run_budget(plan: CheckPlan, timeout: float) -> Budget:
    """How long a check may wait on the server in all: `--budget`, else 4 timeouts; plus 1 s per request."""
    return Budget(plan.budget if plan.budget is not None else 4 * timeout)


async def review_session(
    session: Session,
    snapshot: ServerSnapshot,
    plan: CheckPlan,
    progress: Progress | None = None,
    unreachable: str | None = None,
    costs: Costs | None = None,
) -> Review:
    """Run the selected rules on an open session (the TUI's, or run_check's) and build the review.
    `unreachable`: no session could be opened, and why; only rules that need none run. `costs`: the snapshot's,
    where the caller counted them already (the app's workspace); else counted here, once, for the whole run."""
    rules = select(list(plan.packs), list(plan.ignore))
    options = replace(plan.options or Options(), rules=frozenset(r.id for r in rules))
    outer = session.budget
    if outer is None:  # the app's session lives on: this run gets a budget of its own
        session.budget = run_budget(plan, session.timeout)
    try:
        return await _review(
            session, snapshot, plan, rules, options, progress, unreachable, costs or Costs(snapshot), outer is not None
        )
    finally:
        session.budget = outer


async def _review(
    session: Session,
    snapshot: ServerSnapshot,
    plan: CheckPlan,
    rules: list[Rule],
    options: Options,
    progress: Progress | None,
    unreachable: str | None,
    costs: Costs,
    reconnect: bool,
) -> Review:
    counter = TokenCounter()
    target = session.target
    pinned = baseline.load(plan.baseline) if plan.baseline else None
    pin_to = plan.baseline if plan.baseline and not pinned else None
    notes = list(snapshot.notes)  # a new list: the snapshot's own is not the review's to change
    ctx = CheckContext(
        target=target,
        session=session,
        snapshot=snapshot,
        options=options,
        counter=counter,
        costs=costs,
        attestations=plan.attestations,
        unreachable=unreachable,
        pinned=pinned,
        pin_to=pin_to,
        changes=lock_diff(plan, snapshot, costs, notes) if not unreachable else None,
    )
    ctx.reconnect = reconnect
    try:
        findings = await run_rules(ctx, rules, plan, progress)
    finally:
        ctx.close()  # the canary area goes, with whatever a tool wrote into it
    settle(findings)
    review = Review(
        server={"name": snapshot.server_name, "version": snapshot.server_version, "info": snapshot.server_info},
        target=target.public(),
        revision=snapshot.revision,
        era=snapshot.era,
        transport=target.kind,
        findings=findings,
        waivers=list(plan.waivers),
        attestations=list(plan.attestations),
        coverage=[c.to_json() for c in ctx.calls],
        tools=[t.key for t in snapshot.tools],
        tokens=review_tokens(snapshot, costs.of(counter.encoding)),
        notes=[*notes, *filter(None, [session.asked.note()])],  # the snapshot's, the lock's, the server's asks
        packs=sorted({r.pack for r in rules}),
        changes=ctx.changes.to_json() if ctx.changes else None,
        decisions=plan.decisions,
        reach=reach(ctx) if ctx.calls else None,
        fail_on=list(plan.fail_on),
        subjects=snapshot.contents([*(w.subject for w in plan.waivers), *(a.subject for a in plan.attestations)]),
        rule_versions={r.id: r.version for r in rules},
    )
    if pin_to and not unreachable:
        baseline.save(pin_to, snapshot)
    review.behaviour = behaviour.summary(session.wire)
    review.exchanges = evidence_entries(session.wire, findings, behaviour.shown(review.behaviour))
    known.mark(review)  # the fails an SDK's default explains, said once per server (reads the cited answers)
    review.apply_waivers()
    return review


def reach(ctx: CheckContext) -> dict[str, Any]:
    """What the review's calls reached (`Review.reach`): the budget per tool, the values each tool's own text
    offers and which of them a call sent, and what each probe's budget left out."""
    from mcp_review.rules.arguments import offered_coverage

    offered = offered_coverage(list(ctx.snapshot.tools), [c.to_json() for c in ctx.calls])
    return {"callsPerTool": ctx.options.calls_per_tool, "offered": offered, "leftOut": ctx.left_out}


def lock_diff(plan: CheckPlan, snapshot: ServerSnapshot, costs: Costs, said: list[str]) -> Diff | None:
    """The live server against the lock the plan names (None without one, or with another server's: why is
    appended to `said`, the review's notes)."""
    if not plan.lock:
        return None
    pinned = lock.load(plan.lock)
    if (other := lock.other_server(pinned, snapshot.server_name)) is not None:
        said.append(f"{other} (`mcp-review diff {plan.lock} --other-server` compares them anyway)")
        return None
    return diff(pinned, lock.build(snapshot, costs=costs), plan.diff_budget)


def evidence_entries(
    wire: WireLog, findings: Sequence[Finding], also: Sequence[int] = ()
) -> dict[int, dict[str, object]]:
    """Every wire entry a finding cites (and `also`: the events the Behaviour section shows), with the request/response
    and HTTP lines that go with it. A big message is kept shortened (`_shortened`): a review cites what proves a
    finding, the wire log (`--wire-log`) holds it all."""
    out: dict[int, dict[str, object]] = {}
    for seq in sorted({s for f in findings for s in f.evidence} | set(also)):
        for entry in wire.exchange_of(seq):
            if entry.seq not in out:
                shown = entry.to_json()
                if entry.size > EVIDENCE_BYTES and "message" in shown:
                    shown["message"] = _shortened(shown["message"])
                    shown["notes"] = [*(entry.notes or []), _SHORTENED.format(entry.size)]
                out[entry.seq] = shown
    return out


EVIDENCE_BYTES = 64 * 1024  # a cited message larger than this is shortened in the review
EVIDENCE_ITEMS = 100  # ... to this many items of each array
EVIDENCE_STRING = 2000  # ... and this many characters of each string
_SHORTENED = (
    f"a message of {{:,}} bytes: shortened in the review to {EVIDENCE_ITEMS} items an array and "
    f"{EVIDENCE_STRING:,} characters a string"
)


def _shortened(value: object) -> object:
    """`value` with every array cut to EVIDENCE_ITEMS and every string to EVIDENCE_STRING (what is cut is counted).
    Received messages nest at most `untrusted.MAX_DEPTH` deep: the recursion is bounded."""
    if isinstance(value, str):
        return value if len(value) <= EVIDENCE_STRING else value[:EVIDENCE_STRING] + CUT.format(len(value))
    if isinstance(value, list):
        kept = [_shortened(v) for v in value[:EVIDENCE_ITEMS]]
        return kept + ([f"…[{len(value) - EVIDENCE_ITEMS:,} more items]"] if len(value) > EVIDENCE_ITEMS else [])
    if isinstance(value, dict):
        return {k: _shortened(v) for k, v in value.items()}
    return value
