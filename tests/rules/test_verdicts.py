"""Verdicts by concern on real servers (issue 39): fixture pairs whose only difference is one defect differ in that
defect's concern and in no other, and the vulnerable twins are told from their hardened twins in the headline.

The pairs are the one-defect servers of tests/rules/cases.py (a profile where every rule passes, plus exactly one
defect): their reviews are the harness's, computed once per session (tests/rules/runs.py), so this costs nothing the
rule tests do not already pay."""

from __future__ import annotations

import pytest

from mcp_review.report import headline, render
from mcp_review.verdicts import DEFAULT, parse
from tests.rules.cases import ALSO, HARDENED, ONE_DEFECT, PROBED, VULNERABLE, defect_run
from tests.rules.runs import RULES, Run, review_of

SECURITY = sorted(name for name, (_, rule) in ONE_DEFECT.items() if RULES[rule].concern == "security")
EXEMPLARY_PROBED = Run(("profiled", "exemplary"), options=PROBED)  # nothing left for a probe to settle
OTHERS = sorted(name for name, (_, rule) in ONE_DEFECT.items() if RULES[rule].concern != "security")


def concerns_of(name: str) -> set[str]:
    """The concerns one defect may move: its rule's and those of the rules it necessarily trips (ALSO)."""
    _, rule = ONE_DEFECT[name]
    return {RULES[r].concern for r in (rule, *ALSO.get(name, ()))}


def test_the_pairs_cover_security_and_every_other_concern():
    assert len(SECURITY) >= 5 and {RULES[ONE_DEFECT[n][1]].concern for n in OTHERS} >= {"protocol", "contract"}


@pytest.mark.parametrize("name", SECURITY)
def test_one_security_defect_changes_the_security_verdict_and_no_other(name):
    base, _ = ONE_DEFECT[name]
    clean, flawed = review_of(base).verdicts(), review_of(defect_run(name)).verdicts()
    assert clean["security"] != flawed["security"], (name, clean, flawed)
    assert flawed["security"] in ("FAIL", "BLOCKED")
    moved = {c for c in clean if clean[c] != flawed[c]}
    assert moved <= concerns_of(name) | {"security"}, (name, clean, flawed)


@pytest.mark.parametrize("name", OTHERS)
def test_a_defect_of_another_concern_leaves_security_as_it_was(name):
    base, _ = ONE_DEFECT[name]
    if "security" in concerns_of(name):
        pytest.skip(f"{name} necessarily trips a security rule too (ALSO)")
    clean, flawed = review_of(base).verdicts(), review_of(defect_run(name)).verdicts()
    assert clean["security"] == flawed["security"], (name, clean, flawed)
    moved = {c for c in clean if clean[c] != flawed[c]}
    assert moved <= concerns_of(name), (name, clean, flawed)
    assert all(flawed[c] in ("FAIL", "BLOCKED", "PASS_WITH_WARNINGS") for c in concerns_of(name)), (name, flawed)


def test_convention_fails_alone_pass_a_security_gate():
    """A server whose only fails are conventions (the exemplary profile, probed) does not fail `--fail-on security`
    or the default gate, and fails `--fail-on all` and `--fail-on conventions`. What its probes leave undecided (a
    payload taken without refusal, echo or effect: rules/proof.py) is blocking, security's, and the gates select it
    as the design says (verdicts.py: a term selects every finding of its concern, blocking ones too; exit 3, not 1),
    so the gates are judged on the decided findings too: without the blocking ones they pass."""
    review = review_of(EXEMPLARY_PROBED)
    assert {c for c, v in review.verdicts().items() if v == "FAIL"} == {"conventions"}, review.verdicts()
    assert {f.concern for f in review.findings if f.effective == "blocking"} <= {"security"}
    decided = [f for f in review.findings if f.effective != "blocking"]
    for gate in (parse("security"), DEFAULT):
        assert gate.verdict(review.findings) in ("PASS", "PASS_WITH_WARNINGS", "BLOCKED"), gate.text
        assert gate.verdict(decided) in ("PASS", "PASS_WITH_WARNINGS"), gate.text
    assert parse("all").verdict(review.findings) == "FAIL" and review.verdict == "FAIL"
    assert parse("conventions>=low").verdict(review.findings) == "FAIL"


TWINS = [
    (HARDENED, VULNERABLE),  # tests/servers/twins.py, probed: paths, commands, URLs, templates, secrets
    (Run(("steering", "guarded")), Run(("steering", "vulnerable"))),  # descriptions that steer, mail sent unasked
]


@pytest.mark.parametrize(("hardened", "vulnerable"), TWINS, ids=["probes", "steering"])
def test_the_twins_differ_in_the_headline(hardened, vulnerable):
    good, bad = review_of(hardened), review_of(vulnerable)
    assert bad.verdicts()["security"] == "FAIL" and good.verdicts()["security"] != "FAIL"
    good_md, bad_md = render(good, "md"), render(bad, "md")
    assert good_md.splitlines()[0] != bad_md.splitlines()[0], "the first line says security's verdict"
    assert bad_md.splitlines()[0].endswith("· security ❌ FAIL")
    assert headline.security(good, icons=False) != headline.security(bad, icons=False)
    # what the SDK does for both alike (an unknown tool answered isError) is said once, and is not the difference
    assert {f.rule for f in good.findings if f.effective == "fail" and f.known} <= {"review.error-channel-correct"}
