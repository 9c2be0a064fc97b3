"""Pack `review` (seed 003): nothing a server declares goes unreviewed.

`JUDGED` is the one list of the declared surfaces mcp-review's rules judge, each with the rules that judge it: a
rule that starts judging a new surface adds it here, and `tests/unit/test_declared_surfaces.py` checks that every rule
named here exists.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from mcp_review.apps import EXTENSION, meta
from mcp_review.catalog import Item
from mcp_review.checks.apps.model import app_like
from mcp_review.checks.review.common import SEED
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule
from mcp_review.skills import EXTENSION as SKILLS_EXTENSION

CSP_RULES = ("apps.csp-origins-only", "apps.origins-declared", "apps.origins-used")
APPS: tuple[str, ...] = ("apps.resource-resolves", *CSP_RULES, "apps.permissions-justified")
APPS += ("apps.visibility-honest", "apps.domain-set", "apps.page-safe", "apps.cost")
TASKS: tuple[str, ...] = ("spec.tasks", "spec.task-methods", "spec.task-status", "spec.task-iserror")
TASKS += ("spec.task-ttl", "spec.task-unsolicited")
SKILLS: tuple[str, ...] = (
    "spec.skills-methods",
    "spec.skills-frontmatter",
    "spec.skills-digest",
    "spec.skills-directory-read",
)
SKILLS += ("spec.skills-caching", "spec.skills-static", "review.skills-safe")
JUDGED: dict[str, tuple[str, ...]] = {
    # the server's capabilities (top-level keys)
    "capabilities.tools": ("review.input-schema", "review.descriptions-grounded", "review.annotations-set"),
    "capabilities.resources": (
        "review.descriptions-grounded",
        "review.no-overlap",
        "spec.capabilities",
        "spec.resource-subscriptions",
        "spec.resource-not-found",
    ),
    "capabilities.prompts": ("review.prompts-safe", "spec.capabilities"),
    "capabilities.logging": ("spec.capabilities", "spec.logging-level", "review.client-requests-safe"),
    "capabilities.completions": ("spec.completion",),
    "capabilities.tasks": TASKS,
    # what the server declares outside the protocol: its registry entry (the plan finds it)
    "server.json": ("review.server-json",),
    # extensions (SEP-2133: keys of capabilities.extensions)
    f"capabilities.extensions.{EXTENSION}": APPS,
    "capabilities.extensions.io.modelcontextprotocol/tasks": TASKS,  # SEP-2663, the 2026-07-28 tasks extension
    f"capabilities.extensions.{SKILLS_EXTENSION}": SKILLS,
    # `_meta` keys on tools and resources that hosts act on: MCP Apps (ext-apps 2026-01-26), the OpenAI Apps SDK
    "_meta.ui.resourceUri": ("apps.resource-resolves",),
    "_meta.ui/resourceUri": ("apps.resource-resolves",),
    "_meta.ui.visibility": ("apps.visibility-honest",),
    "_meta.ui.csp": CSP_RULES,
    "_meta.ui.permissions": ("apps.permissions-justified",),
    "_meta.ui.domain": ("apps.domain-set",),
    "_meta.ui.prefersBorder": ("apps.resource-resolves",),
    "_meta.openai/outputTemplate": ("apps.resource-resolves",),
    "_meta.openai/widgetCSP": CSP_RULES,
    "_meta.openai/widgetDomain": ("apps.domain-set",),
    "_meta.openai/visibility": ("apps.visibility-honest",),
    "_meta.openai/widgetAccessible": ("apps.visibility-honest",),
}
# `_meta` keys a known host acts on: every key in these namespaces, and these keys (ChatGPT reads `securitySchemes`)
HOST_NAMESPACES = ("ui/", "openai/")
HOST_KEYS = ("ui", "securitySchemes")
SHOWN = 5  # carriers named per finding
LISTED = 50  # surfaces with a finding each; a hostile server can declare 100,000 experimental entries
KEY_CHARS = 120  # characters of a declared key kept in a subject


def _meta_surfaces(raw: Any) -> list[str]:
    """The host-read `_meta` surfaces one definition carries: `ui` is read key by key."""
    out = []
    for key, value in meta(raw).items():
        if key == "ui" and isinstance(value, dict):
            out += [f"_meta.ui.{sub}" for sub in value] or ["_meta.ui"]
        elif key in HOST_KEYS or key.startswith(HOST_NAMESPACES):
            out.append(f"_meta.{key}")
    return out


async def declared(ctx: CheckContext) -> dict[str, list[tuple[str, int | None]]]:
    """surface -> [(who declares it, the exchange that shows it)], in the order the server declared them."""
    out: dict[str, list[tuple[str, int | None]]] = {}
    hello = ctx.snapshot.hello_seq
    if ctx.options.server_json:
        out["server.json"] = [(f"file {ctx.options.server_json}", None)]
    for name, value in ctx.snapshot.capabilities.items():
        if name in ("extensions", "experimental") and isinstance(value, dict):
            for key in value:
                out.setdefault(f"capabilities.{name}.{key}", []).append(("the server", hello))
        elif name not in ("extensions", "experimental"):
            out.setdefault(f"capabilities.{name}", []).append(("the server", hello))
    items: list[Item] = [*ctx.snapshot.tools, *ctx.snapshot.resources, *ctx.snapshot.templates]
    for item in items:
        for surface in _meta_surfaces(item.raw):
            out.setdefault(surface, []).append((f"{item.kind} {item.key}", item.seq))
    pages = await app_like(ctx) or {}
    for page in pages.values():
        contents = {"_meta": page.meta}  # the listing's `_meta` updated by what resources/read answered
        for surface in _meta_surfaces(contents):
            out.setdefault(surface, []).append((f"resource {page.uri} (contents)", page.seq))
    return out


@rule(
    "review.declared-surfaces-reviewed",
    concern="security",
    severity="medium",
    modes=("static", "probe"),
    source=f"{SEED} Review: blocking, not passes",
)
async def declared_surfaces_reviewed(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Everything the server declares is reviewed: a surface no rule judges is blocking, never silently skipped.

    What it checks: static (and `resources/read` of app resources, as pack `apps` reads them): every capability the
    server declares (each top-level key of `capabilities`), every key of `capabilities.extensions` (SEP-2133), every
    entry of `capabilities.experimental`, and every `_meta` key on tools, resources and templates that a known host
    acts on (the MCP Apps keys under `_meta.ui` and `ui/`, the OpenAI Apps SDK's `openai/*` keys, and
    `securitySchemes`), and the registry `server.json` the plan found (`--server-json`, or one in the working
    directory; judged by `review.server-json`). Each surface is looked up in `JUDGED` (checks/review/declared.py),
    the one list of what mcp-review's rules judge; one finding per surface names who declares it.

    Why: seed 003: "Mark items you cannot verify as blocking, not as passes." A server that declares a surface (an
    unknown extension, an experimental capability, a host key that changes what the user sees) and a review that
    says nothing about it reads as if the whole server had been reviewed.

    Known false positives: a surface judged by a rule this run did not select (`--pack`, `--ignore`) is blocking,
    saying which rules would judge it. `_meta` keys outside the hosts' namespaces (`com.example/trace`) are not
    listed: no known host acts on them. Sub-flags of a capability (`listChanged`, `subscribe`) are judged as
    shapes by `spec.capabilities` and are not listed apart. Only the first 50 surfaces get a finding each; the
    rest are one blocking finding that counts them.

    Passes: a surface that selected rules judge (the finding names them). Blocking: a surface no rule of
    mcp-review judges (an unknown extension, any `experimental` entry, `openai/widgetDescription`),
    or one whose rules were not selected.

    To verify when blocking: review the surface by hand (what the server does with it, and what a host does) and
    waive the finding with what you found; or select the pack whose rules judge it.
    """
    found = await declared(ctx)
    selected = ctx.options.rules
    more = list(found)[LISTED:]
    if more:
        shown = ", ".join(s[:KEY_CHARS] for s in more[:SHOWN])
        yield ctx.blocking("more surfaces", f"{len(more):,} more declared surfaces not judged one by one: {shown}…")
    for surface, carriers in list(found.items())[:LISTED]:
        who = ", ".join(dict.fromkeys(c for c, _ in carriers[:SHOWN])) + (
            f" and {len(carriers) - SHOWN} more" if len(carriers) > SHOWN else ""
        )
        seqs = list(dict.fromkeys(s for _, s in carriers if s))[:SHOWN]
        judges = JUDGED.get(surface, ())
        running = [r for r in judges if selected is None or r in selected]
        if running:
            yield ctx.passed(surface[:KEY_CHARS], f"declared by {who}; judged by {', '.join(running)}", seqs)
        elif judges:
            why = f"declared by {who}; judged by {', '.join(judges)}, which this run did not select"
            yield ctx.blocking(surface[:KEY_CHARS], why, seqs)
        else:
            yield ctx.blocking(surface[:KEY_CHARS], f"declared by {who}: mcp-review does not review it", seqs)
