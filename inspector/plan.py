"""The one step that decides what a run uses, and records where each piece came from (issue 21).

`decide(asked, env)` takes what the reviewer asked on the command line (`Asked`), the environment and the
working directory's files (the reviewer's own config and trust records, the repository's review config, client
config and lock) and returns one frozen record, the `Plan`:

- the target (a command after `--`, `--url`, `--config` / `--server`, or the bundled demo server);
- its secrets: where the bearer came from (`--bearer`, `$MCP_REVIEW_BEARER`, the token `auth login` stored,
  refreshed first), what a project's client config was let expand from the reviewer's environment
  (`--allow-env`, `--allow-env-file`) and what it asked for and did not get, the token env vars a review
  config names (`foreign_token_env`, `narrow_token_env`);
- permissions (`Permissions`): which tools checks may call (`--calls`, else a config's `[calls] policy`), the probes;
- how a stdio server runs (`Confined`): confined unless `--no-confine`, observed with `--observe` (by default under
  `--calls all` and `--probe`), with what `--allow-net`, `--allow-read`, `--allow-write` allow, or the standing
  allowances of the reviewer's own config (`mcp_review.sandbox.allowed`), never the repository's;
- the review config (`mcp_review.decisions`: waivers and attestations with their file and commit), the lock,
  and where the app keeps its saved reviews.

Each piece carries its provenance (`Source`): "reviewer" (a flag, the reviewer's own config or token store, a
file the reviewer trusted), "repository" (a file in the checkout, with its commit), "server" (what only the
server's answers decide: which tools a read-only policy calls, by their annotations) or "default". The CLI
commands and the app read the record; the review carries `provenance()` in its `decisions`, so the verdict
line and every export say who decided what. Nothing below this step reads the command line again.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from mcp_review import trust
from mcp_review.targets import Confinement, Target, demo_target, http_target, stdio_target

if TYPE_CHECKING:  # the review's modules load only for a command that reviews: `list` starts its server sooner
    from mcp_review.calls import Policy
    from mcp_review.checking import CheckPlan
    from mcp_review.decisions import Resolved
    from mcp_review.verdicts import Gate

Era = Literal["auto", "legacy", "modern", "both"]  # both: `check` and the app review under each era (eras.py)


class PlanError(Exception):
    """What the reviewer asked cannot be done as asked (exit 2 with the message)."""


class LoginExpired(Exception):
    """The token `auth login` stored for the URL has expired and could not be refreshed."""


@dataclass(frozen=True)
class Source:
    """Who decided one piece of a run, and through what."""

    who: str  # "reviewer", "repository", "server" or "default"
    how: str  # the flag, variable or file
    commit: str | None = None  # a file's last commit ("uncommitted" when it differs from it)

    @classmethod
    def of(cls, origin: trust.Origin) -> Source:
        return cls(origin.who, origin.file, origin.commit)

    def to_json(self) -> dict[str, Any]:
        return {"who": self.who, "how": self.how, **({"commit": self.commit} if self.commit else {})}


FLAG = "reviewer"
DEFAULT = Source("default", "not asked for")
GATE = Source("default", "a reviewer before a merge: security, and what could not be verified")
PER_TOOL = Source("server", "annotations of each tool, its most dangerous definition")  # which tools a policy lets


@dataclass(frozen=True)
class Asked:
    """The command line as parsed: what the reviewer asked for, and nothing else."""

    server_command: tuple[str, ...] = ()
    url: str | None = None
    transport: str | None = None
    header: tuple[str, ...] = ()
    bearer: str | None = None
    env: tuple[str, ...] = ()
    cwd: str | None = None
    config: str | None = None
    server: str | None = None
    allow_env: tuple[str, ...] = ()
    allow_env_file: tuple[str, ...] = ()
    timeout: float = 30.0
    insecure: bool = False
    ca: str | None = None
    era: Era = "auto"
    review_config: str | None = None
    base: str | None = None
    pack: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    calls: str | None = None
    probe: tuple[str, ...] = ()
    calls_per_tool: int | None = None
    baseline: str | None = None
    budget: float | None = None
    no_pins: bool = False  # neither ./mcp-review.lock nor a baseline: they pin one server, not each of a fleet
    preview: bool = False
    server_json: str | None = None
    no_confine: bool = False
    observe: bool | None = None  # None: as the consent decides (observed under --calls all and --probe)
    allow_net: tuple[str, ...] = ()
    allow_read: tuple[str, ...] = ()
    allow_write: tuple[str, ...] = ()
    gate: tuple[str, ...] = ()  # `--fail-on`: the gate (mcp_review.verdicts); none given: its default

    @classmethod
    def of(cls, args: argparse.Namespace) -> Asked:
        """The options a command has (each command parses only its own)."""
        given = vars(args)
        chosen: dict[str, Any] = {}
        for f in fields(cls):
            if f.name in given:
                value = given[f.name]
                chosen[f.name] = tuple(value) if isinstance(value, list) else value
        return cls(**chosen)


@dataclass(frozen=True)
class Secrets:
    bearer: Source | None = None  # where the bearer token came from, when there is one
    allowed: tuple[str, ...] = ()  # what the reviewer let a project's client config use (--allow-env...)
    withheld: tuple[str, ...] = ()  # what a project's client config asked for and did not get
    tokens: tuple[tuple[str, str, Source], ...] = ()  # (option, env var, who named it): token env vars read


@dataclass(frozen=True)
class Permissions:
    """What the reviewer let a run do, and who decided it: the calls policy (`calls.POLICIES`; each call records its
    own `calls.Consent`), the allow-list, the probes."""

    calls: Policy = "none"
    calls_from: Source = DEFAULT
    probes: frozenset[str] = frozenset()
    probes_from: tuple[Source, ...] = ()
    allow_from: Source | None = None  # who limited the callable tools to a list


@dataclass(frozen=True)
class Confined:
    """Who decided how a stdio server runs: confined or not, observed or not, each allowance."""

    confine: Source = Source("default", "confined unless --no-confine")
    observe: Source | None = None  # None: not decided yet (the consent decides it)
    allowances: tuple[tuple[str, str, Source], ...] = ()  # (kind: net, read, write; what; who allowed it)

    def to_json(self, spec: Confinement) -> dict[str, Any]:
        out: dict[str, Any] = {"confine": spec.confine, **self.confine.to_json(), "observe": spec.observe}
        if self.observe:
            out["observeFrom"] = self.observe.to_json()
        for kind in ("net", "read", "write"):
            mine = [{"what": what, **who.to_json()} for k, what, who in self.allowances if k == kind]
            if mine:
                out[f"allow{kind.capitalize()}"] = mine
        return out


@dataclass(frozen=True)
class Plan:
    """Everything a run uses, decided once, each piece with its provenance."""

    target: Target | None
    target_from: Source
    secrets: Secrets
    permissions: Permissions
    era: Era = "auto"
    review: Resolved | None = None  # the review config (None: a command that runs no review)
    check: CheckPlan | None = None  # what `check` and the app run
    lock: str | None = None
    lock_from: Source | None = None
    baseline_from: Source | None = None  # who named the pinned tool hashes (--baseline, a config's baseline)
    server_json_from: Source | None = None  # where the server's registry server.json came from (review.server-json)
    state_dir: Path = field(default_factory=lambda: trust.state_dir() / "reviews")
    notices: tuple[str, ...] = ()  # one line each, said before anything runs
    confined: Confined = field(default_factory=Confined)  # who decided how a stdio server runs

    def provenance(self) -> dict[str, Any]:
        """Who decided each piece, as the review carries it (`decisions.provenance`) into every export."""
        granted = self.permissions
        calls: dict[str, Any] = {"policy": granted.calls, **granted.calls_from.to_json()}
        if granted.calls != "none":
            calls["perTool"] = PER_TOOL.to_json()
        if granted.allow_from:
            calls["allowList"] = granted.allow_from.to_json()
        out: dict[str, Any] = {
            "target": self.target_from.to_json(),
            "calls": calls,
            "probes": {"asked": sorted(granted.probes), "from": [s.to_json() for s in granted.probes_from]},
            "secrets": {
                "bearer": self.secrets.bearer.to_json() if self.secrets.bearer else None,
                "allowedByReviewer": list(self.secrets.allowed),
                "withheld": list(self.secrets.withheld),
                "tokenEnv": [{"option": o, "env": e, **s.to_json()} for o, e, s in self.secrets.tokens],
            },
            "state": {"who": "reviewer", "how": "state directory"},  # where, not said in a review
        }
        if self.target is not None and self.target.kind == "stdio":
            out["confinement"] = self.confined.to_json(self.target.confinement)
        if self.lock_from:
            out["lock"] = self.lock_from.to_json()
        if self.baseline_from:
            out["baseline"] = self.baseline_from.to_json()
        if self.server_json_from:
            out["serverJson"] = self.server_json_from.to_json()
        return out


def decide(
    asked: Asked, env: Mapping[str, str], *, target: bool = True, review: bool = False, observed: str | None = None
) -> Plan:
    """The record of a run. `target`: the command talks to a server; `review`: it runs the checklist (check, the
    app), so the review config, consent, the lock and the saved state are resolved too; `observed`: why this command
    observes its server unless the reviewer said otherwise (the app: every call the reviewer makes is watched)."""
    from mcp_review.redact import remember

    if asked.era == "both" and not review:
        raise PlanError("--era both reviews the server under each era: only check and the app take it")
    built: Target | None = None
    target_from, secrets, notes = DEFAULT, Secrets(), list[str]()
    confined = Confined()
    if target:
        built, target_from, secrets, notes = _target(asked, env)
        remember(built.secret_values())  # masked in every output from here on, errors included
        if built.kind == "stdio":
            spec, confined, said = _confinement(asked, target_from)
            built, notes = packaged(built.with_(confinement=spec)), [*notes, *said]
    plan = Plan(built, target_from, secrets, Permissions(), era=asked.era, notices=tuple(notes), confined=confined)
    if observed:
        plan = observe(plan, observed)
    return _with_review(plan, asked, env) if review else plan


# ------------------------------------------------------------------------------------------------ the target
def _pairs(values: tuple[str, ...], sep: str, what: str) -> dict[str, str]:
    out = {}
    for value in values:
        key, found, val = value.partition(sep)
        if not found or not key.strip():
            raise PlanError(f"{what} must look like K{sep}V, got {value!r}")
        out[key.strip()] = val.strip() if sep == ":" else val
    return out


def _target(asked: Asked, env: Mapping[str, str]) -> tuple[Target, Source, Secrets, list[str]]:
    given = [bool(asked.server_command), bool(asked.url), bool(asked.config or asked.server)]
    if sum(given) > 1:
        raise PlanError("give one target: a command after --, --url, or --config / --server")
    secrets, notes = Secrets(), list[str]()
    if asked.server_command:
        target = stdio_target(list(asked.server_command), _pairs(asked.env, "=", "--env"), asked.cwd)
        source = Source(FLAG, "command after --")
    elif asked.url:
        bearer, bearer_from = _bearer(asked, env)
        headers = _pairs(asked.header, ":", "--header")
        target = http_target(asked.url, transport=asked.transport, headers=headers, bearer=bearer)  # type: ignore[arg-type]
        source, secrets = Source(FLAG, "--url"), Secrets(bearer=bearer_from)
    elif asked.config or asked.server:
        target, source, secrets, notes = _configured(asked)
    else:
        target, source = demo_target(), Source("default", "the bundled demo server")
    changes: dict[str, Any] = {"timeout": asked.timeout}
    if asked.insecure:
        changes["verify"] = False
    elif asked.ca:
        changes["verify"] = asked.ca
    return target.with_(**changes), source, secrets, notes


def _bearer(asked: Asked, env: Mapping[str, str]) -> tuple[str | None, Source | None]:
    """--bearer, else $MCP_REVIEW_BEARER, else the token `mcp-review auth login` stored (refreshed if expired)."""
    from mcp_review.auth.refresh import RefreshFailed, usable_token

    if asked.bearer:
        return asked.bearer, Source(FLAG, "--bearer")
    if env.get("MCP_REVIEW_BEARER"):
        return env["MCP_REVIEW_BEARER"], Source(FLAG, "$MCP_REVIEW_BEARER")
    verify: bool | str = False if asked.insecure else (asked.ca or True)
    try:
        stored = usable_token(asked.url or "", verify=verify, timeout=asked.timeout)
    except RefreshFailed as e:
        raise LoginExpired(f"{e}; log in again: mcp-review auth login {asked.url}") from e
    return stored, Source(FLAG, "token store (`mcp-review auth login`)") if stored else None


def _configured(asked: Asked) -> tuple[Target, Source, Secrets, list[str]]:
    """An entry of an mcp.json-style file: `--config FILE [--server NAME]`, or `--server NAME` alone (found in
    the files `mcp-review servers` lists). What a project's file asked of the reviewer's environment and was
    not allowed (`--allow-env`, `--allow-env-file`) is withheld, and said in one line."""
    from mcp_review.configs import Allowed, ConfigError, find_discovered, find_server, reviewers_own

    allowed = Allowed.by_flags(list(asked.allow_env), list(asked.allow_env_file))
    try:
        if asked.config:
            chosen, note = find_server(asked.config, asked.server, allowed), None
        else:
            chosen, note = find_discovered(asked.server or "", allowed=allowed)
    except ConfigError as e:
        raise PlanError(str(e)) from e
    assert chosen.target is not None  # find_* raise for an unusable entry
    mine = reviewers_own(Path(chosen.source))
    where = chosen.source
    source = Source(FLAG, where) if mine else Source("repository", where, trust.commit_of(where))
    granted = (*asked.allow_env, *(f"envFile {f}" for f in asked.allow_env_file))
    secrets = Secrets(allowed=() if mine else granted, withheld=chosen.withheld)
    return chosen.target, source, secrets, [line for line in (note, chosen.withheld_line()) if line]


def _confinement(asked: Asked, target_from: Source) -> tuple[Confinement, Confined, list[str]]:
    """How the stdio server runs, from the flags and the reviewer's standing allowances; what to say about it."""
    from mcp_review.sandbox.allowed import AllowanceError, standing

    try:
        mine, file = standing()
    except AllowanceError as e:
        raise PlanError(str(e)) from e
    own = Source(FLAG, f"{file} [confine]") if file else DEFAULT
    confine, confine_from = True, Confined().confine
    if asked.no_confine:
        confine, confine_from = False, Source(FLAG, "--no-confine")
    elif mine.get("confine") is False:
        confine, confine_from = False, own
    observe, observe_from = False, None
    if asked.observe is not None:
        observe, observe_from = asked.observe, Source(FLAG, "--observe" if asked.observe else "--no-observe")
    elif "observe" in mine:
        observe, observe_from = bool(mine["observe"]), own
    allowances: list[tuple[str, str, Source]] = []
    for kind, flag, key in (("net", asked.allow_net, "allow_net"), ("read", asked.allow_read, "allow_read")):
        allowances += [(kind, v, Source(FLAG, f"--allow-{kind}")) for v in flag]
        allowances += [(kind, v, own) for v in mine.get(key, [])]
    allowances += [("write", v, Source(FLAG, "--allow-write")) for v in asked.allow_write]
    allowances += [("write", v, own) for v in mine.get("allow_write", [])]
    paths = {k: tuple(_path(v) for kk, v, _ in allowances if kk == k) for k in ("read", "write")}
    spec = Confinement(
        confine=confine,
        observe=observe,
        allow_net=tuple(v for k, v, _ in allowances if k == "net"),
        allow_read=paths["read"],
        allow_write=paths["write"],
        run=os.urandom(8).hex(),
        named_paths=target_from.who != "repository",
    )
    notes = [] if confine else [f"the server runs unconfined, with your files and network ({confine_from.how})"]
    return spec, Confined(confine_from, observe_from, tuple(allowances)), notes


def confined_like(target: Target, current: Target, *, named_paths: bool) -> Target:
    """`target`, a stdio server the reviewer chose in the app (ctrl+o), run as they decided for `current`, the one
    it replaces: confined unless they said --no-confine, observed (the app watches every call) unless they said
    --no-observe, with the same allowances (or, after an HTTP server, their own config's standing ones); in a run
    of its own (its own canaries). `named_paths`: the paths its command line names are shown to it (not for a
    project's config entry: `_confinement`)."""
    if target.kind != "stdio":
        return target
    if current.kind == "stdio":
        spec = current.confinement
    else:
        spec, decided, _ = _confinement(Asked(), DEFAULT)
        spec = replace(spec, observe=spec.observe or decided.observe is None)
    return target.with_(confinement=replace(spec, run=os.urandom(8).hex(), named_paths=named_paths))


def packaged(target: Target) -> Target:
    """A target that names a package (`npm:NAME@VERSION`, `pypi:NAME==VERSION`, or `npx -y PKG` / `uvx PKG`),
    installed into mcp-review's cache first (`mcp_review.packages`), as the command of what it installed; any other
    target as it is. The install may take minutes: the app runs it in a thread."""
    from mcp_review import packages

    found = packages.named([target.command or "", *target.args]) if target.kind == "stdio" else None
    if found is None:
        return target
    spec, rest = found
    try:
        installed = packages.install(spec)
    except packages.PackageError as e:
        raise PlanError(f"{spec}: {e}") from e
    return target.with_(command=installed.command, args=tuple(rest), package=installed.public())


def _path(value: str) -> str:
    return os.path.abspath(os.path.expanduser(value))


def observe(plan: Plan, why: str) -> Plan:
    """`plan` with its stdio server observed, by default for `why`, unless the reviewer said (`--observe`)."""
    target = plan.target
    if target is None or target.kind != "stdio" or plan.confined.observe is not None:
        return plan
    spec = replace(target.confinement, observe=True)
    return replace(
        plan, target=target.with_(confinement=spec), confined=replace(plan.confined, observe=Source("default", why))
    )


def observed_by_consent(plan: Plan) -> Plan:
    """`plan` with its server observed when the reviewer did not say (`--observe`): under `--calls all` and with
    probes, where a tool's side effects are what the review is after."""
    granted = plan.permissions
    why = "--calls all" if granted.calls == "all" else "--probe" if granted.probes else None
    return observe(plan, why) if why else plan


# ------------------------------------------------------------------------------------------------ the review
def _with_review(plan: Plan, asked: Asked, env: Mapping[str, str]) -> Plan:
    from mcp_review.checking import CheckPlan
    from mcp_review.config import TOKEN_ENVS, ConfigFileError
    from mcp_review.decisions import recall, resolve
    from mcp_review.lock import find_lock
    from mcp_review.rules.core import DEFAULT_PACKS, PACKS, load_rules

    rules = load_rules()
    try:
        resolved = resolve(asked.review_config, asked.base, (set(rules), set(PACKS)))
    except ConfigFileError as e:
        raise PlanError(str(e)) from e
    for name in asked.ignore:
        if name not in rules and name not in PACKS:
            raise PlanError(f"--ignore: unknown rule or pack {name!r}")
    for name in asked.pack:
        if name not in (*PACKS, "all"):
            raise PlanError(f"--pack: unknown pack {name!r}")
    config, set_by = resolved.config, resolved.set_by
    if plan.target is not None:  # decisions written without a digest: as an earlier review bound them on first use
        recall(config.waivers, plan.target.public())
        recall(config.attestations, plan.target.public())
    options = config.build_options(asked.calls, asked.probe, env)
    options.preview = asked.preview
    if asked.calls_per_tool is not None:
        if asked.calls_per_tool < 1:
            raise PlanError("--calls-per-tool: at least 1")
        options.calls_per_tool = asked.calls_per_tool
    calls_from = Source(FLAG, "--calls") if asked.calls else _from(set_by, "policy") or DEFAULT
    probes_from = tuple(s for s in (Source(FLAG, "--probe") if asked.probe else None, _from(set_by, "probe")) if s)
    tokens = tuple(
        (key, str(config.options[key]), Source.of(set_by[key])) for key in TOKEN_ENVS if key in config.options
    )
    found = None if asked.no_pins else find_lock()
    lock = str(found) if found else None
    pinned = None if asked.no_pins else asked.baseline or config.baseline
    pinned_from = Source(FLAG, "--baseline") if asked.baseline else _from(set_by, "baseline")
    server_json, server_json_from = _server_json(asked)
    gate = _gate(asked)
    gate_from = {"failOn": list(gate.said), **(Source(FLAG, "--fail-on") if asked.gate else GATE).to_json()}
    options = replace(options, server_json=server_json)
    plan = replace(
        plan,
        review=resolved,
        permissions=Permissions(options.calls, calls_from, options.probe, probes_from, _from(set_by, "allow")),
        secrets=replace(plan.secrets, tokens=tokens),
        lock=lock,
        lock_from=Source("repository", lock, trust.commit_of(lock)) if lock else None,
        baseline_from=pinned_from if pinned else None,
        server_json_from=server_json_from,
        notices=(*plan.notices, *resolved.refused),
    )
    plan = observed_by_consent(plan)
    check = CheckPlan(
        packs=list(asked.pack) or config.packs or list(DEFAULT_PACKS),
        ignore=[*config.ignore, *asked.ignore],
        options=options,
        waivers=config.waivers,
        attestations=config.attestations,
        era=asked.era,
        baseline=pinned,
        budget=asked.budget,
        lock=lock,
        diff_budget=config.diff_budget(),
        decisions={**resolved.decisions, "provenance": {**plan.provenance(), "gate": gate_from}},
        notices=resolved.refused,
        fail_on=gate.said,
    )
    return replace(plan, check=check)


def _gate(asked: Asked) -> Gate:
    """The gate: `--fail-on` (the reviewer's alone: a repository's file never chooses what holds its merge), else
    the default for a reviewer before a merge (mcp_review.verdicts)."""
    from mcp_review.verdicts import DEFAULT, parse

    try:
        return parse(asked.gate) if asked.gate else DEFAULT
    except ValueError as e:
        raise PlanError(str(e)) from e


def _server_json(asked: Asked) -> tuple[str | None, Source | None]:
    """The server's registry server.json: `--server-json FILE` (which must exist), else `server.json` in the working
    directory (the checkout under review: the repository's), else none."""
    if asked.server_json:
        if not Path(asked.server_json).is_file():
            raise PlanError(f"--server-json: no such file: {asked.server_json}")
        return asked.server_json, Source(FLAG, "--server-json")
    here = Path("server.json")
    if here.is_file():
        return str(here), Source("repository", str(here), trust.commit_of(str(here)))
    return None, None


def _from(set_by: dict[str, trust.Origin], key: str) -> Source | None:
    """Who set `key` in the review config (None: no config did)."""
    return Source.of(set_by[key]) if key in set_by else None


def chosen_in_app(check: CheckPlan, piece: str, how: str, **value: Any) -> CheckPlan:
    """`check` after the reviewer chose `piece` ("target", "calls") in the app: its provenance says so, with the
    new `value` (e.g. policy="all"). A plan that carries no record (an app started without one) is left as is."""
    decided = (check.decisions or {}).get("provenance")
    if decided is None:
        return check
    entry = {k: v for k, v in decided[piece].items() if k not in ("commit", "perTool")}
    entry |= {**value, "who": "reviewer", "how": how}
    if piece == "calls" and entry["policy"] != "none":
        entry["perTool"] = PER_TOOL.to_json()
    return replace(check, decisions={**(check.decisions or {}), "provenance": {**decided, piece: entry}})
