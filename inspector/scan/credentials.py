"""Leaked secrets: credentials (kind credential) and random-looking strings (kind high-entropy).

- credential: known formats (`formats`: vendors' key prefixes, PEM private keys; `detectors` adds detect-secrets'
  other vendor plugins), any value given to a name that says it is a secret, whatever the vendor: `api_key=…`,
  `secret: …`, `token = "…"`, JSON `"apiKey": "…"`, env style `FOO_SECRET=…`, `Admin Password: …`, "the admin
  password is …", `--api-key …`, ODBC `Pwd=…;`; also `Authorization:` headers, bearer tokens, passwords in URLs
  and `user:password@host`. A key-like value given to a service's label (`labelled`: "- Main API:
  api_prod_8a7b…", "Payment Gateway: pg_live_9i8u…", a JSON pair, a table's row) is a key: a value whose prefix
  names a live, production, staging or development environment (a test or sandbox one warns), a credential's own
  prefix (`sk_`, `key-`) before a random body, or a random token given to a service's name (API, gateway,
  service, webhook...) or listed under a heading that says keys; never one given to an identifier's label (id,
  commit, digest, customer, address...) or an object id (`pi_3Mtw…`, `cus_Nffr…`). A live or secret prefix
  (`pg_live_…`) is a key without a label too. The value decides (`values`): placeholders,
  paths, names and prose are not secrets; a password is any other value, another secret must look random.
  Never credentials: pagination and counting tokens (`nextPageToken`, `max_tokens`), and the shell's working
  directory `PWD` (on its own, outside a `;`-separated connection string); the other shell, locale and
  directory variables (OLDPWD, HOME, PATH, SHELL, LANG, TMPDIR, XDG_*) are no secret's name, and their values
  are paths or words. Keys a vendor publishes as examples (`detectors.DOCUMENTED`, matched exactly) are not
  leaks and give no hit; a key merely spelled `…EXAMPLE…` is judged like any other.
- high-entropy (`warn`): near a word that names a secret (key, token, secret, password, auth, session, cookie,
  signature, private; within 60 characters before it on its line, or 20 after), a run of >= 24 base64/base64url
  characters with letters and digits whose Shannon entropy reaches min(0.85 * log2(length), 4.5) bits per
  character (`entropy`), which is not word-like. Ignored as identifiers: UUIDs and hex-only strings (commit
  SHAs, digests; a hex key is still caught when it is given to a secret's name), paths, the payload of a
  `base64,` data URL (an image), documented examples, and anything inside a URL (doc links, slugs; secrets in
  URLs are caught by the credential rules).

Why our own format patterns beside detect-secrets': they know newer formats (OpenAI `sk-proj-`, Anthropic
`sk-ant-`, GitHub `github_pat_`, Google, Hugging Face, and the others `formats` lists) and tell a Stripe test key
(`warn`) from a live one;
detect-secrets' JWT check (the header and payload must decode to JSON) confirms a JWT, and its keyword list
and value filters are merged into ours (`values`).
"""

from __future__ import annotations

import re
from functools import cache

from mcp_review.entropy import entropy, entropy_threshold, randomish, wordiness
from mcp_review.scan.detectors import DOCUMENTED
from mcp_review.scan.formats import ENVIRONMENT_KEY, ENVIRONMENT_NEEDLES, FORMATS, NEEDLES
from mcp_review.scan.rules import URL_RE, Raw, identifier_words, masked, rx, snip, word_set
from mcp_review.scan.values import path_like, placeholder, random_token, secret_value

_PEM = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
    r"(?:(?P<body>[\sA-Za-z0-9+/=:,-]{0,20000}?)-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----)?"
)
# Names that say a value is a secret (each word joined by `_`, `-`, `.`, a space or a case change), with
# detect-secrets' KeywordDetector names added (`_assignment`). Password names take any non-placeholder value.
_SEPARATOR = r"[_ .-]?"
_PASSWORD_NAMES = ("password", "passwd", "passphrase", "pwd")
_SECRET_NAMES = (
    "api key",
    "api secret",
    "api token",
    "secret access key",
    "access key id",
    "access key",
    "secret key",
    "client secret",
    "app secret",
    "auth token",
    "access token",
    "refresh token",
    "id token",
    "bearer token",
    "session token",
    "private key",
    "signing key",
    "encryption key",
    "master key",
    "secret",
    "token",
    "credentials",
    "credential",
)
# The word before `token` (or another name) that makes it no secret: a pagination cursor, a count.
_NOT_SECRET_BEFORE = re.compile(
    r"next|page|continuation|pagination|cursor|sync|resume|max|min|total|num|prompt|input|output|completion"
    r"|cancel|cancellation|idempotency"
)
_VALUE = (
    r"(?:\"(?P<v1>[^\"\n]{1,200})\"|'(?P<v2>[^'\n]{1,200})'|`(?P<v4>[^`\n]{1,200})`"
    r"|(?P<v3>[^\s\"'`,;)}\]]{1,200}))"
)
_FORMAT_PLACEHOLDER = re.compile(r"x{4,}|X{4,}|\.\.\.|…|your|YOUR|<|\{|0{8,}|1234567890|abcdefghij", re.I)
_IDENTIFIER_TAIL = re.compile(r"[A-Za-z0-9_.-]{0,60}\Z")
_AUTH_HEADER = rx(
    r"\b(?:proxy-)?authorization\s*[\"']?\s*[:=]\s*[\"']?(?:bearer|basic|token|bot)\s+(?P<v3>[A-Za-z0-9._~+/=-]{8,})"
)
_BEARER = rx(r"\bbearer\s+(?P<v3>[A-Za-z0-9._~+/-]{20,}=*)")
_URL_PASSWORD = rx(r"\b[a-z][a-z0-9+.-]{1,20}://(?P<user>[^\s/:@]{1,64}):(?P<v3>[^\s/@]{3,128})@[\w.-]+")
# The same without a scheme, as ssh, scp, rsync and mysql's prompts print it: `root:Toor2024!@10.0.0.5`.
_HOST_PASSWORD = rx(
    r"(?<![\w/:@.-])(?P<user>[a-z_][\w.-]{0,31}):(?P<v3>[^\s:@/]{4,64})@(?:\d{1,3}(?:\.\d{1,3}){3}|[a-z0-9-]+(?:\.[a-z0-9-]+)+)"
    r"(?![\w-])"
)
# Passwords in URLs that dev defaults use (`postgres:postgres`, `guest:guest`); `user:pass` is a placeholder.
_DEFAULT_PASSWORDS = re.compile(r"guest|postgres|root|admin|baz|qux", re.I)
_SECRET_WORD = rx(r"key|secret|token|passw|pwd|auth|credential|bearer|session|cookie|signature|private")
_TOKEN = re.compile(r"(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_=-]{24,}(?![A-Za-z0-9+/_=-])")
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
_HEX = re.compile(r"^(?:[0-9a-f]+|[0-9A-F]+)$")


def _names(words: set[str]) -> str:
    return "|".join(w.replace(" ", _SEPARATOR) for w in sorted(words, key=lambda w: (-len(w), w)))  # longest first


_OF_WHAT = r"[ \t]+(?:for|of|on)[ \t]+(?:the[ \t]+)?[\w-]{1,30}(?:[ \t]+[\w-]{1,30}){0,2}"  # "password for the box is"


@cache
def _assignment() -> re.Pattern[str]:
    """A secret's name at the start of an identifier word (after a non-letter or at a case change: `dbPassword`),
    ending one (`api_key_id` is no key), then `=`, `:`, `=>`, `->`, `:=`, "is" ("the root password for the staging box
    is …"; or a space after `--name`), then its value."""
    from detect_secrets.plugins.keyword import DENYLIST  # the names detect-secrets treats as secret

    extra = [d.replace("_?", " ") for d in DENYLIST]
    passwords = {*_PASSWORD_NAMES, *(d for d in extra if re.search("pass|pwd|contras", d))}
    secrets = {*_SECRET_NAMES, *extra} - passwords
    return rx(
        r"(?:(?P<flag>(?<![A-Za-z0-9-])--(?:[A-Za-z0-9]+[_-])*)|(?<![A-Za-z0-9])|(?-i:(?<=[a-z0-9])(?=[A-Z])))"
        rf"(?:(?P<password>{_names(passwords)})|(?P<secret>{_names(secrets)}))(?![A-Za-z0-9])"
        rf"[\"'\]]{{0,2}}(?:\s*(?:=>|->|:=|=|:)|(?:{_OF_WHAT})?[ \t]+(?:is|was)\b[ \t]*:?|(?(flag)[ \t]+|(?!)))"
        rf"\s*{_VALUE}"
    )


def _value(m: re.Match[str]) -> tuple[str, bool]:
    groups = m.groupdict()
    quoted = groups.get("v1") or groups.get("v2") or groups.get("v4")
    return (quoted or groups.get("v3") or ""), quoted is not None


def _value_start(m: re.Match[str]) -> int:
    return next(m.start(g) for g in ("v1", "v2", "v4", "v3") if m.group(g) is not None)


def _assigned(m: re.Match[str], text: str) -> str | None:
    """The name a real secret is given to, or None: a placeholder, path, name or prose value, a pagination token, a
    documented example, the working directory `PWD`, code that fetches the secret."""
    from detect_secrets.filters import heuristic  # its filter for `secret = get_secret()` lines

    group = "password" if m.group("password") else "secret"
    name, start = m.group(group), m.start(group)
    key = (_IDENTIFIER_TAIL.search(text, max(0, start - 60), start).group() + name).lstrip("-")  # type: ignore[union-attr]
    words = identifier_words(key)
    before = words[: -len(identifier_words(name))]
    if before and _NOT_SECRET_BEFORE.fullmatch(before[-1]):
        return None
    value, quoted = _value(m)
    if value in DOCUMENTED:
        return None
    if key.upper() == "PWD" and not _connection_string(text, m):
        return None  # the shell's working directory; `Uid=sa;Pwd=…;` is a password
    line = text[start : start + 1001].partition("\n")[0]  # detect-secrets skips lines over 1,000 characters
    if heuristic.is_indirect_reference(line):
        return None  # `password = getpass()`, `token = request.headers["X"]`: code that fetches a secret
    if not secret_value(value if quoted else value.rstrip(".:"), password=bool(m.group("password"))):
        return None
    return key


def _connection_string(text: str, m: re.Match[str]) -> bool:
    """`m` sits in a `key=value;` list (ODBC, ADO.NET)."""
    return text[max(0, m.start() - 2) : m.start()].strip().endswith(";") or text[m.end() : m.end() + 1] == ";"


def _url_password(m: re.Match[str]) -> bool:
    """A URL's password that is not a placeholder, a documented default or its user's name repeated."""
    user, password = m.group("user"), m.group("v3")
    return not (placeholder(password) or _DEFAULT_PASSWORDS.fullmatch(password) or password == user)


def _formats(view: str) -> list[Raw]:
    raw: list[Raw] = []
    for pattern, severity, what in FORMATS:
        for m in pattern.finditer(view):
            token = m.group()
            if _FORMAT_PLACEHOLDER.search(token[4:]) or len(set(token)) < 8 or token in DOCUMENTED:
                continue
            if what.startswith("an OpenAI") and not randomish(token.split("-", 2)[-1]):
                continue  # "sk-learn-compatible-..." is a word, not a key
            if what.startswith("a JWT") and not _jwt(token):
                continue
            raw.append(("credential", severity, m.start(), m.end(), f"looks like {what}: '{masked(token)}'"))
    return raw


def _jwt(token: str) -> bool:
    from detect_secrets.plugins.jwt import JwtTokenDetector  # header and payload must decode to JSON

    return bool(JwtTokenDetector.is_formally_valid(token.rstrip(".")))


def credentials(view: str, lowered: str) -> list[Raw]:
    """Known key formats, PEM private keys, values given to secrets' names, Authorization headers, URL passwords."""
    raw: list[Raw] = _formats(view) if NEEDLES.search(lowered) else []
    if "private key" in lowered:
        for m in _PEM.finditer(view):
            material = len(re.findall(r"[A-Za-z0-9+/=]", m.group("body") or ""))
            if material >= 64:
                raw.append(("credential", "fail", m.start(), m.end(), "a PEM private key, key material included"))
            else:
                raw.append(("credential", "warn", m.start(), m.end(), "a PEM private-key header (no key material)"))
    if any(n in lowered for n in ("key", "secret", "token", "pass", "pwd", "credential", "contras")):
        known = [(h[2], h[3]) for h in raw]
        for m in _assignment().finditer(view):
            key = _assigned(m, view)
            if key is not None and not any(a < m.end() and _value_start(m) < b for a, b in known):
                raw.append(("credential", "fail", m.start(), m.end(), f"credential assigned to '{snip(key, 30)}'"))
    if "authorization" in lowered:
        for m in _AUTH_HEADER.finditer(view):
            if secret_value(m.group("v3"), password=True) and m.group("v3") not in DOCUMENTED:
                raw.append(("credential", "fail", m.start(), m.end(), "a credential in an Authorization header"))
    if "bearer" in lowered:
        for m in _BEARER.finditer(view):
            if secret_value(m.group("v3"), password=False) and m.group("v3") not in DOCUMENTED:
                raw.append(("credential", "fail", m.start(), m.end(), "a bearer token"))
    if "://" in view:
        for m in _URL_PASSWORD.finditer(view):
            if _url_password(m):
                raw.append(("credential", "fail", m.start(), m.end(), "a password embedded in a URL"))
    if "@" in view:
        for m in _HOST_PASSWORD.finditer(view):
            if _url_password(m) and secret_value(m.group("v3"), password=True):
                raw.append(("credential", "fail", m.start(), m.end(), "a password given with its user and host"))
    return raw


# A label, then a key-like value, on a line of its own, as a JSON pair or in a table's row: "- Main API:
# api_prod_8a7b6c5d4e3f2g1h", "Payment Gateway = pg_live_9i8u…", `"analytics": "as_prod_…"`, "| Main API | api_… |".
# The label is a service's name, not a secret's.
_LABELLED = re.compile(
    r"^[ \t]*(?:[-*+\u2022>]+[ \t]*|\d{1,3}[.)][ \t]*)?[\"'`]?(?P<label>[A-Za-z][\w ()/&.-]{0,40}?)[\"'`]?[ \t]*"
    r"(?:=>|->|\u2192|[:=])[ \t]*[\"'`]?(?P<value>[A-Za-z0-9][A-Za-z0-9_+/=.-]{11,200}?)[\"'`]?[ \t]*[,;]?[ \t]*$"
    r"|\"(?P<key>[^\"\n]{1,40})\"\s*:\s*\"(?P<quoted>[A-Za-z0-9][A-Za-z0-9_+/=.-]{11,200})\""
    r"|^[ \t]*\|?[ \t]*(?P<row>[A-Za-z][^|\n]{0,40}?)[ \t]*\|(?:[^|\n]{0,40}\|){0,3}?[ \t]*`?"
    r"(?P<cell>[A-Za-z0-9][A-Za-z0-9_+/=.-]{11,200}?)`?[ \t]*(?:\||$)",
    re.M,
)
_PAIRS = (("label", "value"), ("key", "quoted"), ("row", "cell"))  # (label, value) groups of each form
# Labels that name an identifier, a digest or a public value, whose random-looking value is no secret.
_ID_LABELS = word_set(
    "id ids identifier hash digest checksum sha sha1 sha256 sha512 md5 etag version commit build trace span request "
    "order invoice customer transaction tracking uuid guid serial ref reference nonce salt address wallet mint "
    "contract image container pod node cursor page revision rev run job task user username name email file path url "
    "uri host region zone date time model color colour sku public publishable pk fingerprint signature thumbprint "
    "tag branch sha256sum integrity"
)
# Labels that say a service: a random value given to one is its key.
_SERVICE_LABELS = word_set(
    "api apis gateway service services auth access webhook client database db login admin root smtp ftp ssh vault "
    "prod production live staging dev payment payments analytics stripe aws gcp azure openai anthropic github slack "
    "twilio sendgrid"
)
# Labels that name a secret: `_assigned` has judged their values (a pagination `next_token` is none).
_SECRET_LABELS = word_set(
    "key keys secret secrets token tokens password passwords passwd pwd pass passphrase credential credentials"
)
# A credential's own prefix on a labelled value: `sk_…`, `key-…`, `tok_…`.
_KEY_PREFIX = re.compile(
    r"(?:sk|rk|key|tok|token|pat|secret|api|apikey|ak|sec|auth|bearer|access)[_-](?P<body>.+)", re.I
)
_KEYISH = re.compile(r"(?<![A-Za-z0-9_+/=.-])(?=[A-Za-z0-9_+/=.-]{12})[A-Za-z_+/=.-]*\d")
_OBJECT_ID = re.compile(r"[a-z]{1,8}_[A-Za-z0-9]{8,}")
# A heading or line before the values that says they are keys: "SYSTEM API KEYS", "Credentials:".
_KEYS_HEADING = rx(r"\b(?:api[\s_-]*keys?|credentials?|secrets?|tokens?|passwords?|access[\s_-]+keys?)\b")
# Environments that name a deployment whose keys matter only when a label or a heading says they are keys.
_NAMED_ENVIRONMENTS = re.compile(r"[_-](?:prod|production|dev|development|staging|stage)[_-]$", re.I)


def _environment_key(value: str) -> tuple[str, str] | None:
    """(severity, what) when `value` is a key named by its environment (`formats.ENVIRONMENT_KEY`), its body random."""
    m = ENVIRONMENT_KEY.fullmatch(value)
    if m is None or not randomish(m.group("body")):
        return None
    env = m.group("env").lower()
    return ("warn" if env in ("test", "sandbox") else "fail"), f"a {env} key ('{m.group('prefix')}')"


def _key_like(label: str, value: str, heading: bool) -> tuple[str, str] | None:
    """(severity, what) when `value`, given to the service `label`, is a key."""
    words = set(identifier_words(label))
    if words & (_ID_LABELS | _SECRET_LABELS) or _ADDRESS_WORD.search(label):
        return None
    if value in DOCUMENTED or placeholder(value) or path_like(value) or "://" in value:
        return None
    found = _environment_key(value)
    if found:
        return found
    prefixed = _KEY_PREFIX.fullmatch(value)
    if prefixed and randomish(prefixed.group("body")):
        return "fail", "a prefixed key"
    if _OBJECT_ID.fullmatch(value):
        return None  # `pi_3MtwBwLk…`, `cus_Nffr…`: an object's id, its type as its prefix
    if len(value) >= 16 and random_token(value) and (words & _SERVICE_LABELS or heading):
        return "fail", "a random token"
    return None


def labelled(view: str, taken: list[tuple[int, int]]) -> list[Raw]:
    """Key-like values given to a service's label (`Main API: api_prod_…`), and keys named by their environment
    anywhere (`pg_live_…`); outside the `taken` spans (what the other credential rules found)."""
    raw: list[Raw] = []
    if not _KEYISH.search(view):
        return raw  # no run of 12 key characters with a digit in it: no key to judge
    heading = _KEYS_HEADING.search(view)
    for m in _LABELLED.finditer(view):
        named, given = next(pair for pair in _PAIRS if m.group(pair[1]))
        label, value, start = m.group(named), m.group(given), m.start(given)
        if any(a < start + len(value) and start < b for a, b in taken):
            continue
        found = _key_like(label, value, heading is not None and heading.start() < m.start())
        if found:
            severity, what = found
            message = f"{what} given to '{snip(label.strip(), 30)}': '{masked(value)}'"
            raw.append(("credential", severity, m.start(), start + len(value), message))
            taken.append((start, start + len(value)))
    if ENVIRONMENT_NEEDLES.search(view.lower()):
        for m in ENVIRONMENT_KEY.finditer(view):
            found = _environment_key(m.group())
            if found is None or _NAMED_ENVIRONMENTS.search(m.group("prefix")) or m.group() in DOCUMENTED:
                continue  # `db_prod_…` alone may be a resource's name; under a label it is judged above
            if not any(a < m.end() and m.start() < b for a, b in taken):
                raw.append(
                    ("credential", found[0], m.start(), m.end(), f"looks like {found[1]}: '{masked(m.group())}'")
                )
    return raw


# A crypto token's or a public key's address: "tokenAddress", "token mint", "wallet", "contract", "pubkey".
_ADDRESS_WORD = rx(
    r"token[\s_-]?(?:mint|account|address|contract|program|id)|\b(?:mint|wallet|contract|program|pubkey|address"
    r"|solana|ethereum|erc-?20|spl)\b|public[\s_-]?key"
)


def _named_near(view: str, start: int, end: int) -> bool:
    """A word naming a secret within 60 characters before the token on its line, or 20 after it; "token" or "key"
    next to a word that makes it a crypto token's or a public key's address names none."""
    line_start = view.rfind("\n", 0, start) + 1
    line_end = view.find("\n", end)
    near = (
        view[max(line_start, start - 60) : start]
        + " "
        + view[end : min(end + 20, len(view) if line_end < 0 else line_end)]
    )
    named = {m.group().lower() for m in _SECRET_WORD.finditer(near)}
    if named <= {"token", "key"} and _ADDRESS_WORD.search(near):
        return False
    return bool(named)


def high_entropy(view: str, taken: list[tuple[int, int]]) -> list[Raw]:
    """Random-looking tokens outside URLs and outside the `taken` spans (what the credential rules found)."""
    raw: list[Raw] = []
    urls = [(m.start(), m.end()) for m in URL_RE.finditer(view)] if "://" in view else []
    for m in _TOKEN.finditer(view):
        token, s, e = m.group(), m.start(), m.end()
        if not _named_near(view, s, e):
            continue  # ids, hashes and cursors are random too; a secret comes with a word that names it
        if _HEX.match(token) or _UUID.match(token) or token in DOCUMENTED or path_like(token):
            continue
        if view[max(0, s - 7) : s] == "base64," or any(a < e and s < b for a, b in urls + taken):
            continue  # a data URL's payload (an image) is random, and no secret
        if not (any(c.isdigit() for c in token) and any(c.isalpha() for c in token)):
            continue
        h = entropy(token)
        if h >= entropy_threshold(len(token)) and wordiness(token) < 0.5:
            message = f"random-looking {len(token)}-character string ({h:.1f} bits/char): a secret?"
            raw.append(("high-entropy", "warn", s, e, message))
    return raw
