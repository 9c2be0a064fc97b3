"""One producer of costs (issue 36): a `check` with a lock counts each tool's fields once per encoding.

The review's `tokens`, `registry.list-budget`, `registry.description-budget` and the lock diff all read the
snapshot's `Costs`; before, the review counted every tool again (`checking.token_summary`), the budget rule the
whole array, and `lock.build` each tool in each encoding, one at a time. Run in-process against a real stdio server
(tests/servers/surface.py), with every text that reaches BPE recorded (`tokens._count`).
"""

from __future__ import annotations

import asyncio
from collections import Counter

from mcp_review import lock, tokens
from mcp_review.catalog import take_snapshot
from mcp_review.checking import CheckPlan, run_check
from mcp_review.connection.session import Session
from mcp_review.encodings import ENCODINGS
from mcp_review.targets import stdio_target
from tests.pace import slowness
from tests.support import fixture_argv


def test_a_check_with_a_lock_encodes_each_tools_fields_once_per_encoding(tmp_path, monkeypatch):
    target = stdio_target(fixture_argv("surface")).with_(timeout=30 * slowness())

    async def listed():  # the server as `pin` sees it: the lock, written before anything is recorded
        async with Session(target) as session:
            return await take_snapshot(session)

    snapshot = asyncio.run(listed())
    pinned = tmp_path / "mcp-review.lock"
    lock.save(pinned, lock.build(snapshot))

    encoded: Counter[tuple[str, str]] = Counter()
    plain = tokens._count

    def spy(encoding, text):
        encoded[encoding.name, text] += 1
        return plain(encoding, text)

    monkeypatch.setattr(tokens, "_count", spy)
    plan = CheckPlan(packs=["registry", "tokens", "review"], lock=str(pinned))
    review = asyncio.run(run_check(target, plan))

    assert review.changes is not None and review.changes["changes"] == []  # the lock was read and compared
    assert {f.rule for f in review.findings} >= {"registry.list-budget", "registry.description-budget"}
    assert review.tokens["total"] > 0 and len(review.tokens["tools"]) == len(snapshot.tools) > 5
    fields = {text for tool in snapshot.tools.raw for text in tokens.canonical_parts(tool)[1].values()}
    wholes = {tokens.canonical(tool) for tool in snapshot.tools.raw}
    for encoding in ENCODINGS:
        assert {text: encoded[encoding, text] for text in fields} == dict.fromkeys(fields, 1), encoding
        # a whole definition at most once: its total is mostly made from its fields' counts (`tokens.joins`)
        assert all(encoded[encoding, text] <= 1 for text in wholes), encoding
