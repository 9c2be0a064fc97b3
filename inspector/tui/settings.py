"""The app's own settings (the theme, the reviewer's name): $MCP_REVIEW_CONFIG_DIR/settings.json, else
~/.config/mcp-review/settings.json."""

from __future__ import annotations

import functools
import json
import os
import subprocess
from pathlib import Path
from typing import Any

from textual.app import App

from mcp_review.output import write_text
from mcp_review.themes import THEMES


def settings_path() -> Path:
    override = os.environ.get("MCP_REVIEW_CONFIG_DIR")
    if override:
        return Path(override) / "settings.json"
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "mcp-review" / "settings.json"


def load_settings() -> dict[str, Any]:
    try:
        data = json.loads(settings_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_settings(changes: dict[str, Any]) -> None:
    path = settings_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text(path, json.dumps({**load_settings(), **changes}, indent=2))
    except OSError:
        return  # a read-only home must not break the app; the setting is simply not remembered


def keep_theme(app: App[Any]) -> None:
    """The project's themes: the one chosen last (else the first) is used, and every new choice remembered."""
    for theme in THEMES:
        app.register_theme(theme)
    remembered = load_settings().get("theme")
    app.theme = remembered if isinstance(remembered, str) and remembered in app.available_themes else THEMES[0].name
    app.theme_changed_signal.subscribe(app, lambda theme: save_settings({"theme": theme.name}))


def reviewer() -> str:
    """Who decides, as a decision dialog offers it: the name used last, else git's `user.name`, else `$USER`."""
    last = load_settings().get("who")
    if isinstance(last, str) and last.strip():
        return last
    return _git_user() or os.environ.get("USER", "")


@functools.cache
def _git_user() -> str:
    """git's `user.name` (asked once: a subprocess per dialog would stall the keys)."""
    try:
        done = subprocess.run(["git", "config", "user.name"], capture_output=True, text=True, timeout=2, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def remember_reviewer(who: str) -> None:
    if who and who != load_settings().get("who"):
        save_settings({"who": who})
