"""`mcp-review tui --web`: the same review app in a browser, served by Textual's own web server (textual-serve).

textual-serve runs the app as a subprocess per browser connection (its web driver speaks to the page over a
websocket, the page draws it with xterm.js), so what the browser shows is the app itself, not a copy. What is
added here is what textual-serve leaves to whoever runs it:

- 127.0.0.1 only, never 0.0.0.0: the socket is bound here and handed to aiohttp (textual-serve's `serve` would bind
  whatever host it is given, and only a fixed port: port 0 would leave it printing the wrong address).
- A secret in the URL, so no other local user reaches the app (anyone on this machine can connect to 127.0.0.1).
  textual-serve has no hook for checking a request, so it is put behind one: its aiohttp application (made by its
  own `_make_app`, private but pinned with textual-serve in pyproject.toml, and proven by tests/integration/
  test_web.py) is mounted as a sub-application under `/<secret>/` of an application of ours, whose middleware
  (`guard`) refuses every request whose first path segment is not the secret (403) before any handler of
  textual-serve runs. A path, not a query parameter: textual-serve builds every URL the page uses (the websocket,
  its scripts) from its router, which puts a sub-application's prefix in each, so they all carry the secret.
  One door more: a file the app delivers (Textual's "Save screenshot" in a browser) is fetched by textual-serve's
  page at `/download/<key>` of the origin, without the prefix; such a request is let through while `key` (128
  random bits the app made, sent only to its page) names a delivery in progress, and refused otherwise.
- Nothing from another host: textual-serve's page links a stylesheet on fonts.googleapis.com, which `guard`
  drops from the page (its own copy of the font is served with it), and a Content-Security-Policy holds the page
  to this address; a delivered file (an SVG shown inline, with the server's text in it) runs nothing.
- The URL is printed and opened in the browser when there is one, through a file that redirects to it (as Jupyter
  does): a browser started with the URL in its argv would show the secret to every local user (`ps`).
- Ctrl+C (or SIGTERM) quits each app as its own `q` would, so it saves its state and ends the server under review;
  what has not quit after `QUIT_SECONDS` is killed with its servers (`procs.reap_strays`). An app whose web server
  dies without that gets SIGTERM from the kernel (`mcp_review.cli.app`), which Textual's web driver
  turns into a quit.
"""

from __future__ import annotations

import asyncio
import hmac
import re
import secrets
import shlex
import signal
import socket
import sys
import tempfile
import webbrowser
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

from aiohttp import web
from textual_serve.download_manager import DownloadManager
from textual_serve.server import Server

from mcp_review import preview_browser
from mcp_review.connection import procs

SERVED = "--served"  # cli/app.py's hidden option: the app run under textual-serve, which ignores --web
QUIT_SECONDS = 10.0  # how long the apps get to quit on Ctrl+C before they are killed
FONTS = re.compile(rb'<link[^>]*href="https://fonts\.googleapis\.com/[^"]*"[^>]*>')
NO_ICON = b'<link rel="icon" href="data:," />'  # else the browser asks for /favicon.ico, without the secret
REFUSED = "403: this address needs the secret path that mcp-review printed\n"
DOWNLOAD = re.compile(r"/download/([0-9a-f]{32})$")  # textual.js's address for a delivery; Textual's keys: uuid4().hex
DELIVERED = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; sandbox"


def app_command(argv: Sequence[str]) -> str:
    """The shell command textual-serve runs for each browser connection: `mcp-review tui --served` with this run's
    own arguments; `exec`, so the app is the web server's child (its death signal comes from us)."""
    return "exec " + shlex.join([sys.executable, "-m", "mcp_review", "tui", SERVED, *argv])


class _Quiet(Server):
    """textual-serve's server without its banner (it names the address without the secret): `serve` prints the
    URL."""

    async def on_startup(self, app: web.Application) -> None:
        pass


def csp(port: int) -> str:
    """The page's policy: its own scripts and styles (textual-serve's page has inline ones), its own websocket."""
    return (
        "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
        f"img-src 'self' data:; font-src 'self' data:; connect-src ws://127.0.0.1:{port}; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def guard(
    secret: str, port: int, sessions: set[asyncio.Task[object]], downloads: DownloadManager
) -> Callable[..., Awaitable[web.StreamResponse]]:
    """The middleware in front of textual-serve: the secret first (or the key of a delivery in progress), then its
    handler; the page stripped of what would reach another host. Each request in flight is kept in `sessions` (a
    websocket's lasts as long as its app), so that shutting down can end them."""
    prefix = secret.encode()

    async def delivering(path: str) -> bool:
        if not (found := DOWNLOAD.match(path)):
            return False
        try:
            await downloads.get_download_metadata(found[1])
        except KeyError:
            return False
        return True

    @web.middleware
    async def check(request: web.Request, handler: Handler) -> web.StreamResponse:
        given = hmac.compare_digest(request.path.split("/", 2)[1].encode(), prefix)  # in constant time
        if not given and not await delivering(request.path):
            return web.Response(status=403, text=REFUSED)
        task = asyncio.current_task()
        assert task is not None
        sessions.add(task)
        try:
            response = await handler(request)
        finally:
            sessions.discard(task)
        if (
            isinstance(response, web.Response)
            and isinstance(response.body, bytes)
            and response.content_type == "text/html"
        ):
            response.body = FONTS.sub(NO_ICON, response.body)  # the page textual-serve renders from its template
        return response

    return check


def policy(port: int) -> Callable[[web.Request, web.StreamResponse], Awaitable[None]]:
    """The headers of every answer, set as it is sent (a delivery streams: its handler has sent them by the time
    a middleware would see it): the page's policy, or none at all for a delivered file."""

    async def headers(request: web.Request, response: web.StreamResponse) -> None:
        response.headers["Content-Security-Policy"] = DELIVERED if DOWNLOAD.search(request.path) else csp(port)
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["Cache-Control"] = "no-store"

    return headers


def listen(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1 (`port` 0: one the system picks); OSError when it cannot be had."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    return sock


def open_browser(url: str, folder: str) -> str | None:
    """Open `url` in the reviewer's browser through a redirecting file in `folder` (private: mkdtemp's 0700), so the
    secret is in no process's argv; what happened instead, when no browser can be opened here."""
    if not preview_browser.has_display():
        return "no graphical display here: open the address above in a browser"
    page = Path(folder, "open.html")
    page.write_text(f'<!DOCTYPE html><meta http-equiv="refresh" content="0; url={url}"><a href="{url}">mcp-review</a>')
    page.chmod(0o600)
    if not webbrowser.open(page.as_uri()):
        return "no browser found: open the address above in one"
    return None


async def _serve(sock: socket.socket, argv: Sequence[str], browser: bool) -> None:
    port = sock.getsockname()[1]
    secret = secrets.token_urlsafe(24)
    sessions: set[asyncio.Task[object]] = set()
    server = _Quiet(app_command(argv), host="127.0.0.1", port=port, title="mcp-review")
    root = web.Application(middlewares=[guard(secret, port, sessions, server.download_manager)])
    root.add_subapp(f"/{secret}/", await server._make_app())
    root.router.add_get("/download/{key}", server.handle_download)  # where textual.js asks for a delivered file
    root.on_response_prepare.append(policy(port))
    runner = web.AppRunner(root, handle_signals=False, access_log=None)
    await runner.setup()
    await web.SockSite(runner, sock, shutdown_timeout=QUIT_SECONDS).start()
    url = f"http://127.0.0.1:{port}/{secret}/"
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    with tempfile.TemporaryDirectory(prefix="mcp-review-web-") as folder:
        print(f"mcp-review: the review app at {url}", flush=True)
        print("mcp-review: each browser tab runs the app on its own connection; Ctrl+C ends them all", flush=True)
        if browser and (note := open_browser(url, folder)):
            print(f"mcp-review: {note}", flush=True)
        await stop.wait()
        print("mcp-review: stopping: each app quits, then the server", flush=True)
        await _quit(sessions)
        await runner.cleanup()


async def _quit(sessions: set[asyncio.Task[object]]) -> None:
    """End every browser session: cancelled, textual-serve's handler closes its websocket and tells its app to quit
    (as `q` does: it saves the review and closes its server), then waits for the app's output to end; the apps'
    processes are then given the rest of QUIT_SECONDS to exit. What is left then is killed by `serve`."""
    deadline = asyncio.get_running_loop().time() + QUIT_SECONDS
    for task in sessions:
        task.cancel()
    if sessions:
        await asyncio.wait(set(sessions), timeout=QUIT_SECONDS)
    while procs.children() and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.05)


def serve(sock: socket.socket, argv: Sequence[str], browser: bool = True) -> None:
    """Serve `mcp-review tui ARGV` on `sock` (from `listen`) until Ctrl+C, and open it in the browser if `browser`."""
    try:
        asyncio.run(_serve(sock, argv, browser))
    finally:
        procs.reap_strays()  # an app that did not quit in time, and its servers
