"""Who decides what a confined server may reach (issue 38): the reviewer alone, by their flags or the standing
allowances of their own config's `[confine]`, never the checkout under review; each allowance recorded with who
decided it; and a server chosen in the app (ctrl+o) runs as the reviewer decided for the one it replaces. The plan
step only (`mcp_review.plan.decide`): nothing starts, in a real git checkout."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest

from mcp_review.plan import Asked, PlanError, confined_like, decide
from mcp_review.targets import http_target, stdio_target
from tests.integration.test_plan import committed

SERVER = (sys.executable, "-V")


@pytest.fixture
def own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The reviewer's own config folder, and a checkout (the working directory) whose config asks for allowances."""
    folder = tmp_path / "own"
    folder.mkdir()
    monkeypatch.setenv("MCP_REVIEW_CONFIG_DIR", str(folder))
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    committed(checkout, {"mcp-review.toml": '[confine]\nconfine = false\nallow_net = ["evil.example"]\n'})
    monkeypatch.chdir(checkout)
    return folder


def test_the_checkouts_confine_is_refused_and_the_reviewers_own_is_recorded_as_theirs(own: Path):
    (own / "mcp-review.toml").write_text('[confine]\nallow_net = ["api.example"]\nallow_read = ["~/datasets"]\n')
    plan = decide(Asked(server_command=SERVER, allow_write=("/srv/out",)), {}, review=True)
    assert plan.target is not None
    spec = plan.target.confinement
    assert spec.confine and spec.allow_net == ("api.example",), "the checkout's confine = false is never heeded"
    assert "evil.example" not in spec.allow_net
    assert any("asks for [confine]" in line and "refused" in line for line in plan.notices), plan.notices
    decided = plan.provenance()["confinement"]
    mine = {"who": "reviewer", "how": f"{own / 'mcp-review.toml'} [confine]"}
    assert decided["allowNet"] == [{"what": "api.example", **mine}]
    assert decided["allowRead"] == [{"what": str(Path("~/datasets").expanduser()), **mine}]
    assert decided["allowWrite"] == [{"what": "/srv/out", "who": "reviewer", "how": "--allow-write"}]
    assert decided["confine"] is True and decided["who"] == "default"


def test_no_confine_is_the_reviewers_and_said_before_anything_runs(own: Path):
    plan = decide(Asked(server_command=SERVER, no_confine=True), {})
    assert plan.target is not None and not plan.target.confinement.confine
    decided = plan.provenance()["confinement"]
    assert decided["confine"] is False and (decided["who"], decided["how"]) == ("reviewer", "--no-confine")
    assert any("runs unconfined" in line and "--no-confine" in line for line in plan.notices)


def test_a_confine_table_that_does_not_read_is_named(own: Path):
    (own / "mcp-review.toml").write_text('[confine]\nallow_net = "api.example"\n')
    with pytest.raises(PlanError, match=r"\[confine\]\.allow_net: expected a list of strings"):
        decide(Asked(server_command=SERVER), {})


def test_a_server_chosen_in_the_app_runs_as_the_reviewer_decided(own: Path):
    plan = decide(Asked(server_command=SERVER, allow_net=("api.example",)), {}, observed="the app")
    assert plan.target is not None
    current = plan.target
    chosen = confined_like(stdio_target(["node", "server.js"]), current, named_paths=True)
    spec = chosen.confinement
    assert spec.confine and spec.observe and spec.allow_net == ("api.example",)
    assert spec.run and spec.run != current.confinement.run, "a run of its own: its own canaries"
    project = confined_like(stdio_target(["node", "server.js"]), current, named_paths=False)
    assert not project.confinement.named_paths, "a project's config entry does not choose what it sees"
    # after an HTTP server: confined, observed, with the reviewer's standing allowances
    (own / "mcp-review.toml").write_text('[confine]\nallow_net = ["standing.example"]\n')
    after = confined_like(stdio_target(["node", "server.js"]), http_target("http://127.0.0.1:9/mcp"), named_paths=True)
    assert after.confinement.confine and after.confinement.observe
    assert after.confinement.allow_net == ("standing.example",)
    assert confined_like(http_target("http://127.0.0.1:9/mcp"), current, named_paths=True).kind == "http"


def test_a_fleet_passes_the_reviewers_confinement_on_to_every_check():
    from mcp_review.cli import parse
    from mcp_review.cli.fleet import check_args

    args = parse(["fleet", "--no-confine", "--no-observe", "--allow-net", "a.example", "--allow-read", "/data"])
    passed = check_args(args)
    assert "--no-confine" in passed and "--no-observe" in passed
    pairs = set(itertools.pairwise(passed))
    assert {("--allow-net", "a.example"), ("--allow-read", "/data")} <= pairs
    assert not {"--no-confine", "--observe", "--no-observe"} & set(check_args(parse(["fleet"]))), "the default: check's"
