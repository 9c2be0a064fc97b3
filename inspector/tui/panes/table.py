"""What the panes' filters share."""

from __future__ import annotations


def split_filter(needle: str) -> tuple[set[str], str]:
    """A filter's `status:X` words (exact statuses) and the rest (text to find), lower case."""
    words = needle.lower().split()
    statuses = {w.removeprefix("status:") for w in words if w.startswith("status:")}
    return statuses, " ".join(w for w in words if not w.startswith("status:"))
