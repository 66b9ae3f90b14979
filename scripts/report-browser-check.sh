#!/bin/sh
# The report in a real browser: trains the demo model (bundled corpus, 10% held out), writes
# its report, loads it in headless Chromium through ChromeDriver, fails on any console error or
# warning or when the page's script does not work, and leaves screenshots to look at.
#   scripts/report-browser-check.sh [OUTDIR]      (default build/report-check)
# Installs Debian's chromium and chromium-driver when missing (scripts/install-deps.sh
# --browser). Not part of `make test` or CI: the browser is a large download (see README).
set -eu
cd "$(dirname "$0")/.."
out=${1:-build/report-check}
scripts/install-deps.sh --browser
[ -x ./ldagpu ] || make CUDA=0 ldagpu
mkdir -p "$out"
./ldagpu train data/wiki2k.txt.gz --config configs/demo.conf --holdout 0.1 --device cpu -q --force -o "$out/model"
./ldagpu report "$out/model" -o "$out/report.html"
topics=$(sed -n 's/^topics = //p' "$out/model/model.conf")
python3 scripts/report-browser-check.py "$out/report.html" "$out" "$topics"
