"""server-everything pinned and diffed for real: its tool list grows with the capabilities the client declares
(13 with none, 17 with sampling, elicitation and roots, 19 with tasks too), and the diff names the added tools
with their token cost."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcp_review import lock
from mcp_review.catalog import take_snapshot
from mcp_review.connection.session import ClientHandlers, Session, headless_handlers
from mcp_review.diff import diff
from mcp_review.targets import stdio_target
from tests.integration.test_lock import cli
from tests.thirdparty import everything_stdio_argv

pytestmark = pytest.mark.thirdparty
SAMPLING_ELICITATION_ROOTS = {
    "get-roots-list",
    "trigger-elicitation-request",
    "trigger-url-elicitation",
    "trigger-sampling-request",
}
TASKS = {"trigger-sampling-request-async", "trigger-elicitation-request-async"}


class WithTasks(ClientHandlers):
    """The headless answers, and the tasks capability declared too (server-everything's *-async tools)."""

    def capabilities(self) -> dict[str, Any]:
        tasks = {"requests": {"sampling": {"createMessage": {}}, "elicitation": {"create": {}}}}
        return {**super().capabilities(), "tasks": tasks}


async def pinned(handlers: ClientHandlers) -> lock.Lock:
    async with Session(stdio_target(everything_stdio_argv()), era="legacy", handlers=handlers) as session:
        return lock.build(await take_snapshot(session))


async def test_pin_13_then_diff_the_live_17(tmp_path):
    bare = await pinned(ClientHandlers())
    assert len(bare.items["tool"]) == 13
    lock.save(tmp_path / "mcp-review.lock", bare)
    # the command line declares sampling, elicitation and roots: 17 tools
    out = cli("diff", "--format", "json", "--fail-on", "none", "--", *everything_stdio_argv(), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    changes = json.loads(out.stdout)["changes"]
    added = {c["key"]: c for c in changes if c["kind"] == "tool"}
    assert set(added) == SAMPLING_ELICITATION_ROOTS
    for change in added.values():
        assert change["class"] in ("safety", "behaviour") and change["old"] is None
        assert all(n > 20 for n in change["tokens"].values()), change["tokens"]  # each one's cost, per encoding
    total = next(c for c in changes if c["key"] == "tools total")
    assert total["tokens"]["cl100k_base"] > 0


async def test_17_to_19_with_tasks():
    h = headless_handlers()
    middle, full = await pinned(h), await pinned(WithTasks(h.sampling, h.elicitation, h.roots))
    assert (len(middle.items["tool"]), len(full.items["tool"])) == (17, 19)
    found = diff(middle, full)
    assert {c.key for c in found.changes if c.kind == "tool"} == TASKS
    assert (
        found.totals["cl100k_base"]["delta"]
        == full.totals["tool"]["cl100k_base"] - middle.totals["tool"]["cl100k_base"]
        > 0
    )
