"""Masking throughput: `Redactor.text` over 1 MB and 10 MB of words with five secrets (10x the text should take
~10x the time, never 100x); over 1 MB of one repeated letter (a server chooses its text: the worst shape for a
substring test per form; with these five secrets 49 ms before the Aho-Corasick automaton, 19 ms with it, and with
the hostile harness's 75 forms 142 ms against 4 ms); over 10 MB made of a secret, whole (repeated) and cut (its
pieces of 12 with text between: every character in a run of pieces, the worst text for the pieces' search, which
takes a step in Python per run), each as a ratio to 10 MB of words; fifty passes over a long clean text (the digest
answers: no scan); and registering six keys and three RS256 JWTs one by one, as an OAuth review does (the pieces'
trie, in MB).

    .venv/bin/python bench/redact.py

The suite (tests/unit/test_secret_forms.py, test_secret_pieces.py) checks what is masked and that a clean text is
not scanned again; the times are here, where a loaded machine cannot fail a test.
"""

from __future__ import annotations

import random
import secrets as tokens
import string
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mcp_review.redact import Redactor
from tests.unit.test_secret_forms import SECRET, forms

SECRETS = [SECRET, "sk-" + "9f8e7d6c" * 5, "key-" + "01ab" * 8, "bt-" + "cd23" * 8, "hk-" + "77aa" * 8]


def best(text: str, runs: int = 3) -> float:
    """The best of `runs`, each with a new redactor (a clean long text is remembered): a busy machine slows one
    run, not the algorithm."""
    times = []
    for _ in range(runs):
        redactor = Redactor(SECRETS)
        started = time.perf_counter()
        redactor.text(text)
        times.append(time.perf_counter() - started)
    return min(times)


def jwts(count: int) -> list[str]:
    import jwt
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    claims = {"iss": "https://issuer.example", "aud": "https://server.example/mcp", "sub": "reviewer", "exp": 2}
    return [jwt.encode({**claims, "jti": tokens.token_hex(8)}, key, algorithm="RS256") for _ in range(count)]


def main() -> None:
    rng = random.Random(7)
    words = ["".join(rng.choices(string.ascii_letters + string.digits, k=rng.randint(1, 10))) for _ in range(4000)]
    big = " ".join(rng.choices(words, k=1_800_000))[:10_000_000] + " " + " ".join(forms(SECRET).values())
    small_s, big_s = best(big[-1_000_000:]), best(big)
    print(f"masked 1 MB in {small_s:.3f} s, 10 MB in {big_s:.3f} s: {big_s / small_s:.1f}x for 10x the text")
    times = []
    for letter in string.ascii_lowercase:  # a new text each time: a clean long text is remembered (no scan)
        redactor, repeated = Redactor(SECRETS), letter * 1_000_000
        started = time.perf_counter()
        redactor.text(repeated)
        times.append(time.perf_counter() - started)
    print(f"1 MB of one repeated letter, five secrets: {max(times):.4f} s for the slowest letter")
    key = "ghp_" + tokens.token_hex(18)  # random, as keys are (SECRET repeats itself: each piece is in two places)
    SECRETS.append(key)
    cut = " and ".join(key[i : i + 12] for i in range(0, len(key), 12))
    for what, text in (("the secret repeated", key * (10_000_000 // len(key))), ("its pieces", cut * 250_000)):
        took = best(text[:10_000_000], 1)
        print(f"10 MB of {what}: {took:.3f} s, {took / big_s:.1f}x 10 MB of words")
    clean = "D" * 900_000
    redactor = Redactor([SECRET])
    redactor.text(clean)
    started = time.perf_counter()
    for _ in range(50):
        redactor.text(clean)
    print(f"50 passes over a 900 KB clean text seen before: {time.perf_counter() - started:.4f} s")
    keys = [SECRET, key, "sk-" + tokens.token_hex(20), "key-" + tokens.token_hex(16), "svcpw-" + tokens.token_hex(12)]
    keys.append("bt-" + tokens.token_hex(16))
    for what, values in (("six keys", keys), ("six keys and three RS256 JWTs", keys + jwts(3))):
        started = time.perf_counter()
        redactor = Redactor()
        for value in values:
            redactor.add([value])
        took, size = time.perf_counter() - started, redactor.pieces_size()
        print(f"registering {what} one by one: {took:.3f} s, the pieces' trie {size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
