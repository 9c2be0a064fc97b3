"""The app's workspace without the app: no Textual, no screen. Its server is a real fixture server over stdio; what
it writes (the review, mcp-review.lock) is read back from disk."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

import pytest

from mcp_review import saved
from mcp_review.catalog import ServerSnapshot, take_snapshot
from mcp_review.checking import CheckPlan
from mcp_review.connection.session import Session
from mcp_review.connection.wire import WireEntry
from mcp_review.review import Finding, Review, Waiver
from mcp_review.rules.context import Options
from mcp_review.rules.core import load_rules
from mcp_review.targets import Target, stdio_target
from mcp_review.workspace import Job, Workspace
from tests.support import fixture_argv


async def listed(target: Target) -> ServerSnapshot:
    async with Session(target) as session:
        return await take_snapshot(session)


def surface(version: str) -> Target:
    return stdio_target(fixture_argv("surface", "--surface", version))


def review_of(ws: Workspace) -> Review:
    finding = Finding("review.annotations-set", "review", "fail", "create_note has no annotations")
    return Review(
        server={"name": ws.snapshot.server_name if ws.snapshot else "notes"},
        target=ws.target.public(),
        revision=None,
        era=None,
        transport="stdio",
        findings=[finding],
    )


class Recorded:
    """A connection as the workspace sees one (`Jobs`), which records what it was asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def open(self, target: Target, era: str, wire: list[WireEntry]) -> None:
        self.asked.append("open")

    def submit(self, job: Job) -> None:
        self.asked.append("submit")

    def stop(self) -> None:
        self.asked.append("stop")


async def test_the_review_and_the_calls_are_saved_off_the_calling_thread_and_come_back(tmp_path):
    target = surface("v1")
    snapshot = await listed(target)
    ws = Workspace(target, state_dir=tmp_path, export_dir=tmp_path)
    assert ws.connected(snapshot) is False, "nothing saved yet"
    ws.review = review_of(ws)
    ws.called({"tool": "notes_get", "arguments": {}, "purpose": "reviewer", "outcome": "ok"})
    future = ws.save()
    assert any(t.name.startswith("workspace-files") for t in threading.enumerate()), "written by the files thread"
    assert future.result(30) == ws.review_path
    ws.close()  # waits for what is being written
    written = saved.read(ws.review_path)
    assert written is not None and [c["tool"] for c in written.coverage if c.get("purpose") == "reviewer"] == [
        "notes_get"
    ]

    again = Workspace(target, state_dir=tmp_path, export_dir=tmp_path)
    state = again.reopen()  # found by what starts the server, before it answers
    assert state is not None and state.future.result(30) is not None
    assert again.reopened(state) is False, "not the working review before its server answered"
    assert again.connected(snapshot) is True, "the same server's review came back"
    assert again.review is not None and [f.rule for f in again.review.findings] == ["review.annotations-set"]
    assert [c["tool"] for c in again.call_log] == ["notes_get"]
    again.close()


async def test_the_lock_is_pinned_compared_and_its_errors_said_in_the_files_thread(tmp_path):
    v1, v2 = await listed(surface("v1")), await listed(surface("v2"))
    ws = Workspace(surface("v1"), state_dir=tmp_path, export_dir=tmp_path)
    ws.connected(v1)
    none = ws.compare_lock().result(60)
    assert none.diff is None and none.error is None and not (tmp_path / "mcp-review.lock").exists()
    pinned = ws.pin([]).result(60)
    assert (tmp_path / "mcp-review.lock").is_file() and pinned.diff is not None and pinned.diff.changes == []

    ws.switch(Recorded(), surface("v2"), [])
    ws.connected(v2)
    changed = ws.compare_lock().result(60)
    assert changed.snapshot is v2 and changed.diff is not None
    assert {c.key for c in changed.diff.changes if c.change_class == "safety"} >= {"notes_share", "notes_get"}
    ws.review = review_of(ws)
    ws.record_changes(changed.diff)
    assert ws.review.changes is not None and ws.review.changes["changes"]

    (tmp_path / "mcp-review.lock").write_text("{not json")
    broken = ws.compare_lock().result(60)
    assert broken.diff is None and broken.error, "an unreadable lock is said, not raised"
    (tmp_path / "mcp-review.lock").unlink()
    (tmp_path / "mcp-review.lock").mkdir()
    unwritable = ws.pin([]).result(60)
    assert unwritable.error and "cannot write" in unwritable.error
    ws.close()


def test_a_review_that_cannot_be_written_fails_its_future_not_the_caller(tmp_path):
    (tmp_path / "state").write_text("a file where the state folder goes")
    ws = Workspace(surface("v1"), state_dir=tmp_path / "state")
    assert ws.save().result(10) is None, "no review yet: nothing to write"
    ws.review = review_of(ws)
    failed = ws.save()  # returns at once; the error is the future's, for the app to say
    assert isinstance(failed.exception(30), OSError)
    ws.close()


def test_the_run_choices_have_one_form_and_a_rerun_plans_only_its_rule(tmp_path):
    asked = CheckPlan(packs=["review"], options=Options(calls="read-only"), ignore=["spec"])
    ws = Workspace(surface("v1"), plan=asked, export_dir=tmp_path)
    assert ws.calls_chosen and ws.options.calls == "read-only", "a --calls given counts as the reviewer's choice"
    assert not Workspace(surface("v1")).calls_chosen, "without one the first run that calls asks"
    assert Workspace(surface("v1")).options == Options()

    ws.choose(["review", "tokens"], replace(ws.options, calls="all", probe=frozenset({"security"})))
    plan = ws.run_plan()
    assert list(plan.packs) == ["review", "tokens"] and plan.options is not None
    assert plan.options.calls == "all" and plan.options.probe == {"security"} and "spec" in plan.ignore
    assert plan.lock is None, "no mcp-review.lock in the export folder"

    (tmp_path / "mcp-review.lock").write_text("{}")
    one = "review.annotations-set"
    rerun = ws.run_plan(one)
    assert list(rerun.packs) == ["review"] and rerun.lock is not None
    assert {r.id for r in ws.rules(rerun)} == {one}, "every other rule of its pack is ignored"
    assert len([r for r in load_rules() if r.startswith("review.")]) > 1
    ws.close()


def test_a_rerun_is_merged_and_keeps_the_reviewers_notes_and_decisions(tmp_path):
    planned = Waiver(rule="review.annotations-set", reason="from the file", by="repo", origin="repository")
    ws = Workspace(surface("v1"), plan=CheckPlan(packs=["review"], waivers=[planned]), state_dir=tmp_path)
    first = ws.merged(review_of(ws), None)
    ws.reviewed(first)
    first.remarks = ["checked by hand"]  # made in the app after the run
    mine = Waiver(rule="review.annotations-set", reason="mine", by="alice")
    first.waivers = [mine, replace(planned, reason="an older version of the file")]
    assert ws.run_plan().waivers == [mine, planned], "the reviewer's waiver kept, the repository's as it is now"

    rerun = review_of(ws)
    merged = ws.merged(rerun, "review.annotations-set")
    assert merged is first and merged.remarks == ["checked by hand"]
    ws.checking = True
    ws.reviewed(merged)
    assert not ws.checking and ws.review is first
    ws.close()


def test_another_server_replaces_the_connection_review_calls_and_wire(tmp_path):
    ws = Workspace(surface("v1"), state_dir=tmp_path)
    old, new = Recorded(), Recorded()
    ws.connection = old
    ws.review, ws.call_log = review_of(ws), [{"tool": "notes_get"}]
    wire: list[WireEntry] = []
    ws.switch(new, surface("v2"), wire)
    assert old.asked == ["stop"] and ws.connection is new and ws.wire is wire
    assert ws.review is None and ws.call_log == [] and "v2" in ws.target.args
    assert ws.review_path != Workspace(surface("v1"), state_dir=tmp_path).review_path, "its own saved review"
    ws.log_in("token-1")
    assert ws.target.bearer == "token-1"
    ws.close()


@pytest.mark.parametrize("module", ["mcp_review.workspace"])
def test_the_workspace_loads_without_textual(module):
    import subprocess
    import sys

    code = f"import sys, {module}; print(any(m.split('.')[0] == 'textual' for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(__file__).parents[2])
    assert out.stdout.strip() == "False", out.stderr
