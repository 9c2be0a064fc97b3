"""Scanner throughput: how long `scan_text` takes over 10,000 typical tool descriptions.

.venv/bin/python bench/scan.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.tokens import sample_tools
from mcp_review.scan import scan_text


def main() -> None:
    texts = [t["description"] for t in sample_tools(10000)]
    started = time.perf_counter()
    hits = sum(len(scan_text(t)) for t in texts)
    took = time.perf_counter() - started
    size = sum(len(t) for t in texts) / 1e6
    print(f"scanned {len(texts)} descriptions ({size:.1f} MB) in {took:.2f} s ({size / took:.1f} MB/s), {hits} hits")


if __name__ == "__main__":
    main()
