"""Which servers a fleet reviews, and how its report ranks them: list lines, registry server.json entries, the trust
rule for discovered config files, and the verdict and exit code of many reviews (no server: the integration test
runs a fleet)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mcp_review.fleet.aggregate import NotAReview, exit_code, load, markdown, text
from mcp_review.fleet.registry import registry_entries, server_entries
from mcp_review.fleet.sources import discovered_entries, line_entry, list_entries, unique


def test_a_list_line_is_what_check_would_be_given_and_its_name_hides_credentials(tmp_path):
    listed = tmp_path / "servers.txt"
    listed.write_text(
        "# servers\n\n"
        "https://127.0.0.1/mcp?access_token=s3cr3t-value --header 'X-Team: a'\n"
        "/opt/venv/bin/python /srv/notes/server.py --token=hunter2hunter2  # trailing comment\n"
        "--config .mcp.json --server notes\n"
        "--env A=1 -- node dist/index.js\n"
    )
    url, command, configured, env = list_entries(str(listed))
    assert url.args == ("--url", "https://127.0.0.1/mcp?access_token=s3cr3t-value", "--header", "X-Team: a")
    assert "s3cr3t" not in url.name and url.name.startswith("https://127.0.0.1/mcp?access_token=")
    assert command.args[0] == "--" and "hunter2" not in command.name
    assert command.name == "python server.py '--token=***'" and command.origin == f"{listed}:4"
    assert configured.name == "notes" and configured.args == ("--config", ".mcp.json", "--server", "notes")
    assert env.args == ("--env", "A=1", "--", "node", "dist/index.js") and env.name == "node index.js"
    assert line_entry("   # nothing", "x") is None
    assert all(e.key.replace("-", "").replace(".", "").replace("_", "").isalnum() for e in (url, command, env))


def test_a_line_with_no_target_and_an_unclosed_quote_are_refused():
    from mcp_review.fleet.sources import SourceError

    with pytest.raises(SourceError, match="no target"):
        line_entry("--timeout 5", "list:1")
    with pytest.raises(SourceError, match="list:2"):
        line_entry("python 'server.py", "list:2")


def test_the_same_target_twice_is_reviewed_once():
    a, b = line_entry("python s.py", "l:1"), line_entry("python  s.py", "l:2")
    kept, said = unique([a, b, line_entry("python t.py", "l:3")])  # type: ignore[list-item]
    assert len(kept) == 2 and said == ["l:2: the same target as l:1: reviewed once"]


SERVER = {
    "name": "io.github.acme/notes",
    "version": "1.0.0",
    "remotes": [
        {"type": "streamable-http", "url": "https://{region}.acme.test/mcp", "variables": {"region": {"default": "eu"}},
         "headers": [{"name": "X-Org", "value": "acme"}]},
        {"type": "sse", "url": "https://acme.test/sse", "headers": [{"name": "Authorization", "isRequired": True, "isSecret": True}]},
        {"type": "streamable-http", "url": "https://{tenant}.acme.test/mcp"},
    ],
    "packages": [
        {"registryType": "npm", "identifier": "@acme/notes", "version": "1.0.0", "transport": {"type": "stdio"},
         "packageArguments": [{"type": "positional", "value": "serve"}, {"type": "named", "name": "--mode", "default": "ro"}],
         "environmentVariables": [{"name": "NOTES_DIR", "default": "/tmp/notes"}, {"name": "OPTIONAL"}]},
        {"registryType": "pypi", "identifier": "acme-notes", "version": "2.1", "transport": {"type": "stdio"}},
        {"registryType": "oci", "identifier": "ghcr.io/acme/notes:1.0.0", "transport": {"type": "stdio"}},
        {"registryType": "nuget", "identifier": "Acme.Notes", "version": "1.0.0", "transport": {"type": "stdio"}},
        {"registryType": "pypi", "identifier": "acme-notes", "runtimeHint": "uvx", "transport": {"type": "stdio"},
         "environmentVariables": [{"name": "API_KEY", "isRequired": True, "isSecret": True}]},
        {"registryType": "mcpb", "identifier": "https://acme.test/notes.mcpb", "transport": {"type": "stdio"}},
        {"registryType": "npm", "identifier": "@acme/notes-http", "transport": {"type": "streamable-http", "url": "http://localhost:3000/mcp"}},
    ],
}  # fmt: skip


def test_registry_packages_become_commands_and_remotes_urls_and_what_cannot_is_said():
    entries = server_entries(SERVER, "server.json")
    made = {e.origin.removeprefix("server.json "): e for e in entries}
    assert made["remotes[0]"].args == (
        "--url",
        "https://eu.acme.test/mcp",
        "--transport",
        "http",
        "--header",
        "X-Org: acme",
    )
    assert made["remotes[1]"].problem == "header Authorization is required and has no value here"
    assert made["remotes[2]"].problem == "the URL needs a value for {tenant}, and names no default"
    assert made["packages[0]"].args == (
        "--env", "NOTES_DIR=/tmp/notes", "--", "npx", "-y", "@acme/notes@1.0.0", "serve", "--mode", "ro",
    )  # fmt: skip
    assert made["packages[1]"].args == ("--", "uvx", "acme-notes==2.1")
    assert made["packages[2]"].args == ("--", "docker", "run", "-i", "--rm", "ghcr.io/acme/notes:1.0.0")
    assert made["packages[3]"].args == ("--", "dnx", "Acme.Notes@1.0.0", "--yes")
    assert "API_KEY is required" in str(made["packages[4]"].problem)
    assert "'mcpb' is not supported" in str(made["packages[5]"].problem)
    assert "serves streamable-http" in str(made["packages[6]"].problem)
    assert made["packages[0]"].name == "io.github.acme/notes (npm)" and made["remotes[0]"].name.endswith("(remote)")
    assert len({e.key for e in entries}) == len(entries)  # an error entry has a key of its own too


def test_a_registry_answer_lists_servers_and_a_server_with_nothing_to_run_is_an_error(tmp_path):
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"servers": [{"server": SERVER, "_meta": {}}, {"server": {"name": "empty"}}]}))
    entries = registry_entries(str(path))
    assert len(entries) == 11 and entries[-1].problem and "nothing to run" in entries[-1].problem
    assert entries[0].origin == f"{path} servers[0] remotes[0]"


def test_a_projects_config_file_is_not_run_unless_the_reviewer_names_it(tmp_path, monkeypatch):
    home, repo = tmp_path / "home", tmp_path / "repo"
    (home / ".cursor").mkdir(parents=True)
    repo.mkdir()
    (home / ".cursor" / "mcp.json").write_text(
        json.dumps({"mcpServers": {"mine": {"command": "python", "args": ["m.py"]}}})
    )
    (repo / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"theirs": {"command": "sh", "args": ["-c", "curl x | sh"]}}})
    )
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(repo)
    found = {e.name: e for e in discovered_entries()}
    assert found["mine"].skipped is None and found["mine"].args[:2] == ("--config", str(home / ".cursor" / "mcp.json"))
    assert (
        found["theirs"].skipped and "--config" in found["theirs"].skipped and "repository's" in found["theirs"].skipped
    )
    named = {e.name: e for e in discovered_entries([".mcp.json"])}
    assert named["theirs"].skipped is None


def _review(path: Path, verdict: str, **fleet: str) -> Path:
    counts = {"fail": int(verdict == "FAIL"), "blocking": int(verdict == "BLOCKED")}
    data = {"verdict": verdict, "counts": counts, "findings": [], "server": {"name": fleet.get("server", "s")},
            "tokens": {"total": 10}, "tools": ["t"], "target": {"kind": "stdio", "command": "python", "args": [path.stem]}}  # fmt: skip
    if "name" in fleet:
        data["fleet"] = {"key": path.stem, "name": fleet["name"], "origin": "list:1"}
    path.write_text(json.dumps(data))
    return path


def test_the_worst_server_decides_the_exit_code_as_check_would(tmp_path):
    passed, blocked = _review(tmp_path / "a.json", "PASS"), _review(tmp_path / "b.json", "BLOCKED")
    errored = tmp_path / "c.json"
    errored.write_text(json.dumps({"fleet": {"key": "c", "name": "c", "origin": "x", "error": "no answer"}}))
    failed = _review(tmp_path / "d.json", "FAIL")
    assert exit_code(load([passed])) == 0
    assert exit_code(load([passed, blocked])) == 3
    assert exit_code(load([blocked, errored, passed])) == 2
    assert exit_code(load([errored, failed, blocked])) == 1
    assert [r.verdict for r in load([passed, blocked, failed, errored])] == ["FAIL", "ERROR", "BLOCKED", "PASS"]
    bad = tmp_path / "e.json"
    bad.write_text("[1]")
    with pytest.raises(NotAReview):
        load([bad])


def test_server_text_in_the_table_stays_text(tmp_path):
    hostile = "x | [click](https://evil.test) <img src=x>\x1b[2J\nline"
    rows = load([_review(tmp_path / "a.json", "FAIL", name="ok", server=hostile)])
    md, shown = markdown(rows), text(rows)
    assert not re.search(r"(?<!\\)\[", md) and "<img" not in md and "\x1b" not in md and md.count("\n| ") == 2
    assert "\x1b" not in shown and len(shown.splitlines()) == 3
