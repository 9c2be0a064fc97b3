"""The encodings token costs are counted with, loaded offline from the files this package ships.

tiktoken downloads its encoding files on first use; that fails on machines without internet (CI
here). The two BPE files ship with this package (`inspector/data/encodings/*.tiktoken.gz`, taken
from the MIT-licensed PyPI package bpe-openai 0.1.4, checked against tiktoken's own sha256 of each
file), and so does each one's packed form (`*.ranks.gz`, see `pack_ranks`), the one loaded at run time:
base64-decoding 100k lines took two thirds of `list`'s time, the packed form loads in milliseconds. A
test derives the packed files from the hashed originals; the packed file's own sha256 is checked before
use. No code path touches the network or tiktoken's cache.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import threading
from functools import cache
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import tiktoken

DATA = Path(__file__).parent / "data" / "encodings"

_ENDOFTEXT, _ENDOFPROMPT = "<|endoftext|>", "<|endofprompt|>"
# From tiktoken_ext/openai_public.py (tiktoken 0.14.0): hashes of the uncompressed files, regexes,
# special tokens.
_SPECS: dict[str, dict[str, Any]] = {
    "cl100k_base": {
        "sha256": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        "packed_sha256": "79045c4dbf49c4e3b90893afbcbfd80cf94cf2b99256bd84b19ffcace49d9bd2",
        "pat_str": r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",  # noqa: E501
        "special_tokens": {
            _ENDOFTEXT: 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            _ENDOFPROMPT: 100276,
        },
    },
    "o200k_base": {
        "sha256": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        "packed_sha256": "ba55b38e477b631966c2496061ecd7d10108501c7c47358222d9dc27c22f9422",
        "pat_str": "|".join(
            [
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""\p{N}{1,3}""",
                r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
                r"""\s*[\r\n]+""",
                r"""\s+(?!\S)""",
                r"""\s+""",
            ]
        ),
        "special_tokens": {_ENDOFTEXT: 199999, _ENDOFPROMPT: 200018},
    },
    # coder/ai-tokenizer src/encoding/claude.json at 9fa777aa (2025-12-01), see data/encodings/SOURCES.md
    "claude": {
        "sha256": "ba9ebb28e61f5872504fbe44b2f61bd825c222d7d910f55c89f5f28ab1f40e8b",
        "pat_str": r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""",
        "special_tokens": {"<EOT>": 0, "<META>": 1, "<META_START>": 2, "<META_END>": 3, "<SOS>": 4},
    },
}


ENCODINGS: tuple[str, ...] = tuple(_SPECS)  # in the order the views show them


class UnknownEncoding(ValueError):
    def __init__(self, name: str) -> None:
        super().__init__(f"unknown encoding {name!r}: choose one of {', '.join(ENCODINGS)}")


class CorruptEncoding(RuntimeError):
    """The shipped encoding file does not match tiktoken's published hash."""


def _verified(path: Path, sha256: str) -> bytes:
    """A gzipped file's bytes, refused unless their sha256 is the expected one."""
    raw = gzip.decompress(path.read_bytes())
    digest = hashlib.sha256(raw).hexdigest()
    if digest != sha256:
        raise CorruptEncoding(f"{path}: sha256 {digest} does not match the expected {sha256}")
    return raw


def load_ranks(path: Path, sha256: str) -> dict[bytes, int]:
    """Read a gzipped `.tiktoken` file (one `base64 rank` line per token), verifying its hash."""
    pairs = (line.split() for line in _verified(path, sha256).splitlines() if line)
    return {base64.b64decode(token): int(rank) for token, rank in pairs}


def pack_ranks(ranks: dict[bytes, int]) -> bytes:
    """The packed form of ranks 0..n-1: n (4 bytes, little-endian), each token's length (1 byte each, in rank
    order), then the tokens one after another."""
    tokens = sorted(ranks, key=ranks.__getitem__)
    if [ranks[t] for t in tokens] != list(range(len(tokens))) or max(map(len, tokens)) > 255:
        raise ValueError("ranks must be 0..n-1 and tokens at most 255 bytes long")
    return len(tokens).to_bytes(4, "little") + bytes(map(len, tokens)) + b"".join(tokens)


def unpack_ranks(packed: bytes) -> dict[bytes, int]:
    """`pack_ranks` undone, with the slicing done in C (map, zip): about 10 ms for 200k tokens."""
    n = int.from_bytes(packed[:4], "little")
    data = packed[4 + n :]
    ends = list(accumulate(packed[4 : 4 + n]))
    starts = [0, *ends[:-1]]
    return dict(zip(map(data.__getitem__, map(slice, starts, ends)), range(n), strict=True))


def _ranks(name: str, spec: dict[str, Any]) -> dict[bytes, int]:
    """The packed ranks where they ship (ranks 0..n-1); else the `.tiktoken` file itself: Claude's ranks start
    at 5 (0-4 are its special tokens), which the packed form does not hold, and its 65k lines load in ~0.1 s."""
    if "packed_sha256" in spec:
        return unpack_ranks(_verified(DATA / f"{name}.ranks.gz", spec["packed_sha256"]))
    return load_ranks(DATA / f"{name}.tiktoken.gz", spec["sha256"])


@cache
def get_encoding(name: str) -> tiktoken.Encoding:
    if name not in _SPECS:
        raise UnknownEncoding(name)
    import tiktoken

    spec = _SPECS[name]
    return tiktoken.Encoding(
        name,
        pat_str=spec["pat_str"],
        mergeable_ranks=_ranks(name, spec),
        special_tokens=spec["special_tokens"],
    )


_BUILDING = threading.Lock()  # a preloading thread and a counter may ask for one encoding at once: built once


def load_encoding(name: str) -> tiktoken.Encoding:
    """`get_encoding`, from any thread: the first caller builds it, the others wait for it."""
    with _BUILDING:
        return get_encoding(name)
