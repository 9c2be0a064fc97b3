"""The official MCP Apps examples from npm (scripts/test-deps, `.deps/apps`), reviewed as a new user would:
`check --calls read-only` over stdio. An app page is an HTML document with scripts; before issue 23,
`review.descriptions-grounded` failed both for "a script element", the review's only fail. Measured on the pinned
versions (2.0.3): each lists one tool naming one `ui://` page (`text/html;profile=mcp-app`, one inline module
script, no CSP, no domain), 217,951 and 437,281 bytes.

Over HTTP too: without `--stdio` they serve Streamable HTTP on `0.0.0.0:$PORT` (no host option: main.ts calls
`app.listen(port)`), so each runs in a fresh network namespace whose only interface is loopback
(`unshare -n`, tests/hostile/harness.isolation), with `mcp-review check --url` beside it in the same namespace.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from functools import cache

import pytest

from mcp_review.checking import CheckPlan, run_check
from mcp_review.review import Review
from mcp_review.rules.context import Options
from mcp_review.rules.core import DEFAULT_PACKS
from mcp_review.targets import stdio_target
from tests.hostile.harness import isolation
from tests.thirdparty import APP_EXAMPLE_URL, APP_EXAMPLES, REQUIRE_ENV, app_example_argv, app_example_http_prefix

pytestmark = pytest.mark.thirdparty

PAGES = {"basic-vanillajs": "ui://get-time/mcp-app.html", "budget-allocator": "ui://budget-allocator/mcp-app.html"}
TOOLS = {"basic-vanillajs": "get-time", "budget-allocator": "get-budget-data"}


@cache
def review(name: str) -> Review:
    target = stdio_target(app_example_argv(name)).with_(timeout=60.0)
    plan = CheckPlan(packs=list(DEFAULT_PACKS), options=Options(calls="read-only"))
    return asyncio.run(run_check(target, plan))


@pytest.mark.parametrize("name", sorted(APP_EXAMPLES))
def test_an_official_app_example_has_no_false_fail(name):
    found = review(name).findings
    fails = [f"{f.rule} {f.subject}: {f.message[:200]}" for f in found if f.status == "fail"]
    assert not fails, fails
    by_rule = {(f.rule, f.subject): f.status for f in found}
    assert by_rule[("review.descriptions-grounded", PAGES[name])] == "pass"  # its script is no finding
    assert by_rule[("apps.resource-resolves", TOOLS[name])] == "pass"
    for rule in ("apps.csp-origins-only", "apps.origins-declared", "apps.origins-used", "apps.page-safe"):
        assert by_rule[(rule, PAGES[name])] == "pass", rule
    assert by_rule[("apps.domain-set", PAGES[name])] == "warn"  # no _meta.ui.domain: true, and optional
    surfaces = {f.subject: f.status for f in found if f.rule == "review.declared-surfaces-reviewed"}
    assert surfaces == dict.fromkeys(
        ["capabilities.tools", "capabilities.resources", "_meta.ui.resourceUri", "_meta.ui/resourceUri"], "pass"
    )


# What HTTP adds, each judged true: no authentication on a server that binds every interface; an Origin from
# elsewhere accepted (the example's cors() and createMcpExpressApp({host: "0.0.0.0"}) turn off the SDK's DNS
# rebinding check); an error answered with `"id": null`, which the 2025-11-25 schema does not allow (`id?:
# RequestId`: absent, never null).
HTTP_FAILS = {"review.browser-origins-refused", "review.transport-config", "spec.http-transport", "spec.wire-schema"}


@pytest.mark.parametrize("name", sorted(APP_EXAMPLES))
def test_an_official_app_example_over_http_is_judged_as_over_stdio(name):
    prefix = isolation()
    if not prefix:
        msg = "no private network namespace here (unshare -n): the examples' HTTP binds 0.0.0.0"
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(msg, pytrace=False)
        pytest.skip(msg)
    check = [sys.executable, "-m", "mcp_review", "check", "--calls", "read-only", "--format", "json", "--timeout", "60"]
    done = subprocess.run(
        [*app_example_http_prefix(name), *check, "--url", APP_EXAMPLE_URL], capture_output=True, text=True, timeout=180
    )
    report = json.loads(done.stdout[done.stdout.index("{") :])
    assert report["transport"] == "http" and report["server"]["name"]
    found = report["findings"]
    assert {f["rule"] for f in found if f["status"] == "fail"} == HTTP_FAILS
    over_stdio = {(f.rule, f.subject): f.status for f in review(name).findings if f.rule.startswith("apps.")}
    assert {(f["rule"], f["subject"]): f["status"] for f in found if f["rule"].startswith("apps.")} == over_stdio
