"""`mcp-review.lock`: the server's surface pinned beside its code, so a change to what the model sees shows.

The file is JSON (indented, keys sorted, items sorted by kind then key, so a re-pin of an unchanged server
writes the same bytes and a changed one diffs line by line in a PR):

    {"lock": 1, "generator": "mcp-review X",
     "server": {"name", "version", "revision"}, "instructions": {"text", "sha256"},
     "encodings": [...], "totals": {kind: {encoding: tokens}},
     "items": {"tool": [{"key", "sha256", "tokens": {encoding: n}, "definition": {wire JSON}}], "prompt": [...],
               "resource": [...], "template": [...], "skill": [...]},
     "approvals": [{"kind", "key", "class", "by", "note", "sha256"}]}

A name (or URI) the server lists more than once keeps an entry per copy, in listing order; `mcp-review diff`
compares them as a multiset. Each definition's hash is the SHA-256 of its RFC 8785 (JCS) canonical form,
annotations and `_meta` included: the whole wire object as sent. A tool's cost is its definition's tokens; the
totals are the whole `tools` array (as `list` counts it) and the sum of each other kind, per encoding.

Skills (SEP-2640) are pinned only for a server that declares the skills extension, so the lock of any other server
is the same bytes as before, and a lock written before skills were pinned still loads: each `skill` entry is keyed
by its SKILL.md URI, its definition is the `skills/list` entry (frontmatter and the manifest's digests, so an edit
of any file shows), and its cost is the frontmatter's tokens (what a host keeps in context for every skill).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mcp_review import __version__
from mcp_review.binding import definition_sha256  # one hash for the lock and for decisions (binding.py)
from mcp_review.catalog import Kind, ServerSnapshot
from mcp_review.costs import Costs, Figures
from mcp_review.encodings import ENCODINGS

LOCK_NAME = "mcp-review.lock"
LOCK_FORMAT = 1
KINDS: tuple[Kind, ...] = ("tool", "prompt", "resource", "template")
SKILL = "skill"  # pinned only when the server declares skills


class LockError(ValueError):
    """The file is not an mcp-review lock (or not one this version reads)."""


@dataclass
class Approval:
    """A reviewer's acceptance of one change (kept in the lock the approval was pinned with, and in reviews)."""

    kind: str
    key: str
    change_class: str
    by: str
    note: str = ""
    sha256: str = ""  # the approved definition's hash: an approval does not carry over to a later edit

    def to_json(self) -> dict[str, str]:
        out = asdict(self)
        out["class"] = out.pop("change_class")  # `class` in the file, as in the diff's changes
        return out

    @classmethod
    def from_json(cls, data: Any) -> Approval:
        if not isinstance(data, dict) or not all(isinstance(data.get(k), str) for k in ("kind", "key", "class", "by")):
            raise LockError("an approval needs kind, key, class and by (strings)")
        note, sha = data.get("note", ""), data.get("sha256", "")
        return cls(data["kind"], data["key"], data["class"], data["by"], str(note), str(sha))


@dataclass
class Entry:
    kind: str
    key: str
    sha256: str
    tokens: dict[str, int]
    definition: Any

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "sha256": self.sha256, "tokens": self.tokens, "definition": self.definition}


@dataclass
class Lock:
    server: dict[str, Any]
    instructions: str | None
    encodings: list[str]
    items: dict[str, list[Entry]]
    totals: dict[str, dict[str, int]]
    approvals: list[Approval] = field(default_factory=list)
    source: str | None = None  # the file it was read from

    @property
    def kinds(self) -> tuple[str, ...]:
        return (*KINDS, SKILL) if SKILL in self.items else KINDS

    def entries(self) -> list[Entry]:
        return [e for kind in self.kinds for e in self.items.get(kind, [])]

    @property
    def label(self) -> str:
        version = self.server.get("version")
        return f"{self.server.get('name')} {version}" if version else str(self.server.get("name"))

    def to_json(self) -> dict[str, Any]:
        text = self.instructions
        return {
            "lock": LOCK_FORMAT,
            "generator": f"mcp-review {__version__}",
            "server": self.server,
            "instructions": {"text": text, "sha256": definition_sha256(text)} if text is not None else None,
            "encodings": self.encodings,
            "totals": self.totals,
            "items": {kind: [e.to_json() for e in self.items.get(kind, [])] for kind in self.kinds},
            "approvals": [a.to_json() for a in self.approvals],
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"


def build(
    snapshot: ServerSnapshot,
    encodings: tuple[str, ...] = ENCODINGS,
    approvals: list[Approval] | None = None,
    costs: Costs | None = None,
) -> Lock:
    """The lock of a live snapshot: every item as sent, hashed, with its cost in each encoding as `costs` counted
    it (the snapshot's, when the caller holds them: a check, the app)."""
    figures = [(costs or Costs(snapshot)).of(name) for name in encodings]
    items: dict[str, list[Entry]] = {}
    totals: dict[str, dict[str, int]] = {}
    for kind in KINDS:
        listing = snapshot.lists[kind]

        def cost(f: Figures, i: int, kind: str = kind) -> int:
            return f.tools[i]["total"] if kind == "tool" else f.items[kind][i]

        entries = [
            Entry(kind, item.key, definition_sha256(item.raw), {f.encoding: cost(f, i) for f in figures}, item.raw)
            for i, item in enumerate(listing)
        ]
        entries.sort(key=lambda e: e.key)
        items[kind] = entries
        if kind == "tool":
            totals[kind] = {f.encoding: f.total for f in figures}
        else:
            totals[kind] = {f.encoding: sum(e.tokens[f.encoding] for e in entries) for f in figures}
    if snapshot.skills is not None:
        skills = [
            Entry(SKILL, s.key, definition_sha256(s.raw), {f.encoding: f.skills[i] for f in figures}, s.raw)
            for i, s in enumerate(snapshot.skills.skills)
        ]
        items[SKILL] = sorted(skills, key=lambda e: e.key)
        totals[SKILL] = {f.encoding: sum(e.tokens[f.encoding] for e in skills) for f in figures}
    server = {"name": snapshot.server_name, "version": snapshot.server_version, "revision": snapshot.revision}
    return Lock(server, snapshot.instructions, list(encodings), items, totals, list(approvals or []))


def _table(value: Any) -> dict[str, Any]:
    """A JSON object of the lock file, or an empty one when the file holds something else there."""
    return value if isinstance(value, dict) else {}


def _entry(kind: str, data: Any) -> Entry:
    if not isinstance(data, dict) or not isinstance(data.get("key"), str) or not isinstance(data.get("sha256"), str):
        raise LockError(f"a {kind} entry needs key and sha256")
    counts = {str(k): v for k, v in _table(data.get("tokens")).items() if isinstance(v, int)}
    return Entry(kind, data["key"], data["sha256"], counts, data.get("definition"))


def parse(data: Any, source: str | None = None) -> Lock:
    where = source or "lock"
    if not isinstance(data, dict) or data.get("lock") != LOCK_FORMAT:
        raise LockError(f"{where}: not an mcp-review lock (format {LOCK_FORMAT})")
    server, items_json = _table(data.get("server")), _table(data.get("items"))
    try:
        items: dict[str, list[Entry]] = {kind: [_entry(kind, e) for e in items_json.get(kind) or []] for kind in KINDS}
        if SKILL in items_json:  # a lock pinned before skills were has none, and loads as it did
            items[SKILL] = [_entry(SKILL, e) for e in items_json.get(SKILL) or []]
        approvals = [Approval.from_json(a) for a in data.get("approvals") or []]
    except LockError as e:
        raise LockError(f"{where}: {e}") from None
    instructions = data.get("instructions")
    text = instructions.get("text") if isinstance(instructions, dict) else None
    encodings = [e for e in data.get("encodings") or [] if isinstance(e, str)]
    totals = _table(data.get("totals"))
    return Lock(server, text if isinstance(text, str) else None, encodings, items, totals, approvals, source)


def load(path: str | Path) -> Lock:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LockError(f"{path}: no such lock (write one with `mcp-review pin`)") from None
    except (OSError, ValueError) as e:
        raise LockError(f"{path}: cannot read: {e}") from None
    return parse(data, str(path))


def other_server(pinned: Lock, name: str | None) -> str | None:
    """Why `pinned` is not the lock of the server named `name` (its serverInfo name), or None when it is (or it
    names no server: a lock written by hand). A lock beside one server's code is never compared with, nor written
    over by, another server's surface without the reviewer's word: the diff would be every item."""
    theirs = pinned.server.get("name")
    if not isinstance(theirs, str) or not theirs or theirs == name:
        return None
    version = pinned.server.get("version")
    return f"{pinned.source or LOCK_NAME} pins {theirs}{f' {version}' if version else ''}, not {name}: not compared"


def find_lock(cwd: Path | None = None) -> Path | None:
    """./mcp-review.lock, found where `mcp-review.toml` is looked for (the current directory)."""
    path = (cwd or Path()) / LOCK_NAME  # relative when found here: reviews name it as the reviewer knows it
    return path if path.is_file() else None


def save(path: str | Path, lock: Lock) -> None:
    from mcp_review.output import write_text

    write_text(path, lock.dumps())
