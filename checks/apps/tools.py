"""Pack `apps`: the tools around an app: visibility honest, permissions justified, and what the app costs."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterator

from mcp_review.apps import meta, ui_meta
from mcp_review.catalog import Item
from mcp_review.checks.apps.model import NOT_APP, app_like, app_tools, purpose, read_pages
from mcp_review.checks.apps.origins import facts
from mcp_review.checks.apps.page import quote
from mcp_review.checks.apps.resources import SOURCE
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule

VISIBILITIES = {"model", "app"}


def _app_only(tool: Item) -> bool:
    """Hidden from the model: `_meta.ui.visibility` without "model", or `openai/visibility: "private"`."""
    seen = ui_meta(tool.raw).get("visibility")
    return (isinstance(seen, list) and "model" not in seen) or meta(tool.raw).get("openai/visibility") == "private"


def _shape(tool: Item) -> list[str]:
    out = []
    ui = ui_meta(tool.raw)
    if "visibility" in ui:
        seen = ui["visibility"]
        if not (isinstance(seen, list) and seen and all(v in VISIBILITIES for v in seen)):
            out.append(f"_meta.ui.visibility is {seen!r}, not a non-empty list of 'model'/'app'")
    said = meta(tool.raw).get("openai/visibility")
    if said is not None and said not in ("public", "private"):
        out.append(f"_meta.openai/visibility is {said!r}, not 'public' or 'private'")
    hidden_ui = isinstance(ui.get("visibility"), list) and "model" not in ui["visibility"]
    if said in ("public", "private") and isinstance(ui.get("visibility"), list) and hidden_ui != (said == "private"):
        out.append(f"_meta.ui.visibility {ui['visibility']} and openai/visibility {said!r} disagree")
    return out


@rule("apps.visibility-honest", concern="apps", severity="medium", modes=("static",), source=f"{SOURCE}: Visibility")
def visibility_honest(ctx: CheckContext) -> Iterator[Finding]:
    """A tool hidden from the model (app-only) is not offered to the model anyway.

    What it checks: static: `_meta.ui.visibility` is a non-empty list of "model"/"app", `openai/visibility` is
    "public" or "private", and the two agree when both are set. For each app-only tool (visibility without
    "model", or `openai/visibility: "private"`), no text the model reads offers it: the server's instructions, the
    descriptions of tools the model sees, prompt descriptions. Its name quoted there is the proof.

    Why: ext-apps 2026-01-26, Visibility: a host "MUST NOT include tools in the agent's tool list when their
    visibility does not include "model"". A tool marked app-only and then named to the model in another
    description is hidden from the tool list but still steered to: the review of what the model can do misses it,
    and a host that reads only one of the two keys shows the model what the other key hides.

    Spec: ext-apps 2026-01-26 (SEP-1865)

    Known false positives: an app-only tool named like a common word (`refresh`) may match prose that means the
    word: such a name only warns.

    Passes: visibility well-formed and no app-only tool offered to the model. Fails: a malformed or contradictory
    visibility, or an app-only tool named in text the model reads. Warns: an app-only tool with a common-word name
    found in such text. n/a: no tool sets a visibility or names an app.
    """
    tools = app_tools(ctx)
    if not tools:
        yield ctx.na(None, "no tool sets a visibility or names an app")
        return
    hidden = [t for t in tools if _app_only(t)]
    texts: list[tuple[str, str, Item | None]] = [("instructions", ctx.snapshot.instructions or "", None)]
    texts += [(f"tool {t.key}: description", t.description or "", t) for t in ctx.snapshot.tools if not _app_only(t)]
    texts += [(f"prompt {p.key}: description", p.description or "", p) for p in ctx.snapshot.prompts]
    for tool in tools:
        fails, warns, seqs = _shape(tool), list[str](), list[int | None]()
        if tool in hidden:
            plain = re.fullmatch(r"[a-z]+", tool.key) is not None
            for where, text, item in texts:
                found = re.search(rf"(?<![\w-]){re.escape(tool.key)}(?![\w-])", text)
                if found:
                    (warns if plain else fails).append(
                        f"app-only, yet offered to the model in {where}: {quote(text, found.start(), found.end())}"
                    )
                    seqs.append(item.seq if item is not None else ctx.snapshot.hello_seq)
        if fails:
            yield ctx.fail(tool, "; ".join(fails + warns), seqs)
        elif warns:
            yield ctx.warn(tool, "; ".join(warns), seqs)
        else:
            shown = "app-only, named in no text the model reads" if tool in hidden else "visible to the model"
            yield ctx.passed(tool, shown)


# permission -> (the API, a pattern of the page's use of it, words of a purpose that needs it)
PERMISSIONS = {
    "camera": (
        "getUserMedia",
        r"getUserMedia|mediaDevices",
        r"camera|photo|video|scan|qr|barcode|selfie|webcam|picture",
    ),
    "microphone": (
        "getUserMedia",
        r"getUserMedia|mediaDevices|SpeechRecognition",
        r"microphone|voice|audio|record|speech|dictat|transcri|call|podcast",
    ),
    "geolocation": (
        "navigator.geolocation",
        r"\bgeolocation\b",
        r"location|map|nearby|geo|gps|direction|weather|where",
    ),
    "clipboardWrite": (
        "navigator.clipboard",
        r"\bclipboard\b|execCommand\s*\(\s*[\"']copy",
        r"copy|clipboard|share|export",
    ),
}


@rule(
    "apps.permissions-justified",
    concern="security",
    severity="medium",
    modes=("static", "probe"),
    source=f"{SOURCE}: UI Resource Format (permissions)",
)
async def permissions_justified(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Each permission an app asks for (camera, microphone, geolocation, clipboard) is justified by its purpose.

    What it checks: static and `resources/read`: each key of the app resource's `_meta.ui.permissions`. The page
    must use it (camera and microphone: `getUserMedia`/`mediaDevices`; geolocation: `navigator.geolocation`;
    clipboardWrite: `navigator.clipboard` or a copy command), and the name, title or description of a tool that
    shows the app must say why (a camera for scanning or photos, a location for maps or weather).

    Why: ext-apps 2026-01-26: the host maps permissions to the iframe's `allow` attribute; a user asked for the
    camera by an app whose purpose needs none is asked for too much, and a page that never calls the API proves
    the request is unjustified.

    Spec: ext-apps 2026-01-26 (SEP-1865)

    Known false positives: the purpose test is a word list: a tool whose description names its need in other
    words warns. A page that uses the API through a script it loads from another origin is blocking, not a fail.

    Passes: every permission used by the page and named by the tool's purpose, or none asked for. Fails: a
    permission the page never uses (its whole code read), or a malformed permission value. Warns: a permission the
    page uses but the tool's purpose never explains, or one the spec does not define. Blocking: a permission the
    page's own code never uses while it loads scripts from other origins. n/a: nothing app-like, or no page read.

    To verify when blocking: read the scripts the page loads from other origins for the API.
    """
    read = await read_pages(ctx)
    if isinstance(read, Finding):
        yield read
        return
    for page in read:
        subject = page.listed or page.uri
        asked = page.ui.get("permissions")
        if asked is None or asked == {}:
            yield ctx.passed(subject, "asks for no permission", page.evidence)
            continue
        if not isinstance(asked, dict):
            yield ctx.fail(subject, f"_meta.ui.permissions is {asked!r}, not an object", page.evidence)
            continue
        external = [r.origin for r in facts(page.html).reaches if r.quote.startswith("<script")]
        fails: list[str] = []
        warns: list[str] = []
        blocks: list[str] = []
        for name, value in asked.items():
            if name not in PERMISSIONS:
                warns.append(
                    f"{name}: not a permission the spec defines (camera, microphone, geolocation, clipboardWrite)"
                )
                continue
            api, uses, needs = PERMISSIONS[name]
            if not isinstance(value, dict):
                fails.append(f"{name} is {value!r}, not an object")
            elif not re.search(uses, page.html):
                line = f"{name}: the page never uses it (no {api} in its code)"
                (blocks if external else fails).append(
                    line + (f"; it loads scripts from {external[0]}" if external else "")
                )
            elif not re.search(needs, purpose(page), re.I):
                tools = ", ".join(t.key for t in page.tools)
                why = f"the purpose of {tools} never says why" if tools else "no tool names the page to say why"
                warns.append(f"{name}: used by the page, but {why}")
        if fails:
            yield ctx.fail(subject, "; ".join(fails + blocks + warns), page.evidence)
        elif blocks:
            yield ctx.blocking(subject, "; ".join(blocks + warns), page.evidence)
        elif warns:
            yield ctx.warn(subject, "; ".join(warns), page.evidence)
        else:
            yield ctx.passed(subject, f"{', '.join(asked)}: used by the page, explained by its tool", page.evidence)


PAGE_BUDGET = 1024 * 1024  # bytes of one app page: hosts read and cache it per conversation
MODEL_SHARE = 2000  # tokens of `content` beyond which the model pays for what the app shows


@rule("apps.cost", concern="apps", severity="low", modes=("static", "probe", "call"), source=f"{SOURCE}: Data Passing")
async def cost(ctx: CheckContext) -> AsyncIterator[Finding]:
    """An app costs little: a small bundle, and the data the app shows reaches the app, not the model.

    What it checks: static and `resources/read`: each app page's size (bytes and cl100k_base tokens; over 1 MiB
    warns). call: each tool that shows an app is called once (the review's shared sample call): the tokens of its
    `content` (what reaches the model) against those of `structuredContent` and `_meta` (what the app renders);
    more than 2,000 tokens of `content` while the app gets `structuredContent` warns.

    Why: ext-apps 2026-01-26, Data Passing: `content` is the "text representation for model context",
    `structuredContent` is "optimized for UI rendering (not added to model context)": data only the app needs,
    sent as `content`, is paid for in the model's context on every call; a large bundle is read by the host for
    every conversation.

    Spec: ext-apps 2026-01-26 (SEP-1865)

    Known false positives: a tool whose model-facing text must be long (a report the model summarises) warns;
    SDKs that mirror `structuredContent` into a text block for older clients double it by design.

    Passes: pages under 1 MiB and model-facing content under 2,000 tokens. Warns: a larger page, or more
    model-facing content. Blocking: a tool that may not be called, or a call with no answer. n/a: nothing app-like.

    To verify when blocking: `--calls read-only` for a tool annotated readOnlyHint: true, `--calls all` (the
    reviewer's consent) for any other.
    """
    found = await app_like(ctx)
    if found is None:
        yield ctx.na(None, NOT_APP)
        return
    for page in found.values():
        if page.seq is None or page.error:
            continue
        size = len(page.html.encode("utf-8", "replace"))
        said = f"{size:,} bytes, {ctx.counter.count_text(page.html):,} tokens"
        subject = page.listed or page.uri
        if size > PAGE_BUDGET:
            yield ctx.warn(subject, f"{said}: over {PAGE_BUDGET:,} bytes", page.evidence)
        else:
            yield ctx.passed(subject, said, page.evidence)
    for tool in [t for t in app_tools(ctx) if t.name and not _app_only(t)]:
        what = "what reaches the model and the app"
        if ctx.may_call(tool) is not None:
            yield ctx.blocking_call(tool, what)
            continue
        record = await ctx.sample_call(tool)
        assert record is not None
        blocked = ctx.unanswered(tool, record, what)
        if blocked:
            yield blocked
            continue
        result = record.result if isinstance(record.result, dict) else {}
        model = ctx.counter.count_text(json.dumps(result.get("content", []), ensure_ascii=False))
        app = ctx.counter.count_text(json.dumps([result.get("structuredContent"), result.get("_meta")], default=str))
        said = f"{model:,} tokens reach the model (content), {app:,} only the app (structuredContent, _meta)"
        if model > MODEL_SHARE and "structuredContent" in result:
            yield ctx.warn(tool, f"{said}: over {MODEL_SHARE:,} for the model", [record.seq])
        else:
            yield ctx.passed(tool, said, [record.seq])
