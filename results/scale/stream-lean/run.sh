#!/bin/sh
# lean: the host's narrow form of streamed chunks. GPU stream tests, sanitizers on a streamed test,
# then 2e8 generated tokens at K = 10^4: in memory, chunked in memory, streamed (copies' share).
set -u
B=build/cuda
export LD_LIBRARY_PATH=$PWD/.crit LDAGPU_BIN=$PWD/$B/ldagpu LDAGPU_ROOT=$PWD
mkdir -p $OUT
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/gpu.txt
timeout 200 $B/test_ldagpu -j4 --filter '@(stream_gpu|stream_tokens|stream_plan|resume_gpu|z_start)/*' > $OUT/stream-tests.log 2>&1; echo "stream tests rc $?"; grep -E "Synthesis|FAIL|CRASH" $OUT/stream-tests.log | head
timeout 120 compute-sanitizer --tool memcheck --leak-check no --error-exitcode 9 $B/test_ldagpu --filter 'stream_gpu/streamed_equals_in_memory_k1024' -j1 > $OUT/memcheck.log 2>&1; echo "memcheck rc $?"; grep -E "ERROR SUMMARY|Synthesis" $OUT/memcheck.log | tail -2
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 $B/test_ldagpu --filter 'stream_gpu/streamed_equals_in_memory_k1024' -j1 > $OUT/racecheck.log 2>&1; echo "racecheck rc $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|Synthesis" $OUT/racecheck.log | tail -2
T0=$(date +%s)
$B/ldagpu generate -o /tmp/g.ldab --docs 666667 --mean-length 300 --lengths lognormal --vocab-size 50000 -K 100 -s 1 -j 16 > $OUT/gen.log 2>&1; echo "generate rc $? in $(( $(date +%s) - T0 )) s"
ms() { awk -F, '$1>=1 && $1<=20 {s+=$2; z+=$5; n++} END {printf "%.1f ms an iteration, z %.1f (n=%d)", 1000*s/n, 1000*z/n, n}' $1/log.csv; }
run() {
  W=$2; [ $W = 0 ] && W=
  LDAGPU_STREAM_CHUNK_WARPS=$W timeout 100 $B/ldagpu train /tmp/g.ldab -K 10000 --model collapsed --sampler sparse -n 20 -e 0 -s 1 --stream-tokens $3 --doc-topics top:10 --force -o /tmp/r-$1 > /tmp/r-$1.log 2>&1
  echo "$1 rc $?: $(ms /tmp/r-$1) | $(grep -E 'tokens (in|streamed)|iterations in|set up in' /tmp/r-$1.log | cut -c1-400)"
  grep -E "^iter" /tmp/r-$1.log | sed -n '2p;10p;20p'
  cat /tmp/r-$1.log >> $OUT/big.log
}
run whole 0 off
run chunked 3200 off
run streamed 3200 on
run streamed-auto 0 on
for f in phi.npy z.npy doc_topics_index.npy; do for r in chunked streamed streamed-auto; do cmp /tmp/r-whole/$f /tmp/r-$r/$f && echo "same $f whole/$r"; done; done
