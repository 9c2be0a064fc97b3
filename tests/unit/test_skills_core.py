"""The core's reading of what a skills server sends (mcp_review.skills, SEP-2640), without a server: an entry's
shape, a SKILL.md's frontmatter, and a `resources/read` answer turned into the raw bytes a digest covers."""

from __future__ import annotations

import base64
import hashlib

from mcp_review.skills import Read, Skill, parse_frontmatter, settings, shape, take

DIGEST = "sha256:" + "a" * 64


def test_settings_only_when_declared():
    assert settings({"extensions": {"io.modelcontextprotocol/skills": {"directoryRead": True}}}) == {
        "directoryRead": True
    }
    assert settings({"extensions": {"io.modelcontextprotocol/skills": True}}) == {}  # declared, no settings
    assert settings({"extensions": {"io.modelcontextprotocol/ui": {}}}) is None
    assert settings({"extensions": []}) is None and settings(None) is None


def test_an_entry_shape_names_each_problem():
    good = {"uri": "skill://a/SKILL.md", "frontmatter": {"name": "a", "description": "d"}, "resources": "dynamic"}
    assert shape(good) == []
    assert shape("oops") == ["not an object: str"]
    bad = {"frontmatter": {"name": 1}, "resources": [{"uri": "u", "digest": "sha256:ABC", "size": 1}, {"x": 1}]}
    assert shape(bad) == [
        "no uri",
        "frontmatter has no name string",
        "frontmatter has no description string",
        "resources[0].digest is not sha256:<64 lowercase hex>",
        "resources[1] has no uri",
    ]
    assert shape({**good, "resources": [{"uri": "u", "digest": DIGEST, "size": True}]}) == ["resources[0] has no size"]
    assert shape({**good, "resources": None}) == ['resources is neither an array nor "dynamic"']
    files = Skill({**good, "resources": [{"uri": "u", "digest": DIGEST, "size": 3}, "junk"]}, 1).files
    assert [(f.uri, f.digest, f.size) for f in files] == [("u", DIGEST, 3)]


def test_frontmatter_is_read_with_the_safe_loader_or_says_why_not():
    assert parse_frontmatter("---\nname: a\ndescription: b\n---\n# body") == {"name": "a", "description": "b"}
    assert parse_frontmatter("\ufeff---\r\nname: a\r\n---\r\n") == {"name": "a"}  # a BOM, CRLF lines
    assert parse_frontmatter("# no frontmatter").startswith("SKILL.md does not begin with YAML frontmatter")
    assert parse_frontmatter("---\n- a list\n---\n") == "its frontmatter is not a mapping"
    assert str(parse_frontmatter("---\nname: [unclosed\n---\n")).startswith("its frontmatter is not YAML")
    assert str(parse_frontmatter("---\nx: !!python/object/apply:os.system ['true']\n---\n")).startswith(
        "its frontmatter is not YAML"
    )  # no tag that builds objects


def test_a_read_keeps_the_raw_bytes_its_digest_covers():
    text = Read("skill://a/SKILL.md")
    take(text, {"contents": [{"uri": "other", "text": "no"}, {"uri": "skill://a/SKILL.md", "text": "h\u00e9"}]})
    assert text.data == "h\u00e9".encode() and text.digest == "sha256:" + hashlib.sha256("h\u00e9".encode()).hexdigest()
    blob = Read("skill://a/logo.png")
    take(blob, {"contents": [{"uri": "skill://a/logo.png", "blob": base64.b64encode(b"\x89PNG\x00").decode()}]})
    assert blob.data == b"\x89PNG\x00" and blob.text is None  # binary: nothing a model reads
    bad = Read("u")
    take(bad, {"contents": [{"blob": "not base64!"}]})
    assert bad.error == "its blob is not base64" and bad.digest is None
    empty = Read("u")
    take(empty, {"contents": []})
    assert empty.error == "resources/read answered no contents"
