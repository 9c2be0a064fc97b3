"""The behaviour rules (checks/review/behaviour.py) off the confined path: tests/rules/test_rules.py proves each both
ways confined and observed, as mcp-review runs a server by default; here the same defects (tests/servers/behaving.py)
run unconfined (`--no-confine`, the reviewer's own files: HOME is a temporary directory here) and observed, where each
rule still fails but review.secrets-sent (no canary to follow: blocking), and unobserved, where every rule is
blocking, never a pass. The network defects run in a network namespace of the test's own (`unshare --net`, as root),
so nothing leaves this machine even unconfined; without one they are left out."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from functools import cache
from pathlib import Path

from mcp_review.checking import CheckPlan, run_check
from mcp_review.review import Attestation, Review
from mcp_review.rules.context import Options
from mcp_review.targets import Confinement, stdio_target
from tests.rules.cases import ONE_DEFECT
from tests.rules.runs import MANUAL, RULES, worst
from tests.support import PYTHON, SERVERS, fixture_argv, run_cli

BEHAVIOUR = sorted(r for r in RULES if RULES[r].fn.__module__.endswith(".behaviour"))
NETWORK = ("phones-home", "closed-world-connects")
DEFECTS = sorted(name for name, (_, rule) in ONE_DEFECT.items() if rule in BEHAVIOUR)


@cache
def namespaced() -> bool:
    """Can this process give a command a network namespace of its own (root, and unshare)?"""
    unshare = shutil.which("unshare")
    return bool(unshare) and subprocess.run([unshare, "--net", "true"], capture_output=True).returncode == 0


def review(tmp: Path, names: list[str], observe: bool) -> Review:
    argv = fixture_argv("defects", ",".join(names)) if names else fixture_argv("profiled", "exemplary")
    if any(n in NETWORK for n in names):
        argv = ["unshare", "--net", "--", *argv]
    target = stdio_target(argv, env={"HOME": str(tmp)}, cwd=str(tmp))
    target = target.with_(confinement=Confinement(confine=False, observe=observe, run=f"unconfined-{tmp.name}"))
    attested = [Attestation(rule, "test", "fixture attests pass") for rule in MANUAL]
    plan = CheckPlan(packs=["review"], options=Options(calls="all"), attestations=attested)
    return asyncio.run(run_check(target, plan))


def statuses(review: Review) -> dict[str, str]:
    found: dict[str, list] = {}
    for f in review.findings:
        if f.rule in BEHAVIOUR:
            found.setdefault(f.rule, []).append(f)
    return {rule: worst(items) for rule, items in found.items()}


def test_each_rule_fails_unconfined_and_observed(tmp_path: Path):
    names = [n for n in DEFECTS if namespaced() or n not in NETWORK]
    got = statuses(review(tmp_path, names, observe=True))
    expected = {ONE_DEFECT[n][1]: "fail" for n in names} | {"review.secrets-sent": "blocking"}
    assert {rule: got.get(rule) for rule in expected} == expected
    assert not (tmp_path / ".aws").exists(), "a read of a credential that is not there is still the act"


def test_the_twin_is_never_a_pass_unconfined(tmp_path: Path):
    """Observed but unconfined (the reviewer's own files and network): what it did is judged, a fail stands (above),
    but nothing is a pass: blocking, naming the confinement that would make it one."""
    reviewed = review(tmp_path, [], observe=True)
    assert statuses(reviewed) == dict.fromkeys(BEHAVIOUR, "blocking")
    said = [f.message for f in reviewed.findings if f.rule in BEHAVIOUR and f.rule != "review.secrets-sent"]
    assert said and all("ran unconfined" in m and "not a pass until it runs confined" in m for m in said), said


def test_unobserved_every_rule_is_blocking_never_a_pass(tmp_path: Path):
    reviewed = review(tmp_path, DEFECTS[:2], observe=False)
    assert statuses(reviewed) == dict.fromkeys(BEHAVIOUR, "blocking")
    said = {f.message for f in reviewed.findings if f.rule in BEHAVIOUR}
    assert any("ran unconfined (--no-confine) and unobserved" in m and "--observe" in m for m in said), said
    assert os.environ.get("HOME") != str(tmp_path)


def test_where_this_machine_cannot_confine_or_observe_one_line_says_so_and_nothing_passes(tmp_path: Path):
    """No bubblewrap and no strace on PATH (as on another OS, or a container without them): `check` says before the
    server starts that it runs unconfined and unobserved, and why; the review records it; every behaviour rule is
    blocking, naming what would observe it."""
    out = tmp_path / "review.json"
    empty = tmp_path / "bin"
    empty.mkdir()
    done = run_cli(
        "check", "-q", "--pack", "review", "--calls", "all", "--format", "json", "--out", str(out),
        "--", PYTHON, str(SERVERS / "behaves.py"),
        env={"PATH": str(empty), "HOME": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode in (1, 3), done.stderr
    said = [line for line in done.stderr.splitlines() if line.startswith("mcp-review: the server runs")]
    assert len(said) == 2 and "unconfined" in said[0] and "bubblewrap is not installed" in said[0], done.stderr
    assert "unobserved" in said[1] and "strace is not installed" in said[1]
    data = json.loads(out.read_text())
    (ran,) = data["behaviour"]["processes"]
    assert not ran["confined"] and not ran["observed"] and "bubblewrap" in ran["unconfinedBecause"]
    found = {f["rule"]: f for f in data["findings"] if f["rule"] in BEHAVIOUR}
    assert {r: f["status"] for r, f in found.items()} == dict.fromkeys(BEHAVIOUR, "blocking")
    assert all("observing it needs strace" in f["message"] for f in found.values())
