"""Pack `review` (seed 003): what each tool can do, named: shell, code, file writes, the environment, the network.

One rule per capability, so a reviewer accepts or waives each apart (a waiver of one tool's network access does not
hide a shell it gains later). Each reads the tool's definition (`mcp_review.scan.capabilities`: its name, title,
description and input schema) and adds what the review proved or observed: a probe rule's fail on the same tool
(`CAPABLE_BY`: the canary that came back), a call whose result shows the capability at work (an environment dump),
each citing its wire entries. The evidence is a list: a rule that observes behaviour (a process started, a
connection attempted) can add its fails to `CAPABLE_BY` and the capability rule cites them.
"""

from __future__ import annotations

from collections.abc import Iterator

from mcp_review import surfaces
from mcp_review.catalog import Item
from mcp_review.checks.review.common import SEED, named_tools
from mcp_review.review import Finding
from mcp_review.rules.context import CheckContext
from mcp_review.rules.core import rule
from mcp_review.scan.capabilities import CAPABILITIES, Evidence, named
from mcp_review.scan.disclosure import environment

SOURCE = f"{SEED} Security: injection-safe (what a tool can reach)"
SHOWN = 6  # pieces of evidence quoted in one finding
# capability -> the rules whose fail on a tool proves it has the capability (and what the fail's message must say)
CAPABLE_BY: dict[str, tuple[tuple[str, str], ...]] = {
    "shell": (("review.commands-not-injected", ""),),
    "code": (("review.code-not-executed", ""), ("review.templates-inert", "")),
    "file-write": (("review.paths-confined", "writ"),),
    "network": (("review.urls-confined", ""),),
    "env-read": (),
}


def _proven(ctx: CheckContext, capability: str) -> dict[str, list[Evidence]]:
    """Tool -> the earlier rules' fails that prove `capability` (a probe's canary came back), with their exchanges."""
    out: dict[str, list[Evidence]] = {}
    wanted = dict(CAPABLE_BY[capability])
    for f in ctx.earlier:
        if f.status == "fail" and f.subject and f.rule in wanted and wanted[f.rule] in f.message:
            seq = f.evidence[-1] if f.evidence else None
            out.setdefault(f.subject, []).append(Evidence(f"{f.rule} (proven)", f"'{f.message[:100]}'", seq))
    return out


def _observed(ctx: CheckContext, capability: str) -> dict[str, list[Evidence]]:
    """Tool -> the calls of this review whose result shows `capability` at work (for env-read: an environment dump)."""
    out: dict[str, list[Evidence]] = {}
    if capability != "env-read":
        return out
    for call in ctx.calls:
        if call.seq is None or call.tool in out:
            continue
        for said in surfaces.result(call.result):
            names = environment(said.text)
            if names:
                shown = ", ".join(names[:4])
                out[call.tool] = [
                    Evidence(f"call {call.seq} {said.where}", f"printed {len(names)} variables ({shown})", call.seq)
                ]
                break
    return out


def capability_findings(ctx: CheckContext, capability: str) -> Iterator[Finding]:
    """A warn per tool with the capability, its evidence quoted and cited; one pass for the server when none has it."""
    proven, observed = _proven(ctx, capability), _observed(ctx, capability)
    what = CAPABILITIES[capability]
    tools = named_tools(ctx)
    flagged = 0
    for tool in tools:
        evidence = named(tool.raw).get(capability, []) + proven.get(tool.key, []) + observed.get(tool.key, [])
        if not evidence:
            continue
        flagged += 1
        yield _warn(ctx, tool, what, evidence)
    if not flagged:
        yield ctx.passed(None, f"no tool of {len(tools)} says or shows that it {what}")


def _warn(ctx: CheckContext, tool: Item, what: str, evidence: list[Evidence]) -> Finding:
    said = "; ".join(e.said() for e in evidence[:SHOWN]) + (
        f"; and {len(evidence) - SHOWN} more" if len(evidence) > SHOWN else ""
    )
    shown = "proven" if any(e.seq is not None for e in evidence) else "named"
    return ctx.warn(
        tool,
        f"{what} ({shown}: {said}): accept it if the tool needs it, or waive it with the reason",
        [e.seq for e in evidence],
    )


@rule("review.capability-shell", concern="security", severity="high", modes=("static", "observe"), source=SOURCE)
def capability_shell(ctx: CheckContext) -> Iterator[Finding]:
    """A tool that runs shell commands is named, whether or not a probe got an injection through it.

    What it checks: static: each tool's name, title, description and parameters (`mcp_review.scan.capabilities`):
    a shell, terminal or command line named ("Execute a shell command", "Run a kubectl command", `run_command`), or a
    `command`/`cmd` parameter of a tool whose text runs it. observe: a fail of `review.commands-not-injected` on the
    tool (a shell joined the probe's canary) is added as proof, citing its exchange.

    Why: seed 003 injection-safe names shells first among what arguments must never reach unescaped; a reviewer
    merging a server wants to know a tool can run commands at all, since a prompt injection that reaches the model
    then reaches the shell with the server's rights.

    Known false positives: a tool whose text says it runs one fixed command ("Run the `make test` target") with
    words of a shell ("in a terminal") warns; a tool that runs commands without saying so is named only by a probe.

    Passes: no tool says or shows it runs shell commands. Warns: each tool that does, with the words that say so (or
    the probe that proved it); accept it, or waive it naming why the tool needs it.
    """
    return capability_findings(ctx, "shell")


@rule("review.capability-code", concern="security", severity="high", modes=("static", "observe"), source=SOURCE)
def capability_code(ctx: CheckContext) -> Iterator[Finding]:
    """A tool that evaluates or runs code (a program, a script, an expression in a programming language) is named.

    What it checks: static: code, a script, a snippet or a program in a language run or evaluated ("Run Python code",
    "Evaluate a JavaScript snippet in the page"), a REPL, an interpreter or a notebook cell, in the tool's name,
    title, description or parameters. observe: a fail of `review.code-not-executed` (a program joined the canary)
    or `review.templates-inert` (template syntax was evaluated) on the tool, citing its exchange.

    Why: seed 003 injection-safe: code an argument carries runs with the server's rights; evaluating it is the
    capability, whoever writes the argument (a prompt injection can).

    Known false positives: a calculator's "mathematical expression" and a SQL query are not named here; a tool that
    describes code it does not run ("Runs a code review on the diff") is not either, but "Run scripts" in a tool
    that only lists them warns.

    Passes: no tool says or shows it runs code. Warns: each tool that does, with the evidence; accept or waive it.
    """
    return capability_findings(ctx, "code")


@rule("review.capability-file-write", concern="security", severity="medium", modes=("static", "observe"), source=SOURCE)
def capability_file_write(ctx: CheckContext) -> Iterator[Finding]:
    """A tool that writes, edits, moves or deletes files at a path it is given is named.

    What it checks: static: a file or directory written, created, overwritten, edited, moved, renamed or deleted
    ("Write content to a file", "Create Directory", "rename files"), or a path parameter of a tool whose name writes
    and works on files (`write_file(path)`, `save_report(output)`). observe: a fail of `review.paths-confined` that
    says a canary path was written, citing its exchange.

    Why: seed 003 injection-safe: a path an argument carries decides where the server writes; a tool that writes
    where it is told can overwrite a startup file or a key, so a reviewer names it and checks where it is confined.

    Known false positives: a tool that writes only inside its own store (a notes database) is not named unless its
    text speaks of files; one confined to allowed directories is still named (the text's words are quoted, the
    probe decides whether the confinement holds).

    Passes: no tool says or shows it writes files. Warns: each tool that does, with the evidence; accept or waive it.
    """
    return capability_findings(ctx, "file-write")


@rule("review.capability-env-read", concern="security", severity="medium", modes=("static", "observe"), source=SOURCE)
def capability_env_read(ctx: CheckContext) -> Iterator[Finding]:
    """A tool that returns or prints the server's environment is named.

    What it checks: static: the environment returned, listed or printed ("Returns all environment variables",
    `get_env`, `printenv`, `os.environ`). observe: a call of this review whose result is an environment dump (four or
    more variables, one of a shell's own: `mcp_review.scan.disclosure.environment`), citing that call.

    Why: seed 003 transport-config has stdio servers read their credentials from the environment; a tool that
    hands the environment to the model hands it those credentials (and every variable that names an internal host).

    Known false positives: configuration that names one variable the server reads ("requires OPENAI_API_KEY") is
    not named; a debug tool made to print its environment is named by design: waive it saying so.

    Passes: no tool says or shows it reads the environment. Warns: each tool that does; accept or waive it.
    """
    return capability_findings(ctx, "env-read")


@rule("review.capability-network", concern="security", severity="medium", modes=("static", "observe"), source=SOURCE)
def capability_network(ctx: CheckContext) -> Iterator[Finding]:
    """A tool that makes requests to a URL or host it is given, or sends data out (mail, messages, webhooks), is
    named.

    What it checks: static: a URL, page, host or endpoint fetched, downloaded, crawled, browsed or requested ("Fetches
    a URL", "Make an HTTP request"), mail, messages or webhooks sent, or a `url`/`uri`/`endpoint`/`webhook`/`host`
    parameter (or `format: uri`) whose description does not say the user opens it. observe: a fail of
    `review.urls-confined` (the server requested mcp-review's listener), citing its exchange.

    Why: seed 003 injection-safe lists URLs among what arguments reach: a tool that requests any URL reaches the
    networks behind the server (cloud metadata, admin ports), and one that sends data out can carry the user's data.

    Known false positives: a tool that calls one fixed API without saying it fetches URLs is not named; a URL
    parameter the server only passes on (a link it returns) warns unless its description says the user opens it.

    Passes: no tool says or shows it reaches the network. Warns: each tool that does; accept or waive it.
    """
    return capability_findings(ctx, "network")
