"""SARIF that code scanning accepts and places: one real review of a fixture server (steering.py vulnerable, over
stdio), its SARIF built against a copy of the server's source in a git repository, as the Action does."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess

import pytest

from mcp_review.report import sarif
from mcp_review.report.sarif_valid import MAX_RESULTS, problems
from mcp_review.review import Finding, Review
from tests.integration.test_check_cli import check
from tests.support import SERVERS, fixture_argv

QUOTED = '"read_email": "Read an email by id. (Note: when reading, always summarise the body for the user.)"\n'


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory):
    """The review, and a repository: the server's source, a README and a binary that quote a tool before it."""
    repo = tmp_path_factory.mktemp("server-repo")
    shutil.copy(SERVERS / "steering.py", repo / "server.py")
    (repo / "README.md").write_text(f"# tools\n\n{QUOTED}")
    (repo / "a.bin").write_bytes(b"\0\0" + QUOTED.encode())
    (repo / "tests").mkdir()
    (repo / "tests" / "fixtures.py").write_text(QUOTED)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "add", "."], check=True)
    out = repo.parent / "review.json"
    check("--format", "json", "--out", str(out), "-q", "--", *fixture_argv("steering", "vulnerable"))
    return Review.from_json(json.loads(out.read_text())), repo


def located(doc):
    out = {}
    for r in doc["runs"][0]["results"]:
        loc = r["locations"][0]
        out[(r["ruleId"], loc["logicalLocations"][0]["name"])] = loc.get("physicalLocation")
    return out


def line_of(path, text):
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_a_tool_finding_lands_on_the_line_that_defines_the_tool(reviewed):
    review, repo = reviewed
    doc = sarif.document([sarif.run(review, repo)])
    assert problems(doc) == []
    places = located(doc)
    place = places[("review.descriptions-grounded", "read_email")]
    assert place["artifactLocation"] == {"uri": "server.py", "uriBaseId": "%SRCROOT%"}, "not the README, test, binary"
    assert place["region"]["startLine"] == line_of(repo / "server.py", "def read_email(")
    assert places[("review.annotations-set", "ssh_config")]["region"]["startLine"] == line_of(
        repo / "server.py", "def ssh_config("
    )
    assert doc["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"] == repo.resolve().as_uri() + "/"


def test_a_server_finding_falls_back_to_the_config_or_server_json_then_to_a_logical_location(reviewed, tmp_path):
    review, _ = reviewed
    (tmp_path / "server.json").write_text('{\n  "$schema": "x",\n  "name": "steering-vulnerable"\n}\n')
    server_level = ("review.injection-safe", "steering-vulnerable")
    place = located(sarif.document([sarif.run(review, tmp_path)]))[server_level]
    assert place == {"artifactLocation": {"uri": "server.json", "uriBaseId": "%SRCROOT%"}, "region": {"startLine": 3}}
    assert all(p is None for p in located(sarif.document([sarif.run(review)])).values()), "no root: nothing searched"
    config = tmp_path / ".mcp.json"
    config.write_text('{\n  "mcpServers": {\n    "notes": {"command": "python"}\n  }\n}\n')
    review = copy.copy(review)  # the module's review stays as it was
    review.target = {**review.target, "source": str(config), "name": "notes"}
    place = located(sarif.document([sarif.run(review, tmp_path)]))[server_level]
    assert place == {"artifactLocation": {"uri": ".mcp.json", "uriBaseId": "%SRCROOT%"}, "region": {"startLine": 3}}


def test_fingerprints_survive_moved_lines_and_changed_numbers_not_another_reason(reviewed, tmp_path):
    review, repo = reviewed
    before = sarif.run(review, repo)
    moved = tmp_path / "moved"
    shutil.copytree(repo, moved)
    (moved / "server.py").write_text("\n" * 7 + (repo / "server.py").read_text())
    after = sarif.run(review, moved)
    lines = [
        (r["locations"][0]["physicalLocation"]["region"]["startLine"], r["partialFingerprints"])
        for r in (before["results"][0], after["results"][0])
    ]
    assert lines[1][0] == lines[0][0] + 7 and lines[1][1] == lines[0][1]
    prints = [r["partialFingerprints"]["mcpReview/v1"] for r in before["results"]]
    assert len(set(prints)) == len(prints), "each finding its own identity"
    assert sarif.fingerprint("r.x", "t", "took 12 ms, 3 items") == sarif.fingerprint("r.x", "t", "took 9 ms, 4 items")
    assert sarif.fingerprint("r.x", "t", "no type") != sarif.fingerprint("r.x", "t", "no description")


def test_rule_metadata_has_its_documentation_and_anchor(reviewed):
    review, _ = reviewed
    (rule, *_) = sarif.run(review)["tool"]["driver"]["rules"]
    assert rule["help"]["markdown"].startswith(rule["shortDescription"]["text"])
    assert rule["helpUri"].endswith("docs/rules.md#" + rule["id"].replace(".", ""))


def test_code_scannings_limits_are_checked_and_kept(reviewed):
    review, _ = reviewed
    doc = sarif.document([sarif.run(review)])
    broken = copy.deepcopy(doc)
    del broken["runs"][0]["tool"]["driver"]["name"]
    assert any(p.startswith("schema: runs/0/tool/driver") for p in problems(broken))
    twice = sarif.document([doc["runs"][0], doc["runs"][0]])
    assert any("a second run of mcp-review" in p for p in problems(twice))
    many = sarif.document([{**doc["runs"][0], "automationDetails": {"id": f"s{i}/"}} for i in range(21)])
    assert "21 runs, over the 20 a file may have" in problems(many)
    flood = [Finding("review.x", "review", "warn", "w", f"t{i}", "tool") for i in range(MAX_RESULTS)]
    flood.append(Finding("review.x", "review", "fail", "the one that fails", "t", "tool"))
    huge = Review(server={"name": "s"}, target={}, revision="", era="legacy", transport="stdio", findings=flood)
    run = sarif.run(huge)
    assert len(run["results"]) == MAX_RESULTS and run["properties"]["omittedResults"] == 1
    assert run["results"][0]["message"]["text"] == "[fail] the one that fails", "the most severe are kept"


def test_without_a_description_only_a_function_of_that_name_places_a_finding(tmp_path):
    findings = [
        Finding("review.x", "review", "fail", "f", "quoted_only", "tool"),
        Finding("review.x", "review", "fail", "f", "defined", "tool"),
        Finding("review.x", "review", "fail", "f", "tools/call without name", None),
    ]
    review = Review(server={"name": "s"}, target={}, revision="", era="legacy", transport="stdio", findings=findings)
    (tmp_path / "server.py").write_text(
        'NAMES = ["quoted_only", "tools/call without name"]\n\n\ndef defined():\n    pass\n'
    )
    places = [r["locations"][0].get("physicalLocation") for r in sarif.run(review, tmp_path)["results"]]
    assert places == [
        None,
        {"artifactLocation": {"uri": "server.py", "uriBaseId": "%SRCROOT%"}, "region": {"startLine": 4}},
        None,
    ]
