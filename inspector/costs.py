"""What a listing costs, in tokens: the `list --format json` document, with no terminal output (rich) to load, so a
JSON listing never loads it; `render` prints the same figures as a table."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcp_review import __version__
from mcp_review.lock import skill_tokens
from mcp_review.skills import body as skill_body
from mcp_review.tokens import ESTIMATES, first_figures

if TYPE_CHECKING:
    from mcp_review.catalog import ServerSnapshot
    from mcp_review.skills import Catalog
    from mcp_review.tokens import TokenCounter

CANONICAL = "canonical JSON of the wire object (compact separators, sorted keys, UTF-8)"
WRAPPING_NOTE = "Hosts add their own wrapping around tool definitions, so real context cost differs."


def token_report(snapshot: ServerSnapshot, counter: TokenCounter) -> dict[str, Any]:
    """The `list --format json` document: every figure labelled with its encoding. The tools' figures are counted
    in one batch (`first_figures`): the numbers `breakdown` and `tools_total` give, a fraction of the time."""
    breakdowns, whole = first_figures(snapshot.tools.raw, counter.encoding, (counter.encoding,))
    tools: list[dict[str, Any]] = [
        {"name": item.name, "tokens": tokens, "problems": item.problems, "wireSeq": item.seq}
        for item, tokens in zip(snapshot.tools, breakdowns, strict=True)
    ]
    tools.sort(key=lambda t: -t["tokens"]["total"])

    def totals(kind: str) -> list[dict[str, Any]]:
        listing = snapshot.lists[kind]  # type: ignore[index]
        return [{"name": i.key, "tokens": counter.count_json(i.raw), "problems": i.problems} for i in listing]

    return {
        "tool": {"name": "mcp-review", "version": __version__},
        "server": {
            "name": snapshot.server_name,
            "version": snapshot.server_version,
            "info": snapshot.server_info,
        },
        "target": snapshot.target,
        "revision": snapshot.revision,
        "era": snapshot.era,
        "transport": snapshot.target.get("kind"),
        "encoding": counter.encoding,
        "counted": counted(counter.encoding),
        "tools": tools,
        "total": whole[counter.encoding],
        "instructions": counter.count_text(snapshot.instructions) if snapshot.instructions else 0,
        "prompts": totals("prompt"),
        "resources": totals("resource"),
        "templates": totals("template"),
        "listing": {
            listing.spec.key: {
                "declared": listing.declared,
                "count": len(listing),
                "pages": len(listing.seqs),
                "error": listing.error,
                "stopped": listing.stopped,
            }
            for listing in snapshot.lists.values()
        },
        "notes": snapshot.notes,
        **({"skills": skill_costs(snapshot.skills, counter)} if snapshot.skills is not None else {}),
    }


def skill_costs(catalog: Catalog, counter: TokenCounter) -> dict[str, Any]:
    """Each skill's cost: `tokens` its frontmatter (listed in context for every skill, as the lock counts it),
    `loaded` its SKILL.md once a host loads it (None: not read); and how the listing went."""
    skills: list[dict[str, Any]] = [
        {
            "uri": s.key,
            "name": s.name,
            "tokens": skill_tokens(counter, s),
            "loaded": counter.count_text(body) if (body := skill_body(s)) is not None else None,
            "dynamic": s.dynamic,
            "problems": s.problems,
            "wireSeq": s.seq,
        }
        for s in catalog.skills
    ]
    skills.sort(key=lambda s: -s["tokens"])
    return {"skills": skills, "pages": len(catalog.pages), "error": catalog.error, "stopped": catalog.stopped}


def counted(encoding: str) -> str:
    """How the figures of `encoding` were made: the wire text, or for an estimate the host's wrapping."""
    if encoding in ESTIMATES:
        return f"{ESTIMATES[encoding]()}: tools as the host wraps them, other objects as {CANONICAL}"
    return f"{CANONICAL}; {WRAPPING_NOTE}"
