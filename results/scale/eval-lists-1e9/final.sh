#!/bin/sh
# The final tree: GPU suites; memcheck and racecheck on the new GPU tests.
set -u
export LD_LIBRARY_PATH=$PWD/.crit LDAGPU_BIN=$PWD/build/cuda/ldagpu LDAGPU_ROOT=$PWD
mkdir -p $OUT
T=build/cuda/test_ldagpu
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 300 $T -j4 --filter '@(gpu|stream_gpu|stream_tokens|resume_gpu|z_start|doc_topics|gpu_shards|word_changes|word_changes_gpu)/*' > $OUT/tests.log 2>&1; echo "tests rc $?"; grep -E "Synthesis" $OUT/tests.log; grep -E "^\[FAIL\]|CRASH|Assert" $OUT/tests.log | head -10
timeout 150 compute-sanitizer --tool memcheck --leak-check no --error-exitcode 9 $T --filter 'gpu/list_predictive_equals_the_cpu_*' -j1 > $OUT/memcheck.log 2>&1; echo "memcheck rc $?"; grep -E "ERROR SUMMARY|Synthesis" $OUT/memcheck.log | tail -2
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 $T --filter 'gpu/list_predictive_equals_the_cpu_k1000' -j1 > $OUT/racecheck.log 2>&1; echo "racecheck rc $?"; grep -E "RACECHECK SUMMARY|Synthesis" $OUT/racecheck.log | tail -2
