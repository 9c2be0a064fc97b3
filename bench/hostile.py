"""The hostile corpus, every case in every mode: outcome, wall time and peak RSS, then the totals.

.venv/bin/python bench/hostile.py [--timeout S] [--jobs N] [CASE ...]

Each run is `tests.hostile.harness.run` (a fresh network namespace when the machine allows it, secrets
planted, artifacts grepped, orphans and connections to other hosts looked for); then every hostile repository of
`tests.hostile.repository` under the trust judge (a verdict, call or state its own files changed). Goal: every
total 0.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.hostile import repository
from tests.hostile.cases import BY_NAME, CASES
from tests.hostile.harness import run

KINDS = ("crash", "hang", "secret", "egress", "orphan", "terminal", "memory", "trust", "json", "injection")


def kinds_of(outcome: dict) -> list[str]:
    judged = ("crash", "hang", "secret", "egress", "terminal", "memory", "trust", "json", "injection")
    found = [k for k in judged if outcome.get(k)]
    found += ["orphan"] if outcome.get("orphans") else []
    return found


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("cases", nargs="*")
    p.add_argument("--timeout", type=float, default=2.0)
    p.add_argument("--jobs", type=int, default=3)
    args = p.parse_args()
    names = [n for n in args.cases if n not in repository.BY_NAME] if args.cases else [c.name for c in CASES]
    repos = [n for n in args.cases if n in repository.BY_NAME] if args.cases else list(repository.BY_NAME)
    jobs = [(name, mode) for name in names for mode in BY_NAME[name].modes]
    totals = dict.fromkeys(KINDS, 0)
    classes: dict[str, list[int]] = {}  # the class a case attacks -> [runs, runs with a problem]
    started, isolated = time.monotonic(), False
    print(f"{'case':19} {'mode':6} {'outcome':24} {'wall s':>7} {'peak MB':>8}  note")
    with ThreadPoolExecutor(args.jobs) as pool:
        for outcome in pool.map(lambda job: run(job[0], job[1], BY_NAME[job[0]].timeout or args.timeout), jobs):
            bad, isolated = kinds_of(outcome), bool(outcome.get("isolated"))
            for kind in bad:
                totals[kind] += 1
            tally = classes.setdefault(BY_NAME[outcome["case"]].attacks, [0, 0])
            tally[0] += 1
            tally[1] += bool(bad)
            problems = outcome.get("leaks", []) + outcome.get("trust", []) + outcome.get("json", [])
            note = outcome.get("crash") or "; ".join((problems + outcome.get("injection", []))[:2])
            note = note or outcome.get("error_line", "")
            if keys := (outcome.get("app") or {}).get("keys"):  # seconds until r, then q, were handled
                note = f"keys answered in {keys} s; {note}"
            print(
                f"{outcome['case']:19} {outcome['mode']:6} {','.join(bad) or 'ok':24} "
                f"{outcome.get('seconds', 0):7.2f} {outcome.get('rss_mb', 0):8.1f}  {note[:90]}",
                flush=True,
            )
        for outcome in pool.map(repository.run, repos):  # the checkout's own files: the trust judge
            totals["trust"] += not outcome["ok"]
            note = "; ".join(outcome["trust"])
            print(f"{outcome['case']:19} {outcome['mode']:6} {'trust' if note else 'ok':24} {'':7} {'':8}  {note[:90]}")
    where = "in a fresh network namespace" if isolated else "NOT isolated (no unshare -n)"
    print(
        f"\n{len(jobs)} runs ({len(names)} cases, each in its modes, --timeout {args.timeout:g}) and {len(repos)} "
        f"hostile repositories, {where}, "
        f"{time.monotonic() - started:.0f} s"
    )
    print("totals: " + ", ".join(f"{k} {v}" for k, v in totals.items()))
    print("runs with a problem, per class attacked: " + ", ".join(f"{c} {b}/{n}" for c, (n, b) in classes.items()))


if __name__ == "__main__":
    main()
