"""Shared fixtures: the third-party servers (installed by scripts/test-deps) are available to every test."""

from tests.thirdparty import everything_http_url, everything_sse_url, git_repo

__all__ = ["everything_http_url", "everything_sse_url", "git_repo"]
