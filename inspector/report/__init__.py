"""Review -> text, one module per format, each format one `Format` record in `FORMATS`. Nothing here talks to a
server.

`FORMATS` is the one list of report formats: `check --format` takes its names, `check --out` and the app's export
dialog name files with its suffixes, and the tests walk it. A new format is a module here and a record there.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from dataclasses import dataclass

from mcp_review.review import Review


@dataclass(frozen=True)
class Format:
    """One report format.

    `module` (in this package) has `render(review) -> str`, and `chunks(review)` too when the format `streams`
    (written in blocks, never held whole). It is imported when the format is rendered, by name: every command
    builds its parser from this table, and only the format asked for is loaded. `beside`: when this format is
    written to a file, that format is written beside it, and `render` is given its file's name to point to.
    """

    name: str
    suffix: str  # how a file of this format ends, without the first dot: review.sarif.json
    help: str
    module: str
    streams: bool = False
    beside: str | None = None

    def render(self, review: Review, full: str | None = None) -> str:
        """The whole text; `full`, for a format written with another `beside` it: that file's name."""
        renderer = importlib.import_module(f"mcp_review.report.{self.module}")
        return str(renderer.render(review, full) if self.beside else renderer.render(review))

    def chunks(self, review: Review, full: str | None = None) -> Iterable[str]:
        """The same text as `render`, in blocks when the format streams."""
        if self.streams:
            chunks: Iterable[str] = importlib.import_module(f"mcp_review.report.{self.module}").chunks(review)
            return chunks
        return [self.render(review, full)]


FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("md", "md", "the short review, grouped, sized for a PR comment", "markdown_short", beside="md-full"),
        Format("md-full", "full.md", "every finding with its evidence", "markdown"),
        Format("json", "json", "the whole review as data (README: The JSON review)", "json", streams=True),
        Format("sarif", "sarif.json", "SARIF 2.1.0: every rule, a result per finding that did not pass", "sarif"),
        Format("junit", "junit.xml", "JUnit XML: a test case per rule and subject", "junit"),
    )
}


def render(review: Review, fmt: str, full: str | None = None) -> str:
    """`full`, for `md` (the short review): the file the complete review (`md-full`) was written to."""
    return FORMATS[fmt].render(review, full)


def render_chunks(review: Review, fmt: str, full: str | None = None) -> Iterable[str]:
    """The same text as `render`, in blocks: the JSON review is streamed, never held whole."""
    return FORMATS[fmt].chunks(review, full)
