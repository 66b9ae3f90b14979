#!/bin/sh
# Run from the repository root on the device, with .seeds/ holding the cpu-peers split as
# {wiki43k,wikimix}/{train,heldout}.docword.gz and vocab.txt.gz, the CPU build as .seeds/ldagpu (passes.sh) or
# build/cpu's objects and leave-out.patch applied to a copy, .seeds/cvb_start_loo.c (leave-out.sh); OUT: where results go.
set -e
gcc -O3 -march=x86-64-v2 -std=c11 -g -Wall -Wextra -fPIC -fvisibility=hidden -D_GNU_SOURCE -pthread -Isrc -Iinclude -Ibuild/cpu/gen -c .seeds/cvb_start_loo.c -o /tmp/cvb_start_loo.o
gcc -pthread -o /tmp/ldagpu-loo $(find build/cpu/src -name '*.o' ! -path '*train/cvb_start.o') build/cpu/gen/stopwords_data.o /tmp/cvb_start_loo.o /usr/lib/x86_64-linux-gnu/libpcre2-8.so.0 -lz -lm
B=/tmp/ldagpu-loo
cd .seeds && for c in wiki43k wikimix; do (cd $c && gunzip -kf *.gz); done
W=/tmp/loo2; mkdir -p $W
chain() { # corpus seed
    D=$PWD/$1; o=$W/$1-s$2; done_=0
    for n in 200 400 800; do
        if [ $done_ = 0 ]; then $B train $D/train.docword --vocab $D/vocab.txt -K 100 -n $n -a 0.2 -b 0.01 -s $2 --model collapsed --device cpu -j 2 -e 0 --doc-topics none -o $o -q --phi-passes 1
        else $B train --resume $o -n $((n - done_)) -q; fi
        done_=$n; m=$o-$n-L; rm -rf $m; cp -r $o $m
        LDA_CVB_LOO=1 $B train --resume $m -n 0 --phi-passes 41 -q 2> $W/loo-$1-s$2-$n.txt
    done
}
for s in 1 2 3; do chain wiki43k $s & chain wikimix $s & done
wait
for f in $W/loo-*.txt; do echo "$(basename $f .txt) $(awk '{printf "%s ", $3}' $f)"; done > $OUT/lpo.txt
cat $OUT/lpo.txt
