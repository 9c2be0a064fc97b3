"""One step that resolves the review config a run uses, and records where each part of it came from.

Two files may take part: the reviewer's own config (`mcp_review.trust.user_config`) and the repository's
(`--review-config FILE`, else ./mcp-review.toml, else `[tool.mcp-review]` in ./pyproject.toml). The
repository's is the reviewer's too once trusted as it is (`mcp-review trust FILE`). Otherwise:

- what it asks that only the reviewer grants (`ReviewConfig.grants`) is refused, as if not written, and said
  in one line (on stderr, in the app, and in the review's `decisions`);
- its decisions (waivers, attestations, what it skips: `ignore`, fewer packs than the base) carry their file and
  commit, and only those already on the base count: the revision `--base REF` names, else the base the change
  will merge into (`trust.merge_base`: the merge base with the upstream and the default branch). Those the change
  adds are claims: listed (`decisions.added`) and not applied. Where there is no base (not a git checkout, no
  branch to merge into), nothing tells the project's decisions from the change's, so every one of them is a
  claim: the repository under review never decides for the reviewer, and the verdict, the exit code CI gates on,
  is the reviewer's. `mcp_review.claims` says beside it what the verdict would be with them.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from mcp_review import trust
from mcp_review.config import TOKEN_ENVS, ConfigFileError, ReviewConfig, find_config, load_config
from mcp_review.output import write_text
from mcp_review.review import Attestation, Waiver
from mcp_review.rules.core import DEFAULT_PACKS
from mcp_review.saved import UNUSED_DAYS


@dataclass
class Resolved:
    config: ReviewConfig  # what the run uses
    refused: list[str] = field(default_factory=list)  # one line per file that asked for more than it may
    decisions: dict[str, Any] = field(default_factory=dict)  # for the review: configs, base, refused, added
    set_by: dict[str, trust.Origin] = field(default_factory=dict)  # which file set a setting that grants or limits


def _stamped(cfg: ReviewConfig, origin: trust.Origin) -> None:
    cfg.waivers = [replace(w, source=origin.file, commit=origin.commit, origin=origin.who) for w in cfg.waivers]
    cfg.attestations = [
        replace(a, source=origin.file, commit=origin.commit, origin=origin.who) for a in cfg.attestations
    ]


NOT_WRITTEN = ("source", "commit", "origin", "state", "bound")  # where it was read from, what a review made of it
BINDING = ("digest", "version", "parts")  # what it is bound to (mcp_review.binding)


def _same(d: Waiver | Attestation, unbound: bool = False) -> tuple[Any, ...]:
    """A decision as written, whatever file or commit it was read from (`unbound`: whatever it is bound to)."""
    left = NOT_WRITTEN + (BINDING if unbound else ())
    return (type(d).__name__, *(repr(v) for k, v in vars(d).items() if k not in left))


def _decisions(cfg: ReviewConfig) -> list[Waiver | Attestation]:
    return [*cfg.waivers, *cfg.attestations]


def _added(d: Waiver | Attestation) -> dict[str, Any]:
    """A claim as the review lists it, with what `mcp_review.claims` needs to say what it would do."""
    if isinstance(d, Waiver):
        said: dict[str, Any] = {"kind": "waive", "why": d.reason, "expires": d.expires}
        said |= {"known": d.known} if d.known else {}
    else:
        said = {"kind": "attest", "why": d.note, "status": d.status}
    return {**said, "rule": d.rule, "subject": d.subject, "by": d.by, "file": d.source, "commit": d.commit}


Known = tuple[set[str], set[str]]  # the rule ids and packs a config may name


def _on_base(cfg: ReviewConfig, origin: trust.Origin, base: str | None, known: Known) -> list[dict[str, Any]]:
    """Keep the decisions `base` already had (None: no base, so none); return the others, claims not applied."""
    path, commit = Path(origin.file), origin.commit
    text = trust.base_text(path, base) if base is not None else None
    try:
        had = load_config(path, *known, text=text) if text is not None else ReviewConfig()
    except ConfigFileError:
        had = ReviewConfig()  # a base whose config does not read holds no decision
    kept = {_same(d) for d in _decisions(had)}
    added = [_added(d) for d in _decisions(cfg) if _same(d) not in kept]
    cfg.waivers = _kept(cfg.waivers, had.waivers, origin)
    cfg.attestations = _kept(cfg.attestations, had.attestations, origin)
    skip = {"kind": "ignore", "subject": None, "by": None, "why": "not run", "file": str(path), "commit": commit}
    added += [{**skip, "rule": name} for name in cfg.ignore if name not in had.ignore]
    cfg.ignore = [name for name in cfg.ignore if name in had.ignore]
    if _narrows(had.packs, cfg.packs):
        packs = {"rule": ", ".join(cfg.packs or []), "packs": cfg.packs, "why": "fewer packs than the base"}
        added.append({**skip, **packs, "kind": "packs"})
        cfg.packs = had.packs
    return added


D = TypeVar("D", Waiver, Attestation)


def _kept(head: list[D], base: list[D], origin: trust.Origin) -> list[D]:
    """The decisions of `head` the base had: as written, or, for one the change only binds anew (another digest
    or version, or none), as the base bound it (the change's binding is a claim, listed by the caller)."""
    had = {_same(d) for d in base}
    rebound = {_same(d, unbound=True): d for d in base if _same(d) not in {_same(h) for h in head}}
    return [
        d
        if _same(d) in had
        else replace(rebound[_same(d, True)], source=origin.file, commit=origin.commit, origin=origin.who)
        for d in head
        if _same(d) in had or _same(d, True) in rebound
    ]


def _narrows(before: list[str] | None, after: list[str] | None) -> bool:
    """Whether `after` runs a pack `before` ran (None: the default packs)."""
    was, now = set(before or DEFAULT_PACKS), set(after or DEFAULT_PACKS)
    return "all" not in now and ("all" in was or not was <= now)


def _merge(own: ReviewConfig, repo: ReviewConfig) -> ReviewConfig:
    """The reviewer's config with the repository's on top; the reviewer's consent wins where both speak."""
    return ReviewConfig(
        path=repo.path or own.path,
        packs=repo.packs or own.packs,
        ignore=[*own.ignore, *repo.ignore],
        baseline=repo.baseline or own.baseline,
        options={**own.options, **repo.options},  # the repository's grants are gone unless trusted
        policy=own.policy or repo.policy,
        allow=repo.allow if repo.allow is not None else own.allow,
        waivers=[*own.waivers, *repo.waivers],
        attestations=[*own.attestations, *repo.attestations],
    )


def _set_by(pairs: list[tuple[ReviewConfig, trust.Origin]]) -> dict[str, trust.Origin]:
    """Which file `_merge` took each setting that grants or limits from: `pairs` is (the reviewer's own, the
    repository's), either left out when absent."""
    winner: dict[str, trust.Origin] = {}
    for cfg, origin in pairs:  # the repository's after the reviewer's own: it wins where _merge lets it
        found = {"packs": cfg.packs, "baseline": cfg.baseline, "allow": cfg.allow is not None}
        found |= {key: key in cfg.options for key in ("probe", *TOKEN_ENVS)}
        winner |= {key: origin for key, value in found.items() if value}
        if cfg.policy and "policy" not in winner:  # the reviewer's consent wins where both speak
            winner["policy"] = origin
    return winner


def resolve(named: str | None, base: str | None, known: Known) -> Resolved:
    """The review config of a run: `named` (--review-config) or the one found here, with the reviewer's own."""
    if base is not None and not trust.has_revision(base):
        raise ConfigFileError(f"--base: no revision {base!r} in this git checkout")
    own_path = trust.user_config()
    own = load_config(own_path, *known) if own_path else ReviewConfig()
    if own_path:
        _stamped(own, trust.Origin(str(own_path), "reviewer"))
    found = Path(named) if named else find_config(Path())  # relative: named as the reviewer knows it
    own_origin = trust.origin_of(own_path) if own_path else None
    mine = [(own, own_origin)] if own_origin else []
    if found is None or (own_path and found.resolve() == own_path.resolve()):
        configs = [vars(own_origin)] if own_origin else []
        return Resolved(own, decisions={"configs": configs, "base": base}, set_by=_set_by(mine))
    repo = load_config(found, *known)
    origin = trust.origin_of(found)
    _stamped(repo, origin)
    out = Resolved(own, decisions={"configs": [vars(origin)], "base": base, "refused": [], "added": []})
    if own_origin:
        out.decisions["configs"].insert(0, vars(own_origin))
    if repo.confine:  # trusted or not: what the code under review may reach is the reviewer's alone
        out.refused.append(
            f"{found} asks for [confine] {', '.join(sorted(repo.confine))}: refused, allowances come only from your "
            "flags (--no-confine, --allow-net, --allow-read, --allow-write) or your own config"
        )
        repo.confine = {}
    if origin.who == "repository":
        asked = repo.grants()
        if asked:
            out.refused.append(
                f"{found} asks for {'; '.join(asked)}: refused, not the reviewer's "
                f"(grant it with a flag, or read it and run `mcp-review trust {found}`)"
            )
            repo.without_grants()
        on = trust.Base(base, f"--base {base}") if base is not None else trust.merge_base(found.resolve().parent)
        out.decisions |= {"base": on.commit, "baseHow": on.how}  # how the base was found, or why there is none
        out.decisions["added"] = _on_base(repo, origin, on.commit, known)
        out.decisions["ignored"] = repo.ignore  # said beside the verdict: rules the repository chose not to run
    out.decisions["refused"] = out.refused
    out.config = _merge(own, repo)
    out.set_by = _set_by([*mine, (repo, origin)])
    return out


# ------------------------------------------------------------------------------- bindings made on first use
BINDINGS = "bindings.json"  # in the reviewer's state directory: what a decision written without a digest was bound to
BINDINGS_KEEP = 10_000  # bindings kept, the most recently used (a few hundred bytes each)


def _binding_key(d: Waiver | Attestation, target: dict[str, Any]) -> str:
    """A decision as written in its file, for the server it was bound on (a reviewer's own file serves many)."""
    server = {k: target.get(k) for k in ("kind", "command", "args", "url", "name")}
    said = [server, str(Path(d.source or "").resolve()), *_same(d, unbound=True)]
    return hashlib.sha256(json.dumps(said, default=str).encode()).hexdigest()


def _stored() -> tuple[Path, dict[str, Any]]:
    """The bindings file of the reviewer's state directory and what it holds (nothing when unreadable)."""
    path = trust.state_dir() / BINDINGS
    try:
        stored = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, ValueError):
        stored = {}
    return path, stored if isinstance(stored, dict) else {}


def recall(decisions: list[Waiver] | list[Attestation], target: dict[str, Any]) -> None:
    """Give each decision of a file that carries no digest the binding an earlier review made of it on first use
    (`remember`), so a change of what it decided shows from the second review on; in place."""
    _, stored = _stored()
    for d in decisions:
        saved = stored.get(_binding_key(d, target)) if d.digest is None and d.source not in (None, "tui") else None
        if isinstance(saved, dict):
            d.digest, d.version, d.parts = saved.get("digest"), saved.get("version"), saved.get("parts")
            d.bound = saved.get("bound")


def remember(review: Any, today: dt.date | None = None) -> int:
    """Keep what this review bound on first use (decisions of a file, written without a digest), for the next
    review of the same server (`recall`); how many it kept. A repository's CI starts with no state: there each
    review binds anew, and says so. Each binding records the day it was last used; the file is pruned as it is
    written (`_pruned`)."""
    fresh = [d for d in [*review.waivers, *review.attestations] if d.bound and d.source not in (None, "tui")]
    if not fresh:
        return 0
    path, stored = _stored()
    today = today or dt.date.today()
    for d in fresh:
        stored.setdefault(_binding_key(d, review.target), {**d.binding(), "bound": d.bound})["used"] = today.isoformat()
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, json.dumps(_pruned(stored, today), indent=1, sort_keys=True))
    return len(fresh)


def _pruned(stored: dict[str, Any], today: dt.date) -> dict[str, Any]:
    """The bindings used within the last `UNUSED_DAYS` days (`mcp_review.saved`), at most `BINDINGS_KEEP` of them,
    the most recently used: the bounds of the saved reviews, as a binding serves only a review of its server."""

    def used(entry: Any) -> str:
        if not isinstance(entry, dict):
            return ""
        said = entry.get("used") or str(entry.get("bound") or "").rpartition(", ")[2]  # "on first use, DATE"
        try:
            return dt.date.fromisoformat(str(said)).isoformat()
        except ValueError:
            return ""  # unreadable: pruned

    oldest = (today - dt.timedelta(days=UNUSED_DAYS)).isoformat()
    days = {k: used(v) for k, v in stored.items()}
    kept = sorted((k for k, day in days.items() if day >= oldest), key=lambda k: (days[k], k), reverse=True)
    return {k: stored[k] for k in kept[:BINDINGS_KEEP]}
