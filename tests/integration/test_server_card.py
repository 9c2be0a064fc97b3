"""Where `review.server-card` looks for a Server Card (issue 24): a catalog's entries on the target's own origin are
followed, one on another origin is named and never fetched. tests/servers/declared.py `catalog` over HTTP."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from mcp_review.checking import CheckPlan, run_check
from mcp_review.connection.wire import WireLog
from mcp_review.rules.core import load_rules
from tests.rules.runs import Run, target_for


def test_a_catalog_entry_on_the_targets_origin_is_read_and_another_origin_never_contacted():
    with (
        tempfile.TemporaryDirectory() as tmp,
        target_for(Run(("declared", "catalog"), http="--http"), Path(tmp)) as target,
    ):
        wires: list[WireLog] = []
        others = [r for r in load_rules() if r.startswith("review.") and r != "review.server-card"]
        plan = CheckPlan(packs=["review"], ignore=others, era="legacy")
        review = asyncio.run(run_check(target, plan, keep_wire=wires.append))
    found = {f.subject: f for f in review.findings if f.rule == "review.server-card"}
    assert found[None].status == "pass" and "/cards/declared.json agrees with the wire" in found[None].message
    assert found["catalog"].status == "pass" and "http://cards.elsewhere.example/x.json" in found["catalog"].message
    urls = [str((e.http or {}).get("url")) for e in wires[0].entries if e.http and "url" in e.http]
    assert any(u.endswith("/.well-known/ai-catalog.json") for u in urls)
    assert not any("elsewhere" in u for u in urls), "a card on another origin is never fetched"
