"""`review.declared-surfaces-reviewed` trusts `JUDGED` (checks/review/declared.py) to say which rules judge each
declared surface: a surface whose rules were renamed or never written would read as reviewed. Every rule named there
must be registered, and each surface must name at least one."""

from __future__ import annotations

from mcp_review.checks.review.declared import JUDGED
from mcp_review.rules.core import load_rules


def test_every_rule_that_judges_a_declared_surface_exists():
    registered = set(load_rules())
    unknown = {surface: sorted(set(rules) - registered) for surface, rules in JUDGED.items() if set(rules) - registered}
    assert unknown == {}
    assert all(JUDGED.values()), [surface for surface, rules in JUDGED.items() if not rules]
