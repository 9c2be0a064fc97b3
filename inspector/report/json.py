"""The JSON review: a documented, stable shape (see README: "The JSON review").

{"tool": {"name", "version"}, "server": {...}, "target": {...}, "revision", "era", "transport", "packs",
 "verdict", "counts", "findings": [{"rule", "pack", "status", "subject", "subjectKind", "message", "source",
 "mode", "evidence": [wire seq, ...]}], "waivers", "attestations", "coverage", "tools", "tokens", "notes",
 "remarks": [{"by", "text", "rule", "subject", "at"}], "exchanges": {"seq": wire entry}, "created"}
"""

from __future__ import annotations

import json

from inspector.review import Review


def render(review: Review) -> str:
    return json.dumps(review.to_json(), indent=2, ensure_ascii=False) + "\n"
