"""Credentials judged by what they are (issue 20): known formats and any secret's name with a secret-looking value
fail; documented example keys, placeholders, paths, shell variables and random-looking identifiers do not."""

from __future__ import annotations

import base64
import json

import pytest

from mcp_review import surfaces
from mcp_review.scan import scan_text
from mcp_review.scan.detectors import DOCUMENTED
from mcp_review.scan.values import path_like, secret_value

HEX = "d41d8cd98f00b204e9800998ecf8427e"  # 32 hex characters
RANDOM = "q8Vb2Lm9Zt7Rk1Wc9Pn4Xs6Yd0Hf3Jg5"  # 32 base62 characters


def credentials(text: str) -> list[str]:
    """The severities of the credential hits in `text` (high-entropy ones are suggestions, counted apart)."""
    return [h.severity for h in scan_text(text) if h.kind == "credential"]


def flagged(text: str) -> list[str]:
    return [f"{h.severity} {h.kind}" for h in scan_text(text) if h.kind in ("credential", "high-entropy")]


LEAKS = [
    "The root password for the staging box is Tr0ub4dor&3, keep it handy.",  # words between the name and "is"
    "stripe_key: rk_live_51Jd8sKp2Lq9Xw3Mz7Vb4Nc6",
    # a secret's name with an unknown vendor prefix in the value (the env-name placeholder test swallowed these)
    f"Fetches the weather. Uses api_key=xk_{HEX} internally.",
    f"api_key=acme_live_{HEX}",
    f"api_key={HEX}",
    f"secret: {RANDOM}",
    f'token = "{RANDOM}"',
    f'{{"apiKey": "{HEX}"}}',
    f"ACME_SECRET={RANDOM}",
    f'{{"stripeSecretKey": "{RANDOM}"}}',
    f"API Key: acme_{HEX}",
    f"X-API-Key: {HEX}",
    f"run it as `acme --api-key {HEX}`",
    '"api_key": "550e8400-e29b-41d4-a716-446655440000"',  # UUID-shaped keys (Heroku) given to a key's name
    # passwords: chosen by people, so any non-placeholder value counts
    "Admin Password: super_secret_password123",
    "DB_PASSWORD=admin123",
    "connecting as app with password=Summer2024 to db.internal",  # a password is one, prose after it or not
    "Driver={ODBC Driver 18};Server=db;Uid=sa;Pwd=Sup3r$ecret9;",
    "Server=db;Database=app;User Id=app;Password=Pr0d-Sup3rS3cret!;",
    "MYSQL_PWD=Xq7vL2pR9t",
    "postgresql://dbuser:dbpass@localhost/production",
    "mysql+pymysql://root:Pr0d-Sup3rS3cret!@10.0.4.12:3306/billing",
    # formats
    "AKIA5EXAMPLE12345678",  # spelled like AWS's example, but not it: a key like any other
    "aws_access_key_id = AKIA4QZ7XN2LRPW6YH3M",
    "ghp_q8Zr2LmX9vB4nT7kW1pY5sD3fG6hJ0aE4c2N",
    "Authorization: Bearer sk_live_51NfQ2kLm9PzR8sT4vW6yB1cD3eF5gH7jK9mN0pQ2rS",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJib2IiLCJyb2xlIjoiYWRtaW4ifQ.c2lnbmF0dXJlLW5vdC1yZWFsLWF0LWFsbA",
    "-----BEGIN RSA PRIVATE KEY-----\n" + "MIIEowIBAAKCAQEA7" * 6 + "\n-----END RSA PRIVATE KEY-----",
    "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=" + "a" * 8 + "Zk39fQ2mPx81LwT7" * 5 + "==;",
]

BENIGN = [
    # the shell's working directory and its kin, as a JSON env dump (server-everything's get-env) and as KEY=value
    json.dumps({"PWD": "/usr/src/app", "OLDPWD": "/home/node", "HOME": "/root", "SHELL": "/bin/bash"}, indent=2),
    "PWD=/usr/src/app\nOLDPWD=/home/node\nLANG=C.UTF-8\nTMPDIR=/tmp\nXDG_RUNTIME_DIR=/run/user/1000",
    '{"PWD": "/workspace/project-2024"}',
    # paths given to secrets' names say where a secret is, not what it is
    '{"GOOGLE_APPLICATION_CREDENTIALS": "/home/u/.config/gcloud/application_default_credentials.json"}',
    "private_key: ~/.ssh/id_ed25519",
    "client_secret=C:\\keys\\client_secret_2024.json",
    "DB_PASSWORD=/run/secrets/db_password",
    # documented examples, exactly as their vendors publish them
    "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "Result: your key AKIAIOSFODNN7EXAMPLE (from the AWS docs) is not valid.",
    "STRIPE_SECRET_KEY=sk_test_4eC39HqLyjWDarjtT1zdp7dc",
    '{"token": "' + next(k for k in DOCUMENTED if k.startswith("eyJ")) + '"}',
    # placeholders
    "api_key=<your-key>",
    "api_key=xxxxxxxxxxxxxxxx",
    "token = ${GITHUB_TOKEN}",
    "password: changeme",
    'secret: "{{ vault_secret }}"',
    "API_KEY=YOUR_API_KEY_HERE",
    "password: ********",
    "postgresql://USER:PASSWORD@HOST:5432/DBNAME",
    "amqp://guest:guest@localhost:5672/",
    # names, words and prose given to secrets' names
    "password: my_password",
    '"secret": "jwt-signing-key"',
    "The token: expires hourly.",
    "Password: must be at least 12 characters.",
    "password = getpass.getpass()\ntoken = request.headers['X-Token']",
    "ansible_password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256",
    "authorization: `token secret123`",
    "login with user admin, password: P@ssw0rd!",
    "uri://foo:bar@example.com:1/path",
    # pagination and counting tokens
    '{"nextPageToken": "CAEQAhoGCgR0ZXN0IgZ0ZXN0MTI"}',
    'next_token = "AAB3cde9Fgh2Kx8Lq0Zr4Tw"',
    "max_tokens=4096",
    # identifiers that look random
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 (signed with key 3AA5C34371567BD2)",
    "request_id: 3f2b9c1e-8a7d-4e6f-9b0c-1d2e3f4a5b6c, session token rotated",
    '{"key": "avatar", "data": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"}',
    "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 (the key file's digest)",
]


@pytest.mark.parametrize("text", LEAKS)
def test_a_leaked_credential_fails(text):
    assert "fail" in credentials(text), scan_text(text)


@pytest.mark.parametrize("text", BENIGN)
def test_a_look_alike_is_no_credential(text):
    assert flagged(text) == [], scan_text(text)


@pytest.mark.parametrize("value", [RANDOM, HEX, f"xk_{HEX}", "/usr/src/app", "<your-key>", "changeme", "my_password"])
def test_quoting_does_not_change_the_judgement(value):
    """A JSON env dump (HTTP servers print their whole environment so) and KEY=value judged alike."""
    env_style = credentials(f"ACME_API_KEY={value}\nPWD={value}")
    json_style = credentials(json.dumps({"ACME_API_KEY": value, "PWD": value}))
    assert env_style == json_style


def test_the_working_directory_is_never_a_credential_whatever_its_value():
    assert credentials("PWD=/app") == credentials('"PWD": "/usr/src/app"') == credentials("PWD=Xq7vL2pR9t") == []
    assert credentials("Uid=sa;PWD=Xq7vL2pR9t;") == ["fail"]  # in a connection string it is a password


def test_only_the_published_example_is_an_example():
    assert credentials("AKIAIOSFODNN7EXAMPLE") == []
    assert credentials("AKIA5EXAMPLE12345678") == ["fail"]
    assert credentials("sk_test_4eC39HqLyjWDarjtT1zdp7dc") == []
    assert credentials("sk_test_51Hq2aZ8vR4mT7xK9pL3nB6cD") == ["warn"]  # another test key: suspicious, not a leak
    assert all("EXAMPLE" in k or k.startswith(("sk_test", "pk_test", "eyJ")) for k in DOCUMENTED)


def test_a_found_key_names_its_format_not_the_name_it_was_given():
    hit = next(h for h in scan_text("token: ghp_q8Zr2LmX9vB4nT7kW1pY5sD3fG6hJ0aE4c2N") if h.kind == "credential")
    assert "GitHub token" in hit.message and "ghp_q8Zr" in hit.quote


def test_a_jwt_must_decode():
    shaped = "eyJhbGciOiJIUzI1NiJ9x.eyJzdWIiOiJib2IiLCJyb2xlI.c2lnbmF0dXJl"  # header and payload are no JSON
    assert credentials(shaped) == []


def test_a_resource_named_credentials_is_read_and_its_keys_found():
    """What review.descriptions-grounded scans of a `resources/read` answer (`surfaces.contents`)."""
    leaky = {"contents": [{"uri": "internal://credentials", "text": f"API Key: acme_live_{HEX}\nregion: eu-west-1"}]}
    docs = {"contents": [{"uri": "internal://credentials", "text": "aws_access_key_id = AKIAIOSFODNN7EXAMPLE"}]}
    assert [s for said in surfaces.contents(leaky) for s in credentials(said.text)] == ["fail"]
    assert [s for said in surfaces.contents(docs) for s in credentials(said.text)] == []


def test_a_resource_read_as_bytes_is_decoded_and_scanned():
    blob = base64.b64encode(f"JWT_SECRET={RANDOM}\n".encode()).decode()
    said = list(surfaces.contents({"contents": [{"uri": "file:///srv/.env", "blob": blob}]}))
    assert [s.where for s in said] == ["contents[0].blob (decoded)"] and credentials(said[0].text) == ["fail"]
    binary = base64.b64encode(bytes(range(256))).decode()
    assert list(surfaces.contents({"contents": [{"uri": "file:///a.png", "blob": binary}]})) == []


@pytest.mark.parametrize(
    ("value", "password", "secret"),
    [
        ("/usr/src/app", True, False),
        ("~/.aws/credentials", False, False),
        ("/K7MDENGbPxRfiCY9x2LmQ4vT8wZ", False, True),  # base64 starting with / is no path
        ("admin123", True, True),
        ("admin123", False, False),  # a key must look random; a password need not
        ("hunter", True, False),
        (RANDOM, False, True),
        ("https://vault.example/v1/secret", False, False),
    ],
)
def test_value_judgement(value, password, secret):
    assert secret_value(value, password=password) is secret


def test_paths():
    assert path_like("/app") and path_like("C:\\keys\\a.pem") and path_like("$HOME/.netrc")
    assert not path_like("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")


@pytest.mark.parametrize(
    "text",
    [
        '{"tokenName": "USD Coin", "tokenAddress": "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", "decimals": 6}',
        "Token mint: So11111111111111111111111111111111111111112, token account: 9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM",
        "Wallet public key: 9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM",
    ],
)
def test_crypto_token_addresses_are_no_secrets(text):
    assert scan_text(text) == [], text


@pytest.mark.parametrize(
    ("text", "severity"),
    [
        ("SYSTEM API KEYS\n  - Main API: api_prod_8a7b6c5d4e3f2g1h", "fail"),  # a service label, a production key
        ("- Payment Gateway: pg_live_9i8u7y6t5r4e3w2q", "fail"),
        ("Analytics Service = as_prod_2p3o4i5u6y7t8r9e", "fail"),
        ('{"crm": "crm_prod_Qw3Er7Ty1Ui5Op9A"}', "fail"),
        ("| Billing API | production | bill_prod_7Hq2Xr9Lm4Kt8Vz3 |", "fail"),
        ("Main API: 8a7b6c5d4e3f2g1h9i8u", "fail"),  # no prefix: a random token given to a service
        ("Credentials:\n  Orders: 4f8Kq2Lm9Xz7Rt3Vb6Nw1Yp5", "fail"),  # under a heading that says keys
        ("Use rzp_live_Hq7Lm2Xr9Kt4Vz8B for the processor.", "fail"),  # a live prefix needs no label
        ("- Payment Gateway: pg_test_9i8u7y6t5r4e3w2q", "warn"),  # a test-mode key, as Stripe's
        ("whsec_9hQ2Lm7Xr4Kt8Vz3Nb6Wc1Yp5Df0Gj", "fail"),
        ("fallback lin_api_Xq7Lm2Kr9Tz4Vb8Nc3Wp6Yd1Hf5Jg0Sa2Qe7Ru4A", "fail"),
        ("the admin password is Zq8!vRt2Lp", "fail"),
        ("ssh deploy:Vt7!qLm2Rx@203.0.113.40", "fail"),
    ],
)
def test_keys_judged_by_what_they_are(text, severity):
    """Issue 37: a labelled key-like value, a live or production prefix, a vendor's prefix, a password stated in
    prose: each is a credential whatever the vendor or the framing."""
    found = [h.severity for h in scan_text(text) if h.kind == "credential"]
    assert found and found[0] == severity, (text, scan_text(text))


@pytest.mark.parametrize(
    "text",
    [
        "Customer: cus_NffrFeUfNV2Hib\nPayment intent: pi_3MtwBwLkdIwHu7ix28a3tqPa\nProduct: prod_NWjs8kKbJWmuuc",
        "Request ID: req_8a7b6c5d4e3f2g1h\nCommit: 3f9a2c7e1b8d4f6a9e0c1b2d3e4f5a6b7c8d9e0f",
        "| Artifact | SHA-256 |\n| app.tar.gz | 47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU= |",
        "- Main API: <your-api-key>\n- Payment Gateway: ${PAYMENT_GATEWAY_KEY}",
        "Buckets: logs_prod_archive, assets-staging-eu; clusters eks_prod_main",
        "The password is required; the token is valid for one hour.",
        "Reply-To: support:billing@example.com\nHost: git@github.com:org/repo.git",
        "next_token = AAB3cde9Fgh2Kx8Lq0Zr4Tw",
    ],
)
def test_identifiers_digests_and_names_are_no_keys(text):
    assert [h for h in scan_text(text) if h.severity == "fail"] == [], (text, scan_text(text))
