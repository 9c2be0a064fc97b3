"""Fixtures the integration tests share."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def plain(tmp_path_factory) -> dict:
    """The JSON review of the exemplary fixture server with no review config: the reviewer's own verdict, which no
    repository file may change (tests/integration/test_trust.py, test_claims.py). Made once per worker."""
    from tests.integration.test_trust import review_of

    _, review = review_of(tmp_path_factory.mktemp("plain"))
    return review
