"""Active probes (issues 11, 37): canaries prove a vulnerability by its effect, and only with the reviewer's consent.

The rules of checks/review/probes.py run for real (`run_check` over stdio) against the twins of
tests/servers/twins.py: the same tools written unsafely and safely. Without `--probe security` nothing is
called; with `--calls none` nothing may be; with both, the vulnerable twin fails and the hardened one never does.
Every string of a tool is a carrier, so each probe reaches every tool: the one the twin's defect is in fails,
the others never do (a refusal that proves nothing, such as the hardened login's, is blocking, not a pass).
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import urllib.request
from pathlib import Path

import pytest

from mcp_review import canary
from mcp_review.checks.review.probes import code_payloads, command_payloads, template_payloads
from mcp_review.config import ConfigFileError, load_config
from mcp_review.review import Finding, verdict_of
from tests.integration.test_check_cli import check
from tests.pace import slowness
from tests.rules.cases import EXPECT, HARDENED, PROBED, PROBES, VULNERABLE
from tests.rules.runs import Run, describe, findings
from tests.support import fixture_argv

RULES = [f"review.{probe}" for probe in PROBES]
TOOLS = {"read_file", "run_ping", "fetch_url", "render_greeting", "login"}
UNPROBED = Run(("twins", "vulnerable"))  # --calls all, no --probe
UNCALLABLE = Run(("twins", "vulnerable"), calls="none", options=PROBED)
EVERY = Run(("twins", "vulnerable"), options=(("probe", frozenset({"security-all"})),))


def test_the_canary_area_is_reached_from_any_base_tells_each_effect_and_is_removed_after():
    with canary.area() as area:
        file, content = area.plant_file()
        directory, entry = area.plant_dir()
        target = area.write_target()
        for base in ("/", "/srv", "/a/b/c/d/e/f/g/h/i/j/k/l"):
            for path in (file, directory, target):
                assert Path(os.path.normpath(os.path.join(base, area.traversal(path)))) == path
        assert content in file.read_text() and [p.name for p in directory.iterdir()] == [entry]
        assert [area.disturbed(p) for p in (file, directory, target)] == [None, None, None]
        file.write_text("x")
        (directory / entry).unlink()
        target.write_text("x")
        assert area.disturbed(file) == area.disturbed(directory) == "changed the canary"
        assert area.disturbed(target) == "wrote the canary path"
        file.unlink()
        assert area.disturbed(file) == "removed or moved the canary"
        assert area.holds(f"/srv/ws/{area.traversal(directory)}") and not area.holds(area.traversal(directory))
    assert not area.root.exists()


async def test_the_listener_records_what_was_asked_and_closes():
    async with canary.listener() as heard:
        path = canary.token()
        body = await asyncio.to_thread(lambda: urllib.request.urlopen(heard.url(path), timeout=5).read())
        assert body == b"ok" and heard.received(path) and heard.received(f"/{path}")
        assert not heard.received("never-asked")
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", heard.port), timeout=1):
        pass


def _urls_confined_on_the_deferred_twin(probe: frozenset[str], timeout: float, *args: str) -> dict[str | None, Finding]:
    """review.urls-confined alone against `twins.py deferred ARGS`, every tool callable: its finding per tool."""
    from mcp_review.checking import CheckPlan, run_check
    from mcp_review.rules.context import Options
    from mcp_review.rules.core import select
    from mcp_review.targets import stdio_target

    ignore = [r.id for r in select(["review"]) if r.id != "review.urls-confined"]
    options = Options(calls="all", probe=probe)
    target = stdio_target(fixture_argv("twins", "deferred", *args)).with_(timeout=timeout * slowness())
    review = asyncio.run(run_check(target, CheckPlan(packs=["review"], ignore=ignore, options=options)))
    return {f.subject: f for f in review.findings if f.rule == "review.urls-confined"}


def test_a_fetch_after_the_answer_fails_and_the_rule_waits_once():
    """A server that answers at once and fetches a second later (a queue, a webhook) still fails: the rule looks
    again once every call has had its wait. `--probe security-all` probes every tool's strings: ~3 s of wait in
    all, not 3 s per call (the figure is in the closing note's measurement, not asserted: a loaded machine)."""
    found = _urls_confined_on_the_deferred_twin(frozenset({"security", "security-all"}), 30)
    assert set(found) == TOOLS and found["fetch_url"].status == "fail", describe([*found.values()])
    assert "made the server request the canary listener" in found["fetch_url"].message
    assert all(f.status != "fail" for subject, f in found.items() if subject != "fetch_url")


def test_an_earlier_call_s_late_effect_fails_a_tool_whose_later_call_got_no_answer():
    """mirror_url takes `url` (fetched a second after the answer), then its `fallback_url` call never answers: the
    tool is not left blocking on that silence, the first call's late request fails it."""
    found = _urls_confined_on_the_deferred_twin(frozenset({"security"}), 2, "--mirror")
    mirror = found["mirror_url"]
    assert mirror.status == "fail" and mirror.message.startswith("'url' = "), describe([mirror])


@pytest.mark.quick
def test_no_payload_carries_its_own_proof():
    """An echo of the input can never pass for the effect: the proof is not in what is sent."""
    for payload in command_payloads() + template_payloads() + code_payloads():
        assert payload.proof not in payload.value
    assert len(template_payloads()) == 5 and len(command_payloads()) == 5 and len(code_payloads()) == 6


def by_subject(run: Run, rule: str) -> dict[str | None, Finding]:
    return {f.subject: f for f in findings(run)[rule]}


@pytest.mark.parametrize("rule", RULES)
def test_the_twins_get_different_verdicts(rule):
    bad, good = by_subject(VULNERABLE, rule), by_subject(HARDENED, rule)
    subject, fragment = EXPECT[rule]
    assert bad[subject].status == "fail" and fragment in bad[subject].message, describe([*bad.values()])
    assert good[subject].status == "pass", describe([*good.values()])
    assert bad[subject].evidence and good[subject].evidence, "a proof cites the call's exchange, and so does a pass"
    assert "no canary effect" in good[subject].message, "a pass names what was tried"
    assert not [f for f in good.values() if f.status in ("fail", "warn")], describe([*good.values()])
    assert verdict_of([*bad.values()]) == "FAIL" and verdict_of([good[subject]]) == "PASS"


@pytest.mark.parametrize("rule", RULES)
def test_without_probe_each_rule_blocks_once_on_the_server(rule):
    """One blocking finding for the server, naming the strings that could carry the payload: never n/a."""
    items = findings(UNPROBED)[rule]
    assert len(items) == 1 and items[0].status == "blocking" and items[0].subject is None, describe(items)
    assert "run with --probe security and --calls " in items[0].message and items[0].evidence
    assert f"{EXPECT[rule][0]}." in items[0].message, "it names the strings that could carry it"


@pytest.mark.parametrize("rule", RULES)
def test_a_tool_that_may_not_be_called_is_blocking(rule):
    items = findings(UNCALLABLE)[rule]
    assert items and all(f.status == "blocking" and "needs a call" in f.message for f in items), describe(items)
    assert {f.subject for f in items} == ({"login"} if rule == "review.secrets-not-echoed" else TOOLS)


@pytest.mark.parametrize("rule", RULES)
def test_every_string_is_a_carrier_and_security_all_lifts_the_budget(rule):
    """Every tool takes a string: each is probed by `--probe security` already (the secret echo rule only where a
    parameter holds a secret); `security-all` sends what the budget of calls per tool left out."""
    items = findings(EVERY)[rule]
    subject = EXPECT[rule][0]
    assert subject in [f.subject for f in items if f.status == "fail"], describe(items)
    probed = {f.subject for f in findings(VULNERABLE)[rule]}
    assert probed == ({subject} if rule == "review.secrets-not-echoed" else TOOLS), describe(items)
    assert all("left out by the budget" not in f.message for f in items), describe(items)


def test_probe_in_the_review_config(tmp_path):
    config = tmp_path / "mcp-review.toml"
    config.write_text('[options]\nprobe = ["security"]\n')
    loaded = load_config(config, set(), {"review"})
    assert loaded.build_options("all").probe == {"security"}
    assert loaded.build_options("all", ["security-all"]).probe == {"security", "security-all"}
    config.write_text('[options]\nprobe = ["security"]\ncalls_per_tool = 3\n')
    assert load_config(config, set(), {"review"}).build_options("all").calls_per_tool == 3
    config.write_text('[options]\nprobe = ["everything"]\n')
    with pytest.raises(ConfigFileError, match=r"options\.probe: expected a list of security, security-all"):
        load_config(config, set(), {"review"})


def test_the_probe_flag_of_check():
    twin = fixture_argv("twins", "vulnerable")
    out = check("--pack", "review", "--calls", "all", "--probe", "security", "-q", "--format", "json", "--", *twin)
    failed = {f["rule"] for f in json.loads(out.stdout)["findings"] if f["status"] == "fail"}
    assert out.returncode == 1 and failed >= set(RULES), out.stderr
    assert check("--probe", "everything", "--", *twin).returncode == 2
    assert check("--calls-per-tool", "0", "--", *twin).returncode == 2, "a budget of no call is a usage error"


def test_an_error_proves_traversal_only_when_the_system_answered_for_a_path_built_into_the_area():
    from mcp_review.calls import CallRecord
    from mcp_review.checks.review.probing import joined_outside

    def reply(text: str) -> CallRecord:
        return CallRecord("t", {}, "reviewer", result={"content": [{"type": "text", "text": text}], "isError": True})

    with canary.area() as area:
        payload = area.traversal(area.root / "read" / "x.txt")
        built = f"/srv/ws/{payload}"
        assert "Not a directory" in joined_outside(reply(f"[Errno 20] Not a directory: '{built}'"), area)
        assert joined_outside(reply(f"ENOENT: no such file or directory, open '{area.root}/read/x.txt'"), area)
        # what does not prove it: a refusal naming the path, an echo of the relative payload, an error with no path
        assert joined_outside(reply(f"Access denied - path outside allowed directories: {built}"), area) is None
        assert joined_outside(reply(f"[Errno 2] No such file or directory: '{payload}'"), area) is None
        assert joined_outside(reply("[Errno 2] No such file or directory"), area) is None
        assert joined_outside(reply(f"wrote 3 bytes to {built}"), area) is None
