"""Hostile apps (tests/hostile/apps_server.py) in `mcp-review app`, in headless Chromium: the host page holds.

Each app speaks the bridge properly, then attacks: a flood of bridge requests is counted and bounded; a
navigation of the top frame and a pop-up are stopped by the sandbox; the host page's origin is neither fetched,
read nor posted to from the app's frame without it being blocked and reported.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.integration.test_preview import by_status, preview

SERVER = Path(__file__).resolve().parent / "apps_server.py"


def hostile(tmp_path: Path, mode: str) -> dict:
    return preview(tmp_path, mode, tool="show", server=[sys.executable, str(SERVER), mode])


def test_an_app_that_floods_the_bridge_is_counted_and_bounded(tmp_path):
    report = hostile(tmp_path, "flood")
    asks = [m for m in by_status(report, "info") if m.startswith("the app asked the host to send a message")]
    assert len(asks) == 1  # one finding, counted: the 100,000 requests are not 100,000 findings
    assert asks[0].endswith("more like it)")
    assert "the app flooded the host page: it reported 500 messages, and mcp-review kept those" in by_status(
        report, "warn"
    )
    assert len(report["bridge"]) <= 500 and len(report["requests"]) <= 520


def test_an_app_that_navigates_the_top_frame_is_stopped_by_the_sandbox(tmp_path):
    report = hostile(tmp_path, "top-nav")
    assert not any("/pwned" in r for r in report["requests"])  # neither the top frame nor a pop-up went there
    warns = by_status(report, "warn")
    assert any(w.startswith("console error in the app: top: SecurityError") for w in warns), warns
    assert "console error in the app: popup: null" in warns
    assert "host:ui/notifications/tool-result" in report["bridge"]  # the host page was still there to send it


def test_an_app_that_reaches_for_the_host_pages_origin_is_blocked_and_reported(tmp_path):
    report = hostile(tmp_path, "reach-host")
    host = report["url"].rstrip("/")
    assert [r for r in report["requests"] if r.startswith("host GET /session.json")] == ["host GET /session.json"]
    assert f"the app loads {host}/report (connect-src), which its own CSP does not allow: it breaks in every host" in (
        by_status(report, "fail")
    )
    warns = by_status(report, "warn")
    assert "a frame other than the app's sandbox posted to the host page" in warns
    assert "console error in the app: dom: SecurityError" in warns
    assert not any("forged" in str(f["evidence"]) for f in report["findings"] if f["status"] == "info")


def test_what_an_app_asks_of_its_host_is_reported_and_refused(tmp_path):
    report = hostile(tmp_path, "asks")
    infos = by_status(report, "info")
    assert "the app asked the host to call a tool: {'name': 'delete_everything', 'arguments': {}}" in infos
    assert "the app asked the host to open a link: {'url': 'https://phish.example/login'}" in infos
    assert any(i.startswith("the app asked the host to send a message into the conversation: ") for i in infos)
    assert report["bridge"].count("host:(response)") == 4  # ui/initialize's answer, and an error for each ask
    assert not any("phish" in r for r in report["requests"])
