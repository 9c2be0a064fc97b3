"""The rule harness's runs: one real `run_check` against a fixture server (stdio or HTTP on 127.0.0.1), what
the reviewer allowed or attested, and the review it yields, computed once per session (tests/session.py) and
shared by every module of tests/rules (which runs prove which rule: tests/rules/cases.py)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from mcp_review.checking import CheckPlan, run_check
from mcp_review.review import STATUSES, Attestation, Finding, Review
from mcp_review.rules.context import Options
from mcp_review.rules.core import load_rules
from mcp_review.targets import Confinement, Target, http_target, stdio_target
from tests.oauth import login
from tests.pace import slowness
from tests.session import once
from tests.support import fixture_argv, free_port, running

RULES = load_rules()
MANUAL = [r.id for r in RULES.values() if "manual" in r.modes]


@dataclass(frozen=True)
class Run:
    """One check run: a fixture server, how it is reached, and what the reviewer allowed or attested."""

    server: tuple[str, ...]  # fixture argv after the script name
    http: str | None = None  # None: stdio; "--http" or "--sse"
    calls: str = "all"
    attest: str | None = "pass"  # every manual rule attested pass / fail, or not at all
    era: str = "auto"
    bearer: str | None = None
    options: tuple[tuple[str, object], ...] = field(default=())
    extra_args: tuple[str, ...] = ()
    timeout: float = 30.0
    oauth: bool = False  # log in at the fixture's authorization server (tests/oauth.py), and again for another resource
    packs: tuple[str, ...] = ("all",)  # a run that proves rules of one pack need not pay for the others
    only: tuple[str, ...] = ()  # the rules of those packs it runs, when it proves only these (the others ignored)


@contextlib.contextmanager
def target_for(run: Run, baseline: Path) -> Iterator[Target]:
    """The run's server, reached with its timeout scaled by the machine's slowness (tests/pace.py): a loaded
    machine answers later, and a late answer must not turn into a finding. A stdio server runs as `mcp-review check`
    runs it, confined and observed under --calls all and probes (mcp_review.plan.observed_by_consent), unless it is
    not `watched`."""
    timeout = run.timeout * slowness()
    if run.http is None:
        observe = run.calls == "all" or any(key == "probe" for key, _ in run.options)
        spec = Confinement(observe=observe, run=repr(run)) if watched(run) else Confinement(confine=False)
        yield stdio_target(fixture_argv(*run.server) + list(run.extra_args)).with_(timeout=timeout, confinement=spec)
        return
    port = free_port()
    argv = fixture_argv(run.server[0], run.http, "--port", str(port), *run.server[1:])
    with running(argv, port):
        path = "/sse" if run.http == "--sse" else "/mcp"
        yield http_target(f"http://127.0.0.1:{port}{path}", bearer=run.bearer).with_(timeout=timeout)


BEHAVIOUR = frozenset(r for r in RULES if RULES[r].fn.__module__.endswith(".behaviour"))


@cache
def watched(run: Run) -> bool:
    """Whether `run`'s stdio server runs as `check` runs it (confined; observed under --calls all and probes): every
    run but a one-defect server's whose defects are none of what a server does (tests/servers/behaving.py) and that
    no probe reaches. Those run unconfined and unobserved, their behaviour rules blocking and left out of `flagged`:
    a review of every pack starts its server some 40 times, and bubblewrap and strace cost 15 to 40 ms of CPU a
    start (the rule harness took 1.7 times the CPU with all of them watched)."""
    from tests.rules.cases import ONE_DEFECT

    if run.server[0] != "defects" or any(key == "probe" for key, _ in run.options):
        return True
    return any(ONE_DEFECT.get(name, (None, ""))[1] in BEHAVIOUR for name in run.server[1].split(","))


@cache
def review_of(run: Run) -> Review:
    """The review of one run, computed once per session (tests/session.py) and kept per process."""
    return once(repr(run), lambda: _review_of(run))


def _review_of(run: Run) -> Review:
    import tempfile

    attestations = (
        [
            Attestation(rule, "test", f"fixture attests {run.attest}", run.attest)  # type: ignore[arg-type]
            for rule in MANUAL
        ]
        if run.attest
        else []
    )
    options = Options(calls=run.calls)  # type: ignore[arg-type]
    with tempfile.TemporaryDirectory() as tmp:
        baseline = Path(tmp) / "baseline.json"
        with target_for(run, baseline) as target:
            if run.oauth:
                origin = (target.url or "").removesuffix("/mcp")
                options.foreign_token = login(origin, f"{origin}/other")
                options.narrow_token = login(origin, f"{origin}/mcp", scope="read")
                target = target.with_(bearer=login(origin, f"{origin}/mcp"))
            for key, value in run.options:  # after the logins: a run may do without one of their tokens
                setattr(options, key, value)
            ignore = [rule for rule in RULES if run.only and rule not in run.only]
            plan = CheckPlan(
                packs=list(run.packs),
                ignore=ignore,
                options=options,
                attestations=attestations,
                era=run.era,
                baseline=str(baseline),
            )
            return asyncio.run(run_check(target, plan))


def findings(run: Run) -> dict[str, list[Finding]]:
    out: dict[str, list[Finding]] = {}
    for f in review_of(run).findings:
        out.setdefault(f.rule, []).append(f)
    return out


def worst(items: list[Finding]) -> str:
    statuses = {f.status for f in items}
    return next((s for s in STATUSES if s in statuses), "none")


def describe(items: list[Finding]) -> str:
    return "; ".join(f"{f.status} {f.subject}: {f.message[:120]}" for f in items)


def flagged(run: Run) -> set[str]:
    """The rules whose worst finding on `run` is fail, warn or blocking (not the behaviour rules of a run that is not
    `watched`: they are blocking for that alone)."""
    out = {rule for rule, items in findings(run).items() if worst(items) in ("fail", "warn", "blocking")}
    return out if run.http is not None or watched(run) else out - BEHAVIOUR
