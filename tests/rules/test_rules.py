"""Every rule proven both ways against real servers: one fixture where it passes, one where it fails.

Which runs prove which rule is tests/rules/cases.py (CASES, EXPECT, FAILS_AS, ONE_DEFECT, TRAPS); each run is one
real `run_check` against a fixture server (stdio or HTTP on 127.0.0.1, tests/rules/runs.py), shared between rules
and computed once per session. The walk test fails for a rule without documentation or without both fixtures.
"""

from __future__ import annotations

import pytest

from tests.rules.cases import (
    ALSO,
    APP_GOOD,
    CASES,
    EXPECT,
    FAILS_AS,
    HTTP_OPEN,
    ONE_DEFECT,
    SLOPPY,
    SPEAKS_HOSTILE,
    TRAPS,
    defect_run,
)
from tests.rules.runs import BEHAVIOUR, RULES, Run, describe, findings, flagged, review_of, watched, worst
from tests.support import ROOT


@pytest.mark.quick
def test_every_rule_has_docs_and_both_fixtures():
    missing_docs = [r.id for r in RULES.values() if len(r.doc.splitlines()) < 2 or not r.source]
    assert not missing_docs, f"rules without documentation: {missing_docs}"
    assert set(CASES) == set(RULES), f"rules without fixtures: {sorted(set(RULES) - set(CASES))}"
    assert set(EXPECT) == set(RULES), f"rules without an expected failure: {sorted(set(RULES) - set(EXPECT))}"
    shared = sorted(rule for rule, (_, bad) in CASES.items() if bad == SLOPPY)
    assert not shared, f"rules failing on the every-defect server, not on one defect of their own: {shared}"
    assert set(RULES) == declared_rules(), "the registry holds exactly the rules the packs' source declares"


RULE_DECORATORS = {"rule", "_watched"}


def declared_rules() -> set[str]:
    """Every `@rule("id", ...)` (or a pack's own wrapper of it, such as `@_watched("id", ...)`) written in checks/,
    read from the source: a pack that fails to import, or a rule that stops registering, is missing from RULES but
    not from here."""
    import ast

    declared = set()
    for path in (ROOT / "checks").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.AsyncFunctionDef | ast.FunctionDef):
                declared |= {
                    d.args[0].value
                    for d in node.decorator_list
                    if isinstance(d, ast.Call) and getattr(d.func, "id", None) in RULE_DECORATORS and d.args
                    if isinstance(d.args[0], ast.Constant)
                }
    return declared


DOC_SECTIONS = ("What it checks:", "Why:", "Known false positives:", "Passes:")
BLOCKING_SECTION = "To verify when blocking:"


def can_block(rule) -> bool:
    """A rule that may end blocking: it calls tools or needs a person, or its code says so."""
    import inspect

    code = inspect.getsource(rule.fn)
    says = any(f"ctx.{name}(" in code for name in ("blocking", "blocking_call", "manual", "samples"))
    return says or bool({"call", "manual"} & set(rule.modes))


def missing_doc_sections(rules) -> dict[str, list[str]]:
    """For each rule whose docstring lacks a section (issue 9: ruff-style docs), the sections it lacks."""
    out = {}
    for rule in rules:
        wanted = DOC_SECTIONS + ((BLOCKING_SECTION,) if can_block(rule) else ())
        lacking = [s for s in wanted if s not in rule.doc]
        if lacking:
            out[rule.id] = lacking
    return out


@pytest.mark.quick
def test_every_rule_doc_has_its_sections():
    assert not missing_doc_sections(RULES.values())


@pytest.mark.quick
def test_the_doc_section_check_can_fail():
    from dataclasses import replace

    rule = RULES["review.injection-safe"]

    def stripped():
        pass

    stripped.__doc__ = rule.doc.replace(BLOCKING_SECTION, "To check:")
    assert can_block(rule)
    assert missing_doc_sections([replace(rule, fn=stripped)]) == {rule.id: [BLOCKING_SECTION]}


@pytest.mark.parametrize("rule", sorted(RULES))
def test_rule_passes_on_its_good_fixture(rule):
    good, _ = CASES[rule]
    items = findings(good).get(rule, [])
    assert items, f"{rule} produced no finding"
    assert worst(items) == "pass", describe(items)


@pytest.mark.parametrize("rule", sorted(RULES))
def test_rule_fails_on_its_bad_fixture(rule):
    """The worst status is the failing one, and a finding with that status names the planted defect."""
    _, bad = CASES[rule]
    items = findings(bad).get(rule, [])
    status, (subject, fragment) = FAILS_AS.get(rule, "fail"), EXPECT[rule]
    assert worst(items) == status, describe(items)
    proving = [f for f in items if f.status == status and f.subject == subject and fragment in f.message]
    assert proving, f"no {status} on {subject!r} saying {fragment!r}: {describe(items)}"


def test_the_app_preview_without_its_flag_is_blocking_and_names_it():
    items = findings(APP_GOOD)["apps.preview"]
    assert [(f.status, f.subject, f.message) for f in items] == [
        (
            "blocking",
            "show_weather",
            "ui://weather/app.html was not run in a browser: run with --preview (it launches Chromium)",
        )
    ]


@pytest.mark.parametrize("name", sorted(ONE_DEFECT))
def test_a_one_defect_server_trips_only_its_rules(name):
    """What the defect turns fail, warn or blocking on its base is exactly the rules it targets and its allow-list:
    a fixture that drifts into testing something else fails here. (A rule already bad on the base is not seen.)"""
    base, rule = ONE_DEFECT[name]
    tripped = flagged(defect_run(name)) - flagged(base)
    assert tripped == {rule, *ALSO.get(name, ())}


@pytest.mark.parametrize("rule", sorted(TRAPS))
def test_rule_does_not_fail_a_correct_lookalike(rule):
    run, allowed = TRAPS[rule]
    items = findings(run).get(rule, [])
    assert items and worst(items) == allowed, describe(items)


@pytest.mark.parametrize(
    "run", [SLOPPY, HTTP_OPEN, *map(defect_run, sorted(ONE_DEFECT))], ids=["stdio", "http", *sorted(ONE_DEFECT)]
)
def test_findings_cite_their_wire_evidence(run):
    """Every fail, warn and blocking finding names the wire entries that prove it (a person's word aside)."""
    review = review_of(run)
    for f in review.findings:
        if f.rule in BEHAVIOUR and not watched(run):
            continue  # blocking for how the harness ran it (tests/rules/runs.py), not for what the server did
        if f.status in ("fail", "warn", "blocking") and not f.message.startswith(("needs a reviewer", "attested by")):
            assert f.evidence, f"{f.rule} {f.subject}: {f.message}"
            assert all(seq in review.exchanges for seq in f.evidence), f.rule


def test_a_server_that_dies_mid_run_yields_a_review():
    """What was verified before the crash is kept; each call that took the server down is blocking, saying why; the
    outage is a finding naming the rule, and the review goes on with a fresh process (which the next call kills
    again: each rule that does so is named)."""
    review = review_of(Run(("profiled", "dies")))
    statuses = {f.status for f in review.findings}
    assert "pass" in statuses, "what was verified before the crash is kept"
    lost = [f for f in review.findings if f.status == "blocking" and "got no answer (server exited" in f.message]
    assert lost, "the rest is blocking, saying why"
    died = [f for f in review.findings if f.rule == "review.survives-probes" and f.status == "fail"]
    assert len(died) > 1 and all("the review reconnected and went on" in f.message for f in died), died
    assert review.verdict in ("FAIL", "BLOCKED")


def test_descriptions_grounded_reads_schema_values_and_results_ignore_echoes():
    """An instruction in a schema's example fails the definition; the tool echoing it back (the review sent it)
    does not fail the result, while the instruction the server itself put in the result does."""
    listed = {f.subject: f for f in findings(SPEAKS_HOSTILE)["review.descriptions-grounded"]}
    assert listed["lookup"].status == "fail"
    assert "inputSchema.properties.topic.examples[0]: instruction aimed at the model" in listed["lookup"].message
    assert (
        "inputSchema.properties.tools_list: asks the model for the conversation or tool context"
        in listed["order"].message
    )
    asked = {f.subject: f for f in findings(SPEAKS_HOSTILE)["review.client-requests-safe"]}["elicitation/create"]
    assert (
        asked.status == "fail" and "requestedSchema.properties.cvv: a form asks the user for a secret" in asked.message
    )
    result = {f.subject: f for f in findings(SPEAKS_HOSTILE)["review.results-safe"]}["lookup"]
    assert "structuredContent.note" in result.message
    assert "content[0].text" not in result.message and "structuredContent.topic" not in result.message


@pytest.mark.quick
def test_descriptions_grounded_reads_resource_text():
    hits = [f for f in findings(SLOPPY)["review.descriptions-grounded"] if f.subject == "tags://static"]
    assert hits and hits[0].status == "fail" and "AWS access key" in hits[0].message and hits[0].evidence
