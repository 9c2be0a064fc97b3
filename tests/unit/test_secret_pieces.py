"""A secret a server cuts is masked piece by piece (`secret_forms.PIECE` characters of its key or more, in its literal
forms too, the longest run as one mask), and nothing else is: the label and a few characters, another key of the
same kind, words, prose, code, random hex, values that are no random key (paths, URLs, passphrases), a JWT's header.
Secrets whose key is shorter than 12 characters are masked whole only."""

from __future__ import annotations

import base64
import codecs
import json
import random
import re
import string

import pytest

from mcp_review.redact import MASK, Redactor
from mcp_review.secret_forms import KEYED, PIECE, key_part, piece_forms
from mcp_review.untrusted import parse_message

_RNG = random.Random(35)
KEY = "svcpw-" + "9f3a1c7e5b2d48a6c0e1f7b3"  # 30 characters: its thirds are PIECE each, its halves 15
TOKEN = "ghp_" + "".join(_RNG.choices(string.ascii_letters + string.digits, k=36))
PAT = "github_pat_11" + "".join(_RNG.choices(string.ascii_uppercase + string.digits, k=22)) + "_" + "x7" * 20


def left(masked: str, secret: str, label: str = "") -> list[str]:
    """The runs of PIECE characters of `secret` (any case, forwards or backwards) still in `masked`, but for those
    that hold fewer than KEYED characters past its `label` (the kind of key, not the key)."""
    low, s = masked.lower(), secret[max(0, len(label) - (PIECE - KEYED)) :].lower()
    return [w for form in (s, s[::-1]) for i in range(len(form) - PIECE + 1) if (w := form[i : i + PIECE]) in low]


def cuts(secret: str) -> dict[str, str]:
    half, third = len(secret) // 2, len(secret) // 3
    thirds = [secret[:third], secret[third : 2 * third], secret[2 * third :]]
    return {
        "halves": f"h_{secret[:half]} and h2_{secret[half:]}",
        "thirds out of order": f"t3_{thirds[2]}, then t1_{thirds[0]}, then t2_{thirds[1]}",
        "pieces with text between": " and then ".join(secret[i : i + 12] for i in range(0, len(secret), 12)),
        "halves swapped, no space": f"{secret[half:]}{secret[:half]}",
        "a piece of exactly PIECE": f"id {secret[-PIECE:]} ok",
    }


@pytest.mark.parametrize(("secret", "label"), [(KEY, "svcpw-"), (TOKEN, "ghp_"), (PAT, "github_pat_")])
def test_halves_thirds_and_pieces_with_text_between_are_masked(secret, label):
    redactor = Redactor([secret])
    for name, text in cuts(secret).items():
        masked = redactor.text(text)
        assert redactor.needed(text) and MASK in masked and not left(masked, secret, label), (name, masked)
    masked = redactor.text(cuts(secret)["pieces with text between"])
    assert masked.count(" and then ") == len(secret[::12]) - 1, masked  # the text between is kept


def test_two_secrets_interleaved_piece_by_piece_are_both_masked():
    one, other = [KEY[i : i + 12] for i in range(0, 30, 12)], [TOKEN[i : i + 12] for i in range(0, 40, 12)]
    text = " ~ ".join(p for pair in zip(one, other, strict=False) for p in pair) + " ~ " + other[-1]
    masked = Redactor([KEY, TOKEN]).text(text)
    assert not left(masked, KEY) and not left(masked, TOKEN), masked
    assert masked.startswith(f"{MASK} ~ {MASK} ~ "), masked


def transformed(piece: str) -> dict[str, str]:
    raw = piece.encode()
    return {
        "reversed": piece[::-1],
        "rot13": codecs.encode(piece, "rot13"),
        "upper": piece.upper(),
        "base64": base64.b64encode(raw).decode(),
        "base64 url-safe": base64.urlsafe_b64encode(b"x:" + raw).decode(),
        "base32": base64.b32encode(raw).decode(),
        "hex upper": raw.hex().upper(),
        "utf-16 hex": piece.encode("utf-16-le").hex(),
        "percent-encoded": "".join(f"%{b:02X}" for b in raw),
        "html references": "".join(f"&#{b};" for b in raw),
    }


@pytest.mark.parametrize("secret", [KEY, TOKEN])
def test_a_half_or_a_third_in_a_computed_form_is_masked(secret):
    redactor = Redactor([secret])
    half, third = len(secret) // 2, len(secret) // 3
    for piece in (secret[:half], secret[half:], secret[third : 2 * third + 2]):
        for name, form in transformed(piece).items():
            masked = redactor.text(f"before {form} after")
            assert form not in masked and MASK in masked, (name, piece, masked)
            assert masked.startswith("before ") and masked.endswith(" after"), (name, masked)


def test_a_half_behind_json_escapes_is_masked_at_the_wire():
    """Every character of a half escaped in the raw JSON: only a decoder sees it. The parsed value is masked, and
    so is a raw line (stderr) holding it, shown decoded."""
    redactor = Redactor([KEY])
    half = KEY[15:]
    escaped = "".join(f"\\u{ord(c):04x}" for c in half)
    parsed = parse_message('{"jsonrpc":"2.0","id":1,"result":{"text":"h2_' + escaped + '"}}', redactor)
    assert parsed.value["result"]["text"] == f"h2_{MASK}"
    assert redactor.needed(escaped) and not left(redactor.text(f"line {escaped}"), KEY)
    mixed = "h_" + KEY[:5] + "".join(f"\\x{ord(c):02x}" for c in KEY[5:10]) + KEY[10:15]  # runs of 5 between
    assert not left(redactor.text(mixed).encode().decode("unicode_escape"), KEY)


def test_the_longest_run_is_one_mask_and_the_text_around_it_stays():
    redactor = Redactor([KEY])
    assert redactor.text(f"prefix-{KEY[3:25]}-suffix") == f"prefix-{MASK}-suffix"
    assert redactor.text(f"[{KEY[1:]}]") == f"[{MASK}]"


def test_a_piece_of_piece_characters_is_masked_and_one_shorter_is_not():
    """The length chosen and justified in `secret_forms.PIECE`: 9 characters of a key say nothing about it."""
    redactor = Redactor([KEY, TOKEN])
    for secret in (KEY, TOKEN):
        for start in range(len(secret) - PIECE + 1):
            assert redactor.text(f"a {secret[start : start + PIECE]} b") == f"a {MASK} b", (secret, start)
            short = f"a {secret[start : start + PIECE - 1]} b"
            assert redactor.text(short) == short, (secret, start)


def test_look_alikes_stay():
    """A short common prefix and a few characters, another key of the same kind (the same 13-character label), words
    that share letters with a key, prose, code, and a megabyte of random hex."""
    other_pat = "github_pat_11" + "".join(_RNG.choices(string.ascii_uppercase + string.digits, k=22)) + "_" + "y8" * 20
    redactor = Redactor([KEY, TOKEN, PAT])
    hexdump = " ".join(_RNG.randbytes(16).hex() for _ in range(30_000))
    for text in (
        "set svcpw-9f3 in MCP_SERVICE_PASSWORD; svcpw- keys are 30 characters",
        f"another key of the kind: {other_pat}",
        "ghp_ tokens, github_pat_11 tokens and svcpw-... placeholders",
        "the service password (svcpw) is rotated weekly; fake: 9f3a-1c7e-5b2d",
        "def handler(event):\n    return {'statusCode': 200, 'body': json.dumps(event)}\n",
        hexdump,
    ):
        assert not redactor.needed(text) and redactor.text(text) is text, text[:200]


def test_values_that_are_no_random_key_are_masked_whole_only():
    """Any --env value of 8 characters or more is a secret: its pieces would be ordinary text (a home directory, a
    host and port, a word of a passphrase), so they are not masked, and a JWT's header and claims, which every
    token of its issuer shares the start of, are not pieces of it: its signature is."""
    header = base64.urlsafe_b64encode(json.dumps({"alg": "RS256", "typ": "JWT"}).encode()).decode().rstrip("=")
    claims = base64.urlsafe_b64encode(json.dumps({"iss": "https://id.example", "sub": "7"}).encode()).decode()
    jwt = f"{header}.{claims.rstrip('=')}.{''.join(_RNG.choices(string.ascii_letters + string.digits, k=43))}"
    values = ["/home/reviewer/projects/notes-server", "postgres://localhost:5432/notes", "correct-horse-battery-staple"]
    redactor = Redactor([*values, jwt])
    for value in values:
        assert key_part(value) is None and redactor.text(f"x {value} y") == f"x {MASK} y"
    for text in ("/home/reviewer/projects/other", "postgres://localhost:5432/other", "a correct-horse rider"):
        assert redactor.text(text) == text
    other_token = f"{header}.{claims.rstrip('=')}.{''.join(_RNG.choices(string.ascii_letters, k=43))}"
    assert redactor.text(other_token) == other_token
    assert redactor.text(f"sig {jwt[-25:]}") == f"sig {MASK}" and redactor.text(jwt) == MASK


def test_a_secret_whose_key_is_shorter_than_12_is_masked_whole_only():
    short = "svcpw-9f3a1c7e5b"  # a 10-character key
    redactor = Redactor([short])
    assert key_part(short) is None and redactor.text(f"x {short} y") == f"x {MASK} y"
    assert redactor.text(f"h_{short[:8]} h2_{short[8:]}") == f"h_{short[:8]} h2_{short[8:]}"


def test_runs_found_past_each_other_mask_what_a_piece_is_and_no_more():
    """Fragments of a key's forms (plain, reversed, rot13, hex, base64...) run together with other text, at random:
    what masking leaves holds no piece, and every character it masks is in a run of a form as long as a piece of
    that form (the search goes on past each run: a run of another form that began inside one shows less than a
    piece)."""
    rng = random.Random(8)
    redactor = Redactor([TOKEN])
    forms = {(form, need) for places in piece_forms(TOKEN).values() for form, _, need in places}
    windows = {form[i : i + need] for form, need in forms for i in range(len(form) - need + 1)}
    for _ in range(300):
        parts = []
        for _ in range(rng.randint(1, 8)):
            form, _ = rng.choice(sorted(forms))
            start = rng.randrange(len(form))
            noise = "".join(rng.choices(string.ascii_lowercase + " 0123456789", k=rng.randint(0, 6)))
            parts.append(form[start : start + rng.randint(0, 40)] if rng.random() < 0.6 else noise)
        text = "".join(parts)
        masked = redactor.text(text)
        assert not redactor.needed(masked), (text, masked)
        must = {i for w in windows for at in _finds(text, w) for i in range(at, at + len(w))}
        at = 0
        for kept in re.split("\0+", "".join("\0" if i in must else c for i, c in enumerate(text))):
            at = masked.find(kept, at)  # what is in no piece's run is all still there, in order
            assert at >= 0, (text, masked, kept)
            at += len(kept)


def _finds(text: str, word: str) -> list[int]:
    at, out = text.find(word), []
    while at >= 0:
        out.append(at)
        at = text.find(word, at + 1)
    return out
