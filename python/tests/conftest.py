"""What the Python tests share: the checkout, the ldagpu binary the command-line side runs
(LDAGPU_BIN, as the Criterion suite), and a small corpus of raw text."""
import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))  # the package of this checkout, with LDAGPU_LIBRARY or its build


def ldagpu_bin():
    given = os.environ.get("LDAGPU_BIN")
    return given if given else str(REPO / "ldagpu")


def run_cli(*args, check=True):
    """Runs ldagpu ARGS; its output (stdout and stderr) and status."""
    p = subprocess.run([ldagpu_bin(), *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if check and p.returncode != 0:
        raise AssertionError("ldagpu %s: status %d\n%s" % (" ".join(map(str, args)), p.returncode, p.stdout))
    return p.stdout, p.returncode


@pytest.fixture(scope="session")
def texts():
    """The first 300 documents of the demo corpus, as strings."""
    with gzip.open(REPO / "data" / "wiki2k.txt.gz", "rt", encoding="utf-8") as f:
        return [next(f).rstrip("\n") for _ in range(300)]
