#!/bin/sh
# The device host's check: the suite on the GPU, then the CVB start on the host's CPU (its clone of
# the pass: the same held-out as the 2-core machine's, -8.406004 wikimix, -7.936414 wiki43k, for any thread count)
B=$PWD/build/cuda/ldagpu
lscpu | grep -E 'Model name|^CPU\(s\)' > $OUT/cpu.txt; grep -o -m1 'avx512f' /proc/cpuinfo >> $OUT/cpu.txt
nvidia-smi --query-gpu=name --format=csv,noheader >> $OUT/cpu.txt
LD_LIBRARY_PATH=.crit LDAGPU_BIN=$B LDAGPU_ROOT=$PWD build/cuda/test_ldagpu -j12 > $OUT/suite.txt 2>&1
tail -2 $OUT/suite.txt
(cd .seeds && for c in wiki43k wikimix; do (cd $c && gunzip -kf *.gz); done)
for c in wikimix wiki43k; do for j in 2 16; do
    D=$PWD/.seeds/$c; o=/tmp/m-$c-$j; rm -rf $o
    t=$($B train $D/train.docword --vocab $D/vocab.txt -K 100 -n 1 -a 0.2 -b 0.01 -s 1 --model collapsed --device cpu -j $j -e 0 --doc-topics none --cvb-start 25 -o $o 2>&1 | grep -o 'them, in [0-9.]* s')
    ll=$($B eval --phi $o/phi.npy --phi-vocab $D/vocab.txt --alpha 0.2 $D/heldout.docword --vocab $D/vocab.txt -n 20 -s 1 --device cpu -j $j | awk '$1 == "loglik_per_token" {print $2}')
    echo "$c threads $j: start $t, held-out $ll"
done; done | tee $OUT/start.txt
cat $OUT/cpu.txt
