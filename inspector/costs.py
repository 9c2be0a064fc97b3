"""What a snapshot costs in tokens, counted once: the one producer of every cost figure of a listing.

`Costs(snapshot).of(encoding)` is that encoding's `Figures`: each tool's breakdown (the whole definition, then each
field), the whole `tools` array, each prompt, resource, template and skill, the instructions. The first ask counts
them all in one batch (`TokenCounter.counts`: each distinct text once, on the pool; each tool's canonical texts
made once for every encoding); later asks read what it counted, from any thread. Everything that shows or judges a
cost reads it: `list` (`document`), the review's `tokens` (`review_tokens`), the lock (`lock.build`), the budget
rules (`CheckContext.costs`) and the app (`Workspace.costs`, counted off its loop).

No rich here, nor anything a listing does not need: `list --format json` never loads the table (`render`).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from json.encoder import encode_basestring
from typing import TYPE_CHECKING, Any

from mcp_review import __version__, claude
from mcp_review.encodings import ENCODINGS, UnknownEncoding
from mcp_review.skills import body as skill_body
from mcp_review.tokens import (
    DEFAULT_ENCODING,
    ESTIMATES,
    EXACT_CHARS,
    JOINED,
    Count,
    TokenCounter,
    canonical,
    canonical_parts,
    joins,
)

if TYPE_CHECKING:
    from mcp_review.catalog import ServerSnapshot

CANONICAL = "canonical JSON of the wire object (compact separators, sorted keys, UTF-8)"
WRAPPING_NOTE = "Hosts add their own wrapping around tool definitions, so real context cost differs."
_string = encode_basestring  # a JSON string as json.dumps(ensure_ascii=False) writes it (json's C function)
OTHERS = ("prompt", "resource", "template")  # costed as their canonical JSON, tools as `TokenCounter.count_tool`


@dataclass(frozen=True)
class Figures:
    """One encoding's figures of a snapshot, each list in listing order."""

    encoding: str
    tools: list[dict[str, int]]  # each tool's breakdown: {"total": its cost, field: the field's text}
    total: int  # the whole `tools` array as one JSON text (claude: as the host wraps the list)
    items: dict[str, list[int]]  # prompts, resources, templates (`OTHERS`): each one's canonical JSON
    instructions: int  # 0 without instructions
    skills: list[int]  # each skill's frontmatter: what a host keeps in context for every skill
    loaded: list[int | None]  # each skill's SKILL.md once a host loads it (None: not read)


class Costs:
    """The costs of one snapshot, per encoding, each counted once (thread-safe: the app counts in a thread while
    its files thread may build the lock)."""

    def __init__(self, snapshot: ServerSnapshot) -> None:
        self.snapshot = snapshot
        self._figures: dict[str, Figures] = {}
        self._descriptions: dict[str, list[int]] = {}
        self._counting = {name: threading.Lock() for name in ENCODINGS}
        self._making = threading.Lock()
        self._parts: list[tuple[str, dict[str, str] | None]] | None = None
        self._joined: list[tuple[list[str], list[str]] | None] | None = None

    def of(self, encoding: str = DEFAULT_ENCODING) -> Figures:
        """`encoding`'s figures, counted in the caller's thread on the first ask (a second asker waits for them)."""
        with self._lock(encoding):
            if encoding not in self._figures:
                self._figures[encoding] = self._count(TokenCounter(encoding))
            return self._figures[encoding]

    def counted(self, encoding: str = DEFAULT_ENCODING) -> Figures | None:
        """`encoding`'s figures if counted already, without waiting (what the app's views show meanwhile)."""
        return self._figures.get(encoding)

    def descriptions(self, encoding: str = DEFAULT_ENCODING) -> list[int]:
        """Each tool's description as text (registry.description-budget), in listing order: counted on first ask,
        apart from `of` (a listing never needs them)."""
        with self._lock(encoding):
            if encoding not in self._descriptions:
                texts = [tool.description or "" for tool in self.snapshot.tools]
                counts = TokenCounter(encoding).counts(texts)()
                self._descriptions[encoding] = [counts[text] for text in texts]
            return self._descriptions[encoding]

    def _lock(self, encoding: str) -> threading.Lock:
        if encoding not in self._counting:
            raise UnknownEncoding(encoding)
        return self._counting[encoding]

    def parts(self) -> list[tuple[str, dict[str, str] | None]]:
        """Each tool's canonical text and its members' (`canonical_parts`), made once for every encoding."""
        with self._making:
            if self._parts is None:
                self._parts = [canonical_parts(tool) for tool in self.snapshot.tools.raw]
            return self._parts

    def joined(self) -> list[tuple[list[str], list[str]] | None]:
        """Each tool's `joins`, where its whole text is its members' joined (a dict of str keys, not too long
        to count exactly), made once for the `JOINED` encodings: their totals need no text of their own."""
        parts = self.parts()
        with self._making:
            if self._joined is None:
                tools = self.snapshot.tools.raw
                self._joined = [_joins(tool, *texts) for tool, texts in zip(tools, parts, strict=True)]
            return self._joined

    def _count(self, counter: TokenCounter) -> Figures:
        snapshot, parts = self.snapshot, self.parts()
        tools = snapshot.tools.raw
        listing = "[" + ",".join(whole for whole, _ in parts) + "]"  # as json.dumps writes a list
        others = {kind: [canonical(item.raw) for item in snapshot.lists[kind]] for kind in OTHERS}  # type: ignore[index]
        skills = snapshot.skills.skills if snapshot.skills is not None else []
        fronts = [canonical(skill.frontmatter) for skill in skills]
        bodies = [skill_body(skill) for skill in skills]
        instructions = snapshot.instructions or ""
        joined = self.joined() if counter.encoding in JOINED else [None] * len(parts)

        def walk(count: Count) -> Figures:
            return Figures(
                counter.encoding,
                [
                    _breakdown(counter, tool, *texts, joins, count)
                    for tool, texts, joins in zip(tools, parts, joined, strict=True)
                ],
                claude.tools_cost(tools, count) if counter.encoding == "claude" else count(listing),
                {kind: [count(text) for text in texts] for kind, texts in others.items()},
                count(instructions) if instructions else 0,
                [count(text) for text in fronts],
                [None if text is None else count(text) for text in bodies],
            )

        if counter.encoding == "claude":  # its tools' totals count texts inside each tool: a first walk finds them
            return counter.walked(walk)
        texts = [listing, instructions, *fronts, *(b for b in bodies if b is not None)]
        for (whole, members), pieces in zip(parts, joined, strict=True):
            texts += (members or {}).values()
            if pieces is None:
                texts.append(whole)
            else:
                texts += pieces[0]
                texts += pieces[1]
        texts += [text for kind in OTHERS for text in others[kind]]
        return walk(counter.counts(texts)().__getitem__)


def _joins(tool: object, whole: str, members: dict[str, str] | None) -> tuple[list[str], list[str]] | None:
    if members is None or len(whole) > EXACT_CHARS or not all(type(key) is str for key in tool):  # type: ignore[attr-defined]
        return None
    return joins([members[key] for key in sorted(members)])


def _breakdown(
    counter: TokenCounter,
    tool: object,
    whole: str,
    members: dict[str, str] | None,
    joined: tuple[list[str], list[str]] | None,
    count: Count,
) -> dict[str, int]:
    """A tool's breakdown (`TokenCounter.figures`), its total made from its fields' counts where it is `joined`."""
    if joined is None:
        return counter.figures(tool, whole, members, count)
    fields = {key: count(text) for key, text in (members or {}).items()}
    plus, minus = joined
    return {"total": sum(fields.values()) + sum(map(count, plus)) - sum(map(count, minus))} | fields


def review_tokens(snapshot: ServerSnapshot, figures: Figures) -> dict[str, Any]:
    """The review's `tokens`: the encoding, each tool's breakdown (costliest first) and the whole array."""
    tools = [(item.key, tokens) for item, tokens in zip(snapshot.tools, figures.tools, strict=True)]
    tools.sort(key=lambda t: -t[1]["total"])
    return {"encoding": figures.encoding, "tools": [{"name": n, "tokens": t} for n, t in tools], "total": figures.total}


def document(snapshot: ServerSnapshot, figures: Figures) -> dict[str, Any]:
    """The `list --format json` document: every figure labelled with its encoding."""
    tools: list[dict[str, Any]] = [
        {"name": item.name, "tokens": tokens, "problems": item.problems, "wireSeq": item.seq}
        for item, tokens in zip(snapshot.tools, figures.tools, strict=True)
    ]
    tools.sort(key=lambda t: -t["tokens"]["total"])

    def others(kind: str) -> list[dict[str, Any]]:
        listing = snapshot.lists[kind]  # type: ignore[index]
        costs = figures.items[kind]
        return [{"name": i.key, "tokens": n, "problems": i.problems} for i, n in zip(listing, costs, strict=True)]

    return {
        "tool": {"name": "mcp-review", "version": __version__},
        "server": {
            "name": snapshot.server_name,
            "version": snapshot.server_version,
            "info": snapshot.server_info,
        },
        "target": snapshot.target,
        "revision": snapshot.revision,
        "era": snapshot.era,
        "transport": snapshot.target.get("kind"),
        "encoding": figures.encoding,
        "counted": counted(figures.encoding),
        "tools": tools,
        "total": figures.total,
        "instructions": figures.instructions,
        "prompts": others("prompt"),
        "resources": others("resource"),
        "templates": others("template"),
        "listing": {
            listing.spec.key: {
                "declared": listing.declared,
                "count": len(listing),
                "pages": len(listing.seqs),
                "error": listing.error,
                "stopped": listing.stopped,
            }
            for listing in snapshot.lists.values()
        },
        "notes": snapshot.notes,
        **({"skills": _skills(snapshot, figures)} if snapshot.skills is not None else {}),
    }


def document_text(doc: dict[str, Any]) -> str:
    """`json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False)` of a `document`, its tools written by
    `_tools_text`: json writes indented JSON in Python (its C encoder writes compact JSON only), 0.15 s of CPU for
    10,000 tools, most of `list`'s output. A value nested in the top level is dumped and its lines indented one
    level more (JSON text holds no raw line break: a string's is escaped)."""

    def value_text(key: str, value: Any) -> str:
        if key == "tools":
            return _tools_text(value)
        return json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False).replace("\n", "\n  ")

    return "{\n" + ",\n".join(f"  {_string(key)}: {value_text(key, value)}" for key, value in doc.items()) + "\n}"


_ENTRY = ("name", "tokens", "problems", "wireSeq")  # a `document` tool's keys, in order


def _tools_text(tools: list[dict[str, Any]]) -> str:
    """The `tools` array at the document's second level, as json.dumps indents it, each entry of the shape
    `document` makes written from a template (its strings escaped by json's own C function); any other entry
    dumped as json.dumps would (tests/unit/test_costs_text.py holds it to json.dumps on hostile names)."""
    if not tools:
        return "[]"
    lines: dict[str, str] = {}  # a field's count line, up to the number: fields repeat from tool to tool
    entries = []
    for t in tools:
        if not (tuple(t) == _ENTRY and _plain(t)):
            dumped = json.dumps(t, indent=2, ensure_ascii=False, allow_nan=False)
            entries.append("    " + dumped.replace("\n", "\n    "))
            continue
        name, tokens, problems, seq = t["name"], t["tokens"], t["problems"], t["wireSeq"]
        counts = ",\n".join(
            [(lines.get(k) or lines.setdefault(k, f"        {_string(k)}: ")) + str(v) for k, v in tokens.items()]
        )
        said = ",\n        ".join([_string(p) for p in problems])
        entries.append(
            f'    {{\n      "name": {"null" if name is None else _string(name)},\n'
            + (f'      "tokens": {{\n{counts}\n      }},\n' if counts else '      "tokens": {},\n')
            + (f'      "problems": [\n        {said}\n      ],\n' if problems else '      "problems": [],\n')
            + f'      "wireSeq": {seq}\n    }}'
        )
    return "[\n" + ",\n".join(entries) + "\n  ]"


def _plain(entry: dict[str, Any]) -> bool:
    """Whether a tool entry holds only what the template writes: a str or None name, str keys with int counts,
    str problems and an int wire entry (bool is an int in Python, not in JSON)."""
    name, tokens, problems, seq = entry["name"], entry["tokens"], entry["problems"], entry["wireSeq"]
    return (
        (name is None or type(name) is str)
        and type(tokens) is dict
        and all(type(k) is str and type(v) is int for k, v in tokens.items())
        and type(problems) is list
        and all(type(p) is str for p in problems)
        and type(seq) is int
    )


def _skills(snapshot: ServerSnapshot, figures: Figures) -> dict[str, Any]:
    """Each skill's cost: `tokens` its frontmatter (listed in context for every skill, as the lock counts it),
    `loaded` its SKILL.md once a host loads it (None: not read); and how the listing went."""
    catalog = snapshot.skills
    assert catalog is not None
    skills: list[dict[str, Any]] = [
        {
            "uri": s.key,
            "name": s.name,
            "tokens": tokens,
            "loaded": loaded,
            "dynamic": s.dynamic,
            "problems": s.problems,
            "wireSeq": s.seq,
        }
        for s, tokens, loaded in zip(catalog.skills, figures.skills, figures.loaded, strict=True)
    ]
    skills.sort(key=lambda s: -s["tokens"])
    return {"skills": skills, "pages": len(catalog.pages), "error": catalog.error, "stopped": catalog.stopped}


def counted(encoding: str) -> str:
    """How the figures of `encoding` were made: the wire text, or for an estimate the host's wrapping."""
    if encoding in ESTIMATES:
        return f"{ESTIMATES[encoding]()}: tools as the host wraps them, other objects as {CANONICAL}"
    return f"{CANONICAL}; {WRAPPING_NOTE}"
