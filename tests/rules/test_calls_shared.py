"""A check waits only where it must: a call a second rule needs is the first one's, not made again (`calls.Share`).

Read from the harness's runs (tests/rules/runs.py, computed once per session for the rule tests): within one review,
no tool is called twice with the same arguments, except by the rules that need a call of their own, which are
named here with why. A new rule that repeats a call another already made fails this until it shares it, or says
why it cannot.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from tests.rules.cases import DESIGNED, DOMAIN, EXEMPLARY, HARDENED, HTTP_GOOD, SLOPPY, TASKS_GOOD
from tests.rules.runs import Run, review_of

FRESH = {
    # compares two answers of a parameterless tool over time: a shared second answer would agree with itself
    "review.primitive-by-purpose",
}


RUNS = [EXEMPLARY, DOMAIN, DESIGNED, SLOPPY, HTTP_GOOD, TASKS_GOOD, HARDENED]


@pytest.mark.parametrize("run", RUNS, ids=lambda run: " ".join((*run.server, run.http or "stdio")))
def test_no_call_is_repeated_but_by_a_rule_that_needs_its_own(run: Run):
    coverage = review_of(run).coverage
    made = Counter(
        (c["tool"], json.dumps(c["arguments"], sort_keys=True), c["purpose"] == "task run")
        for c in coverage
        if c["purpose"] not in FRESH
    )
    repeated = [call for call, times in made.items() if times > 1]
    assert not repeated, f"called again with the same arguments: {repeated}"
    assert any(c.get("reusedBy") for c in coverage), "the runs share at least one call"
