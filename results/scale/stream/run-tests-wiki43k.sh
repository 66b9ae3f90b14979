#!/bin/sh
# stream2's device check: the stream tests, sanitizers on a streamed run, the sparse GPU tests, wiki43k timings
set -u
B=build/stream2
export LD_LIBRARY_PATH=$PWD/.crit LDAGPU_BIN=$PWD/$B/ldagpu LDAGPU_ROOT=$PWD
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
timeout 240 $B/test_ldagpu -j2 --filter 'stream*/*' > $OUT/stream-tests.log 2>&1; echo "stream tests rc $?"
grep -E "Synthesis|FAIL|CRASH|differ|Assert" $OUT/stream-tests.log | head -20
$B/ldagpu generate -o /tmp/long.ldab --docs 300 --mean-length 300 --lengths lognormal --length-sigma 1.2 --vocab-size 3000 -K 50 -s 3 >/dev/null 2>&1
for tool in memcheck racecheck; do
  LDAGPU_STREAM_CHUNK_WARPS=3 timeout 100 compute-sanitizer --tool $tool --error-exitcode 99 $B/ldagpu train /tmp/long.ldab -K 1024 -n 2 -e 2 --model collapsed --sampler sparse --piece-length 64 --optimize-interval 1 --stream-tokens on --device cuda -q -o /tmp/san-$tool > $OUT/san-$tool.log 2>&1
  echo "$tool streamed rc $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/san-$tool.log | head -3)"
done
timeout 120 $B/test_ldagpu -j2 --filter 'gpu*/*sparse*' > $OUT/gpu-sparse.log 2>&1; echo "gpu sparse rc $?"
grep -E "Synthesis|FAIL" $OUT/gpu-sparse.log | head
for mode in "off 0" "off 128" "on 128" "on 32"; do set -- $mode
  W=$2; [ $W = 0 ] && W=
  LDAGPU_STREAM_CHUNK_WARPS=$W timeout 60 $B/ldagpu train .corpora/wiki43k/docword.wiki43k.txt.gz -K 1024 --model collapsed --sampler sparse -n 20 -e 20 -s 1 --stream-tokens $1 --force -o /tmp/w-$1-$2 > /tmp/w.log 2>&1
  echo "wiki43k $1 $2 rc $?: $(grep -E 'tokens (in|streamed)|iterations in' /tmp/w.log)"; cat /tmp/w.log >> $OUT/w43.log
done
for m in off-128 on-128 on-32; do cmp /tmp/w-off-0/phi.npy /tmp/w-$m/phi.npy && cmp /tmp/w-off-0/z.npy /tmp/w-$m/z.npy && echo "wiki43k $m same phi and z"; done
