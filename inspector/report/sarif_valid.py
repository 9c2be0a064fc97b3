"""Is a SARIF log one GitHub code scanning accepts? The SARIF 2.1.0 schema (vendored in data/sarif/, read offline)
and code scanning's documented upload limits.

The limits are GitHub's "SARIF results exceed limit" page (docs.github.com, code-security/code-scanning/
troubleshooting-sarif-uploads/results-exceed-limit) and "SARIF support for code scanning" (10 MB gzip-compressed
per upload): what is over a hard limit is rejected whole, so `problems` names it before the upload does. Since
July 2025 code scanning also rejects two runs of one tool with the same category (`automationDetails.id`).
"""

from __future__ import annotations

import functools
import gzip
import json
from importlib import resources
from typing import Any

MAX_GZIP_BYTES = 10 * 1024 * 1024
MAX_RUNS = 20
MAX_RESULTS = 25_000  # per run; only the 5,000 most severe are shown
SHOWN_RESULTS = 5_000
MAX_RULES = 25_000  # per run
MAX_EXTENSIONS = 100  # per run
MAX_LOCATIONS = 1_000  # per result
MAX_TAGS = 20  # per rule
MAX_THREAD_FLOW_LOCATIONS = 10_000  # per result


@functools.cache
def validator() -> Any:
    """A draft-04 validator of the vendored schema. Its own registry: without one, jsonschema falls back to fetching
    an unknown `$ref` over the network; a `Registry` with no `retrieve` fails on it instead."""
    from jsonschema import Draft4Validator
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT4

    text = resources.files("mcp_review").joinpath("data", "sarif", "sarif-schema-2.1.0.json").read_text("utf-8")
    schema = json.loads(text)
    resource = Resource.from_contents(schema, default_specification=DRAFT4)
    registry: Registry = Registry().with_resource(schema["id"], resource)
    return Draft4Validator(schema, registry=registry)


def problems(doc: dict[str, Any]) -> list[str]:
    """Why code scanning would reject `doc` (empty: it accepts it): schema errors first, then limits."""
    out = [
        f"schema: {'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message[:300]}"
        for e in list(validator().iter_errors(doc))[:20]
    ]
    size = len(gzip.compress(json.dumps(doc, ensure_ascii=False).encode()))
    if size > MAX_GZIP_BYTES:
        out.append(f"{size} bytes gzip-compressed, over the {MAX_GZIP_BYTES} an upload may have")
    runs = doc.get("runs") or []
    if len(runs) > MAX_RUNS:
        out.append(f"{len(runs)} runs, over the {MAX_RUNS} a file may have")
    seen: set[tuple[str, str]] = set()
    for i, run in enumerate(runs):
        driver = run.get("tool", {}).get("driver", {})
        category = (driver.get("name", ""), (run.get("automationDetails") or {}).get("id", ""))
        if category in seen:
            out.append(f"run {i}: a second run of {category[0]} with category {category[1]!r}")
        seen.add(category)
        out += _run_problems(i, run, driver)
    return out


def _run_problems(i: int, run: dict[str, Any], driver: dict[str, Any]) -> list[str]:
    out = []
    counted = {
        "results": (len(run.get("results") or []), MAX_RESULTS),
        "rules": (len(driver.get("rules") or []), MAX_RULES),
        "tool extensions": (len(run.get("tool", {}).get("extensions") or []), MAX_EXTENSIONS),
    }
    out += [f"run {i}: {n} {what}, over {limit}" for what, (n, limit) in counted.items() if n > limit]
    for rule in driver.get("rules") or []:
        if len((rule.get("properties") or {}).get("tags") or []) > MAX_TAGS:
            out.append(f"run {i}: rule {rule.get('id')} has over {MAX_TAGS} tags")
    for j, result in enumerate(run.get("results") or []):
        if len(result.get("locations") or []) > MAX_LOCATIONS:
            out.append(f"run {i} result {j}: over {MAX_LOCATIONS} locations")
        threads = [t for c in result.get("codeFlows") or [] for t in c.get("threadFlows") or []]
        if sum(len(t.get("locations") or []) for t in threads) > MAX_THREAD_FLOW_LOCATIONS:
            out.append(f"run {i} result {j}: over {MAX_THREAD_FLOW_LOCATIONS} thread flow locations")
    return out
