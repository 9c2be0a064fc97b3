"""The app's saved review (`mcp_review.saved`): the same review back, small, read a line at a time with progress,
found from any folder, an older file converted, and the folder pruned."""

from __future__ import annotations

import gzip
import json
import os
import time

from mcp_review import saved
from mcp_review.review import Fact, Finding, Known, Review, Waiver

TARGET = {"kind": "stdio", "command": "python", "args": ["server.py", "--flag"]}


def review(findings: int) -> Review:
    made = [
        Finding(
            "review.annotations-set" if i % 2 else "spec.tool-names",
            "review" if i % 2 else "spec",
            "warn" if i % 3 else "pass",
            f"tool_{i} has no annotations",
            f"tool_{i}",
            "tool",
            "seed 003 Tool design",
            "static",
            [1, 2],
        )
        for i in range(findings)
    ]
    made[0].fact, made[0].note, made[0].settled_by = Fact("spec.tool-names", "a fact"), "a note", "spec.tool-names"
    for f in made:  # what issue 39 gave a finding: its concern and severity, a fail's known SDK behaviour
        f.concern, f.severity = ("conventions", "low") if f.pack == "review" else ("protocol", "medium")
    made[2].severity, made[2].known = "high", Known("fastmcp-server-error-id", "FastMCP 1.x")
    digest = "sha256:" + "0" * 64
    out = Review(
        server={"name": "notes-server", "version": "1.0"},
        target=TARGET,
        revision="2025-11-25",
        era="legacy",
        transport="stdio",
        findings=made,
        waivers=[Waiver("review.annotations-set", "known", "alice", subject="tool_1", digest=digest, version=1)],
        subjects={"tool:tool_1": {"digest": digest, "parts": {"description": "ab"}}},  # what the decisions bind to
        rule_versions={"review.annotations-set": 1, "spec.tool-names": 1},
        fail_on=["security>=high", "blocking"],
        packs=["review", "spec"],
        reach={"callsPerTool": 3, "offered": {}, "leftOut": {}},  # what the calls reached comes back too
        exchanges={1: {"seq": 1, "message": {"id": 1, "result": {"tools": []}}}, 2: {"seq": 2, "message": None}},
    )
    out.apply_waivers()
    return out


def test_a_saved_review_comes_back_whole_and_is_read_with_progress(tmp_path):
    before = review(5000)
    path = saved.write(tmp_path / "notes-server-x.review.gz", before)
    seen: list[tuple[int, int]] = []
    after = saved.read(path, lambda done, total: seen.append((done, total)))
    assert after is not None
    assert [f.to_json() for f in after.findings] == [f.to_json() for f in before.findings]
    assert after.to_json() == before.to_json() and after.findings[1].effective == "waived"
    assert seen == [(2000, 5000), (4000, 5000), (5000, 5000)], "a line of findings at a time"
    indented = len(json.dumps(before.to_json(), indent=2))
    assert path.stat().st_size * 20 < indented, (path.stat().st_size, indented)
    header = saved.header(path)
    assert header is not None and header["review"]["verdict"] == before.verdict and header["cwd"] == os.getcwd()


def test_a_file_cut_short_or_of_another_format_is_not_read(tmp_path):
    path = saved.write(tmp_path / "a.review.gz", review(10))
    whole = gzip.decompress(path.read_bytes()).decode().splitlines(keepends=True)
    path.write_bytes(gzip.compress("".join(whole[:1]).encode()))  # the header without its findings
    assert saved.read(path) is None
    path.write_bytes(b"not gzip")
    assert saved.read(path) is None


def test_the_same_server_started_from_another_folder_finds_its_review(tmp_path, monkeypatch):
    project, other = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    other.mkdir()
    (project / "server.py").write_text("")
    monkeypatch.chdir(project)
    here = saved.review_file(TARGET, tmp_path, "notes-server")
    monkeypatch.chdir(other)
    assert saved.review_file({**TARGET, "cwd": str(project)}, tmp_path, "notes-server") == here, "its cwd"
    absolute = {**TARGET, "args": [str(project / "server.py"), "--flag"]}
    assert saved.review_file(absolute, tmp_path, "notes-server") == here, "its script named by an absolute path"
    assert saved.review_file(TARGET, tmp_path, "notes-server") != here, "another folder's server.py (none here)"


def test_an_older_review_is_converted_once_and_one_saved_elsewhere_is_hinted_at(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = saved.review_file(TARGET, tmp_path, "notes-server")
    legacy = tmp_path / f"notes-server-{saved._legacy_key(TARGET)}{saved.LEGACY_SUFFIX}"
    review(30).save(legacy)  # the indented JSON review an older version saved, keyed with the folder
    found = saved.find_review(path, TARGET)
    assert found == legacy
    back = saved.read(found)
    assert back is not None and len(back.findings) == 30 and not legacy.exists(), "converted, the old file gone"
    assert saved.find_review(path, TARGET) is not None and saved.find_review(path, TARGET).name.endswith(".gz")

    ours = saved.review_file({**TARGET, "args": ["other.py"]}, tmp_path, "notes-server")
    hint = saved.elsewhere(ours, TARGET, "notes-server")
    assert hint is not None and hint.path.name.endswith(saved.SUFFIX) and "notes-server" in hint.path.name
    assert saved.elsewhere(ours, TARGET, "another-server") is None


def test_pruning_keeps_the_most_recently_used_and_never_the_one_just_written(tmp_path, monkeypatch):
    monkeypatch.setattr(saved, "KEEP", 3)
    now = time.time()
    paths = []
    for i in range(5):
        p = tmp_path / f"s{i}-k{i}{saved.SUFFIX}"
        p.write_bytes(b"")
        os.utime(p, (now - i * 60, now - i * 60))  # s0 used last
        paths.append(p)
    os.utime(paths[1], (now - 200 * 86400, now - 200 * 86400))  # unused for longer than UNUSED_DAYS
    (tmp_path / "settings.json").write_text("{}")  # not a review: never touched
    os.utime(paths[4], (now - 86400, now - 86400))
    gone = saved.prune(tmp_path, keep=paths[4])  # the one just written, though older than the KEEP newest
    assert sorted(p.name for p in gone) == [paths[1].name, paths[3].name], "the oldest beyond KEEP, the unused"
    assert {p.name for p in tmp_path.iterdir()} == {paths[0].name, paths[2].name, paths[4].name, "settings.json"}
