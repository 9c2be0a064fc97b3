"""The host page of `mcp-review app`: two servers on 127.0.0.1, arranged as the ext-apps spec asks a web host to.

The spec's "Sandbox proxy" (2026-01-26): a web host wraps the app (the View) in a Sandbox of another origin, with
`allow-scripts allow-same-origin`; the Sandbox announces `ui/notifications/sandbox-proxy-ready`, the host answers
`ui/notifications/sandbox-resource-ready`, the Sandbox loads the View under the app's CSP and relays every message
whose method does not start with `ui/notifications/sandbox-`. Here the host page is one port, the Sandbox another
(two ports are two origins); the View is a document the Sandbox's server sends with the CSP as headers (the app's
own and a 127.0.0.1-only lockdown, inspector/preview.py), in an iframe `sandbox="allow-scripts"` (an opaque origin:
it reaches neither the Sandbox nor the host page). The host page speaks the host side of the bridge (host.js) and
posts what the app sent to this server; the browser posts each CSP violation (`report-uri`). Standard library
servers: a preview is one reviewer's browser on loopback, and nothing here needs more.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any

from mcp_review import __version__
from mcp_review.preview import EVENTS_KEPT, App, Finding, csp_finding, event_findings, lockdown
from mcp_review.untrusted import strict_loads

BODY_MAX = 256 * 1024  # bytes of one report read; the rest is refused
LOG_KEPT = 2000  # requests logged
POSTS_READ = 4 * EVENTS_KEPT  # reports read; the browser sends one per CSP violation, however many the app makes
DOCTYPE = re.compile(r"\s*<!doctype[^>]{0,200}>", re.IGNORECASE)


@dataclass
class Observed:
    """What the browser reported, shared by the servers' threads (under `lock`)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    findings: list[Finding] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)  # "host GET /", "sandbox GET /view", ...
    methods: list[tuple[int, str]] = field(default_factory=list)  # (order, "app:" or "host:" + a bridge method)
    reports: int = 0  # the host page's reports (it sends at most EVENTS_KEPT)
    posts: int = 0  # every report, the browser's CSP reports too
    rendered: str | None = None  # the app's text after the result, as the probe saw it
    outside: list[str] = field(default_factory=list)  # what the browser asked the refuser for ("CONNECT host:443")
    counts: dict[str, int] = field(default_factory=dict)  # findings' keys, and how often each came

    def add(self, findings: list[Finding]) -> None:
        for f in findings:
            key = f.key or f.message
            if key not in self.counts and len(self.findings) < EVENTS_KEPT:
                self.findings.append(f)
            self.counts[key] = self.counts.get(key, 0) + 1


def _asset(name: str) -> str:
    return resources.files("mcp_review").joinpath("data/preview", name).read_text(encoding="utf-8")


def with_probe(html: str) -> str:
    """The page with the probe first (it sees the app's first error), after a doctype (so no quirks mode)."""
    doctype = DOCTYPE.match(html)
    end = doctype.end() if doctype else 0
    return html[:end] + '<script src="/probe.js"></script>' + html[end:]


def _refuser(seen: Observed, named: str) -> type[BaseHTTPRequestHandler]:
    """The proxy a launched browser must use for everything but the preview's ports (mcp_review.preview_browser): it
    records what was asked for and refuses it, so the connection ends on 127.0.0.1. A host `named` (the app's page
    and declaration, lower case) is the app's and a finding; any other is the browser's own (its update and sign-in
    services), recorded only."""

    class Refuser(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _refuse(self) -> None:
            asked = f"{self.command} {self.path[:200]}"
            host = (self.path.split("/")[2] if "://" in self.path else self.path)[:200]
            with seen.lock:
                if len(seen.outside) < LOG_KEPT:
                    seen.outside.append(asked)
                if host.rsplit(":", 1)[0].lower() in named:
                    said = f"the app reaches {host}; the preview refused the connection (nothing left 127.0.0.1)"
                    seen.add([Finding("info", said, {"asked": asked}, key=f"outside {host}")])
            self.send_error(403)
            self.close_connection = True

        do_CONNECT = do_GET = do_POST = do_HEAD = do_PUT = do_DELETE = do_OPTIONS = do_PATCH = _refuse

    return Refuser


class Preview:
    """The two servers and the refuser; `start()` binds ephemeral ports, `url` is the page to open, `stop()` ends
    them."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.seen = Observed()
        self.host = ThreadingHTTPServer(("127.0.0.1", 0), self._handler("host"))
        self.sandbox = ThreadingHTTPServer(("127.0.0.1", 0), self._handler("sandbox"))
        self.refuser = ThreadingHTTPServer(("127.0.0.1", 0), _refuser(self.seen, f"{app.html} {app.declared}".lower()))
        self.proxy = f"http://127.0.0.1:{self.refuser.server_address[1]}"
        self.ports = (self.host.server_address[1], self.sandbox.server_address[1])
        self.host_origin = f"http://127.0.0.1:{self.host.server_address[1]}"
        self.sandbox_origin = f"http://127.0.0.1:{self.sandbox.server_address[1]}"
        self.url = self.host_origin + "/"

    def start(self) -> None:
        for server in (self.host, self.sandbox, self.refuser):
            threading.Thread(target=server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        for server in (self.host, self.sandbox, self.refuser):
            server.shutdown()
            server.server_close()

    def wait(self, seconds: float | None) -> None:
        """Serve for `seconds` (None: until interrupted)."""
        end = None if seconds is None else time.monotonic() + seconds
        while end is None or time.monotonic() < end:
            time.sleep(0.1)

    def done(self) -> bool:
        """The page has shown the tool result (or, with none to send, the app has initialized), or it floods."""
        with self.seen.lock:
            if self.seen.rendered is not None or self.seen.reports >= EVENTS_KEPT:
                return True
            sent = self.app.no_call is None
            return not sent and any(m == "app:ui/notifications/initialized" for _, m in self.seen.methods)

    def session(self) -> dict[str, Any]:
        call = self.app.call
        result = call.result if call is not None and self.app.no_call is None else None
        return {
            "sandboxOrigin": self.sandbox_origin,
            "tool": self.app.tool,
            "arguments": self.app.arguments,
            "result": result,
            "hostInfo": {"name": "mcp-review", "version": __version__},
        }

    def page(self, side: str, path: str) -> tuple[str, str, str] | None:
        """(content type, CSP, body) of a page, or None."""
        report = f"{self.host_origin}/csp"
        if side == "host":
            csp = (
                f"default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
                f"frame-src {self.sandbox_origin}; base-uri 'none'; form-action 'none'; report-uri {report}/host"
            )
            pages = {
                "/": ("text/html", _asset("host.html")),
                "/host.js": ("text/javascript", _asset("host.js")),
                "/host.css": ("text/css", _asset("host.css")),
                "/session.json": ("application/json", json.dumps(self.session())),
            }
        else:
            csp = (
                f"default-src 'none'; script-src 'self'; frame-src 'self'; base-uri 'none'; "
                f"form-action 'none'; report-uri {report}/sandbox"
            )
            proxy = _asset("proxy.js").replace("__HOST_ORIGIN__", self.host_origin)
            pages = {
                "/sandbox": ("text/html", _asset("proxy.html")),
                "/proxy.js": ("text/javascript", proxy),
                "/probe.js": ("text/javascript", _asset("probe.js")),
            }
            if path == "/view":
                own, lock = self.app.csp(f"{report}/app"), lockdown(self.sandbox_origin, f"{report}/lockdown")
                return "text/html", f"{own}\n{lock}", with_probe(self.app.html)
        found = pages.get(path)
        return (found[0], csp, found[1]) if found else None

    def received(self, path: str, body: bytes) -> None:
        try:
            data = strict_loads(body.decode("utf-8", "replace"))
        except ValueError:
            return
        seen = self.seen
        with seen.lock:
            seen.posts += 1
            if seen.posts > POSTS_READ:
                return
            if path.startswith("/csp/"):
                seen.add([csp_finding(path[5:], data)])
            elif path == "/report" and isinstance(data, dict):
                seen.reports += 1
                kind, msg = str(data.get("kind")), data.get("data")
                method = msg.get("method") if isinstance(msg, dict) else None
                if kind in ("bridge", "sent") and isinstance(method, str) and len(seen.methods) < EVENTS_KEPT:
                    n: int = data["n"] if isinstance(data.get("n"), int) else EVENTS_KEPT
                    seen.methods.append((n, ("app:" if kind == "bridge" else "host:") + method[:80]))
                params = msg.get("params") if isinstance(msg, dict) else None
                if method == "mcp-review/probe" and isinstance(params, dict) and params.get("kind") == "rendered":
                    seen.rendered = str(params.get("text"))[:2000]
                seen.add(event_findings(kind, msg))

    def _handler(self, side: str) -> type[BaseHTTPRequestHandler]:
        preview = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                with preview.seen.lock:
                    if len(preview.seen.requests) < LOG_KEPT:
                        preview.seen.requests.append(f"{side} {self.command} {self.path[:200]}")

            def do_GET(self) -> None:
                found = preview.page(side, self.path.split("?")[0])
                if found is None:
                    self.send_error(404)
                    return
                kind, csp, body = found
                data = body.encode("utf-8")
                self.send_response(200)
                self.send_header("Content-Type", f"{kind}; charset=utf-8")
                for policy in csp.split("\n"):  # two headers: the browser enforces each
                    self.send_header("Content-Security-Policy", policy)
                self.send_header("Cache-Control", "no-store")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                size = int(self.headers.get("Content-Length") or 0)
                if side != "host" or not 0 < size <= BODY_MAX:
                    self.send_error(413 if size > BODY_MAX else 404)
                    return
                preview.received(self.path, self.rfile.read(size))
                self.send_response(204)
                self.end_headers()

        return Handler

    def _counted(self, f: Finding) -> Finding:
        n = self.seen.counts.get(f.key or f.message, 1)
        return f if n == 1 else Finding(f.status, f"{f.message} (and {n - 1} more like it)", f.evidence, f.key)

    def bridge(self) -> list[str]:
        """The bridge's methods in the order the host page saw them."""
        return [m for _, m in sorted(self.seen.methods)]

    def summary(self) -> list[Finding]:
        """The findings, with what the bridge never did and why no result was sent."""
        seen = self.seen
        with seen.lock:
            out = [self._counted(f) for f in seen.findings]
            methods = set(self.bridge())
            if not any(r.startswith("sandbox GET /view") for r in seen.requests):
                out.append(Finding("info", "the page was never opened: nothing was observed"))
            elif "app:ui/initialize" not in methods:
                out.append(Finding("warn", "the app never sent ui/initialize: a host sends it no input or result"))
            elif "app:ui/notifications/initialized" not in methods:
                why = "a host sends nothing before it (the spec's Sandbox proxy, 6.)"
                out.append(Finding("warn", f"the app never sent ui/notifications/initialized: {why}"))
            if self.app.no_call:
                out.append(Finding("info", self.app.no_call))
            if seen.reports >= EVENTS_KEPT:
                said = f"the app flooded the host page: it reported {EVENTS_KEPT} messages, and mcp-review kept those"
                out.append(Finding("warn", said))
            return out
