"""Review -> text, one module per format. Nothing here talks to a server."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from mcp_review.review import Review

FORMATS = ("md", "md-full", "json", "sarif", "junit")


def render(review: Review, fmt: str, full: str | None = None) -> str:
    """`full`, for `md` (the short review): the file the complete review (`md-full`) was written to."""
    from mcp_review.report import json as json_report
    from mcp_review.report import junit, markdown, markdown_short, sarif

    renderers: dict[str, Callable[[Review], str]] = {
        "md": lambda r: markdown_short.render(r, full),
        "md-full": markdown.render,
        "json": json_report.render,
        "sarif": sarif.render,
        "junit": junit.render,
    }
    return renderers[fmt](review)


def render_chunks(review: Review, fmt: str, full: str | None = None) -> Iterable[str]:
    """The same text as `render`, in blocks: the JSON review is streamed, never held whole."""
    if fmt == "json":
        from mcp_review.report import json as json_report

        return json_report.chunks(review)
    return [render(review, fmt, full)]
