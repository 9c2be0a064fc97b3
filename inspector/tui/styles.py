"""Status colours from the app's current theme: one place, so every theme (and high contrast) shows them."""

from __future__ import annotations

from typing import Any

from textual.app import App

STYLES = {  # $name: the theme's colour of that name
    "fail": "bold $error",
    "blocking": "bold $warning",
    "warn": "$warning",
    "note": "$accent",  # a fact recorded, never judged (a deprecated feature in use)
    "pass": "$success",
    "waived": "$warning",  # in a finding's detail: who waived it and why
    "problem": "$error",  # what the server sent is malformed
}


def status_style(app: App[Any], status: str) -> str:
    """The rich style of a status (or "problem") in the current theme; "" for one with no colour."""
    variables = app.theme_variables
    return " ".join(variables[w[1:]] if w.startswith("$") else w for w in STYLES.get(status, "").split())
