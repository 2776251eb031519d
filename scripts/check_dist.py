"""Check what ``make dist`` built: the files inside the sdist and the wheel,
and (``--install``) that the wheel installs and runs in a bare virtualenv.

    python scripts/check_dist.py dist                      # contents only
    python scripts/check_dist.py dist --install            # + a clean venv from the wheel
    python scripts/check_dist.py dist --sdist-without-compiler   # + the sdist with CC=false

The wheel must hold every module and data file of ``src/marjolet`` (the web
pages, the catalogues, the ``ppo`` bot's weights, ``py.typed``), the compiled
kernel, the console script, and pyproject.toml's version; the sdist must hold
what builds the kernel (``setup.py``, the C sources and headers), the
CHANGELOG and the LICENSE, and what the tests need to run from the unpacked
sdist (``tests/`` whole, with ``conftest.py``, the helpers, examples and
playthroughs; ``docs/``, ``benchmarks/``, ``examples/``, ``scripts/``,
``deploy/``, the Makefile). ``tests/test_packaging.py`` runs the same checks.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tarfile
import tempfile
import tomllib
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "marjolet"
#: Source-tree files that never go into a wheel.
NOT_SHIPPED = (".pyc", ".so", ".c", ".h", ".o")


def project_version() -> str:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return str(tomllib.load(f)["project"]["version"])


def package_files() -> list[str]:
    """The files of ``src/marjolet`` a wheel must hold, as ``marjolet/...``."""
    files = []
    for path in sorted(PACKAGE.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix not in NOT_SHIPPED:
            files.append(path.relative_to(PACKAGE.parent).as_posix())
    return files


def check_wheel(wheel: Path) -> list[str]:
    """What is missing or wrong in the wheel (empty: all there)."""
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        problems = [f"{wheel.name}: missing {f}" for f in package_files() if f not in names]
        if not any(n.startswith("marjolet/_kernel") and n.endswith(".so") for n in names):
            problems.append(f"{wheel.name}: no compiled kernel (marjolet/_kernel*.so)")
        info = next((n for n in names if n.endswith(".dist-info/METADATA")), None)
        if info is None:
            return [*problems, f"{wheel.name}: no METADATA"]
        meta = z.read(info).decode()
        version = project_version()
        if f"\nVersion: {version}\n" not in meta:
            problems.append(f"{wheel.name}: METADATA does not say Version: {version}")
        entry = info.replace("METADATA", "entry_points.txt")
        if entry not in names or "marjolet = marjolet.cli:main" not in z.read(entry).decode():
            problems.append(f"{wheel.name}: no 'marjolet' console script")
    return problems


#: Folders of the source tree the sdist ships whole, for the tests (MANIFEST.in).
TEST_TREES = ("tests", "docs", "benchmarks", "examples", "scripts", "deploy")


def tree_files(folder: str) -> list[str]:
    """The files of a source-tree folder, as the sdist names them (no caches,
    no compiled files, no hidden folders)."""
    files = []
    for path in sorted((ROOT / folder).rglob("*")):
        parts = path.relative_to(ROOT).parts
        hidden = any(p.startswith(".") or p == "__pycache__" for p in parts)
        if path.is_file() and not hidden and path.suffix not in NOT_SHIPPED:
            files.append("/".join(parts))
    return files


def check_sdist(sdist: Path) -> list[str]:
    """What is missing in the sdist (empty: all there)."""
    with tarfile.open(sdist) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
    wanted = ["pyproject.toml", "setup.py", "README.md", "LICENSE", "CHANGELOG.md", "Makefile"]
    for folder in TEST_TREES:
        wanted += tree_files(folder)
    wanted += [p.relative_to(ROOT).as_posix() for p in sorted((PACKAGE / "_kernel").glob("*.[ch]"))]
    wanted += [f"src/{f}" for f in package_files()]
    return [f"{sdist.name}: missing {f}" for f in wanted if f not in names]


def bare_venv(where: Path) -> Path:
    """A virtualenv without pip (the host's pip installs into it)."""
    venv.create(where, with_pip=False)
    return where / "bin" / "python"


def no_compiler_env() -> dict[str, str]:
    """The environment with every C compiler setuptools could pick refused."""
    env = dict(os.environ)
    env.update(CC="false", CXX="false", LDSHARED="false")
    env.pop("PYTHONPATH", None)
    env.pop("MARJOLET_KERNEL", None)  # the installed copy's own engine is what is checked
    return env


def pip_install(target_python: Path, what: Path, *extra: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "--quiet", "--python", str(target_python), "install",
         "--no-deps", *extra, str(what)],
        check=True, env=no_compiler_env(), cwd=target_python.parents[2],
    )


def run_cli(python: Path, *args: str) -> str:
    """Run the installed ``marjolet`` console script; return what it printed."""
    script = python.parent / "marjolet"
    done = subprocess.run(
        [str(script), *args], capture_output=True, text=True, env=no_compiler_env(),
        cwd=python.parents[2], timeout=120,
    )
    if done.returncode != 0:
        raise RuntimeError(f"marjolet {' '.join(args)} failed: {done.stderr.strip()[-400:]}")
    return done.stdout


def check_installed(python: Path, kernel: bool) -> list[str]:
    """Run the CLI of a fresh install: version, rules, a self-play game, bots."""
    problems = []
    version = run_cli(python, "--version").strip()
    if version != f"marjolet {project_version()}":
        problems.append(f"marjolet --version printed {version!r}")
    if "profile" not in run_cli(python, "rules"):
        problems.append("marjolet rules printed no rule set")
    record = python.parents[1] / "selfplay.json"
    run_cli(python, "selfplay", "--seed", "1", "--out", str(record), "--bots", "heuristic",
            "random")
    replay = run_cli(python, "replay", str(record))
    if not record.exists() or not replay.strip():
        problems.append("marjolet selfplay wrote no record that replays")
    bots = run_cli(python, "bots")
    if "ppo:" not in bots:
        problems.append("marjolet bots does not list ppo")
    problems += check_research_commands(python)
    has_kernel = "pure Python" not in bots.rsplit("Engine:", 1)[-1]
    if has_kernel != kernel:
        engine = bots.splitlines()[-1]
        problems.append(f"installed kernel: {has_kernel}, expected {kernel} ({engine})")
    return problems


def check_research_commands(python: Path) -> list[str]:
    """The curves' runner and the trainers are in the wheel; without their
    extras (a bare install) each says so in one line, exit status 2."""
    problems = []
    runs = python.parents[1] / "rl-curves"
    for module, args, extra in (
        ("marjolet.rl.curves", ["run", "--out", str(runs)], "train"),
        ("marjolet.rl.train_ppo", ["--steps", "10"], "train"),
        ("marjolet.rl.train_dmc", ["--help"], "train"),
    ):
        done = subprocess.run(
            [str(python), "-m", module, *args], capture_output=True, text=True,
            env=no_compiler_env(), cwd=python.parents[2], timeout=120,
        )  # fmt: skip
        said = f"needs the {extra} extra: pip install 'marjolet[{extra}]'"
        if done.returncode != 2 or said not in done.stderr or done.stderr.count("\n") != 1:
            got = done.stderr.strip()[-300:]
            problems.append(f"python -m {module} without its extra: {done.returncode} {got!r}")
    return problems


def one(dist: Path, pattern: str) -> Path:
    found = sorted(dist.glob(pattern))
    if len(found) != 1:
        sys.exit(f"error: {dist}: expected one {pattern}, found {len(found)}")
    return found[0]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dist", type=Path)
    p.add_argument("--install", action="store_true", help="install the wheel in a clean venv")
    p.add_argument("--sdist-without-compiler", action="store_true",
                   help="install the sdist with CC=false (pure Python)")
    args = p.parse_args()
    wheel, sdist = one(args.dist, "*.whl"), one(args.dist, "*.tar.gz")
    problems = check_wheel(wheel) + check_sdist(sdist)
    if "manylinux" not in wheel.name:
        problems.append(f"{wheel.name} is not a manylinux wheel")
    with tempfile.TemporaryDirectory() as tmp:
        if args.install:
            python = bare_venv(Path(tmp) / "wheel")
            pip_install(python, wheel.resolve())
            problems += check_installed(python, kernel=True)
        if args.sdist_without_compiler:
            python = bare_venv(Path(tmp) / "sdist")
            pip_install(python, sdist.resolve(), "--no-cache-dir")
            problems += check_installed(python, kernel=False)
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    if not problems:
        print(f"ok: {wheel.name}, {sdist.name}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
