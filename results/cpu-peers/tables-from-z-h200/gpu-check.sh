#!/bin/sh
# GPU machine: the suite (CPU and GPU tests), the GPU's wiki figures at K = 1024 (the limit
# 1.31 / 2.02 ms on the H100), memcheck on a GPU run.
set -u
export LD_LIBRARY_PATH=$PWD/.crit LDAGPU_BIN=$PWD/build/cuda/ldagpu LDAGPU_ROOT=$PWD
mkdir -p $OUT
B=$PWD/build/cuda/ldagpu
t0=$(date +%s)
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
timeout 420 build/cuda/test_ldagpu -j12 --verbose=0 > $OUT/tests.log 2>&1
echo "tests rc=$? at $(( $(date +%s) - t0 )) s: $(grep Synthesis $OUT/tests.log)"
grep -E "\[FAIL\]|Assertion" $OUT/tests.log | head -10
for c in wiki43k wikimix; do
  timeout 120 $B bench .corpora/$c/docword.$c.txt.gz -K 1024 --samplers sparse --models collapsed -w 30 -n 10 -r 3 -o $OUT/bench-$c.csv > $OUT/bench-$c.log 2>&1 || tail -3 $OUT/bench-$c.log
  echo "$c: $(tail -1 $OUT/bench-$c.csv | cut -d, -f1-9)"
done
echo "bench done at $(( $(date +%s) - t0 )) s"
rm -rf /tmp/mc
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 99 $B train .corpora/wiki5k/docword.wiki5k.txt.gz -K 64 --model collapsed --device cuda -n 3 -o /tmp/mc > $OUT/memcheck.log 2>&1
echo "memcheck rc=$?: $(grep -E 'ERROR SUMMARY' $OUT/memcheck.log)"
echo "all done at $(( $(date +%s) - t0 )) s"
