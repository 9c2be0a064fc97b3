"""Pack `spec`: the skills extension (SEP-2640, `io.modelcontextprotocol/skills`; ext-skills
`specification/stable/skills.mdx`). What a skill is and how it is listed and read is the core's,
`mcp_review.skills`: `list`, the lock and the app show skills too. Every rule here is n/a on a server that does not
declare the extension.
"""

from __future__ import annotations

import weakref
from collections.abc import AsyncIterator

from mcp_review.catalog import ServerSnapshot
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule
from mcp_review.skills import Catalog, Skill, get_skill, parse_frontmatter, read_skills, settings

SOURCE = "SEP-2640 Skills extension (ext-skills specification/stable)"
CHECKED = 50  # skills judged one by one (skills/get, reads); the rest are counted in one blocking finding
UNKNOWN = "mcp-review-no-such-skill"  # a skill path no server serves
NOT_DECLARED = "the server does not declare the io.modelcontextprotocol/skills extension"
# the reads each review made, by its snapshot (as pack apps keeps its pages): every rule shares them
_READ: dict[int, tuple[weakref.ref[ServerSnapshot], int]] = {}


async def listed(ctx: CheckContext) -> Catalog | Finding:
    """The skills listing with every file read once per review (FILES_READ at most), or the n/a finding."""
    catalog = ctx.snapshot.skills
    if catalog is None or settings(ctx.snapshot.capabilities) is None:
        return ctx.na(None, NOT_DECLARED)
    cached = _READ.get(id(ctx.snapshot))
    if cached is None or cached[0]() is not ctx.snapshot:
        left = await read_skills(ctx.session, catalog.skills[:CHECKED])
        for key in [k for k, (ref, _) in _READ.items() if ref() is None]:
            del _READ[key]
        _READ[id(ctx.snapshot)] = (weakref.ref(ctx.snapshot), left)
    return catalog


def unread(ctx: CheckContext, catalog: Catalog) -> Finding | None:
    """One blocking finding for the skills and files this review did not read, if any."""
    left = _READ.get(id(ctx.snapshot), (None, 0))[1]
    more = len(catalog.skills) - CHECKED
    parts = [f"{more} skill(s) past the first {CHECKED}"] if more > 0 else []
    parts += [f"{left} skill file(s) past mcp-review's read budget"] if left else []
    parts += [f"the listing stopped: {catalog.stopped}"] if catalog.stopped else []
    return ctx.blocking("skills not judged", "; ".join(parts)) if parts else None


@rule(
    "spec.skills-methods",
    concern="protocol",
    severity="medium",
    modes=("static", "probe"),
    source=f"{SOURCE}: Capability Negotiation",
)
async def skills_methods(ctx: CheckContext) -> AsyncIterator[Finding]:
    """A server that declares skills answers `skills/list` and `skills/get`, and declares `resources`.

    What it checks: `skills/list` (every page, cursor followed) answers a `skills` array of valid entries (`uri`,
    `frontmatter`, `resources` an array or `"dynamic"`, each file with a `sha256:` digest and a size);
    `skills/get` of each listed skill answers the same entry; `skills/get` of a URI the server does not serve
    answers -32602; the server declares the `resources` capability (its files are resources).

    Why: SEP-2640 stable, Capability Negotiation: "A server that declares this extension MUST implement skills/list
    and skills/get", "MUST also declare the resources capability"; Getting a Skill: "the server MUST return error
    -32602" for a URI it does not serve.

    Known false positives: a server that generates skills on demand may list none (the spec allows an empty
    listing); its skills are then only judged through what `skills/get` proves. An entry `skills/get` returns that
    differs from the listing because the skill changed between the two requests fails.

    Passes: both methods answer valid entries, the unknown URI gets -32602, `resources` is declared. Fails: an
    error or a malformed answer, an invalid entry, -32602 missing, `resources` undeclared. Blocking: skills past
    the first 50, a listing that stopped at a cap, a `skills/get` with no answer (the later skills are not
    asked). n/a: the extension is not declared.

    To verify when blocking: review the skills past the first 50 by hand; re-run with a longer --timeout for one
    that got no answer.
    """
    catalog = await listed(ctx)
    if isinstance(catalog, Finding):
        yield catalog
        return
    if "resources" not in ctx.snapshot.capabilities:
        yield ctx.fail("capabilities.resources", "the skills extension is declared without the resources capability")
    if catalog.error:
        yield ctx.fail("skills/list", catalog.error, [catalog.error_seq])
        return
    pages = [seq for seq, _ in catalog.pages]
    yield ctx.passed("skills/list", f"answered {len(catalog.skills)} skill(s) in {len(pages)} page(s)", pages)
    hung = False
    for skill in catalog.skills[:CHECKED]:
        got, answer, seq = await get_skill(ctx.session, skill.key)
        if seq is None:  # no answer: one timeout is enough, the rest are not asked
            yield ctx.blocking(skill.key, f"skills/get got no answer ({str(answer)[:200]}); later skills not asked")
            hung = True
            break
        problems = [f"its entry is invalid: {'; '.join(skill.problems)}"] if skill.problems else []
        if got is None:
            problems.append(f"skills/get answered no skill: {str(answer)[:200]}")
        elif got.raw != skill.raw:
            problems.append("skills/get answered another entry than skills/list")
        verdict = ctx.fail if problems else ctx.passed
        yield verdict(skill.key, "; ".join(problems) or "skills/get answers its entry", [skill.seq, seq])
    unknown = "skills/get of an unknown URI"
    _, answer, seq = (None, None, None) if hung else await get_skill(ctx.session, f"skill://{UNKNOWN}/SKILL.md")
    code = answer.get("code") if isinstance(answer, dict) else None
    if code == -32602:
        yield ctx.passed(unknown, "answered -32602", [seq])
    elif seq is None:  # no answer proves nothing
        yield ctx.blocking(unknown, f"not answered: {str(answer)[:200]}" if answer else "not asked: a skill hung")
    else:
        yield ctx.fail(unknown, f"answered {str(answer)[:200]}, not -32602", [seq])
    missed = unread(ctx, catalog)
    if missed:
        yield missed


def _frontmatter_problems(skill: Skill) -> list[str]:
    if skill.problems and not skill.frontmatter:
        return ["its entry has no frontmatter object"]
    out = [f"frontmatter has no {k}" for k in ("name", "description") if not isinstance(skill.frontmatter.get(k), str)]
    segment = skill.key.removesuffix("/SKILL.md").rsplit("/", 1)[-1]
    if skill.name and segment != skill.name:
        out.append(f"the URI's last segment {segment!r} is not its name {skill.name!r}")
    read = skill.reads.get(skill.key)
    if read is None or read.error or read.text is None:
        return [*out, f"its SKILL.md was not read ({read.error if read else 'not read'})"]
    parsed = parse_frontmatter(read.text)
    if isinstance(parsed, str):
        return [*out, parsed]
    out += [f"SKILL.md's frontmatter has no {k}" for k in ("name", "description") if not isinstance(parsed.get(k), str)]
    differ = sorted(k for k in set(parsed) | set(skill.frontmatter) if parsed.get(k) != skill.frontmatter.get(k))
    return out + ([f"the entry's frontmatter differs from SKILL.md's in {', '.join(differ[:10])}"] if differ else [])


@rule(
    "spec.skills-frontmatter",
    concern="protocol",
    severity="low",
    modes=("static", "probe"),
    source=f"{SOURCE}: Skill Format, Frontmatter",
)
async def skills_frontmatter(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Each skill's frontmatter has a name and a description, and is the frontmatter its SKILL.md begins with.

    What it checks: each listed entry's `frontmatter` has `name` and `description` strings; the URI's last path
    segment before `/SKILL.md` equals `name`; `resources/read` of the `SKILL.md` begins with YAML frontmatter
    (`---` ... `---`, read with PyYAML's safe loader) holding `name` and `description`, equal field by field to the
    entry's `frontmatter`.

    Why: SEP-2640 stable, Skill Format: "SKILL.md MUST begin with YAML frontmatter containing at minimum the name
    and description fields"; Frontmatter: "The frontmatter object MUST be identical in content to the frontmatter
    of the SKILL.md it describes", and the final segment "MUST equal frontmatter.name". A host refuses to load a
    skill whose frontmatter disagrees with its entry.

    Known false positives: YAML that a stricter or looser parser reads differently (a date, `yes`) may differ from
    the entry's JSON rendering and fail.

    Passes: the entry and SKILL.md agree and carry both fields. Fails: a field missing, no frontmatter, a
    disagreement, a last segment that is not the name. Blocking: a SKILL.md that could not be read, skills past the
    first 50. n/a: the extension is not declared, or nothing is listed.

    To verify when blocking: read the SKILL.md by hand (`mcp-review` app, Skills view) and compare it with its entry.
    """
    catalog = await listed(ctx)
    if isinstance(catalog, Finding) or not catalog.skills:
        yield catalog if isinstance(catalog, Finding) else ctx.na(None, "skills/list lists no skill")
        return
    for skill in catalog.skills[:CHECKED]:
        problems = _frontmatter_problems(skill)
        read = skill.reads.get(skill.key)
        seqs = [skill.seq, read.seq if read else None]
        if problems and problems[-1].startswith("its SKILL.md was not read"):
            yield ctx.blocking(skill.key, "; ".join(problems), seqs)
        elif problems:
            yield ctx.fail(skill.key, "; ".join(problems), seqs)
        else:
            yield ctx.passed(skill.key, f"name {skill.name!r} and its description, as SKILL.md begins", seqs)
    missed = unread(ctx, catalog)
    if missed:
        yield missed


@rule(
    "spec.skills-digest",
    concern="protocol",
    severity="high",
    modes=("static", "probe"),
    source=f"{SOURCE}: Integrity and Verification",
)
async def skills_digest(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Every file a skill lists hashes to its digest: the bytes `resources/read` returns are the ones promised.

    What it checks: for each file of each skill's `resources` manifest, `resources/read` of its URI (the part for
    that URI, else the first): its raw bytes (a text part's UTF-8, a blob part's base64-decoded bytes) have the
    SHA-256 digest and the byte size the manifest gives; the manifest lists the skill's own `SKILL.md`.

    Why: SEP-2640 stable, Integrity and Verification: hosts "MUST verify the content against that entry's digest
    and size" and "MUST NOT use the unverified content": a mismatch means the skill cannot be loaded, whatever the
    cause (tampering, corruption, a listing gone stale).

    Known false positives: a skill edited on the server between the listing and the read fails (re-run). A text
    part sent with characters JSON cannot carry unchanged (lone surrogates) is hashed as UTF-8 with surrogatepass.

    Passes: every file's bytes match. Fails: a digest or size mismatch, a read error, a manifest without its
    SKILL.md. Blocking: files past the read budget (200 per review; none after a read that got no answer), skills
    past the first 50; a `"dynamic"`
    skill has no digests (spec.skills-static says so). n/a: the extension is not declared, or nothing is listed.

    To verify when blocking: read the files past the budget by hand and hash them (`sha256sum`).
    """
    catalog = await listed(ctx)
    if isinstance(catalog, Finding) or not catalog.skills:
        yield catalog if isinstance(catalog, Finding) else ctx.na(None, "skills/list lists no skill")
        return
    for skill in [s for s in catalog.skills[:CHECKED] if not s.dynamic]:
        files = skill.files
        problems = [] if any(f.uri == skill.key for f in files) else ["its manifest does not list its SKILL.md"]
        seqs: list[int | None] = [skill.seq]
        for entry in files:
            read = skill.reads.get(entry.uri)
            if read is None:
                continue
            seqs.append(read.seq)
            if read.error or read.data is None:
                problems.append(f"{entry.uri}: {read.error}")
            elif read.digest != entry.digest or len(read.data) != entry.size:
                problems.append(
                    f"{entry.uri}: read {len(read.data)} bytes {read.digest}, "
                    f"the manifest says {entry.size} bytes {entry.digest}"
                )
        if problems:
            yield ctx.fail(skill.key, "; ".join(problems[:10]), seqs[:10])
        elif any(f.uri not in skill.reads for f in files):
            yield ctx.blocking(skill.key, "some of its files were not read (mcp-review's read budget)", seqs[:10])
        else:
            yield ctx.passed(skill.key, f"{len(files)} file(s) read, each matching its digest and size", seqs[:10])
    missed = unread(ctx, catalog)
    if missed:
        yield missed


@rule(
    "spec.skills-directory-read",
    concern="protocol",
    severity="low",
    modes=("probe",),
    source=f"{SOURCE}: Reading Directories",
)
async def skills_directory_read(ctx: CheckContext) -> AsyncIterator[Finding]:
    """`resources/directory/read` is served exactly when `directoryRead: true` is declared.

    What it checks: one `resources/directory/read` of the first listed skill's root directory (its `SKILL.md` URI
    without `/SKILL.md`). Declared: it must answer a `resources` array. Not declared: it must not answer one (an
    error, -32601 by the SDKs, is right).

    Why: SEP-2640 stable: "A server that additionally declares directoryRead: true MUST implement
    resources/directory/read"; clients "MUST NOT call" it otherwise, so a server that serves it unadvertised
    offers a method no conforming host uses, whose behaviour nothing negotiates. This rule's one call on an
    undeclared server is the probe that proves it (a reviewer's call, not a host's).

    Known false positives: a server that serves the method on any directory resource (the spec allows it on every
    scheme) without declaring it fails here.

    Passes: declared and served, or neither. Fails: declared but not served (an error or no `resources` array), or
    served without the declaration. n/a: the extension is not declared, or nothing is listed.

    To verify when blocking: not blocking; the one request decides.
    """
    catalog = await listed(ctx)
    if isinstance(catalog, Finding) or not catalog.skills:
        yield catalog if isinstance(catalog, Finding) else ctx.na(None, "skills/list lists no skill")
        return
    declared = (settings(ctx.snapshot.capabilities) or {}).get("directoryRead") is True
    root = catalog.skills[0].key.removesuffix("/SKILL.md")
    reply = await ctx.session.request("resources/directory/read", {"uri": root})
    served = reply.error is None and isinstance(reply.result, dict) and isinstance(reply.result.get("resources"), list)
    subject = "resources/directory/read"
    if declared and not served:
        yield ctx.fail(subject, f"directoryRead is declared, but {root} got {str(reply.message)[:200]}", [reply.seq])
    elif served and not declared:
        yield ctx.fail(subject, f"served for {root} though directoryRead is not declared", [reply.seq])
    else:
        how = "declared and served" if declared else "not declared and not served"
        yield ctx.passed(subject, f"{how} ({root})", [reply.seq])


@rule(
    "spec.skills-caching",
    concern="protocol",
    severity="low",
    modes=("static",),
    source=f"{SOURCE}: Listing Skills (CacheableResult)",
)
async def skills_caching(ctx: CheckContext) -> AsyncIterator[Finding]:
    """On 2026-07-28, every `skills/list` page carries the caching fields `ttlMs` and `cacheScope`.

    What it checks: static, on a session that negotiated 2026-07-28 or later: each page of `skills/list` carries
    `ttlMs` (a non-negative integer) and `cacheScope` (a string).

    Why: SEP-2640 stable, Listing Skills: "ListSkillsResult extends CacheableResult, so ttlMs and cacheScope are
    REQUIRED" (SEP-2549): a host that caches listings relies on them.

    Known false positives: none known; `skills/get` results (also cacheable) are judged by spec.skills-methods's
    answers only as entries.

    Passes: every page carries both. Fails: a page without them, or with the wrong types. n/a: an earlier
    revision (the fields came with 2026-07-28), or the extension is not declared.

    To verify when blocking: not blocking.
    """
    catalog = ctx.snapshot.skills
    if catalog is None or settings(ctx.snapshot.capabilities) is None:
        yield ctx.na(None, NOT_DECLARED)
        return
    if not ctx.revision_at_least("2026-07-28"):
        yield ctx.na(None, f"revision {ctx.revision}: the caching fields came with 2026-07-28")
        return
    for page, (seq, result) in enumerate(catalog.pages, 1):
        ttl, scope = result.get("ttlMs"), result.get("cacheScope")
        missing = [] if isinstance(ttl, int) and not isinstance(ttl, bool) and ttl >= 0 else ["ttlMs"]
        missing += [] if isinstance(scope, str) else ["cacheScope"]
        if missing:
            yield ctx.fail(f"skills/list page {page}", f"no valid {' or '.join(missing)}", [seq])
        else:
            yield ctx.passed(f"skills/list page {page}", f"ttlMs {ttl}, cacheScope {scope!r}", [seq])


@rule("spec.skills-static", concern="protocol", severity="medium", modes=("static",), source=f"{SOURCE}: Resources")
async def skills_static(ctx: CheckContext) -> AsyncIterator[Finding]:
    """A skill whose manifest is `"dynamic"` cannot be verified: its content can change at run time.

    What it checks: static: each listed entry's `resources` is an array (a manifest with digests) and not the
    string `"dynamic"`.

    Why: SEP-2640 stable, Resources: a `"dynamic"` skill "offers no content integrity and cannot be
    content-bound"; what the review reads of it now says nothing of what a host will load later.

    Known false positives: a skill that really is generated per request (a daily report) is blocking by design:
    the reviewer decides whether its generator is trusted.

    Passes: a skill with a manifest. Blocking: a `"dynamic"` skill. n/a: the extension is not declared, or nothing
    is listed.

    To verify when blocking: review the code that generates the skill, or waive the finding saying why it is
    trusted.
    """
    catalog = await listed(ctx)
    if isinstance(catalog, Finding) or not catalog.skills:
        yield catalog if isinstance(catalog, Finding) else ctx.na(None, "skills/list lists no skill")
        return
    for skill in catalog.skills[:CHECKED]:
        if skill.dynamic:
            yield ctx.blocking(skill.key, 'its resources are "dynamic": it can change at run time', [skill.seq])
        else:
            yield ctx.passed(skill.key, f"a manifest of {len(skill.files)} file(s) with digests", [skill.seq])
