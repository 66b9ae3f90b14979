#!/bin/sh
# The count update by word in two shards on one GPU (the new test), under memcheck too.
set -u
export LD_LIBRARY_PATH=$PWD/.crit LDAGPU_BIN=$PWD/build/cuda/ldagpu LDAGPU_ROOT=$PWD
mkdir -p $OUT
T=build/cuda/test_ldagpu
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 200 $T -j2 --filter '@(word_changes|word_changes_gpu)/*' > $OUT/tests.log 2>&1; echo "tests rc $?"; grep -E "Synthesis|FAIL" $OUT/tests.log
timeout 300 compute-sanitizer --tool memcheck --target-processes all --leak-check no --error-exitcode 9 $T --filter 'word_changes_gpu/rooms_shrunk_to_the_space_train_the_same_model' -j1 > $OUT/memcheck.log 2>&1; echo "memcheck rc $?"; grep -E "ERROR SUMMARY|Synthesis" $OUT/memcheck.log | sort | uniq -c | tail -3
