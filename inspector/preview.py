"""`mcp-review app TOOL`, headless: read a tool's app, call it with consent, build the policies a host enforces, and
turn what the browser reported back into findings.

Names are the ext-apps spec's (2026-01-26, SEP-1865): a tool's `_meta.ui.resourceUri` (or the deprecated flat
`_meta["ui/resourceUri"]`, or the Apps SDK's `_meta["openai/outputTemplate"]`) names the page; `resources/read`
gives it with `_meta.ui.csp` {connectDomains, resourceDomains, frameDomains, baseUriDomains} (or the Apps SDK's
`openai/widgetCSP` {connect_domains, resource_domains, frame_domains}). The page is found and read as the rule pack
reads it (`mcp_review.apps`: `links`, `take`, `Page.declared`).

The page is served (inspector/preview_server.py) under two policies at once, and the browser enforces both:
- the app's own, built from its declaration as the spec's reference host builds it (examples/basic-host, csp.ts),
  the loosest a host following the spec grants: what it blocks breaks the app in every host;
- a lockdown that allows 127.0.0.1 only: nothing the app names outside it is ever fetched, even when declared.
Each reports its violations to its own address, so a finding says which one blocked a request.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcp_review.apps import Page, links, take
from mcp_review.calls import CallGate, CallRecord, consent_reason
from mcp_review.catalog import take_snapshot
from mcp_review.connection.session import Session

EVENTS_KEPT = 500  # reports kept per preview: a hostile app can flood the bridge


class PreviewError(Exception):
    """Why there is nothing to preview (no such tool, no app, an unreadable page)."""


@dataclass
class App:
    """What the host page shows: the tool, its page and policy, the input and the consented result."""

    tool: dict[str, Any]
    uri: str
    html: str
    declared: dict[str, list[str]]  # kind -> origins, as declared
    arguments: dict[str, Any]
    call: CallRecord | None = None
    no_call: str | None = None  # why no result is sent

    def csp(self, report: str) -> str:
        """The app's own policy as the spec's reference host builds it (ext-apps examples/basic-host, csp.ts): the
        declared lists, with inline code, eval, blob: and data: allowed. That is looser than the spec's default for
        an app that declares nothing, so what it blocks breaks the app in every host."""
        res = " ".join(self.declared.get("resource", []))
        conn = " ".join(self.declared.get("connect", []))
        frame = " ".join(self.declared.get("frame", [])) or "'none'"
        base = " ".join(self.declared.get("base", [])) or "'none'"
        return (
            f"default-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline' 'unsafe-eval' blob: data: {res}; "
            f"style-src 'self' 'unsafe-inline' blob: data: {res}; img-src 'self' data: blob: {res}; "
            f"font-src 'self' data: blob: {res}; media-src 'self' data: blob: {res}; connect-src 'self' {conn}; "
            f"worker-src 'self' blob: {res}; frame-src {frame}; object-src 'none'; base-uri {base}; report-uri {report}"
        )


def lockdown(origin: str, report: str) -> str:
    """The second policy: only `origin` (ours, on 127.0.0.1), whatever the app declares."""
    here = f"{origin} 'unsafe-inline' 'unsafe-eval' data: blob:"
    return f"default-src {here}; base-uri {origin}; form-action 'none'; report-uri {report}"


def app_of(tool: dict[str, Any], page: Page, arguments: dict[str, Any]) -> App:
    """The app `tool` shows, from its page as read, before any call."""
    return App(dict(tool), page.uri, page.html, _declared(page), arguments)


def _declared(page: Page) -> dict[str, list[str]]:
    """kind -> the origins declared, as a header may carry them: an entry with a space, ';', ',' or a quote would add a
    source or a directive of its own, so it is dropped, as the reference host drops it."""
    return {
        kind: kept
        for kind, entries in page.declared().items()
        if (kept := [e for e in entries if e and not any(c in e for c in " ;,'\"\r\n\t")])
    }


async def load(session: Session, tool_name: str, arguments: dict[str, Any], consent: bool) -> App:
    """Read `tool_name`'s app and, with consent (or a read-only tool), call it once for the result to show."""
    snapshot = await take_snapshot(session, kinds=("tool", "resource"))
    tool = snapshot.tool(tool_name)
    if tool is None:
        names = ", ".join(t.key for t in snapshot.tools.items[:20]) or "none"
        raise PreviewError(f"the server lists no tool named {tool_name!r} (tools: {names})")
    named = links(tool)
    if not named:
        raise PreviewError(f"{tool_name!r} names no app (_meta.ui.resourceUri, openai/outputTemplate)")
    uri = named[0].uri
    page = Page(uri, next((r for r in snapshot.resources if r.key == uri), None))
    reply = await session.request("resources/read", {"uri": uri})
    if reply.error is not None:
        raise PreviewError(f"resources/read {uri} gave no page: {str(reply.error)[:200]}")
    take(page, reply.result)
    if page.error is not None:
        raise PreviewError(f"resources/read {uri} gave no page: {page.error}")
    app = app_of(tool.raw, page, arguments)
    app.call = await CallGate.for_reviewer(session).call(tool, arguments, purpose="reviewer", consented=consent)
    if app.call is None:
        reason = consent_reason(tool)
        app.no_call = f"no tool result was sent: {tool_name!r} {reason}, and the reviewer did not consent (--yes)"
    elif app.call.error is not None or app.call.failure:
        app.no_call = f"no tool result was sent: the call failed ({app.call.failure or app.call.error})"
    return app


@dataclass(frozen=True)
class Finding:
    status: str  # fail / warn / info, as the checklist says them
    message: str
    evidence: dict[str, Any] = field(default_factory=dict)
    key: str = ""  # findings of one key are one finding, counted (default: the message)


def _clip(value: Any, n: int = 300) -> str:
    return str(value)[:n]


def csp_finding(policy: str, report: Any) -> Finding:
    """One browser CSP report (`application/csp-report`), by the policy that sent it."""
    body = report.get("csp-report") if isinstance(report, dict) else None
    body = body if isinstance(body, dict) else {}
    blocked, directive = _clip(body.get("blocked-uri")), _clip(body.get("effective-directive") or "", 60)
    evidence = {"policy": policy, "report": {k: _clip(v) for k, v in list(body.items())[:12]}}
    if policy == "app":
        why = "which its own CSP does not allow: it breaks in every host"
        return Finding("fail", f"the app loads {blocked} ({directive}), {why}", evidence)
    if policy == "lockdown":
        said = f"the app reaches {blocked} ({directive}); mcp-review blocked it (its lockdown allows the app's origin)"
        return Finding("info", said, evidence)
    return Finding("warn", f"the {policy} page's policy blocked {blocked} ({directive})", evidence)


BRIDGE = {  # what an app asks of its host, and how a finding says it
    "tools/call": "asked the host to call a tool",
    "resources/read": "asked the host to read a resource",
    "ui/open-link": "asked the host to open a link",
    "ui/message": "asked the host to send a message into the conversation",
    "ui/update-model-context": "asked the host to update what the model reads",
    "ui/request-display-mode": "asked for another display mode",
}


def event_findings(kind: str, data: Any) -> list[Finding]:
    """A report the host page posted: a bridge message from the app, or what the probe in the page saw."""
    msg = data if isinstance(data, dict) else {}
    method = msg.get("method")
    if kind == "bridge" and method in BRIDGE:
        said = f"the app {BRIDGE[method]}: {_clip(msg.get('params'), 200)}"
        return [Finding("info", said, {"message": msg}, key=method)]
    if kind == "bridge" and method == "mcp-review/probe":
        params = msg.get("params")
        params = params if isinstance(params, dict) else {}
        if params.get("kind") in ("console-error", "error"):
            return [Finding("warn", f"console error in the app: {_clip(params.get('text'))}", {"seen by": "probe"})]
    if kind == "foreign":
        return [Finding("warn", "a frame other than the app's sandbox posted to the host page", {"message": msg})]
    return []
