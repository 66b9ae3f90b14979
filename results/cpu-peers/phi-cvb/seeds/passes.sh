#!/bin/sh
# Run from the repository root on the device, with .seeds/ holding the cpu-peers split as
# {wiki43k,wikimix}/{train,heldout}.docword.gz and vocab.txt.gz, the CPU build as .seeds/ldagpu (passes.sh) or
# build/cpu's objects and leave-out.patch applied to a copy, .seeds/cvb_start_loo.c (leave-out.sh); OUT: where results go.
# held-out against the polish's passes: chains of K = 100 (seeds 1-3, wiki43k and wikimix) to 200/400/500/800,
# each point's model rewritten with --phi-passes P (and the expected φ) and scored
B=$PWD/.seeds/ldagpu
cd .seeds && for c in wiki43k wikimix; do (cd $c && gunzip -kf *.gz); done
W=/tmp/passes; mkdir -p $W
ev() { $B eval --phi $1 --phi-vocab $2/vocab.txt --alpha 0.2 $2/heldout.docword --vocab $2/vocab.txt -n 20 -s 1 --device cpu -j 2 | awk '$1 == "loglik_per_token" {print $2}'; }
chain() { # corpus seed
    D=$PWD/$1; o=$W/$1-s$2; done_=0
    for n in 200 400 500 800; do
        if [ $done_ = 0 ]; then $B train $D/train.docword --vocab $D/vocab.txt -K 100 -n $n -a 0.2 -b 0.01 -s $2 --model collapsed --device cpu -j 2 -e 0 --doc-topics none -o $o -q
        else $B train --resume $o -n $((n - done_)) -q; fi
        done_=$n; rm -rf $o-$n; cp -r $o $o-$n
    done
    for n in 200 400 500 800; do
        line="$1 s$2 $n"
        for P in E 5 10 20 40; do
            m=$o-$n-$P; rm -rf $m; cp -r $o-$n $m
            if [ $P = E ]; then $B train --resume $m -n 0 --phi-estimate expected -q; else $B train --resume $m -n 0 --phi-passes $P -q; fi
            line="$line $P:$(ev $m/phi.npy $D)"; rm -rf $m
        done
        echo "$line" >> $OUT/passes.txt
    done
}
for s in 1 2 3; do chain wiki43k $s & chain wikimix $s & done
wait
sort $OUT/passes.txt
