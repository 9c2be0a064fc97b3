"""A real headless Chromium driven over the Chrome DevTools Protocol, for the tests of pages mcp-review serves.

The browser is Debian's `chromium` (scripts/test-deps installs it with apt-get): a registry package, where
Playwright's own browser builds come from a download site of their own that this project's machines cannot reach.
The protocol is Chromium's own, spoken here over aiohttp's websocket client (aiohttp comes with textual-serve), so
no driver package and no browser build of a driver's own are needed: a few commands (navigate, evaluate, keys,
screenshot) and the network events, each answer bounded at the machine's pace.

`chromium_or_skip()` is the one line a test that cannot run says: no Chromium, or one that does not start here.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import IO, Any

import aiohttp
import pytest

from mcp_review.preview_browser import QUIET
from tests.pace import Patience
from tests.thirdparty import REQUIRE_ENV

START = 20.0  # reference seconds for Chromium to start and open its DevTools port
ANSWER = 20.0  # reference seconds for one DevTools command to be answered

# Keys as CDP's Input.dispatchKeyEvent wants them: name -> (key, code, windowsVirtualKeyCode, text)
KEYS = {
    "tab": ("Tab", "Tab", 9, "\t"),
    "enter": ("Enter", "Enter", 13, "\r"),
    "escape": ("Escape", "Escape", 27, ""),
    "down": ("ArrowDown", "ArrowDown", 40, ""),
    "up": ("ArrowUp", "ArrowUp", 38, ""),
}

# Before the page's own scripts: keep the xterm.js Terminal textual-serve's page makes (its renderer draws on a
# canvas, so the screen's text is in the terminal's buffer, not in the DOM). The page assigns it to `this.terminal`,
# which a setter on Object.prototype sees once and then steps aside for.
KEEP_TERMINAL = """
Object.defineProperty(Object.prototype, "terminal", {
  configurable: true,
  set(value) {
    window.__terminal = value;
    Object.defineProperty(this, "terminal", {value, writable: true, configurable: true, enumerable: true});
  },
});
"""
SCREEN = """
(() => {
  const t = window.__terminal;
  if (!t) return null;
  const b = t.buffer.active, rows = [];
  for (let y = 0; y < t.rows; y++) rows.push(b.getLine(b.viewportY + y)?.translateToString(true) ?? "");
  return rows.join("\\n");
})()
"""


def chromium_or_skip() -> str:
    """Debian's chromium on PATH, or the test skips (fails under scripts/test) with one line."""
    found = shutil.which("chromium")
    if found is None:
        msg = "chromium is not installed: run scripts/test-deps (as root it installs Debian's package)"
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(msg, pytrace=False)
        pytest.skip(msg)
    return found


class Page:
    """One page of the browser: commands by name, events kept in order."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.next_id = 0
        self.waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.events: list[dict[str, Any]] = []
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for message in self.ws:
            if message.type != aiohttp.WSMsgType.TEXT:
                continue
            data = json.loads(message.data)
            if "id" in data and (future := self.waiting.pop(data["id"], None)) and not future.done():
                future.set_result(data)
            elif "method" in data:
                self.events.append(data)
        for future in self.waiting.values():
            future.set_exception(ConnectionError("the browser closed its DevTools connection"))

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[self.next_id] = future
        await self.ws.send_json({"id": self.next_id, "method": method, "params": params})
        patience = Patience(ANSWER)
        while not future.done():
            if patience.spent():
                raise TimeoutError(f"{method}: no answer from the browser")
            await asyncio.sleep(0.05)
        answer = future.result()
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer.get("result", {})

    async def evaluate(self, expression: str) -> Any:
        result = await self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    async def screen(self) -> str:
        """The text the terminal shows now, row by row ("" before the page has made its terminal)."""
        return await self.evaluate(SCREEN) or ""

    async def wait_for(self, text: str, seconds: float = 30.0) -> str:
        """The screen once it shows `text` (reference seconds at the machine's pace), else AssertionError with it."""
        patience = Patience(seconds)
        while text not in (shown := await self.screen()):
            if patience.spent():
                raise AssertionError(f"{text!r} never showed; the screen:\n{shown}")
            await asyncio.sleep(0.2)
        return shown

    async def type(self, text: str) -> None:
        """Characters typed as keys, one after another."""
        for ch in text:
            await self.send("Input.dispatchKeyEvent", type="keyDown", key=ch, text=ch)
            await self.send("Input.dispatchKeyEvent", type="keyUp", key=ch)

    async def press(self, name: str) -> None:
        """A named key (KEYS), or ctrl+LETTER."""
        if name.startswith("ctrl+"):
            letter = name[5:]
            key, code, vk, text = letter, f"Key{letter.upper()}", ord(letter.upper()), ""
        else:
            key, code, vk, text = KEYS[name]
        down: dict[str, Any] = {"key": key, "code": code, "windowsVirtualKeyCode": vk}
        down |= {"modifiers": 2} if name.startswith("ctrl+") else {}
        await self.send("Input.dispatchKeyEvent", type="keyDown", **down, **({"text": text} if text else {}))
        await self.send("Input.dispatchKeyEvent", type="keyUp", **down)

    async def screenshot(self, path: Path) -> bytes:
        data = base64.b64decode((await self.send("Page.captureScreenshot", format="png"))["data"])
        path.write_bytes(data)
        return data

    def requested(self) -> list[str]:
        """Every URL the page asked for (documents, scripts, styles, fonts, websockets), in order."""
        urls = [e["params"]["request"]["url"] for e in self.events if e["method"] == "Network.requestWillBeSent"]
        return urls + [e["params"]["url"] for e in self.events if e["method"] == "Network.webSocketCreated"]


@contextlib.asynccontextmanager
async def browser(width: int = 1000, height: int = 700) -> AsyncIterator[Page]:
    """A headless Chromium of its own profile (skips the test when it cannot start here), on a blank page with the
    network events on and the page's terminal kept (KEEP_TERMINAL): the page to navigate."""
    binary = chromium_or_skip()
    with (
        tempfile.TemporaryDirectory(prefix="mcp-review-cdp-", ignore_cleanup_errors=True) as profile,
        tempfile.TemporaryFile() as errors,
    ):
        argv = [binary, f"--user-data-dir={profile}", *QUIET, "--headless=new", "--remote-debugging-port=0"]
        argv += [f"--window-size={width},{height}", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]
        argv += ["--no-sandbox"] if os.geteuid() == 0 else []  # Chromium refuses root with its sandbox (CI)
        proc = subprocess.Popen(
            [*argv, "about:blank"], stdout=subprocess.DEVNULL, stderr=errors, start_new_session=True
        )
        try:
            port = await _devtools_port(Path(profile), proc, errors)
            async with aiohttp.ClientSession() as http:
                async with http.get(f"http://127.0.0.1:{port}/json/list") as r:
                    target = next(t for t in await r.json() if t["type"] == "page")
                async with http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                    page = Page(ws)
                    await page.send("Network.enable")
                    await page.send("Page.enable")
                    await page.send("Page.addScriptToEvaluateOnNewDocument", source=KEEP_TERMINAL)
                    yield page
                    page.reader.cancel()
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, 9)
            proc.wait()


async def _devtools_port(profile: Path, proc: subprocess.Popen[bytes], errors: IO[bytes]) -> int:
    """The port Chromium writes into its profile's DevToolsActivePort once it listens; a skip when it exits first
    (a Chromium that cannot run here: no display libraries, a sandbox it cannot make)."""
    patience = Patience(START)
    active = profile / "DevToolsActivePort"
    while not active.exists() or not active.read_text().strip():
        if proc.poll() is not None:
            errors.seek(0)
            tail = errors.read().decode(errors="replace").strip().splitlines()[-1:]
            msg = f"chromium cannot run here (exit {proc.returncode}): {tail[0] if tail else 'no message'}"
            if os.environ.get(REQUIRE_ENV) == "1":
                pytest.fail(msg, pytrace=False)
            pytest.skip(msg)
        if patience.spent():
            raise TimeoutError("chromium did not open its DevTools port")
        await asyncio.sleep(0.1)
    return int(active.read_text().split()[0])
