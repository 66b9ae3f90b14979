#!/bin/sh
# Plots the CSVs of scripts/paper-figures.sh (OUTDIR/fig10.csv, fig11.csv, fig12.csv) as
# PNGs like the paper's: seconds for 100 iterations against K, one line per variant.
# Installs gnuplot (Debian/Ubuntu) when it is missing.
# usage: scripts/plot-figures.sh OUTDIR
set -eu
out=${1:?usage: scripts/plot-figures.sh OUTDIR}
here=$(cd "$(dirname "$0")/.." && pwd)
command -v gnuplot >/dev/null 2>&1 || "$here/scripts/install-deps.sh" --plots
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# series FILE FILTER-AWK-CONDITION LABEL -> one data file "K seconds_per_100_iterations"
series() {
    awk -F, -v OFS=' ' "NR > 1 && ($2) { print \$1, \$7 / 10 }" "$1" | sort -n > "$tmp/$3.dat"
    if [ -s "$tmp/$3.dat" ]; then printf '"%s" using 1:2 with linespoints title "%s", ' "$tmp/$3.dat" "$4"; fi
}

plot() { # png title plotlist
    gnuplot <<GP
set terminal pngcairo size 1000,650 font ",11" noenhanced
set output "$1"
set title "$2"
set xlabel "K (topics)"
set ylabel "seconds for 100 iterations (z + updates)"
set key top left
set grid
plot ${3%, }
GP
}

if [ -f "$out/fig10.csv" ]; then
    list=""
    for model in uncollapsed mean-for-mode theta-collapsed collapsed; do
        for sampler in naive butterfly; do
            list="$list$(series "$out/fig10.csv" "\$2 == \"$sampler\" && \$4 == \"$model\"" "f10-$model-$sampler" "$model, $sampler")"
        done
    done
    plot "$out/fig10.png" "Fig. 10: model versions x naive / butterfly (float, split 1)" "$list"
fi
for precision in float double; do
    [ -f "$out/fig11.csv" ] || break
    list=""
    for v in "naive 1" "transpose 1" "butterfly-stored 1" "butterfly 1" "butterfly 32" "butterfly auto"; do
        set -- $v
        label="$1"; [ "$1" = butterfly ] && label="butterfly, split $2"
        [ "$1 $2" = "butterfly auto" ] && label="butterfly, default (theta staged)"
        list="$list$(series "$out/fig11.csv" "\$2 == \"$1\" && \$3 == \"$precision\" && \$5 == \"$2\"" "f11-$precision-$1-$2" "$label")"
    done
    sub=a; [ $precision = double ] && sub=b
    plot "$out/fig11$sub.png" "Fig. 11$sub: $precision intermediate sums" "$list"
done
for precision in float double; do
    [ -f "$out/fig12.csv" ] || break
    list=""
    for s in transpose butterfly-stored butterfly; do
        list="$list$(series "$out/fig12.csv" "\$2 == \"$s\" && \$3 == \"$precision\"" "f12-$precision-$s" "$s")"
    done
    sub=a; [ $precision = double ] && sub=b
    plot "$out/fig12$sub.png" "Fig. 12$sub: 480 <= K <= 544, $precision" "$list"
done
ls "$out"/*.png
