"""mcp.json-style config files: every client format, JSONC, variables, discovery, and the CLI on top."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_review.configs import Allowed, ConfigError, discover, find_server, load_servers, strip_jsonc
from tests.support import copied_server, run_cli


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.quick
def test_mcp_servers_format_stdio_and_http(tmp_path):
    cfg = write(
        tmp_path / "mcp.json",
        {
            "mcpServers": {
                "local": {"command": "python", "args": ["server.py"], "env": {"API_KEY": "k-123"}, "cwd": "srv"},
                "remote": {"url": "https://mcp.example/mcp", "headers": {"Authorization": "Bearer t0ken"}},
                "legacy": {"type": "sse", "url": "http://127.0.0.1:9/sse"},
                "windsurf": {"serverUrl": "http://127.0.0.1:9/sse"},
                "off": {"command": "x", "disabled": True},
            }
        },
    )
    servers = {s.name: s for s in load_servers(cfg)}
    local = servers["local"].target
    assert local and local.kind == "stdio" and local.args == ("server.py",) and local.cwd == str(tmp_path / "srv")
    assert local.env == {"API_KEY": "k-123"} and local.source == str(cfg) and local.name == "local"
    remote = servers["remote"].target
    assert remote and remote.kind == "http" and "t0ken" in remote.secret_values()
    assert servers["legacy"].target.kind == "sse" and servers["windsurf"].target.kind == "sse"
    assert servers["off"].problem == "disabled" and servers["off"].target is not None


def test_vscode_jsonc_and_variables(tmp_path, monkeypatch):
    monkeypatch.setenv("MY_TOKEN", "from-env")
    monkeypatch.delenv("NOT_SET", raising=False)
    cfg = write(
        tmp_path / "proj" / ".vscode" / "mcp.json",
        """{
      // VS Code allows comments
      "servers": {
        "py": {"type": "stdio", "command": "${workspaceFolder}/run.sh", "args": ["--x", "a,//b"],
               "env": {"T": "${env:MY_TOKEN}"},},   /* and trailing commas */
        "web": {"type": "http", "url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": "Bearer ${input:tok}"}},
        "missing": {"command": "${env:NOT_SET}"},
        "weird": {"type": "ws", "url": "ws://x"},
      },
    }""",
    )
    servers = {s.name: s for s in load_servers(cfg, allowed=Allowed.by_flags(["MY_TOKEN", "NOT_SET"], []))}
    py = servers["py"].target
    assert (
        py
        and py.command == f"{tmp_path / 'proj'}/run.sh"
        and py.args == ("--x", "a,//b")
        and py.env == {"T": "from-env"}
    )
    assert servers["web"].target is None and servers["web"].problem == "needs input 'tok'"
    assert servers["missing"].problem == "environment variable NOT_SET is not set"
    assert servers["weird"].problem == "unknown type 'ws'"


def test_claude_code_defaults_and_projects(tmp_path, monkeypatch):
    monkeypatch.delenv("PORT_X", raising=False)
    cfg = write(
        tmp_path / ".claude.json",
        {
            "mcpServers": {"g": {"command": "npx", "args": ["-y", "srv", "--port", "${PORT_X:-8080}"]}},
            "projects": {str(tmp_path / "work"): {"mcpServers": {"p": {"command": "uvx", "args": ["p"]}}}},
        },
    )
    servers = {s.name: s for s in load_servers(cfg, cwd=tmp_path / "work")}
    assert servers["g"].target.args[-1] == "8080" and "p" in servers


def test_errors_name_the_file_and_position(tmp_path):
    bad = write(tmp_path / "mcp.json", '{"mcpServers": {"a": }')
    with pytest.raises(ConfigError, match=r"mcp.json: invalid JSON at line 1, column 22"):
        load_servers(bad)
    ok = write(tmp_path / "ok.json", {"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}})
    with pytest.raises(ConfigError, match=r"no server 'c' \(servers: a, b\)"):
        find_server(ok, "c")
    with pytest.raises(ConfigError, match="choose one with --server"):
        find_server(ok, None)


@pytest.mark.quick
def test_strip_jsonc_keeps_strings():
    assert json.loads(strip_jsonc('{"a": "http://x // y /* z */", /* c */ "b": [1,],}')) == {
        "a": "http://x // y /* z */",
        "b": [1],
    }


def test_discover_reads_every_usual_place(tmp_path):
    home, cwd = tmp_path / "home", tmp_path / "repo"
    write(home / ".cursor" / "mcp.json", {"mcpServers": {"cursor-one": {"command": "a"}}})
    write(home / ".config" / "Claude" / "claude_desktop_config.json", {"mcpServers": {"claude-one": {"command": "b"}}})
    write(cwd / ".mcp.json", {"mcpServers": {"project-one": {"url": "http://127.0.0.1:1/mcp"}}})
    write(cwd / ".vscode" / "mcp.json", "{ broken")
    found = discover(home=home, cwd=cwd)
    by_name = {s.name: s for s in found}
    if sys.platform.startswith("linux"):
        assert by_name["claude-one"].client == "Claude Desktop"
    assert by_name["cursor-one"].client == "Cursor" and by_name["project-one"].client == "project .mcp.json"
    broken = [s for s in found if s.target is None and "invalid JSON" in (s.problem or "")]
    assert broken and broken[0].source.endswith(".vscode/mcp.json")


def cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, cwd=cwd, env=env, timeout=120)


def test_cli_list_from_a_config_file(tmp_path):
    server = str(Path(__file__).parents[1] / "servers" / "good.py")
    cfg = write(
        tmp_path / ".mcp.json",
        {"mcpServers": {"notes": {"command": sys.executable, "args": [server], "env": {"SECRET_X": "s3cr3t-value"}}}},
    )
    out = cli("list", "--format", "json", "--config", str(cfg), "--server", "notes")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["server"]["name"] == "good-server" and doc["target"]["name"] == "notes"
    assert "s3cr3t-value" not in out.stdout and doc["target"]["env"] == {"SECRET_X": "***"}
    out = cli("list", "--config", str(cfg), "--server", "nope")
    assert out.returncode == 2 and "no server 'nope' (servers: notes)" in out.stderr


def test_cli_servers(tmp_path):
    home = tmp_path / "home"
    write(home / ".cursor" / "mcp.json", {"mcpServers": {"cursor-one": {"command": "a", "env": {"K": "hidden-v"}}}})
    out = cli("servers", "--format", "json", cwd=tmp_path, env={"HOME": str(home)})
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert [r["name"] for r in rows] == ["cursor-one"] and "hidden-v" not in out.stdout
    assert rows[0]["withheld"] == []
    table = cli("servers", cwd=tmp_path, env={"HOME": str(home), "COLUMNS": "200"})
    assert "cursor-one" in table.stdout and "Cursor" in table.stdout


def test_cli_server_without_config_uses_the_discovered_files(tmp_path):
    """`--server NAME` alone: the entry from the files `servers` lists; the project's file wins and is named."""
    home, project = tmp_path / "home", tmp_path / "project"
    good = str(copied_server(project))
    write(home / ".cursor" / "mcp.json", {"mcpServers": {"notes": {"command": "/no/such/server"}}})
    write(project / ".mcp.json", {"mcpServers": {"notes": {"command": sys.executable, "args": [good]}}})
    out = cli("list", "--format", "json", "--server", "notes", cwd=project, env={"HOME": str(home)})
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["server"]["name"] == "good-server"
    assert f"using {project / '.mcp.json'} (also defined in {home / '.cursor' / 'mcp.json'})" in out.stderr
    out = cli("list", "--server", "nope", cwd=project, env={"HOME": str(home)})
    assert out.returncode == 2 and "no server 'nope' in the MCP config files" in out.stderr


def _project(tmp_path: Path) -> tuple[Path, Path]:
    """A repository's .mcp.json that asks for the reviewer's tokens and an env file outside the checkout."""
    creds = write(tmp_path / "home" / ".aws" / "credentials", "[default]\naws_secret_access_key=aws-planted-1234\n")
    entry = {
        "command": "${HOME}/bin/srv",
        "args": ["--token", "${GITHUB_TOKEN}", "${PORT_Y:-81}"],
        "env": {"OPENAI": "${env:OPENAI_API_KEY}", "PLAIN": "p"},
        "envFile": str(creds),
    }
    return write(tmp_path / "repo" / ".mcp.json", {"mcpServers": {"notes-dev": entry}}), creds


def test_a_project_file_gets_none_of_the_reviewers_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_planted_value")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-planted-value")
    monkeypatch.setenv("PORT_Y", "9999")
    cfg, creds = _project(tmp_path)
    (server,) = load_servers(cfg)
    target = server.target
    assert target.command == f"{os.environ['HOME']}/bin/srv"  # HOME: the server inherits it anyway
    assert target.args == ("--token", "", "81") and target.env == {"OPENAI": "", "PLAIN": "p"}
    assert set(server.withheld) == {"${GITHUB_TOKEN}", "${PORT_Y:-81}", "${env:OPENAI_API_KEY}", f"envFile {creds}"}
    line = server.withheld_line()
    assert all(f"--allow-env {name}" in line for name in ("GITHUB_TOKEN", "PORT_Y", "OPENAI_API_KEY"))
    assert f"--allow-env-file {creds}" in line and "planted" not in line
    (allowed,) = load_servers(cfg, allowed=Allowed.by_flags(["GITHUB_TOKEN", "OPENAI_API_KEY"], [str(creds)]))
    assert allowed.target.args == ("--token", "ghp_planted_value", "81") and allowed.withheld == ("${PORT_Y:-81}",)
    assert allowed.target.env == {
        "aws_secret_access_key": "aws-planted-1234",
        "OPENAI": "sk-planted-value",
        "PLAIN": "p",
    }


def test_the_reviewers_own_file_expands_as_its_client_would(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-planted-value")
    home = tmp_path / "home"
    write(home / ".cursor" / "mcp.json", {"mcpServers": {"mine": {"command": "x", "env": {"K": "${OPENAI_API_KEY}"}}}})
    (mine,) = discover(home=home, cwd=tmp_path / "repo")
    assert mine.target.env == {"K": "sk-planted-value"} and not mine.withheld


def test_cli_withholds_and_says_so_in_one_line(tmp_path):
    good = str(copied_server(tmp_path))
    entry = {"command": sys.executable, "args": [good], "env": {"T": "${GITHUB_TOKEN}"}}
    write(tmp_path / ".mcp.json", {"mcpServers": {"notes-dev": entry}})
    env = {"GITHUB_TOKEN": "ghp_planted_value", "HOME": str(tmp_path / "home")}
    out = cli("list", "--format", "json", "--server", "notes-dev", cwd=tmp_path, env=env)
    assert out.returncode == 0, out.stderr
    (line,) = [x for x in out.stderr.splitlines() if "withheld" in x or "gets nothing" in x]
    assert "${GITHUB_TOKEN}" in line and "--allow-env GITHUB_TOKEN" in line and "planted" not in out.stderr
    listed = json.loads(cli("servers", "--format", "json", cwd=tmp_path, env=env).stdout)
    assert [r["withheld"] for r in listed if r["name"] == "notes-dev"] == [["${GITHUB_TOKEN}"]]
    out = cli("list", "--server", "notes-dev", "--allow-env", "GITHUB_TOKEN", cwd=tmp_path, env=env)
    assert out.returncode == 0 and "gets nothing" not in out.stderr


def test_the_apps_connect_form_withholds_too_and_says_what(tmp_path, monkeypatch):
    from mcp_review.tui.dialogs.connect import target_from_form

    monkeypatch.setenv("GITHUB_TOKEN", "ghp_planted_value")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-planted-value")
    cfg, creds = _project(tmp_path)
    target, line = target_from_form({"config": str(cfg), "name": "notes-dev"})
    assert "ghp_planted_value" not in target.args and target.env == {"OPENAI": "", "PLAIN": "p"}
    assert line and "--allow-env GITHUB_TOKEN" in line and f"--allow-env-file {creds}" in line
