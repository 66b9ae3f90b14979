#!/bin/sh
# H100: the suite on the GPU machine (CPU and GPU tests), the GPU's wiki figures at K = 1024 (the
# issue's limit 1.31 / 2.02 ms), an explicit --sample-start on a GPU run, and memcheck on it.
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
C=.corpora/wiki43k/docword.wiki43k.txt.gz
for ss in 0 30; do
  rm -rf /tmp/m$ss
  timeout 120 $B train $C -K 1024 --model collapsed --device cuda --sample-start $ss -n 50 --holdout 0.1 -e 25 -o /tmp/m$ss > $OUT/train-ss$ss.log 2>&1
  echo "--sample-start $ss rc=$?: $(grep -E 'start:|iterations in' $OUT/train-ss$ss.log | tr '\n' ' ')"
  grep -E "^iter +(0|25|50) " $OUT/train-ss$ss.log
done
rm -rf /tmp/mc
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 99 $B train .corpora/wiki5k/docword.wiki5k.txt.gz -K 64 --model collapsed --device cuda --sample-start 5 -n 3 -o /tmp/mc > $OUT/memcheck.log 2>&1
echo "memcheck rc=$?: $(grep -E 'ERROR SUMMARY' $OUT/memcheck.log)"
echo "all done at $(( $(date +%s) - t0 )) s"
