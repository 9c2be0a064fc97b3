"""Twin fixtures for the active probes: `python twins.py vulnerable|hardened|deferred` (stdio, or --http/--sse).

The same five tools, annotated the same, written unsafely (`vulnerable`) or safely (`hardened`):
read_file(path), run_ping(host), fetch_url(url), render_greeting(template), login(username, password).
`deferred` is the hardened twin whose fetch_url answers at once and fetches any URL a second later; `deferred
--mirror` adds mirror_url, which does the same with `url` and never answers a loopback `fallback_url`.
Kept harmless: files are read under a temporary base directory (removed at exit), the shell only runs echo
(and what a probe sends), URLs are fetched with a 2 s timeout and no proxy, the hardened twin fetches nothing.
"""

from __future__ import annotations

import atexit
import ipaddress
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from serve import serve

MODE = next((a for a in sys.argv[1:] if a in ("vulnerable", "hardened", "deferred")), "hardened")
VULNERABLE = MODE == "vulnerable"
DEFERRED = MODE == "deferred"  # hardened, but fetch_url answers at once and fetches any URL a second later
MIRROR = DEFERRED and "--mirror" in sys.argv  # and a sixth tool whose second URL is never answered
BASE = Path(tempfile.mkdtemp(prefix="mcp-review-twin-"))
(BASE / "hello.txt").write_text("hello from the twin\n", encoding="utf-8")
atexit.register(shutil.rmtree, BASE, True)

LOCAL = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
NETWORK = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=True)
SESSION = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
HOST = re.compile(r"[A-Za-z0-9][A-Za-z0-9.-]{0,252}")
PRODUCT = re.compile(r"\{\{\s*(\d{1,9})\s*\*\s*(\d{1,9})\s*\}\}")

mcp = MCPServer(f"twins-{MODE}", version="1.0.0", log_level="WARNING")


@mcp.tool(title="Read file", annotations=LOCAL)
def read_file(path: str) -> str:
    """Read a text file under the server's base directory. Use when the user names a file to show."""
    if VULNERABLE:
        target = Path(f"{BASE}/{path}")  # defect: joined as text, `..` climbs out
    else:
        target = (BASE / path).resolve()
        if not target.is_relative_to(BASE.resolve()):
            raise ToolError("refused: the path leaves the base directory")
    try:
        return target.read_text(encoding="utf-8")[:4096]
    except OSError as e:
        raise ToolError(f"cannot read {path}: {e.strerror}") from e


@mcp.tool(title="Ping host", annotations=NETWORK)
def run_ping(host: str) -> str:
    """Say whether a host would be pinged (the fixture only echoes). Use to check a host name."""
    if VULNERABLE:  # defect: the argument is interpolated into a shell command line
        done = subprocess.run(f"echo pinging {host}", shell=True, capture_output=True, text=True, timeout=5)
    else:
        if not HOST.fullmatch(host):
            raise ToolError("refused: not a host name")
        done = subprocess.run(["echo", "pinging", host], capture_output=True, text=True, timeout=5)
    return done.stdout[:4096]


def public_address(url: str) -> bool:
    """Only http(s) to a literal public IP address; names are not resolved by this fixture."""
    parts = urllib.parse.urlsplit(url)
    try:
        address = ipaddress.ip_address(parts.hostname or "")
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and address.is_global


@mcp.tool(title="Fetch URL", annotations=NETWORK)
def fetch_url(url: str) -> str:
    """Fetch a web page and return its first 4 KB of text. Use when the user gives a link."""
    if DEFERRED:  # defect: queued, then fetched after the answer (a crawler, a webhook), any URL
        later = threading.Timer(1.0, _fetch, (url,))
        later.daemon = True
        later.start()
        return "queued: the page will be fetched shortly"
    if not VULNERABLE:
        if not public_address(url):
            raise ToolError(f"refused: {url!r} is not a public http(s) address")
        return "fetched (this fixture does not go on the network)"
    try:
        return _fetch(url)  # defect: any URL, loopback and file:// included (urllib reads local files)
    except (OSError, ValueError) as e:
        raise ToolError(f"fetch failed: {e}") from e


if MIRROR:

    @mcp.tool(title="Mirror URL", annotations=NETWORK)
    def mirror_url(url: str, fallback_url: str) -> str:
        """Mirror a page (queued, fetched later); the fallback is checked at once and can take long."""
        if fallback_url.startswith("http://127.0.0.1"):  # defect for the test: the probe's call gets no answer
            time.sleep(30)
        later = threading.Timer(1.0, _fetch, (url,))
        later.daemon = True
        later.start()
        return "queued"


def _fetch(url: str) -> str:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=2) as reply:
        return reply.read(4096).decode("utf-8", "replace")


@mcp.tool(title="Render greeting", annotations=LOCAL)
def render_greeting(template: str) -> str:
    """Render a greeting from a template. Use to preview a greeting text."""
    if VULNERABLE:  # defect: `{{a*b}}` is evaluated (a tiny engine: integer products only)
        template = PRODUCT.sub(lambda m: str(int(m.group(1)) * int(m.group(2))), template)
    return f"Greeting: {template}"


@mcp.tool(title="Log in", annotations=SESSION)
def login(username: str, password: str) -> str:
    """Start a session for a user. Use when the user gives their credentials."""
    if VULNERABLE:  # defect: the password is echoed in the error
        raise ToolError(f"login failed for {username} with password {password}")
    raise ToolError(f"login failed for {username}")


if __name__ == "__main__":
    serve(mcp)
