"""A review as the app saves it in the reviewer's state directory, and how it is found, read back and pruned.

Not the JSON review (report/json.py, a documented export for people and CI): this file is the app's own, written
after every change and read when the same server is opened again, so it is made to be small and to be read without
holding the app. gzip (level 1: most of the gain for a tenth of level 9's time) of JSON lines:

    {"saved": 1, "review": {the JSON review's header fields}, "rules": {rule: [pack, source, mode, concern, severity]},
     "findings": N, "exchanges": M, "cwd": where it was saved from}
    {"f": [[rule index, status, message, subject, subjectKind, evidence, note, fact, settledBy, severity, known],
           ...]}  (BLOCK a line; a severity only where it is not its rule's first finding's)
    {"x": [seq, wire entry]}  (one a line)

What a finding shares with its rule (pack, source, mode, concern, severity) is said once, in `rules`; a waiver is
not stored on its finding (the review's waivers are applied again); the verdict and counts are derived (the header
keeps them for a hint without reading the rest). A review of 10,000 tools (110,000 findings) is about 1.5 MB here
against 72 MB as indented JSON, and is read a line at a time in a thread (`read`, with progress), so a key is never
held for longer than one line's parse.

Which file is a server's (`review_file`): named after the server, keyed by what starts it, its relative paths made
absolute (a command, a script argument that names a file, a config file), not by the folder the app ran in: the
same server opened from another folder finds its review. Files of an older key or format are found (`find_review`)
and converted once. Pruning (`prune`, after every save): at most KEEP reviews, and none unused (neither opened nor
saved) for longer than UNUSED_DAYS; the review just written is never pruned.
"""

from __future__ import annotations

import contextlib
import gc
import gzip
import hashlib
import io
import json
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from mcp_review.output import write_text
from mcp_review.review import Fact, Finding, Known, Review

FORMAT = 1
SUFFIX = ".review.gz"
LEGACY_SUFFIX = ".review.json"  # the indented JSON review, as saved before this format
BLOCK = 2000  # findings a line: each line's parse holds the interpreter for a few milliseconds only
KEEP = 100  # reviews kept in the state directory, the most recently used
UNUSED_DAYS = 180  # a review neither opened nor saved for longer is pruned
HEADER_CHARS = 1 << 20  # a header read for a hint is bounded (the file is ours, but a disk can be anything)
Progress = Callable[[int, int], None]  # findings read, findings in the file


def lines(review: Review, cwd: str | None) -> Iterator[str]:
    """The saved form of `review`, a line at a time (each masked on its own by `write_text`: a line is whole JSON,
    so a secret is never split)."""
    rules: dict[str, int] = {}
    table: dict[str, list[str]] = {}
    for f in review.findings:
        if f.rule not in rules:
            rules[f.rule] = len(rules)
            table[f.rule] = [f.pack, f.source, f.mode, f.concern, f.severity]
    doc = review.to_json(findings=[])
    doc.pop("findings")
    doc.pop("exchanges")
    header = {
        "saved": FORMAT,
        "review": doc,
        "rules": table,
        "findings": len(review.findings),
        "exchanges": len(review.exchanges),
        "cwd": cwd,
    }
    yield _dumps(header)
    for start in range(0, len(review.findings), BLOCK):
        block = review.findings[start : start + BLOCK]
        yield _dumps({"f": [_row(rules[f.rule], f, table[f.rule][4]) for f in block]})
    for seq, entry in sorted(review.exchanges.items()):
        yield _dumps({"x": [seq, entry]})


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n"


def _row(rule: int, f: Finding, severity: str) -> list[Any]:
    row: list[Any] = [rule, f.status, f.message, f.subject, f.subject_kind, f.evidence, f.note]
    row += [f.fact and asdict(f.fact), f.settled_by, f.severity if f.severity != severity else None]
    row.append(f.known and asdict(f.known))
    while row[-1] is None:  # what most findings lack is left off the end
        row.pop()
    return row


def write(path: Path, review: Review) -> Path:
    """Write `review` to `path` (masked, atomically), then prune the folder it is in."""
    write_text(path, lines(review, str(Path.cwd())), compress=True)
    prune(path.parent, keep=path)
    return path


def read(path: Path, progress: Progress | None = None) -> Review | None:
    """The review saved at `path`, read a line at a time (`progress` after each block of findings); a review saved
    in the older format is converted first. None when it cannot be read."""
    with contextlib.suppress(OSError):
        os.utime(path)  # used: pruning goes by the last use
    if path.name.endswith(LEGACY_SUFFIX):
        return _convert(path, progress)
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            return _parse(f, progress)
    except (OSError, EOFError, ValueError, KeyError, TypeError, IndexError):
        return None


def _parse(f: io.TextIOBase, progress: Progress | None) -> Review | None:
    header = json.loads(f.readline())
    if not isinstance(header, dict) or header.get("saved") != FORMAT:
        return None
    doc, total = header["review"], int(header["findings"])
    rules = [(rule, *shared) for rule, shared in header["rules"].items()]
    findings: list[Finding] = []
    exchanges: dict[int, dict[str, Any]] = {}
    for line in f:
        data = json.loads(line)
        if "f" in data:
            findings.extend(_finding(rules, row) for row in data["f"])
            if progress is not None:
                progress(len(findings), total)
        else:
            seq, entry = data["x"]
            exchanges[int(seq)] = entry
        # What is read lives as long as the review: out of the collector's sight as it is made. Its full passes
        # over it grew with every line (0.66 s at 110,000 findings) and held every thread, the app's too.
        gc.freeze()
    if len(findings) != total:  # cut short (a disk filled up mid-write cannot leave this: writes are atomic)
        return None
    review = Review.from_json(doc)  # the header's fields as the JSON review reads them: one place for them
    review.findings, review.exchanges = findings, exchanges
    review.apply_waivers()
    return review


def _finding(rules: list[tuple[str, ...]], row: list[Any]) -> Finding:
    rule, pack, source, mode, *shared = rules[row[0]]
    concern, severity = (*shared, "", "")[:2]  # saved before concerns: none (`stamp_missing` gives the registry's)
    row = row + [None] * (11 - len(row))
    fact = Fact(str(row[7].get("owner")), str(row[7].get("text"))) if isinstance(row[7], dict) else None
    evidence = list(row[5] or [])
    found = Finding(rule, pack, row[1], row[2], row[3], row[4], source, mode, evidence, None, row[6], fact, row[8])
    found.concern, found.severity, found.known = concern, row[9] or severity, Known.from_json(row[10])
    return found


def _convert(path: Path, progress: Progress | None) -> Review | None:
    """A review saved as indented JSON by an older version: read in a process of its own (one parse of 72 MB holds
    an interpreter for a second), written in this format beside it, the old file removed, then read from there."""
    import subprocess
    import sys

    new = path.with_name(path.name[: -len(LEGACY_SUFFIX)] + SUFFIX)
    done = subprocess.run(
        [sys.executable, "-m", "mcp_review.saved", str(path), str(new)], capture_output=True, check=False, timeout=600
    )
    if done.returncode != 0 or not new.is_file():
        return None
    path.unlink(missing_ok=True)
    return read(new, progress)


def header(path: Path) -> dict[str, Any] | None:
    """The first line of a saved review (what it is of, where from, its verdict), or None."""
    if not path.name.endswith(SUFFIX):
        return None
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            data = json.loads(f.readline(HEADER_CHARS))
    except (OSError, EOFError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("saved") == FORMAT else None


# ------------------------------------------------------------------------------------------------ which file
def identity(target: dict[str, Any]) -> dict[str, Any]:
    """What starts the server, as the same server started from any folder would be: the command and every argument
    that names an existing file made absolute against where it starts (its `cwd`, else this folder); a URL and a
    config entry (its file absolute) as they are."""
    base = Path(str(target.get("cwd") or Path.cwd()))

    def absolute(part: Any, is_command: bool = False) -> Any:
        if not isinstance(part, str) or not part or part.startswith("-"):
            return part
        here = base / part
        if ("/" in part or not is_command) and here.exists():
            return os.path.normpath(here)
        return part

    fields = {k: target.get(k) for k in ("kind", "url", "name")}
    if target.get("source"):
        fields["source"] = absolute(target["source"])
    if target.get("command"):
        fields["command"] = absolute(target["command"], is_command=True)
        fields["args"] = [absolute(a) for a in target.get("args") or []]
    return fields


def _slug(target: dict[str, Any], server: str | None) -> str:
    label = str(target.get("name") or server or Path(str(target.get("command") or target.get("url") or "server")).name)
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in label)[:40]


def _key(fields: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:10]


def reviews_dir(folder: Path | None = None) -> Path:
    from mcp_review.trust import state_dir

    return folder or state_dir() / "reviews"


def review_file(target: dict[str, Any], folder: Path | None = None, server: str | None = None) -> Path:
    """Where the app keeps a server's review: the reviewer's state directory (never the checkout under review,
    whose files its author wrote), named after the server (its config entry's name, else `server`: the name it
    gives itself, else its command or URL), keyed by its `identity`."""
    return reviews_dir(folder) / f"{_slug(target, server)}-{_key(identity(target))}{SUFFIX}"


def _legacy_key(target: dict[str, Any]) -> str:
    """The key reviews were saved under before `identity`: the target as given and the folder the app ran in."""
    fields = {k: target.get(k) for k in ("kind", "command", "args", "url", "name", "source")}
    return _key({**fields, "cwd": str(Path.cwd().resolve())})


def find_review(path: Path, target: dict[str, Any] | None = None) -> Path | None:
    """The review saved for `path`'s key, under its name or another (saved before the server named itself); else,
    given the `target`, one saved under the older key (from this folder) or in the older format."""
    key = path.name[: -len(SUFFIX)].rsplit("-", 1)[-1]
    keys = [key] + ([_legacy_key(target)] if target is not None else [])
    if path.is_file():
        return path
    try:
        for k in keys:
            for suffix in (SUFFIX, LEGACY_SUFFIX):
                found = sorted(p for p in path.parent.glob(f"*-{k}{suffix}") if p.is_file())
                if found:
                    return found[0]
    except OSError:
        return None
    return None


@dataclass(frozen=True)
class Elsewhere:
    """A review of a server of the same name saved under another key: made from another folder, or started
    another way (what the app hints at when this server has none)."""

    path: Path
    cwd: str | None
    created: str | None
    verdict: str | None

    def said(self) -> str:
        where = f" from {self.cwd}" if self.cwd else ""
        made = f" on {self.created}" if self.created else ""
        verdict = f" (verdict {self.verdict})" if self.verdict else ""
        return f"a review of this server's name was saved{where}{made}{verdict}: {self.path}"


def elsewhere(path: Path, target: dict[str, Any], server: str) -> Elsewhere | None:
    """The newest review saved for a server named `server` under a key other than `path`'s, if any."""
    slug = _slug(target, server)
    try:
        others = [p for p in path.parent.glob(f"{slug}-*") if p != path and p.name.endswith((SUFFIX, LEGACY_SUFFIX))]
        others.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return None
    for other in others:
        if other.name.endswith(LEGACY_SUFFIX):
            return Elsewhere(other, None, None, None)
        data = header(other)
        if data is not None and (data.get("review") or {}).get("server", {}).get("name") == server:
            doc = data["review"]
            return Elsewhere(other, data.get("cwd"), doc.get("created"), doc.get("verdict"))
    return None


def prune(folder: Path, keep: Path | None = None, now: float | None = None) -> list[Path]:
    """Remove the reviews beyond the KEEP most recently used and those unused for UNUSED_DAYS (never `keep`)."""
    now = now or time.time()
    try:
        found = [(p.stat().st_mtime, p) for p in folder.iterdir() if p.name.endswith((SUFFIX, LEGACY_SUFFIX))]
    except OSError:
        return []
    found.sort(key=lambda f: (f[1] == keep, f[0]), reverse=True)  # the one just written counts first
    gone = [p for i, (used, p) in enumerate(found) if p != keep and (i >= KEEP or now - used > UNUSED_DAYS * 86400)]
    for p in gone:
        with contextlib.suppress(OSError):
            p.unlink()
    return gone


def _main(argv: list[str]) -> int:
    """`python -m mcp_review.saved OLD.review.json NEW.review.gz`: the conversion `_convert` runs in a process."""
    source, dest = Path(argv[0]), Path(argv[1])
    try:
        review = Review.from_json(json.loads(source.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return 1
    write_text(dest, lines(review, None), compress=True)  # where it was saved from: the older format did not say
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(_main(sys.argv[1:]))
