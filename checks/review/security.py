"""Pack `review` (seed 003): security: arguments validated and safe from injection; definitions stable (rug pulls)."""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator

from mcp_review.baseline import definitions, hashed, pinned_definitions
from mcp_review.catalog import LISTS as CATALOG_LISTS
from mcp_review.catalog import list_all
from mcp_review.checks.review.common import SEED, named_tools
from mcp_review.diff import Diff
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule
from mcp_review.rules.proof import outcome
from mcp_review.rules.util import invalid_arguments


@rule(
    "review.arguments-validated-and-authorized",
    concern="security",
    severity="high",
    modes=("call", "manual"),
    source=f"{SEED} Security: arguments-validated-and-authorized",
)
async def arguments_validated(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Schema-invalid arguments are rejected server-side; authorization is enforced per call.

    What it checks: call: every callable tool with constrained arguments gets each kind of invalid argument object
    (a wrong type for the first required property, that property missing, an unknown field under
    `additionalProperties: false`); each must be rejected (a JSON-RPC error, isError, or a refusal in plain text:
    `rules.proof`; which channel it should have come on is review.error-channel-correct's question). manual: per-call
    authorization lives in the handler; a reviewer attests it. n/a for a tool that takes no constrained arguments.

    Why: seed 003 arguments-validated-and-authorized: a client can send anything, whatever the schema says; the
    handler MUST re-validate every argument and enforce authorization per call. Schema validation is not
    authorization.

    Known false positives: the wrong-type value is 12345 for a property typed string or not typed at all: when the
    property also admits numbers (`["string", "integer"]`, an `anyOf` with a number) the object is valid, and a tool
    that rightly accepts it fails. A call that timed out or lost its connection is no answer: blocking, never
    accepted. The manual part never fails by itself.

    Passes: every invalid object rejected (and the manual part attested). Fails: any invalid call that succeeded, or
    a reviewer attests missing authorization. Blocking: tools that may not be called, and the manual part.

    To verify when blocking: `--calls read-only` for a tool annotated readOnlyHint: true (and openWorldHint: false),
    `--calls all` (the reviewer's consent) for any other; with an allow-list, add the tool to calls.allow in
    mcp-review.toml. The manual part: an [[attest]] entry for review.arguments-validated-and-authorized in
    mcp-review.toml (or the TUI), by a reviewer who read each handler's authorization check.
    """
    for tool in named_tools(ctx):
        lazy = invalid_arguments(tool, ctx.arguments(tool))
        first = next(lazy, None)
        if first is None:
            yield ctx.na(tool, "takes no constrained arguments")
            continue
        if ctx.may_call(tool) is not None:
            yield ctx.blocking_call(tool, "server-side argument validation")
            continue
        cases = [first, *lazy]
        accepted = []
        seqs = []
        silent: Finding | None = None
        for what, args in cases:
            record = await ctx.try_call(tool, args, f"server-side validation of {what}", share="refusal")
            if isinstance(record, Finding):
                silent = record
                break
            seqs.append(record.seq)
            if outcome(record).accepted:
                accepted.append(what)
        if silent is not None and not accepted:
            yield silent
        elif accepted:
            yield ctx.fail(tool, f"accepted schema-invalid arguments: {', '.join(accepted)}", seqs)
        else:
            yield ctx.passed(tool, f"rejected all {len(cases)} invalid argument objects", seqs)
    for finding in ctx.manual(
        "per-call authorization is enforced in every handler (schema validation is not authorization)."
    ):
        yield finding


@rule(
    "review.injection-safe",
    concern="security",
    severity="high",
    modes=("manual",),
    source=f"{SEED} Security: injection-safe",
)
async def injection_safe(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Arguments that reach shells, SQL, paths or URLs are parameterized or escaped: what only a reader can judge.

    What it checks: the running server's side of this item is proven by the canary probes (`--probe security`),
    one rule per class so that one fact gives one finding: review.paths-confined (a file read, a directory listed
    or a path written in a canary area), review.commands-not-injected (a shell joining printf's halves),
    review.code-not-executed (a program joining them), review.urls-confined (a request to a loopback listener),
    review.templates-inert (random arithmetic evaluated). This rule keeps what no probe can settle: how arguments
    reach SQL and every path, command and URL the probes did not reach; a reviewer attests it.

    Why: seed 003 injection-safe: arguments reaching shells, SQL, paths or URLs MUST be parameterized or escaped;
    shell injection and path traversal were the most-filed MCP CVE classes in early 2026 ("grep the diff for
    string-concatenated commands and unbounded path joins"). It used to send a traversal to /etc/passwd itself:
    a server running as root that writes where it is told overwrote that file. No payload names a system path now.

    Known false positives: none of its own: it never fails without a reviewer's word.

    Passes: a reviewer attests it. Fails: a reviewer attests an injection. Blocking: until a reviewer attests.

    To verify when blocking: an [[attest]] entry for review.injection-safe in mcp-review.toml (or the TUI), by a
    reviewer who read how arguments reach shells, SQL, paths and URLs; run the probe rules above for the running
    server's side.
    """
    for finding in ctx.manual(
        "arguments reaching SQL, shells, paths and URLs are parameterized or escaped in the source (the probe "
        "rules prove the running server's side)."
    ):
        yield finding


@rule(
    "review.rug-pull-mitigation",
    concern="security",
    severity="high",
    modes=("observe", "baseline"),
    source=f"{SEED} Security: rug-pull-mitigation",
)
async def rug_pull(ctx: CheckContext) -> AsyncIterator[Finding]:
    """Tool definitions are stable within a session and against a pinned baseline, or version-bumped.

    What it checks: observe: `tools/list` is asked again at the end of the run and every definition's canonical hash
    (name + description + schemas + annotations, the whole wire object) compared with the first listing, by full
    content: the definitions listed under each name are compared as a multiset, so a name listed twice cannot hide
    an edit of one copy behind the other, and a copy added or dropped under a name listed both times is a change.
    Names added or removed are not judged, a listing in another order is noted, and a
    `notifications/tools/list_changed` during the run does not excuse a change. baseline: with `--baseline FILE`,
    hashes are compared with the pinned ones (every copy of a repeated name pinned): a changed definition under the
    same server version (serverInfo.version) fails (silently edited); a new version passes with the changes listed.
    Without `--baseline`, an `mcp-review.lock` (written by `mcp-review pin`, found where mcp-review.toml is) is read
    the same way through its diff: a definition edited, removed or renamed since the lock under the same version
    fails unless a reviewer approved that change; a version bump passes with the changes and their classes listed.

    Why: seed 003 rug-pull-mitigation: a server can change a tool's description or schema after the user approved
    it; approvals bound to a hash of the definition only protect users if definitions are stable or version-bumped.

    Known false positives: the hash comparison is exact; the reading "silently edited" may be wrong. A server whose
    definitions follow its state or configuration (a description that counts stored items, tools shaped by
    environment or allowed directories) fails within a session even when it announced the change with list_changed,
    and fails against a baseline when its configuration changed but its version did not; a server that never changes
    its reported version fails any edit. Waive with the reason.

    Passes: stable within the session and equal to the baseline, a new version with its changes listed, or the first
    run that pins the baseline. Fails: a definition changed within one session, or since the baseline without a
    version bump. Blocking: no lock or baseline pinned (`mcp-review pin`, or P in the app's Changes tab); the second
    `tools/list` failed or was cut short by a limit of mcp-review's (nothing to compare).

    To verify when blocking: `mcp-review pin` (or P in the app's Changes tab) writes mcp-review.lock beside the
    server (commit it; later checks run there compare against it), or run with `--baseline FILE` (the first run
    pins the definitions; later runs compare against them); a longer --timeout when the second listing was cut
    short.
    """
    listed = hashed(ctx.snapshot.tools)
    first = definitions(listed)
    spec = next(s for s in CATALOG_LISTS if s.kind == "tool")
    again = await list_all(ctx.session, spec)
    seqs = again.seqs[:1]
    cut = [
        f"{when}: {why}"
        for when, listing in (("first", ctx.snapshot.tools), ("again", again))
        for why in (listing.error, None if listing.broken else listing.stopped)
        if why
    ]
    if ctx.snapshot.tools.declared and cut:  # a limit of mcp-review's, or no listing: nothing proves stability
        yield ctx.blocking(
            None, f"tools/list gave no full listing to compare ({'; '.join(cut)})", seqs or [again.error_seq]
        )
        return
    relisted = hashed(again)
    later = definitions(relisted)
    changed = [_copies(n, first[n], later[n]) for n in sorted(first) if n in later and later[n] != first[n]]
    if changed:
        yield ctx.fail(None, f"definitions changed within one session: {', '.join(changed[:10])}", seqs)
        return
    stable = "stable within this session" + _reordered(listed, relisted)
    baseline = ctx.pinned
    if ctx.pin_to:
        count = sum(c.total() for c in first.values())
        yield ctx.passed(None, f"{stable}; pinned {count} definitions to {ctx.pin_to} (first run)", seqs)
        return
    if not isinstance(baseline, dict) and ctx.changes is not None:
        yield against_lock(ctx, ctx.changes, seqs)
        return
    if not isinstance(baseline, dict):
        yield ctx.blocking(
            None,
            f"{stable}; no lock pinned to compare versions: `mcp-review pin` writes mcp-review.lock (in the app: "
            "the Changes tab, P), or run with --baseline FILE",
            seqs,
        )
        return
    pinned = pinned_definitions(baseline)
    edited = sorted(n for n in first if n in pinned and pinned[n] != first[n])
    same_version = baseline.get("version") == ctx.snapshot.server_version
    if edited and same_version:
        yield ctx.fail(
            None,
            f"changed since the baseline without a version bump ({ctx.snapshot.server_version}): "
            f"{', '.join(edited[:10])}",
            seqs,
        )
    elif edited:
        yield ctx.passed(
            None,
            f"version bumped {baseline.get('version')} -> {ctx.snapshot.server_version}; changed: "
            f"{', '.join(edited[:10])}",
            seqs,
        )
    else:
        yield ctx.passed(None, f"every definition matches the baseline ({len(pinned)} pinned)", seqs)


def _copies(name: str, was: Counter[str], now: Counter[str]) -> str:
    """A changed name as a finding names it: with its copies counted when it is listed more than once."""
    if was.total() == now.total() == 1:
        return name
    return f"{name} ({was.total()} definitions listed under the name, then {now.total()})"


def _reordered(first: list[tuple[str | None, str]], again: list[tuple[str | None, str]]) -> str:
    """A note when the same definitions came back in another order (order is not content: not judged)."""
    return (
        " (the same definitions, listed in another order)"
        if first != again and sorted(first, key=str) == sorted(again, key=str)
        else ""
    )


def against_lock(ctx: CheckContext, changes: Diff, seqs: list[int]) -> Finding:
    """The live server against mcp-review.lock: the same version with an unapproved edit is a silent edit."""
    edited = sorted((c for c in changes.changes if c.old is not None and c.approval is None), key=lambda c: c.key)
    listed = ", ".join(f"{c.key} ({c.change_class})" for c in edited[:10]) + (" …" if len(edited) > 10 else "")
    was, now = changes.versions
    if edited and was == now:
        return ctx.fail(None, f"changed since {changes.old} without a version bump ({now}): {listed}", seqs)
    if edited:
        return ctx.passed(None, f"version bumped {was} -> {now}; changed since {changes.old}: {listed}", seqs)
    return ctx.passed(None, f"every pinned definition matches {changes.old} (no unapproved edit)", seqs)
