"""`mcp-review fleet`: many servers reviewed in one run, and one report for all of them.

- `sources`: which servers (the discovered client config files, a list file, `--config` files), each an `Entry`
  that carries the `check` target options that review it, never a secret of its own;
- `registry`: registry `server.json` entries made into entries (packages: a command; remotes: a URL);
- `runner`: each entry reviewed by its own `mcp-review check` process, a bounded number at once, each with its own
  time budget, into a state directory that a cut-off run resumes from;
- `aggregate`: the state files (or any `check --format json` reviews: `mcp-review merge`) made into one report:
  a table, SARIF with one run per server, JUnit with one suite per server, JSON; and the exit code.
"""
