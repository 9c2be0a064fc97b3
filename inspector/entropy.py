"""How random a string is: Shannon entropy, the threshold a random token reaches, and how word-like it is.

Below everything that reads it: the scanner judges a credential's value by it (`scan.values`, `scan.credentials`),
and masking whether a secret's pieces identify it (`secret_forms.key_part`).

Calibrated on random tokens (recall ~86-92% for base62/base64url at the threshold) and on the ~900 letter+digit
tokens of this venv's site-packages (only real base64 remained above it).
"""

from __future__ import annotations

import math
import re
from collections import Counter

_WORD_RUN = re.compile(r"[A-Z]?[a-z]{3,}|[A-Z]{4,}")


def entropy(s: str) -> float:
    """Shannon entropy of `s` in bits per character."""
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values()) if n else 0.0


def entropy_threshold(length: int) -> float:
    """Bits per character a token of `length` must reach to count as random (~3rd percentile of base62)."""
    return min(0.85 * math.log2(length), 4.5)


def wordiness(s: str) -> float:
    """Share of `s` in word-like runs (`Validator`, `load`, `HTTP`): ~0.2 for random base62, >0.6 for names."""
    return sum(len(w) for w in _WORD_RUN.findall(s)) / len(s) if s else 0.0


def randomish(s: str) -> bool:
    """12+ characters with letters and digits, not in word-like runs, of more than 6 distinct characters."""
    return (
        len(s) >= 12
        and any(c.isdigit() for c in s)
        and any(c.isalpha() for c in s)
        and wordiness(s) < 0.5
        and len(set(s)) > 6
    )
