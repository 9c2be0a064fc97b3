"""Offline token counting: shipped encodings, hash check, canonical JSON, per-field breakdown."""

from __future__ import annotations

import gzip
import socket

import pytest

from mcp_review import encodings
from mcp_review.encodings import CorruptEncoding, UnknownEncoding, get_encoding, load_ranks
from mcp_review.tokens import TokenCounter, canonical


@pytest.fixture
def no_network(monkeypatch, tmp_path):
    def refuse(*_a, **_k):
        raise OSError("network disabled in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "empty-cache"))
    get_encoding.cache_clear()
    yield
    get_encoding.cache_clear()


@pytest.mark.parametrize(
    ("encoding", "text", "expected"),
    [
        ("cl100k_base", "hello world", 2),
        ("o200k_base", "hello world", 2),
        ("cl100k_base", '{"name":"search_notes"}', 6),
        ("o200k_base", "Search the notes store for a query.", 8),
    ],
)
def test_both_encodings_load_offline_and_count(no_network, tmp_path, encoding, text, expected):
    assert TokenCounter(encoding).count_text(text) == expected
    assert not (tmp_path / "empty-cache").exists(), "tiktoken's cache is never used"


@pytest.mark.parametrize("encoding", ["cl100k_base", "o200k_base"])
def test_same_figures_as_tiktokens_own_encoding_objects(no_network, monkeypatch, encoding):
    """Our Encoding is built from the data, regex and special tokens tiktoken itself defines (tiktoken_ext's
    constructor, fed the shipped file where it would download it): exotic text encodes to the same tokens."""
    import tiktoken
    from tiktoken_ext import openai_public

    def shipped(url: str, expected_hash: str) -> dict[bytes, int]:
        assert url.endswith(f"/{encoding}.tiktoken") and expected_hash == encodings._SPECS[encoding]["sha256"]
        return load_ranks(encodings.DATA / f"{encoding}.tiktoken.gz", expected_hash)

    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", shipped)
    theirs = tiktoken.Encoding(**getattr(openai_public, encoding)())
    text = 'données {"ключ": "値", "emoji": "🙂", "n": 12345678} \r\n\t  <|endoftext|> It\'s  HTTPServer\n\n'
    ours = get_encoding(encoding).encode_ordinary(text)
    assert ours == theirs.encode_ordinary(text)
    assert TokenCounter(encoding).count_text(text) == len(ours)
    assert get_encoding(encoding).encode("<|endoftext|>", allowed_special="all") == theirs.encode(
        "<|endoftext|>", allowed_special="all"
    )


def test_canonical_is_compact_sorted_utf8():
    assert canonical({"b": 1, "a": {"d": "é", "c": [1, 2]}}) == '{"a":{"c":[1,2],"d":"é"},"b":1}'


def test_breakdown_total_is_the_canonical_json_and_fields_follow_wire_order():
    tool = {"name": "x", "description": "Find notes.", "inputSchema": {"type": "object"}, "_meta": {"k": 1}}
    counter = TokenCounter()
    out = counter.breakdown(tool)
    assert list(out) == ["total", "name", "description", "inputSchema", "_meta"]
    assert out["total"] == counter.count_text(canonical(tool))
    assert out["description"] == counter.count_text('"description":"Find notes."')


def test_malformed_items_count_as_a_whole():
    assert TokenCounter().breakdown("oops") == {"total": 3}
    assert TokenCounter().tools_total([1, "a"]) == TokenCounter().count_text('[1,"a"]')


def test_special_token_text_and_escapes_are_plain_text():
    assert TokenCounter("o200k_base").count_text("<|endoftext|>\x1b[31m[bold]x[/]") > 3


def test_unknown_encoding():
    with pytest.raises(UnknownEncoding, match="cl100k_base, o200k_base"):
        TokenCounter("p50k_base")


def test_corrupt_file_is_refused(tmp_path):
    good = gzip.decompress((encodings.DATA / "cl100k_base.tiktoken.gz").read_bytes())
    bad = tmp_path / "bad.tiktoken.gz"
    bad.write_bytes(gzip.compress(good.replace(b" 0\n", b" 1\n", 1)))
    with pytest.raises(CorruptEncoding, match="does not match"):
        load_ranks(bad, "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7")


@pytest.mark.parametrize("encoding", [e for e in encodings.ENCODINGS if "packed_sha256" in encodings._SPECS[e]])
@pytest.mark.slow
def test_the_packed_ranks_are_the_hashed_originals(encoding):
    """The packed file loaded at run time holds exactly the ranks of tiktoken's published file."""
    spec = encodings._SPECS[encoding]
    original = load_ranks(encodings.DATA / f"{encoding}.tiktoken.gz", spec["sha256"])
    shipped = gzip.decompress((encodings.DATA / f"{encoding}.ranks.gz").read_bytes())
    assert encodings.pack_ranks(original) == shipped
    assert encodings.unpack_ranks(shipped) == original


def test_a_corrupt_packed_file_is_refused(tmp_path, monkeypatch, no_network):
    packed = gzip.decompress((encodings.DATA / "cl100k_base.ranks.gz").read_bytes())
    (tmp_path / "cl100k_base.ranks.gz").write_bytes(gzip.compress(packed[:-1] + b"x"))
    monkeypatch.setattr(encodings, "DATA", tmp_path)
    with pytest.raises(CorruptEncoding, match="does not match"):
        TokenCounter("cl100k_base").count_text("hello")


def test_a_preloaded_encoding_is_built_once_and_counts_the_same(no_network):
    counter = TokenCounter("o200k_base")
    counter.preload()  # a thread builds it; counting meanwhile waits for that one instead of building another
    assert counter.count_text("hello world") == 2
    assert get_encoding.cache_info().misses == 1
