"""Pack `apps`: where the page reaches and what its code does: every origin declared and used, the page safe."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Iterator

from mcp_review.apps import Page
from mcp_review.checks.apps.model import PAGES_READ, read_pages
from mcp_review.checks.apps.page import Facts, Reach, covers, names, read_page
from mcp_review.checks.apps.resources import SOURCE, entry_problem
from mcp_review.checks.apps.safety import posts_to_any, sinks
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule

LISTS = {"connect": "connectDomains", "resource": "resourceDomains", "frame": "frameDomains", "base": "baseUriDomains"}
SHOWN = 8  # quotes per finding


@functools.lru_cache(maxsize=PAGES_READ)
def facts(html: str) -> Facts:
    return read_page(html)


def _undeclared(page: Page) -> Iterator[Reach]:
    declared = page.declared()
    for reach in facts(page.html).reaches:
        if reach.kind in LISTS and not any(covers(entry, reach.origin) for entry in declared.get(reach.kind, [])):
            yield reach


def _broad(entry: str) -> bool:
    """`*` or a bare scheme (`https:`): an entry that declares no origin, only lets every one through."""
    text = entry.strip()
    return text == "*" or (text.endswith(":") and "/" not in text)


PRIVATE = ("document.cookie", "the page's storage")  # what no origin needs, declared or not


def sends(page: Page) -> Iterator[str]:
    """Each time the page sends data out, with what and to which origin, quoted: to an origin its CSP does not
    declare; what the user or the host handed it (cookies, storage, tool data, form input) to an origin only a
    wildcard or a bare scheme lets through; cookies or storage to any origin; data carried in a navigation."""
    declared = page.declared()
    for reach in facts(page.html).reaches:
        if not reach.sends:
            continue
        what = ", ".join(reach.carries)
        carrying = f" with {what}" if what else ""
        if reach.kind == "navigate":
            yield f"navigates to {reach.origin} carrying data{carrying} (no CSP list bounds it): {reach.quote}"
            continue
        allowed = [entry for entry in declared.get(reach.kind, []) if covers(entry, reach.origin)]
        named = [entry for entry in allowed if not _broad(entry)]
        if not allowed:
            yield f"sends data{carrying} to {reach.origin}, which its CSP does not declare: {reach.quote}"
        elif not named and what:
            yield f"sends {what} to {reach.origin}, which its CSP lets through only by {allowed[0]!r}: {reach.quote}"
        elif set(reach.carries) & set(PRIVATE):
            yield f"sends {what} to {reach.origin}: {reach.quote}"


def _joined(lines: list[str]) -> str:
    lines = list(dict.fromkeys(lines))
    more = len(lines) - SHOWN
    return "; ".join(lines[:SHOWN]) + (f"; and {more} more" if more > 0 else "")


@rule(
    "apps.origins-declared",
    concern="apps",
    severity="medium",
    modes=("static", "probe"),
    source=f"{SOURCE}: Host Behavior (CSP enforcement)",
)
async def origins_declared(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Every origin the app page loads from or talks to is declared in its CSP.

    What it checks: static and `resources/read`: the page's HTML (parsed with the standard library's html.parser:
    `script`, `link` stylesheets and preloads, `img`/`source` `src` and `srcset`, media, `iframe`, `base`, CSS
    `url()` and `@import`) and its inline code (a bounded scan of request sites whose URL is a string literal:
    `fetch`, `new WebSocket`, `new EventSource`, an XHR `open`, `sendBeacon`, `import`, `.src =`). Each absolute
    origin must be covered by the CSP list the host enforces for it: resources by `resourceDomains`, requests by
    `connectDomains`, frames by `frameDomains`, `<base>` by `baseUriDomains` (the Apps SDK's snake_case lists too).

    Why: ext-apps 2026-01-26: the host builds the iframe's CSP from these lists and "MUST NOT allow undeclared
    domains", so an undeclared origin breaks the app in every host, and the declared lists are what a reviewer
    reads to know where the app's data can go.

    Spec: ext-apps 2026-01-26 (SEP-1865)

    Known false positives: a URL in a comment or a string that is never requested but sits in a request site's
    shape (`fetch("https://…")` inside a code sample the page displays) fails; the quote shows which. A computed
    URL (`fetch(url)`) is not judged: it names no origin, and the host's CSP blocks what was not declared. Scripts
    loaded from other origins are not read.

    Passes: every origin the page reaches is declared (or it reaches none). Fails: an undeclared origin, quoted
    from the page. n/a: nothing app-like, or no app page could be read.
    """
    pages = await read_pages(ctx, html=True)
    if isinstance(pages, Finding):
        yield pages
        return
    for page in pages:
        subject = page.listed or page.uri
        missing = [
            f"{reach.kind} {reach.origin} is not in {LISTS[reach.kind]}: {reach.quote}" for reach in _undeclared(page)
        ]
        reached = {r.origin for r in facts(page.html).reaches}
        if missing:
            yield ctx.fail(subject, _joined(missing), page.evidence)
        else:
            said = f"all {len(reached)} origin(s) it reaches are declared" if reached else "reaches no other origin"
            yield ctx.passed(subject, said, page.evidence)


@rule(
    "apps.origins-used",
    concern="apps",
    severity="low",
    modes=("static", "probe"),
    source=f"{SOURCE}: UI Resource Format (csp)",
)
async def origins_used(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Every origin an app declares in its CSP is one its page uses.

    What it checks: static and `resources/read`: each well-formed entry of the app's CSP lists must cover an origin
    the page reaches (see `apps.origins-declared`) or at least be named somewhere in the page (its markup or
    code). An entry no part of the page names is unused.

    Why: ext-apps 2026-01-26: the declared lists are the app's reach; an origin declared and never used widens
    where a compromised or updated page may send data, and misleads the reviewer reading the lists.

    Spec: ext-apps 2026-01-26 (SEP-1865)

    Known false positives: a page that builds the host name at run time (`"api." + region + ".example.com"`)
    names no declared host. When the page loads scripts from other origins, an origin only those scripts use
    cannot be seen: that entry is blocking, not a warn.

    Passes: every declared origin is named by the page, or none is declared. Warns: a declared origin the page
    never names. Blocking: a connect or frame origin the page's own code never names while it loads scripts
    mcp-review does not read. n/a: nothing app-like, or no app page could be read.

    To verify when blocking: read the scripts the page loads from other origins and check they use the origin.
    """
    pages = await read_pages(ctx, html=True)
    if isinstance(pages, Finding):
        yield pages
        return
    for page in pages:
        subject = page.listed or page.uri
        reaches = facts(page.html).reaches
        external = sorted({r.origin for r in reaches if r.kind == "resource" and r.quote.startswith("<script")})
        unused: list[str] = []
        unseen: list[str] = []
        count = 0
        for where, kind, entries in page.csp():
            for entry in entries if isinstance(entries, list) else []:
                problem = entry_problem(entry)
                if problem and problem[0] == "fail":
                    continue  # not an origin: apps.csp-origins-only fails it
                count += 1
                if any(covers(entry, r.origin) for r in reaches) or names(page.html, entry):
                    continue
                (unseen if external and kind in ("connect", "frame") else unused).append(f"{where}: {entry}")
        if unseen:
            why = f"declared, never named by the page, maybe used by its scripts from {', '.join(external)}"
            yield ctx.blocking(subject, f"{why} (not read): {_joined(unseen)}", page.evidence)
        elif unused:
            yield ctx.warn(subject, f"declared but never used by the page: {_joined(unused)}", page.evidence)
        else:
            said = f"all {count} declared origin(s) are used" if count else "declares no origin"
            yield ctx.passed(subject, said, page.evidence)


@rule(
    "apps.page-safe", concern="security", severity="high", modes=("static", "probe"), source=f"{SOURCE}: Security Model"
)
async def page_safe(ctx: CheckContext) -> AsyncIterator[Finding]:
    """The app page is judged as an app: scripts are expected; what it does with the user's data is not.

    What it checks: static and `resources/read`: the page's inline code, by a bounded pattern scan
    (`checks/apps/safety.py`, `checks/apps/page.py`): every time it sends data out (a request body, a beacon, data
    appended to a literal URL or to one a name holds, a navigation), with what it sends and to which origin: to an
    origin its CSP does not declare; cookies, storage, tool data or form input to an origin only a wildcard (`*`)
    or a bare scheme lets through; `document.cookie` or storage to any origin; data carried in a navigation
    (`location = "https://…?q=" + …`, `window.open`, which no CSP list of the app bounds). And tool data
    (`structuredContent`, `toolOutput`, a result's `content[0].text`) written into `innerHTML`/`outerHTML`/
    `insertAdjacentHTML`/`document.write` or run by `eval`/`new Function`, and `postMessage(..., '*')` at a window
    that is not the host (a nested frame's `contentWindow`, `window.opener`).
    A script element is never a finding: an MCP App is an HTML page with scripts, rendered in a sandbox.

    Why: ext-apps 2026-01-26, Security Model: the host sandboxes the page and enforces its CSP; what remains is
    the page's own handling of data: tool output can carry other people's text, and written into HTML or run as
    code it is script injection inside the app, while a message posted to `'*'` reaches whoever owns that frame.

    Spec: ext-apps 2026-01-26 (SEP-1865)

    Known false positives: the scan reads minified code by patterns; tool data that is sanitised before it reaches
    `innerHTML` (DOMPurify) still fails when the quoted expression names it; the quote shows which. Posting to `'*'`
    at `window.parent` is how the spec's own bridge talks to the host and is not judged, nor is a target held in a
    variable (the SDK's transport): only a target named in the code is.

    Every unsafe act is named with its quote, not only the first (a page that writes tool data into `innerHTML` and
    posts `document.cookie` to another origin gets both).

    Passes: none of these in the page. Fails: one of them shown by the quoted code. Warns: a computed value
    written into HTML or run as code that is named like data (`result`, `data`, `message`), saying what would
    prove it. Blocking: a page with more than 2,000 call sites of one kind (only the first 2,000 are read). n/a:
    nothing app-like, or no app page could be read.

    To verify when blocking: read the page's code past the first 2,000 sites of that kind by hand.
    """
    pages = await read_pages(ctx, html=True)
    if isinstance(pages, Finding):
        yield pages
        return
    for page in pages:
        subject = page.listed or page.uri
        code = facts(page.html).code
        fails = list(sends(page))
        warns: list[str] = []
        cut: list[str] = []
        for hit in [*sinks(code), *posts_to_any(code)]:
            {"fail": fails, "warn": warns, "blocking": cut}[hit.severity].append(
                f"{hit.what}: {hit.quote}".rstrip(": ")
            )
        if fails:
            yield ctx.fail(subject, _joined(fails + warns), page.evidence)
        elif cut:  # what was not read proves nothing: a clean or suspicious start cannot pass
            yield ctx.blocking(subject, _joined(cut + warns), page.evidence)
        elif warns:
            yield ctx.warn(subject, _joined(warns), page.evidence)
        else:
            size = len(code)
            yield ctx.passed(subject, f"{size:,} characters of inline code: nothing unsafe found", page.evidence)
