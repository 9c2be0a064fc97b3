"""Token counting: throughput through `TokenCounter.breakdown`, and the app's first figures at scale.

.venv/bin/python bench/tokens.py [--tools 2000] [--sizes 1000 10000]

First MB of canonical JSON per second per encoding. Then, on `tests/servers/many.py`'s tools, the seconds to
the figures the app's first screen waits for (issue 12): each tool's breakdown in the default encoding and
the list's total in every encoding, counted one call at a time (`breakdown` per tool, `tools_total` per
encoding) and as one batch (`mcp_review.costs`: texts made once, distinct ones counted once, on a thread pool).
Counted in a thread as the app counts, with the event loop's worst lag meanwhile (how long a key could wait;
the worst of 3 runs) and the fastest of 3 (the machine is shared). The two ways must give the same numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.tui import Lag  # noqa: E402
from mcp_review.costs import Costs  # noqa: E402
from mcp_review.encodings import ENCODINGS, get_encoding  # noqa: E402
from mcp_review.tokens import TokenCounter, canonical  # noqa: E402
from tests.servers.many import generate_tools  # noqa: E402
from tests.support import listed  # noqa: E402

Figures = tuple[list[dict[str, int]], dict[str, int]]


def sample_tools(n: int) -> list[dict]:
    """Realistic tool definitions: prose descriptions, a nested typed input schema, annotations."""
    return [
        {
            "name": f"records_search_{i}",
            "title": f"Search records ({i})",
            "description": (
                f"Search collection {i} for records matching a free-text query. Returns id, title and "
                "updated_at of each match, newest first. Use when the user asks to find something stored earlier."
            ),
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "Full-text query", "minLength": 1},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
                    "filter": {
                        "type": "object",
                        "properties": {"tag": {"type": "string"}, "since_ms": {"type": "integer"}},
                    },
                },
                "required": ["query"],
            },
            "annotations": {"readOnlyHint": True, "openWorldHint": False},
        }
        for i in range(n)
    ]


def throughput(encoding: str, tools: list[dict]) -> float:
    """MB/s of canonical JSON counted per tool with its per-field breakdown (encoding load excluded)."""
    counter = TokenCounter(encoding)
    get_encoding(encoding)
    size = sum(len(canonical(t).encode()) for t in tools)
    started = time.perf_counter()
    for tool in tools:
        counter.breakdown(tool)
    return size / (time.perf_counter() - started) / 1e6


def one_at_a_time(tools: list[object]) -> Figures:
    counter = TokenCounter()
    return [counter.breakdown(t) for t in tools], {e: TokenCounter(e).tools_total(tools) for e in ENCODINGS}


def batched(tools: list[object]) -> Figures:
    """As the app's first screen and `list` count them: a snapshot's `Costs`, the default encoding's breakdowns
    and every encoding's total."""
    costs = Costs(listed(tools))
    return costs.of().tools, {e: costs.of(e).total for e in ENCODINGS}


async def in_a_thread(count: Callable[[list[object]], Figures], tools: list[object]) -> tuple[float, float, Figures]:
    """Seconds, and the event loop's worst lag meanwhile: counted in a thread, as the app counts."""
    with Lag() as lag:
        started = time.perf_counter()
        figures = await asyncio.to_thread(count, tools)
        took = time.perf_counter() - started
    return took, lag.worst, figures


def best_of_3(count: Callable[[list[object]], Figures], tools: list[object]) -> tuple[str, Figures]:
    runs = [asyncio.run(in_a_thread(count, tools)) for _ in range(3)]
    took, lag = min(r[0] for r in runs), max(r[1] for r in runs)
    return f"{took:.2f} s (loop waited up to {lag * 1000:.0f} ms)", runs[0][2]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tools", type=int, default=2000)
    p.add_argument("--sizes", type=int, nargs="*", default=[1000, 10000])
    args = p.parse_args()
    tools = sample_tools(args.tools)
    for encoding in ENCODINGS:
        print(f"token counting {encoding}: {throughput(encoding, tools):.1f} MB/s")
    for size in args.sizes:
        many: list[object] = list(generate_tools(size))
        plain, expected = best_of_3(one_at_a_time, many)
        fast, figures = best_of_3(batched, many)
        same = "same figures" if figures == expected else "DIFFERENT FIGURES"
        print(f"{size:>6} tools, breakdowns + totals: one at a time {plain}, batched {fast}, {same}")


if __name__ == "__main__":
    main()
