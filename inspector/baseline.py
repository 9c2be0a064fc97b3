"""Pinning tool definitions: canonical hashes per tool, so a later silent edit is caught (rug pulls).

The file: {"server": name, "version": v, "tools": {tool name: sha256 of its canonical wire JSON}}. A name the
server lists more than once maps to the sorted list of its copies' hashes instead: keyed by name alone, one copy
would stand for the others and an edit of another copy would go unseen. A file without repeated names is the
same as before, and reads the same.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mcp_review.catalog import Item, ServerSnapshot
from mcp_review.tokens import canonical


def definition_hash(raw: Any) -> str:
    return hashlib.sha256(canonical(raw).encode()).hexdigest()


def hashed(tools: Iterable[Item]) -> list[tuple[str | None, str]]:
    """(name, definition hash) of every tool in listing order, repeated names and nameless tools included."""
    return [(tool.name, definition_hash(tool.raw)) for tool in tools]


def definitions(listed: Iterable[tuple[str | None, str]]) -> dict[str, Counter[str]]:
    """Each tool name's definitions (from `hashed`) as a multiset of hashes: every copy of a repeated name counts,
    in any order."""
    out: dict[str, Counter[str]] = {}
    for name, digest in listed:
        if name:
            out.setdefault(name, Counter())[digest] += 1
    return out


def pinned_definitions(data: dict[str, Any]) -> dict[str, Counter[str]]:
    """The `tools` of a baseline file as `definitions` gives them (a hash, or a list of hashes, per name)."""
    out: dict[str, Counter[str]] = {}
    for name, value in data.get("tools", {}).items():
        hashes = value if isinstance(value, list) else [value]
        out[str(name)] = Counter(h for h in hashes if isinstance(h, str))
    return out


def pin(snapshot: ServerSnapshot) -> dict[str, Any]:
    tools = {
        name: next(iter(copies)) if copies.total() == 1 else sorted(copies.elements())
        for name, copies in definitions(hashed(snapshot.tools)).items()
    }
    return {"server": snapshot.server_name, "version": snapshot.server_version, "tools": tools}


def load(path: str | Path) -> dict[str, Any] | None:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("tools"), dict):
        raise ValueError(f"{path}: not an mcp-review baseline (no 'tools' object)")
    return data


def save(path: str | Path, snapshot: ServerSnapshot) -> None:
    from mcp_review.output import write_text

    write_text(path, json.dumps(pin(snapshot), indent=2, sort_keys=True, allow_nan=False) + "\n")
