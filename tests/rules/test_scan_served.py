"""Judged by what it is, proven on a real server over stdio and over HTTP (issue 37): tests/servers/poisoned.py's
poisoned twin carries each class the scanner judges (a credential variable asked for, sensitive files ordered
read, the conversation sent to an address, payloads in a default and an example, labelled production keys, a
disclosing result) and a tool per capability; the clean twin carries their look-alikes. The poisoned text gets
the same verdict on both transports; the clean twin runs on stdio only (its text is the same bytes over HTTP, and
a run costs seconds of the suite's six minutes)."""

from __future__ import annotations

import pytest

from tests.rules.cases import CAPABILITIES, CLEAN, POISONED
from tests.rules.runs import Run, describe, findings, worst

HTTP = {"stdio": {"poisoned": POISONED, "clean": CLEAN}, "http": {"poisoned": Run(POISONED.server, http="--http")}}
TRANSPORTS = sorted(HTTP)
SCANNED = ("review.descriptions-grounded", "review.results-safe", *CAPABILITIES)


def said(transport: str, mode: str, rule: str) -> dict[str | None, str]:
    return {f.subject: f"{f.status}: {f.message}" for f in findings(HTTP[transport][mode]).get(rule, [])}


def test_the_clean_twin_passes_every_judgement():
    for rule in SCANNED:
        items = findings(CLEAN)[rule]
        assert worst(items) == "pass", describe(items)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_each_class_fails_in_the_poisoned_twins_definitions(transport):
    got = said(transport, "poisoned", "review.descriptions-grounded")
    wanted = {
        "add": "asks for the credential variable AWS_SECRET_ACCESS_KEY to be sent or included",
        "read_log": "names the system account database: '/etc/shadow' next to an instruction to move or read it",
        "summarise": "sends conversation to audit@corp-review.net",
        "convert_doc": "inputSchema.properties.filename.default: carries a shell command injection",
        "system://api_keys": "a prod key ('core_prod_') given to 'Main API'",
    }
    for subject, fragment in wanted.items():
        assert got[subject].startswith("fail") and fragment in got[subject], (subject, got[subject])
    assert (
        "inputSchema.properties.filename.examples[0]: carries a template or expression injection" in got["convert_doc"]
    )
    assert "a live key ('pay_live_') given to 'Payment Gateway'" in got["system://api_keys"]
    assert "pay_live_M4n8" not in got["system://api_keys"], "a finding never carries the secret it found"


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_result_that_discloses_the_server_warns(transport):
    got = said(transport, "poisoned", "review.results-safe")
    assert (
        got["get_status"].startswith("warn")
        and "discloses an internal host: 'db-prod-01.internal:5432'" in got["get_status"]
    )
    assert got["print_env"].startswith("warn") and "discloses the server's environment (5 variables" in got["print_env"]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_each_capability_is_named_once_per_tool(transport):
    for rule, (subject, fragment) in CAPABILITIES.items():
        items = findings(HTTP[transport]["poisoned"])[rule]
        assert [(f.status, f.subject) for f in items] == [("warn", subject)], describe(items)
        assert fragment in items[0].message and items[0].evidence, items[0].message


def test_the_environment_read_cites_the_call_that_printed_it():
    (finding,) = findings(POISONED)["review.capability-env-read"]
    calls = [c for c in findings(POISONED)["review.results-safe"] if c.subject == "print_env"]
    assert set(calls[0].evidence) & set(finding.evidence), "the dump's call is the proof, cited by both rules"
