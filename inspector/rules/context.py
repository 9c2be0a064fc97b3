"""What a rule sees: the snapshot, the wire log, fresh probe connections, the run's call gate, the options.

Findings are made through the helpers (`passed`, `fail`, `warn`, `na`, `blocking`), which stamp the
rule's id, pack, mode and source. A call rule asks `call()` or `try_call()`, which go through the run's
`calls.CallGate` (`gate`): it applies the reviewer's policy and the call cap, records the call, and answers a
call a second rule needs from the first one's record (`share`). `blocking_call()` then says exactly which flag or
consent would verify a call the policy refused. The policy reads every definition the server gave for a tool's
name (`calls.consent_reason`): one read-only definition does not make a name callable that another makes
destructive.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from mcp_review import canary
from mcp_review.binding import Content
from mcp_review.calls import CallGate, CallRecord, Policy, Share, consent_reason
from mcp_review.canary import CanaryArea
from mcp_review.catalog import Item, ServerSnapshot
from mcp_review.concerns import Severity
from mcp_review.connection.probe import Prober
from mcp_review.connection.session import Session
from mcp_review.connection.wire import WireLog
from mcp_review.costs import Costs
from mcp_review.review import NEEDS_REVIEWER, Attestation, Fact, Finding, Status
from mcp_review.rules.arguments import CALLS_PER_TOOL
from mcp_review.sandbox import known_run
from mcp_review.targets import Target
from mcp_review.tokens import TokenCounter

if TYPE_CHECKING:
    from mcp_review.diff import Diff
    from mcp_review.tasks import TaskRun

Subject = Item | str | None
Judge = Callable[[Item, CallRecord, Any], Finding]  # a sample call's finding: (tool, record, result JSON)


class Stamp(Protocol):
    """What a finding carries of the rule that made it. `core.Rule` is one; naming only this keeps the context
    below the registry (core.py imports this module for its rule functions' type, never the other way)."""

    @property
    def id(self) -> str: ...
    @property
    def pack(self) -> str: ...
    @property
    def mode(self) -> str: ...
    @property
    def cites(self) -> str: ...
    @property
    def concern(self) -> str: ...
    @property
    def severity(self) -> str: ...
    @property
    def version(self) -> int: ...


@dataclass
class Options:
    """Rule options (thresholds) and call permissions, from the command line and mcp-review.toml."""

    calls: Policy = "none"  # calls.POLICIES says what each lets the checks call
    allow_tools: list[str] | None = None  # if set, only these tools may be called
    list_budget: int = 3500  # registry.list-budget, cl100k_base tokens for the whole tools array
    description_budget: int = 50  # registry.description-budget, tokens per tool description
    output_budget_bytes: int = 8192  # tokens.output-budget
    truncation_bytes: int = 2048  # tokens.smart-truncation
    probe_timeout: float | None = None  # seconds per probe request; None: the review's --timeout
    foreign_token: str | None = None  # review.audience-validated: a real token issued for another resource
    narrow_token: str | None = None  # review.resource-server-metadata: a real token without a scope the server needs
    probe: frozenset[str] = frozenset()  # active probes allowed: "security" (within calls_per_tool), "security-all"
    # calls one rule may make to one tool: the variants of its arguments (each value the server's text offers) and
    # a probe's payloads (`--calls-per-tool`, `calls_per_tool` in mcp-review.toml; the review's coverage says it)
    calls_per_tool: int = CALLS_PER_TOOL
    rules: frozenset[str] | None = None  # the ids of the rules this run selected (None: not known)
    preview: bool = False  # apps.preview: run each app page in headless Chromium (--preview)
    server_json: str | None = None  # the server's registry server.json (review.server-json), as the plan found it


@dataclass
class Outage:
    """The server died or dropped the session while a rule ran (the runner saw it after the rule, and reconnected
    or could not): what review.survives-probes fails for."""

    rule: str  # the rule that was running
    what: str  # "closed the connection", "dropped the session"
    failure: str  # what the connection said
    last: str  # ", after tools/call run_ping" (the last request it sent), or ""
    evidence: list[int]  # that request and the note the runner wrote when it saw the loss
    reconnected: bool
    why: str = ""  # why no fresh connection could be opened


def _progress_seen(_params: object) -> None:
    """A check call's progress is judged from the wire log (spec.progress), not as it arrives."""


class Scratch:
    """The review's one canary area, made when a call first needs it and removed by `close`: in the scratch of the
    review's confinement when its server runs confined (the only temporary directory it can see)."""

    def __init__(self, target: Target) -> None:
        self._stack = contextlib.ExitStack()
        self._area: CanaryArea | None = None
        self._target = target

    def area(self) -> CanaryArea:
        if self._area is None:
            run = known_run(self._target.confinement.run) if self._target.kind == "stdio" else None
            self._area = self._stack.enter_context(canary.area(run.scratch if run else None))
        return self._area

    def close(self) -> None:
        self._area = None
        self._stack.close()


class CheckContext:
    def __init__(
        self,
        *,
        target: Target,
        session: Session,
        snapshot: ServerSnapshot,
        options: Options,
        counter: TokenCounter | None = None,
        costs: Costs | None = None,
        attestations: Iterable[Attestation] = (),
        unreachable: str | None = None,
        pinned: dict[str, Any] | None = None,
        pin_to: str | None = None,
        changes: Diff | None = None,
    ) -> None:
        self.target = target
        self.session = session
        self.snapshot = snapshot
        self.wire: WireLog = session.wire
        self.options = options
        self.counter = counter or TokenCounter()
        self.gate = CallGate.for_run(
            session, options.calls, options.allow_tools, lambda name: snapshot.tool(name) is not None
        )
        self.costs = costs or Costs(snapshot)  # the snapshot's token costs, counted once for every rule and the lock
        self.task_runs: dict[str, Any] = {}  # tool name -> its run as a task (mcp_review.tasks.TaskRun), shared
        self.left_out: dict[str, dict[str, int]] = {}  # probe rule -> tool -> payloads its calls_per_tool left out
        self.outages: list[Outage] = []  # the server died or dropped the session under a rule (review.survives-probes)
        self.reconnect = True  # the runner may open a fresh connection after an outage (not the app's session)
        # issuer -> (its metadata, the exchanges that fetched it), as review.resource-server-metadata discovered it:
        # spec.deprecated-features reads it after every other rule (dynamic client registration)
        self.authorization_servers: dict[str, tuple[dict[str, Any], list[int]]] = {}
        self.attestations = list(attestations)
        self.unreachable = unreachable  # why no session could be opened (only rules that need none run)
        self.pinned = pinned  # the baseline's definition hashes (review.rug-pull-mitigation), if one is pinned
        self.pin_to = pin_to  # where this first run pins them, when no baseline exists yet
        self.changes = changes  # the live server against mcp-review.lock, when one exists
        self.rule: Stamp | None = None
        # the findings of the rules that ran before this one (the runner's list, shared by every rule's view): what a
        # probe or an observation proved, for a rule that names it (review.capability-* cite the probes' fails)
        self.earlier: list[Finding] = []
        self._scratch = Scratch(target)  # shared by every rule's view: one canary area for the whole review

    def close(self) -> None:
        """Remove the review's canary area (and whatever tools wrote into it)."""
        self._scratch.close()

    def area(self) -> CanaryArea:
        """The review's canary area (mcp_review.canary), made on first use: where every path argument of a tool
        that may write points, so no call of the review can change anything outside it."""
        return self._scratch.area()

    def arguments(self, tool: Item) -> dict[str, Any]:
        """Valid arguments for a call of `tool` (mcp_review.rules.arguments.call_arguments): values its schema and
        descriptions name, and its path parameters inside the canary area when it may write."""
        from mcp_review.rules.arguments import call_arguments

        return call_arguments(tool, self.area() if consent_reason(tool) else None)

    def variants(self, tool: Item) -> list[dict[str, Any]]:
        """Argument sets that send, together, every value the server's text offers for `tool`'s parameters
        (mcp_review.rules.arguments.argument_variants), the first being `arguments(tool)`; at most `calls_per_tool`."""
        from mcp_review.rules.arguments import argument_variants

        area = self.area() if consent_reason(tool) else None
        return argument_variants(tool, area, self.options.calls_per_tool)

    def for_rule(self, rule: Stamp) -> CheckContext:
        """The context one rule runs with: the same review state (session, the call gate and its calls),
        its own `rule`, so no rule can stamp findings with another's id."""
        view = copy.copy(self)
        view.rule = rule
        return view

    # ------------------------------------------------------------------------------------ facts
    @property
    def revision(self) -> str:
        return self.snapshot.revision

    @property
    def era(self) -> str:
        return self.snapshot.era

    @property
    def is_http(self) -> bool:
        return self.target.is_http

    @property
    def probe_timeout(self) -> float:
        """How long one probe request waits: the `probe_timeout` option, else the review's --timeout."""
        return self.options.probe_timeout or self.target.timeout

    def revision_at_least(self, revision: str) -> bool:
        """Revisions are dates: compare as strings."""
        return self.revision >= revision

    # --------------------------------------------------------------------------------- findings
    def _finding(
        self,
        status: Status,
        subject: Subject,
        message: str,
        evidence: Iterable[int | None],
        severity: Severity | None = None,
    ) -> Finding:
        """A finding of the running rule: its id, pack, mode, source and concern, and its default severity unless
        what it proved raised or lowered it (`severity`)."""
        assert self.rule is not None
        kind = subject.kind if isinstance(subject, Item) else None
        name = subject.key if isinstance(subject, Item) else subject
        seqs = [s for s in evidence if s]
        if isinstance(subject, Item) and status in ("fail", "warn", "blocking") and subject.seq not in seqs:
            seqs.insert(0, subject.seq)
        return Finding(
            rule=self.rule.id,
            pack=self.rule.pack,
            status=status,
            message=message,
            subject=name,
            subject_kind=kind,
            source=self.rule.cites,
            mode=self.rule.mode,
            evidence=seqs,
            concern=self.rule.concern,
            severity=severity or self.rule.severity,
        )

    def passed(self, subject: Subject, message: str, evidence: Iterable[int | None] = ()) -> Finding:
        return self._finding("pass", subject, message, evidence)

    def fail(
        self,
        subject: Subject,
        message: str,
        evidence: Iterable[int | None] = (),
        fact: Fact | None = None,
        *,
        severity: Severity | None = None,
    ) -> Finding:
        """A fail; `fact` when other rules fail for the same fact (`review.settle` keeps the owner's fail only);
        `severity` when what it proved is worse or milder than the rule's default."""
        finding = self._finding("fail", subject, message, evidence, severity)
        finding.fact = fact
        return finding

    def warn(
        self, subject: Subject, message: str, evidence: Iterable[int | None] = (), *, severity: Severity | None = None
    ) -> Finding:
        return self._finding("warn", subject, message, evidence, severity)

    def note(self, subject: Subject, message: str, evidence: Iterable[int | None] = ()) -> Finding:
        """A fact recorded, never judged: it does not change the verdict (a deprecated feature in use)."""
        return self._finding("note", subject, message, evidence)

    def na(self, subject: Subject, message: str) -> Finding:
        return self._finding("n/a", subject, message, ())

    def blocking(
        self, subject: Subject, message: str, evidence: Iterable[int | None] = (), *, severity: Severity | None = None
    ) -> Finding:
        return self._finding("blocking", subject, message, evidence, severity)

    def manual(self, what: str) -> list[Finding]:
        """The part of a rule only a person can judge: their attestations, or blocking until there is one. An
        attestation made on an earlier version of its subject (the server's surface, or the item it names) or of
        the rule no longer applies (`binding`): blocking again, saying what changed; one written without a digest
        is bound to what this review sees, and says so."""
        assert self.rule is not None
        mine = [a for a in self.attestations if a.rule == self.rule.id]
        ask = f"{NEEDS_REVIEWER}{what} Attest it in mcp-review.toml ([[attest]]) or the TUI."
        if not mine:
            return [self.blocking(None, ask)]
        out = []
        surface: Content | None = None
        for a in mine:
            if a.subject is None:
                surface = surface or self.snapshot.surface()
                content: Content | None = surface
            else:
                content = next(iter(self.snapshot.contents([a.subject]).values()), None)
            a.bind(content, self.rule.version)
            why = a.lapsed(content, self.rule.version)
            a.state = "stale" if why else "live"
            if why:
                said = f"Attested {a.status} by {a.by} for an earlier version ({a.note}); since then {why}"
                again = "attest it again in mcp-review.toml ([[attest]]) or the TUI."
                out.append(self.blocking(a.subject, f"{NEEDS_REVIEWER}{what} {said}: {again}"))
                continue
            finding = self._finding(a.status, a.subject, f"attested by {a.by}: {a.note}", ())
            finding.note = a.source
            out.append(finding)
        return out

    # ------------------------------------------------------------------------------------ calls
    @property
    def calls(self) -> list[CallRecord]:
        """Every call the run made (its coverage), through the gate."""
        return self.gate.calls

    def may_call(self, tool: Item) -> str | None:
        """None if the policy allows calling `tool`; else what would allow it (flag or consent)."""
        return self.gate.refusal(tool)

    async def call(
        self, tool: Item, arguments: Any, purpose: str | None = None, share: Share | None = None
    ) -> CallRecord | None:
        """The gate's call (`CallGate.call`), recorded under this rule's id unless `purpose` names another."""
        return await self.gate.call(
            tool,
            arguments,
            purpose=purpose or (self.rule.id if self.rule else "check"),
            share=share,
            on_progress=_progress_seen,  # every check call carries a progressToken: spec.progress reads the wire
        )

    async def try_call(
        self, tool: Item, arguments: Any, what: str, purpose: str | None = None, share: Share | None = None
    ) -> CallRecord | Finding:
        """Call `tool` for a rule that judges the answer: the record, or a `blocking` finding when the calling
        policy does not allow it (naming what would) or the call got no answer (a timeout, a lost
        connection): no answer proves nothing, so it can never become a pass or a fail. `share`: a call of that
        class with the same arguments another rule made answers (`calls.Share`); a rule that needs a call of its
        own (two answers compared, a canary that must show now) passes none."""
        if self.may_call(tool) is not None:
            return self.blocking_call(tool, what)
        record = await self.call(tool, arguments, purpose, share)
        assert record is not None
        return self.unanswered(tool, record, what) or record

    def unanswered(self, tool: Item, record: CallRecord, what: str) -> Finding | None:
        """A `blocking` finding when `record` got no answer, else None."""
        if not record.failure:
            return None
        return self.blocking(
            tool, f"{what}: the call got no answer ({record.failure}); nothing is proven", [record.seq]
        )

    async def sample_call(self, tool: Item) -> CallRecord | None:
        """One call with valid arguments generated from the schema, shared by every rule that reads results (and by
        any that calls with the same arguments for an answer: `share="answer"`)."""
        return await self.call(tool, self.arguments(tool), purpose="sample result", share="answer")

    async def answers(self, tool: Item, what: str, *, every: bool = False) -> list[CallRecord] | Finding:
        """Sample calls of `tool` with its argument `variants` (shared by every rule that reads answers) until the
        server accepts one (`rules.proof.outcome`), or with all of them (`every`: each value its text offers is
        sent once, for a rule that reads every answer); a `blocking` finding when it may not be called or the first
        call got no answer."""
        from mcp_review.rules.proof import outcome

        if self.may_call(tool) is not None:
            return self.blocking_call(tool, what)
        made: list[CallRecord] = []
        for arguments in self.variants(tool):
            record = await self.call(tool, arguments, purpose="sample result", share="answer")
            assert record is not None
            if record.failure:
                return made or (self.unanswered(tool, record, what) or self.blocking(tool, what))
            made.append(record)
            if not every and outcome(record).accepted:
                break
        return made

    async def accepted(self, tool: Item) -> CallRecord | None:
        """The first sample call of `tool` the server accepted (`answers`), or None: the control a refusal of
        other arguments is read against (a tool that refuses everything refused nothing in particular)."""
        from mcp_review.rules.proof import outcome

        made = await self.answers(tool, "ordinary arguments")
        return None if isinstance(made, Finding) else next((r for r in made if outcome(r).accepted), None)

    async def not_the_point(self, tool: Item, record: CallRecord, what: str) -> Finding | None:
        """`blocking` when `record`'s call was refused and so was every call of `tool` with ordinary arguments:
        the refusal is not about `what` (the unknown field, the limit), so it proves nothing about it; None when
        the call was accepted, or the tool accepts ordinary arguments (the refusal is then `what`'s)."""
        from mcp_review.rules.proof import outcome

        got = outcome(record)
        if got.accepted or await self.accepted(tool) is not None:
            return None
        return self.blocking(
            tool,
            f"{what}: refused with {got.quote()}, and so was every call with ordinary arguments (the values its "
            "text offers): the refusal is not about this, so it proves nothing; a call it accepts would decide it",
            [record.seq],
        )

    async def run_task(self, tool: Item, arguments: Any) -> TaskRun | None:
        """`tool` run as a task through the gate (kept as a call), then one more tasks/get once it ended; None when
        the policy does not allow the call."""
        made = await self.gate.run_task(tool, arguments, purpose="task run", deadline=self.probe_timeout, recheck=True)
        return None if made is None else made[1]

    async def samples(
        self, what: str, judge: Judge, *, refusals: bool = False, every: bool = False
    ) -> AsyncIterator[Finding]:
        """For every named tool, `judge(tool, its first accepted sample call, the result's JSON or None)` (`answers`:
        the variants of its arguments until one is accepted; `every`: all of them); a blocking finding instead when
        the tool may not be called, the call got no answer, or (unless the judge reads `refusals` too) every call
        was refused: a refused call shows nothing of what the tool returns. Rules that judge results return this."""
        from mcp_review.rules.proof import outcome
        from mcp_review.rules.util import result_json

        for tool in self.snapshot.tools:
            if not tool.name:
                continue
            made = await self.answers(tool, what, every=every)
            if isinstance(made, Finding):
                yield made
                continue
            record = next((r for r in made if outcome(r).accepted), made[-1])
            if refusals or outcome(record).accepted:
                yield judge(tool, record, result_json(record.result))
            else:
                yield self.refused(tool, what, made)

    def refused(self, tool: Item, what: str, made: list[CallRecord]) -> Finding:
        """`blocking`: every call of `tool` was refused, which shows neither what it does nor that it would not;
        says the last refusal and what would decide it."""
        from mcp_review.rules.proof import outcome

        tried = f"all {len(made)} calls (with the values its text offers) were" if len(made) > 1 else "the call was"
        return self.blocking(
            tool,
            f"{what}: {tried} refused, the last with {outcome(made[-1]).quote()}: a refused call proves neither "
            "what the tool does nor that it would not; a call it accepts would decide it (arguments that name "
            "something real; for a tool confined to a root, a path inside it)",
            [r.seq for r in made],
        )

    def blocking_call(self, tool: Item, what: str) -> Finding:
        return self.blocking(tool, f"{what} needs a call: {self.may_call(tool)}")

    # ----------------------------------------------------------------------------------- probes
    @contextlib.asynccontextmanager
    async def probe(self, target: Target | None = None) -> AsyncIterator[Prober]:
        """A fresh raw connection (a new process on stdio) sharing the review's wire log and time budget;
        `target` varies the review's target (another token, no token)."""
        budget = self.session.budget
        async with Prober(target or self.target, self.wire, timeout=self.probe_timeout, budget=budget) as p:
            yield p
