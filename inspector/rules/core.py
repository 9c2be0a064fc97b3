"""The rule registry: one small function per rule, its metadata beside it, its documentation in its docstring.

    @rule(
        "review.input-schema",
        modes=("static",),
        source="003 Tool contracts: input-schema",
        concern="contract",
        severity="medium",
    )
    def input_schema(ctx: CheckContext) -> Iterator[Finding]:
        '''Every tool defines an object inputSchema with typed properties and a required list. ...'''

A rule receives a `CheckContext` and yields findings (sync or async generator). The registry adds
id, pack, mode, source, concern and severity to every finding through the context's helpers.

Every rule declares its concern and default severity (`mcp_review.concerns`): a rule without them does not
register, and says which it lacks. `version` starts at 1: raise it when the rule judges differently, and every
waiver and attestation made under the old version stops applying (a decision is bound to the rule that it decided
on, as to its subject's content: `mcp_review.binding`).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from mcp_review.concerns import CONCERNS, SEVERITIES, Concern, Severity

if TYPE_CHECKING:
    from mcp_review.review import Finding
    from mcp_review.rules.context import CheckContext

Mode = Literal["static", "probe", "observe", "call", "manual", "baseline"]
PACKS = ("review", "spec", "tokens", "design", "registry", "apps")
DEFAULT_PACKS = ("review", "spec", "apps")
RuleFn = Callable[["CheckContext"], "Iterator[Finding] | AsyncIterator[Finding]"]


@dataclass(frozen=True)
class Rule:
    id: str
    modes: tuple[Mode, ...]
    source: str  # seed file and section
    fn: RuleFn
    transport: Literal["any", "http", "stdio"] = "any"
    needs_server: bool = True  # False: it judges what happened, even with no session opened or one lost
    concern: Concern = "security"  # always given by `rule`, which refuses a rule without one
    severity: Severity = "high"  # its findings' default (a finding may raise or lower it with what it proved)
    version: int = 1  # raised when the rule judges differently: the decisions made under an older one lapse

    @property
    def pack(self) -> str:
        return self.id.split(".", 1)[0]

    @functools.cached_property  # stamped on every finding: one string for all of them
    def mode(self) -> str:
        return " + ".join(self.modes)

    @property
    def doc(self) -> str:
        return inspect.cleandoc(self.fn.__doc__ or "")

    @property
    def summary(self) -> str:
        return self.doc.splitlines()[0] if self.doc else ""

    @functools.cached_property
    def spec(self) -> str | None:
        """The spec revision(s) it judges by, where relevant: its docstring's `Spec:` line (documentation and
        metadata in one place, as ruff keeps a rule's references in its docs)."""
        line = next((line for line in self.doc.splitlines() if line.startswith("Spec: ")), None)
        return line.removeprefix("Spec: ").strip() if line else None

    @functools.cached_property
    def cites(self) -> str:
        return f"seed {self.source}" + (f"; MCP {self.spec}" if self.spec else "")

    async def run(self, ctx: CheckContext) -> AsyncIterator[Finding]:
        out = self.fn(ctx)
        if isinstance(out, AsyncIterator):  # an async generator rule; else a plain generator
            async for finding in out:
                yield finding
        else:
            for finding in out:
                yield finding


RULES: dict[str, Rule] = {}


def rule(
    rule_id: str,
    *,
    modes: tuple[Mode, ...],
    source: str,
    transport: Literal["any", "http", "stdio"] = "any",
    needs_server: bool = True,
    concern: Concern | None = None,
    severity: Severity | None = None,
    version: int = 1,
) -> Callable[[RuleFn], RuleFn]:
    """Register a rule. `concern` and `severity` are required: `None` (left out) is refused, naming the choices."""
    pack = rule_id.split(".", 1)[0]
    if pack not in PACKS:
        raise ValueError(f"rule {rule_id}: unknown pack {pack!r}")
    if concern not in CONCERNS:
        raise ValueError(
            f"rule {rule_id}: {'no concern declared' if concern is None else f'unknown concern {concern!r}'}: "
            f"@rule(..., concern=...) takes one of {', '.join(CONCERNS)} (mcp_review.concerns says which is which)"
        )
    if severity not in SEVERITIES:
        raise ValueError(
            f"rule {rule_id}: {'no severity declared' if severity is None else f'unknown severity {severity!r}'}: "
            f"@rule(..., severity=...) takes one of {', '.join(SEVERITIES)}, the default of its findings "
            "(mcp_review.concerns says what each means)"
        )
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ValueError(f"rule {rule_id}: version must be a whole number from 1, got {version!r}")

    def register(fn: RuleFn) -> RuleFn:
        if rule_id in RULES:
            raise ValueError(f"rule {rule_id} registered twice")
        RULES[rule_id] = Rule(rule_id, modes, source, fn, transport, needs_server, concern, severity, version)
        return fn

    return register


def load_rules() -> dict[str, Rule]:
    """Import every pack module (each registers its rules) and return the registry."""
    import importlib

    for pack in PACKS:
        importlib.import_module(f"mcp_review.checks.{pack}")
    return RULES


def select(packs: list[str] | tuple[str, ...], ignore: list[str] | tuple[str, ...] = ()) -> list[Rule]:
    """Rules of the given packs (`all` = every pack) minus ignored rule ids or packs, in registry order."""
    rules = load_rules()
    wanted = set(PACKS) if "all" in packs else set(packs)
    unknown = wanted - set(PACKS)
    if unknown:
        raise ValueError(f"unknown pack(s): {', '.join(sorted(unknown))} (packs: {', '.join(PACKS)}, all)")
    dropped = set(ignore)
    return [r for r in rules.values() if r.pack in wanted and r.id not in dropped and r.pack not in dropped]


def stamp_missing(findings: Iterable[Finding]) -> None:
    """Give the findings of a review saved before concerns (no `concern`) their rule's concern and severity, as the
    registry declares them now; a rule this version does not have keeps none (its concern's verdict ignores it)."""
    rules = load_rules()
    for f in findings:
        if not f.concern and f.rule in rules:
            f.concern, f.severity = rules[f.rule].concern, f.severity or rules[f.rule].severity
