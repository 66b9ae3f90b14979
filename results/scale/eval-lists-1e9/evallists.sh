#!/bin/sh
# The predictive term from the documents' lists: GPU suites, memcheck on the new tests; the
# evaluation's time at 10^9 tokens, K = 10^4 (before: build/cuda-head), and the figures it prints.
set -u
export LD_LIBRARY_PATH=$PWD/.crit LDAGPU_BIN=$PWD/build/cuda/ldagpu LDAGPU_ROOT=$PWD
mkdir -p $OUT
NEW=$PWD/build/cuda/ldagpu BASE=$PWD/build/cuda-head/ldagpu T=build/cuda/test_ldagpu
nvidia-smi --query-gpu=name --format=csv,noheader
t0=$(date +%s)
( timeout 300 $T -j4 --filter '@(gpu|stream_gpu|stream_tokens|resume_gpu|z_start|doc_topics|gpu_shards|word_changes_gpu|heldout*|eval*)/*' > $OUT/tests.log 2>&1; echo "tests rc $?" >> $OUT/tests.log ) &
TP=$!
[ -f /dev/shm/c.ldab ] || $NEW generate -o /dev/shm/c.ldab --docs 3333333 --mean-length 300 --lengths lognormal --length-sigma 1 --vocab-size 100000 -K 10000 -a 0.00032 -b 0.01 -s 1 -j 16 > $OUT/gen.log 2>&1
wait $TP; grep -E "Synthesis|tests rc" $OUT/tests.log; grep -E "^\[FAIL\]|CRASH|Assert" $OUT/tests.log | head -10
echo "tests done at $(( $(date +%s) - t0 )) s"
timeout 150 compute-sanitizer --tool memcheck --leak-check no --error-exitcode 9 $T --filter 'gpu/list_predictive_equals_the_cpu_k1000' -j1 > $OUT/memcheck.log 2>&1; echo "memcheck rc $?"; grep -E "ERROR SUMMARY|Synthesis" $OUT/memcheck.log | tail -2
evals() { # name bin iterations
  rm -rf /dev/shm/m-*
  $2 train /dev/shm/c.ldab -K 10000 -n $3 -a 0.00032 -b 0.01 --model collapsed --sampler sparse --eval-every 1 -s 1 --doc-topics none -o /dev/shm/m-$1 > $OUT/$1.log 2>&1 &
  P=$!; n=0; s0=$(date +%s.%N)
  while kill -0 $P 2>/dev/null; do
    c=$(grep -cE "^iter " $OUT/$1.log)
    if [ "$c" != "$n" ]; then n=$c; echo "line $n at $(awk -v a=$(date +%s.%N) -v b=$s0 "BEGIN {printf \"%.2f\", a - b}")" >> $OUT/$1.times; fi
    if grep -qE "^iter +$3 " $OUT/$1.log; then break; fi
    sleep 0.05
  done
  kill -9 $P 2>/dev/null; wait $P 2>/dev/null; rm -rf /dev/shm/m-*
  echo "$1:"; grep -E "^iter" $OUT/$1.log | cut -c1-150; cat $OUT/$1.times
}
evals base $BASE 2
evals new $NEW 3
echo "done at $(( $(date +%s) - t0 )) s"
