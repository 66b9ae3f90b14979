#!/bin/sh
# Run from the repository root with .seeds/ holding the binary (ldagpu) and wiki43k/, wikimix/ (train.docword,
# heldout.docword, vocab.txt, gzipped) of the cpu-peers split; $OUT the folder for the results (the device tool's).
# seeds: train to 400 and 800 iterations, K = 100, from the CVB start (auto) and the random start (--cvb-start 0)
B=$PWD/.seeds/ldagpu
cd .seeds && for c in wiki43k wikimix; do (cd $c && gunzip -f *.gz); done
one() { # corpus seed passes
    D=$PWD/$1; o=$OUT/$1-s$2-c$3
    $B train $D/train.docword --vocab $D/vocab.txt -K 100 -n 400 -a 0.2 -b 0.01 -s $2 --model collapsed --device cpu -j 2 -e 0 --doc-topics none -o $o --cvb-start $3 -q
    a=$($B eval --phi $o/phi.npy --phi-vocab $D/vocab.txt --alpha 0.2 $D/heldout.docword --vocab $D/vocab.txt -n 20 -s 1 --device cpu -j 2 | awk '$1 == "loglik_per_token" {print $2}')
    $B train --resume $o -n 400 -q
    b=$($B eval --phi $o/phi.npy --phi-vocab $D/vocab.txt --alpha 0.2 $D/heldout.docword --vocab $D/vocab.txt -n 20 -s 1 --device cpu -j 2 | awk '$1 == "loglik_per_token" {print $2}')
    echo "$1 seed $2 cvb $3 400: $a 800: $b" > $OUT/$1-s$2-c$3.txt
    rm -rf $o
}
for s in 2 3; do
    one wiki43k $s 25 & one wiki43k $s 0 & one wikimix $s 25 &
done
wait
cat $OUT/*.txt
