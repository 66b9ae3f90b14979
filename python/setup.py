"""Builds libldagpu.so with the checkout's Makefile (`make lib`, CUDA where nvcc is found) and puts
a copy in the package, so an installed ldagpu finds its own library. LDAGPU_LIBRARY=PATH copies
that library instead (a machine without a compiler, or a library built another way)."""
import os
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def library():
    given = os.environ.get("LDAGPU_LIBRARY")
    if given:
        return Path(given)
    if not (REPO / "Makefile").exists() or not (REPO / "include" / "ldagpu.h").exists():
        raise SystemExit("ldagpu: not inside an ldagpu checkout; set LDAGPU_LIBRARY to a built libldagpu.so")
    jobs = str(os.cpu_count() or 1)
    subprocess.check_call(["make", "-C", str(REPO), "-j" + jobs, "lib"])
    return REPO / "libldagpu.so"


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        target = Path(self.build_lib) / "ldagpu" / "libldagpu.so"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(library(), target)


class BinaryDistribution(Distribution):
    def has_ext_modules(self):  # the wheel holds a compiled library: tag it for this platform
        return True


setup(cmdclass={"build_py": BuildWithLibrary}, distclass=BinaryDistribution)
