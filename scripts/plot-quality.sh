#!/bin/sh
# Plots OUTDIR/K<K>-<variant>.csv from scripts/time-to-quality.sh (dashed: --refresh variants,
# dotted: --sampler sparse): joint log-likelihood per token against wall seconds of training
# (quality-K<K>.png), and, where the runs held documents out, their held-out log-likelihood by
# document completion (heldout-K<K>.png: the measure that does not reward mean-for-mode's
# mode-seeking); the joint plots with the reference figures measured on the same
# corpus (alpha = 50/K, beta = 0.01): exact collapsed Gibbs (GibbsLDA++, K=256, 100 iterations:
# -8.934 at 4.24 s an iteration), CuLDA_CGS (H100, K=1024: -8.90 after 0.375 s) and WarpLDA
# (2 CPU cores, K=1024: -9.924 after 20 s). Installs gnuplot when missing.
# usage: scripts/plot-quality.sh OUTDIR
set -eu
out=${1:?usage: scripts/plot-quality.sh OUTDIR}
here=$(cd "$(dirname "$0")/.." && pwd)
command -v gnuplot >/dev/null 2>&1 || "$here/scripts/install-deps.sh" --plots
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plot_metric() { # K COLUMN FILE-PREFIX
    K=$1 col=$2 prefix=$3
    list=""
    colour=0
    for model in uncollapsed mean-for-mode theta-collapsed collapsed phi-mean; do
        colour=$((colour + 1))
        for f in "$out/K$K-$model.csv" "$out/K$K-$model"-r[0-9]*.csv "$out/K$K-$model-sparse.csv"; do
            [ -f "$f" ] || continue
            name=$(basename "$f" .csv)
            name=${name#K$K-}
            case $name in *-r[0-9]*) style="dt 2 pt 6" ;; *-sparse) style="dt 3 pt 4" ;; *) style="dt 1 pt 7" ;; esac
            # train_seconds (col 3) and the metric (8: loglik_joint, 9: loglik_heldout) of evaluations after the start
            awk -F, -v c="$col" 'NR > 2 && $c != "" { print $3, $c }' "$f" > "$tmp/$K-$name-$col.dat"
            [ -s "$tmp/$K-$name-$col.dat" ] || continue
            list="$list\"$tmp/$K-$name-$col.dat\" using 1:2 with linespoints lc $colour $style title \"$name\", "
        done
    done
    [ -n "$list" ] || return 0
    if [ "$col" = 9 ]; then
        gnuplot <<GP
set terminal pngcairo size 1000,650 font ",11" noenhanced
set output "$out/$prefix-K$K.png"
set title "K=$K: held-out log-likelihood per token (document completion) against training time"
set xlabel "seconds of training (evaluations excluded)"
set ylabel "held-out log-likelihood / token"
set key bottom right
set grid
set logscale x
plot ${list%, }
GP
        return 0
    fi
    if [ $K = 1024 ]; then
        refs='-8.90 with lines dt 2 lc rgb "black" title "CuLDA\_CGS, H100: -8.90 after 0.375 s", -9.924 with lines dt 3 lc rgb "gray40" title "WarpLDA, 2 cores: -9.924 after 20 s"'
        extra='set arrow from 0.375, graph 0 to 0.375, graph 1 nohead dt 2 lc rgb "black"
set arrow from 0.19, graph 0 to 0.19, graph 1 nohead dt 4 lc rgb "red"
set label "target: 0.19 s" at 0.19, graph 0.05 offset 0.5,0 tc rgb "red"'
    else
        refs='-8.934 with lines dt 2 lc rgb "black" title "exact collapsed Gibbs (GibbsLDA++), 100 iterations: -8.934", -8.979 with lines dt 3 lc rgb "red" title "within 0.5% of -8.934"'
        extra=''
    fi
    gnuplot <<GP
set terminal pngcairo size 1000,650 font ",11" noenhanced
set output "$out/quality-K$K.png"
set title "wiki43k, K=$K: joint log-likelihood per token against training time (alpha = 50/K, beta = 0.01)"
set xlabel "seconds of training (evaluations excluded)"
set ylabel "log p(w, z) / N"
set key bottom right
set grid
set logscale x
$extra
plot $list $refs
GP
}
for K in 1024 256; do
    plot_metric "$K" 8 quality
    plot_metric "$K" 9 heldout
done
ls "$out"/*.png
