"""Textual themes for mcp-review: dark, light and high contrast. TCSS uses only $variables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.theme import Theme

TCSS = Path(__file__).with_name("app.tcss")

# One theme a row (`mcp-review-NAME`), one Textual colour role a column: the themes are written, read and
# compared role by role (a contrast problem shows down a column).
PALETTES = """
name      dark  primary  secondary  accent   warning  error    success  background  surface  panel    foreground
dark      yes   #5FA8D3  #8E7DBE    #F2C14E  #F2A541  #E4572E  #76B041  #14171C     #1C2027  #242A33  #E6E6E6
light     no    #1F6FA8  #6B4FA0    #B7791F  #B45309  #B42318  #2F7D32  #FAFAF7     #FFFFFF  #ECEEF1  #1D1F23
contrast  yes   #00FFFF  #FFFF00    #FFFFFF  #FFFF00  #FF3030  #00FF00  #000000     #000000  #101010  #FFFFFF
"""


def _themes(table: str) -> tuple[Theme, ...]:
    header, *rows = (line.split() for line in table.strip().splitlines())
    themes = []
    for row in rows:
        colours: dict[str, Any] = dict(zip(header, row, strict=True))  # Theme keywords, each typed its own way
        name, dark = colours.pop("name"), colours.pop("dark") == "yes"
        themes.append(Theme(name=f"mcp-review-{name}", dark=dark, **colours))
    return tuple(themes)


THEMES = _themes(PALETTES)
