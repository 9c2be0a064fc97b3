"""Pack `review` (seed 003): a skill is text the model reads, scanned as a tool's description is."""

from __future__ import annotations

from collections.abc import AsyncIterator

from mcp_review import surfaces
from mcp_review.checks.review.common import SEED, scanned, verdict
from mcp_review.checks.spec.skills import CHECKED, listed, unread
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule


@rule(
    "review.skills-safe",
    concern="security",
    severity="high",
    modes=("static", "probe"),
    source=f"{SEED} Security: descriptions-grounded; SEP-2640",
)
async def skills_safe(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Skills hide nothing from the user: their frontmatter and every file are scanned as a tool description is.

    What it checks: for each skill the skills extension lists (SEP-2640), every string of its entry's
    `frontmatter` (name, description, and every other field) and the text of every file of its manifest, read
    with `resources/read` (a blob that decodes to UTF-8 too), through the same scanner (`mcp_review.scan`) and the
    same judgement (`checks/review/common.scanned`) as tool descriptions and prompt messages. A skill's files are
    meant to instruct the model, so an order addressed to the model is their purpose (as in a prompt); hidden
    instructions, reading secrets, sending data away and proven steering are not.

    Why: seed 003 descriptions-grounded; SEP-2640 Security Considerations: "Hosts MUST treat MCP-served skill
    content as untrusted model input, subject to the same prompt-injection defenses applied to any
    server-provided text." A skill's description sits in the model's context like a tool's, and its SKILL.md is
    loaded whole when the skill is used.

    Known false positives: a skill about security that quotes an attack (an `<IMPORTANT>` example in a guide to
    prompt injection) fails as the same text in a tool description would; waive it saying so.

    Passes: nothing hidden, leaked or steering. Fails: a hostile or leaky span. Warns: a suspicious one.
    Blocking: skills past the first 50, files past the read budget, a listing that stopped. n/a: the extension is
    not declared, or nothing is listed.

    To verify when blocking: read the remaining skills by hand (the app's Skills view shows each file).
    """
    catalog = await listed(ctx)
    if isinstance(catalog, Finding) or not catalog.skills:
        yield catalog if isinstance(catalog, Finding) else ctx.na(None, "skills/list lists no skill")
        return
    for skill in catalog.skills[:CHECKED]:
        said = list(surfaces.strings(skill.frontmatter, "frontmatter"))
        fails, warns = scanned(said, purpose=skill.name)
        read_texts = [surfaces.Said(uri, r.text) for uri, r in skill.reads.items() if r.text is not None]
        more = scanned(read_texts, instructs=True, purpose=skill.name)
        seqs = [skill.seq, *(r.seq for r in skill.reads.values())][:10]
        clean = f"its frontmatter and {len(read_texts)} file(s) say nothing hidden, leaked or steering"
        yield verdict(ctx, skill.key, (fails + more[0], warns + more[1]), seqs, clean)
    missed = unread(ctx, catalog)
    if missed:
        yield missed
