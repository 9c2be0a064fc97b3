"""Review -> text, one module per format, each format one `Format` record in `FORMATS`. Nothing here talks to a
server.

`FORMATS` is the one list of the review's formats: `check --format` takes its names, `check --out`, the app's export
dialog and the GitHub Action name files with its suffixes and write them with `formats.write` (which gives each what
its record asks for: SARIF the server's repository, the short review its complete one beside it), and the tests
walk it. A new format is a module here and a record there. The other families of reports, a diff's and a fleet's,
are records of the same kind (`report.formats`).
"""

from __future__ import annotations

from collections.abc import Iterable

from mcp_review.report.formats import Format, family
from mcp_review.review import Review

FULL: Format[Review] = Format("md-full", "full.md", "every finding with its evidence", "report.markdown:render")
FORMATS: dict[str, Format[Review]] = family(
    Format(
        "md", "md", "the short review, grouped, sized for a PR comment", "report.markdown_short:render", beside=FULL
    ),
    FULL,
    Format("json", "json", "the whole review as data (README: The JSON review)", "report.json:chunks", streams=True),
    Format(
        "sarif",
        "sarif.json",
        "SARIF 2.1.0: every rule, a result per finding that did not pass, placed in the server's repository",
        "report.sarif:render",
        root=True,
    ),
    Format("junit", "junit.xml", "JUnit XML: a test case per rule and subject", "report.junit:render"),
)


def render(review: Review, fmt: str, full: str | None = None) -> str:
    """`full`, for `md` (the short review): the file the complete review (`md-full`) was written to."""
    return FORMATS[fmt].render(review, full=full)


def render_chunks(review: Review, fmt: str, full: str | None = None) -> Iterable[str]:
    """The same text as `render`, in blocks: the JSON review is streamed, never held whole."""
    return FORMATS[fmt].chunks(review, full=full)
