"""The rule registry: one small function per rule, its metadata beside it, its documentation in its docstring.

    @rule("review.input-schema", modes=("static",), source="003 Tool contracts: input-schema")
    def input_schema(ctx: CheckContext) -> Iterator[Finding]:
        '''Every tool defines an object inputSchema with typed properties and a required list. ...'''

A rule receives a `CheckContext` and yields findings (sync or async generator). The registry adds
id, pack, mode and source to every finding through the context's helpers.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

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
) -> Callable[[RuleFn], RuleFn]:
    pack = rule_id.split(".", 1)[0]
    if pack not in PACKS:
        raise ValueError(f"rule {rule_id}: unknown pack {pack!r}")

    def register(fn: RuleFn) -> RuleFn:
        if rule_id in RULES:
            raise ValueError(f"rule {rule_id} registered twice")
        RULES[rule_id] = Rule(rule_id, modes, source, fn, transport, needs_server)
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
