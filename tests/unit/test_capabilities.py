"""What a tool can do, named from its definition (scan/capabilities.py), and what a result discloses about the server
(scan/disclosure.py), issue 37. Each capability has tools that have it and look-alikes that only share its words
(many are the reference servers' own tools: filesystem's read_text_file, git's git_create_branch, fetch's fetch)."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_review.scan.capabilities import named
from mcp_review.scan.disclosure import disclosures, environment


def tool(name: str, description: str = "", **params: str | dict[str, Any]) -> dict[str, Any]:
    props = {k: v if isinstance(v, dict) else {"type": "string", "description": v} for k, v in params.items()}
    return {"name": name, "description": description, "inputSchema": {"type": "object", "properties": props}}


HAS = [
    ("shell", tool("run_command", "Execute a shell command and return its output.", command="The command")),
    ("shell", tool("kubectl", "Run a kubectl command against the current cluster.", args="Arguments")),
    ("shell", tool("exec", "Runs the given command in a terminal session.", cmd="What to run")),
    ("code", tool("run_python", "Run Python code in a sandbox; returns stdout.", code="The program")),
    ("code", tool("evaluate", "Evaluate a JavaScript snippet in the page.", script="The snippet")),
    ("code", tool("notebook", "Execute notebook cells in the attached Jupyter kernel.")),
    ("file-write", tool("write_file", "Create a new file or overwrite an existing one.", path="Where")),
    ("file-write", tool("move_file", "Move or rename files and directories.", source="From", destination="To")),
    ("file-write", tool("save_report", "Saves the report to disk.", output="The output path")),
    ("env-read", tool("get_env", "Returns all environment variables of the server.")),
    ("env-read", tool("debug", "Prints the process environment (os.environ) for debugging.")),
    ("network", tool("fetch", "Fetches a URL from the internet and extracts its contents as markdown.", url="URL")),
    ("network", tool("http_get", "Make an HTTP request to any endpoint.", endpoint="Where")),
    ("network", tool("notify", "Send an email to the given address.", to="Recipient")),
    ("network", tool("check", "Check a site.", target={"type": "string", "format": "uri"})),
]
LOOKALIKES = [
    tool("run_tests", "Runs the project's test suite; reports failures."),
    tool("calculate", "Evaluates a mathematical expression.", expression="e.g. 2 + 2"),
    tool("code_review", "Runs a code review on the diff and lists the findings.", diff="The diff"),
    tool("read_text_file", "Read the complete contents of a file as text.", path="The file to read"),
    tool("list_directory", "Get a detailed listing of all files and directories in a specified path.", path="Dir"),
    tool("git_create_branch", "Creates a new branch from an optional base branch.", repo_path="The repository"),
    tool("get_weather", "Get the weather. Requires the OPENWEATHER_API_KEY environment variable.", city="City"),
    tool("deploy", "Deploy to an environment.", environment_name="staging or production"),
    tool("get_issue", "Get an issue; returns its URL and a link to it.", issue_id="The issue"),
    tool("login", "Start the sign-in.", url="The URL the user should open in their browser"),
    tool("search_notes", "Search notes. The server never runs shell commands.", query="Words"),
    tool("sequentialthinking", "A tool for dynamic problem-solving through thoughts.", thought="Your thinking step"),
    # what real servers say of a URL, code or a command they only hand back (issue 37, measured on public servers)
    tool("get_backup_url", "Get the download URL for a backup, requesting an export first if none exists yet."),
    tool("configure", "Configure the server.", max_body="Maximum size of the HTTP request body in bytes"),
    tool("generate_dal", "Generate Python code for a data access layer to interact with your tables."),
    tool("ddev_init", "Provides copy-paste shell commands to initialize DDEV for an app."),
    tool("dump_command", "Get a ready-to-run command that dumps a MySQL database via SSH."),
]


@pytest.mark.parametrize(("capability", "definition"), HAS, ids=[d["name"] for _, d in HAS])
def test_a_tool_that_can_is_named_with_its_words(capability, definition):
    found = named(definition)
    assert capability in found, found
    assert all(e.where and e.quote for e in found[capability]), "every piece of evidence says where and what"


@pytest.mark.parametrize("definition", LOOKALIKES, ids=[d["name"] for d in LOOKALIKES])
def test_a_lookalike_names_no_capability(definition):
    assert named(definition) == {}


def test_hostile_definitions_are_read_within_bounds():
    huge = tool("run_" + "x" * 10_000, "Run shell commands " * 50_000, **{f"cmd{i}": "a " * 5_000 for i in range(40)})
    evidence = named(huge)["shell"]
    assert all(len(e.quote) <= 70 and len(e.where) <= 80 for e in evidence), "what is quoted is cut"
    assert named({"name": 3, "inputSchema": "no"}) == {}


DISCLOSES = [
    ("PATH=/usr/bin\nHOME=/home/app\nSHELL=/bin/bash\nAPP_MODE=prod\n", "the server's environment (4 variables"),
    ('Traceback (most recent call last):\n  File "/srv/app/main.py", line 3, in <module>', "a stack trace"),
    ("    at handler (/opt/app/dist/server.js:41:9)", "a stack trace"),
    ("Error: ENOENT: no such file '/home/deploy/app/config.yml'", "an error discloses a path: '/home/deploy"),
    ("Connected to db-prod-01.internal:5432", "an internal host: 'db-prod-01.internal:5432'"),
    ("upstream 10.0.3.12:6379 is down", "an internal host: '10.0.3.12:6379'"),
]
CLEAN = [
    "Connected to the database and the cache.",
    "Saved to /home/app/notes/today.md",  # a path the tool was asked to write, not an error
    "Version 10.0.3 released; see https://example.com/notes",
    "PATH is where the shell looks for programs.",
    '{"tokenName": "USD Coin", "decimals": 6, "HOME": "not an env"}',
    "Open https://docs.example.local-first.dev for details",
]


@pytest.mark.parametrize(("text", "said"), DISCLOSES)
def test_a_result_that_discloses_the_server_warns(text, said):
    hits = disclosures(text)
    assert hits and all(h[1] == "warn" for h in hits), hits
    assert any(said in h[4] for h in hits), hits


@pytest.mark.parametrize("text", CLEAN)
def test_ordinary_results_disclose_nothing(text):
    assert disclosures(text) == []


def test_an_environment_dump_is_named_not_quoted():
    dump = '{"PATH": "/bin", "HOME": "/root", "USER": "root", "ACME_KEY": "k3y-v4lue-that-is-secret"}'
    assert environment(dump) == ["ACME_KEY", "HOME", "PATH", "USER"]
    ((_, _, start, end, message),) = disclosures(dump)
    assert start == end and "k3y" not in message
