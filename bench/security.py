"""How well the scanner tells attacks from benign look-alikes, on the labelled corpus (tests/security/corpus/).

    .venv/bin/python bench/security.py [--show missed|false|all]

Each case's payload is walked where a server would send it (`mcp_review.surfaces`: a definition, a result, a
prompt, a resource, a client request, a log line) and scanned (`mcp_review.scan`), and its definitions and forms
are judged as the rules judge them (parameters that ask for secrets, forms that ask for them). A case is *caught* when
the scan gives a `fail` (what makes a review fail), *flagged* when it gives a `fail` or a `warn`. Printed
per category: recall on attacks (caught), the false-positive rate on benign cases (caught, and flagged),
and totals; then each twin pair of fixture servers (vulnerable and hardened, hostile and clean, leaky and
benign) reviewed for real, rule by rule, to show that the verdict tells them apart. Categories whose proof is a
behaviour (command injection, code execution, path traversal, SSRF: the active probes of `--probe security`; rug
pulls: the definition hash) are scanned like the rest, but the scanner is not what judges them: their rows are marked.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

from mcp_review import surfaces
from mcp_review.scan import asks, scan_text

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "security" / "corpus"
BEHAVIOUR = {"command-injection", "path-traversal", "ssrf", "rug-pull"}
CLIENT = {"sampling": "sampling/createMessage", "elicitation": "elicitation/create", "log": "notifications/message"}


def texts(case: dict[str, Any]) -> list[surfaces.Said]:
    """The texts of one case, found the way the review finds them for its surface."""
    surface, payload = case["surface"], case["payload"]
    if case["category"] == "rug-pull" and isinstance(payload, dict) and "after" in payload:
        payload = payload["after"]  # what the server says once approved
    if isinstance(payload, str):
        return [surfaces.Said(surface, payload)]
    if surface in CLIENT:
        params = payload.get("params", payload) if isinstance(payload, dict) else payload
        return list(surfaces.client_message({"method": CLIENT[surface], "params": params}))
    walk = {
        "result": surfaces.result,
        "prompt.messages": surfaces.prompt,
        "resource.contents": surfaces.contents,
        "error": surfaces.error,
    }.get(surface)
    found = list(walk(payload)) if walk else []
    if not found and isinstance(payload, dict):
        found = list(surfaces.definition(payload)) or list(surfaces.strings(payload, ""))
    if not found:
        found = list(surfaces.strings(payload, ""))
    return found


def definitions(value: Any) -> list[dict[str, Any]]:
    """Every tool definition in a payload (a tool, a listing, a rug pull's after)."""
    if isinstance(value, dict):
        found = [value] if "inputSchema" in value else []
        return found + [d for v in value.values() for d in definitions(v)]
    return [d for v in value for d in definitions(v)] if isinstance(value, list) else []


def structure(case: dict[str, Any]) -> bool:
    """What the rules judge beyond text, as they do: parameters that ask for secrets or context
    (review.descriptions-grounded), form elicitations that ask for secrets (review.client-requests-safe)."""
    payload = case["payload"]
    if any(asks.parameter_asks(d) for d in definitions(payload)):
        return True
    params = payload.get("params", payload) if isinstance(payload, dict) else None
    return case["surface"] == "elicitation" and isinstance(params, dict) and bool(asks.form_asks_secret(params))


def judge(case: dict[str, Any]) -> str:
    """The worst severity the review gives the case: "fail", "warn" or "clean"."""
    if structure(case):
        return "fail"
    worst = "clean"
    payload = case["payload"]
    tool = payload if isinstance(payload, dict) and "inputSchema" in payload else {}
    purpose = f"{tool.get('name') or ''} {tool.get('title') or ''}"  # as review.descriptions-grounded passes it
    for said in texts(case):
        for hit in scan_text(said.text, purpose):
            if hit.severity == "fail":
                return "fail"
            worst = "warn"
    return worst


def load() -> list[dict[str, Any]]:
    cases = []
    for name in ("attacks.jsonl", "benign.jsonl"):
        for line in (CORPUS / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                cases.append(json.loads(line))
    return cases


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--show", choices=["missed", "false", "all"], help="list the attacks missed / benign flagged")
    p.add_argument("--no-twins", action="store_true", help="skip the twin servers (the corpus only)")
    args = p.parse_args()
    cases = load()
    started = time.perf_counter()
    verdicts = {c["id"]: judge(c) for c in cases}
    seconds = time.perf_counter() - started
    rows: dict[str, Counter[str]] = {}
    for case in cases:
        row = rows.setdefault(case["category"], Counter())
        row[f"{case['label']}"] += 1
        row[f"{case['label']}:{verdicts[case['id']]}"] += 1
    print(f"{len(cases)} cases scanned in {seconds:.2f} s")
    print(f"{'category':<26}{'recall':>14}{'benign fail':>14}{'benign warn':>14}")
    total: Counter[str] = Counter()
    for category, row in sorted(rows.items()):
        total.update(row)
        print(_row(category + (" *" if category in BEHAVIOUR else ""), row))
    print(_row("all", total))
    judged: Counter[str] = Counter()
    for category, row in rows.items():
        if category not in BEHAVIOUR:
            judged.update(row)
    print(_row("all but *", judged))
    print("* proven by behaviour (active probes, definition hashes), not by the scanner")
    if not args.no_twins:
        twins()
    if args.show:
        for case in cases:
            verdict = verdicts[case["id"]]
            missed = case["label"] == "attack" and verdict != "fail"
            false = case["label"] == "benign" and verdict != "clean"
            if args.show == "all" or (args.show == "missed" and missed) or (args.show == "false" and false):
                print(f"{case['label']:<7}{verdict:<6}{case['category']:<26}{case['id']}")


# (what the twins prove, the fixture, its vulnerable and hardened modes, calling policy, probes, the rules judged,
# each with the status that proves it on the vulnerable twin when it is not `fail`: `rule:warn`)
TWINS = [
    (
        "behaviour (active probes)",
        "twins",
        ("vulnerable", "hardened"),
        "all",
        frozenset({"security"}),
        "paths-confined commands-not-injected urls-confined templates-inert secrets-not-echoed",
    ),
    (
        "behaviour: writes, listings and code (active probes, canary area)",
        "writer",
        ("naive", "confined"),
        "all",
        frozenset({"security"}),
        "paths-confined code-not-executed",
    ),
    (
        "what it says at run time",
        "speaks",
        ("hostile", "clean"),
        "read-only",
        frozenset(),
        "results-safe prompts-safe client-requests-safe descriptions-grounded",
    ),
    (
        "credentials and their look-alikes",
        "leaks",
        ("leaky", "benign"),
        "read-only",
        frozenset(),
        "results-safe descriptions-grounded",
    ),
    (
        "judged by what it is: credentials, exfiltration, payloads, disclosure, capabilities",
        "poisoned",
        ("poisoned", "clean"),
        "all",  # its every tool answers canned text
        frozenset(),
        "descriptions-grounded results-safe:warn capability-shell:warn capability-code:warn capability-file-write:warn "
        "capability-env-read:warn capability-network:warn",
    ),
    (
        "steering and excessive agency",
        "steering",
        ("vulnerable", "guarded"),
        "all",
        frozenset(),
        "descriptions-grounded",
    ),
]


def twins() -> None:
    """Each twin pair reviewed for real (stdio): the worst status per rule and the verdict, vulnerable beside
    hardened. A pair is separated when every rule fails on the one and passes on the other."""
    import asyncio
    import sys

    sys.path.insert(0, str(CORPUS.parents[2]))  # the repository: tests.support names the fixture servers
    from mcp_review.checking import CheckPlan, run_check
    from mcp_review.review import STATUSES
    from mcp_review.rules.context import Options
    from mcp_review.targets import stdio_target
    from tests.support import fixture_argv

    for what, server, modes, calls, probe, rules in TWINS:
        worst: dict[str, dict[str, str]] = {}
        verdicts = {}
        failing: dict[str, set[str]] = {}
        for mode in modes:
            plan = CheckPlan(packs=["review"], options=Options(calls=calls, probe=probe))  # type: ignore[arg-type]
            review = asyncio.run(run_check(stdio_target(fixture_argv(server, mode)), plan))
            verdicts[mode] = review.verdict
            failing[mode] = {f.rule for f in review.findings if f.status == "fail"}
            for rule in (r.split(":")[0] for r in rules.split()):
                statuses = {f.status for f in review.findings if f.rule == f"review.{rule}"}
                worst.setdefault(rule, {})[mode] = next((s for s in STATUSES if s in statuses), "none")
        bad, good = modes
        print(
            f"\ntwins, {what}: tests/servers/{server}.py {bad} / {good} (--calls {calls}"
            f"{', --probe ' + ','.join(sorted(probe)) if probe else ''})"
        )
        proven_by = dict((*r.split(":"), "fail")[:2] for r in rules.split())  # a capability or a disclosure: a warn
        for rule, by_mode in worst.items():
            apart = by_mode[bad] == proven_by[rule] and by_mode[good] == "pass"
            said = "separated" if apart else "NOT separated"
            print(f"  review.{rule:<28}{by_mode[bad]:>10} / {by_mode[good]:<10}{said}")
        shared = sorted(failing[bad] & failing[good])  # what both twins fail: their stack, not the defect
        both = f"  (both fail {', '.join(shared)})" if shared else ""
        print(f"  {'verdict':<35}{verdicts[bad]:>10} / {verdicts[good]}{both}")


def _row(name: str, row: Counter[str]) -> str:
    attacks, benign = row["attack"], row["benign"]
    recall = f"{row['attack:fail']}/{attacks} {_pct(row['attack:fail'], attacks)}"
    false = f"{row['benign:fail']}/{benign} {_pct(row['benign:fail'], benign)}"
    warned = f"{row['benign:warn']}/{benign} {_pct(row['benign:warn'], benign)}"
    return f"{name:<26}{recall:>14}{false:>14}{warned:>14}"


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:3.0f}%" if whole else "  -"


if __name__ == "__main__":
    main()
