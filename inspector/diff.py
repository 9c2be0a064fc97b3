"""What changed between two pins of a server's surface (two `Lock`s: the committed one and the live server's,
or a base branch's and a PR's), each change put in one class:

- breaking: an item removed or renamed; a new required parameter (or prompt argument); a parameter removed or
  its type narrowed; an enum value removed (or an enum put on a free parameter); an output schema that no
  longer promises a field;
- safety: `readOnlyHint` true → false or dropped; `destructiveHint` or `openWorldHint` turned on (or a false one
  dropped: both default to true); a description (or title, or parameter description, or the instructions) that
  now carries something the scanner flags (an instruction to the model, a URL, a path, a credential); a new tool
  that is not read-only;
- behaviour: anything else in a definition that changed (the members no breaking or safety change explains),
  an item added, the instructions edited; a skill's manifest edited (a file's digest: SEP-2640 skills are items,
  keyed by their SKILL.md URI; a skill turned `"dynamic"` or a frontmatter the scanner flags is safety);
- cost: the token total of the `tools` array per encoding, and the budgets of the review config
  (`max_tools_list_tokens`, `max_tool_tokens`, `max_token_growth_percent`); every change also carries its
  item's token delta per encoding.

Items are matched by key (name or URI); a key listed more than once is compared by full content, its copies as a
multiset, so one copy never stands for another. One item can have a change in several classes. A change matching
an approval that counts (same item, class and new definition hash) is marked approved and does not count for
`--fail-on`; of a lock's approvals only those its base already had count (`mcp-review diff OLD NEW`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from mcp_review.binding import definition_sha256
from mcp_review.calls import effective_hints
from mcp_review.lock import Approval, Entry, Lock
from mcp_review.scan.scanner import scan_text
from mcp_review.tokens import DEFAULT_ENCODING

CLASSES = ("breaking", "safety", "behaviour", "cost")
IDENT = {"tool": "name", "prompt": "name", "resource": "uri", "template": "uriTemplate", "skill": "uri"}
SAFETY_HINTS = ("destructiveHint", "openWorldHint")


@dataclass
class TokenBudget:
    """The review config's token budgets for a diff (None: no limit); counted in `encoding`."""

    max_tools_list_tokens: int | None = None
    max_tool_tokens: int | None = None
    max_token_growth_percent: float | None = 10.0
    encoding: str = DEFAULT_ENCODING


@dataclass
class Change:
    kind: str  # tool, prompt, resource, template, server
    key: str
    change_class: str
    reasons: list[str]
    old: Any = None  # the definitions either side (None: absent)
    new: Any = None
    tokens: dict[str, int] = field(default_factory=dict)  # the item's token delta per encoding
    over_budget: bool = False  # cost: a budget is exceeded
    approval: Approval | None = None
    flips_annotation: bool = False  # safety: a hint flipped; such a change is approved one by one, never in bulk

    @property
    def sha256(self) -> str:
        return definition_sha256(self.new) if self.new is not None else ""

    @property
    def counts(self) -> bool:
        """Whether it counts for `--fail-on` its class: not approved, and for cost, over a budget."""
        return self.approval is None and (self.change_class != "cost" or self.over_budget)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "key": self.key,
            "class": self.change_class,
            "reasons": self.reasons,
            "tokens": self.tokens,
            "overBudget": self.over_budget,
            "flipsAnnotation": self.flips_annotation,
            "approval": self.approval.to_json() if self.approval else None,
            "old": self.old,
            "new": self.new,
        }


@dataclass
class Diff:
    old: str  # labels: server name and version, or the lock file
    new: str
    changes: list[Change]
    totals: dict[str, dict[str, int]]  # the tools array per encoding: {"old", "new", "delta"}
    versions: tuple[str | None, str | None] = (None, None)  # serverInfo.version either side
    pinned_with: list[Approval] = field(default_factory=list)  # the approvals the old lock was pinned with

    def of_class(self, name: str) -> list[Change]:
        return [c for c in self.changes if c.change_class == name]

    def fails(self, fail_on: Iterable[str]) -> list[Change]:
        """The changes that fail `--fail-on` (classes, or "any"; "none" fails nothing)."""
        wanted = set(fail_on)
        if "none" in wanted:
            return []
        return [c for c in self.changes if c.counts and ("any" in wanted or c.change_class in wanted)]

    def approve(self, approvals: Iterable[Approval]) -> None:
        by_id = {(a.kind, a.key, a.change_class): a for a in approvals}
        for change in self.changes:
            found = by_id.get((change.kind, change.key, change.change_class))
            if found is not None and found.sha256 in ("", change.sha256):
                change.approval = found

    def to_json(self) -> dict[str, Any]:
        counts = {name: len(self.of_class(name)) for name in CLASSES}
        return {
            "old": self.old,
            "new": self.new,
            "versions": list(self.versions),
            "pinnedWith": [a.to_json() for a in self.pinned_with],
            "counts": counts,
            "totals": self.totals,
            "changes": [c.to_json() for c in self.changes],
        }


# ---------------------------------------------------------------------------------------------- schemas
def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _required(schema: dict[str, Any]) -> set[str]:
    req = schema.get("required")
    return {r for r in req if isinstance(r, str)} if isinstance(req, list) else set()


def _types(schema: Any) -> set[str] | None:
    """The JSON types a schema allows (None: any); "number" allows "integer" too."""
    t = _dict(schema).get("type")
    names = {t} if isinstance(t, str) else {x for x in t if isinstance(x, str)} if isinstance(t, list) else None
    if names is not None and "number" in names:
        names.add("integer")
    return names


def _input_breaks(old: Any, new: Any) -> Iterator[str]:
    old, new = _dict(old), _dict(new)
    before, after = _dict(old.get("properties")), _dict(new.get("properties"))
    for name in sorted(set(before) - set(after)):
        yield f"parameter {name!r} removed"
    for name in sorted(_required(new) - _required(old)):
        yield f"new required parameter {name!r}"
    for name in sorted(set(before) & set(after)):
        was, now = _types(before[name]), _types(after[name])
        if now is not None and (was is None or now < was):
            yield f"parameter {name!r} narrowed: type {sorted(was or ['any'])} → {sorted(now)}"
        old_enum, new_enum = _dict(before[name]).get("enum"), _dict(after[name]).get("enum")
        if isinstance(new_enum, list) and not isinstance(old_enum, list):
            yield f"parameter {name!r} narrowed to an enum"
        elif isinstance(new_enum, list) and isinstance(old_enum, list):
            gone = [v for v in old_enum if v not in new_enum]
            if gone:
                yield f"parameter {name!r}: enum values removed: {', '.join(map(repr, gone[:5]))}"


def _output_breaks(old: Any, new: Any) -> Iterator[str]:
    if not isinstance(old, dict):
        return
    new = _dict(new)
    before, after = _dict(old.get("properties")), _dict(new.get("properties"))
    for name in sorted(set(before) - set(after)):
        yield f"output field {name!r} no longer in the output schema"
    for name in sorted((_required(old) - _required(new)) & set(after)):
        yield f"output field {name!r} no longer required (may be absent)"


def _argument_breaks(old: Any, new: Any) -> Iterator[str]:
    def args(value: Any) -> dict[str, bool]:
        items = value if isinstance(value, list) else []
        return {
            a["name"]: a.get("required") is True
            for a in items
            if isinstance(a, dict) and isinstance(a.get("name"), str)
        }

    before, after = args(old), args(new)
    for name in sorted(set(before) - set(after)):
        yield f"argument {name!r} removed"
    for name in sorted(n for n, req in after.items() if req and not before.get(n)):
        yield f"new required argument {name!r}"


# ---------------------------------------------------------------------------------------------- safety
def _texts(raw: Any) -> str:
    """The texts of a definition the model reads as prose: title, description, parameter descriptions."""
    raw = _dict(raw)
    parts = [raw.get("title"), raw.get("description")]
    parts += list(_dict(raw.get("frontmatter")).values())  # a skill's name, description and the rest (SEP-2640)
    for schema in _dict(_dict(raw.get("inputSchema")).get("properties")).values():
        parts.append(_dict(schema).get("description"))
    for arg in raw.get("arguments") if isinstance(raw.get("arguments"), list) else []:
        parts.append(_dict(arg).get("description"))
    return "\n".join(p for p in parts if isinstance(p, str))


def new_flags(old_text: str | None, new_text: str | None) -> list[str]:
    """What the scanner flags in the new text that it did not flag in the old one."""
    before = {(h.kind, h.message) for h in scan_text(old_text or "")}
    return [f"{h.kind}: {h.message}" for h in scan_text(new_text or "") if (h.kind, h.message) not in before]


def _annotation_flips(old: Any, new: Any) -> Iterator[str]:
    before, after = _dict(_dict(old).get("annotations")), _dict(_dict(new).get("annotations"))
    if before.get("readOnlyHint") is True and after.get("readOnlyHint") is not True:
        now = "dropped" if "readOnlyHint" not in after else repr(after["readOnlyHint"]).lower()
        yield f"readOnlyHint true → {now}"
    for hint in SAFETY_HINTS:  # read with the spec's defaults: dropping `destructiveHint: false` turns it on
        if effective_hints(new)[hint][0] and not effective_hints(old)[hint][0]:
            yield f"{hint} turned on" + ("" if hint in after else " (dropped: true by MCP's default)")


def is_read_only(raw: Any) -> bool:
    return _dict(_dict(raw).get("annotations")).get("readOnlyHint") is True


# ---------------------------------------------------------------------------------------------- items
def _delta(old: Entry | None, new: Entry | None) -> dict[str, int]:
    names = set(old.tokens if old else {}) | set(new.tokens if new else {})
    return {n: (new.tokens.get(n, 0) if new else 0) - (old.tokens.get(n, 0) if old else 0) for n in sorted(names)}


def _changed(old: Entry, new: Entry) -> Iterator[Change]:
    a, b = old.definition, new.definition
    explained: set[str] = set()
    breaking = [*_input_breaks(_dict(a).get("inputSchema"), _dict(b).get("inputSchema"))]
    explained |= {"inputSchema"} if breaking else set()
    out_breaks = list(_output_breaks(_dict(a).get("outputSchema"), _dict(b).get("outputSchema")))
    explained |= {"outputSchema"} if out_breaks else set()
    arg_breaks = list(_argument_breaks(_dict(a).get("arguments"), _dict(b).get("arguments")))
    explained |= {"arguments"} if arg_breaks else set()
    breaking += out_breaks + arg_breaks
    flips = list(_annotation_flips(a, b))
    explained |= {"annotations"} if flips else set()
    flagged = new_flags(_texts(a), _texts(b))
    explained |= {"description", "title", "frontmatter"} if flagged else set()
    safety = flips + [f"now says: {f}" for f in flagged]
    if new.kind == "skill" and _dict(b).get("resources") == "dynamic" != _dict(a).get("resources"):
        explained.add("resources")
        safety.append('resources now "dynamic": its content can change at run time, unverified')
    members = set(_dict(a)) | set(_dict(b))
    other = sorted(k for k in members if _dict(a).get(k) != _dict(b).get(k) and k not in explained)
    tokens = _delta(old, new)
    if breaking:
        yield Change(new.kind, new.key, "breaking", breaking, a, b, tokens)
    if safety:
        yield Change(new.kind, new.key, "safety", safety, a, b, tokens, flips_annotation=bool(flips))
    if other or not (breaking or safety):
        yield Change(new.kind, new.key, "behaviour", [f"{', '.join(other) or 'definition'} changed"], a, b, tokens)


def _renames(gone: list[Entry], added: list[Entry]) -> Iterator[tuple[Entry, Entry]]:
    """Pairs (old, new) whose definitions are equal but for the name (or URI)."""

    def body(e: Entry) -> str:
        rest = {k: v for k, v in _dict(e.definition).items() if k not in (IDENT[e.kind], "name", "title")}
        return definition_sha256(rest)

    spare = {body(e): e for e in added}
    for old in gone:
        new = spare.pop(body(old), None)
        if new is not None:
            yield old, new


def _grouped(entries: list[Entry]) -> dict[str, list[Entry]]:
    """Entries by key, each key's copies in pinned order: a server may list one name more than once."""
    out: dict[str, list[Entry]] = {}
    for e in entries:
        out.setdefault(e.key, []).append(e)
    return out


def _without(entries: list[Entry], common: Counter[str]) -> list[Entry]:
    """`entries` less one copy per hash counted in `common`, in order."""
    left, out = Counter(common), []
    for e in entries:
        if left[e.sha256]:
            left[e.sha256] -= 1
        else:
            out.append(e)
    return out


def _copies(olds: list[Entry], news: list[Entry]) -> Iterator[Change]:
    """The changes under a key pinned on both sides, by full content: the copies are compared as a multiset, so a
    key listed twice cannot hide an edit of one copy behind the other. What is left either side after the equal
    copies is paired in order; a copy left over was removed, or added beside the pinned one."""
    common = Counter(e.sha256 for e in olds) & Counter(e.sha256 for e in news)
    was, now = _without(olds, common), _without(news, common)
    for a, b in zip(was, now, strict=False):
        yield from _changed(a, b)
    count = f"copies: {len(olds)} pinned, {len(news)} now"
    for e in was[len(now) :]:
        yield Change(e.kind, e.key, "breaking", [f"a copy removed ({count})"], e.definition, None, _delta(e, None))
    for e in now[len(was) :]:
        added = "safety" if e.kind == "tool" and not is_read_only(e.definition) else "behaviour"
        reason = f"another definition listed under the same {IDENT[e.kind]} ({count})"
        yield Change(e.kind, e.key, added, [reason], olds[0].definition, e.definition, _delta(None, e))


def _items(old: Lock, new: Lock) -> Iterator[Change]:
    for kind in IDENT:
        before = _grouped(old.items.get(kind, []))
        after = _grouped(new.items.get(kind, []))
        gone = [e for k in sorted(set(before) - set(after)) for e in before[k]]
        added = [e for k in sorted(set(after) - set(before)) for e in after[k]]
        for was, now in _renames(gone, added):
            gone.remove(was)
            added.remove(now)
            renamed = [f"renamed from {was.key!r}"]
            yield Change(kind, now.key, "breaking", renamed, was.definition, now.definition, _delta(was, now))
        for e in gone:
            yield Change(kind, e.key, "breaking", [f"{kind} removed"], e.definition, None, _delta(e, None))
        for e in added:
            if kind == "tool" and not is_read_only(e.definition):
                yield Change(
                    kind, e.key, "safety", ["new tool, not marked read-only"], None, e.definition, _delta(None, e)
                )
            else:
                yield Change(kind, e.key, "behaviour", [f"{kind} added"], None, e.definition, _delta(None, e))
        for key in sorted(set(before) & set(after)):
            yield from _copies(before[key], after[key])


def _instructions(old: Lock, new: Lock) -> Iterator[Change]:
    if old.instructions == new.instructions:
        return
    flagged = new_flags(old.instructions, new.instructions)
    if flagged:
        yield Change(
            "server", "instructions", "safety", [f"now says: {f}" for f in flagged], old.instructions, new.instructions
        )
    else:
        yield Change(
            "server", "instructions", "behaviour", ["instructions changed"], old.instructions, new.instructions
        )


def _cost(old: Lock, new: Lock, budget: TokenBudget, totals: dict[str, dict[str, int]]) -> Iterator[Change]:
    enc = budget.encoding
    for e in new.items.get("tool", []):
        cost = e.tokens.get(enc)
        if budget.max_tool_tokens is not None and cost is not None and cost > budget.max_tool_tokens:
            was = next((o.tokens.get(enc) for o in old.items.get("tool", []) if o.key == e.key), None)
            if was != cost:
                yield Change(
                    "tool",
                    e.key,
                    "cost",
                    [f"{cost} {enc} tokens, over max_tool_tokens {budget.max_tool_tokens}"],
                    None,
                    None,
                    {enc: cost - (was or 0)},
                    over_budget=True,
                )
    if not any(t["delta"] for t in totals.values()):
        return
    row = totals.get(enc, {"old": 0, "new": 0, "delta": 0})
    reasons = [", ".join(f"{n} {t['old']} → {t['new']} ({t['delta']:+d})" for n, t in totals.items())]
    over = False
    if budget.max_tools_list_tokens is not None and row["new"] > budget.max_tools_list_tokens:
        reasons.append(f"over max_tools_list_tokens {budget.max_tools_list_tokens} ({enc})")
        over = True
    growth = 100.0 * row["delta"] / row["old"] if row["old"] else 0.0
    if budget.max_token_growth_percent is not None and row["old"] and growth > budget.max_token_growth_percent:
        reasons.append(f"grew {growth:.1f}%, over max_token_growth_percent {budget.max_token_growth_percent:g}")
        over = True
    deltas = {n: t["delta"] for n, t in totals.items()}
    yield Change("server", "tools total", "cost", reasons, None, None, deltas, over_budget=over)


def diff(old: Lock, new: Lock, budget: TokenBudget | None = None, approvals: Iterable[Approval] | None = None) -> Diff:
    """Every change from `old` to `new`, classed; `approvals` mark the changes they approve. A lock's own approvals
    are not applied here: the caller says which count (a change never approves itself, see `cli.diff`)."""
    names = [n for n in new.encodings if n in old.encodings] or new.encodings
    totals = {}
    for n in names:
        was, now = old.totals.get("tool", {}).get(n, 0), new.totals.get("tool", {}).get(n, 0)
        totals[n] = {"old": was, "new": now, "delta": now - was}
    changes = [*_items(old, new), *_instructions(old, new), *_cost(old, new, budget or TokenBudget(), totals)]
    changes.sort(key=lambda c: (CLASSES.index(c.change_class), c.kind, c.key))  # worst class first
    versions = (old.server.get("version"), new.server.get("version"))
    result = Diff(old.source or old.label, new.source or new.label, changes, totals, versions, old.approvals)
    result.approve(approvals or [])
    return result
