"""No probe can harm the machine it runs on (issue 20): every payload's worst effect lands in the canary area.

An earlier `review.injection-safe` sent `../../../../../../../../etc/passwd` to a write tool, and a server running
as root overwrote the host's /etc/passwd. Here the deliberately vulnerable writer of tests/servers/writer.py
(paths joined as text, writes, moves and deletes wherever they lead, runs any code) is reviewed with every rule,
every call and every probe (`--pack all --calls all --probe security-all`), in a scratch tree that is watched:
- the server runs confined, as mcp-review runs every stdio server (mcp_review.sandbox: / read-only, its canary areas
  the only temporary directory it sees); where this machine cannot confine it, in a mount namespace of the test's
  own where / is read-only and only the scratch tree is writable (when this machine allows it: CI runs as root), so
  anything it touched outside the scratch tree would have failed loudly;
- mcp-review's canary areas are made under the scratch tree ($TMPDIR), beside the server's workspace and a
  `precious` directory that the server could write but must not;
- after the run, every file of the scratch tree outside the canary areas is byte for byte as it was, and the
  canary areas are gone. The same run proves the traversal, so the probes did reach the writer.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from tests.support import fixture_argv

ROOT = Path(__file__).resolve().parents[2]


def tree(base: Path) -> dict[str, str]:
    """Every file and directory under `base` with a digest of its content (directories: their mode)."""
    out = {}
    for path in sorted(base.rglob("*")):
        name = str(path.relative_to(base))
        out[name] = "dir" if path.is_dir() else hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def confined(scratch: Path, argv: list[str]) -> list[str]:
    """`argv` in a mount namespace where only `scratch` is writable, if this machine can make one and mcp-review cannot
    confine the server itself; else as is."""
    from mcp_review.sandbox import confine

    unshare = shutil.which("unshare")
    if confine.unavailable() is None or unshare is None or os.geteuid() != 0:
        return argv
    trial = subprocess.run([unshare, "--mount", "true"], capture_output=True, timeout=10)
    if trial.returncode != 0:
        return argv
    s = shlex.quote(str(scratch))
    script = f"mount --bind {s} {s} && mount -o remount,bind,ro / && exec {shlex.join(argv)}"
    return [unshare, "--mount", "sh", "-c", script]


def test_every_probe_against_a_naive_writer_changes_nothing_outside_the_canary_area(tmp_path):
    scratch = tmp_path / "scratch"
    (scratch / "ws").mkdir(parents=True)
    (scratch / "ws" / "notes.txt").write_text("the server's own file\n")
    (scratch / "precious").mkdir()
    (scratch / "precious" / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    (scratch / "tmp").mkdir()
    before = tree(scratch)
    server = confined(scratch, [*fixture_argv("writer", "naive"), "--root", str(scratch / "ws")])
    env = {**os.environ, "TMPDIR": str(scratch / "tmp")}
    every = ["--pack", "all", "--calls", "all", "--probe", "security-all"]
    done = subprocess.run(
        [sys.executable, "-m", "mcp_review", "check", *every, "--format", "json", "-q", "--", *server],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
        env=env,
    )
    review = json.loads(done.stdout)
    failed = {(f["rule"], f["subject"]) for f in review["findings"] if f["status"] == "fail"}
    for tool in ("write_file", "list_directory", "move_file", "delete_file"):
        assert ("review.paths-confined", tool) in failed, done.stderr
    assert ("review.code-not-executed", "run_code") in failed
    assert len(review["coverage"]) > 40, "every rule that calls did call"
    assert tree(scratch) == before, "nothing outside the canary area changed, and the canary areas are gone"
