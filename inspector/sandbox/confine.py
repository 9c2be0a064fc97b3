"""Confinement with bubblewrap: what a confined server sees, and the `bwrap` command line that makes it so.

bubblewrap (`bwrap`, the sandbox Flatpak is built on; a Debian package) sets up Linux namespaces and bind mounts in
one exec and then runs the command: no daemon, no root needed where user namespaces are allowed, a few milliseconds
per start. Namespaces directly (`unshare`) would need the same mounts scripted by hand, and root. What the server
gets (`wrap`):

- the filesystem read-only (`--ro-bind / /`), a fresh /dev and /proc (its own processes only), a private /tmp;
- in place of the reviewer's home (and every other home, /run's sockets, /mnt, /media, mcp-review's own config and
  state), a home of canaries (`home.py`), writable, shared by the review's processes (`Run`);
- its working directory as a writable scratch that shows each entry of the real one read-only, a canary `.env` in
  place of any `.env*`;
- its own trees read-only where they were hidden (the command's and its interpreter's prefix: a pyenv or nvm
  install in the home), and the review's scratch (where the probes' canary areas live) read-write;
- no network but its own loopback (`--unshare-net`), with /etc/resolv.conf naming 127.0.0.1, so a DNS lookup fails
  at once and shows (observed) the name it asked for; with `--allow-net` the machine's network (bubblewrap cannot
  filter by host: a connection elsewhere is then observed and judged, not prevented);
- no capability, its own session (no terminal to inject into), its own pid namespace: when the server exits, or
  mcp-review dies (`--die-with-parent`), everything it started ends with it.

Paths are resolved as the server will see them: `Layout.where` says which part of this view a path is in, so the
behaviour rules judge a write or a read by where it landed.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from mcp_review import trust
from mcp_review.sandbox.home import ENV, Planted, plant, plant_home, secret_path
from mcp_review.targets import Target

BWRAP = "bwrap"
TMP_SIZE = 256 * 1024 * 1024  # the private /tmp and working directory: what a server may fill there (RAM)
MAX_ENTRIES = 512  # a working directory with more entries is shown read-only as it is, without a scratch over it
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc", "/opt", "/var", "/boot", "/srv")
HIDDEN_ROOTS = ("/tmp", "/var/tmp", "/run", "/home", "/root", "/mnt", "/media")
PROJECT_MARKERS = (".git", "pyproject.toml", "setup.py", "package.json")  # where a named script's project starts
HIDDEN_FILES = ("/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-")  # root may read them; a server not
DEVICES = ("/dev", "/proc", "/sys")


def reviewers_home() -> str:
    return os.path.realpath(os.environ.get("HOME") or os.path.expanduser("~"))


def under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


@dataclass
class Run:
    """One review's confinement, shared by every server process it starts: a private directory (0700) holding the
    home of canaries, the `.env` canaries, the resolver file, and the scratch the probes' canary areas live in."""

    root: Path
    home: Path
    scratch: Path
    resolv: Path
    seen_home: str  # where the server sees the home of canaries: the reviewer's home path
    planted: list[Planted] = field(default_factory=list)
    env_files: dict[str, Path] = field(default_factory=dict)  # working directory -> its .env canary

    @classmethod
    def make(cls) -> Run:
        root = Path(tempfile.mkdtemp(prefix="mcp-review-run-")).resolve()
        run = cls(root, root / "home", root / "scratch", root / "resolv.conf", reviewers_home())
        run.home.mkdir()
        run.scratch.mkdir()
        run.resolv.write_text("nameserver 127.0.0.1\noptions timeout:1 attempts:1\n", encoding="utf-8")
        run.planted = plant_home(run.home, run.seen_home)
        return run

    def env_file(self, cwd: str) -> Path:
        """The `.env` canary of working directory `cwd`, planted on first use."""
        if cwd not in self.env_files:
            path = self.root / f"env-{len(self.env_files)}"
            self.planted.append(plant(ENV, path, f"{cwd}/.env"))
            self.env_files[cwd] = path
        return self.env_files[cwd]

    def values(self) -> list[tuple[str, str, str]]:
        """(value, canary path, what it stands for) of every canary planted."""
        return [(v, p.path, p.what) for p in self.planted for v in p.values]

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


_runs: dict[str, Run] = {}


def run_of(name: str) -> Run:
    """The run `name` (a `Confinement.run`), made on first use and removed when mcp-review exits."""
    if name not in _runs:
        if not _runs:
            atexit.register(_remove_all)
        _runs[name] = Run.make()
    return _runs[name]


def known_run(name: str) -> Run | None:
    return _runs.get(name)


def _remove_all() -> None:
    for run in _runs.values():
        run.remove()
    _runs.clear()


@functools.cache
def unavailable() -> str | None:
    """Why bubblewrap cannot confine a server here, in a few words; None when it can (tried once per process: a
    sandbox of `true`, with the namespaces a server gets)."""
    if not sys.platform.startswith("linux"):
        return f"bubblewrap runs on Linux only (this is {sys.platform})"
    path = shutil.which(BWRAP)
    if path is None:
        return "bubblewrap is not installed (Debian, Ubuntu: apt-get install bubblewrap)"
    test = [path, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net", "--unshare-pid"]
    try:
        done = subprocess.run([*test, "--die-with-parent", "true"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"bwrap could not run: {e}"
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        return f"bwrap cannot make namespaces here (user namespaces disabled?): {said[:200]}"
    return None


@dataclass(frozen=True)
class Layout:
    """What the server sees, to say where a path it touched is (`where`). Unconfined, the same questions are asked of
    the real filesystem (`confined` False): its home is the reviewer's, nothing is scratch but /tmp."""

    confined: bool
    home: str  # where its home is (the canaries', or the reviewer's)
    cwd: str
    own: tuple[str, ...] = ()  # its command's and interpreter's trees
    scratch: tuple[str, ...] = ()  # the review's scratch (canary areas) and what the reviewer let it write
    canaries: tuple[tuple[str, str], ...] = ()  # (path, what it stands for) of every canary it can see
    network: bool = True  # it shares the machine's network (unconfined, or confined with --allow-net)

    def where(self, path: str) -> str:
        """The part of the server's view `path` (absolute, normalised) is in: "canary" (a canary file, or a real
        credential's place when unconfined), "device" (/dev, /proc, /sys), "scratch" (the review's scratch),
        "temp" (/tmp), "work" (its working directory's tree), "cache" (the home's ~/.cache), "home" (the rest
        of the home), "own" (its command's and interpreter's trees), or "system" (everything else)."""
        if self.secret(path):
            return "canary"
        best, length = "system", 0  # the most specific part wins: a home or a working directory under /tmp
        for kind, roots in (
            ("device", DEVICES),
            ("scratch", self.scratch),
            ("temp", ("/tmp", "/var/tmp", "/dev/shm")),
            # the working directory before its own trees: the same folder (a project installed editable and run
            # from its checkout) is its work, where it may write; a tree inside it (its .venv) is still its own
            ("work", (self.cwd,) if self.cwd not in ("/", self.home) else ()),
            ("own", self.own),
            ("cache", (f"{self.home}/.cache",)),
            ("home", (self.home,)),
        ):
            for root in roots:
                if under(path, root) and len(root) > length:
                    best, length = kind, len(root)
        return best

    def secret(self, path: str) -> str | None:
        """What a canary (or, unconfined, a real credential's place) at `path` stands for."""
        for where, what in self.canaries:
            if path == where:
                return what
        return None if self.confined else secret_path(path, self.home, self.cwd)


def prefix(path: str) -> str:
    """The install tree a program belongs to: `/x/bin/prog` -> `/x`, an npm prefix's `/x/node_modules/.bin/prog` ->
    `/x`; else its directory."""
    parent = os.path.dirname(path)
    if os.path.basename(parent) == ".bin" and os.path.basename(os.path.dirname(parent)) == "node_modules":
        return os.path.dirname(os.path.dirname(parent))
    return os.path.dirname(parent) if os.path.basename(parent) == "bin" else parent


def _interpreter(program: str) -> str | None:
    """The interpreter a script's `#!` line names (`/usr/bin/env NAME` resolved on PATH), if it is a script."""
    try:
        with open(program, "rb") as f:
            first = f.readline(512)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode(errors="replace").split()
    if not words:
        return None
    if os.path.basename(words[0]) == "env" and len(words) > 1:
        return shutil.which(words[-1] if words[1].startswith("-") else words[1])
    return words[0]


def own_trees(target: Target, env: dict[str, str]) -> list[str]:
    """The trees the server's own programs live in: its command's prefix (as named and resolved), and its script
    interpreter's, and a venv's base interpreter's. A home itself or its `.local` is a prefix too wide to show whole:
    only its bin and lib are."""
    command = target.command or ""
    found = shutil.which(command, path=env.get("PATH")) if "/" not in command else command
    programs = [os.path.abspath(os.path.join(target.cwd or os.getcwd(), found or command))]
    if (script := _interpreter(programs[0])) is not None:
        programs.append(script)
    trees: list[str] = []
    for program in programs:
        for tree in {prefix(program), prefix(os.path.realpath(program))}:
            cfg = Path(tree, "pyvenv.cfg")
            if cfg.is_file():  # a venv: its base interpreter's tree too, and what its editable installs name
                for line in cfg.read_text(errors="replace").splitlines():
                    key, _, value = line.partition("=")
                    if key.strip() == "home":
                        trees.append(prefix(os.path.join(value.strip(), "python")))
                trees += _pth_projects(tree)
            trees.append(tree)
    home = reviewers_home()
    out = []
    for tree in dict.fromkeys(os.path.realpath(t) for t in trees):
        if tree in (home, f"{home}/.local", "/"):
            out += [f"{tree}/bin", f"{tree}/lib"]
        else:
            out.append(tree)
    return out


def named_paths(target: Target) -> list[str]:
    """The existing paths the server's command line names (an argument, the value of `--opt=VALUE` or `NAME=VALUE`,
    an environment value it is given) that the confinement would hide: they are the server's to read, as whoever wrote
    the command line meant (only the reviewer: `Confinement.named_paths`). A named file is shown with the project it
    belongs to (`_project`): `python /tmp/checkout/server.py` imports its siblings and its package (a clone under
    /tmp or /home ran nothing before). Never the reviewer's home, a folder that holds it, or a hidden root itself
    (/tmp, /home): those only --allow-read shows."""
    base = target.cwd or os.getcwd()
    hidden = _hidden_roots()
    home = reviewers_home()
    out = []
    for arg in [*target.args, *target.env.values()]:
        value = arg.split("=", 1)[1] if "=" in arg and not arg.startswith("/") else arg  # --opt=V, NAME=V
        if not value or value.startswith("-") or len(value) > 4096:
            continue
        path = os.path.realpath(os.path.join(base, os.path.expanduser(value)))
        if _hidden_but_showable(path, hidden, home) and os.path.exists(path):
            out.append(_project(path, home, hidden) if os.path.isfile(path) else path)
    return list(dict.fromkeys(out))


def _hidden_but_showable(path: str, hidden: list[str], home: str) -> bool:
    """`path` lies under a root the confinement hides, and is neither such a root itself nor a home or a folder
    that holds one (those only --allow-read shows)."""
    return path not in hidden and not under(home, path) and any(under(path, r) for r in hidden)


def _pth_projects(venv: str) -> list[str]:
    """The projects the path entries of a venv's `.pth` files lie in, where the confinement hides them: an editable
    install (`pip install -e`, `uv pip install -e`) of the server under review, or of mcp-review itself (whose demo
    server is `python -m mcp_review.demo`), imports from its source tree, which a venv's own tree does not hold (a
    strict editable install's tree of links, under the project's build/, points into it too). Lines that are code
    (`import ...`) are not paths; a home itself, or what holds one, is never shown."""
    hidden, home = _hidden_roots(), reviewers_home()
    out = []
    for pth in sorted({p.resolve() for p in Path(venv).glob("lib*/python*/site-packages/*.pth")}):  # lib64 -> lib
        try:
            lines = pth.read_text(errors="replace").splitlines()[:100]
        except OSError:
            continue
        for line in lines:
            if not line.strip() or line.startswith(("#", "import ", "import\t")):
                continue
            entry = os.path.realpath(os.path.join(pth.parent, line.strip()))
            if os.path.isdir(entry) and _hidden_but_showable(entry, hidden, home):
                out.append(_tree(entry, home, hidden))
    return out


def _project(path: str, home: str, hidden: list[str]) -> str:
    """The tree a named file belongs to (`_tree` of its folder)."""
    return _tree(os.path.dirname(path), home, hidden)


def _tree(folder: str, home: str, hidden: list[str]) -> str:
    """The tree `folder` belongs to: its nearest folder that marks a project (PROJECT_MARKERS), below any hidden root
    and never one that holds the home; else `folder` itself."""
    top = folder
    while not any(os.path.exists(os.path.join(top, marker)) for marker in PROJECT_MARKERS):
        up = os.path.dirname(top)
        if up == top or up in hidden or under(home, up):
            return folder
        top = up
    return top


def _hidden_roots() -> list[str]:
    """Every directory the server must not see (replaced by an empty one): homes, sockets, mounts, temporary
    directories, mcp-review's own config and state (its tokens), wherever they are."""
    roots = [r for r in HIDDEN_ROOTS if os.path.isdir(r) and not os.path.islink(r)]
    mine = (trust.config_dir(), trust.state_dir(), trust.cache_dir())
    for extra in (reviewers_home(), os.path.expanduser("~"), *map(str, mine)):
        real = os.path.realpath(extra)
        if os.path.isdir(real) and real != "/" and not any(under(real, r) for r in roots):
            roots.append(real)
    return roots


def wrap(target: Target, argv: list[str], env: dict[str, str], run: Run) -> tuple[list[str], Layout]:
    """`argv` run confined as the module says, and the layout the server sees."""
    spec = target.confinement
    cwd = os.path.realpath(target.cwd or os.getcwd())
    hidden = _hidden_roots()
    args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for root in [*hidden, str(run.root)]:
        args += (["--size", str(TMP_SIZE)] if root in ("/tmp", "/var/tmp") else []) + ["--tmpfs", root]
    args += [arg for path in HIDDEN_FILES if os.path.isfile(path) for arg in ("--ro-bind", "/dev/null", path)]
    args += ["--bind", str(run.home), run.seen_home, "--bind", str(run.scratch), str(run.scratch)]
    work = _work(cwd, run, hidden)
    named = named_paths(target) if spec.named_paths else []
    holding = [path for path in named if work and under(cwd, path) and path != cwd]  # shown first: work lies on it
    args += [arg for path in holding for arg in ("--ro-bind-try", path, path)]
    args += work
    canaries = [
        (p.path, p.what)
        for p in run.planted
        if p.path.startswith(run.seen_home + "/") or (work and p.path == f"{cwd}/.env")
    ]
    own = [t for t in own_trees(target, env) if os.path.isdir(t)]
    for tree in own:
        if any(under(tree, r) for r in [*hidden, run.seen_home]) and not (work and under(tree, cwd)):
            args += ["--ro-bind", tree, tree]
    shown = [p for p in named if p not in holding and not (work and p == cwd)]  # the work scratch shows cwd itself
    for path in [*shown, *spec.allow_read]:
        args += ["--ro-bind-try", path, path]
    for path in spec.allow_write:
        args += ["--bind-try", path, path]
    if not spec.allow_net:
        args += ["--unshare-net", *_resolver(run)]
    args += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    args += ["--die-with-parent", "--new-session", "--cap-drop", "ALL", "--setenv", "TMPDIR", "/tmp"]
    args += ["--chdir", cwd]
    scratch = (str(run.scratch), *(os.path.realpath(p) for p in spec.allow_write))
    layout = Layout(True, run.seen_home, cwd, tuple(own), scratch, tuple(canaries), network=bool(spec.allow_net))
    return [shutil.which(BWRAP) or BWRAP, *args, "--", *argv], layout


def _work(cwd: str, run: Run, hidden: list[str]) -> list[str]:
    """The working directory as a writable scratch (a tmpfs) showing each real entry read-only, its `.env*` files
    replaced by one canary `.env`; nothing when it is a system directory, a home itself, or too big to show so."""
    if cwd == "/" or cwd in hidden or cwd == run.seen_home or any(under(cwd, d) for d in SYSTEM_DIRS):
        return []
    try:
        entries = sorted(os.listdir(cwd))
    except OSError:
        return []
    if len(entries) > MAX_ENTRIES:
        return ["--ro-bind", cwd, cwd]
    args = ["--size", str(TMP_SIZE), "--tmpfs", cwd]
    for name in entries:
        if not name.startswith(".env"):
            args += ["--ro-bind-try", f"{cwd}/{name}", f"{cwd}/{name}"]
    return [*args, "--ro-bind", str(run.env_file(cwd)), f"{cwd}/.env"]


def _resolver(run: Run) -> list[str]:
    """/etc/resolv.conf naming 127.0.0.1, where it is (a symlink's target too: it may be in the hidden /run)."""
    dest = os.path.realpath("/etc/resolv.conf")
    with contextlib.suppress(OSError):
        if os.path.exists("/etc/resolv.conf") or any(under(dest, r) for r in HIDDEN_ROOTS):
            return ["--ro-bind", str(run.resolv), dest]
    return []


def unconfined_layout(target: Target, env: dict[str, str]) -> Layout:
    """The layout of a server that runs with the reviewer's own files (for judging what it was observed doing)."""
    cwd = os.path.realpath(target.cwd or os.getcwd())
    own = tuple(t for t in own_trees(target, env) if os.path.isdir(t))
    scratch = tuple(os.path.realpath(p) for p in target.confinement.allow_write)
    return Layout(False, os.path.realpath(env.get("HOME") or reviewers_home()), cwd, own, scratch)
