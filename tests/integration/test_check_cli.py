"""`mcp-review check` as CI runs it: exit codes, formats, the review config (waivers, attestations), errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_review.rules.core import load_rules
from tests.support import fixture_argv, run_cli, verdict_line

EXEMPLARY = fixture_argv("profiled", "exemplary")
MANY = fixture_argv("many", "--tools", "50")
SLOPPY = fixture_argv("profiled", "sloppy")


def check(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return cli("check", *args, cwd=cwd)


cli = run_cli  # mcp-review as a user runs it (tests/support.py); other modules import it from here


CONFIG = """
packs = ["review", "spec"]
baseline = "baseline.json"

[options]
probe = ["security"]  # the canary probes run (review.commands-not-injected on search_notes' query)

[calls]
policy = "all"

[[attest]]
rule = "review.arguments-validated-and-authorized"
by = "alice"
note = "every handler checks the caller's scope (server.py:40)"

[[attest]]
rule = "review.injection-safe"
by = "alice"
note = "no shell, SQL or path building"

[[waive]]
rule = "review.rug-pull-mitigation"
reason = "first release: nothing to compare yet"
by = "bob"
expires = 2099-01-01

[[waive]]
rule = "review.paths-confined"
reason = "search_notes finds nothing for any query: read in the source"
by = "bob"

[[waive]]
rule = "review.commands-not-injected"
reason = "search_notes finds nothing for any query: read in the source"
by = "bob"

[[waive]]
rule = "review.code-not-executed"
reason = "search_notes finds nothing for any query: read in the source"
by = "bob"

[[waive]]
rule = "review.templates-inert"
reason = "search_notes finds nothing for any query: read in the source"
by = "bob"
"""


def test_exit_1_on_fail_and_json_shape():
    out = check("--pack", "all", "--calls", "all", "-q", "--format", "json", "--", *SLOPPY)
    assert out.returncode == 1, out.stderr
    doc = json.loads(out.stdout)
    failed = [f["rule"] for f in doc["findings"] if f["status"] == "fail"]
    assert doc["verdict"] == "FAIL" and doc["counts"]["fail"] == len(failed), "the counts are the findings'"
    one_per_pack = {
        "spec.stdio-clean",
        "review.precise-names",
        "tokens.request-id",
        "design.envelope",
        "registry.wire-trimmed",
    }
    assert one_per_pack <= set(failed), failed
    assert {f["rule"] for f in doc["findings"]} >= {"spec.stdio-clean", "review.precise-names"}


def test_exit_3_when_something_could_not_be_verified():
    out = check("-q", "--", *EXEMPLARY)
    assert out.returncode == 3, out.stdout[-2000:]
    assert "**Verdict: ⛔ BLOCKED**" in out.stdout and "run with --calls read-only" in out.stdout


def test_config_attestations_waivers_and_baseline_make_it_pass(tmp_path):
    (tmp_path / "mcp-review.toml").write_text(CONFIG)
    trusted = cli("trust", cwd=tmp_path)  # the reviewer grants its calls and probes (issue 21)
    assert trusted.returncode == 0 and "it grants calls.policy = \"all\"; probe = ['security']" in trusted.stdout
    out = check("--out", "review.md", "--", *EXEMPLARY, cwd=tmp_path)
    assert out.returncode == 0, out.stderr + (tmp_path / "review.md").read_text()[:3000]
    md = (tmp_path / "review.md").read_text()
    # search_notes takes the probes' payloads quietly (an empty search): neither proven nor ruled out, so blocking
    # (never a pass) until the reviewer waives it
    assert "**Verdict: ✅ PASS**  ·  5 waived" in md, md[:2000]
    assert "(attested pass) | server | alice | every handler checks the caller's scope" in md
    assert "attested by alice: every handler checks the caller's scope" in (tmp_path / "review.full.md").read_text()
    assert (tmp_path / "baseline.json").is_file(), "the first --baseline run pins the definitions"
    assert "mcp-review: PASS: wrote review.md and review.full.md" in out.stderr
    assert "probes send paths into that canary directory" in out.stderr, "the consent says what probes send"
    assert "each request takes" not in out.stderr, "a server that answers at once is not called slow (connection.pace)"
    second = check("-q", "--format", "json", "--", *EXEMPLARY, cwd=tmp_path)
    rug = [f for f in json.loads(second.stdout)["findings"] if f["rule"] == "review.rug-pull-mitigation"]
    assert rug[0]["status"] == "pass" and "matches the baseline" in rug[0]["message"]


def test_pyproject_table_and_waivers(tmp_path):
    waived = "\n".join(line for line in CONFIG.splitlines() if not line.startswith("baseline"))
    waived = waived.replace("expires = 2099-01-01", "expires = 2000-01-01")  # expired: blocking again
    table = "\n".join(f"{line}" for line in waived.splitlines())
    table = table.replace("[calls]", "[tool.mcp-review.calls]").replace("[[attest]]", "[[tool.mcp-review.attest]]")
    table = table.replace("[[waive]]", "[[tool.mcp-review.waive]]")
    (tmp_path / "pyproject.toml").write_text("[tool.mcp-review]\n" + table)
    who = ["-c", "user.name=t", "-c", "user.email=t@example.com"]
    for step in (
        ["init", "-q", "-b", "main"],
        ["add", "pyproject.toml"],
        ["commit", "-qm", "x"],
        ["checkout", "-qb", "y"],
    ):
        subprocess.run(["git", *who, *step], cwd=tmp_path, check=True, capture_output=True)  # main has the waivers
    out = check("-q", "--format", "json", "--", *EXEMPLARY, cwd=tmp_path)
    assert out.returncode == 3, out.stderr
    rug = next(f for f in json.loads(out.stdout)["findings"] if f["rule"] == "review.rug-pull-mitigation")
    assert rug["status"] == "blocking" and "expired on 2000-01-01" in rug["note"]


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("colour = 'blue'\n", "mcp-review.toml: unknown key 'colour'"),
        ("[options]\nlist_budgt = 3\n", "mcp-review.toml: [options]: unknown key 'list_budgt'"),
        ("[[waive]]\nrule = 'review.nope'\nreason = 'x'\nby = 'y'\n", "waive[0]: rule: unknown rule id 'review.nope'"),
        ("[[attest]]\nrule = 'spec.ping'\nby = 'y'\n", "attest[0]: missing 'note'"),
        ("packs = ['nope']\n", "unknown pack 'nope'"),
    ],
)
def test_config_errors_name_the_file_and_key(tmp_path, config, message):
    (tmp_path / "mcp-review.toml").write_text(config)
    out = check("--", *EXEMPLARY, cwd=tmp_path)
    assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr


@pytest.mark.parametrize("fmt", ["sarif", "junit", "md"])
def test_formats_on_a_live_server(fmt, tmp_path):
    out = check("-q", "--format", fmt, "--out", str(tmp_path / "r"), "--", *SLOPPY)
    text = (tmp_path / "r").read_text()
    assert out.returncode == 1
    assert {"sarif": '"version": "2.1.0"', "junit": "<testsuites>", "md": "## Failures"}[fmt] in text


def test_short_review_of_50_tools_fits_a_pr_comment():
    out = check("--pack", "all", "--fail-on", "all", "-q", "--", *MANY)
    md = out.stdout
    assert out.returncode == 1 and len(md) < 65_536, (out.returncode, len(md))
    assert verdict_line(md).startswith("**Verdict: ❌ FAIL**")
    assert md.count("run with --calls read-only") == 1, "blocking findings are grouped by cause"
    assert "`mcp-review check --format md-full`" in md, "it says where the complete review is"
    assert md.count("### tokens.field-selection (50)") == 1 and "and 44 more" in md, "grouped by rule, capped"


def test_out_writes_the_complete_review_beside_the_short_one(tmp_path):
    argv = ("--pack", "all", "--calls", "read-only", "--fail-on", "all", "-q", "--out", "review.md", "--", *MANY)
    out = check(*argv, cwd=tmp_path)
    short, full = (tmp_path / "review.md").read_text(), (tmp_path / "review.full.md").read_text()
    assert out.returncode == 1 and len(short) < 65_536 < len(full)
    assert "is in `review.full.md` beside this one" in short
    assert short.count("only --calls all (the reviewer's consent)") == 1
    counts = {status: int(n) for n, status in re.findall(r"(\d+) (fail|warn)\b", verdict_line(short))}
    evidence = full.count("<summary>evidence (wire)</summary>")
    # > 300: many.py's read-only tools do not say openWorldHint: false, so --calls read-only calls none of them
    assert evidence == counts["fail"] + counts["warn"] > 300, "every failure and warning with its exchange"


def test_rules_listing_and_docs():
    listing = subprocess.run([sys.executable, "-m", "mcp_review", "rules"], capture_output=True, text=True)
    assert listing.returncode == 0, listing.stderr
    assert [line.split()[0] for line in listing.stdout.splitlines()] == list(load_rules()), "every rule, once, in order"
    doc = subprocess.run(
        [sys.executable, "-m", "mcp_review", "rules", "review.error-channel-correct"], capture_output=True, text=True
    )
    assert "source: seed 003" in doc.stdout and "SEP-1303" in doc.stdout
    missing = subprocess.run([sys.executable, "-m", "mcp_review", "rules", "nope.x"], capture_output=True, text=True)
    assert missing.returncode == 2


def test_unknown_pack_is_a_usage_error():
    out = check("--pack", "nope", "--", *EXEMPLARY)
    assert out.returncode == 2 and "unknown pack" in out.stderr


def test_wire_log_holds_every_exchange_of_the_check(tmp_path):
    """`check --wire-log FILE` writes the log like `list` and `call` do: every connection, probes included."""
    log = tmp_path / "wire.jsonl"
    out = check("--format", "json", "--wire-log", str(log), "--", *EXEMPLARY)
    assert out.returncode in (0, 1, 3), out.stderr
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    review = json.loads(out.stdout)
    assert len({r["conn"] for r in rows}) > 1, "the probes' fresh connections are in it"
    assert {int(seq) for seq in review["exchanges"]} <= {r["seq"] for r in rows}, "every cited exchange is in it"
