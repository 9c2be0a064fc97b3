"""mcp_review.tasks without a server: the status machine both revisions share, the poll interval's bounds, the task
shapes of each revision, and which revision a server's capabilities declare."""

from __future__ import annotations

import pytest

from mcp_review.tasks import MAX_POLL_WAIT, MIN_POLL, declared, legal, looks_like_task, poll_wait, task_of


@pytest.mark.parametrize(
    ("before", "after", "ok"),
    [
        ("working", "input_required", True),
        ("input_required", "working", True),
        ("working", "completed", True),
        ("input_required", "cancelled", True),
        ("completed", "completed", True),
        ("completed", "working", False),
        ("failed", "completed", False),
        ("cancelled", "input_required", False),
        ("working", "done", False),
        ("pending", "working", False),
    ],
)
def test_legal_transitions(before, after, ok):
    assert legal(before, after) is ok


@pytest.mark.parametrize(
    ("poll", "wait"),
    [
        (250, 0.25),
        (0, MIN_POLL),
        (86_400_000, MAX_POLL_WAIT),
        (None, 0.5),
        ("5", 0.5),
        (True, 0.5),
        (float("nan"), 0.5),
    ],
)
def test_the_poll_interval_is_honoured_within_bounds(poll, wait):
    assert poll_wait(poll) == wait


def test_task_shapes_per_revision():
    modern = {"resultType": "task", "taskId": "t", "status": "working"}
    legacy = {"task": {"taskId": "t", "status": "working"}}
    assert task_of(modern, "2026-07-28") is modern and task_of(legacy, "2025-11-25") == legacy["task"]
    assert task_of(legacy, "2026-07-28") is None and task_of(modern, "2025-11-25") is None
    assert looks_like_task(modern) and looks_like_task(legacy)
    assert not looks_like_task({"content": [], "task": {"taskId": "t"}}) and not looks_like_task([1])


def test_which_tasks_a_server_declares():
    assert declared("modern", {"extensions": {"io.modelcontextprotocol/tasks": {}}}) == "2026-07-28"
    assert declared("legacy", {"tasks": {"list": {}}}) == "2025-11-25"
    assert declared("modern", {"tasks": {}}) is None and declared("legacy", {"tasks": True}) is None
