"""Review -> text, one module per format. Nothing here talks to a server."""

from __future__ import annotations

from collections.abc import Callable

from inspector.review import Review

FORMATS = ("md", "json", "sarif", "junit")


def render(review: Review, fmt: str) -> str:
    from inspector.report import json as json_report
    from inspector.report import junit, markdown, sarif

    renderers: dict[str, Callable[[Review], str]] = {
        "md": markdown.render,
        "json": json_report.render,
        "sarif": sarif.render,
        "junit": junit.render,
    }
    return renderers[fmt](review)
