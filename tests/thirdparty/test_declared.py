"""A server published to the MCP Registry, reviewed with the server.json it ships (issue 24): gdbstub-mcp 0.1.0 and
the server.json of the same release's source distribution (scripts/test-deps keeps it beside the venv).

Judged: its server.json validates against the registry's schema 2025-12-11 and its package is pypi/stdio, as the
review speaks it. The server sends `serverInfo.version` "" (the SDK's default when none is given), so the version
cannot be compared: a warn, never a fail; its `serverInfo.name` "gdbstub" is not the registry name: a warn (separate
namespaces). No fail of `review.server-json` is true of this server, so none may appear."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.thirdparty import gdbstub_argv, gdbstub_server_json

pytestmark = pytest.mark.thirdparty


@pytest.mark.slow  # a review pack run over stdio: 5 s
def test_a_registry_servers_own_server_json_is_compared_with_its_wire():
    argv = [
        sys.executable,
        "-m",
        "mcp_review",
        "check",
        "-q",
        "--format",
        "json",
        "--pack",
        "review",
        "--timeout",
        "10",
    ]
    argv += [
        "--ignore",
        "review.rug-pull-mitigation",
        "--server-json",
        str(gdbstub_server_json()),
        "--",
        *gdbstub_argv(),
    ]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    review = json.loads(done.stdout)
    found = {f["subject"]: f for f in review["findings"] if f["rule"] == "review.server-json"}
    assert found["schema"]["status"] == "pass", found["schema"]
    assert found["version"]["status"] == "warn" and "no serverInfo.version" in found["version"]["message"]
    assert found["name"]["status"] == "warn" and "'io.github.0xmortuex/gdbstub-mcp'" in found["name"]["message"]
    assert "transports" not in found and "packages[].identifier" not in found, "pypi/stdio, as the review speaks it"
    assert review["decisions"]["provenance"]["serverJson"] == {"who": "reviewer", "how": "--server-json"}
    # its one fail, judged in docs/examples/README.md: an unknown tool answered with isError (mcp 2.x FastMCP's way)
    assert {f["rule"] for f in review["findings"] if f["status"] == "fail"} == {"review.error-channel-correct"}
