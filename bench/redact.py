"""Masking throughput: `Redactor.text` over 1 MB and 10 MB of words with five secrets (10x the text should take
~10x the time, never 100x); over 1 MB of one repeated letter (a server chooses its text: the worst shape for a
substring test per form; with these five secrets 49 ms before the Aho-Corasick automaton, 19 ms with it, and with
the hostile harness's 75 forms 142 ms against 4 ms); and fifty passes over a long clean text (the digest answers:
no scan).

    .venv/bin/python bench/redact.py

The suite (tests/unit/test_secret_forms.py) checks what is masked and that a clean text is not scanned again;
the times are here, where a loaded machine cannot fail a test.
"""

from __future__ import annotations

import random
import string
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mcp_review.redact import Redactor
from tests.unit.test_secret_forms import SECRET, forms


def best(redactor: Redactor, text: str) -> float:
    """The best of three: a busy machine slows one run, not the algorithm."""
    times = []
    for _ in range(3):
        started = time.perf_counter()
        redactor.text(text)
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    secrets = [SECRET, "sk-" + "9f8e7d6c" * 5, "key-" + "01ab" * 8, "bt-" + "cd23" * 8, "hk-" + "77aa" * 8]
    rng = random.Random(7)
    words = ["".join(rng.choices(string.ascii_letters + string.digits, k=rng.randint(1, 10))) for _ in range(4000)]
    big = " ".join(rng.choices(words, k=1_800_000))[:10_000_000] + " " + " ".join(forms(SECRET).values())
    small = big[-1_000_000:]
    small_s, big_s = best(Redactor(secrets), small), best(Redactor(secrets), big)
    print(f"masked 1 MB in {small_s:.3f} s, 10 MB in {big_s:.3f} s: {big_s / small_s:.1f}x for 10x the text")
    times = []
    for letter in string.ascii_lowercase:  # a new text each time: a clean long text is remembered (no scan)
        redactor, repeated = Redactor(secrets), letter * 1_000_000
        started = time.perf_counter()
        redactor.text(repeated)
        times.append(time.perf_counter() - started)
    print(f"1 MB of one repeated letter, five secrets: {max(times):.4f} s for the slowest letter")
    clean = "D" * 900_000
    redactor = Redactor([SECRET])
    redactor.text(clean)
    started = time.perf_counter()
    for _ in range(50):
        redactor.text(clean)
    print(f"50 passes over a 900 KB clean text seen before: {time.perf_counter() - started:.4f} s")


if __name__ == "__main__":
    main()
