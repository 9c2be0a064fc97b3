"""What the review app works on, without the app: the server (target, connection, snapshot and its token costs),
the review and the file it is saved to, the reviewer's calls, and the run choices. The TUI shows it and asks it;
nothing here imports Textual, so it is tested without a screen (tests/integration/test_workspace.py).

Files are written off the app's loop (a key waits for whatever runs there): saving the review, rendering and writing
its exports (and the export dialog's preview), and reading, building and writing `mcp-review.lock` run in one thread
of the workspace's, in the order asked, and each returns a `concurrent.futures.Future` the app turns into a message
when it is done. The review saved before is read back in a thread of its own (`reopen`), while the server starts and
lists; it is the working review once the server it is of has answered, and no save starts before it is read.
"""

from __future__ import annotations

import concurrent.futures
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar

from mcp_review import binding, calls, claims, known, lock, saved
from mcp_review.binding import Content
from mcp_review.calls import Policy
from mcp_review.catalog import ServerSnapshot
from mcp_review.checking import CheckPlan
from mcp_review.connection.session import Session
from mcp_review.connection.wire import WireEntry, WireLog
from mcp_review.costs import Costs, review_tokens
from mcp_review.decisions import remember
from mcp_review.diff import Diff, diff
from mcp_review.plan import chosen_in_app
from mcp_review.report import headline
from mcp_review.report.formats import Format, write
from mcp_review.report.locate import repository_root
from mcp_review.review import Attestation, Finding, Review, Waiver
from mcp_review.rules.context import Options
from mcp_review.rules.core import DEFAULT_PACKS, Rule, load_rules, select, stamp_missing
from mcp_review.targets import Target
from mcp_review.text import one_line
from mcp_review.tokens import TokenCounter

D = TypeVar("D", Waiver, Attestation)
RequestPolicy = Literal["auto", "ask"]
Job = Callable[[Session, ServerSnapshot], Awaitable[None]]


class Jobs(Protocol):
    """The connection to the server as the workspace sees it: a session opened for a target, and a queue of jobs
    run on it (the TUI's is a Textual worker, `tui/connection.py`)."""

    wire: WireLog  # every session of this server, reconnects too: one numbering (see `connection.pairing`)

    def open(self, target: Target, era: str, wire: list[WireEntry]) -> None: ...

    def submit(self, job: Job) -> None: ...

    def stop(self) -> None: ...


@dataclass
class Reopening:
    """The review saved before, being read (`Workspace.reopen`): how far, for the status line and the Overview."""

    path: Path
    future: concurrent.futures.Future[Review | None]
    done: int = 0
    total: int = 0

    def said(self) -> str:
        far = f": {self.done:,} of {self.total:,} findings" if self.total else ""
        return f"reopening the review saved before{far}"


@dataclass
class LockDiff:
    """The live server against `mcp-review.lock`: `diff` is None without a lock (or with one unreadable: `error`; or
    with another server's, not compared without the reviewer's word: `other` says whose)."""

    snapshot: ServerSnapshot
    path: Path
    diff: Diff | None
    error: str | None = None
    other: str | None = None


def verdict_said(review: Review) -> str:
    """The verdict as the status line says it: security's first, the overall one and the gate's, then what the
    repository's decisions that were not applied would make it (the Overview says which, and why)."""
    claimed = claims.short(review)
    gate = f" · gate {verdict}" if (verdict := review.gate()) else ""  # the Overview says which findings it reads
    first = f"{headline.security(review, icons=False, detail=False)} · verdict {review.verdict}{gate}"
    return first + (f" · {claimed} (the Overview, 1, says which)" if claimed else "")


def summary(review: Review) -> str:
    """The verdict and how many findings have each status."""
    counts = ", ".join(f"{n:,} {s}" for s, n in sorted(review.counts().items()))  # 25,003 blocking
    applied = review.repository_decisions()  # the repository's own waivers said beside the verdict they made
    return f"{verdict_said(review)} · {counts}" + (f" · with {applied}" if applied else "")


def current(saved: Sequence[D] | None, planned: Sequence[D]) -> list[D]:
    """The reviewer's own decisions as saved (made in the app), the repository's as the plan resolved them now: a
    waiver a repository file made once (before a --base run, or before the file changed) is not kept."""
    if saved is None:
        return list(planned)
    return [d for d in saved if d.origin != "repository"] + [d for d in planned if d.origin == "repository"]


class Workspace:
    def __init__(
        self,
        target: Target,
        *,
        plan: CheckPlan | None = None,
        export_dir: Path | None = None,
        state_dir: Path | None = None,
        era: str = "auto",
        source_root: str | None = None,
    ) -> None:
        """`plan`: the review options `mcp-review tui` was given, as `check` takes them (packs, ignored rules,
        calls and probes, the review config's waivers and attestations, the baseline); a `--calls` in it
        counts as the reviewer's choice of what checks may call. `source_root`: `--source-root`, where a
        SARIF export places findings (None: the git repository of the working directory, as `check`)."""
        self.target = target
        self.era = era
        self.export_dir = export_dir or Path.cwd()  # where exports go and mcp-review.lock is looked for
        self.source_root = source_root
        self.state_dir = state_dir
        self.counter = TokenCounter()
        self.connection: Jobs | None = None
        self.wire: list[WireEntry] = []  # what crossed the wire since the screen last drew it (the session appends)
        self.snapshot: ServerSnapshot | None = None
        self.costs: Costs | None = None  # the snapshot's, the default encoding counted before it is shown
        self.failure: str | None = None
        self.review: Review | None = None
        self.call_log: list[dict[str, Any]] = []  # every call made or refused here, for the review's coverage
        # The run choices, in one form: packs in `plan.packs`, calls and probes in `plan.options`.
        self.plan = replace(plan or CheckPlan(packs=list(DEFAULT_PACKS)), options=(plan and plan.options) or Options())
        self.calls_chosen = plan is not None and plan.options is not None and plan.options.calls != "none"
        self.checking = False  # a checklist run is queued or running
        # what answers the server's requests during a run: "auto" (roots as given, sampling and elicitation
        # declined: a run never waits on a person) or "ask" (the reviewer, in a dialog); tui/asking.py
        self.requests: RequestPolicy = "auto"
        self.unattended: Counter[tuple[str, str]] = Counter()  # (method, answer) the policy gave in the current run
        self.restored = False  # the review came back from an earlier session (its proof is the saved exchanges)
        self.reopening: Reopening | None = None  # the review saved before, being read
        self.kept_aside: str | None = None  # why a review read back was not this server's (said once)
        self._read: Review | None = None  # the review read back, until the server it is of answers
        self._files = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="workspace-files")
        self._reader = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="workspace-reopen")
        self._pending: concurrent.futures.Future[Path | None] | None = None  # a save queued, not started yet

    @property
    def review_path(self) -> Path:
        """The review of this server, saved after every change and loaded when it connects again: named after the
        server (its config entry, else the name it gives itself), keyed by the target (`review_file`)."""
        name = self.snapshot.server_name if self.snapshot is not None else None
        return saved.review_file(self.target.public(), self.state_dir, name)

    @property
    def options(self) -> Options:
        assert self.plan.options is not None  # always set (`__init__`)
        return self.plan.options

    # ---------------------------------------------------------------------------------------- the connection
    def connecting(self) -> None:
        """The working connection opens again: its snapshot is gone until it answers."""
        self.snapshot = None

    def connected(self, snapshot: ServerSnapshot, costs: Costs | None = None) -> bool:
        """The server answered (`costs`: the snapshot's, as the connection counted them); True when the review saved
        before (this server's) is read already and becomes the working one (else `reopened` says so later)."""
        self.snapshot, self.failure = snapshot, None
        self.costs = costs or Costs(snapshot)
        return self._adopt()

    def reopen(self, progress: Callable[[], None] | None = None) -> Reopening | None:
        """Read the review saved for this server, if any, in a thread of its own (a key waits for nothing): found by
        what starts the server, before it has answered. `progress` is called from that thread as it reads."""
        found = saved.find_review(self.review_path, self.target.public())
        if found is None or self.review is not None:
            return None

        def read() -> Review | None:
            def step(done: int, total: int) -> None:
                state.done, state.total = done, total
                if progress is not None:
                    progress()

            review = saved.read(found, step)
            if review is not None:
                stamp_missing(review.findings)  # saved before concerns: its rules' concerns and severities, as now
            return review

        state = self.reopening = Reopening(found, concurrent.futures.Future())  # before the reader reports
        state.future = self._reader.submit(read)
        return state

    def reopened(self, state: Reopening) -> bool:
        """`state`'s review is read: True when it becomes the working review now (its server has answered)."""
        if state is not self.reopening:  # another server replaced this one meanwhile
            return False
        self.reopening = None
        self._read = None if state.future.exception() else state.future.result()
        return self._adopt()

    def _adopt(self) -> bool:
        """The review read back becomes the working one once the server has answered, if it is that server's
        (the file is found by what starts the server: another server started the same way keeps its own)."""
        read, snapshot = self._read, self.snapshot
        if read is None or snapshot is None or self.review is not None:
            return False
        self._read = None
        named = read.server.get("name")
        if named and named != snapshot.server_name:
            self.kept_aside = f"the review saved for this command is of {named}, not {snapshot.server_name}: not shown"
            return False
        self.review = read  # the same server reviewed before: its findings and decisions come back
        made_meanwhile = self.call_log
        self.call_log = [c for c in read.coverage if c.get("purpose") == "reviewer"] + made_meanwhile
        self.restored = True
        return True

    def elsewhere(self) -> concurrent.futures.Future[saved.Elsewhere | None]:
        """A review of a server of this name saved under another key (made from another folder, or started another
        way), looked for in the files thread when this server has none."""
        assert self.snapshot is not None
        return self._files.submit(saved.elsewhere, self.review_path, self.target.public(), self.snapshot.server_name)

    def waiting(self) -> str | None:
        """What a decision, a run or an export waits for (None: nothing): the review saved before, being read, is
        the one they go into."""
        return f"{self.reopening.said()}: a moment" if self.reopening is not None else None

    def bind(self, finding: Finding, decision: Waiver | Attestation) -> None:
        """Bind a decision the reviewer makes in the app to what it decides (`mcp_review.binding`): the rule's version
        and its subject's content as this session's snapshot lists it (an attestation on the server: its surface; a
        waiver of a finding on the server: that finding's evidence). With no snapshot (a saved review, not
        connected), the content the review recorded; with none, the decision is bound on first use."""
        review = self.review or self.decided_on()
        rule = load_rules().get(finding.rule)
        decision.version = rule.version if rule else None
        content: Content | None
        if finding.subject is None:
            surface = isinstance(decision, Attestation) and self.snapshot is not None
            content = self.snapshot.surface() if surface and self.snapshot else binding.of_evidence(finding.message)
        else:
            if self.snapshot is not None:
                review.subjects |= self.snapshot.contents([finding.subject])
            content = review.content_of(finding)
        if content is not None:
            decision.digest, decision.parts = content["digest"], dict(content["parts"])

    def decided_on(self) -> Review:
        """The review a decision or an export goes into: this one, or before any checklist run one without
        findings (verdict NOT_CHECKED): the live server, its token report and the calls made, so an approval, a
        note or an export never waits for a run."""
        if self.review is None:
            assert self.snapshot is not None, "a decision needs the server listed"
            self.review = self._unchecked(self.snapshot)
        return self.review

    def _unchecked(self, snap: ServerSnapshot) -> Review:
        assert self.costs is not None  # set with the snapshot
        return Review(
            server={"name": snap.server_name, "version": snap.server_version, "info": snap.server_info},
            target=self.target.public(),
            revision=snap.revision,
            era=snap.era,
            transport=self.target.kind,
            tools=[t.key for t in snap.tools],
            tokens=review_tokens(snap, self.costs.of(self.counter.encoding)),
            notes=snap.notes,
            waivers=list(self.plan.waivers),
            attestations=list(self.plan.attestations),
        )

    def lost(self, reason: str) -> None:
        self.failure = reason

    def not_connected(self) -> str:
        """Why a key that needs the server cannot act, and what to press (said by `r`, `e`, ...)."""
        if self.failure is None:
            return "not connected yet: wait for the server, or ctrl+o connects to another"
        why = one_line(self.failure, 160)
        return f"not connected: {why} · ctrl+r tries again, ctrl+o connects to another (the Overview says more)"

    def switch(self, connection: Jobs, target: Target, wire: list[WireEntry]) -> None:
        """Another server answered and becomes the working one, with its own review, wire and call history."""
        if self.connection is not None:
            self.connection.stop()
        self.connection, self.target, self.wire = connection, target, wire
        self.review, self.call_log, self.restored = None, [], False
        self.reopening, self._read, self.kept_aside = None, None, None
        self.plan = chosen_in_app(self.plan, "target", "chosen in the app (ctrl+o)")

    def log_in(self, bearer: str) -> None:
        """A new OAuth token for the next connection."""
        self.target = self.target.with_(bearer=bearer)

    # ---------------------------------------------------------------------------------------- the checklist
    def choose(
        self,
        packs: Sequence[str],
        options: Options,
        both: bool = False,
        requests: RequestPolicy = "auto",
        fail_on: Sequence[str] | None = None,
    ) -> None:
        """The reviewer's run choices (the run dialog's answer); `both`: review under each era (`--era both`);
        `fail_on`: the gate (None: as it was)."""
        gate = tuple(fail_on) if fail_on is not None else self.plan.fail_on
        self.plan = replace(self.plan, packs=list(packs), options=options, era="both" if both else self.era)
        self.plan = replace(self.plan, fail_on=gate)
        self.requests = requests
        self.plan = chosen_in_app(self.plan, "calls", "chosen in the app's run dialog", policy=options.calls)
        self.calls_chosen = True

    def run_plan(self, only: str | None = None) -> CheckPlan:
        """The plan of the next run: what the command line gave (baseline, thresholds, waivers) with the reviewer's
        choices; `only` (a rule id or a pack) runs just that, to be merged into the review."""
        packs = [only.split(".")[0]] if only else list(self.plan.packs)
        ignore = [r for r in load_rules() if only and "." in only and r != only and r.startswith(packs[0] + ".")]
        previous = self.review
        return replace(
            self.plan,
            packs=packs,
            ignore=[*ignore, *self.plan.ignore],  # the review config's and the command line's too
            waivers=current(previous.waivers if previous else None, self.plan.waivers),
            attestations=current(previous.attestations if previous else None, self.plan.attestations),
            lock=str(found) if (found := lock.find_lock(self.export_dir)) else None,  # the Changes tab's lock
        )

    def call_estimate(self, policy: Policy) -> str:
        """What a run under `policy` would call, before it starts (the run dialog says it): the tools it may call
        times the calls per tool the last run made here (else the default packs' figure), and the cap if it bites."""
        tools = self.snapshot.tools.items if self.snapshot is not None else []
        made = calls.per_tool(self.review.coverage) if self.review is not None else calls.CALLS_PER_TOOL
        return calls.estimate(calls.callable_tools(tools, policy, self.options.allow_tools), made)

    @staticmethod
    def rules(plan: CheckPlan) -> list[Rule]:
        return select(list(plan.packs), list(plan.ignore))

    def reviewed(self, review: Review) -> None:
        """A run ended with `review` (saved already): its evidence is on this session's wire. What it bound on first
        use (a file's decisions written without a digest) is kept for the next review (`decisions.remember`)."""
        self.review, self.checking, self.restored = review, False, False
        remember(review)

    def merged(self, review: Review, only: str | None) -> Review:
        """The review a run made, as the app keeps it: the reviewer's notes outlive a re-run, and a re-run of
        `only` is merged into the review it re-ran."""
        previous = self.review
        review.remarks = previous.remarks if previous else []
        review.notes = [*review.notes, *self._unattended_note()]  # a new list: the snapshot's own stays as it is
        if only and previous is not None:
            previous.merge(review, only)
            known.mark(previous)  # an SDK told apart by one rule's answer names it for the re-run rule too
            return previous
        return review

    def _unattended_note(self) -> list[str]:
        """What the Run dialog's policy answered for the reviewer during the run: one note, with the counts."""
        if not self.unattended:
            return []
        asked = "; ".join(
            f"{method}: {answer} ({n:,} {'request' if n == 1 else 'requests'})"
            for (method, answer), n in self.unattended.most_common()
        )
        return [f"during the run the server asked the client {asked} (the Run dialog's policy)"]

    # ---------------------------------------------------------------------------------------- calls and files
    def called(self, call: dict[str, Any]) -> concurrent.futures.Future[Path | None]:
        """A call made (or refused) by the reviewer: kept in the review's coverage, and saved."""
        self.call_log.append(call)
        return self.save()

    def save(self, review: Review | None = None) -> concurrent.futures.Future[Path | None]:
        """After every change: findings, decisions and the call history survive a crash or a closed terminal.
        Written in the files thread (the path when done, None without a review). Decisions made while a save
        waits to start ride on it: it writes the review as it is when it starts, so a burst of decisions on a
        big review is one write, not one each."""
        review = review or self.review
        if review is None:
            done: concurrent.futures.Future[Path | None] = concurrent.futures.Future()
            done.set_result(None)
            return done
        review.record_calls(self.call_log, "reviewer")
        path = self.review_path
        pending = self._pending
        if pending is not None and not pending.running() and not pending.done() and review is self.review:
            return pending
        future: concurrent.futures.Future[Path | None] = self._files.submit(self._write, path, review, self.reopening)
        if review is self.review:
            self._pending = future
        return future

    @staticmethod
    def _write(path: Path, review: Review, reopening: Reopening | None) -> Path | None:
        if reopening is not None:  # the file being read is never written over before it is read
            concurrent.futures.wait([reopening.future])
        return saved.write(path, review)  # compact, and the state directory pruned (`mcp_review.saved`)

    def render(self, fmt: Format[Review], review: Review) -> concurrent.futures.Future[str]:
        """`review` as `fmt`, rendered in the files thread (the export dialog's preview)."""
        return self._files.submit(fmt.render, review)

    def export(self, fmt: Format[Review], review: Review, path: Path) -> concurrent.futures.Future[list[Path]]:
        """Write `review` as `fmt` to `path` in the files thread, with what the record asks for, as `check --out`
        gives it: its companion beside it (the short review's complete one), the server's repository to place
        findings in (`source_root`, looked up there too: git runs). The files written."""

        def export() -> list[Path]:
            root = repository_root(self.source_root, self.export_dir) if fmt.root else None
            return write(fmt, review, path, root=root)

        return self._files.submit(export)

    def lock_path(self) -> Path:
        return lock.find_lock(self.export_dir) or self.export_dir / lock.LOCK_NAME

    def compare_lock(self, anyway: bool = False) -> concurrent.futures.Future[LockDiff]:
        """The live server against its lock, read and built in the files thread (every item in every encoding
        takes a while on a big server: the lock reads them from `costs`, counted once). A lock of another server
        is compared only `anyway` (the reviewer's word)."""
        assert self.snapshot is not None and self.costs is not None
        return self._files.submit(self._compare, self.snapshot, self.costs, self.lock_path(), anyway)

    def pin(self, approvals: list[lock.Approval]) -> concurrent.futures.Future[LockDiff]:
        """Write the lock from the live server with `approvals`, then compare again (nothing changed, then). Over
        another server's lock only once the reviewer said so (the Changes tab asks)."""
        assert self.snapshot is not None and self.costs is not None
        snapshot, costs, path = self.snapshot, self.costs, self.lock_path()

        def pin() -> LockDiff:
            try:
                lock.save(path, lock.build(snapshot, approvals=approvals, costs=costs))
            except OSError as e:
                return LockDiff(snapshot, path, None, f"cannot write {path}: {e.strerror}")
            return self._compare(snapshot, costs, path)

        return self._files.submit(pin)

    @staticmethod
    def _compare(snapshot: ServerSnapshot, costs: Costs, path: Path, anyway: bool = False) -> LockDiff:
        if not path.is_file():
            return LockDiff(snapshot, path, None)
        try:
            pinned = lock.load(path)
            if not anyway and (other := lock.other_server(pinned, snapshot.server_name)) is not None:
                return LockDiff(snapshot, path, None, other=other)
            return LockDiff(snapshot, path, diff(pinned, lock.build(snapshot, costs=costs)))
        except lock.LockError as e:
            return LockDiff(snapshot, path, None, str(e))

    def record_changes(self, changes: Diff) -> None:
        """The Changes tab's diff, with its approvals, goes into the review (exported with it)."""
        if self.review is not None:
            self.review.changes = changes.to_json()

    def close(self) -> None:
        """Wait for the files being written (the app quits); a review still being read is left (daemon-like: the
        reader only reads)."""
        self._reader.shutdown(wait=False, cancel_futures=True)
        self._files.shutdown(wait=True)
