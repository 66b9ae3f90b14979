#!/bin/sh
# stream2: auto beside memory held by a ballast: the in-memory plan does not fit, the run streams; its model against the in-memory one
set -u
B=build/stream2
export LD_LIBRARY_PATH=$PWD/.crit
LDAGPU_BIN=$PWD/$B/ldagpu LDAGPU_ROOT=$PWD timeout 100 $B/test_ldagpu -j2 --filter 'stream*/*' > $OUT/stream-tests.log 2>&1; echo "stream tests rc $?"; grep -E "Synthesis|FAIL" $OUT/stream-tests.log | head -5
$B/ldagpu generate -o /tmp/g.ldab --docs 666667 --mean-length 300 --lengths lognormal --vocab-size 50000 -K 100 -s 1 -j 16 > /dev/null 2>&1
train() { timeout 150 $B/ldagpu train /tmp/g.ldab -K 10000 --model collapsed --sampler sparse -n 20 -e 0 -s 1 --doc-topics top:10 --force "$@"; }
train --stream-tokens off -o /tmp/r-whole > /tmp/r-whole.log 2>&1; echo "whole rc $?: $(grep -E 'tokens in|iterations in' /tmp/r-whole.log)"
X=$(grep -o '[0-9.]* GiB of state' /tmp/r-whole.log | head -1 | cut -d' ' -f1)
for extra in 0.30 0.15 0.0; do
  LEAVE=$(echo "$X $extra" | awk '{printf "%.2f", $1 + $2}')
  python3 $B/ballast.py $LEAVE > /tmp/ballast.log 2>&1 &
  BP=$!
  for i in $(seq 1 30); do grep -q "ballast holds" /tmp/ballast.log && break; sleep 1; done; cat /tmp/ballast.log
  train -o /tmp/r-auto > /tmp/r-auto.log 2>&1 &
  TP=$!
  for i in $(seq 1 60); do grep -qE "tokens (in|streamed)|train:" /tmp/r-auto.log && break; sleep 1; done
  grep -E "tokens (in|streamed)|train:" /tmp/r-auto.log | cut -c1-400
  if grep -q "tokens streamed" /tmp/r-auto.log; then wait $TP; echo "auto rc $?"; kill $BP; break; fi
  kill $TP; wait $TP; kill $BP; wait $BP; sleep 1
done
grep -E "iterations in|set up in|written" /tmp/r-auto.log
awk -F, '$1>=1 && $1<=20 {s+=$2; n++} END {printf "auto %.1f ms an iteration (n=%d)\n", 1000*s/n, n}' /tmp/r-auto/log.csv
awk -F, '$1>=1 && $1<=20 {s+=$2; n++} END {printf "whole %.1f ms an iteration (n=%d)\n", 1000*s/n, n}' /tmp/r-whole/log.csv
for f in phi.npy z.npy doc_topics_index.npy doc_topics_weight.npy; do cmp /tmp/r-whole/$f /tmp/r-auto/$f && echo "same $f whole/auto"; done
cat /tmp/r-auto.log > $OUT/auto.log
