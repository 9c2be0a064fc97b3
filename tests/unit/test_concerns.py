"""Every rule declares its concern and default severity where it is declared (issue 39): a test that walks the
registry, and a rule that leaves either out does not register and says which it lacks."""

from __future__ import annotations

import pytest

from mcp_review.concerns import CONCERNS, SEVERITIES
from mcp_review.rules import core
from mcp_review.rules.core import load_rules

RULES = load_rules()


def test_every_rule_declares_one_concern_a_severity_and_a_version():
    assert RULES and all(r.concern in CONCERNS and r.severity in SEVERITIES for r in RULES.values())
    assert all(isinstance(r.version, int) and r.version >= 1 for r in RULES.values())
    used = {r.concern for r in RULES.values()}
    assert used == set(CONCERNS), f"a concern no rule belongs to: {set(CONCERNS) - used}"
    assert all(r.concern == "protocol" for r in RULES.values() if r.pack == "spec"), "the spec pack is the protocol"
    assert {r.concern for r in RULES.values() if r.pack in ("tokens", "design", "registry")} <= {
        "conventions",
        "security",  # tokens.destructive-elicitation: a tool that acts without asking harms the user
    }


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ({}, "no concern declared: @rule(..., concern=...) takes one of security, protocol"),
        ({"concern": "style"}, "unknown concern 'style'"),
        ({"concern": "protocol"}, "no severity declared: @rule(..., severity=...) takes one of critical, high"),
        ({"concern": "protocol", "severity": "grave"}, "unknown severity 'grave'"),
        ({"concern": "protocol", "severity": "low", "version": 0}, "version must be a whole number from 1"),
    ],
)
def test_a_rule_that_forgets_its_concern_or_severity_does_not_register_and_says_why(given, said):
    with pytest.raises(ValueError, match=r"rule spec\.new-rule: ") as raised:
        core.rule("spec.new-rule", modes=("static",), source="002", **given)
    assert said in str(raised.value)
    assert "spec.new-rule" not in core.RULES
