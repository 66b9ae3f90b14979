#!/bin/sh
# The count update by word: GPU suites and the new tests beside the 10^9 corpus's generation;
# sanitizers on the new tests; 10^9 K = 10^4 to 30 with it off and on (LDAGPU_WORD_CHANGES).
set -u
export LD_LIBRARY_PATH=$PWD/.crit LDAGPU_BIN=$PWD/build/cuda/ldagpu LDAGPU_ROOT=$PWD
mkdir -p $OUT
B=$PWD/build/cuda/ldagpu T=build/cuda/test_ldagpu
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
t0=$(date +%s)
( timeout 300 $T -j4 --filter '@(word_changes|word_changes_gpu|gpu|stream_gpu|stream_tokens|resume_gpu|z_start|doc_topics|gpu_shards)/*' > $OUT/tests.log 2>&1; echo "tests rc $?" >> $OUT/tests.log ) &
TP=$!
[ -f /dev/shm/c.ldab ] || $B generate -o /dev/shm/c.ldab --docs 3333333 --mean-length 300 --lengths lognormal --length-sigma 1 --vocab-size 100000 -K 10000 -a 0.00032 -b 0.01 -s 1 -j 16 > $OUT/gen.log 2>&1
echo "corpus at $(( $(date +%s) - t0 )) s"
wait $TP; grep -E "Synthesis|tests rc" $OUT/tests.log; grep -E "^\[FAIL\]|CRASH" $OUT/tests.log | head -10
echo "tests done at $(( $(date +%s) - t0 )) s"
timeout 150 compute-sanitizer --tool memcheck --target-processes all --leak-check no --error-exitcode 9 $T --filter 'word_changes_gpu/filed_by_word_trains_the_model_of_the_atomics' -j1 > $OUT/memcheck.log 2>&1; echo "memcheck rc $?"; grep -E "ERROR SUMMARY|Synthesis" $OUT/memcheck.log | sort | uniq -c | tail -3
timeout 120 compute-sanitizer --tool racecheck --target-processes all --error-exitcode 9 $T --filter 'word_changes_gpu/filed_by_word_trains_the_model_of_the_atomics' -j1 > $OUT/racecheck.log 2>&1; echo "racecheck rc $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|Synthesis" $OUT/racecheck.log | sort | uniq -c | tail -3
echo "checks done at $(( $(date +%s) - t0 )) s"
upto() { # name switch N
  rm -rf /dev/shm/m-*
  LDAGPU_WORD_CHANGES=$2 $B train /dev/shm/c.ldab -K 10000 -n 200 -a 0.00032 -b 0.01 --model collapsed --sampler sparse --eval-every 0 -s 1 -o /dev/shm/m-$1 > $OUT/$1.log 2>&1 &
  P=$!
  while kill -0 $P 2>/dev/null && ! grep -qE "^iter +$3 " $OUT/$1.log; do sleep 0.5; done
  kill -9 $P 2>/dev/null; wait $P 2>/dev/null
  rm -rf /dev/shm/m-*
  echo "$1 at $(( $(date +%s) - t0 )) s: $(grep -E '^iter +(1|2|5|10|20|25|30|50|75|100) ' $OUT/$1.log | awk '{printf "it%s %s (z %s u %s) ", $2, $3, $7, $9}')"
}
upto off30 off 30
upto on30 "" 30
grep -E "set up|device memory|sparse:" $OUT/on30.log | cut -c1-400
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader
echo "done at $(( $(date +%s) - t0 )) s"
