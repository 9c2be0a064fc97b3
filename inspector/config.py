"""Review configuration: `mcp-review.toml`, or `[tool.mcp-review]` in the server repository's pyproject.toml.

    packs = ["review", "spec", "tokens"]     # packs to run (or "all")
    ignore = ["spec.tasks", "design"]        # rule ids or packs to skip
    baseline = "mcp-review.baseline.json"    # tool-definition hashes for review.rug-pull-mitigation

    [options]                                # rule options
    list_budget = 3500                       # registry.list-budget (cl100k_base tokens)
    description_budget = 50                  # registry.description-budget
    output_budget_bytes = 8192               # tokens.output-budget
    truncation_bytes = 2048                  # tokens.smart-truncation
    probe_timeout = 5.0                      # seconds per probe request (default: --timeout)
    foreign_token_env = "OTHER_TOKEN"        # review.audience-validated: env var with a token for another resource
    narrow_token_env = "NARROW_TOKEN"        # review.resource-server-metadata: env var with a token lacking a scope
    probe = ["security"]                     # active probes with canaries: security, security-all (or --probe)
    calls_per_tool = 16                      # calls one rule may make to one tool (or --calls-per-tool)
    max_tools_list_tokens = 5000             # `mcp-review diff`: the tools array's budget (cl100k_base tokens)
    max_tool_tokens = 600                    # `mcp-review diff`: one tool's budget
    max_token_growth_percent = 10            # `mcp-review diff`: growth of the tools array (default 10)

    [calls]
    policy = "read-only"                     # none | read-only | all
    allow = ["search_notes"]                 # only these tools may be called

    [[waive]]                                # turns a fail or blocking finding into "waived"
    rule = "review.annotations-set"
    subject = "create_note"                  # optional: every subject when left out
    reason = "annotations land in 0.4"
    by = "alice"
    expires = 2027-01-31                     # optional: after it the finding counts again
    digest = "sha256:…"                      # optional: the subject's content it was made on (the review says it);
    version = 1                              # and the rule's version: when either changes it no longer applies
                                             # (without them it is bound on first use: mcp_review.binding)

    [[waive]]                                # a known SDK behaviour, for the whole review (mcp_review.known)
    rule = "review.error-channel-correct"
    known = "unknown-tool-as-result"
    reason = "we follow the TypeScript SDK here"
    by = "alice"

    [confine]                                # the reviewer's own config only: see mcp_review.sandbox.allowed
    allow_net = ["api.github.com"]

    [[attest]]                               # a person's verdict on a manual rule
    rule = "tokens.panic-isolation"
    by = "bob"
    note = "dispatch is wrapped in catch_unwind (src/mcp/dispatch.rs:40)"
    status = "pass"                          # pass (default) or fail

Unknown keys and unknown rule ids are errors naming the file and the key.

A file in the checkout under review is the repository's: what it asks that only the reviewer may grant
(`ReviewConfig.grants`: calls policy "all", probes, the token env vars, a baseline outside the working
directory) is refused unless the reviewer trusted the file (`mcp-review trust`), and its waivers and
attestations carry their provenance; `mcp_review.decisions` resolves it with the reviewer's own config.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp_review.calls import POLICIES
from mcp_review.diff import TokenBudget
from mcp_review.review import Attestation, Waiver
from mcp_review.rules.context import Options
from mcp_review.trust import inside

TOP_KEYS = {"packs", "ignore", "baseline", "options", "calls", "waive", "attest", "confine"}
OPTION_KEYS = {
    "list_budget": int,
    "description_budget": int,
    "output_budget_bytes": int,
    "truncation_bytes": int,
    "probe_timeout": float,
    "foreign_token_env": str,
    "narrow_token_env": str,
    "probe": list,
    "calls_per_tool": int,  # calls one rule may make to one tool (rules.context.Options.calls_per_tool)
    "max_tools_list_tokens": int,  # `mcp-review diff`'s cost budgets (mcp_review.diff.TokenBudget)
    "max_tool_tokens": int,
    "max_token_growth_percent": float,
}
TOKEN_ENVS = ("foreign_token_env", "narrow_token_env")  # read the reviewer's environment: the reviewer's grant
DIFF_BUDGETS = ("max_tools_list_tokens", "max_tool_tokens", "max_token_growth_percent")
PROBES = ("security", "security-all")
BINDING_KEYS = {"digest", "version", "parts"}  # what a decision is bound to (mcp_review.binding)
WAIVE_KEYS = {"rule", "subject", "reason", "by", "expires", "known", *BINDING_KEYS}
ATTEST_KEYS = {"rule", "by", "note", "status", "subject", *BINDING_KEYS}
DIGEST = re.compile(r"sha256:[0-9a-f]{64}")


class ConfigFileError(Exception):
    pass


@dataclass
class ReviewConfig:
    path: str | None = None
    packs: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    baseline: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    policy: str | None = None
    allow: list[str] | None = None
    waivers: list[Waiver] = field(default_factory=list)
    attestations: list[Attestation] = field(default_factory=list)
    confine: dict[str, Any] = field(default_factory=dict)  # [confine]: heeded only in the reviewer's own file

    def build_options(
        self, calls: str | None, probe: list[str] | tuple[str, ...] = (), env: Mapping[str, str] = os.environ
    ) -> Options:
        opts = Options(calls=(calls or self.policy or "none"), allow_tools=self.allow)  # type: ignore[arg-type]
        opts.probe = frozenset(probe)
        for key, value in self.options.items():
            if key == "probe":
                opts.probe |= frozenset(value)
            elif key in TOKEN_ENVS:
                token = env.get(str(value))
                if token:
                    setattr(opts, key.removesuffix("_env"), token)
            elif key not in DIFF_BUDGETS:
                setattr(opts, key, value)
        return opts

    def grants(self) -> list[str]:
        """What this config asks for that only the reviewer may grant (see `mcp_review.trust`)."""
        asked = ['calls.policy = "all"'] if self.policy == "all" else []
        if self.options.get("probe"):
            asked.append(f"probe = {self.options['probe']}")
        asked += [f"{key} = {self.options[key]!r}" for key in TOKEN_ENVS if key in self.options]
        if self.baseline and not inside(self.baseline):
            asked.append(f"baseline = {self.baseline!r} (outside the working directory)")
        return asked

    def without_grants(self) -> None:
        """Drop what `grants` lists, as if the file had not asked for it."""
        self.policy = None if self.policy == "all" else self.policy
        for key in ("probe", *TOKEN_ENVS):
            self.options.pop(key, None)
        if self.baseline and not inside(self.baseline):
            self.baseline = None

    def diff_budget(self) -> TokenBudget:
        return TokenBudget(**{key: self.options[key] for key in DIFF_BUDGETS if key in self.options})


def find_config(cwd: Path | None = None) -> Path | None:
    """./mcp-review.toml, else ./pyproject.toml when it has [tool.mcp-review]."""
    here = cwd or Path.cwd()
    own = here / "mcp-review.toml"
    if own.is_file():
        return own
    pyproject = here / "pyproject.toml"
    if pyproject.is_file():
        try:
            data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, OSError):
            return None
        if isinstance(data.get("tool"), dict) and "mcp-review" in data["tool"]:
            return pyproject
    return None


def _strings(where: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigFileError(f"{where}: expected a list of strings")
    return value


def _table(where: str, value: Any, keys: set[str], required: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigFileError(f"{where}: expected a table")
    unknown = sorted(set(value) - keys)
    if unknown:
        raise ConfigFileError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(keys))})")
    missing = [k for k in required if not value.get(k)]
    if missing:
        raise ConfigFileError(f"{where}: missing {missing[0]!r}")
    return value


def load_config(
    path: str | Path, known_rules: set[str], known_packs: set[str], text: str | None = None
) -> ReviewConfig:
    """The config in `path` (or `text`, what `path` holds on another revision)."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8") if text is None else text)
    except OSError as e:
        raise ConfigFileError(f"{path}: cannot read: {e.strerror}") from e
    except tomllib.TOMLDecodeError as e:
        raise ConfigFileError(f"{path}: invalid TOML: {e}") from e
    prefix = str(path)
    if path.name == "pyproject.toml":
        data = data.get("tool", {}).get("mcp-review", {})
        prefix = f"{path} [tool.mcp-review]"
    unknown = sorted(set(data) - TOP_KEYS)
    if unknown:
        raise ConfigFileError(f"{prefix}: unknown key {unknown[0]!r} (known: {', '.join(sorted(TOP_KEYS))})")

    def rule_id(where: str, value: Any, packs_too: bool = False) -> str:
        if not isinstance(value, str) or (value not in known_rules and not (packs_too and value in known_packs)):
            raise ConfigFileError(f"{where}: unknown rule id {value!r} (see `mcp-review rules`)")
        return value

    cfg = ReviewConfig(path=str(path))
    if "packs" in data:
        cfg.packs = _strings(f"{prefix}: packs", data["packs"])
        for pack in cfg.packs:
            if pack not in known_packs and pack != "all":
                known = ", ".join(sorted(known_packs))
                raise ConfigFileError(f"{prefix}: packs: unknown pack {pack!r} (packs: {known})")
    cfg.ignore = [rule_id(f"{prefix}: ignore", v, True) for v in _strings(f"{prefix}: ignore", data.get("ignore", []))]
    if "baseline" in data:
        if not isinstance(data["baseline"], str):
            raise ConfigFileError(f"{prefix}: baseline: expected a file path")
        cfg.baseline = str((path.parent / data["baseline"]).resolve())
    options = _table(f"{prefix}: [options]", data.get("options", {}), set(OPTION_KEYS), ())
    for key, value in options.items():
        kind = OPTION_KEYS[key]
        fits = isinstance(value, kind) or (kind is float and isinstance(value, int))
        if not fits or isinstance(value, bool):
            raise ConfigFileError(f"{prefix}: options.{key}: expected {kind.__name__}")
        if kind is list and not set(_strings(f"{prefix}: options.{key}", value)) <= set(PROBES):
            raise ConfigFileError(f"{prefix}: options.{key}: expected a list of {', '.join(PROBES)}")
        cfg.options[key] = value
    calls = _table(f"{prefix}: [calls]", data.get("calls", {}), {"policy", "allow"}, ())
    if "policy" in calls:
        if calls["policy"] not in POLICIES:
            raise ConfigFileError(f"{prefix}: calls.policy: expected {', '.join(POLICIES)}")
        cfg.policy = calls["policy"]
    if "allow" in calls:
        cfg.allow = _strings(f"{prefix}: calls.allow", calls["allow"])
    if "confine" in data:
        from mcp_review.sandbox.allowed import AllowanceError, checked

        try:
            cfg.confine = checked(data["confine"], f"{prefix}: [confine]")
        except AllowanceError as e:
            raise ConfigFileError(str(e)) from e
    for i, raw in enumerate(data.get("waive", [])):
        where = f"{prefix}: waive[{i}]"
        entry = _table(where, raw, WAIVE_KEYS, ("rule", "reason", "by"))
        expires = entry.get("expires")
        if expires is not None and not isinstance(expires, dt.date):
            try:
                expires = dt.date.fromisoformat(str(expires))
            except ValueError as e:
                raise ConfigFileError(f"{where}: expires: expected a date like 2027-01-31") from e
        rule = rule_id(f"{where}: rule", entry["rule"])
        cfg.waivers.append(
            Waiver(
                rule=rule,
                reason=str(entry["reason"]),
                by=str(entry["by"]),
                subject=entry.get("subject"),
                expires=expires.isoformat() if expires else None,
                source=str(path),
                known=_known(where, entry, rule),
                **_binding(where, entry),
            )
        )
    for i, raw in enumerate(data.get("attest", [])):
        where = f"{prefix}: attest[{i}]"
        entry = _table(where, raw, ATTEST_KEYS, ("rule", "by", "note"))
        status = entry.get("status", "pass")
        if status not in ("pass", "fail"):
            raise ConfigFileError(f"{where}: status: expected pass or fail")
        cfg.attestations.append(
            Attestation(
                rule=rule_id(f"{where}: rule", entry["rule"]),
                by=str(entry["by"]),
                note=str(entry["note"]),
                status=status,
                subject=entry.get("subject"),
                source=str(path),
                **_binding(where, entry),
            )
        )
    return cfg


def _binding(where: str, entry: dict[str, Any]) -> dict[str, Any]:
    """A decision's binding as written (`digest`, `version`, `parts`), checked."""
    out: dict[str, Any] = {}
    if "digest" in entry:
        if not isinstance(entry["digest"], str) or not DIGEST.fullmatch(entry["digest"]):
            raise ConfigFileError(f"{where}: digest: expected sha256: and 64 hex digits, as a review says it")
        out["digest"] = entry["digest"]
    if "version" in entry:
        if not isinstance(entry["version"], int) or isinstance(entry["version"], bool) or entry["version"] < 1:
            raise ConfigFileError(f"{where}: version: expected the rule's version, a whole number from 1")
        out["version"] = entry["version"]
    if "parts" in entry:
        parts = entry["parts"]
        if not isinstance(parts, dict) or not all(isinstance(v, str) for v in parts.values()):
            raise ConfigFileError(f"{where}: parts: expected a table of the subject's parts and their digests")
        out["parts"] = dict(parts)
    return out


def _known(where: str, entry: dict[str, Any], rule: str) -> str | None:
    """The known SDK behaviour a waiver names (mcp_review.known), which must be one of its rule's."""
    from mcp_review.known import BY_ID

    name = entry.get("known")
    if name is None:
        return None
    behaviour = BY_ID.get(str(name))
    if behaviour is None:
        raise ConfigFileError(f"{where}: known: unknown SDK behaviour {name!r} (known: {', '.join(BY_ID)})")
    if behaviour.rule != rule:
        raise ConfigFileError(f"{where}: known: {name} is a behaviour of {behaviour.rule}, not of {rule}")
    if entry.get("subject") is not None:
        raise ConfigFileError(f"{where}: known: a known behaviour is waived for the whole review, with no subject")
    return behaviour.id
