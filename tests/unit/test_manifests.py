"""server.json and Server Cards (mcp_review.manifests): the vendored schemas, and each comparison with the wire."""

from __future__ import annotations

import hashlib
import re
from importlib import resources

import pytest

from mcp_review.catalog import ServerSnapshot
from mcp_review.manifests import (
    Declared,
    Unreadable,
    check_schema,
    compare,
    description,
    package_in_command,
    parse,
)
from mcp_review.targets import http_target, stdio_target

VALID = {
    "$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
    "name": "io.github.example/notes",
    "description": "Notes.",
    "version": "1.0.0",
    "packages": [
        {"registryType": "npm", "identifier": "@example/notes", "version": "1.0.0", "transport": {"type": "stdio"}}
    ],
}
CARD = {
    "$schema": "https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json",
    "name": "io.github.example/notes",
    "description": "Notes.",
    "version": "1.0.0",
    "remotes": [
        {"type": "streamable-http", "url": "http://127.0.0.1:9/mcp", "supportedProtocolVersions": ["2025-11-25"]}
    ],
}


def snapshot(version: str = "1.0.0", revision: str = "2025-11-25", name: str = "notes") -> ServerSnapshot:
    snap = ServerSnapshot.unreachable({}, "")
    snap.server_info, snap.revision = {"name": name, "version": version}, revision
    return snap


def test_the_vendored_schemas_are_the_ones_sources_names():
    folder = resources.files("mcp_review").joinpath("data", "declared")
    table = dict(re.findall(r"`(\S+\.schema\.json)`.*`([0-9a-f]{64})`", folder.joinpath("SOURCES.md").read_text()))
    assert len(table) == 2
    for name, digest in table.items():
        assert hashlib.sha256(folder.joinpath(name).read_bytes()).hexdigest() == digest, name


def test_schema_validation_finds_what_the_registry_rejects():
    assert check_schema(Declared("server.json", "f", VALID)).ok
    bad = {**VALID, "name": "no-slash", "packages": [{"registryType": "npm", "identifier": "x", "version": "latest"}]}
    errors = check_schema(Declared("server.json", "f", bad)).errors
    assert any(e.startswith("name:") for e in errors) and any("transport" in e for e in errors), errors
    assert check_schema(Declared("Server Card", "u", CARD)).ok
    assert not check_schema(Declared("Server Card", "u", {**CARD, "packages": []})).ok  # a card lists no packages


def test_description_length_is_said_with_its_count():
    assert description(Declared("server.json", "f", VALID)) is None
    said = description(Declared("server.json", "f", {**VALID, "description": "x" * 101}))
    assert said and "101 characters" in said


def test_unreadable_documents_are_refused_not_parsed():
    for text in ("[1]", "{", "x" * 300_000):
        with pytest.raises(Unreadable):
            parse(text, "server.json", "f")


def test_version_disagreement_is_proven_name_is_not():
    doc = Declared("server.json", "f", VALID)
    assert compare(doc, stdio_target(["npx", "-y", "@example/notes@1.0.0"]), snapshot()) == []
    found = {d.field: d for d in compare(doc, stdio_target(["node", "s.js"]), snapshot("1.1.0", name="other"))}
    assert found["version"].proven and "'1.1.0'" in found["version"].live
    assert not found["name"].proven  # registry name and serverInfo.name are separate namespaces


def test_package_identifiers_are_compared_with_the_command():
    doc = Declared("server.json", "f", VALID)
    assert package_in_command(stdio_target(["npx", "-y", "@example/notes@1.0.0"])) == "@example/notes@1.0.0"
    assert (
        package_in_command(stdio_target(["node", "/x/node_modules/@example/notes/dist/index.js"])) == "@example/notes"
    )
    assert package_in_command(stdio_target(["python", "server.py"])) is None
    found = {d.field: d for d in compare(doc, stdio_target(["npx", "@example/other"]), snapshot())}
    assert found["packages[].identifier"].proven


def test_a_remote_is_compared_only_when_it_is_the_target():
    card = Declared("Server Card", "u", CARD)
    assert compare(card, http_target("http://127.0.0.1:9/mcp"), snapshot()) == []
    modern = {d.field: d for d in compare(card, http_target("http://127.0.0.1:9/mcp"), snapshot(revision="2026-07-28"))}
    assert modern["remotes[].supportedProtocolVersions"].proven
    sse = {**CARD, "remotes": [{**CARD["remotes"][0], "type": "sse"}]}
    found = {
        d.field: d
        for d in compare(Declared("Server Card", "u", sse), http_target("http://127.0.0.1:9/mcp"), snapshot())
    }
    assert found["remotes[].type"].proven and "transports" not in found  # one fact, said once
    elsewhere = {d.field for d in compare(card, http_target("http://127.0.0.1:10/mcp"), snapshot(revision="x"))}
    assert elsewhere == set()  # another URL: not this remote's claims


def test_an_npm_packages_mcp_name_must_be_the_server_json_name(tmp_path):
    package = tmp_path / "node_modules" / "@example" / "notes"
    (package / "dist").mkdir(parents=True)
    (package / "dist" / "index.js").write_text("")
    (package / "package.json").write_text('{"name": "@example/notes", "mcpName": "io.github.someone/else"}')
    (tmp_path / "node_modules" / ".bin").mkdir()
    (tmp_path / "node_modules" / ".bin" / "notes").symlink_to(package / "dist" / "index.js")
    target = stdio_target([str(tmp_path / "node_modules" / ".bin" / "notes")])
    assert package_in_command(target) == "@example/notes", "the .bin link is followed into its package"
    found = {d.field: d for d in compare(Declared("server.json", "f", VALID), target, snapshot())}
    assert found["packages[].mcpName"].proven and "'io.github.someone/else'" in found["packages[].mcpName"].live
    assert "packages[].identifier" not in found
    (package / "package.json").write_text('{"name": "@example/notes", "mcpName": "io.github.example/notes"}')
    assert compare(Declared("server.json", "f", VALID), target, snapshot()) == []
