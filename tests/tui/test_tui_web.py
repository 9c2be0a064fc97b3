"""`mcp-review tui --web`: the review app served by textual-serve on 127.0.0.1 behind a secret path, driven in a
real headless Chromium (tests/browser.py: Debian's package, which scripts/test-deps installs).

Each test runs the real command in a process of its own against a fixture server over stdio (started by plain
`python`, not the fork server, so the server under review is a descendant of the command: its end is seen).
"""

from __future__ import annotations

import asyncio
import os
import re
import select
import signal
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import aiohttp
import pytest

from mcp_review.connection import procs
from tests.browser import browser
from tests.pace import Patience
from tests.support import PYTHON, ROOT, SERVERS

pytestmark = pytest.mark.slow  # Chromium and the app: ~20 s on the 2-core machine under load

GOOD = [PYTHON, str(SERVERS / "good.py")]
START = 20.0  # reference seconds for the command to print its address
STOP = 30.0  # reference seconds for Ctrl+C to end the apps, their servers and the command


def living(pids: set[int]) -> set[int]:
    """The processes among `pids` that are not zombies (state Z in /proc/PID/stat)."""
    alive = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z":
            alive.add(pid)
    return alive


def serve(*argv: str, browser: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], str]:
    """`mcp-review ARGV --web` in its own process, and the address it printed; `--no-browser` unless `browser`
    (the environment that says which browser to open)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(browser or {})}
    cmd = [PYTHON, "-m", "mcp_review", *argv, "--web", *([] if browser else ["--no-browser"]), "--", *GOOD]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    assert proc.stdout is not None
    patience, said = Patience(START), ""
    while not (found := re.search(r"the review app at (http://\S+)", said)):
        if patience.spent() or proc.poll() is not None:
            proc.kill()
            raise AssertionError(f"no address printed: {said}{proc.stdout.read()}")
        if select.select([proc.stdout], [], [], 0.2)[0]:
            said += proc.stdout.readline()
    return proc, found.group(1)


def interrupt(proc: subprocess.Popen[str]) -> str:
    """Ctrl+C to the command: what it printed until it ended (bounded at the machine's pace)."""
    proc.send_signal(signal.SIGINT)
    patience = Patience(STOP)
    while proc.poll() is None:
        if patience.spent():
            procs.kill_tree(proc.pid, None)
            raise AssertionError("Ctrl+C did not end mcp-review tui --web")
        select.select([], [], [], 0.1)
    assert proc.stdout is not None
    return proc.stdout.read()


DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # 127.0.0.1 itself, whatever *_proxy says


async def until(page, expression: str, seconds: float = 20.0):
    """The value of `expression` in the page once it has one."""
    patience = Patience(seconds)
    while not (value := await page.evaluate(expression)):
        assert not patience.spent(), f"{expression}: nothing within {patience}"
        await asyncio.sleep(0.2)
    return value


def status(url: str) -> int:
    try:
        with DIRECT.open(url) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


async def test_the_app_in_chromium_reads_keys_and_ctrl_c_ends_it_and_the_server(tmp_path):
    async with browser() as page:  # first: a Chromium that cannot run here skips before anything starts
        proc, url = serve("tui")
        try:
            await page.send("Page.navigate", url=url)
            await page.wait_for("good-server 1.2.0 · 2026-07-28 (modern era) · stdio · 4 tools")
            await page.evaluate("window.__terminal.focus()")  # what a click on the page does
            await page.type("2")
            await page.wait_for("filter by name, description, argument")  # the Tools tab
            await page.type("/delete")
            shown = await page.wait_for("1 of 4")
            assert "notes_delete" in shown and "notes_save" not in shown
            await page.evaluate("window.open = (u) => { window.__opened = u; }")  # where the page opens a delivery
            # ctrl+p from the filter itself: an Escape sent just before it reached the app in the same read on a
            # loaded machine, and ESC then ^P reads as alt+ctrl+p (a terminal's meta prefix), not the palette
            await page.press("ctrl+p")
            await page.wait_for("Search for commands")
            await page.type("screenshot")
            await page.wait_for("Save an SVG")
            await page.press("enter")  # Textual delivers the SVG to the browser, at /download/<key> of the origin
            delivered = await until(page, "window.__opened || null")
            with DIRECT.open(delivered) as r:
                assert r.headers["Content-Type"].startswith("image/svg+xml") and b"notes_delete" in r.read()
                assert r.headers["Content-Security-Policy"].endswith("sandbox")  # the server's text in it runs nothing
            assert status(delivered) == 403, "a delivery's key opens it once, while it is delivered"
            png = await page.screenshot(tmp_path / "web.png")
            assert png.startswith(b"\x89PNG") and len(png) > 10_000  # a picture of the app, not a blank page
            assert page.requested() and all(u.replace("ws://", "http://").startswith(url) for u in page.requested())
            running = procs.tree(proc.pid) - {proc.pid}
            commands = [Path(f"/proc/{p}/cmdline").read_bytes() for p in running]
            assert any(b"--served" in c for c in commands), "the app runs under textual-serve"
            assert any(b"good.py" in c and b"mcp_review" not in c for c in commands), "the server under review"
        finally:
            said = interrupt(proc)
    assert proc.returncode == 0, said
    assert not [p for p in running if procs._alive(p)], "the app and the server under review ended with it"


async def test_a_request_without_the_secret_is_refused_and_starts_no_app(tmp_path):
    opened = tmp_path / "opened"  # the browser webbrowser starts (BROWSER): its argv, then the page it was given
    record = tmp_path / "browser"
    record.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {opened}.argv\ncat "${{1#file://}}" > {opened}\n')
    record.chmod(0o700)
    # no command: `mcp-review --web` is the app's
    proc, url = serve(browser={"BROWSER": f"{record} %s", "DISPLAY": ":0", "WAYLAND_DISPLAY": ""})
    try:
        origin, secret = re.fullmatch(r"(http://127\.0\.0\.1:\d+)/([^/]+)/", url).groups()
        patience = Patience(START)
        while not (opened.exists() and opened.read_text()):
            assert not patience.spent(), "no browser was opened"
            await asyncio.sleep(0.1)
        assert secret not in Path(f"{opened}.argv").read_text(), "the secret is in no process's argv (ps)"
        assert f'url={url}"' in opened.read_text(), "the browser is sent on to the address from a file"
        wrong = "x" * len(secret)
        for path in (
            "/",
            "/ws",
            "/static/js/textual.js",
            f"/{wrong}/",
            f"/{wrong}/ws",
            f"/{secret}x/",
            f"/{secret[:-1]}/",
            "/download/" + "0" * 32,  # no delivery of that key
        ):
            assert status(origin + path) == 403, path
        async with aiohttp.ClientSession() as http:
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(f"ws://{origin[7:]}/{wrong}/ws")
            assert refused.value.status == 403
        # the browser opener (BROWSER, a child webbrowser never waits for) stays a zombie until the server ends; an
        # app a refused request started would be alive
        assert living(procs.tree(proc.pid)) == {proc.pid}, "a refused request starts no app"
        with DIRECT.open(url) as r:
            page, policy = r.read().decode(), r.headers["Content-Security-Policy"]
        assert f"{url}static/js/textual.js" in page and "googleapis" not in page
        assert "default-src 'self'" in policy and f"connect-src ws://127.0.0.1:{origin.rsplit(':', 1)[1]}" in policy
    finally:
        interrupt(proc)
    assert proc.returncode == 0
