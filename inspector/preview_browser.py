"""The browsers a preview runs in, launched so that no connection leaves the preview's own ports on 127.0.0.1.

A CSP blocks a request, not the connection before it: Chromium opens a TCP and TLS connection to the origin of an
iframe the app names before its CSP refuses the frame (measured: a TLS hello naming the host). So a Chromium the
preview launches (headless for `mcp-review check --preview`, windowed for `mcp-review app --open` and the TUI's
`b`) gets, in a profile of its own:
- `--proxy-server` at the preview's refuser (preview_server.Refuser, on 127.0.0.1): every connection to anything
  but the preview's two ports goes there, is recorded and refused (`--proxy-bypass-list=<-loopback>` drops
  Chromium's implicit bypass of loopback, so another port of 127.0.0.1 is refused too);
- `--host-resolver-rules` mapping every name but 127.0.0.1 to nothing, so no name is looked up;
- `--force-webrtc-ip-handling-policy=disable_non_proxied_udp`: WebRTC (which no CSP governs) only through the proxy;
- no background traffic of its own (sync, component updates, safe-browsing lists, metrics).

Another browser (none of these found) is opened with Python's `webbrowser`, as it is: nothing stops it from
connecting to a declared frame origin before its CSP blocks the frame, and the preview says so.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import webbrowser
from collections.abc import Callable, Iterator
from dataclasses import dataclass

CHROMIUMS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "microsoft-edge")
QUIET = (  # a fresh profile's own traffic: none of it is the app's
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-sync",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    "--metrics-recording-only",
)
SETTLE = 1.0  # seconds after the page is done for the browser's last CSP reports
UNCONFINED = (
    "your default browser was opened as it is (no Chromium found): nothing stops it from connecting to an origin "
    "the app declares (a frame's) before the CSP blocks the request; install chromium for a browser that reaches "
    "127.0.0.1 only"
)

HEADLESS_HOST = (
    "no graphical display here (no DISPLAY or WAYLAND_DISPLAY): open the address in a browser yourself; mcp-review "
    "app TOOL --headless runs it in a confined headless Chromium"
)


def has_display() -> bool:
    """Whether a browser window can open here: on Linux, only with a graphical display (webbrowser would start a
    text browser in the terminal instead)."""
    return not sys.platform.startswith("linux") or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def find() -> str | None:
    """A Chromium on PATH, or None."""
    return next((found for name in CHROMIUMS if (found := shutil.which(name))), None)


def confined(browser: str, url: str, profile: str, proxy: str, ports: tuple[int, ...], headless: bool) -> list[str]:
    """The argv of a Chromium that reaches only 127.0.0.1 at `ports` directly and everything else through `proxy`
    (the refuser), in `profile`."""
    bypass = ";".join(["<-loopback>", *(f"127.0.0.1:{p}" for p in ports)])
    argv = [browser, f"--user-data-dir={profile}", *QUIET, f"--proxy-server={proxy}", f"--proxy-bypass-list={bypass}"]
    argv += ["--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]
    argv += ["--force-webrtc-ip-handling-policy=disable_non_proxied_udp"]
    if headless:
        argv += ["--headless=new", "--disable-gpu"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        argv.append("--no-sandbox")  # Chromium refuses to start as root with its sandbox (containers, CI)
    return [*argv, url]


@dataclass
class Launch:
    """A browser the preview started (None when the system's default browser was asked instead), and why not."""

    process: subprocess.Popen[bytes] | None
    note: str | None = None
    opened: bool = True  # a browser was asked to open the page


@contextlib.contextmanager
def profile() -> Iterator[str]:
    """A fresh profile, removed after (a helper of the browser still writing in it leaves what it wrote)."""
    with tempfile.TemporaryDirectory(prefix="mcp-review-preview-", ignore_cleanup_errors=True) as tmp:
        yield tmp


def open_window(url: str, proxy: str, ports: tuple[int, ...], profile_dir: str) -> Launch:
    """The reviewer's browser on `url`: a confined Chromium window when one is installed, else the default browser
    through `webbrowser` (and a note saying what that cannot promise)."""
    if not has_display():
        return Launch(None, HEADLESS_HOST, opened=False)
    browser = find()
    if browser is None:
        webbrowser.open(url)
        return Launch(None, UNCONFINED)
    argv = confined(browser, url, profile_dir, proxy, ports, headless=False)
    return Launch(start(argv))


def start(argv: list[str]) -> subprocess.Popen[bytes]:
    """The browser in a process group of its own: its helpers (zygote, renderers, crash handler) end with it."""
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def end_browser(proc: subprocess.Popen[bytes]) -> None:
    """End the browser `start` began, and every process of its group."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def run_headless(
    url: str, proxy: str, ports: tuple[int, ...], done: Callable[[], bool], seconds: float, browser: str
) -> bool:
    """Headless Chromium on `url` until `done()` (then SETTLE more seconds) or `seconds` pass: whether it was done."""
    with profile() as tmp:
        argv = confined(browser, url, tmp, proxy, ports, headless=True)
        proc = start(argv)
        try:
            end = time.monotonic() + seconds
            while not (finished := done()) and time.monotonic() < end and proc.poll() is None:
                time.sleep(0.1)
            if finished:
                time.sleep(SETTLE)
            return finished
        finally:
            end_browser(proc)
