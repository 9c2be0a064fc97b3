"""`mcp-review trust [FILE]`: the reviewer trusts a repository's review config as it is now (like direnv's
`allow`). What it asks for (calls beyond read-only, probes, tokens from the environment, a path outside the
working directory) then applies, and its decisions count as the reviewer's, until its bytes change."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mcp_review.cli.common import UsageError
from mcp_review.review import ExitCode


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", nargs="?", metavar="FILE", help="default: ./mcp-review.toml, or ./pyproject.toml")


def run(args: argparse.Namespace) -> int:
    from mcp_review import trust
    from mcp_review.config import ConfigFileError, find_config, load_config
    from mcp_review.rules.core import PACKS, load_rules

    found = args.file or find_config(Path())
    if found is None:
        raise UsageError("no mcp-review.toml here, nor [tool.mcp-review] in pyproject.toml: name the file")
    try:  # it must read: a file that does not is never trusted
        config = load_config(found, set(load_rules()), set(PACKS))
    except ConfigFileError as e:
        raise UsageError(str(e)) from e
    sha = trust.trust(found)
    asked = config.grants()
    print(f"mcp-review: trusted {found} (sha256 {sha[:16]}…){': it grants ' + '; '.join(asked) if asked else ''}")
    decided = (len(config.waivers), len(config.attestations), len(config.ignore))
    if any(decided):  # not claims any more: they make the verdict
        print("mcp-review: its decisions now count as yours: {} waivers, {} attestations, {} skipped".format(*decided))
    print("mcp-review: a change to the file needs `mcp-review trust` again", file=sys.stderr)
    return ExitCode.OK
