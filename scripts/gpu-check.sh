#!/bin/sh
# Runs on the GPU machine (see DEVELOPERS.md): the whole test suite, every GPU test under
# compute-sanitizer memcheck and the sampler tests under racecheck, and training runs on wiki43k.
# Expects binaries built beforehand (make BUILD=build/cuda build/cuda/ldagpu build/cuda/test_ldagpu),
# Criterion's runtime in .crit/ and the corpora in .corpora/ (all carried with the call).
# Logs go to a work folder packed at the end into $OUT/gpu-check.tgz (the device tool brings
# back only a few files), with summary.txt beside it; the summary is printed too.
# Optional: BENCH="bench args" (an ldagpu bench on wiki43k), RUNS="K n sampler precision;...",
# FIGURES=reduced|full (scripts/paper-figures.sh), NCU=1 (per-kernel times of 3 iterations),
# TTQ=1 (time to quality), HELDOUT=1 (held-out figures), SPARSE=1 (scripts/sparse-bench.sh on
# wiki43k and wikimix: carry .corpora/wikimix), TESTS=0 and SANITIZE=0 (skip those),
# MEMCHECK_FILTER (the tests run under memcheck; default every GPU test: 'gpu/*' and
# 'resume_gpu/*', the binary they start included).
set -u
final=${OUT:-gpu-check-out}
out=$(mktemp -d)
mkdir -p "$final"
bin=${BUILD:-build/cuda}
export LD_LIBRARY_PATH="$PWD/.crit${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LDAGPU_BIN="$PWD/$bin/ldagpu" LDAGPU_ROOT="$PWD"
summary="$out/summary.txt"
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | sed 's/^/gpu: /' | tee -a "$summary"

if [ "${TESTS:-1}" = 1 ]; then
    "$bin/test_ldagpu" --verbose=0 > "$out/tests.log" 2>&1
    note "tests: exit $? — $(grep Synthesis "$out/tests.log")"
    grep -E "\[FAIL\]|\[SKIP\]|Assertion|^\[----\]   [a-z]" "$out/tests.log" | head -30 | tee -a "$summary"
    grep -E "chi-squared|wiki5k K=32" "$out/tests.log" | tee -a "$summary"
fi

if [ "${SANITIZE:-1}" = 1 ] && command -v compute-sanitizer >/dev/null; then
    # memcheck: the whole GPU suite (out-of-memory path included), the processes it starts too.
    compute-sanitizer --tool memcheck --target-processes all --error-exitcode 99 \
        "$bin/test_ldagpu" -j1 --filter "${MEMCHECK_FILTER:-@(gpu|resume_gpu)/*}" > "$out/sanitizer-memcheck.log" 2>&1
    note "compute-sanitizer memcheck (${MEMCHECK_FILTER:-@(gpu|resume_gpu)/*}): exit $? — $(grep -E 'ERROR SUMMARY' "$out/sanitizer-memcheck.log" | sort | uniq -c | tr '\n' ' ') $(grep Synthesis "$out/sanitizer-memcheck.log")"
    grep -E "\[FAIL\]|Invalid|out of bounds|Leaked" "$out/sanitizer-memcheck.log" | head -20 | tee -a "$summary"
    # racecheck: the kernels' shared memory, on the sampler and update tests (a whole-suite run
    # under racecheck takes far longer than the machine is lent for).
    for tool in racecheck; do
        compute-sanitizer --tool $tool --target-processes all --error-exitcode 99 \
            "$bin/test_ldagpu" -j1 --filter 'gpu/@(butterfly_float_exact|butterfly_double_exact|butterfly_collapsed_float_exact|butterfly_stored_float_exact|transpose_float_exact|naive_collapsed_float_exact|butterfly_chi_squared_small_k|counts_and_mean_update_equal_the_cpu|planted_topics_butterfly_float|planted_topics_collapsed|counts_stay_exact_uncollapsed|counts_stay_exact_collapsed|counts_stay_exact_collapsed_refreshed|planted_topics_uncollapsed_refreshed|set_phi_freeze_and_score_agree_with_the_cpu|fused_equals_unfused_mean_for_mode_remnant|fused_equals_unfused_uncollapsed_double|fused_equals_unfused_refreshed|sparse_exact_on_integer_weights|sparse_counts_stay_exact)' \
            > "$out/sanitizer-$tool.log" 2>&1
        note "compute-sanitizer $tool: exit $? — $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer-$tool.log" | sort | uniq -c | tr '\n' ' ') $(grep Synthesis "$out/sanitizer-$tool.log")"
    done
fi

corpus=.corpora/wiki43k/docword.wiki43k.txt.gz
if [ -n "${BENCH:-}" ]; then
    # shellcheck disable=SC2086
    "$bin/ldagpu" bench "$corpus" $BENCH -o "$out/bench.csv" > "$out/bench.log" 2>&1
    note "bench ($BENCH): exit $?"
    grep -E "^K=|skipped|error" "$out/bench.log" | tee -a "$summary"
fi
runs=${RUNS:-"1024 100 butterfly float;1024 10 naive float;64 100 butterfly float"}
IFS=';'
for run in $runs; do
    IFS=' '
    set -- $run
    name="train-K$1-$3-$4"
    log="$out/train-$name.log"
    "$bin/ldagpu" train "$corpus" -K "$1" -n "$2" --sampler "$3" --precision "$4" --device cuda \
        --force -o "/tmp/model-$name" > "$log" 2>&1
    note "$name: exit $? — $(grep -E 'iterations in' "$log") | last: $(grep 'loglik' "$log" | tail -1 | sed 's/  */ /g')"
    grep -E "^iter +(2|50|100) " "$log" | sed "s/^/  /" | tee -a "$summary"
    { echo "== $name"; cat "$log"; } >> "$out/train.log"
    rm -f "$log"
    cp "/tmp/model-$name/topics.txt" "$out/topics-$name.txt" 2>/dev/null
    IFS=';'
done
IFS=' ' 
head -8 "$out/topics-train-K1024-butterfly-float.txt" 2>/dev/null | cut -c1-150 | tee -a "$summary"

if [ "${NCU:-0}" = 1 ] && command -v ncu >/dev/null; then
    ncu --metrics gpu__time_duration.sum --print-summary per-kernel "$bin/ldagpu" train "$corpus" -K 1024 -n 3 -e 0 \
        --device cuda -q -o /tmp/model-ncu > "$out/ncu.log" 2>&1
    note "ncu: exit $?"
    grep -E "^  [A-Za-z_].*\(|gpu__time_duration" "$out/ncu.log" | sed 's/(.*Context.*//; s/  */ /g' | head -60 | tee -a "$summary"
fi

if [ -n "${FIGURES:-}" ]; then
    flag=""; [ "$FIGURES" = full ] && flag=--full
    start=$(date +%s)
    LDAGPU="$PWD/$bin/ldagpu" sh scripts/paper-figures.sh $flag "$corpus" "$out/figures"
    note "paper figures ($FIGURES): exit $? in $(( $(date +%s) - start )) s"
fi

if [ "${TTQ:-0}" = 1 ]; then
    start=$(date +%s)
    LDAGPU="$PWD/$bin/ldagpu" sh scripts/time-to-quality.sh "$corpus" "$out/quality" 2>> "$out/quality.log"
    note "time to quality: exit $? in $(( $(date +%s) - start )) s"
    for f in "$out"/quality/*.csv; do
        note "  $(basename "$f" .csv): $(awk -F, 'NR > 1 && $8 != "" { t = $3; j = $8; p = $7 } END { printf "%.3f s, joint %.4f, predictive %.4f", t, j, p }' "$f")"
    done
fi

if [ "${HELDOUT:-0}" = 1 ]; then
    for K in 64 1024; do
        for name in uncollapsed mean-for-mode theta-collapsed collapsed phi-mean collapsed-sparse; do
            model=${name%-sparse} sampler=butterfly
            [ "$model" = "$name" ] || sampler=sparse
            "$bin/ldagpu" train "$corpus" -K $K -n 100 --model $model --sampler $sampler --holdout 0.1 -e 10 \
                --device cuda -q --force -o /tmp/heldout-$K-$name > "$out/heldout-K$K-$name.log" 2>&1
            cp /tmp/heldout-$K-$name/log.csv "$out/heldout-K$K-$name.csv"
            note "held-out K=$K $name: exit $? — $(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "loglik_heldout") c = i } NR > 1 && $c != "" { v = $c; t = $3 } END { printf "loglik_heldout %.4f after %.2f s of training", v, t }' "$out/heldout-K$K-$name.csv")"
        done
    done
fi

if [ "${SPARSE:-0}" = 1 ]; then
    start=$(date +%s)
    LDAGPU="$PWD/$bin/ldagpu" sh scripts/sparse-bench.sh "$out/sparse" .corpora > "$out/sparse.log" 2>&1
    note "sparse bench: exit $? in $(( $(date +%s) - start )) s"
    tee -a "$summary" < "$out/sparse.log"
fi

tar -czf "$final/gpu-check.tgz" -C "$out" .
cp "$summary" "$final/summary.txt"
