"""Review -> text, one module per format. Nothing here talks to a server."""

from __future__ import annotations

from collections.abc import Callable, Iterable

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


def render_chunks(review: Review, fmt: str) -> Iterable[str]:
    """The same text as `render`, in blocks: the JSON review is streamed, never held whole."""
    if fmt == "json":
        from inspector.report import json as json_report

        return json_report.chunks(review)
    return [render(review, fmt)]
