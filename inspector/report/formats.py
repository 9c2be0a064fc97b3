"""What a report format is, for each family of reports: the review's (`mcp_review.report.FORMATS`), a diff's
(`mcp_review.report.changes.FORMATS`) and a fleet's (`mcp_review.fleet.aggregate.FORMATS`).

Each format is one `Format` record, and every face reads the records: the command line's `--format` choices and
the formats its `--out` files are named for, the app's export dialog, the GitHub Action's file names. A record says
what a face must give it: `root`, the server's repository (SARIF places each finding on the line that defines its
subject there), and `beside`, a companion written with it (the short review names the complete one). `write` gives
a format what it asks for, so no face special-cases a format by its name.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

S = TypeVar("S")  # what the family renders: a `Review`, a diff's JSON, a fleet's rows


@dataclass(frozen=True)
class Format(Generic[S]):
    """One report format of a family.

    `function` ("package.module:name" under `mcp_review`) renders the subject: the whole text, or its blocks when
    the format `streams` (written as they come, never held whole). It is imported when the format is rendered, by
    name: every command builds its parser from these tables, and only the format asked for is loaded.
    """

    name: str
    suffix: str  # how a file of this format ends, without the first dot: review.sarif.json
    help: str
    function: str
    streams: bool = False
    # written beside this one whenever this one goes to a file; `function` is given `full=` that file's name
    beside: Format[S] | None = None
    # `function` is given `root=` the server's repository (None: nothing searched) and `skip=`, a folder in it
    root: bool = False
    also: tuple[str, ...] = ()  # other endings a file name may have to mean this format (a fleet's .sarif.json)

    def chunks(
        self, subject: S, *, full: str | None = None, root: Path | None = None, skip: Path | None = None
    ) -> Iterable[str]:
        """The text in blocks; of what is given, only what the record asks for reaches `function`."""
        module, name = self.function.split(":")
        made = getattr(importlib.import_module(f"mcp_review.{module}"), name)(
            subject, **({"full": full} if self.beside else {}), **({"root": root, "skip": skip} if self.root else {})
        )
        return made if self.streams else [made]

    def render(self, subject: S, *, full: str | None = None, root: Path | None = None, skip: Path | None = None) -> str:
        return "".join(self.chunks(subject, full=full, root=root, skip=skip))

    def endings(self) -> tuple[str, ...]:
        """Every ending of a file of this format, the first dot included."""
        return tuple(f".{s}" for s in (self.suffix, *self.also))


def family(*formats: Format[S]) -> dict[str, Format[S]]:
    """A family's formats by name, in the order given (the order faces list them)."""
    return {f.name: f for f in formats}


def named_by(formats: Mapping[str, Format[S]], path: str | Path) -> Format[S] | None:
    """The format a file's name says (the longest ending that matches: .sarif.json before .json), or None."""
    found = _ending(formats, str(path))
    return found[1] if found else None


def stem(formats: Mapping[str, Format[S]], path: str) -> str:
    """`path` without the ending of the family's format it names (unchanged when it names none)."""
    found = _ending(formats, path)
    return path.removesuffix(found[0]) if found else path


def _ending(formats: Mapping[str, Format[S]], path: str) -> tuple[str, Format[S]] | None:
    endings = sorted(((e, f) for f in formats.values() for e in f.endings()), key=lambda ef: -len(ef[0]))
    return next(((e, f) for e, f in endings if path.endswith(e)), None)


def endings(formats: Mapping[str, Format[S]]) -> list[str]:
    """Every ending a family's files may have, as said in help and errors: .md, .sarif.json, ..."""
    return [e for f in formats.values() for e in f.endings()]


def paths(fmt: Format[S], path: str | Path) -> list[Path]:
    """The files writing `fmt` to `path` makes: `path`, then its companion (review.md: review.full.md)."""
    return [Path(path), *(paths(fmt.beside, _beside(fmt, path)) if fmt.beside else [])]


def _beside(fmt: Format[S], path: str | Path) -> Path:
    """Where `fmt`'s companion goes: `path` with the companion's ending for its own (or for its last extension)."""
    own, text = f".{fmt.suffix}", str(path)
    base = text.removesuffix(own) if text.endswith(own) else os.path.splitext(text)[0]
    assert fmt.beside is not None
    return Path(f"{base}.{fmt.beside.suffix}")


def write(
    fmt: Format[S], subject: S, path: str | Path, *, root: Path | None = None, skip: Path | None = None
) -> list[Path]:
    """Write `subject` as `fmt` to `path` with what the record asks for: its companion beside it (and named in
    it), `root` and `skip` when it places findings in the repository. Masked and atomic (`output.write_text`);
    the files written as `paths` lists them (the companion is written first, so the name in `path` holds)."""
    from mcp_review.output import write_text

    beside: list[Path] = []
    if fmt.beside is not None:
        beside = write(fmt.beside, subject, _beside(fmt, path), root=root, skip=skip)
    write_text(path, fmt.chunks(subject, full=beside[0].name if beside else None, root=root, skip=skip))
    return [Path(path), *beside]
