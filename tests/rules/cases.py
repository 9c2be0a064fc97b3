"""The rule harness's data: which fixture server proves each rule both ways (tests/rules/test_rules.py runs them).

`CASES` maps each rule to (the run where it passes, the run where it fails), `FAILS_AS` the failing status when it
is not "fail", and `EXPECT` the (subject, message fragment) of the finding that proves the planted defect. The
one-defect servers (`ONE_DEFECT`, with what else each may trip in `ALSO`), the families with fixtures of their own
(transports and auth, probes, MCP Apps, tasks, declared documents, skills) and the correct lookalikes a careless
rule would fail (`TRAPS`) are listed here; the runs themselves are tests/rules/runs.py.
"""

from __future__ import annotations

import subprocess

from tests.rules.runs import Run
from tests.support import ROOT, fixture_argv

EXEMPLARY = Run(("profiled", "exemplary"))
DOMAIN = Run(("profiled", "domain"))
DESIGNED = Run(("profiled", "designed"))
SLOPPY = Run(("profiled", "sloppy"), attest="fail", options=(("list_budget", 50),), extra_args=("--api-key=abc123",))
HTTP_GOOD = Run(("good",), http="--http", era="legacy")
# The transport as 2025-11-25 has it, its event streams primed too (the SDK's server primes none without an event
# store: a SHOULD, spec.http-transport warns)
HTTP_PRIMED = Run(("utilities", "well-formed"), http="--http", era="legacy")
PROTECTED = Run(("protected",), http="--http", era="legacy", oauth=True)  # a real AS, JWTs checked right
ACCEPT_ANY = Run(("protected", "--defect", "accept-any"), http="--http", era="legacy", oauth=True)
NO_PRM = Run(("protected", "--defect", "no-prm"), http="--http", era="legacy", oauth=True)  # no RFC 9728 document
HTTP_OPEN = Run(("good", "--unsafe-origin"), http="--http", era="legacy", attest="fail")
SSE = Run(("good",), http="--sse", era="legacy")
OFF_ORIGIN = Run(("offorigin",), http="--sse", era="legacy")
LOOKALIKE = Run(("profiled", "lookalike"), calls="read-only", timeout=2.0, extra_args=("--token-file", "/etc/hostname"))
HTTP_MODERN = Run(("good",), http="--http")  # the SDK's server in the 2026-07-28 era
SPEAKS_CLEAN = Run(("speaks", "clean"), calls="read-only")
SPEAKS_HOSTILE = Run(("speaks", "hostile"), calls="read-only")
PROBED = (("probe", frozenset({"security"})),)  # --probe security: the canaries of checks/review/probes.py
HARDENED = Run(("twins", "hardened"), options=PROBED)
VULNERABLE = Run(("twins", "vulnerable"), options=PROBED)
CONFINED_WRITER = Run(("writer", "confined"), options=PROBED)  # tests/servers/writer.py: files and code
NAIVE_WRITER = Run(("writer", "naive"), options=PROBED)
# tests/servers/sinks.py: sinks behind names that say nothing of them (carriers chosen by effect)
REVIEW = ("review",)  # the packs of a run that proves rules of pack review only
SINKS_HARDENED = Run(("sinks", "hardened"), options=PROBED, packs=REVIEW)
SINKS_VULNERABLE = Run(("sinks", "vulnerable"), options=PROBED, packs=REVIEW)
# tests/servers/offered.py: defects behind the values the server's own text offers
OFFERED_HARDENED = Run(("offered", "hardened"), calls="read-only", options=PROBED, packs=REVIEW)
OFFERED_VULNERABLE = Run(("offered", "vulnerable"), calls="read-only", options=PROBED, packs=REVIEW)
# tests/servers/guarded.py: refusals (isError, plain text) that prove nothing, and the twin that acts
GUARDED = ("review", "tokens")  # the probes, and tokens.destructive-elicitation
GUARDED_REFUSES = Run(("guarded", "refuses"), options=PROBED, packs=GUARDED)
GUARDED_PLAIN = Run(("guarded", "plain"), options=PROBED, packs=GUARDED)
GUARDED_ACTS = Run(("guarded", "acts"), options=PROBED, packs=GUARDED)
# tests/servers/fragile.py: a server that stays up, one a probe takes down (stdio: the review reconnects)
# only the probes that take it down, and two after them: each further probe with a separator costs a fresh process
OUTLIVED = tuple(
    f"review.{r}" for r in ("commands-not-injected", "secrets-not-echoed", "urls-confined", "survives-probes")
)
STEADY = Run(("fragile", "steady"), options=PROBED, packs=REVIEW, only=OUTLIVED)
CRASHES = Run(("fragile", "crash-on-payload"), options=PROBED, packs=REVIEW, only=OUTLIVED)
SSE_OPEN = Run(("good", "--unsafe-origin", "--cors-any"), http="--sse", era="legacy", packs=REVIEW)  # CORS *


PROFILES = {"exemplary": EXEMPLARY, "domain": DOMAIN, "designed": DESIGNED}


def served_defects() -> dict[str, tuple[Run, str]]:
    """The one-defect servers (`python tests/servers/defects.py NAME`: a profile where the rule passes, its good
    fixture, plus exactly one defect) as defects.py lists them: name -> (that profile, the rule it fails)."""
    listed = subprocess.run(fixture_argv("defects"), capture_output=True, text=True, check=True, timeout=30)
    return {name: (PROFILES[base], rule) for name, base, rule in map(str.split, listed.stdout.splitlines())}


# Defects that are not in the server: in its launch line, or in the reviewer's word.
ONE_DEFECT = served_defects() | {
    "key-in-argv": (EXEMPLARY, "review.transport-config"),
    "attested-fail": (DOMAIN, "tokens.panic-isolation"),
}
LAUNCHED = {
    "key-in-argv": Run(("profiled", "exemplary"), extra_args=("--api-key=abc123",)),  # a credential as an argument
    "attested-fail": Run(("profiled", "domain"), attest="fail"),  # a manual-only rule fails on a reviewer's word
}
# The allow-list: what a defect necessarily trips besides its rule, and why. Anything else it turns fail, warn or
# blocking on its base fails test_a_one_defect_server_trips_only_its_rules.
ALSO: dict[str, tuple[str, ...]] = {
    "duplicate-tool": ("spec.tool-names",),  # the spec wants tool names unique too
    "lax-fields": ("review.arguments-validated-and-authorized",),  # it sends the same unknown field
    "string-icon": ("spec.wire-schema",),  # the schema wants an icon object too
    "bad-task-support": ("spec.wire-schema",),  # the schema's enum of taskSupport values
    "misnamed-notification": ("spec.wire-schema",),  # the camel-case name is no notification the schema defines
    "attested-fail": ("review.injection-safe",),  # every manual rule the server does not already fail takes it
    "closed-world-connects": ("review.hosts-named",),  # a closed-world tool that connects reaches a host nobody named
    "non-destructive-removes": ("review.read-only-verified",),  # search_notes is read-only too: a removal is a change
}


def defect_run(name: str) -> Run:
    return LAUNCHED.get(name) or Run(("defects", name))


# rule id -> (passes on, fails on); the expected failing status is "fail" unless FAILS_AS says "warn".
CASES: dict[str, tuple[Run, Run]] = {rule: (base, defect_run(name)) for name, (base, rule) in ONE_DEFECT.items()}
CASES.update(
    {
        "review.audience-validated": (PROTECTED, ACCEPT_ANY),
        "review.resource-server-metadata": (PROTECTED, NO_PRM),  # no auth at all is transport-config's fail
        "review.no-token-passthrough": (HTTP_GOOD, HTTP_OPEN),
        "spec.http-transport": (HTTP_PRIMED, HTTP_OPEN),
        "tokens.transport": (DOMAIN, SSE),
        "review.same-origin": (SSE, OFF_ORIGIN),
        "review.results-safe": (SPEAKS_CLEAN, SPEAKS_HOSTILE),
        "review.prompts-safe": (SPEAKS_CLEAN, SPEAKS_HOSTILE),
        "review.client-requests-safe": (SPEAKS_CLEAN, SPEAKS_HOSTILE),
    }
)
PROBES = ("paths-confined", "commands-not-injected", "urls-confined", "templates-inert", "secrets-not-echoed")
# Every string is probed: the good fixture is one whose every tool decides every payload (refused as itself, or kept
# as text); the twins' hardened login refuses any password alike, which proves nothing (test_probes.py says so).
CASES.update({f"review.{probe}": (SINKS_HARDENED, VULNERABLE) for probe in PROBES})
CASES["review.secrets-not-echoed"] = (GUARDED_PLAIN, VULNERABLE)  # unlock refuses without the passphrase
CASES["review.code-not-executed"] = (SINKS_HARDENED, NAIVE_WRITER)
CASES["review.browser-origins-refused"] = (SSE, SSE_OPEN)
CASES["review.survives-probes"] = (STEADY, CRASHES)
CASES["review.injection-safe"] = (DOMAIN, defect_run("attested-fail"))  # manual only: the probes above prove it
FAILS_AS = {
    "spec.tool-names": "warn",  # the naming guidance is a SHOULD (2025-11-25 server/tools.mdx:219-224)
    "design.lean-output": "warn",
    "design.constraints": "warn",
    "review.no-overlap": "warn",
    "review.primitive-by-purpose": "warn",  # two equal answers suggest static data; they cannot prove it
}

# rule -> (subject, a fragment of the message) of the finding that proves the bad fixture's defect: a rule that
# fails for another reason (a crash, a different tool, a timeout) does not pass its test.
EXPECT: dict[str, tuple[str | None, str]] = {
    "design.constraints": ("note.search", "unbounded: query"),
    "design.envelope": ("note.search", "returned without the {ok, result, issues} envelope"),
    "design.field-docs": ("note.search", "missing query: description"),
    "design.lean-output": ("note.search", "result.items.updated_at is a time string"),
    "design.object-operation-names": ("search_notes", "'search_notes' is not object.operation"),
    "design.one-arg-input": ("note.search", "parameters ['query', 'limit'] instead of one `input`"),
    "design.title-metadata": ("note.search", "no title"),
    "registry.description-budget": ("delete_note", "description costs 58 tokens, over 50"),
    "registry.heading-quirk": ("search_notes", "a title that begins with # swallowed a description"),
    "registry.no-false-strict": ("search_notes", "additionalProperties: false, yet a call with an unknown"),
    "registry.wire-trimmed": ("search_notes", "has inputSchema.$schema"),
    "review.annotations-set": ("delete_note", "readOnlyHint and destructiveHint are both true"),
    "review.arguments-validated-and-authorized": ("search_notes", "schema-invalid arguments: missing required"),
    "review.client-requests-safe": ("sampling/createMessage", "systemPrompt: instruction aimed at the model"),
    "review.commands-not-injected": ("run_ping", "returned the joined canary (a shell ran printf)"),
    "review.descriptions-grounded": ("search_notes", "'<IMPORTANT>' block"),
    "review.code-not-executed": ("run_code", "returned the joined canary (the code ran): code execution"),
    "review.input-schema": ("filter_notes", "property 'filter' is a free-form object"),
    "review.no-overlap": ("get_tags", "exposes the same data as resource 'notes://tags'"),
    "review.output-schema-and-structured": ("search_notes", "declares an outputSchema but the result has no"),
    "review.paths-confined": ("read_file", "returned the canary file's content: path traversal"),
    "review.precise-names": ("search_notes", "name 'search_notes' is not unique"),
    "review.primitive-by-purpose": ("get_tags", "takes no input and returned the same result twice"),
    "review.prompts-safe": ("brief", "messages[0].content.text: instruction aimed at the model: '<IMPORTANT>' block"),
    "review.results-safe": ("lookup", "structuredContent.note: instruction aimed at the model: '<IMPORTANT>' block"),
    "review.secrets-not-echoed": ("login", "came back in the reply: secret echo"),
    "review.templates-inert": ("render_greeting", "'{{7*"),
    "review.urls-confined": ("fetch_url", "made the server request the canary listener"),
    "spec.icons": ("search_notes", "icons[0] is not an object with a string src"),
    "spec.pagination": ("tools", "pagination loop: cursor 'page-2' came back"),
    "spec.tasks": ("search_notes", "execution.taskSupport 'sometimes'"),
    "spec.tool-names": ("delete note", "'delete note' breaks the naming rule (characters [' ']): a name SHOULD"),
    "tokens.description-template": ("notes", "missing: when to use, parameters, limitations"),
    "tokens.destructive-elicitation": ("delete_note", "completed (ok) without asking for confirmation"),
    "tokens.field-selection": ("notes", "takes no `fields` array"),
    "tokens.output-budget": ("notes", "bytes with no _overflow marker (budget"),
    "tokens.pagination": ("notes", "the result is not {items, next_cursor"),
    "tokens.request-id": ("notes", "success envelope without _meta.request_id"),
    "tokens.smart-truncation": ("notes", "strings over 2048 bytes not truncated: items[0].body"),
    "tokens.tool-registration": ("notes", "'limit', 'options'] are not the canonical"),
    # what the server does (checks/review/behaviour.py; the defects are tests/servers/behaving.py)
    "review.secrets-read": ("delete_note", "opened a credential's canary while answering tools/call delete_note"),
    "review.secrets-sent": ("delete_note", "(an SSH private key, a canary) showed in a line on stderr"),
    "review.hosts-named": ("tools/list", "reached a host nobody named while answering tools/list"),
    "review.no-shell-on-call": ("delete_note", "started a shell or interpreter"),
    "review.writes-in-scratch": ("delete_note", "changed files outside its scratch"),
    "review.read-only-verified": ("search_notes", "is annotated readOnlyHint: true, yet it changed files"),
    "review.open-world-verified": ("search_notes", "is annotated openWorldHint: false, yet it reached a host"),
    "review.destructive-verified": ("search_notes", "is annotated destructiveHint: false, yet it removed files"),
}
# The same for findings about the server itself (no subject): rule -> a fragment of the message.
SERVER_WIDE = {
    "registry.list-budget": "cl100k_base tokens, over the ceiling of 3500",
    "review.audience-validated": "a random string was accepted (HTTP 200)",
    "review.error-channel-correct": "calling a tool that does not exist succeeded",
    "review.browser-origins-refused": "GET of the event stream with Origin http://evil.example -> HTTP 200",
    "review.survives-probes": "closed the connection while review.commands-not-injected ran, after tools/call",
    "review.no-token-passthrough": "attested by test: fixture attests fail",
    "review.resource-server-metadata": "no protected-resource metadata with authorization_servers",
    "review.rug-pull-mitigation": "definitions changed within one session: search_notes",
    "review.same-origin": "the server sent the client to another origin (refused)",
    "review.transport-config": "credentials passed as command-line arguments (--api-key=***)",
    "spec.capabilities": "does not declare 'prompts' but prompts/list lists 1",
    "spec.http-transport": "Origin http://evil.example -> HTTP 200, not 403",
    "spec.notification-names": "notifications/tools/listChanged",
    "spec.ping": "ping -> {'pong': True}, not an empty result",
    "spec.stdio-clean": "non-JSON-RPC line(s) on stdout, first: 'debug: tools/list called'",
    "spec.unknown-method": "unknown method -> a result",
    "spec.version-negotiation": "initialize with 1999-01-01 was answered '1999-01-01'",
    "spec.wire-schema": "InitializeResult result.serverInfo: 'version' is a required property",
    "tokens.panic-isolation": "attested by test: fixture attests fail",
    "review.injection-safe": "attested by test: fixture attests fail",
    "tokens.transport": "the server is reviewed over the legacy HTTP+SSE transport",
    "review.startup-quiet": "before its first answer it opened",
}
EXPECT.update({rule: (None, fragment) for rule, fragment in SERVER_WIDE.items()})

# MCP Apps (issue 23): tests/servers/apps.py, a well-formed app and one planted defect per mode.
APP_GOOD = Run(("apps", "well-formed"))
APP_DEFECTS = {  # rule -> (mode, subject, fragment)
    "apps.resource-resolves": ("dangling-uri", "show_weather", "resources/read answered an error"),
    "apps.csp-origins-only": ("csp-wildcard", "ui://weather/app.html", "'*' is a wildcard"),
    "apps.origins-declared": ("undeclared-script", "ui://weather/app.html", "https://cdn.elsewhere.example is not in"),
    "apps.origins-used": ("unused-origin", "ui://weather/app.html", "never used by the page: _meta.ui.csp.connect"),
    "apps.permissions-justified": ("unjustified-camera", "ui://weather/app.html", "camera: the page never uses it"),
    "apps.visibility-honest": ("app-only-offered", "refresh_weather", "app-only, yet offered to the model in tool"),
    "apps.domain-set": ("no-domain", "ui://weather/app.html", "no _meta.ui.domain"),
    "apps.page-safe": ("exfiltration", "ui://weather/app.html", "sends data to https://collect.example"),
    "apps.cost": ("heavy", "show_weather", "tokens reach the model (content)"),
    "review.declared-surfaces-reviewed": ("surfaces", "capabilities.extensions.com.example/holograms", "does not"),
}
CASES.update({rule: (APP_GOOD, Run(("apps", mode))) for rule, (mode, _, _) in APP_DEFECTS.items()})
EXPECT.update({rule: (subject, fragment) for rule, (_, subject, fragment) in APP_DEFECTS.items()})
FAILS_AS.update({r: "warn" for r in ("apps.origins-used", "apps.domain-set", "apps.cost")})
FAILS_AS["review.declared-surfaces-reviewed"] = "blocking"  # what no rule judges cannot fail: it is not verified
# apps.preview runs the page in headless Chromium only with --preview (Options.preview): the same two fixtures
PREVIEWED = (("preview", True),)
CASES["apps.preview"] = (
    Run(("apps", "well-formed"), options=PREVIEWED),
    Run(("apps", "undeclared-script"), options=PREVIEWED),
)
EXPECT["apps.preview"] = (
    "show_weather",
    "loads https://cdn.elsewhere.example/lib.js (script-src-elem), which its own CSP",
)

# Tasks (issue 24): tests/servers/tasks.py, a 2025-11-25 server here (test_rules_tasks.py proves the 2026-07-28 one).
TASKS_GOOD = Run(("tasks", "well-formed"))
TASK_DEFECTS = {  # rule -> (mode, subject, fragment)
    "spec.task-unsolicited": ("unsolicited", "slow_report", "a call that asked for no task came back as a task"),
    "spec.task-status": ("illegal-transition", "slow_report", "illegal status transition 'completed' -> 'working'"),
    "spec.task-iserror": ("iserror-status", "flaky_job", "isError: true, yet the task ended 'completed'"),
    "spec.task-ttl": ("ignored-ttl", "slow_report", "within its ttl of 60000 ms"),
}
CASES.update({rule: (TASKS_GOOD, Run(("tasks", mode))) for rule, (mode, _, _) in TASK_DEFECTS.items()})
EXPECT.update({rule: (subject, fragment) for rule, (_, subject, fragment) in TASK_DEFECTS.items()})
CASES["spec.task-methods"] = (TASKS_GOOD, Run(("tasks", "list-served", "--modern")))
EXPECT["spec.task-methods"] = (None, "tasks/list answered a result: the 2026-07-28 extension has no tasks/list")

# What a server declares outside the protocol, and deprecations (issue 24): tests/servers/declared.py over HTTP with
# its server.json beside it (declared/): one that agrees with the wire, one with planted disagreements.
DECLARED = ROOT / "tests" / "servers" / "declared"
AGREES = Run(("declared", "agrees"), http="--http", options=(("server_json", str(DECLARED / "agrees.server.json")),))
DISAGREES = Run(
    ("declared", "disagrees"), http="--http", options=(("server_json", str(DECLARED / "disagrees.server.json")),)
)
DECLARED_DEFECTS = {  # rule -> (subject, fragment)
    "review.server-json": ("version", "says version '2.0.0'; the server says serverInfo.version '1.4.0'"),
    "review.server-card": ("version", "says version '9.9.9'; the server says serverInfo.version '1.4.0'"),
    "spec.deprecated-features": ("sunset", "announces sunset: 'Wed, 28 Jul 2027 00:00:00 GMT'"),
}
CASES.update({rule: (AGREES, DISAGREES) for rule in DECLARED_DEFECTS})
EXPECT.update(DECLARED_DEFECTS)
FAILS_AS["spec.deprecated-features"] = "note"  # deprecations are recorded, never judged

# Skills (SEP-2640, issue 24): tests/servers/skills.py, a well-formed server and one planted defect per mode;
# spec.skills-methods fails on the apps fixture that declares the extension and serves none of it.
SKILLS_GOOD = Run(("skills", "well-formed"))
NOTES_SKILL = "skill://release-notes/SKILL.md"
SKILL_DEFECTS = {  # rule -> (fixture argv, subject, fragment)
    "spec.skills-methods": (("apps", "surfaces"), "skills/list", "skills/list answered JSON-RPC error"),
    "spec.skills-frontmatter": (("skills", "no-frontmatter"), NOTES_SKILL, "does not begin with YAML frontmatter"),
    "spec.skills-digest": (("skills", "digest-mismatch"), NOTES_SKILL, "the manifest says 268 bytes"),
    "spec.skills-directory-read": (("skills", "undeclared-directory"), "resources/directory/read", "not declared"),
    "spec.skills-caching": (("skills", "no-caching"), "skills/list page 1", "no valid ttlMs or cacheScope"),
    "spec.skills-static": (("skills", "dynamic"), "skill://acme/billing/refunds/SKILL.md", "change at run time"),
    "review.skills-safe": (("skills", "hidden-instruction"), NOTES_SKILL, "'<IMPORTANT>' block"),
}
CASES.update({rule: (SKILLS_GOOD, Run(argv)) for rule, (argv, _, _) in SKILL_DEFECTS.items()})
EXPECT.update({rule: (subject, fragment) for rule, (_, subject, fragment) in SKILL_DEFECTS.items()})
FAILS_AS["spec.skills-static"] = "blocking"  # a dynamic skill is not proven wrong: it cannot be verified

# The server utilities and the 2026-07-28 request rules (issue 41): tests/servers/utilities.py, a dual-era server over
# stdio and HTTP, one planted defect per mode, each rule proven both ways on both transports
# (tests/rules/test_rules_utilities.py); CASES takes the stdio pair (HTTP where the MUST is HTTP's).
Transport = str  # "stdio" or "http"
UTILITY_DEFECTS: dict[str, tuple[str, dict[Transport, str], str | None, str]] = {
    # mode -> (the rule it fails, the era judged on each transport, subject, a fragment of the message of both)
    "setlevel-refused": ("spec.logging-level", {"stdio": "legacy", "http": "legacy"}, None, "yet logging/setLevel"),
    "logs-unasked": ("spec.logging-level", {"stdio": "modern", "http": "modern"}, None, "MUST NOT log to a request"),
    "subscribe-refused": (
        "spec.resource-subscriptions",
        {"stdio": "legacy", "http": "legacy"},
        None,
        "yet resources/subscribe 'test://watched-resource' -> error -32601",
    ),
    "completion-refused": (
        "spec.completion",
        {"stdio": "legacy", "http": "modern"},
        "test_prompt_with_arguments",
        "declares completions, yet completion/complete for ref/prompt",
    ),
    "progress-backwards": ("spec.progress", {"stdio": "modern", "http": "legacy"}, None, "reports progress 0 after 50"),
    "wrong-id": ("spec.response-ids", {"stdio": "legacy", "http": "modern"}, None, 'id "server-error"'),
    "meta-unchecked": (
        "spec.request-meta",
        {"stdio": "modern", "http": "modern"},
        None,
        "server/discover with no _meta",
    ),
    "removed-served": ("spec.removed-methods", {"stdio": "modern", "http": "modern"}, None, "ping -> "),
    "empty-contents": (
        "spec.resource-not-found",
        {"stdio": "modern", "http": "modern"},
        None,
        "an empty contents MUST NOT",
    ),
    # checks inside rules that have their own pair in CASES
    "version-sloppy": ("spec.version-negotiation", {"stdio": "modern", "http": "modern"}, None, "data.requested is"),
    "anonymous": ("spec.request-meta", {"stdio": "modern", "http": "modern"}, "serverInfo in results", "no _meta"),
    "shuffled": ("spec.tool-order", {"stdio": "modern", "http": "modern"}, None, "the same tools in another order"),
    "serial-posts": (
        "spec.http-transport",
        {"http": "legacy"},
        None,
        "3 tools/list POSTed at once -> HTTP 200, HTTP 409",
    ),
    "origin-unchecked": (
        "spec.http-transport",
        {"http": "legacy"},
        None,
        "a DNS-rebinding request (Host evil.example:",
    ),
    "host-unchecked": ("spec.http-transport", {"http": "legacy"}, "Host", "with no Origin -> HTTP 200: accepted"),
    "version-header-unchecked": (
        "spec.http-transport",
        {"http": "modern"},
        None,
        "with _meta 1999-01-01 -> HTTP 400 -32022, not",
    ),
    "headers-loose": (
        "spec.http-transport",
        {"http": "modern"},
        None,
        "Mcp-Name mcp-review-other-name on a resources/read of 'test://watched-resource' -> HTTP 200 None",
    ),
    "headers-strict": ("spec.http-transport", {"http": "modern"}, None, "mcp-method: server/discover -> HTTP 400"),
    "sse-unprimed": ("spec.http-transport", {"http": "legacy"}, None, "event streams answering a POST began without"),
}
UTILITY_FAILS_AS = {
    ("removed-served", "stdio"): "warn",  # over stdio the spec states no status: a warn
    ("anonymous", "stdio"): "warn",  # serverInfo in every result is a SHOULD
    ("anonymous", "http"): "warn",
    ("shuffled", "stdio"): "warn",  # a deterministic order is a SHOULD
    ("shuffled", "http"): "warn",
    ("host-unchecked", "http"): "note",  # the spec names no Host check
    ("sse-unprimed", "http"): "warn",  # the priming event is a SHOULD
}


def utilities(mode: str, era: str, transport: Transport) -> Run:
    return Run(("utilities", mode), http="--http" if transport == "http" else None, era=era)


def utility_pair(mode: str, transport: Transport) -> tuple[Run, Run]:
    """(the well-formed server, the one with `mode`'s defect), in the era `mode`'s rule is judged in."""
    era = UTILITY_DEFECTS[mode][1][transport]
    return utilities("well-formed", era, transport), utilities(mode, era, transport)


# a new rule's pair in CASES is its first mode's, over stdio unless its fail is HTTP's alone
_FIRST = {rule: mode for mode, (rule, _, _, _) in reversed(UTILITY_DEFECTS.items()) if rule not in CASES}
CASES.update(
    {
        rule: utility_pair(mode, "http" if (mode, "stdio") in UTILITY_FAILS_AS else "stdio")
        for rule, mode in _FIRST.items()
    }
)
EXPECT.update({rule: UTILITY_DEFECTS[mode][2:] for rule, mode in _FIRST.items()})
FAILS_AS["spec.tool-order"] = "warn"  # a deterministic order is a SHOULD

# What the scanner judges by what it is, and the capabilities a tool has (issue 37): tests/servers/poisoned.py, a
# poisoned twin and a clean one of the same tools (tests/rules/test_scan_served.py proves them on HTTP too).
POISONED = Run(("poisoned", "poisoned"))
CLEAN = Run(("poisoned", "clean"))
CAPABILITIES = {  # rule -> (subject, fragment)
    "review.capability-shell": ("run_command", "runs shell commands (named: title: 'Run command'"),
    "review.capability-code": ("run_python", "evaluates or runs code (named: description: 'Run Python code'"),
    "review.capability-file-write": ("write_file", "writes files at a path it is given (named: title: 'Write file'"),
    "review.capability-env-read": ("print_env", "printed 5 variables (APP_REGION, HOME, NODE_ENV, PATH)"),
    "review.capability-network": ("fetch_url", "makes outbound requests or sends data out (named: title: 'Fetch URL'"),
}
CASES.update({rule: (CLEAN, POISONED) for rule in CAPABILITIES})
EXPECT.update(CAPABILITIES)
FAILS_AS.update({rule: "warn" for rule in CAPABILITIES})  # a capability is named for a reviewer to accept or waive

# Known false positives (each rule's docs name them): a correct server that a careless rule would fail.
# rule -> (the server, the worst status the rule may give it)
TRAPS = {
    "spec.tasks": (LOOKALIKE, "n/a"),  # taskSupport "forbidden", no tasks capability, tasks/* -> -32601
    "spec.capabilities": (LOOKALIKE, "warn"),  # an empty prompts/list without the capability
    "review.primitive-by-purpose": (LOOKALIKE, "warn"),  # the same live state twice is not proof of static data
    "review.input-schema": (LOOKALIKE, "pass"),  # optional parameters with defaults, a typed map
    "spec.version-negotiation": (HTTP_MODERN, "pass"),  # a probe valid in all but the version it tests
    # get_logs never answers invalid arguments: a call with no answer is blocking, never a fail
    "review.error-channel-correct": (LOOKALIKE, "blocking"),
    "review.arguments-validated-and-authorized": (LOOKALIKE, "blocking"),
    "review.transport-config": (LOOKALIKE, "warn"),  # --token-file PATH says where a secret is, not what
    "tokens.pagination": (LOOKALIKE, "warn"),  # list_allowed_directories: named like a list, pages nothing
    "registry.wire-trimmed": (LOOKALIKE, "pass"),  # a 40-character URL default is a value, not prose
    "registry.heading-quirk": (LOOKALIKE, "warn"),  # a title by hand and no description: maybe, not proof
    # an order that protects the user, crypto tokens, a documented password, placeholders and object ids beside
    # service labels, template variables; Solana addresses next to "token" in a result
    "review.descriptions-grounded": (CLEAN, "pass"),
    "review.results-safe": (CLEAN, "pass"),
    # every write outside its root refused (isError): a refusal proves neither an act nor that it would ask
    "tokens.destructive-elicitation": (CONFINED_WRITER, "blocking"),
    # "Unknown format 'x'" in plain text, without isError, is a refusal, never a payload taken quietly (a warn)
    "review.templates-inert": (GUARDED_PLAIN, "blocking"),
}
