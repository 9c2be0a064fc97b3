"""Shared fixtures and the suite's markers.

The third-party servers (installed by scripts/test-deps) are available to every test, and no test reads or writes
the developer's own mcp-review settings, trust records or saved reviews. Each test is marked with its kind, from
the folder it lives in (`pytest -m unit`, `-m "not thirdparty"`); `slow` marks what the one-minute loop
(`pytest -m "not slow"`) leaves to the full run. Markers are declared in pyproject.toml (--strict-markers).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.session import FOLDER
from tests.support import FORKSERVER, PYTHON
from tests.thirdparty import everything_http_url, everything_sse_url, git_repo

__all__ = ["everything_http_url", "everything_sse_url", "git_repo"]

HERE = Path(__file__).resolve().parent
KINDS = ("unit", "integration", "rules", "tui", "hostile", "thirdparty")
# The one-minute loop, `pytest -m "not slow"`: every unit test but those in SLOW, and of each other kind only the
# tests in QUICK; everything else is marked `slow` and left to the full run (scripts/test, .ci/run). So a new
# test that starts servers joins the full run, not the loop. Keys are test functions (all their parameters), by
# file under tests/; picked from `--durations` on the 2-core machine. A name its file does not define is an error.
QUICK = {
    "integration/test_configs.py": {"test_mcp_servers_format_stdio_and_http", "test_strip_jsonc_keeps_strings"},
    "integration/test_connection.py": {"test_legacy_era_uses_initialize_and_keeps_wire_json", "test_wrong_command"},
    "integration/test_cli.py": {"test_failures_are_one_clear_line_and_exit_2"},
    "integration/test_lock.py": {"test_values_jcs_cannot_express_still_hash"},
    "rules/test_rules.py": {
        "test_every_rule_has_docs_and_both_fixtures",
        "test_every_rule_doc_has_its_sections",
        "test_the_doc_section_check_can_fail",
        "test_descriptions_grounded_reads_resource_text",
    },
    "rules/test_evidence.py": {"test_the_claims_read_from_a_message"},
    "rules/test_probes.py": {"test_no_payload_carries_its_own_proof"},
    "tui/test_grid.py": {
        "test_cells_are_text_never_markup",
        "test_the_flex_column_takes_the_rest_and_a_wider_row_widens_its_column_up_to_its_cap",
    },
    "tui/test_tui_keys.py": {"test_the_readme_keymap_the_bindings_and_the_palette_agree"},
    "tui/test_tui_snapshots.py": {"test_overview"},
    "hostile/test_hostile.py": {
        "test_the_leak_detector_sees_every_encoding",
        "test_the_secret_detector_sees_every_computed_form",
        "test_the_leak_detector_sees_a_secret_cut_in_pieces_and_not_its_look_alikes",
        "test_the_terminal_detector_flags_escapes_only",
        "test_the_export_judges_see_live_structure_and_pass_inert_text",
    },
    "thirdparty/test_thirdparty_smoke.py": {"test_everything_stdio_initialize_and_tools_list"},
}
SLOW = {
    "unit/test_schemas.py": {"test_ten_thousand_tools_validate", "test_good_server_session_has_no_schema_problems"},
    "unit/test_tokens_fast.py": {"test_the_batched_figures_are_the_plain_per_text_counts"},
    "unit/test_reports.py": {"test_short_review_of_a_hostile_server_fits_a_pr_comment"},
    "unit/test_secret_forms.py": {"test_ten_megabytes_are_masked"},
    "unit/test_egress_metadata.py": {"test_a_refresh_at_a_metadata_token_endpoint_is_refused_before_any_connect"},
    "unit/test_layers.py": {
        "test_the_headless_core_imports_neither_textual_nor_mcp",
        "test_no_import_points_up_a_layer",
    },
    "unit/test_tokens.py": {"test_the_packed_ranks_are_the_hashed_originals"},
}
MADE = pytest.StashKey[str]()
FORKED = pytest.StashKey[subprocess.Popen[bytes]]()


def pytest_configure(config: pytest.Config) -> None:
    """The controlling process makes the session's shared folder (tests/session.py) and starts the fork server
    the fixture servers start from (tests/forkserver.py); xdist workers inherit both through the environment."""
    if not hasattr(config, "workerinput") and FOLDER not in os.environ:
        os.environ[FOLDER] = config.stash[MADE] = tempfile.mkdtemp(prefix="mcp-review-session-")
        # not in the session folder: its path is an environment value named ..._SESSION, which mcp-review masks
        socket_path = os.path.join(tempfile.mkdtemp(prefix="mcp-review-forkserver-"), "socket")
        forkserver = subprocess.Popen(
            [PYTHON, str(HERE / "forkserver.py"), "--serve", socket_path], stdin=subprocess.DEVNULL
        )
        config.stash[FORKED] = forkserver
        os.environ[FORKSERVER] = socket_path  # a client that finds no socket yet runs its script itself


def pytest_unconfigure(config: pytest.Config) -> None:
    if FORKED in config.stash:
        config.stash[FORKED].kill()
        config.stash[FORKED].wait()
        shutil.rmtree(os.path.dirname(os.environ.pop(FORKSERVER)), ignore_errors=True)
    if MADE in config.stash:
        shutil.rmtree(config.stash[MADE], ignore_errors=True)
        os.environ.pop(FOLDER, None)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with its kind (its folder under tests/) and `slow` as QUICK and SLOW say."""
    for file, names in (QUICK | SLOW).items():
        source = (HERE / file).read_text(encoding="utf-8")
        if stale := sorted(name for name in names if f"def {name}(" not in source):
            raise pytest.UsageError(f"tests/conftest.py names tests that tests/{file} does not define: {stale}")
    for item in items:
        file = item.path.resolve().relative_to(HERE)
        kind = file.parts[0]
        if kind not in KINDS:
            raise pytest.UsageError(
                f"{item.nodeid}: move it (git mv) into its kind's folder, tests/{{{','.join(KINDS)}}}/"
            )
        item.add_marker(kind)
        name = getattr(item, "originalname", item.name)
        if name in SLOW.get(file.as_posix(), ()) or (kind != "unit" and name not in QUICK.get(file.as_posix(), ())):
            item.add_marker("slow")
    items[:] = spread(items, lambda item: getattr(item, "originalname", "") == SPREAD)


# The hostile corpus's cases: independent, and long (each runs four processes for seconds). In file order they sat
# in one worker's share of the run (xdist's worksteal splits it in contiguous parts), which ran them one after
# another while the other workers took them over only at the end: the last 40 s ran one or two at a time.
SPREAD = "test_hostile_server_breaks_nothing"


def spread(items: list[pytest.Item], chosen: Callable[[pytest.Item], bool]) -> list[pytest.Item]:
    """`items` with the chosen ones spread evenly through the others, each placed where one module's tests end
    (a test of another module between two of one module's would set its module's fixtures up twice)."""
    moved = [item for item in items if chosen(item)]
    rest = [item for item in items if not chosen(item)]
    if not moved or not rest:
        return items
    out: list[pytest.Item] = []
    placed, step = 0, len(rest) / len(moved)  # moved test k is due before rest[k * step]
    for index, item in enumerate(rest):
        if index and getattr(item, "module", None) is not getattr(rest[index - 1], "module", None):
            while placed < len(moved) and placed * step <= index:  # a boundary: every one due by now
                out.append(moved[placed])
                placed += 1
        out.append(item)
    return out + moved[placed:]


@pytest.fixture(autouse=True)
def _own_settings(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("MCP_REVIEW_CONFIG_DIR", str(tmp_path_factory.mktemp("settings")))
    monkeypatch.setenv("MCP_REVIEW_STATE_DIR", str(tmp_path_factory.mktemp("state")))
