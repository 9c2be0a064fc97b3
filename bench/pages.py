"""How the apps pack's page reader grows with a hostile page: the pages tests/rules/test_rules_apps.py reads (built
to make a reader backtrack), at 1x and 2x their size; a linear reader prints a ratio near 2.

.venv/bin/python bench/pages.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mcp_review.checks.apps.page import read_page
from mcp_review.checks.apps.safety import posts_to_any, sinks

PAGES = {
    "a chain of names": (lambda n: "a." * (500_000 * n) + "postMessage(x, '*');", lambda t: list(posts_to_any(t))),
    "unclosed calls": (lambda n: "<script>" + "fetch(" * (200_000 * n) + "</script>", read_page),
    "repeated sinks": (lambda n: "x.innerHTML = data;" * (100_000 * n), lambda t: list(sinks(t))),
}


def took(read, text: str) -> float:
    started = time.process_time()
    read(text)
    return time.process_time() - started


def main() -> None:
    for name, (make, read) in PAGES.items():
        one, two = took(read, make(1)), took(read, make(2))
        print(
            f"{name:18} {len(make(1)) / 1e6:4.1f} MB: {one:.3f} s of CPU, twice the size {two:.3f} s ({two / one:.2f}x)"
        )


if __name__ == "__main__":
    main()
