#!/bin/sh
# H100, warm: wiki43k and wikimix sparse collapsed (the counts' form: the update by word not taken);
# 10^9 at K = 1024 with the update by word off and on, to 15.
set -u
export LD_LIBRARY_PATH=$PWD/.crit
mkdir -p $OUT
B=$PWD/build/cuda/ldagpu
t0=$(date +%s)
for c in wiki43k wikimix; do
  timeout 120 $B bench .corpora/$c/docword.$c.txt.gz -K 1024,10000 --samplers sparse --models collapsed -w 30 -n 10 -r 3 -o $OUT/w.csv > $OUT/bench-$c.log 2>&1 || tail -3 $OUT/bench-$c.log
  echo "$c: $(cut -d, -f1,7,10,11 $OUT/w.csv | tr '\n' ' ')"
  cat $OUT/w.csv >> $OUT/wiki.csv
done
echo "bench done at $(( $(date +%s) - t0 )) s"
[ -f /dev/shm/c.ldab ] || $B generate -o /dev/shm/c.ldab --docs 3333333 --mean-length 300 --lengths lognormal --length-sigma 1 --vocab-size 100000 -K 10000 -a 0.00032 -b 0.01 -s 1 -j 16 > $OUT/gen.log 2>&1
upto() { # name switch N
  rm -rf /dev/shm/m-*
  LDAGPU_WORD_CHANGES=$2 $B train /dev/shm/c.ldab -K 1024 -n 200 -b 0.01 --model collapsed --sampler sparse --eval-every 0 -s 1 -o /dev/shm/m-$1 > $OUT/$1.log 2>&1 &
  P=$!
  while kill -0 $P 2>/dev/null && ! grep -qE "^iter +$3 " $OUT/$1.log; do sleep 0.5; done
  kill -9 $P 2>/dev/null; wait $P 2>/dev/null
  rm -rf /dev/shm/m-*
  echo "$1 at $(( $(date +%s) - t0 )) s:"; grep -E '^iter +(1|5|10|15) ' $OUT/$1.log
}
upto k1024off off 15
upto k1024on "" 15
grep -E "sparse:" $OUT/k1024on.log | cut -c1-300
echo "done at $(( $(date +%s) - t0 )) s"
