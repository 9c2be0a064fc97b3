"""Textual themes for mcp-review: dark, light and high contrast. TCSS uses only $variables."""

from __future__ import annotations

from pathlib import Path

from textual.theme import Theme

TCSS = Path(__file__).with_name("app.tcss")

DARK = Theme(
    name="mcp-review-dark",
    primary="#5FA8D3",
    secondary="#8E7DBE",
    accent="#F2C14E",
    warning="#F2A541",
    error="#E4572E",
    success="#76B041",
    background="#14171C",
    surface="#1C2027",
    panel="#242A33",
    foreground="#E6E6E6",
    dark=True,
)
LIGHT = Theme(
    name="mcp-review-light",
    primary="#1F6FA8",
    secondary="#6B4FA0",
    accent="#B7791F",
    warning="#B45309",
    error="#B42318",
    success="#2F7D32",
    background="#FAFAF7",
    surface="#FFFFFF",
    panel="#ECEEF1",
    foreground="#1D1F23",
    dark=False,
)
CONTRAST = Theme(
    name="mcp-review-contrast",
    primary="#00FFFF",
    secondary="#FFFF00",
    accent="#FFFFFF",
    warning="#FFFF00",
    error="#FF3030",
    success="#00FF00",
    background="#000000",
    surface="#000000",
    panel="#101010",
    foreground="#FFFFFF",
    dark=True,
)
THEMES = (DARK, LIGHT, CONTRAST)
