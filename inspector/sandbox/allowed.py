"""What the reviewer allows a server under review: the flags, and the standing allowances of their own config.

    [confine]                   # in the reviewer's own mcp-review.toml (trust.user_config), never a checkout's
    confine = false             # run servers unconfined (as --no-confine)
    observe = true              # observe every server (as --observe)
    allow_net = ["api.github.com"]   # as --allow-net
    allow_read = ["~/datasets"]      # as --allow-read
    allow_write = ["~/scratch"]      # as --allow-write

A `[confine]` table in the repository's review config is refused whatever its trust: what the code under review may
reach is the reviewer's to decide.
"""

from __future__ import annotations

import os
import tomllib
from typing import Any

from mcp_review import trust

KEYS: dict[str, type] = {"confine": bool, "observe": bool, "allow_net": list, "allow_read": list, "allow_write": list}


class AllowanceError(ValueError):
    """A `[confine]` table that does not read: its file and key are named."""


def checked(table: Any, where: str) -> dict[str, Any]:
    """`table` as a `[confine]` table: known keys, each of its type (lists of strings; paths expanded)."""
    if not isinstance(table, dict):
        raise AllowanceError(f"{where}: expected a table")
    out: dict[str, Any] = {}
    for key, value in table.items():
        kind = KEYS.get(key)
        if kind is None:
            raise AllowanceError(f"{where}: unknown key {key!r} (known: {', '.join(KEYS)})")
        if kind is bool:
            if not isinstance(value, bool):
                raise AllowanceError(f"{where}.{key}: expected true or false")
            out[key] = value
            continue
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise AllowanceError(f"{where}.{key}: expected a list of strings")
        paths = key in ("allow_read", "allow_write")
        out[key] = [os.path.abspath(os.path.expanduser(v)) for v in value] if paths else list(value)
    return out


def standing() -> tuple[dict[str, Any], str | None]:
    """The reviewer's standing allowances (their own config's `[confine]`) and that file, or ({}, None)."""
    path = trust.user_config()
    if path is None:
        return {}, None
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return {}, None  # the review config's own loading reports a file that does not read
    return (checked(data["confine"], f"{path}: [confine]"), str(path)) if "confine" in data else ({}, None)
