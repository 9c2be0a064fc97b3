"""The bindings made on first use (`bindings.json` in the reviewer's state directory) are pruned as they are written:
one unused for longer than a saved review is kept, or beyond the most recently used BINDINGS_KEEP, is gone; one a
review uses again is kept and recalled."""

from __future__ import annotations

import datetime as dt
import json
from types import SimpleNamespace

import pytest

from mcp_review import decisions
from mcp_review.review import Waiver
from mcp_review.saved import UNUSED_DAYS

pytestmark = pytest.mark.quick
TODAY = dt.date(2026, 12, 2)
TARGET = {"kind": "stdio", "command": "python", "args": ["server.py"]}


def waiver(rule: str, tmp_path, bound: dt.date = TODAY) -> Waiver:
    return Waiver(
        rule, "reviewed", "me", source=str(tmp_path / "mcp-review.toml"), digest="d" + rule, version=1,
        bound=f"on first use, {bound.isoformat()}",
    )  # fmt: skip


def stored(tmp_path) -> dict:
    return json.loads((tmp_path / "state" / decisions.BINDINGS).read_text())


@pytest.fixture(autouse=True)
def state(tmp_path, monkeypatch):
    monkeypatch.setenv("MCP_REVIEW_STATE_DIR", str(tmp_path / "state"))


def test_a_binding_unused_too_long_is_pruned_and_one_used_again_is_kept(tmp_path):
    old, kept = waiver("review.a", tmp_path), waiver("review.b", tmp_path)
    long_ago = TODAY - dt.timedelta(days=UNUSED_DAYS + 1)
    assert decisions.remember(SimpleNamespace(waivers=[old, kept], attestations=[], target=TARGET), long_ago) == 2
    assert len(stored(tmp_path)) == 2
    # a later review uses only `kept` again: `old`, last used UNUSED_DAYS + 1 days ago, is pruned
    decisions.remember(SimpleNamespace(waivers=[kept], attestations=[], target=TARGET), TODAY)
    assert [v["used"] for v in stored(tmp_path).values()] == [TODAY.isoformat()]
    again = Waiver("review.b", "reviewed", "me", source=kept.source)
    decisions.recall([again], TARGET)
    assert again.digest == "dreview.b" and again.bound == kept.bound
    gone = Waiver("review.a", "reviewed", "me", source=old.source)
    decisions.recall([gone], TARGET)
    assert gone.digest is None  # pruned: bound anew on its next use


def test_at_most_the_most_recently_used_are_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(decisions, "BINDINGS_KEEP", 2)
    for days, rule in enumerate(("review.c", "review.b", "review.a")):
        decisions.remember(SimpleNamespace(waivers=[waiver(rule, tmp_path)], attestations=[], target=TARGET),
                           TODAY - dt.timedelta(days=2 - days))  # fmt: skip
    assert sorted(v["digest"] for v in stored(tmp_path).values()) == ["dreview.a", "dreview.b"]


def test_a_file_written_before_the_used_day_is_read_by_its_bound_day(tmp_path):
    path = tmp_path / "state" / decisions.BINDINGS
    path.parent.mkdir()
    recent, old = (TODAY - dt.timedelta(days=10)).isoformat(), (TODAY - dt.timedelta(days=UNUSED_DAYS + 5)).isoformat()
    path.write_text(json.dumps({"x": {"digest": "x", "bound": f"on first use, {recent}"},
                                "y": {"digest": "y", "bound": f"on first use, {old}"}, "z": "garbage"}))  # fmt: skip
    decisions.remember(SimpleNamespace(waivers=[waiver("review.a", tmp_path)], attestations=[], target=TARGET), TODAY)
    kept = stored(tmp_path)
    assert "x" in kept and "y" not in kept and "z" not in kept and len(kept) == 2  # x, and the one just bound
