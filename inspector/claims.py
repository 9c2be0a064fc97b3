"""The repository's claims: the decisions of its review config that a review did not apply (issue 35).

`mcp_review.decisions` keeps only the decisions a base already had (`--base REF`, else the merge base the change
will merge into); the others are listed in `decisions.added` and not applied, so the verdict, the exit code and
what CI gates on are the reviewer's. Where there is no base (not a git checkout, no branch to merge into), every
decision of the repository's file is a claim. This module says so beside the verdict, in one sentence that every
face shows whole (`said`): how many of each kind, the file, why they are not applied, and the verdict the review
would have with them (`verdict_with`), so both verdicts are in view and the headline is the reviewer's.
"""

from __future__ import annotations

from typing import Any

from mcp_review.review import NEEDS_REVIEWER, WAIVABLE, Finding, Review, Verdict, Waiver, verdict_from

KINDS = {"waive": ("waiver", "waivers"), "attest": ("attestation", "attestations")}
KINDS |= {"ignore": ("rule or pack skipped", "rules or packs skipped"), "packs": ("pack narrowing", "pack narrowings")}


def of(review: Review) -> list[dict[str, Any]]:
    """The claims a review carries (`decisions.added`), each {"kind", "rule", "subject", "by", "why", "file", ...}."""
    return list((review.decisions or {}).get("added") or [])


def verdict_with(review: Review) -> Verdict:
    """The verdict `review` would have with its claims applied: the rules they skip not run, the manual rules they
    attest made from the attestations (as `CheckContext.manual` makes them), their waivers and the review's own
    applied as `Review.apply_waivers` applies them (a live one covers, an expired one does not). Under `--era both`,
    the worse of it and the other era's, as `Review.verdict` is. One pass over the findings, which it leaves as
    they are."""
    claims = of(review)
    skipped = {c["rule"] for c in claims if c["kind"] == "ignore"}
    packs = next((set(c.get("packs") or []) for c in claims if c["kind"] == "packs"), None)
    claimed = [
        Waiver(
            c["rule"], c.get("why") or "", c.get("by") or "", c.get("subject"), c.get("expires"), known=c.get("known")
        )
        for c in claims
        if c["kind"] == "waive"
    ]
    live = [w for w in (*review.waivers, *claimed) if not w.expired()]
    by_rule: dict[str, list[Waiver]] = {}
    for w in live:
        by_rule.setdefault(w.rule, []).append(w)

    def status(f: Finding) -> str:
        covered = f.status in WAIVABLE and any(w.covers(f) for w in by_rule.get(f.rule, ()))
        return "waived" if covered else f.status

    attested = [c for c in claims if c["kind"] == "attest"]
    manual = {c["rule"] for c in attested}
    statuses: set[str] = set()
    ran: dict[str, str] = {}  # rule -> its pack, for the rules that would still run
    for f in review.findings:
        if f.rule in skipped or f.pack in skipped or (packs is not None and "all" not in packs and f.pack not in packs):
            continue
        ran[f.rule] = f.pack
        if not (f.rule in manual and f.message.startswith(NEEDS_REVIEWER)):  # attested: made from the claim below
            statuses.add(status(f))
    made = [
        Finding(c["rule"], ran[c["rule"]], c.get("status") or "pass", "", c.get("subject"))
        for c in attested
        if c["rule"] in ran
    ]
    statuses |= {status(f) for f in made}
    return review.with_other_era(verdict_from(statuses))


def line(claim: dict[str, Any]) -> str:
    """One claim on one line, as the app and JUnit list it: what it would decide, on what, by whom and why (the
    repository's words: each face shows them inert)."""
    kind = " ".join(filter(None, (claim.get("kind"), claim.get("status"))))  # "attest fail": what it would attest
    subject = f" ({claim.get('subject') or 'every subject'})" if claim.get("kind") in ("waive", "attest") else ""
    by = f" by {claim['by']}" if claim.get("by") else ""
    return f"{kind} {claim.get('rule')}{subject}{by}: {claim.get('why') or ''}".rstrip(": ")


def _counted(claims: list[dict[str, Any]]) -> str:
    counts = {kind: sum(c["kind"] == kind for c in claims) for kind in KINDS}
    said = [f"{n} {KINDS[kind][n != 1]}" for kind, n in counts.items() if n]
    return ", ".join(said[:-1]) + " and " + said[-1] if len(said) > 1 else said[0]


def said(review: Review) -> str | None:
    """One sentence beside the verdict: what the repository claims and was not applied, why, and the verdict with
    it (None: no claim). Every face shows it whole: stderr, the markdown's verdict line, the app."""
    claims = of(review)
    if not claims:
        return None
    file, commit = str(claims[0]["file"]), claims[0].get("commit")  # one repository file per run (decisions.py)
    at = " (uncommitted)" if commit == "uncommitted" else f" at {commit[:12]}" if commit else ""
    decisions = review.decisions or {}
    base, how = decisions.get("base"), decisions.get("baseHow") or ""
    if base:
        why = f"not on the base: {how}" + ("" if how.startswith("--base") else f" at {str(base)[:12]}")
    else:
        why = f"no base tells the project's decisions from the change's: {how}"
    return (
        f"not applied: {_counted(claims)} of the repository's {file}{at} ({why}); with them the verdict would be "
        f"{verdict_with(review)}; `mcp-review trust {file}` applies the file as it is"
    )


def short(review: Review) -> str | None:
    """`said` in a few words, for the app's status line (its Overview says it all): the verdict with the claims and
    whose they are (None: no claim)."""
    claims = of(review)
    if not claims:
        return None
    many = f"{len(claims)} decision{'' if len(claims) == 1 else 's'}"
    return f"would be {verdict_with(review)} with {many} of the repository's {claims[0]['file']}, not applied"


def verdict_line(review: Review) -> str | None:
    """The verdict with the repository's decisions that made it and those not applied (None: the repository
    decided nothing): `check` says it on stderr."""
    applied, claimed = review.repository_decisions(), said(review)
    if applied is None and claimed is None:
        return None
    return review.verdict + (f" with {applied}" if applied else "") + (f" · {claimed}" if claimed else "")
