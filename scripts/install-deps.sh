#!/bin/sh
# Installs what ldagpu needs and is missing, on Debian or Ubuntu (apt-get; sudo when not root).
#   scripts/install-deps.sh          build tools, zlib and PCRE2 (to build and train)
#   scripts/install-deps.sh --test   the same plus Criterion, NumPy, SciPy, pytest and Node.js (to
#                                    run the tests: NumPy reads the .npy and export files back, the
#                                    README's Python blocks use NumPy and SciPy, pytest runs the
#                                    Python package's tests, which also pip-install it in a venv:
#                                    python3-venv, setuptools, wheel; Node.js runs the report
#                                    page's script)
#   scripts/install-deps.sh --plots  the same plus gnuplot (for the benchmark scripts)
#   scripts/install-deps.sh --fuzz   the same plus clang and its libFuzzer runtime (make fuzz)
#   scripts/install-deps.sh --browser  the same plus Chromium and ChromeDriver (for
#                                    scripts/report-browser-check.sh)
#   scripts/install-deps.sh --peers  the same plus what scripts/cpu-peers.sh builds Mallet, tomotopy
#                                    and WarpLDA with: a JDK, g++, Eigen, cmake, gflags, libnuma,
#                                    git, patch, and NumPy (not installed by CI)
# Nothing is installed when everything is already there. The CUDA toolkit is not installed
# here: without nvcc, ldagpu builds with the CPU backend only.
set -eu
need=""
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_hdr() { [ -f "/usr/include/$1" ] || [ -f "/usr/local/include/$1" ]; }

have_cmd make || need="$need make"
have_cmd cc || need="$need gcc libc6-dev"
have_hdr zlib.h || need="$need zlib1g-dev"
have_hdr pcre2.h || need="$need libpcre2-dev"
for arg in "$@"; do
    case "$arg" in
        --test) have_hdr criterion/criterion.h || need="$need libcriterion-dev"
                /usr/bin/python3 -c 'import numpy' 2>/dev/null || need="$need python3-numpy"
                /usr/bin/python3 -c 'import scipy' 2>/dev/null || need="$need python3-scipy"
                /usr/bin/python3 -c 'import pytest' 2>/dev/null || need="$need python3-pytest"
                # `pip install ./python` in a venv (python/tests/test_install.py)
                /usr/bin/python3 -c 'import ensurepip, setuptools, wheel' 2>/dev/null ||
                    need="$need python3-venv python3-setuptools python3-wheel"
                have_cmd node || need="$need nodejs" ;;
        --plots) have_cmd gnuplot || need="$need gnuplot-nox" ;;
        --fuzz)
            # libFuzzer's runtime is a separate package from the compiler.
            if ! have_cmd clang || ! ls "$(clang -print-resource-dir)"/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
                need="$need clang libclang-rt-dev"
            fi ;;
        --browser) have_cmd chromium || need="$need chromium"
                   have_cmd chromedriver || need="$need chromium-driver" ;;
        --peers) have_cmd javac || need="$need default-jdk-headless"
                 have_cmd g++ || need="$need g++"
                 have_hdr eigen3/Eigen/Dense || need="$need libeigen3-dev"
                 have_cmd cmake || need="$need cmake"
                 have_hdr gflags/gflags.h || need="$need libgflags-dev"
                 have_hdr numa.h || need="$need libnuma-dev"
                 have_cmd git || need="$need git"
                 have_cmd patch || need="$need patch"
                 /usr/bin/python3 -c 'import numpy' 2>/dev/null || need="$need python3-numpy" ;;
        *) echo "install-deps.sh: unknown option '$arg' (use --test, --plots, --fuzz, --browser or --peers)" >&2; exit 2 ;;
    esac
done
[ -z "$need" ] && exit 0

if ! have_cmd apt-get; then
    echo "install-deps.sh: missing:$need; install them with your package manager" >&2
    exit 1
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps.sh: installing$need" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $need >/dev/null
