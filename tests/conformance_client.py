"""mcp-review's OAuth client as the official conformance suite's client under test (`conformance client
--command "python tests/conformance_client.py"`): the harness appends its mock server's URL and sets
MCP_CONFORMANCE_SCENARIO and MCP_CONFORMANCE_CONTEXT (JSON: a pre-registered client for some scenarios).

It runs one MCP session (initialize, tools/list, a call of the first tool) through
`mcp_review.auth.login.authorized_client`, with the browser played by a thread that follows the mock
authorization server's redirect to our loopback listener, as a real browser would.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mcp_review.auth.login import Browser, authorized_client
from tests.pace import Patience, slowness

# auth/basic-cimd's authorization server advertises CIMD and expects this client id (the suite's constant; it does
# not fetch the document). Given in every scenario: the others' servers do not advertise CIMD, so we register.
CIMD_URL = "https://conformance-test.local/client-metadata.json"


# How long one scenario may take before it counts as a hang, at this machine's pace (tests/pace.py): the suite runs
# every scenario at once, so its own clients load the machine (load 40 on 2 cores beside other work), and its
# per-scenario timer counts wall time. It is given a longer one (test_auth_conformance.py) and this bound ends a
# hung client instead.
HANG = 30


def visit(url: str) -> None:
    timeout = 10 * slowness()  # the browser's one GET: a loaded mock server answers later
    threading.Thread(target=lambda: httpx.get(url, follow_redirects=True, timeout=timeout), daemon=True).start()


async def session(url: str) -> None:
    from mcp import Client
    from mcp.client import session as sdk
    from mcp.client.streamable_http import streamable_http_client

    # the SDK waits 10 s for `server/discover`, then falls back to `initialize`, which a 2026-07-28 mock server
    # refuses: at load 36 (the suite's own clients) a discover answered later than that
    sdk.DISCOVER_TIMEOUT_SECONDS *= slowness()

    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    browser = Browser(say=lambda s: print(s, file=sys.stderr), open=visit)
    client_id, secret = context.get("client_id"), context.get("client_secret")
    async with (
        authorized_client(
            url, browser, client_id=client_id, client_secret=secret, client_metadata_url=CIMD_URL
        ) as http,
        Client(streamable_http_client(url, http_client=http)) as mcp,
    ):
        tools = await mcp.list_tools()
        if tools.tools:
            await mcp.call_tool(tools.tools[0].name, {})


async def bounded(url: str) -> None:
    """The session, ended as a hang once `HANG` seconds at this machine's pace have passed."""
    task, patience = asyncio.ensure_future(session(url)), Patience(HANG)
    while not task.done():
        if patience.spent():
            task.cancel()
            raise SystemExit(f"conformance client: no end within {patience}")
        await asyncio.wait({task}, timeout=0.1)
    task.result()


if __name__ == "__main__":
    os.environ.setdefault("MCP_REVIEW_TOKENS", str(Path(os.environ.get("TMPDIR", "/tmp")) / f"conf-{os.getpid()}.json"))
    asyncio.run(bounded(sys.argv[-1]))
