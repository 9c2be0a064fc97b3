"""`trust.merge_base`: the base a checked-out change will merge into, found without flags (issue 35), in real git
checkouts laid out as a reviewer gets them: a branch off main, a clone whose feature branch was pushed, a branch
made from the author's branch, a release branch, a pull request merged into a local main, a detached HEAD, a
shallow clone; and none where nothing tells the project's history from the change's."""

from __future__ import annotations

import subprocess
from pathlib import Path

from mcp_review.trust import merge_base


def git(cwd: Path, *args: str) -> str:
    who = ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
    done = subprocess.run(["git", *who, *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def commit(cwd: Path, what: str) -> str:
    git(cwd, "commit", "-q", "--allow-empty", "-m", what)
    return git(cwd, "rev-parse", "HEAD")


def project(tmp_path: Path) -> tuple[Path, str]:
    """The project's repository (main, one commit) and a reviewer's clone of it."""
    upstream = tmp_path / "project"
    upstream.mkdir()
    git(upstream, "init", "-q", "-b", "main")
    first = commit(upstream, "the project")
    git(tmp_path, "clone", "-q", str(upstream), "clone")
    return tmp_path / "clone", first


def test_no_git_and_no_branch_to_merge_into_have_no_base(tmp_path):
    assert merge_base(tmp_path).commit is None and merge_base(tmp_path).how == "not a git checkout"
    git(tmp_path, "init", "-q", "-b", "main")
    commit(tmp_path, "one")
    found = merge_base(tmp_path)
    assert found.commit is None and found.how.startswith("no branch to merge into"), "main is never its own base"


def test_a_branch_off_main_merges_into_main(tmp_path):
    git(tmp_path, "init", "-q", "-b", "main")
    base = commit(tmp_path, "base")
    git(tmp_path, "checkout", "-qb", "feature")
    commit(tmp_path, "the change")
    assert merge_base(tmp_path).commit == base
    assert merge_base(tmp_path).how == "the merge base with main (the default branch)"
    git(tmp_path, "checkout", "-q", "--detach")
    assert merge_base(tmp_path).commit == base, "a detached HEAD merges into the default branch too"


def test_a_pushed_branch_or_one_made_from_the_authors_is_not_its_own_base(tmp_path):
    clone, first = project(tmp_path)
    git(clone, "checkout", "-qb", "feature")
    commit(clone, "the change")
    git(clone, "push", "-q", "-u", "origin", "feature")  # its upstream is origin/feature: the change itself
    assert merge_base(clone).commit == first and "origin/main (the default branch)" in merge_base(clone).how
    git(clone, "checkout", "-qb", "reviewing", "origin/feature")  # another name, tracking the author's branch
    assert merge_base(clone).commit == first and "upstream" not in merge_base(clone).how


def test_an_upstream_it_merges_into_counts_with_the_default_branch_the_older_wins(tmp_path):
    clone, first = project(tmp_path)
    git(clone, "checkout", "-qb", "release")
    commit(clone, "on the release branch")
    git(clone, "push", "-q", "origin", "release")
    git(clone, "checkout", "-qb", "fix", "origin/release")  # tracks origin/release: what it merges into
    commit(clone, "the change")
    found = merge_base(clone)
    assert found.commit == first, "the fork point of release from main: a wrong guess makes more claims, not fewer"
    assert found.how == "the merge base with origin/release (upstream) and origin/main (the default branch)"


def test_a_change_merged_into_a_local_main_merges_into_origins(tmp_path):
    clone, first = project(tmp_path)
    git(clone, "checkout", "-qb", "pr")
    commit(clone, "the change")
    git(clone, "checkout", "-q", "main")
    git(clone, "merge", "-q", "--ff-only", "pr")  # the reviewer tries the change on main
    assert merge_base(clone).commit == first


def test_a_shallow_clone_without_the_base_says_so(tmp_path):
    clone, _ = project(tmp_path)
    git(clone, "checkout", "-qb", "feature")
    commit(clone, "the change")
    git(clone, "push", "-q", "origin", "feature")
    git(tmp_path / "project", "commit", "-q", "--allow-empty", "-m", "main moves on")
    git(tmp_path, "clone", "-q", "--depth", "1", "--branch", "feature", f"file://{tmp_path / 'project'}", "shallow")
    shallow = tmp_path / "shallow"
    git(shallow, "fetch", "-q", "--depth", "1", "origin", "main:refs/remotes/origin/main")
    found = merge_base(shallow)
    assert found.commit is None and found.how.startswith("no merge base of HEAD with origin/main")
