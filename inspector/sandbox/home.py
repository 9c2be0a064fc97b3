"""The canaries a confined server finds in place of the reviewer's secrets: a home directory of them, and a `.env`.

Each file sits where a real credential does (`~/.aws/credentials`, `~/.ssh/id_rsa`, `~/.config/gh/hosts.yml`, a
`.env` in the working directory, shell history, browser profiles...), shaped as the real one is, and holds values
made for this run only (random, from `secrets`): a value that shows anywhere else (a result, a log line, a DNS name,
a packet) was read from here. The same paths name the reviewer's real secrets when a server runs unconfined: an
observed read of one is judged the same way (`secret_path`), though its value is never read by mcp-review.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import string
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ALNUM = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase + string.digits


def _random(size: int, alphabet: str = ALNUM) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(size))


@dataclass(frozen=True)
class Secret:
    """One place a credential lives: a path under the home (or `.env`, in the working directory) and how the real
    file looks, written with this run's values."""

    path: str  # relative to the home ("~"), or to the working directory for ".env"
    what: str  # as a finding names it
    write: Callable[[list[str]], str]  # the file's text, given fresh values (it appends the values it uses)


def _aws(values: list[str]) -> str:
    key, secret = "AKIA" + _random(16, UPPER), _random(40)
    values += [key, secret]
    return f"[default]\naws_access_key_id = {key}\naws_secret_access_key = {secret}\nregion = eu-west-1\n"


def _ssh(values: list[str]) -> str:
    body = base64.b64encode(b"openssh-key-v1\0" + secrets.token_bytes(300)).decode()
    lines = [body[i : i + 70] for i in range(0, len(body), 70)]
    values.append(lines[1])  # a whole line of random bytes: what only this key holds, as a reader sends it
    text = "\n".join(lines)
    return f"-----BEGIN OPENSSH PRIVATE KEY-----\n{text}\n-----END OPENSSH PRIVATE KEY-----\n"


def _gh(values: list[str]) -> str:
    token = "gho_" + _random(36)
    values.append(token)
    return f"github.com:\n    user: reviewer\n    oauth_token: {token}\n    git_protocol: https\n"


def _netrc(values: list[str]) -> str:
    password = _random(24)
    values.append(password)
    return f"machine api.example.com\n  login reviewer\n  password {password}\n"


def _docker(values: list[str]) -> str:
    password = _random(24)
    values.append(password)
    auth = base64.b64encode(f"reviewer:{password}".encode()).decode()
    return json.dumps({"auths": {"https://index.docker.io/v1/": {"auth": auth}}}, indent=2) + "\n"


def _kube(values: list[str]) -> str:
    token = _random(48)
    values.append(token)
    return (
        "apiVersion: v1\nkind: Config\nclusters:\n- name: prod\n  cluster:\n    server: https://k8s.example.com\n"
        f"users:\n- name: reviewer\n  user:\n    token: {token}\ncontexts:\n- name: prod\n  context:\n"
        "    cluster: prod\n    user: reviewer\ncurrent-context: prod\n"
    )


def _npmrc(values: list[str]) -> str:
    token = "npm_" + _random(36)
    values.append(token)
    return f"//registry.npmjs.org/:_authToken={token}\n"


def _git_credentials(values: list[str]) -> str:
    token = "ghp_" + _random(36)
    values.append(token)
    return f"https://reviewer:{token}@github.com\n"


def _history(values: list[str]) -> str:
    key = "sk-proj-" + _random(48)
    values.append(key)
    return f"ls\ncd ~/src\nexport OPENAI_API_KEY={key}\ngit status\n"


def _browser(values: list[str]) -> str:
    cookie = _random(32)
    values.append(cookie)
    entry = {"hostname": "https://accounts.example.com", "encryptedPassword": cookie, "username": "reviewer"}
    return json.dumps({"logins": [entry]}) + "\n"


def _dotenv(values: list[str]) -> str:
    password, stripe = _random(20), "sk_live_" + _random(24)
    values += [password, stripe]
    return f"DATABASE_URL=postgres://app:{password}@db.internal:5432/app\nSTRIPE_SECRET_KEY={stripe}\n"


ENV = Secret(".env", "the working directory's .env", _dotenv)
SECRETS = (
    Secret(".aws/credentials", "AWS credentials", _aws),
    Secret(".ssh/id_rsa", "an SSH private key", _ssh),
    Secret(".ssh/id_ed25519", "an SSH private key", _ssh),
    Secret(".config/gh/hosts.yml", "the GitHub CLI's token", _gh),
    Secret(".netrc", "netrc passwords", _netrc),
    Secret(".docker/config.json", "Docker registry credentials", _docker),
    Secret(".kube/config", "a Kubernetes token", _kube),
    Secret(".npmrc", "an npm token", _npmrc),
    Secret(".git-credentials", "git credentials", _git_credentials),
    Secret(".bash_history", "shell history", _history),
    Secret(".zsh_history", "shell history", _history),
    Secret(".config/google-chrome/Default/Login Data", "a browser's saved logins", _browser),
    Secret(".mozilla/firefox/default-release/logins.json", "a browser's saved logins", _browser),
)


@dataclass(frozen=True)
class Planted:
    """One canary file of a run: where the server sees it, what it stands for, the values only it holds."""

    path: str  # absolute, as the server sees it
    what: str
    values: tuple[str, ...]


def plant(secret: Secret, file: Path, seen_as: str) -> Planted:
    """Write `secret`'s canary into `file` (which the server sees at `seen_as`), 0600 as the real one is."""
    values: list[str] = []
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(secret.write(values), encoding="utf-8")
    os.chmod(file, 0o600)
    return Planted(seen_as, secret.what, tuple(values))


def plant_home(home: Path, seen_as: str) -> list[Planted]:
    """Every canary of the home, into `home` (seen at `seen_as`)."""
    return [plant(secret, home / secret.path, f"{seen_as}/{secret.path}") for secret in SECRETS]


def secret_path(path: str, home: str, cwd: str | None) -> str | None:
    """What `path` holds when it is one of the places credentials live (a real home's, when unconfined), else None."""
    for secret in SECRETS:
        if path == f"{home}/{secret.path}":
            return secret.what
    if cwd and os.path.basename(path).startswith(".env") and os.path.dirname(path) == cwd:
        return ENV.what
    return None
