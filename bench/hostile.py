"""The hostile corpus, every case in every mode: outcome, wall time and peak RSS, then the totals.

.venv/bin/python bench/hostile.py [--timeout S] [--jobs N] [CASE ...]

Each run is `tests.hostile.harness.run` (a fresh network namespace when the machine allows it, secrets
planted, artifacts grepped, orphans and connections to other hosts looked for). Goal: every total 0.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.hostile.cases import BY_NAME, CASES, MODES
from tests.hostile.harness import run

KINDS = ("crash", "hang", "leak", "orphan", "terminal", "memory")


def kinds_of(outcome: dict) -> list[str]:
    found = [k for k in ("crash", "hang", "terminal", "memory") if outcome.get(k)]
    found += ["leak"] if outcome.get("leaks") else []
    found += ["orphan"] if outcome.get("orphans") else []
    return found


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("cases", nargs="*")
    p.add_argument("--timeout", type=float, default=2.0)
    p.add_argument("--jobs", type=int, default=3)
    args = p.parse_args()
    names = args.cases or [c.name for c in CASES]
    jobs = [(name, mode) for name in names for mode in MODES]
    totals = dict.fromkeys(KINDS, 0)
    started = time.monotonic()
    print(f"{'case':17} {'mode':6} {'outcome':24} {'wall s':>7} {'peak MB':>8}  note")
    with ThreadPoolExecutor(args.jobs) as pool:
        for outcome in pool.map(lambda job: run(job[0], job[1], BY_NAME[job[0]].timeout or args.timeout), jobs):
            bad = kinds_of(outcome)
            for kind in bad:
                totals[kind] += 1
            note = outcome.get("crash") or "; ".join(outcome.get("leaks", [])[:2]) or outcome.get("error_line", "")
            print(
                f"{outcome['case']:17} {outcome['mode']:6} {','.join(bad) or 'ok':24} "
                f"{outcome.get('seconds', 0):7.2f} {outcome.get('rss_mb', 0):8.1f}  {note[:90]}",
                flush=True,
            )
    isolated = "in a fresh network namespace" if outcome.get("isolated") else "NOT isolated (no unshare -n)"
    print(
        f"\n{len(jobs)} runs ({len(names)} cases x {len(MODES)} modes, --timeout {args.timeout:g}), {isolated}, "
        f"{time.monotonic() - started:.0f} s"
    )
    print("totals: " + ", ".join(f"{k} {v}" for k, v in totals.items()))


if __name__ == "__main__":
    main()
