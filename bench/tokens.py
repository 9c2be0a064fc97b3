"""Token-counting throughput: MB of canonical JSON per second through `TokenCounter.breakdown`.

.venv/bin/python bench/tokens.py [--tools 2000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from inspector.tokens import ENCODINGS, TokenCounter, canonical, get_encoding  # noqa: E402


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


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tools", type=int, default=2000)
    tools = sample_tools(p.parse_args().tools)
    for encoding in ENCODINGS:
        print(f"token counting {encoding}: {throughput(encoding, tools):.1f} MB/s")


if __name__ == "__main__":
    main()
