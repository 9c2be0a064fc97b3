"""The app run as a host runs it: `mcp-review app`'s host page (mcp_review.preview_server) in headless Chromium,
during `mcp-review check --preview`."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from mcp_review import preview_browser
from mcp_review.apps import Page
from mcp_review.catalog import Item
from mcp_review.checks.apps.model import read_pages
from mcp_review.checks.apps.resources import SOURCE
from mcp_review.preview import app_of
from mcp_review.preview_server import Preview
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule

PREVIEWS = 5  # pages run in a browser per review (each takes seconds)
WAIT = 20.0  # seconds one page may take to show its result
FLAG = "--preview"


@rule("apps.preview", concern="apps", severity="medium", modes=("probe", "call"), source=f"{SOURCE}: Sandbox proxy")
async def preview(ctx: CheckContext) -> AsyncIterator[Finding]:
    """The app works in a host's sandbox: run in headless Chromium, nothing it loads is blocked by its own CSP, it
    logs no error, and it shows the tool's result.

    What it checks: with `--preview` (it launches a browser), each app page a tool shows (the first five) is served
    by `mcp-review app`'s host page on 127.0.0.1: the spec's Sandbox proxy, the page in an iframe
    `sandbox="allow-scripts"` under its declared CSP (as the reference host builds it) and a lockdown that allows
    127.0.0.1 only. Headless Chromium, confined to the preview's own ports (every other connection goes to a refuser
    on 127.0.0.1), opens it; the host side of the bridge initializes the app and sends the tool's input and the
    result of the review's sample call (made as `--calls` allows). The findings are what the browser reported:
    CSP violations (`report-uri`), console errors and uncaught exceptions (a probe in the page), the bridge messages
    the app sent.

    Why: ext-apps 2026-01-26: hosts render the page in a sandboxed iframe under its declared CSP; a resource its own
    CSP blocks, or a script that throws, breaks the app in every host, and reading the page's text cannot show it.

    Spec: ext-apps 2026-01-26 (SEP-1865), Sandbox proxy

    Known false positives: an error the app logs on purpose (a retry it recovers from) warns. The reference host's
    CSP is the loosest a host following the spec grants; a stricter host may block more than this finds. Origins
    the app declares are blocked by the lockdown, never loaded: an app that needs them to render may not show its
    result here (a warn).

    Passes: the page rendered the result with no violation of its own CSP and no error; what it asked the host
    (tool calls, links, messages) and the origins it reached (blocked) are said. Fails: a request the app's own CSP
    blocks (the evidence is the browser's CSP report). Warns: a console error or uncaught exception, an app that
    never initialized the bridge or did not show its result within 20 s, a frame other than the app's posting to
    the host page, a flood of messages. Blocking: run without `--preview`, no Chromium installed, the browser never
    opened the page, or no result could be sent (the tool may not be called: what `--calls` would allow it says).
    n/a: no app page a tool shows.

    To verify when blocking: run `mcp-review check --preview` (in the app: `mcp-review --preview`) with Chromium
    installed (scripts/test-deps installs Debian's), with `--calls read-only` or `--calls all` as the tool needs; or
    `mcp-review app TOOL --open` (`b` in the app).
    """
    read = await read_pages(ctx, html=True)
    if isinstance(read, Finding):
        yield read
        return
    shown = [page for page in read if page.tools]
    if not shown:
        yield ctx.na(None, "no tool shows an app page: a host never renders one")
        return
    browser = preview_browser.find() if ctx.options.preview else None
    for page in shown[:PREVIEWS]:
        tool = page.tools[0]
        if not ctx.options.preview:
            yield ctx.blocking(
                tool, f"{page.uri} was not run in a browser: run with {FLAG} (it launches Chromium)", page.evidence
            )
            continue
        if browser is None:
            yield ctx.blocking(
                tool, f"{FLAG} needs Chromium (chromium, google-chrome) on PATH; none was found", page.evidence
            )
            continue
        async for finding in _run(ctx, tool, page, browser):
            yield finding
    if len(shown) > PREVIEWS and ctx.options.preview:
        yield ctx.blocking(None, f"{len(shown) - PREVIEWS} more app page(s) not run (mcp-review runs {PREVIEWS})")


async def _run(ctx: CheckContext, tool: Item, page: Page, browser: str) -> AsyncIterator[Finding]:
    """One page, shown by `tool`, with the review's sample call's result when there is one."""
    what = f"{page.uri} in a browser"
    app = app_of(tool.raw, page, {})
    record = await ctx.sample_call(tool)
    if record is None or record.failure or record.error is not None:
        app.no_call = "no tool result was sent"
    else:
        app.arguments, app.call = record.arguments, record
    host = Preview(app)
    host.start()
    try:
        done = await asyncio.to_thread(
            preview_browser.run_headless, host.url, host.proxy, host.ports, host.done, WAIT, browser
        )
    finally:
        host.stop()
    evidence = [page.seq, record.seq if record else None]
    seen = [f for f in host.summary() if f.message != app.no_call]
    if not any(r.startswith("sandbox GET /view") for r in host.seen.requests):
        yield ctx.blocking(tool, f"{what}: headless Chromium never opened the page; nothing was observed", evidence)
        return
    said = {"fail": ctx.fail, "warn": ctx.warn}
    for f in seen:
        if f.status in said:
            yield said[f.status](tool, f"{page.uri}: {f.message}", evidence)
    if not done and app.no_call is None:
        yield ctx.warn(tool, f"{what}: it did not show the tool's result within {WAIT:g} s", evidence)
    noted = "; ".join(f.message for f in seen if f.status not in said)
    if app.no_call is not None:
        failed = f"the sample call failed ({record.failure or record.error})" if record else "no call was made"
        why = ctx.may_call(tool) or failed
        yield ctx.blocking(
            tool, f"{what}: it loaded, but no tool result was sent: {why}" + (f"; {noted}" if noted else ""), evidence
        )
    elif done and not any(f.status in said for f in seen):
        yield ctx.passed(tool, f"{what}: it showed the tool's result" + (f"; {noted}" if noted else ""), evidence)
