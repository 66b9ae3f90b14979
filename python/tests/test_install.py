"""`pip install ./python` in a fresh virtual environment (--system-site-packages, for Debian's
numpy; --no-build-isolation, for Debian's setuptools: no network here): the installed package
carries its own library and finds it with nothing set."""
import os
import subprocess
import sys

import pytest

from conftest import REPO


def test_pip_install_into_a_venv(tmp_path):
    try:
        import ensurepip  # noqa: F401  (Debian's python3-venv)
        import setuptools  # noqa: F401
        import wheel  # noqa: F401
    except ImportError as e:
        pytest.skip("no %s: scripts/install-deps.sh --test installs it" % e.name)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    env = dict(os.environ)
    library = env.get("LDAGPU_LIBRARY") or str(REPO / "libldagpu.so")
    env["LDAGPU_LIBRARY"] = library  # setup.py copies it rather than run make again
    p = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-build-isolation", "--no-deps", "--no-index",
                        str(REPO / "python")], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, p.stdout
    del env["LDAGPU_LIBRARY"]
    p = subprocess.run([str(venv / "bin" / "python"), "-c",
                        "import ldagpu; print(ldagpu.library_path); "
                        "print(ldagpu.LDA(n_topics=2, n_iter=2, device='cpu').fit([['a', 'b'], ['b', 'c']]).n_iter_)"],
                       cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, p.stdout
    path, iterations = p.stdout.split()
    assert path.startswith(str(venv)) and iterations == "2"
