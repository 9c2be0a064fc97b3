"""Pack `spec` (seed 002 and the MCP specification): tool names and order, unknown methods, ping, pagination, icons."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from typing import Any

from mcp_review.catalog import LISTS, Item, list_all
from mcp_review.checks.spec.common import SEED, stated
from mcp_review.connection.protocol import MODERN
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule

TOOL_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")


@rule("spec.tool-names", concern="protocol", severity="medium", modes=("static",), source=f"{SEED} Protocol layer")
def tool_names(ctx: CheckContext) -> Iterator[Finding]:
    """Tool names follow the revision's guidance (1-128 characters of A-Z a-z 0-9 _ . -) and are unique across pages.

    What it checks: static: every listed tool name, across all pages, against 1-128 characters of `[A-Za-z0-9_.-]`,
    and uniqueness. Each is a SHOULD (2025-11-25 server/tools.mdx:219-224, 2026-07-28 :311-316): a name that breaks
    it, or one listed twice, warns. A tool without a name fails: the schema requires one (MUST).

    Why: seed 002 protocol layer; MCP 2025-11-25 tool names (SEP-986): clients key tools by name, some refuse other
    characters, and a duplicate makes calls ambiguous.

    Spec: 2025-11-25, 2026-07-28 tool names (SEP-986; spec.md TL-03)

    Known false positives: the spec text (2025-11-25, 2026-07-28) says 1-128 characters from `[A-Za-z0-9_.-]`;
    SEP-986 itself and the conformance suite say 1-64 and also allow `/`. This rule follows the spec text and notes
    names over 64 characters: a name with `/`, which the conformance suite accepts, warns. Before 2025-11-25 the
    guidance did not exist: a name is judged by the 2025-11-25 SHOULD, and the message says so. A duplicate also
    fails review.precise-names (seed 003 asks for unique names).

    Passes: valid and unique (a name over 64 characters is noted). Fails: no name. Warns: a duplicate, a name
    breaking the guidance.
    """
    rev = ctx.revision
    since = "" if ctx.revision_at_least("2025-11-25") else f"; {rev} has no naming guidance: this is 2025-11-25's"
    seen: set[str] = set()
    for tool in ctx.snapshot.tools:
        name = tool.name
        if name is None:
            yield ctx.fail(tool, "has no name: the schema requires one")
            continue
        if name in seen:
            unique = stated("tool-names-unique", rev)
            yield ctx.warn(tool, f"{name!r} is listed more than once: names SHOULD be unique ({unique}){since}")
            continue
        seen.add(name)
        if not TOOL_NAME.match(name):
            bad = sorted({c for c in name if not re.match(r"[A-Za-z0-9_.-]", c)})
            why = f"{len(name)} characters" if not 1 <= len(name) <= 128 else f"characters {bad!r}"
            should = f"a name SHOULD be 1-128 characters of A-Z a-z 0-9 _ - . ({stated('tool-names', rev)}){since}"
            yield ctx.warn(tool, f"{name!r} breaks the naming rule ({why}): {should}")
        else:
            note = " (over 64 characters: SEP-986 and the conformance suite cap at 64)" if len(name) > 64 else ""
            yield ctx.passed(tool, "valid and unique" + note)


@rule("spec.tool-order", concern="protocol", severity="low", modes=("observe",), source=f"{SEED} Protocol layer")
async def tool_order(ctx: CheckContext) -> AsyncIterator[Finding]:
    """On 2026-07-28, `tools/list` gives the same tools in the same order each time.

    What it checks: observe: on 2026-07-28, `tools/list` is asked twice more in a row (every page) on the review's
    session, as the conformance suite does, and the names in order compared with the first listing's. n/a on
    earlier revisions (they state no order) and on a server that declares no tools.

    Why: 2026-07-28 server/tools.mdx:71: servers SHOULD return tools in a deterministic order while the set is
    unchanged, so that clients can cache the list and a model's prompt cache keeps hitting; the conformance suite
    checks it (tools-list-deterministic-order).

    Spec: 2026-07-28 server/tools.mdx:71 (SHOULD; spec.md TL-13)

    Known false positives: none known for the order; a set that changed between the listings (a tool added
    or removed, which review.rug-pull-mitigation judges) is not judged for order, and the note says so.

    Passes: the same names in the same order. Warns: the same names in another order (a SHOULD). Blocking: a
    listing cut short (a limit of mcp-review's, or an error: nothing to compare).

    To verify when blocking: a longer --timeout (or --budget), or larger caps (MCP_REVIEW_LIMITS listing_pages,
    listing_items), so every listing is walked to its end.
    """
    if ctx.era != "modern":
        where = stated("tool-order", MODERN)
        yield ctx.na(None, f"only 2026-07-28 states a tool order ({where}); {ctx.revision} states none")
        return
    if "tools" not in ctx.snapshot.capabilities:
        yield ctx.na(None, "the server declares no tools")
        return
    spec = next(s for s in LISTS if s.kind == "tool")
    listings = [ctx.snapshot.tools, await list_all(ctx.session, spec), await list_all(ctx.session, spec)]
    seqs = [listing.seqs[0] for listing in listings if listing.seqs]
    cut = [why for listing in listings for why in (listing.error, listing.stopped) if why]
    if cut:
        yield ctx.blocking(None, f"tools/list gave no full listing to compare ({'; '.join(cut)})", seqs)
        return
    first, *later = [[t.name for t in listing] for listing in listings]
    if all(names == first for names in later):
        yield ctx.passed(None, f"tools/list 3 times: the same {len(first)} tools in the same order", seqs)
    elif any(sorted(names, key=str) != sorted(first, key=str) for names in later):
        yield ctx.note(None, "the tools listed changed between listings: their order is not judged", seqs)
    else:
        names = next(names for names in later if names != first)
        moved = next(i for i, (a, b) in enumerate(zip(first, names, strict=True)) if a != b)
        yield ctx.warn(
            None,
            f"tools/list 3 times, the same tools in another order (position {moved + 1}: {first[moved]!r}, then "
            f"{names[moved]!r}): servers SHOULD list tools in a deterministic order ({stated('tool-order', MODERN)})",
            seqs,
        )


@rule(
    "spec.unknown-method",
    concern="protocol",
    severity="low",
    modes=("probe",),
    source=f"{SEED} Server & framework layer: handler dispatch",
)
async def unknown_method(ctx: CheckContext) -> AsyncIterator[Finding]:
    """An unknown method gets JSON-RPC -32601 (and HTTP 404 on 2026-07-28 Streamable HTTP).

    What it checks: probe: `mcp-review/no-such-method` on the review's session; the JSON-RPC error code, and on
    2026-07-28 Streamable HTTP the HTTP status.

    Why: seed 002 handler dispatch; JSON-RPC 2.0 and RPC-05: clients tell "not supported" from "failed" by -32601;
    2026-07-28 adds HTTP 404.

    Spec: JSON-RPC 2.0; 2026-07-28 HTTP: 404 + -32601 (RPC-05)

    Known false positives: none known: JSON-RPC 2.0 defines -32601 for an unknown method. A request that gets no
    answer in time stops the rule as blocking (could not finish), not as a fail.

    Passes: -32601 (with 404 on 2026-07-28 Streamable HTTP). Fails: another code or a result; -32601 with another
    HTTP status on 2026-07-28.
    """
    reply = await ctx.session.request("mcp-review/no-such-method", {})
    code = (reply.error or {}).get("code")
    if code != -32601:
        yield ctx.fail(None, f"unknown method -> {code if reply.error else 'a result'}, not -32601", [reply.seq])
    elif ctx.era == "modern" and ctx.target.kind == "http" and reply.delivery.status != 404:
        yield ctx.fail(None, f"-32601 with HTTP {reply.delivery.status}; 2026-07-28 requires 404", [reply.seq])
    else:
        yield ctx.passed(None, "unknown method -> -32601", [reply.seq])


@rule("spec.ping", concern="protocol", severity="low", modes=("probe",), source=f"{SEED} Server & framework layer")
async def ping(ctx: CheckContext) -> AsyncIterator[Finding]:
    """`ping` is answered promptly with an empty result.

    What it checks: probe: `ping` on the review's session, waiting the probe timeout; the answer must be the empty
    result `{}`. n/a on 2026-07-28, which removed `ping` (spec.removed-methods judges that it answers -32601, with
    404 over HTTP).

    Why: seed 002 server layer; PING-01: clients and gateways use ping to tell a live connection from a dead one;
    the spec requires an empty result.

    Spec: ≤2025-11-25 (PING-01)

    Known false positives: none known. A `ping` that gets no answer within the probe timeout stops the rule as
    blocking (could not finish), not as a fail.

    Passes: `{}`. Fails: an error or any other result.
    """
    if ctx.era == "modern":
        yield ctx.na(None, "2026-07-28 removed ping: spec.removed-methods judges that it is answered as removed")
        return
    reply = await ctx.session.request("ping", None, timeout=ctx.probe_timeout)
    if reply.error is None and reply.result == {}:
        yield ctx.passed(None, f"answered {{}} in {reply.latency * 1000:.0f} ms", [reply.seq])
    else:
        yield ctx.fail(None, f"ping -> {reply.error or reply.result!r:.120}, not an empty result", [reply.seq])


@rule(
    "spec.pagination",
    concern="protocol",
    severity="medium",
    modes=("probe", "static"),
    source=f"{SEED} Server & framework layer",
)
async def pagination(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Cursors work (no loops, no duplicates across pages); an invalid cursor gets -32602.

    What it checks: static: the listing already walked every page of every list (loop guard on); a listing that
    stopped on a cursor defect fails. probe: `tools/list` with an invalid cursor on the review's session.
    Duplicate tool names across pages are judged by `spec.tool-names`.

    Why: seed 002 server layer; PAG-01, PAG-02: a cursor that comes back makes a client page forever, and an invalid
    cursor SHOULD get -32602 rather than silently restart the list.

    Spec: ≥2025-03-26 (PAG-01, PAG-02)

    Known false positives: none known for the fails: only a defect the server showed (a cursor that came
    back, a nextCursor that is not a string) fails. A listing stopped by a limit of mcp-review's (a later
    page with no answer in time, walking over 4 x --timeout, the caps of 500 pages, 12,000 items and 1 M
    characters of cursors sent back) is blocking. Cursors go back exactly as sent, so one the review shows cut
    or masked is still followed, and two cursors alike up to the cut are no loop.
    An invalid cursor accepted only warns.

    Passes: every list walked to its end; an invalid cursor -> -32602. Fails: a listing stopped early (a loop, a
    non-string cursor, a timeout or a cap). Warns: an invalid cursor accepted or answered with another code (a
    SHOULD). n/a for the cursor probe when the server declares no tools. Blocking: a listing stopped by a limit.

    To verify when blocking: a longer --timeout (or --budget), or larger caps (MCP_REVIEW_LIMITS
    listing_pages, listing_items, cursor), so the whole listing can be walked.
    """
    for listing in ctx.snapshot.lists.values():
        if listing.stopped and listing.broken:
            yield ctx.fail(listing.spec.key, listing.stopped, listing.seqs[-1:])
        elif listing.stopped:  # a limit of mcp-review's (time, page cap, a slow page): not the server's defect
            yield ctx.blocking(
                listing.spec.key,
                f"{listing.stopped}: the rest was not walked (a longer --timeout would, or a larger cap)",
                listing.seqs[-1:],
            )
    if "tools" not in ctx.snapshot.capabilities:
        yield ctx.na(None, "no tools to page through")
        return
    reply = await ctx.session.request("tools/list", {"cursor": "!!mcp-review-invalid-cursor!!"})
    code = (reply.error or {}).get("code")
    pages = len(ctx.snapshot.tools.seqs)
    if code == -32602:
        yield ctx.passed(None, f"{pages} page(s) walked; an invalid cursor -> -32602", [reply.seq])
    elif reply.error is not None:
        yield ctx.warn(None, f"an invalid cursor -> {code}; the spec says -32602", [reply.seq])
    else:
        yield ctx.warn(None, "an invalid cursor was accepted (SHOULD be -32602)", [reply.seq])


ICON_THEMES = ("light", "dark")


def _icon_problems(icons: Any) -> list[str]:
    if not isinstance(icons, list):
        return ["icons is not an array"]
    problems = []
    for i, icon in enumerate(icons):
        if not isinstance(icon, dict) or not isinstance(icon.get("src"), str):
            problems.append(f"icons[{i}] is not an object with a string src")
            continue
        scheme, colon, _ = icon["src"].partition(":")
        if not colon or not scheme.isalpha():
            problems.append(f"icons[{i}].src {icon['src'][:60]!r} is not an absolute URI (https:, http: or data:)")
        elif scheme.lower() not in ("https", "data", "http"):
            problems.append(f"icons[{i}].src uses {scheme.lower()}: (only https, http or data)")
        if "mimeType" in icon and not isinstance(icon["mimeType"], str):
            problems.append(f"icons[{i}].mimeType is not a string")
        if "sizes" in icon and not (isinstance(icon["sizes"], list) and all(isinstance(s, str) for s in icon["sizes"])):
            problems.append(f"icons[{i}].sizes is not an array of strings")
        if "theme" in icon and icon["theme"] not in ICON_THEMES:
            problems.append(f"icons[{i}].theme {icon['theme']!r} is not light or dark")
    return problems


@rule(
    "spec.icons",
    concern="protocol",
    severity="low",
    modes=("static",),
    source=f"{SEED} Concrete type-to-spec mapping: Icons",
)
def icons(ctx: CheckContext) -> Iterator[Finding]:
    """Icons are arrays of `{src, mimeType?, sizes?, theme?}` with https or data: sources.

    What it checks: static: `icons` on serverInfo, tools, resources, templates and prompts. A singular icon, a
    string array, a `javascript:`/`file:` source (any scheme but https, http and data), a non-string mimeType,
    string `sizes` or an unknown theme fail. n/a with no icons.

    Why: seed 002 Icons: `icons?: Icon[]`, an array of `{src, mimeType?, sizes?, theme?}` objects, not a string or a
    single object; clients render the sources, so a script or local-file source is a risk.

    Spec: 2025-11-25 (icons)

    Known false positives: none known for the shape. A relative `src` (`/icon.png`) fails as an unknown scheme: the
    spec names HTTP(S) URLs and data: URIs only. `http:` sources pass though the message asks for https.

    Passes: well-formed icons. Fails: each malformed icon array, its problems listed.
    """
    subjects: list[tuple[Item | None, Any]] = []
    if isinstance(ctx.snapshot.server_info, dict) and "icons" in ctx.snapshot.server_info:
        subjects.append((None, ctx.snapshot.server_info["icons"]))
    for listing in ctx.snapshot.lists.values():
        subjects += [
            (item, item.get("icons")) for item in listing if "icons" in (item.raw if isinstance(item.raw, dict) else {})
        ]
    if not subjects:
        yield ctx.na(None, "nothing has icons")
        return
    for subject, value in subjects:
        problems = _icon_problems(value)
        yield ctx.fail(subject, "; ".join(problems)) if problems else ctx.passed(subject, "icons well-formed")
