"""Review a package before installing it (issue 38): `npm:NAME@VERSION` and `pypi:NAME==VERSION` targets are
installed into mcp-review's cache, then run confined and observed; an npm package's install script runs confined
too, and what it did is in the review; the review names the package, its version and the digest of what was
installed. The registries are the test's own, on 127.0.0.1 (an npm registry serving one package document and its
tarball; a folder of wheels as pip's `--find-links`): the tests never reach the internet. `npx -y` and `uvx`
commands become the same targets."""

from __future__ import annotations

import base64
import hashlib
import http.server
import io
import json
import os
import tarfile
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_review import packages
from mcp_review.sandbox import confine, observe
from tests.support import SERVERS, run_cli

FIXTURES = SERVERS / "packaged"
NAME = "mcp-review-fixture-server"
needs_bwrap = pytest.mark.skipif(
    bool(confine.unavailable() or observe.unavailable()) and not os.environ.get("MCP_REVIEW_REQUIRE_THIRDPARTY"),
    reason=f"cannot confine or observe here: {confine.unavailable() or observe.unavailable()}",
)


def tarball() -> bytes:
    """The npm package as `npm pack` makes it: its files under `package/`."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for path in sorted((FIXTURES / "npm").iterdir()):
            info = tar.gettarinfo(str(path), f"package/{path.name}")
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            with path.open("rb") as f:
                tar.addfile(info, f)
    return out.getvalue()


@pytest.fixture
def registry() -> Iterator[tuple[str, str]]:
    """(an npm registry's URL on 127.0.0.1 serving the fixture package, the integrity of its tarball)."""
    data = tarball()
    integrity = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    url = f"http://127.0.0.1:{server.server_port}/"
    manifest = json.loads((FIXTURES / "npm" / "package.json").read_text())
    dist = {"tarball": f"{url}{NAME}/-/{NAME}-1.0.0.tgz", "integrity": integrity,
            "shasum": hashlib.sha1(data).hexdigest()}  # fmt: skip
    document = {"name": NAME, "dist-tags": {"latest": "1.0.0"}, "versions": {"1.0.0": {**manifest, "dist": dist}}}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = data if self.path.endswith(".tgz") else json.dumps(document).encode()
            self.send_response(200 if self.path.lstrip("/").startswith(NAME) else 404)
            self.send_header(
                "Content-Type", "application/octet-stream" if self.path.endswith(".tgz") else "application/json"
            )
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: object) -> None:
            pass

    server.RequestHandlerClass = Handler
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield url, integrity
    finally:
        server.shutdown()


def wheel(folder: Path) -> Path:
    """The PyPI package as a wheel (a zip with its metadata and a console script), made by hand: no build runs."""
    folder.mkdir()
    path = folder / "mcp_review_fixture_server-1.0.0-py3-none-any.whl"
    info = "mcp_review_fixture_server-1.0.0.dist-info"
    files = {
        "mcp_review_fixture_server.py": (FIXTURES / "pypi" / "mcp_review_fixture_server.py").read_text(),
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {NAME}\nVersion: 1.0.0\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{info}/entry_points.txt": f"[console_scripts]\n{NAME} = mcp_review_fixture_server:main\n",
    }
    record = "".join(f"{name},,\n" for name in files) + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(path, "w") as z:
        for name, text in {**files, f"{info}/RECORD": record}.items():
            z.writestr(name, text)
    return path


def reviewed(tmp_path: Path, spec: str, env: dict[str, str]) -> dict[str, object]:
    out = tmp_path / "review.json"
    cache = {"MCP_REVIEW_CACHE_DIR": str(tmp_path / "cache"), "HOME": str(tmp_path / "home")}
    done = run_cli("check", "-q", "--calls", "all", "--pack", "review", "--format", "json", "--out", str(out), spec,
                   env={**cache, **env})  # fmt: skip
    assert done.returncode in (0, 1, 3), done.stderr
    return json.loads(out.read_text())


@needs_bwrap
def test_an_npm_package_is_installed_then_reviewed_confined_its_install_script_too(tmp_path: Path, registry):
    url, integrity = registry
    npm_env = {
        "npm_config_registry": url,
        "npm_config_cache": str(tmp_path / "npm-cache"),
        "npm_config_update_notifier": "false",
    }
    review = reviewed(tmp_path, f"npm:{NAME}@1.0.0", npm_env)
    package = review["target"]["package"]
    assert (package["registry"], package["name"], package["version"]) == ("npm", NAME, "1.0.0")
    assert package["digests"] == [{"of": f"{NAME}@1.0.0", "digest": integrity}], "the digest of what was installed"
    assert Path(package["folder"]).is_relative_to(tmp_path / "cache"), "installed into mcp-review's cache"
    scripts = package["installScripts"]
    assert scripts["ran"].startswith("the server runs confined by bubblewrap"), scripts
    said = " | ".join(scripts["notable"])
    assert "/.npmrc (an npm token)" in said and "connected to 203.0.113.7:443 (refused: ENETUNREACH)" in said, said
    statuses = {f["rule"]: f["status"] for f in review["findings"] if f["rule"].startswith("review.")}
    assert statuses["review.startup-quiet"] == "pass" and statuses["review.read-only-verified"] == "pass", statuses
    assert review["behaviour"]["processes"][0]["confined"], "the server runs confined as any other"


@needs_bwrap
def test_a_pypi_package_is_installed_from_wheels_then_reviewed_confined(tmp_path: Path):
    found = wheel(tmp_path / "wheels")
    review = reviewed(tmp_path, f"pypi:{NAME}==1.0.0", {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(found.parent)})
    package = review["target"]["package"]
    digest = "sha256:" + hashlib.sha256(found.read_bytes()).hexdigest()
    assert package["version"] == "1.0.0" and package["digests"] == [{"of": found.name, "digest": digest}]
    assert review["tools"] == ["echo"] and review["behaviour"]["processes"][0]["observed"]
    assert {f["rule"]: f["status"] for f in review["findings"]}["review.hosts-named"] == "pass"


def test_a_package_without_a_wheel_is_refused_in_one_line(tmp_path: Path):
    (tmp_path / "wheels").mkdir()
    done = run_cli("list", f"pypi:{NAME}==1.0.0", env={"MCP_REVIEW_CACHE_DIR": str(tmp_path / "cache"),
                   "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(tmp_path / "wheels")})  # fmt: skip
    assert done.returncode == 2
    assert "wheels only: a source distribution's build runs its code" in done.stderr, done.stderr


def test_commands_that_fetch_their_package_become_package_targets():
    fetched = packages.from_command
    assert fetched(["npx", "-y", "@modelcontextprotocol/server-memory@2026.8.31", "--x"]) == (
        packages.Spec("npm", "@modelcontextprotocol/server-memory", "2026.8.31"), ["--x"])  # fmt: skip
    assert fetched(["/usr/bin/npx", "--yes", "pkg", "/srv"]) == (packages.Spec("npm", "pkg", None), ["/srv"])
    assert fetched(["npx", "pkg"]) is None, "without --yes npx asks: not this form"
    assert fetched(["uvx", "mcp-server-time==2026.10.19", "--local-timezone", "UTC"]) == (
        packages.Spec("pypi", "mcp-server-time", "2026.10.19"), ["--local-timezone", "UTC"])  # fmt: skip
    assert fetched(["python", "server.py"]) is None
    assert packages.parse("npm:@scope/x@1.2.3") == packages.Spec("npm", "@scope/x", "1.2.3")
    assert packages.parse("pypi:x==1.0") == packages.Spec("pypi", "x", "1.0")
    assert packages.parse("npm:../evil") is None and packages.parse("pypi:x; rm -rf /") is None
