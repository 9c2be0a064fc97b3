"""`mcp-review app TOOL` in headless Chromium (Debian's package, installed by scripts/test-deps): the host page
sandboxes the fixture app (tests/servers/apps.py), speaks the bridge, and reports what the browser saw.

Each test runs the real command, `mcp-review app --headless`, against a real fixture server over stdio: it opens its
page in the Chromium it confines (mcp_review.preview_browser) and prints its JSON report when the page is done. The
audit test makes the app's own origins resolve to a listener on 127.0.0.2 that must never be contacted.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.browser import chromium_or_skip as chromium
from tests.support import fixture_argv
from tests.thirdparty import APPS_BIN, require

SERVE = 20.0  # seconds the command may take; the page is done in about 2


def preview(
    tmp_path: Path, mode: str, *, tool: str = "show_weather", server: list | None = None, yes=False, path: str = ""
) -> dict:
    """Run `mcp-review app --headless` on the `apps` fixture in `mode` (or `server`): the command opens its page in
    the Chromium it confines (mcp_review.preview_browser; `path` goes first on PATH), and reports."""
    chromium()
    cmd = [sys.executable, "-m", "mcp_review", "app", tool, "--headless", "--for", str(SERVE), "--format", "json"]
    cmd += ["--yes"] if yes else []
    env = {**os.environ, "PATH": f"{path}:{os.environ['PATH']}"} if path else None
    out = subprocess.run(
        [*cmd, "--", *(server or fixture_argv("apps", mode))], stdout=subprocess.PIPE, text=True, env=env, check=False
    )
    report = json.loads(out.stdout[out.stdout.index("{") :])
    report["exit"] = out.returncode
    return report


def by_status(report: dict, status: str) -> list[str]:
    return [f["message"] for f in report["findings"] if f["status"] == status]


def test_an_app_whose_own_csp_blocks_its_script_is_reported_with_the_violation(tmp_path):
    report = preview(tmp_path, "undeclared-script")
    fails = [f for f in report["findings"] if f["status"] == "fail"]
    assert [f["message"] for f in fails] == [
        "the app loads https://cdn.elsewhere.example/lib.js (script-src-elem), which its own CSP does not allow: "
        "it breaks in every host"
    ]
    evidence = fails[0]["evidence"]
    assert evidence["policy"] == "app"
    assert "cdn.weather.example" in evidence["report"]["original-policy"]  # the app's declared policy blocked it
    assert report["exit"] != 0


def test_a_well_formed_app_renders_and_receives_the_tool_result_through_the_bridge(tmp_path):
    report = preview(tmp_path, "well-formed")
    bridge = report["bridge"]
    order = ["app:ui/initialize", "app:ui/notifications/initialized", "host:ui/notifications/tool-input"]
    order += ["host:ui/notifications/tool-result"]
    assert [m for m in bridge if m in order] == order
    assert report["rendered"] == "Sunny in Lisbon, 21 C"  # the app wrote the result's summary into its page
    assert by_status(report, "fail") == [] and by_status(report, "warn") == []
    assert report["exit"] == 0


@pytest.mark.thirdparty
@pytest.mark.parametrize(
    ("binary", "tool", "shows"),
    [
        ("mcp-budget-allocator-server", "get-budget-data", "Allocated: $100,000"),
        ("mcp-server-basic-vanillajs", "get-time", "Server Time:"),
    ],
)
def test_the_official_example_apps_render_through_the_bridge_with_no_finding(tmp_path, binary, tool, shows):
    server = [str(require(APPS_BIN / binary)), "--stdio"]
    report = preview(tmp_path, "", tool=tool, server=server, yes=True)  # their tools claim no read-only hint
    assert report["findings"] == []  # under the reference host's CSP, no violation, no error: zero false findings
    order = ["app:ui/initialize", "app:ui/notifications/initialized", "host:ui/notifications/tool-result"]
    assert [m for m in report["bridge"] if m in order] == order
    assert shows in report["rendered"]


class Listener:
    """A TCP listener on 127.0.0.2 (an origin that is not ours): the first bytes of each connection it gets."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.2", 0))
        self.port = self.sock.getsockname()[1]
        self.got: list[bytes] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            conn.settimeout(2)
            try:
                self.got.append(conn.recv(4096))
            except OSError:
                self.got.append(b"")
            conn.close()


def test_an_audit_shows_no_connection_leaving_127_0_0_1(tmp_path):
    outside = Listener()
    # The Chromium on PATH resolves the app's declared origins to the listener (the last --host-resolver-rules
    # wins): only the browser's confinement stands between the app and it. Unconfined, Chromium opens a connection
    # to the origin of a blocked iframe before its CSP check (a TLS hello naming maps.weather.example).
    wrapper = tmp_path / "bin" / "chromium"
    wrapper.parent.mkdir()
    rules = f"MAP *.weather.example 127.0.0.2:{outside.port}, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"
    wrapper.write_text(f'#!/bin/sh\nexec {chromium()} "$@" "--host-resolver-rules={rules}"\n')
    wrapper.chmod(0o755)
    try:
        report = preview(tmp_path, "well-formed", path=str(wrapper.parent))
    finally:
        outside.sock.close()
    assert outside.got == []  # not a connection reached it
    blocked = {f["evidence"]["report"]["blocked-uri"] for f in report["findings"] if f["evidence"].get("policy")}
    assert blocked == {
        "https://cdn.weather.example/app.css",
        "https://cdn.weather.example/logo.png",
        "https://maps.weather.example",
    }
    assert all(f["evidence"]["policy"] == "lockdown" for f in report["findings"] if f["evidence"].get("policy"))
    # the frame's early connection went to the preview's refuser on 127.0.0.1, which said so and refused it
    assert "CONNECT maps.weather.example:443" in report["outside"]
    assert (
        "the app reaches maps.weather.example:443; the preview refused the connection (nothing left 127.0.0.1)"
        in by_status(report, "info")
    )
    assert any(r.startswith("sandbox GET /view") for r in report["requests"])


def serving(*extra: str, env: tuple[str, ...] = ()) -> tuple[subprocess.Popen[str], list[str]]:
    """`mcp-review app show_weather` on the well-formed fixture, serving 30 s: the process and its first lines."""
    cmd = [sys.executable, "-m", "mcp_review", "app", "show_weather", "--for", "30", *extra]
    cmd += [a for e in env for a in ("--env", e)]
    proc = subprocess.Popen([*cmd, "--", *fixture_argv("apps", "well-formed")], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    lines = [proc.stdout.readline()]
    if "--yes" not in extra and env:
        lines.append(proc.stdout.readline())
    return proc, lines


def fetch(url: str) -> tuple[Any, str]:
    with urllib.request.urlopen(url, timeout=10) as reply:
        return reply.headers, reply.read().decode()


@pytest.mark.parametrize("consent", [False, True])
def test_a_tool_that_needs_consent_sends_its_result_only_with_yes(consent):
    proc, lines = serving(*(["--yes"] if consent else []), env=("APPS_WRITES=1",))
    try:
        url = lines[0].split(" at ")[-1].strip()
        _, body = fetch(url + "session.json")
        result = json.loads(body)["result"]
    finally:
        proc.kill()
        proc.wait()
    if consent:
        assert result["structuredContent"] == {"city": "Lisbon", "summary": "Sunny in Lisbon, 21 C"}
    else:
        assert result is None
        assert "no tool result was sent: 'show_weather' " in lines[1] and "did not consent (--yes)" in lines[1]


def test_the_app_is_served_under_its_own_csp_and_the_lockdown_in_a_sandboxed_frame():
    proc, lines = serving()
    try:
        url = lines[0].split(" at ")[-1].strip()
        headers, host = fetch(url)
        sandbox = json.loads(fetch(url + "session.json")[1])["sandboxOrigin"]
        _, proxy = fetch(sandbox + "/proxy.js")
        view_headers, view = fetch(sandbox + "/view")
    finally:
        proc.kill()
        proc.wait()
    assert 'sandbox="allow-scripts allow-same-origin"' in host  # the spec's Sandbox proxy
    assert headers["Content-Security-Policy"].startswith("default-src 'none'; script-src 'self';")
    assert 'view.setAttribute("sandbox", "allow-scripts")' in proxy  # the app: an opaque origin
    own, lock = view_headers.get_all("Content-Security-Policy")
    # the reference host's policy (ext-apps examples/basic-host csp.ts) with the declared origins
    assert "connect-src 'self' https://api.weather.example;" in own and "frame-src https://maps.weather.example;" in own
    assert "script-src 'self' 'unsafe-inline' 'unsafe-eval' blob: data: https://cdn.weather.example;" in own
    assert lock.startswith(f"default-src {sandbox} ")
    assert view.startswith('<!DOCTYPE html><script src="/probe.js"></script>\n<html>')  # standards mode kept
