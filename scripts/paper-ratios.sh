#!/bin/sh
# Compares our figures with Steele & Tristan's section 7 claims, from the CSVs of
# scripts/paper-figures.sh: time reductions 1 - t(butterfly)/t(other) for whole iterations.
# usage: scripts/paper-ratios.sh OUTDIR      (prints a Markdown table)
set -eu
out=${1:?usage: scripts/paper-ratios.sh OUTDIR}
# ms per iteration of (sampler, precision, split, K) from a CSV; split "any" matches all
ms() { awk -F, -v s="$2" -v p="$3" -v sp="$4" -v k="$5" \
        'NR > 1 && $2 == s && $3 == p && (sp == "any" || $5 == sp) && $1 == k && $4 == "uncollapsed" { print $7; exit }' "$1"; }
reduction() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "") print "n/a"; else printf "%.0f%%", 100 * (1 - a / b) }'; }
echo "| comparison | precision | K | ours (H100) | paper (Titan Black) |"
echo "|---|---|---|---|---|"
for p in float double; do
    paper=74; [ $p = double ] && paper=71
    b=$(ms "$out/fig11.csv" butterfly $p 1 1024); n=$(ms "$out/fig11.csv" naive $p any 1024)
    echo "| butterfly (split 1) vs naive | $p | 1024 | $(reduction "$b" "$n") | $paper% |"
    bs=$(ms "$out/fig11.csv" butterfly-stored $p any 1024)
    echo "| butterfly-stored vs naive | $p | 1024 | $(reduction "$bs" "$n") | $paper% |"
    b32=$(ms "$out/fig11.csv" butterfly $p 32 1024)
    echo "| butterfly (split 32) vs naive | $p | 1024 | $(reduction "$b32" "$n") | — |"
    b0=$(ms "$out/fig11.csv" butterfly $p auto 1024)
    echo "| butterfly (default: θ staged) vs naive | $p | 1024 | $(reduction "$b0" "$n") | — |"
done
for p in float double; do
    for K in 512 1024; do
        f="$out/fig12.csv"; [ $K = 1024 ] && f="$out/fig11.csv"
        case "$p-$K" in float-512) paper=8 ;; float-1024) paper=13 ;; double-512) paper=33 ;; *) paper=35 ;; esac
        b=$(ms "$f" butterfly $p 1 $K); t=$(ms "$f" transpose $p any $K); bs=$(ms "$f" butterfly-stored $p any $K)
        echo "| butterfly (split 1) vs transpose | $p | $K | $(reduction "$b" "$t") | $paper% |"
        echo "| butterfly-stored vs transpose | $p | $K | $(reduction "$bs" "$t") | $paper% |"
    done
done
echo
# Crossovers: the smallest K in fig11 from which the butterfly is faster than the transpose at every larger K.
for s in butterfly butterfly-stored; do
    for p in float double; do
        awk -F, -v s="$s" -v p="$p" 'NR > 1 && $3 == p && $4 == "uncollapsed" && ($2 == "transpose" || ($2 == s && $5 == 1)) { t[$1, $2] = $7; k[$1] = 1 }
            END { n = 0; for (x in k) ks[++n] = x + 0; for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (ks[j] < ks[i]) { y = ks[i]; ks[i] = ks[j]; ks[j] = y }
                  cross = "never"; for (i = n; i >= 1; i--) { if (t[ks[i], s] < t[ks[i], "transpose"]) cross = ks[i]; else break }
                  printf "- %s%s faster than transpose, %s: from K = %s on (fig11 points)\n", s, s == "butterfly" ? " (split 1)" : "", p, cross }' "$out/fig11.csv"
    done
done
