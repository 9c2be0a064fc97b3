"""Shared fixtures: the third-party servers (installed by scripts/test-deps) are available to every test,
and no test reads or writes the developer's own mcp-review settings, trust records or saved reviews."""

import pytest

from tests.thirdparty import everything_http_url, everything_sse_url, git_repo

__all__ = ["everything_http_url", "everything_sse_url", "git_repo"]


@pytest.fixture(autouse=True)
def _own_settings(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("MCP_REVIEW_CONFIG_DIR", str(tmp_path_factory.mktemp("settings")))
    monkeypatch.setenv("MCP_REVIEW_STATE_DIR", str(tmp_path_factory.mktemp("state")))
