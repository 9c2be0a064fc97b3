"""The task rules on the 2026-07-28 tasks extension (test_rules.py proves them on 2025-11-25), and what stays quiet:
the same fixture modes with `--modern`, each run once per session (tests/rules/runs.py)."""

from __future__ import annotations

import pytest

from tests.rules.cases import LOOKALIKE, TASK_DEFECTS
from tests.rules.runs import Run, describe, findings, worst

MODERN_GOOD = Run(("tasks", "well-formed", "--modern"))
MODERN_FAILS = {  # rule -> (mode, subject, fragment)
    **{rule: (mode, subject, "") for rule, (mode, subject, _) in TASK_DEFECTS.items()},
    "spec.task-iserror": ("iserror-status", "flaky_job", "on 2026-07-28 isError:true is 'completed'"),
    "spec.task-methods": ("list-served", None, "the 2026-07-28 extension has no tasks/list"),
}
TASK_RULES = [*sorted(MODERN_FAILS), "spec.tasks"]


@pytest.mark.parametrize("rule", TASK_RULES)
def test_a_well_formed_modern_task_server_passes(rule):
    items = findings(MODERN_GOOD).get(rule, [])
    assert worst(items) == "pass", describe(items)


@pytest.mark.parametrize("rule", sorted(MODERN_FAILS))
def test_each_modern_defect_fails_its_rule(rule):
    mode, subject, fragment = MODERN_FAILS[rule]
    items = findings(Run(("tasks", mode, "--modern"))).get(rule, [])
    assert worst(items) == "fail", describe(items)
    assert [f for f in items if f.status == "fail" and f.subject == subject and fragment in f.message], describe(items)


def test_modern_tasks_get_without_the_extension_must_get_32021():
    """spec.task-methods passes only on -32021: the fixture's answer to an undeclared tasks/get."""
    items = findings(MODERN_GOOD)["spec.task-methods"]
    assert any(f.status == "pass" and "without the extension declared -> -32021" in f.message for f in items)


@pytest.mark.parametrize("rule", TASK_RULES)
def test_a_server_without_tasks_is_not_judged(rule):
    items = findings(LOOKALIKE).get(rule, [])
    assert worst(items) == "n/a", describe(items)
