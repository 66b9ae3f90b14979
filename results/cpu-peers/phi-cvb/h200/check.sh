#!/bin/sh
# The device host's check: the suite on the GPU, then on the host's CPU 25 iterations with the
# polished φ (--phi-estimate auto = cvb): the same held-out as the 2-core machine's, -8.333429
# wikimix, -7.848414 wiki43k, for any thread count
B=$PWD/build/cuda/ldagpu
lscpu | grep -E 'Model name|^CPU\(s\)' > $OUT/cpu.txt; grep -o -m1 'avx512f' /proc/cpuinfo >> $OUT/cpu.txt
nvidia-smi --query-gpu=name --format=csv,noheader >> $OUT/cpu.txt
LD_LIBRARY_PATH=.crit LDAGPU_BIN=$B LDAGPU_ROOT=$PWD build/cuda/test_ldagpu -j12 > $OUT/suite.txt 2>&1
tail -2 $OUT/suite.txt
(cd .seeds && for c in wiki43k wikimix; do (cd $c && gunzip -kf *.gz); done)
for c in wikimix wiki43k; do for j in 2 16; do
    D=$PWD/.seeds/$c; o=/tmp/m-$c-$j; rm -rf $o
    $B train $D/train.docword --vocab $D/vocab.txt -K 100 -n 25 -a 0.2 -b 0.01 -s 1 --model collapsed --device cpu -j $j -e 0 --doc-topics none -o $o > $o.log 2>&1
    t=$(grep -o 'passes of CVB0 from the last sample in [0-9.]* s' $o.log); it=$(grep -o '25 iterations in [0-9.]* s' $o.log)
    ll=$($B eval --phi $o/phi.npy --phi-vocab $D/vocab.txt --alpha 0.2 $D/heldout.docword --vocab $D/vocab.txt -n 20 -s 1 --device cpu -j $j | awk '$1 == "loglik_per_token" {print $2}')
    echo "$c threads $j: $it; φ $t; held-out $ll"
done; done | tee $OUT/phi-cvb.txt
cat $OUT/cpu.txt
