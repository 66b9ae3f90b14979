#!/bin/sh
# stream2: the stream tests again, then 2e8 generated tokens at K = 10^4: in memory, chunked in memory, streamed; then auto beside GPU memory held by two stopped runs
set -u
B=build/stream2
export LD_LIBRARY_PATH=$PWD/.crit LDAGPU_BIN=$PWD/$B/ldagpu LDAGPU_ROOT=$PWD
timeout 150 $B/test_ldagpu -j2 --filter 'stream*/*' > $OUT/stream-tests.log 2>&1; echo "stream tests rc $?"; grep -E "Synthesis|FAIL" $OUT/stream-tests.log | head
T0=$(date +%s)
$B/ldagpu generate -o /tmp/g.ldab --docs 666667 --mean-length 300 --lengths lognormal --vocab-size 50000 -K 100 -s 1 -j 16 > $OUT/gen.log 2>&1; echo "generate rc $? in $(( $(date +%s) - T0 )) s"
ms() { awk -F, '$1>=1 && $1<=20 {s+=$2; z+=$5; n++} END {printf "%.1f ms an iteration, z %.1f (n=%d)", 1000*s/n, 1000*z/n, n}' $1/log.csv; }
run() {
  W=$2; [ $W = 0 ] && W=
  LDAGPU_STREAM_CHUNK_WARPS=$W timeout 130 $B/ldagpu train /tmp/g.ldab -K 10000 --model collapsed --sampler sparse -n 20 -e 0 -s 1 --stream-tokens $3 --doc-topics top:10 --force -o /tmp/r-$1 > /tmp/r-$1.log 2>&1
  echo "$1 rc $?: $(ms /tmp/r-$1) | $(grep -E 'tokens (in|streamed)|iterations in|set up in' /tmp/r-$1.log | cut -c1-400)"
  cat /tmp/r-$1.log >> $OUT/big.log
}
run whole 0 off
run chunked 3200 off
run streamed 3200 on
for f in phi.npy z.npy; do cmp /tmp/r-whole/$f /tmp/r-streamed/$f && echo "same $f whole/streamed"; cmp /tmp/r-whole/$f /tmp/r-chunked/$f && echo "same $f whole/chunked"; done
X=$(grep -o '[0-9.]* GiB of state' /tmp/r-whole.log | head -1 | cut -d' ' -f1)
R=$(grep -o '[0-9.]* GiB stay' /tmp/r-streamed.log | head -1 | cut -d' ' -f1)
LEAVE=$(echo "$X $R" | awk '{printf "%.2f", ($1 + $2) / 2 + 0.06}')
echo "in memory $X GiB, streamed $R GiB stay: leaving $LEAVE GiB free"
python3 $B/ballast.py $LEAVE > /tmp/ballast.log 2>&1 &
BP=$!
for i in $(seq 1 30); do grep -q "ballast holds" /tmp/ballast.log && break; sleep 1; done; cat /tmp/ballast.log
run auto 0 auto
for f in phi.npy z.npy; do cmp /tmp/r-whole/$f /tmp/r-auto/$f && echo "same $f whole/auto"; done
kill $BP
