"""Copying to the reviewer's clipboard, and saying honestly whether it can get there.

Textual copies through the terminal (OSC 52): the terminal, not the app, puts the text on the clipboard, and the
app never hears whether it did. Some carriers drop it silently: tmux unless `set-clipboard` is `on` (its default,
`external`, ignores what an app inside sends), GNU screen always. `y` said "copied" while nothing arrived; now
the notification says where the text went, or why it cannot arrive and what would make it.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from typing import Any

from textual.app import App


@functools.cache
def blocked() -> str | None:
    """Why the terminal's clipboard will not receive what is copied, or None when nothing known stops it."""
    if os.environ.get("TMUX"):
        tmux = shutil.which("tmux")
        try:  # tmux's own answer (a system tool, asked once): `on` passes OSC 52 on, `external` and `off` do not
            said = subprocess.run(
                [tmux or "tmux", "show-options", "-gv", "set-clipboard"], capture_output=True, text=True, timeout=2
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            said = ""
        if said != "on":
            return "tmux drops it (its set-clipboard is not on: `tmux set -g set-clipboard on` lets it through)"
    elif os.environ.get("STY"):
        return "GNU screen drops it (it does not pass OSC 52 on)"
    return None


def copy_out(app: App[Any], text: str, what: str) -> None:
    """Copy `text` (`what` it is, for the notification) and say whether it can reach the clipboard."""
    app.copy_to_clipboard(text)
    why = blocked()
    if why is None:
        app.notify(f"copied {what} (through the terminal, OSC 52)", markup=False)
    else:
        app.notify(f"cannot reach your clipboard: {why}; {what} was not copied", severity="warning", markup=False)
