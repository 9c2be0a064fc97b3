"""Pack `apps`: the app resource itself: it resolves, its CSP lists origins only, its domain is set."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

from mcp_review.apps import APP_MIME, SKYBRIDGE_MIME, Page, links
from mcp_review.checks.apps.model import NOT_APP, app_like, read_pages, unread
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule

SOURCE = "003 Security: MCP Apps (ext-apps spec 2026-01-26)"
BARE_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:$", re.I)


def _mime_ok(mime: str | None, openai: bool) -> bool:
    norm = (mime or "").replace(" ", "").lower()
    return norm == APP_MIME or (openai and norm == SKYBRIDGE_MIME)


@rule(
    "apps.resource-resolves",
    concern="apps",
    severity="high",
    modes=("static", "probe"),
    source=f"{SOURCE}: Resource Discovery",
)
async def resource_resolves(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Every app a tool names resolves: `resources/read` of it answers an HTML page with the app MIME type.

    What it checks: static and `resources/read` (no side effects): for each tool's `_meta.ui.resourceUri` (and the
    deprecated flat `_meta["ui/resourceUri"]`, and the Apps SDK's `openai/outputTemplate`), the URI is read as a
    host reads it; it must answer contents with MIME type `text/html;profile=mcp-app` (`text/html+skybridge` too for
    `openai/outputTemplate`), a `ui://` URI for `_meta.ui.resourceUri`, and the flat key must name the same URI as
    the nested one. Every resource listed as `ui://` or with an app MIME type is read and judged the same way, and
    its `_meta.ui.prefersBorder` must be a boolean. A URI read but never listed passes: the spec lets a server omit
    UI-only resources from `resources/list`.

    Why: ext-apps 2026-01-26, Resource Discovery: "Resource MUST exist on the server", "mimeType MUST be
    text/html;profile=mcp-app", the URI "MUST use the ui:// URI scheme". A dangling resourceUri renders nothing in
    every host; a wrong MIME type is not rendered as an app.

    Spec: ext-apps 2026-01-26 (SEP-1865)

    Known false positives: a server that builds the page per client and answers `resources/read` only after a
    tool call fails; the spec says hosts read it at connection time.

    Passes: every named app resource reads as an app page. Fails: a read error, no contents, a wrong MIME type, a
    non-`ui://` resourceUri, the flat and nested keys naming different URIs, a non-boolean prefersBorder.
    Blocking: an app resource beyond the first 20 (not read). n/a: the server declares nothing app-like.

    To verify when blocking: review the app resources past the first 20 by hand, or list fewer.
    """
    found = await app_like(ctx)
    if found is None:
        yield ctx.na(None, NOT_APP)
        return
    for tool in ctx.snapshot.tools:
        named = links(tool)
        if not named:
            continue
        problems = []
        uris = {link.key: link.uri for link in named}
        if len({uris.get("_meta.ui.resourceUri"), uris.get("_meta.ui/resourceUri")} - {None}) > 1:
            problems.append(
                f"_meta.ui.resourceUri and _meta.ui/resourceUri name different URIs: {sorted(uris.values())}"
            )
        for link in named:
            page = found[link.uri]
            if link.key == "_meta.ui.resourceUri" and not link.uri.startswith("ui://"):
                problems.append(f"{link.key} {link.uri!r} is not a ui:// URI")
            problems += [f"{link.key} {link.uri!r}: {why}" for why in _page_problems(page, link.key)]
        seqs = [s for link in named for s in found[link.uri].evidence]
        if any(found[link.uri].seq is None and not found[link.uri].error for link in named):
            yield ctx.blocking(tool, f"its app resource was not read{unread(found)}", seqs)
        elif problems:
            yield ctx.fail(tool, "; ".join(problems), seqs)
        else:
            shown = ", ".join(f"{link.key} {link.uri}" for link in named)
            hidden = [link.uri for link in named if found[link.uri].listed is None]
            note = f" (not listed in resources/list, which the spec allows: {hidden})" if hidden else ""
            yield ctx.passed(tool, f"{shown} reads as an app page{note}", seqs)
    for page in found.values():
        if page.tools or page.seq is None:
            continue
        problems = _page_problems(page, "")
        subject = page.listed or page.uri
        if problems:
            yield ctx.fail(subject, "; ".join(problems), page.evidence)
        else:
            yield ctx.passed(subject, f"reads as an app page ({page.mime})", page.evidence)


def _page_problems(page: Page, key: str) -> list[str]:
    if page.seq is None and not page.error:
        return []  # not read: blocking, said by the caller
    if page.error:
        return [page.error]
    out = []
    if not _mime_ok(page.mime, key == "_meta.openai/outputTemplate" or "openai/widgetCSP" in page.meta):
        out.append(f"resources/read answers MIME type {page.mime!r}, not {APP_MIME!r}")
    border = page.ui.get("prefersBorder")
    if border is not None and not isinstance(border, bool):
        out.append(f"_meta.ui.prefersBorder is {border!r}, not a boolean")
    return out


def entry_problem(entry: object) -> tuple[str, str] | None:
    """("fail"|"warn", why) for one CSP entry that is not a plain origin, else None."""
    if not isinstance(entry, str):
        return "fail", f"{entry!r} is not a string"
    text = entry.strip()
    if text.startswith("'"):
        return "fail", f"{text!r} is a CSP keyword, not an origin"
    if BARE_SCHEME.match(text):
        return "fail", f"{text!r} is a bare scheme: it allows every host"
    if "://" not in text:
        return "fail", f"{text!r} is " + ("a wildcard" if "*" in text else "a bare host, not an origin")
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018  (raises on a malformed port)
    except ValueError:
        return "fail", f"{text!r} is not a URL"
    host = parts.hostname or ""
    if "*" in host.removeprefix("*.") or not host or host == "*":
        return "fail", f"{text!r} is a wildcard"
    if parts.scheme in ("http", "ws"):
        return "fail", f"{text!r} is plain {parts.scheme}: (unencrypted)"
    if parts.scheme not in ("https", "wss"):
        return "fail", f"{text!r} is not a web origin"
    if parts.path not in ("", "/") or parts.query:
        return "warn", f"{text!r} has a path: CSP ignores paths after a redirect, declare the origin"
    return None


@rule(
    "apps.csp-origins-only",
    concern="security",
    severity="medium",
    modes=("static", "probe"),
    source=f"{SOURCE}: UI Resource Format (csp)",
)
async def csp_origins_only(ctx: CheckContext) -> AsyncIterator[Finding]:
    """An app's CSP lists origins only: no `*`, no `'unsafe-inline'` or other keyword, no `http:`, no bare scheme.

    What it checks: static and `resources/read`: every entry of `_meta.ui.csp` (`connectDomains`, `resourceDomains`,
    `frameDomains`, `baseUriDomains`) and of the Apps SDK's `openai/widgetCSP` (`connect_domains`,
    `resource_domains`, `frame_domains`) on each app resource, from its listing and its contents. Each must be
    `https://host[:port]` or `wss://host[:port]`; a leading `*.` subdomain wildcard is allowed, as the spec allows.

    Why: ext-apps 2026-01-26: the CSP fields are "Origins", and the host builds its CSP header from them; `*` or a
    bare `https:` lets the page talk to any host, a keyword like `'unsafe-inline'` injected into a source list
    loosens the policy, and `http:` sends the user's data unencrypted.

    Spec: ext-apps 2026-01-26 (SEP-1865)

    Known false positives: a development build that talks to `http://localhost` fails; ship the production
    origins. An entry with a path only warns.

    Passes: every entry is an origin, or no CSP is declared (hosts then apply the restrictive default). Fails: a
    wildcard, a keyword, a bare scheme or host, plain http/ws, a list that is not a list of strings. Warns: an
    origin with a path. n/a: the server declares nothing app-like, or no app resource could be read.
    """
    read = await read_pages(ctx)
    if isinstance(read, Finding):
        yield read
        return
    for page in read:
        fails: list[str] = []
        warns: list[str] = []
        count = 0
        for where, _kind, entries in page.csp():
            if not isinstance(entries, list):
                fails.append(f"{where} is {type(entries).__name__}, not a list of origins")
                continue
            for entry in entries:
                count += 1
                problem = entry_problem(entry)
                if problem:
                    (fails if problem[0] == "fail" else warns).append(f"{where}: {problem[1]}")
        subject = page.listed or page.uri
        if fails:
            yield ctx.fail(subject, "; ".join(fails + warns), page.evidence)
        elif warns:
            yield ctx.warn(subject, "; ".join(warns), page.evidence)
        elif count:
            yield ctx.passed(subject, f"{count} CSP entr{'y' if count == 1 else 'ies'}, each an origin", page.evidence)
        else:
            yield ctx.passed(subject, "declares no CSP origins: hosts apply the restrictive default", page.evidence)


@rule(
    "apps.domain-set",
    concern="apps",
    severity="medium",
    modes=("static", "probe"),
    source=f"{SOURCE}: UI Resource Format (domain)",
)
async def domain_set(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Each app resource sets its dedicated domain (`_meta.ui.domain`, or the Apps SDK's `openai/widgetDomain`).

    What it checks: static and `resources/read`: the app resource's `_meta.ui.domain` or `openai/widgetDomain`,
    from its listing and its contents, is a non-empty string.

    Why: ext-apps 2026-01-26: without a domain the host renders the app on a per-conversation sandbox origin, so
    an app that needs a stable origin (OAuth callbacks, CORS, API key allowlists) breaks, and ChatGPT's app
    submission asks for `openai/widgetDomain`. The format is host-dependent, so only its presence and type are
    judged.

    Spec: ext-apps 2026-01-26 (SEP-1865)

    Known false positives: an app that needs no stable origin (no external connections) warns though the host's
    default suits it; waive it with that reason.

    Passes: a domain is set. Fails: a domain that is not a non-empty string. Warns: no domain. n/a: nothing
    app-like, or no app resource could be read.
    """
    read = await read_pages(ctx)
    if isinstance(read, Finding):
        yield read
        return
    for page in read:
        subject = page.listed or page.uri
        set_to = {k: v for k, v in (("_meta.ui.domain", page.ui.get("domain")),) if "domain" in page.ui}
        if "openai/widgetDomain" in page.meta:
            set_to["_meta.openai/widgetDomain"] = page.meta["openai/widgetDomain"]
        bad = [f"{k} is {v!r}, not a domain" for k, v in set_to.items() if not (isinstance(v, str) and v.strip())]
        if bad:
            yield ctx.fail(subject, "; ".join(bad), page.evidence)
        elif set_to:
            yield ctx.passed(subject, ", ".join(f"{k} = {v}" for k, v in set_to.items()), page.evidence)
        else:
            why = "no _meta.ui.domain (or openai/widgetDomain): hosts render it on a per-conversation origin"
            yield ctx.warn(subject, why, page.evidence)
