"""Masking catches what a server can compute from a secret it knows, in one pass linear in the text's size."""

from __future__ import annotations

import base64
import codecs
import random
import string
import urllib.parse

import pytest

from mcp_review.redact import MASK, Redactor
from mcp_review.secret_forms import PIECE

SECRET = "ghp_" + "0123456789abcdefXYZ" * 2


def forms(secret: str) -> dict[str, str]:
    raw = secret.encode()
    return {
        "reversed": secret[::-1],
        "rot13": codecs.encode(secret, "rot13"),
        "rot13 reversed": codecs.encode(secret[::-1], "rot13"),
        "swapcase": secret.swapcase(),
        "base32": base64.b32encode(raw).decode(),
        "base32 lower": base64.b32encode(raw).decode().lower(),
        "base32 inside": base64.b32encode(b"id=" + raw + b";").decode(),
        "base64 upper": base64.b64encode(raw).decode().upper(),
        "base64 inside": base64.b64encode(b"u:" + raw).decode(),
        "hex upper": raw.hex().upper(),
        "hex spaced": " ".join(f"{b:02x}" for b in raw),
        "spaced": " ".join(secret),
        "dashed": "-".join(secret),
        "one per line": "\n".join(secret),
        "reversed spaced": ". ".join(secret[::-1]),
        "utf-16le hex": secret.encode("utf-16-le").hex(),
        "utf-16be hex": secret.encode("utf-16-be").hex().upper(),
        "url-encoded": "".join(f"%{b:02X}" for b in raw),
        "quoted": urllib.parse.quote(secret, safe=""),
    }


def test_every_computed_form_is_masked():
    redactor = Redactor([SECRET])
    for name, form in forms(SECRET).items():
        text = f"before {form} after"
        assert redactor.needed(text), name
        masked = redactor.text(text)
        assert form not in masked and MASK in masked, (name, masked)
        assert masked.startswith("before ") and masked.endswith(" after"), (name, masked)


def test_in_a_text_of_other_scripts_long_or_short_every_form_is_found_where_it_is():
    """A text is searched for spelled-out forms in its letters and digits first, and text that is not ASCII is
    lowered as UTF-8 bytes: neither may lose a form or move what is masked (spans map back to the text), in a
    long text as in a short one."""
    redactor = Redactor([SECRET])
    for filler in ("Überprüfung \ud800 数据 ÉTAT " * 300, "数据 \ud800 "):  # not ASCII, a lone surrogate
        _found_in_place(redactor, filler)


def _found_in_place(redactor: Redactor, filler: str) -> None:
    for name, form in forms(SECRET).items():
        text = f"{filler}before {form} after{filler}"
        assert redactor.needed(text), name
        masked = redactor.text(text)
        assert form not in masked and MASK in masked, name
        assert masked.startswith(filler + "before ") and masked.endswith(" after" + filler), name
    near = filler + SECRET[:9] + " " + SECRET[20:29][::-1] + " " + " ".join(SECRET[:-1]) + filler
    assert not redactor.needed(near) and redactor.text(near) == near


def test_ordinary_text_is_left_alone():
    """Look-alikes: the label and a few characters, the secret spelled out but for one character, pieces shorter
    than a piece (`secret_forms.PIECE`: 9 characters, forwards and backwards)."""
    redactor = Redactor([SECRET, "sk-" + "a1b2c3d4" * 5])
    for text in ("ghp_ and 0123 and abc", "G H P _ 0 1 2 3", "012345678", SECRET[:9] + " " + SECRET[20:29][::-1]):
        assert not redactor.needed(text) and redactor.text(text) == text, text
    short = Redactor(["abcd"])  # a short secret is masked as is, not in forms that ordinary words would match
    assert short.text("d c b a, dcba, nopq") == "d c b a, dcba, nopq" and short.text("x abcd y") == f"x {MASK} y"


def cut(secret: str) -> list[str]:
    """A secret in halves, in thirds, and in pieces of 12 with other text between."""
    half, third = len(secret) // 2, len(secret) // 3
    pieces = [secret[:half], secret[half:], secret[:third], secret[third : 2 * third], secret[2 * third :]]
    return [*pieces, " and ".join(secret[i : i + 12] for i in range(0, len(secret), 12))]


@pytest.mark.slow
def test_ten_megabytes_are_masked():
    """Every form of a secret, and its pieces, are masked at the end of 10 MB of words (bench/redact.py times it:
    linear)."""
    secrets = [SECRET, "sk-" + "9f8e7d6c" * 5, "key-" + "01ab" * 8, "bt-" + "cd23" * 8, "hk-" + "77aa" * 8]
    rng = random.Random(7)
    words = ["".join(rng.choices(string.ascii_letters + string.digits, k=rng.randint(1, 10))) for _ in range(4000)]
    big = " ".join(rng.choices(words, k=1_800_000))[:10_000_000] + " " + " ".join(forms(SECRET).values())
    masked = Redactor(secrets).text(big + " | " + " | ".join(cut(SECRET)))
    assert not any(form in masked for form in forms(SECRET).values())
    low, key = masked.lower(), SECRET.lower()
    assert not any(key[i : i + PIECE] in low for i in range(len(key) - PIECE + 1))
    assert masked.startswith(big[:1000]) and masked.endswith(f" and {SECRET[36:]}")  # 6 characters: no piece


def test_a_long_clean_text_is_scanned_once_and_again_after_a_new_secret():
    redactor = Redactor([SECRET])
    later = "sk-" + "5a4b3c2d" * 5
    text = "D" * 900_000 + " " + later[::-1]
    assert redactor.text(text) is text and not redactor.needed(text)
    scans = []  # the digest answers: the forms are not searched for again (bench/redact.py times it)
    search = redactor._found
    redactor._found = lambda low: scans.append(len(low)) or search(low)  # type: ignore[method-assign]
    for _ in range(50):
        assert redactor.text(text) is text
    assert scans == []
    redactor.add([later])
    assert redactor.needed(text) and redactor.text(text).endswith(f" {MASK}")
