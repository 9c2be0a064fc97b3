"""A check names a server whose every request is slow, with what would be faster (`connection.pace`): a real
`mcp-review check` process against profiled.py behind tests/servers/gateway.py, a stateless gateway that starts the
server for each request (`--start 0.6`: the start of a heavier server). That the same server over stdio is not
called slow, through a whole check with probes, is asserted in tests/integration/test_check_cli.py."""

from __future__ import annotations

import sys

from mcp_review.rules.core import load_rules
from tests.integration.test_cli import cli
from tests.support import SERVERS, fixture_argv, free_port, running

KEPT = ("spec.tool-names", "spec.pagination", "spec.ping")  # a listing and a ping more: three quick answers
SAID = "each request takes ~"


def check(*target: str) -> str:
    ignored = [f"--ignore={rule}" for rule in load_rules() if rule.startswith("spec.") and rule not in KEPT]
    out = cli("check", "--pack", "spec", *ignored, "--era", "legacy", "--format", "json", *target)
    assert out.returncode in (0, 1), out.stderr
    return out.stderr


def test_a_stateless_gateway_is_named_and_the_faster_way_said():
    port = free_port()
    server = fixture_argv("profiled", "exemplary")
    gateway = [sys.executable, str(SERVERS / "gateway.py"), "--port", str(port), "--start", "0.6", "--", *server]
    with running(gateway, port):
        said = check("--url", f"http://127.0.0.1:{port}/mcp")
    lines = [line for line in said.splitlines() if SAID in line]
    assert len(lines) == 1, said
    assert "start a process per request (a stateless gateway" in lines[0] and "stdio command" in lines[0], said
