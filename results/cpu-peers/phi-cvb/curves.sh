#!/bin/sh
# curves.sh LDAGPU DATA CORPUS "ITERATIONS" "PASSES": held-out a token of --phi-estimate cvb's φ
# after each number of passes, from the sample after each number of iterations (K = 100, seed 1,
# 2 threads, --cvb-start auto), beside the expected φ of the same sample. DATA holds the
# cpu-peers split (DATA/CORPUS/{train,heldout}.docword, vocab.txt: scripts/cpu-peers.sh).
# The chain is the same whatever φ is written, so each point's φ is rewritten with
# `train --resume MODEL -n 0 --phi-estimate ... --phi-passes P`.
set -eu
B=$1; D=$2/$3; W=$(mktemp -d); done_=0
trap 'rm -rf "$W"' EXIT
ev() {
    "$B" eval --phi "$W/m/phi.npy" --phi-vocab "$D/vocab.txt" --alpha 0.2 "$D/heldout.docword" --vocab "$D/vocab.txt" \
        -n 20 -s 1 --device cpu -j 2 | awk '$1 == "loglik_per_token" {print $2}'
}
for n in $4; do
    if [ "$done_" = 0 ]; then
        "$B" train "$D/train.docword" --vocab "$D/vocab.txt" -K 100 -n "$n" -a 0.2 -b 0.01 -s 1 --model collapsed \
            --device cpu -j 2 -e 0 --doc-topics none -o "$W/m" -q
    else
        "$B" train --resume "$W/m" -n $((n - done_)) -q
    fi
    done_=$n
    "$B" train --resume "$W/m" -n 0 --phi-estimate expected -q
    line="$3 $n expected $(ev)"
    for p in $5; do
        "$B" train --resume "$W/m" -n 0 --phi-estimate cvb --phi-passes "$p" -q
        line="$line $p:$(ev)"
    done
    echo "$line"
done
