"""Pinning tool definitions: canonical hashes per tool, so a later silent edit is caught (rug pulls).

The file: {"server": name, "version": v, "tools": {tool name: sha256 of its canonical wire JSON}}.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from inspector.catalog import ServerSnapshot
from inspector.tokens import canonical


def definition_hash(raw: Any) -> str:
    return hashlib.sha256(canonical(raw).encode()).hexdigest()


def pin(snapshot: ServerSnapshot) -> dict[str, Any]:
    return {
        "server": snapshot.server_name,
        "version": snapshot.server_version,
        "tools": {t.name: definition_hash(t.raw) for t in snapshot.tools if t.name},
    }


def load(path: str | Path) -> dict[str, Any] | None:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("tools"), dict):
        raise ValueError(f"{path}: not an mcp-review baseline (no 'tools' object)")
    return data


def save(path: str | Path, snapshot: ServerSnapshot) -> None:
    from inspector.output import write_text

    write_text(path, json.dumps(pin(snapshot), indent=2, sort_keys=True) + "\n")
