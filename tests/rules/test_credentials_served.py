"""The credential judgement proven on a real server, over stdio and over HTTP (issue 20): `tests/servers/leaks.py`
leaks keys in a tool result, a description and a resource named `internal://credentials` (`leaky`), or prints the
same places with look-alikes only (`benign`: the shell's PWD and friends, AWS's documented example keys, paths
to key files, placeholders). The same text must get the same verdict on both transports. An environment dump is a
disclosure (issue 37): a warn, never a credential."""

from __future__ import annotations

import asyncio
import os

import pytest

from mcp_review.checking import CheckPlan, run_check
from mcp_review.rules.context import Options
from mcp_review.rules.core import load_rules
from mcp_review.targets import http_target, stdio_target
from tests.rules.runs import Run, describe, findings, worst
from tests.support import free_port, running
from tests.thirdparty import EVERYTHING, everything_stdio_argv, require

TRANSPORTS = {"stdio": None, "http": "--http"}


def run(mode: str, transport: str, *extra: str) -> Run:
    return Run(("leaks", mode, *extra), http=TRANSPORTS[transport], calls="read-only", era="legacy", attest=None)


def by_subject(mode: str, transport: str, rule: str, *extra: str) -> dict[str | None, str]:
    return {f.subject: f"{f.status}: {f.message}" for f in findings(run(mode, transport, *extra))[rule]}


@pytest.mark.parametrize("transport", sorted(TRANSPORTS))
def test_look_alikes_pass_on_every_transport(transport):
    """No credential in the benign twin: its descriptions pass, and its results fail nothing; print_env's dump of
    an environment is a disclosure (issue 37), a warn that names no secret."""
    items = findings(run("benign", transport))["review.descriptions-grounded"]
    assert worst(items) == "pass", describe(items)
    results = {f.subject: f for f in findings(run("benign", transport))["review.results-safe"]}
    assert results["get_weather"].status == "pass", results["get_weather"].message
    dump = results["print_env"]
    assert dump.status == "warn" and "discloses the server's environment" in dump.message, dump.message
    assert "credential" not in dump.message and "high-entropy" not in dump.message


@pytest.mark.parametrize("transport", sorted(TRANSPORTS))
def test_a_result_that_prints_keys_fails(transport):
    said = by_subject("leaky", transport, "review.results-safe")["print_env"]
    assert said.startswith("fail") and "credential assigned to 'ACME_API_KEY'" in said, said
    assert "looks like an AWS access key id: 'AKIA5EXA" in said and "documented example" not in said
    assert "assigned to 'PWD'" not in said and "/work" not in said, "PWD is no credential; a dump is named, not quoted"


@pytest.mark.parametrize("transport", sorted(TRANSPORTS))
def test_a_key_in_a_description_or_a_credentials_resource_fails(transport):
    said = by_subject("leaky", transport, "review.descriptions-grounded")
    assert said["get_weather"].startswith("fail") and "credential assigned to 'api_key'" in said["get_weather"]
    resource = said["internal://credentials"]
    assert resource.startswith("fail") and "credential assigned to 'API Key'" in resource, resource
    assert "credential assigned to 'DB_PASSWORD'" in resource
    dotenv = said["file:///srv/app/.env"]
    assert dotenv.startswith("fail") and "contents[0].blob (decoded): credential assigned to 'SESSION_SECRET'" in dotenv


def test_a_credentials_resource_is_read_first_among_many():
    """A server lists 24 pages before `internal://credentials`: the review reads 20 resources, secrets-named first."""
    said = by_subject("leaky", "stdio", "review.descriptions-grounded", "--many")
    assert said["internal://credentials"].startswith("fail") and said["file:///srv/app/.env"].startswith("fail")


def test_server_everything_prints_a_shells_environment_and_passes_on_both_transports():
    """The issue's false fail: server-everything's get-env over HTTP, started as a shell or a container starts it
    (PWD, OLDPWD, HOME, ...), printed `"PWD": "/usr/src/app"` and failed as a credential; over stdio it never has
    PWD (mcp-review gives a stdio server only `mcp_review.targets.INHERITED`). Same server, same verdict now."""
    shell = ["PWD=/usr/src/app", "OLDPWD=/home/node", "HOME=/home/node", "SHELL=/bin/bash", "LANG=C.UTF-8"]
    port = free_port()
    argv = ["env", "-i", f"PATH={os.environ.get('PATH', os.defpath)}", *shell, f"PORT={port}"]
    others = [r for r in load_rules() if r.startswith("review.") and r != "review.results-safe"]
    plan = CheckPlan(packs=["review"], ignore=others, options=Options(calls="read-only", allow_tools=["get-env"]))
    verdicts = {}
    with running([*argv, str(require(EVERYTHING)), "streamableHttp"], port):
        targets = {"http": http_target(f"http://127.0.0.1:{port}/mcp"), "stdio": stdio_target(everything_stdio_argv())}
        for name, target in targets.items():
            review = asyncio.run(run_check(target, plan))
            verdicts[name] = [
                (f.status, "credential" in f.message)
                for f in review.findings
                if (f.rule, f.subject) == ("review.results-safe", "get-env")
            ]
    # no credential either way; the dump of an environment is a disclosure (issue 37), named alike on both
    assert verdicts["http"] == verdicts["stdio"] and verdicts["http"][0][1] is False, verdicts
    assert verdicts["http"][0][0] in ("pass", "warn"), verdicts
