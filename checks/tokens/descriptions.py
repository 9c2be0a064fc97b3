"""Pack `tokens`, seed 000 §9 Tool description: the four-element template."""

from __future__ import annotations

import re
from collections.abc import Iterator

from mcp_review.checks.tokens.common import SEED, named_tools
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule

TEMPLATE = (
    ("when to use", re.compile(r"when to use", re.I)),
    ("parameters", re.compile(r"parameters?:", re.I)),
    ("limitations", re.compile(r"limitations?:", re.I)),
)


@rule(
    "tokens.description-template",
    concern="conventions",
    severity="low",
    modes=("static",),
    source=f"{SEED} §9 Tool description: 4-element template",
)
def description_template(ctx: CheckContext) -> Iterator[Finding]:
    """Descriptions have a purpose sentence, "When to use", "Parameters" and "Limitations".

    What it checks: static: each tool description must be non-empty (the purpose) and contain "When to use",
    "Parameters:" and "Limitations:" (case-insensitive, singular allowed).

    Why: seed 000 §9: the four-element template (purpose, when to use, parameters, limitations) answers what agents
    most often get wrong about a tool (arXiv 2602.14878: 97.1% of MCP tools have description deficiencies).

    Known false positives: the headings are matched literally: a description that covers the same ground in other
    words ("Use this to ...", "Caveats:") fails, since the seed asks for its template. The purpose is only tested
    for being non-empty. The pack is for seed 000's servers only.

    Passes: all four elements. Fails: any of the four elements missing (listed).
    """
    for tool in named_tools(ctx):
        text = tool.description or ""
        missing = ([] if text.strip() else ["purpose"]) + [n for n, pattern in TEMPLATE if not pattern.search(text)]
        yield ctx.fail(tool, f"missing: {', '.join(missing)}") if missing else ctx.passed(tool, "all four elements")
