"""What the probes find on the project's own vulnerable fixture servers, with and without consent (issue 37).

    .venv/bin/python bench/probes.py [--only NAME] [--show]

Each fixture of tests/servers that plants a defect the probing half proves (a sink behind any name, a defect
behind a value the server's text offers, a write or send done without asking, a secret echoed, a server that dies
under a probe, a foreign Origin served) is reviewed for real, over its transport, twice: without consent (the
defaults: no call, no probe) and with it (`--calls all --probe security`; `--calls read-only` for a server whose
tools all say they are read-only, as a reviewer would). Its hardened twin is reviewed the same way. Printed per
server: the findings its docstring expects that were caught (a `fail` for that rule and tool), the fails that no
docstring expects (false flags: on a hardened twin, every fail among the judged rules), and the blocking left.
Totals at the end: recall with and without consent, and precision (expected fails over all fails).
Only the rules the probing half owns are judged (`JUDGED`); the other rules' findings are not counted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository: tests.support names the fixtures

from mcp_review.checking import CheckPlan, run_check
from mcp_review.review import Review
from mcp_review.rules.context import Options
from mcp_review.targets import Target, http_target, stdio_target
from tests.support import fixture_argv, free_port, running

PROBES = ("paths-confined", "commands-not-injected", "code-not-executed", "urls-confined", "templates-inert")
JUDGED = {f"review.{r}" for r in (*PROBES, "secrets-not-echoed", "survives-probes", "browser-origins-refused")}
JUDGED |= {"tokens.destructive-elicitation", "review.results-safe"}
Expected = frozenset[tuple[str, str | None]]


@dataclass(frozen=True)
class Case:
    name: str
    argv: tuple[str, ...]  # the fixture and its mode
    expect: Expected  # (rule, tool) its docstring says a review must fail; empty for a hardened twin
    http: str | None = None  # None: stdio; "--http" or "--sse"
    calls: str = "all"  # the consent a reviewer gives it
    packs: tuple[str, ...] = ("review",)


def _e(*pairs: str) -> Expected:
    return frozenset((f"{p.split('/')[0]}", p.split("/")[1] or None) for p in pairs)


GUARDED = ("review", "tokens")
CASES = [
    Case("twins vulnerable", ("twins", "vulnerable"), _e(
        "review.paths-confined/read_file", "review.commands-not-injected/run_ping", "review.urls-confined/fetch_url",
        "review.templates-inert/render_greeting", "review.secrets-not-echoed/login",
        "review.paths-confined/fetch_url")),  # urllib opens file:// too: the unchecked fetch reads local files
    Case("twins hardened", ("twins", "hardened"), _e()),
    Case("writer naive", ("writer", "naive"), _e(
        "review.paths-confined/write_file", "review.paths-confined/list_directory",
        "review.paths-confined/move_file", "review.paths-confined/delete_file", "review.code-not-executed/run_code")),
    Case("writer confined", ("writer", "confined"), _e()),
    Case("sinks vulnerable", ("sinks", "vulnerable"), _e(
        "review.paths-confined/open_document", "review.paths-confined/read_documents",
        "review.commands-not-injected/apply_config", "review.commands-not-injected/update_settings",
        "review.code-not-executed/calculate")),
    Case("sinks vulnerable http", ("sinks", "vulnerable"), _e(
        "review.paths-confined/open_document", "review.paths-confined/read_documents",
        "review.commands-not-injected/apply_config", "review.commands-not-injected/update_settings",
        "review.code-not-executed/calculate"), http="--http"),
    Case("sinks hardened", ("sinks", "hardened"), _e()),
    Case("offered vulnerable", ("offered", "vulnerable"), _e(
        "review.results-safe/check_service", "review.templates-inert/export_report",
        "review.commands-not-injected/run_action"), calls="read-only"),
    Case("offered hardened", ("offered", "hardened"), _e(), calls="read-only"),
    Case("guarded acts", ("guarded", "acts"), _e(
        "review.paths-confined/write_file", "tokens.destructive-elicitation/delete_note",
        "tokens.destructive-elicitation/send_email", "review.secrets-not-echoed/unlock"), packs=GUARDED),
    Case("guarded refuses", ("guarded", "refuses"), _e(), packs=GUARDED),
    Case("guarded plain", ("guarded", "plain"), _e(), packs=GUARDED),
    Case("guarded plain http", ("guarded", "plain"), _e(), http="--http", packs=GUARDED),
    Case("fragile crash-on-payload", ("fragile", "crash-on-payload"), _e("review.survives-probes/")),
    Case("fragile crash-on-payload http", ("fragile", "crash-on-payload"), _e("review.survives-probes/"),
         http="--http"),
    Case("fragile crash-on-second-stream", ("fragile", "crash-on-second-stream"), _e("review.survives-probes/"),
         http="--sse"),
    Case("fragile drop-on-second-stream", ("fragile", "drop-on-second-stream"), _e("review.survives-probes/"),
         http="--sse"),
    Case("fragile steady", ("fragile", "steady"), _e()),
    Case("fragile steady sse", ("fragile", "steady"), _e(), http="--sse"),
    Case("good open origin sse", ("good", "--unsafe-origin", "--cors-any"), _e("review.browser-origins-refused/"),
         http="--sse"),
    Case("good open origin http", ("good", "--unsafe-origin", "--cors-any"), _e("review.browser-origins-refused/"),
         http="--http"),
    Case("good sse", ("good",), _e(), http="--sse"),
]  # fmt: skip


@contextlib.contextmanager
def target_of(case: Case) -> Iterator[Target]:
    if case.http is None:
        yield stdio_target(fixture_argv(*case.argv)).with_(timeout=30)
        return
    port = free_port()
    with running(fixture_argv(case.argv[0], case.http, "--port", str(port), *case.argv[1:]), port):
        yield http_target(f"http://127.0.0.1:{port}{'/sse' if case.http == '--sse' else '/mcp'}").with_(timeout=30)


def review(case: Case, consent: bool) -> Review:
    probe = frozenset({"security"}) if consent else frozenset()
    options = Options(calls=case.calls if consent else "none", probe=probe)  # type: ignore[arg-type]
    era = "legacy" if case.http == "--sse" else "auto"
    with target_of(case) as target:
        return asyncio.run(run_check(target, CheckPlan(packs=list(case.packs), options=options, era=era)))


def judged(found: Review) -> tuple[set[tuple[str, str | None]], int]:
    fails = {(f.rule, f.subject) for f in found.findings if f.rule in JUDGED and f.status == "fail"}
    blocking = sum(1 for f in found.findings if f.rule in JUDGED and f.status == "blocking")
    return fails, blocking


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", help="the cases whose name contains this")
    p.add_argument("--show", action="store_true", help="print the message of every false flag and miss")
    args = p.parse_args()
    cases = [c for c in CASES if not args.only or args.only in c.name]
    totals = {"expected": 0, "caught": 0, "caught0": 0, "false": 0, "false0": 0}
    print(f"{'server':<32}{'caught, no consent':>20}{'caught, consent':>17}{'false':>7}{'blocking':>10}{'s':>6}")
    for case in cases:
        started = time.perf_counter()
        without, with_ = review(case, False), review(case, True)
        (fails0, _), (fails, blocking) = judged(without), judged(with_)
        seconds = time.perf_counter() - started
        n = len(case.expect)
        caught0, caught = len(fails0 & case.expect), len(fails & case.expect)
        false0, false = fails0 - case.expect, fails - case.expect
        totals["expected"] += n
        totals["caught"] += caught
        totals["caught0"] += caught0
        totals["false"] += len(false)
        totals["false0"] += len(false0)
        print(f"{case.name:<32}{f'{caught0}/{n}':>20}{f'{caught}/{n}':>17}{len(false):>7}{blocking:>10}{seconds:>6.0f}")
        if args.show:
            for f in with_.findings:
                if f.status == "fail" and (f.rule, f.subject) in false:
                    print(f"    FALSE {f.rule} {f.subject}: {f.message[:160]}")
            for key in sorted(case.expect - fails, key=str):
                said = [f"{f.status}: {f.message[:140]}" for f in with_.findings if (f.rule, f.subject) == key]
                print(f"    MISSED {key}: {'; '.join(said) or 'no finding'}")
    t = totals
    fails = t["caught"] + t["false"]
    precision = f"{100 * t['caught'] / fails:.0f} %" if fails else "-"
    print(
        f"\nexpected {t['expected']}: caught {t['caught0']} without consent ({t['false0']} false), "
        f"{t['caught']} with consent ({t['false']} false; precision {precision})"
    )


if __name__ == "__main__":
    main()
