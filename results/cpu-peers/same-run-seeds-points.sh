#!/bin/sh
# The extra points of same-run-seeds-fine.csv: ldagpu's chains of same-run-seeds.csv trained again
# (the same binary, settings and seeds; a resumed run is the same chain), φ written after 300, 400,
# 500 and 600 iterations and scored by the harness's evaluator. Prints "SEED N PHI_SECONDS HELDOUT".
# 400 is a check: its held-out must be the harness's. A point's seconds are the harness run's
# log.csv summed to N plus PHI_SECONDS (the polish at N, which that run did not make).
# usage: sh same-run-seeds-points.sh LDAGPU DATA (DATA: cpu-peers.sh's WORK/data/wikimix) OUT
set -eu
B=$1 D=$2 out=$3
for seed in 1 2 3; do
    m=$out/s$seed
    rm -rf "$m"
    done_=0
    for n in 300 400 500 600; do
        if [ $done_ = 0 ]; then
            "$B" train "$D/train.docword" --vocab "$D/vocab.txt" -K 100 -n $n -a 0.2 -b 0.01 -s $seed --model collapsed \
                --sampler auto --device cpu -j 2 -e 0 --doc-topics none -o "$m" -q
        else
            "$B" train --resume "$m" -n $((n - done_)) -q
        fi
        cp "$m/phi.npy" "$out/phi-s$seed-$n.npy"
        done_=$n
        phs=$(awk -F, -v n=$n 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "phi_seconds") c = i} NR > 1 && $1 == n {print $c}' "$m/log.csv")
        ll=$("$B" eval --phi "$out/phi-s$seed-$n.npy" --phi-vocab "$D/vocab.txt" --alpha 0.2 "$D/heldout.docword" \
            --vocab "$D/vocab.txt" -n 20 -s 1 --device cpu -j 2 | awk '$1 == "loglik_per_token" {print $2}')
        echo "$seed $n $phs $ll"
    done
done
