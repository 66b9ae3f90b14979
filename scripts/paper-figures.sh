#!/bin/sh
# Reproduces the timing figures of Steele & Tristan's section 7 (000_e24edcbece0b8c44.txt)
# with `ldagpu bench`, on a GPU:
#   fig10  K = 16, 48, ..., 240; the four model versions x naive / butterfly
#   fig11  K = 4, 8, ..., 1024;  naive / transpose / butterfly-stored / butterfly (split 1,
#          the paper's one-warp loop; split 32, θ read through L1/L2; and the default, θ staged
#          in shared memory); float (11a) and double (11b)
#   fig12  every K from 480 to 544; transpose / butterfly-stored / butterfly (split 1); float, double
# usage: scripts/paper-figures.sh [--full] [--only fig10|fig11|fig12] CORPUS OUTDIR
# Writes OUTDIR/figNN.csv (and OUTDIR/figNN.log), then the PNG plots when gnuplot is there
# (scripts/plot-figures.sh; on a machine without it, copy the CSVs and plot elsewhere).
# The reduced mode (default) fits one 10-minute call on an H100 for wiki43k: fewer K points
# in fig11 (every 48th) and fewer iterations per point; --full runs every K of the paper
# (fig11: 256 K values x 6 sampler variants x 2 precisions; about 25 minutes on an H100).
set -eu
full=0
only=""
while [ $# -gt 2 ]; do
    case "$1" in
        --full) full=1; shift ;;
        --only) only=$2; shift 2 ;;
        *) echo "paper-figures.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
[ $# -eq 2 ] || { echo "usage: scripts/paper-figures.sh [--full] [--only fig10|fig11|fig12] CORPUS OUTDIR" >&2; exit 2; }
corpus=$1
out=$2
mkdir -p "$out"
here=$(cd "$(dirname "$0")/.." && pwd)
ldagpu=${LDAGPU:-$here/ldagpu}

if [ $full = 1 ]; then timing="-n 5 -r 5 -w 2"; k11="4:1024:4"; else timing="-n 3 -r 3 -w 1"; k11="16:1024:48"; fi

run() { # name, bench arguments...
    name=$1
    shift
    case "$only" in "" | "$name") ;; *) return 0 ;; esac
    echo "paper-figures: $name" >&2
    # shellcheck disable=SC2086
    "$ldagpu" bench "$corpus" --device cuda $timing "$@" -o "$out/$name.csv" 2> "$out/$name.log"
}

run fig10 -K 16:240:32 --samplers naive,butterfly --splits 1 \
    --models uncollapsed,mean-for-mode,theta-collapsed,collapsed
run fig11 -K "$k11" --samplers naive,transpose,butterfly-stored,butterfly --splits 1,32,auto --precisions float,double
run fig12 -K 480:544:1 --samplers transpose,butterfly-stored,butterfly --splits 1 --precisions float,double

if command -v gnuplot >/dev/null 2>&1; then
    "$here/scripts/plot-figures.sh" "$out"
else
    echo "paper-figures: gnuplot not found; plot with scripts/plot-figures.sh $out" >&2
fi
