"""Running the checklist from the app: which packs run and which tools their rules may call (asked of the
reviewer before the first run that calls, with consent before calling every tool), and each run as a job on
the connection worker. Progress and the review come back to the app as `ChecksProgress` and `ChecksDone`.
The choices stay on the app (`check_packs`, `check_calls`, `check_probe`, `calls_chosen`, `checking`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from checks.context import Options
from checks.core import Rule, load_rules, select
from inspector.catalog import ServerSnapshot
from inspector.checking import CheckPlan, review_session
from inspector.connection.session import Session
from inspector.review import Finding
from inspector.tui.dialogs import ConfirmScreen, RunScreen
from inspector.tui.messages import ChecksDone, ChecksProgress

if TYPE_CHECKING:
    from inspector.tui.app import ReviewApp


def run_checks(app: ReviewApp, only: str | None = None) -> None:
    """Run the chosen packs with the chosen calling policy; `only` (a rule id or a pack) re-runs just that
    and merges its findings into the review. The Checklist shows every selected rule live meanwhile."""
    if app.snapshot is None:
        app.notify("not connected", severity="warning")
        return
    packs = [only.split(".")[0]] if only else app.check_packs
    ignore = [r for r in load_rules() if only and "." in only and r != only and r.startswith(packs[0] + ".")]
    callers = [r.id for r in select(packs, ignore) if "call" in r.modes]
    if callers and not app.calls_chosen:  # the reviewer decides what call rules may call, once
        choose_checks(app, f"{len(callers)} of the selected rules call tools to check their results.", only)
        return
    app.main.status(f"running {only or 'the checklist'}…")
    app.checking = True
    previous = app.review
    plan = CheckPlan(
        packs=packs,
        ignore=ignore,
        options=Options(
            calls=app.check_calls,  # type: ignore[arg-type]
            probe=frozenset() if app.check_probe == "off" else frozenset({app.check_probe}),
        ),
        waivers=previous.waivers if previous else (),
        attestations=previous.attestations if previous else (),
    )
    if not (only and previous):
        app.checklist.start_live(select(packs, ignore))

    async def job(session: Session, snapshot: ServerSnapshot) -> None:
        seen = 0

        def progress(done: int, total: int, rule: Rule | None, findings: Sequence[Finding]) -> None:
            nonlocal seen
            app.post_message(ChecksProgress(done, total, rule.id if rule else None, list(findings[seen:])))
            seen = len(findings)

        review = await review_session(session, snapshot, plan, progress)
        review.remarks = previous.remarks if previous else []  # the reviewer's notes outlive a re-run
        if only and previous is not None:
            previous.merge(review, only)
            review = previous
        app.post_message(ChecksDone(review))

    app.connection.submit(job)


def choose_checks(app: ReviewApp, why: str = "", only: str | None = None) -> None:
    """Packs and calling policy; consent before checks may call tools with side effects. Then run
    (`only`: the rule or pack whose re-run asked for it)."""

    def chosen(values: dict[str, Any] | None) -> None:
        if not values:
            return
        app.check_packs, calls = values["packs"], values["calls"]
        app.check_probe = values.get("probe", "off")
        app.calls_chosen = True
        if calls != "all":
            app.check_calls = calls
            run_checks(app, only)
            return

        def consent(yes: bool | None) -> None:
            app.check_calls = "all" if yes else "read-only"
            run_checks(app, only)

        message = "Checks may then call every tool, including ones that change or delete data. Allow it?"
        app.push_screen(ConfirmScreen("Consent to call every tool", message, yes="Allow"), consent)

    calls = app.check_calls if app.calls_chosen else "read-only"
    app.push_screen(RunScreen(app.check_packs, calls, why, app.check_probe), chosen)
