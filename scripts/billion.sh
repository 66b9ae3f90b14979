#!/bin/sh
# A run of 10^9 tokens or more on one GPU: generate a corpus from K planted topics in the binary
# form, train K topics on it with --doc-topics DOC_TOPICS (top:10), and report what was measured: generation
# (s, tokens/s, the planted topics' share), the corpus read and the set-up, ms an iteration and
# tokens/s over the run (iterations 1, 2, 5, 10, 20, 50, 100, ... and the last), the device memory
# planned and the peak nvidia-smi saw, the host's peak RSS, where train streams tokens from host
# memory its line and the copies' share, the model written, and the planted topics recovered
# (scripts/planted-recovery.py). Prints a markdown table, also OUTDIR/summary.md.
#
# usage: scripts/billion.sh OUTDIR
# env:  TOKENS (1000000000), K (1024, planted and trained), ITERS (400), DEVICE (cuda), JOBS (nproc),
#       LDAGPU (./ldagpu), MODEL (collapsed), SAMPLER (sparse), TRAIN_ARGS (more train options), MEAN_LENGTH (300), LENGTH_SIGMA (1), VOCAB (50000),
#       ALPHA (3.2/K), BETA (0.01), SEED (1), EVAL_EVERY (10), DOC_TOPICS (top:10), TRAIN_LIMIT (seconds, 300: the
#       train command gets SIGTERM then, stops after its iteration and writes the model),
#       WORK (where the corpus and model go, ${TMPDIR:-/tmp}/ldagpu-billion: local disk, 8.2 bytes a
#       token; removed at the end unless KEEP=1), PYTHON (python3, with NumPy), RECOVERY_LIMIT (900 s).
# The 5 x 10^9-token run: TOKENS=5000000000 K=10000 VOCAB=100000 (and K=1024 the same way).
# OUTDIR gets only small files: the logs, log.csv, the samples and summary.md.
#
# Generated and trained with the same α and β. α = 3.2/K (Σα = 3.2) puts 90% of a document in
# about 6 topics at any K (the largest ~40%), so the CPU test at K = 32 is the run's regime;
# 0.05 at K = 1024 would spread it over 84 topics, which no real corpus does. MODEL collapsed
# with SAMPLER sparse: on the H100 at TOKENS=10^8, 400 iterations, it recovered 833 of the 1024
# planted topics (TV <= 0.15) at 54 ms an iteration, phi-mean 184 at 82 ms; at 10^9, 304
# iterations in 240 s recovered 771 (results/billion/). At TOKENS=2000000 K=32 (CPU), 100
# iterations: phi-mean 27 of 32, mean-for-mode 22, uncollapsed 0 (its drawn φ still 0.27 away in
# median: drawing φ over 50,000 words at β = 0.01 is noisy and slow to mix). The misses are
# Gibbs's local optima (two planted topics in one learned, one split in two).
#
# Device memory, from src/backend/device_bytes.c (train prints it: "device memory: ..."), K = 1024, V = 50,000, θ given (pieces of
# 512): 12 bytes a token position (words, z, z_prev), 8K + 36 bytes a slot (θ and n[m,k]: 8K;
# slot arrays, eval partials), 8K bytes a cut document (its counts at a pass's start and change),
# 8VK for φ and n[w,k]. The slots are what runs out: 8 KiB a document, so D, not N, decides.
# (The default, collapsed with --sampler sparse, keeps neither θ nor a dense n[m,k]: its counts
# are lists of at most min(K, 2 × tokens) entries a slot, a piece's up to min(K, its document's
# tokens + its own), 8 bytes an entry; so there the tokens decide, and K = 10,000 fits too.)
# - Mean length 100 (PubMed abstracts; `generate`'s default): D = 10^7 documents, 1.7% of them
#   cut (log-normal, σ = 1: P(length > 512) = 1.7%), ~10.2 M slots: 84 GB of θ and n[m,k] + 12 GB of positions > 80 GB.
#   The largest that fits at that length is ~8.5 x 10^8 tokens (95 bytes a token).
# - Mean length 300 (the NYTimes UCI corpus: 332): D = 3.33 M. Measured at 10^8 tokens on the
#   development machine, x 10: 4.09 M slots (497 k documents cut into 1.25 M pieces), padding 0.0%.
#   12.0 GB positions + 33.6 GB θ, n[m,k] + 4.1 GB cut counts + 0.4 GB φ, n[w,k] + 0.2 GB small
#   = 50 GB (46.7 GiB): fits one H100 with 30 GB to spare. So MEAN_LENGTH defaults to 300.
# Host (train/run_memory.c and the corpus): 4 GB corpus + 4 GB layout + 8.4 GB z and φ fetched and
# in input order to save + 0.3 GB top:10 ≈ 17 GB of 128 GiB. Disk: 4 GB corpus, 4.2 GB model.
# Time (extrapolated from 10^8 tokens on 2 shared cores): the read 1.7 s and the layout 2.2 s
# (one thread) per 10^8 tokens, so ~17 s and ~22 s at 10^9. generate draws a document's topics
# with θ_d integrated out (O(1) a token at any K); what remains is the planted topics, K x V
# Gamma variates (10^9 at K = 10^4, V = 10^5: 91 s on 2 loaded cores, so ~12 s on 16), and a
# random entry of their alias tables (8 GB there) a token: 6.4 M tokens/s on 2 loaded cores.
#
# 5 x 10^9 tokens (TOKENS=5000000000 K=10000 VOCAB=100000, mean length 300: 16.7 M documents) on
# the GPU machine (128 GiB of memory, 64 GiB of disk, 16 cores):
# - Disk (WORK): the corpus 20 GB (4 bytes a token, 16 a document) and the model 24 GB (z.npy 4
#   bytes a token, φ 4VK) = 44 GB: WORK on the disk fits. Not on /dev/shm: there those 44 GB
#   would sit in the memory beside the run's own ~90 GB (below).
# - Host memory (train/run_memory.c and the corpus): the corpus 20 GB + the layout's words 20 GB
#   + z fetched 20 GB + z in input order 20 GB + 16VK (φ fetched and the model's, 16 GB at K =
#   10^4) ≈ 96 GB, and streamed (--stream-tokens) the chunks' host form, pinned: z in 2 bytes
#   and the whole documents' packed lists, about 4 bytes a token (docs/scale.md): ≈ 116 GB
#   against 128 GiB (137 GB), z fetched and in input order only once the iterations are done.
#   The generator holds 12VK (12 GB) while it runs, and frees it before train starts.
# - Device: with tokens streamed from host memory, what stays on the GPU is the word side (n[w,k]
#   and φ, 8VK = 8 GB, the word lists and tables) and the chunks in flight; without streaming
#   train stops at its plan, before allocating. Past 2^32 - 1 tokens the GPU takes --sampler
#   sparse alone (the script's default), its topic totals checked after every pass.
# The script refuses before generating where the disk is short (df) and warns where the host
# memory may be (MemAvailable), with the arithmetic above.
set -eu
out=${1:?usage: scripts/billion.sh OUTDIR}
bin=${LDAGPU:-./ldagpu}
tokens=${TOKENS:-1000000000} K=${K:-1024} iters=${ITERS:-400} device=${DEVICE:-cuda}
jobs=${JOBS:-$(nproc)} model=${MODEL:-collapsed} mean=${MEAN_LENGTH:-300} sigma=${LENGTH_SIGMA:-1}
V=${VOCAB:-50000} beta=${BETA:-0.01} seed=${SEED:-1} limit=${TRAIN_LIMIT:-300}
alpha=${ALPHA:-$(awk -v k="$K" 'BEGIN { printf "%.6g", 3.2 / k }')}
work=${WORK:-${TMPDIR:-/tmp}/ldagpu-billion} py=${PYTHON:-python3}
docs=$((tokens / mean))
mkdir -p "$out" "$work"
corpus="$work/corpus.ldab"
now() { date +%s.%N; }
# value KEY FILE: the value of a key=value line
value() { sed -n "s/^$1=//p" "$2"; }
rm -rf "$work/model" "$corpus" "$corpus.phi.npy" "$work/train.pid"

# Refused before generating when even what stays on the GPU exceeds it: the documents' dense D x K
# arrays (θ unless the model collapses it, n[m,k] unless the sparse draw keeps it as lists) and
# the word side, 8VK (n[w,k], φ). A lower bound: tokens streamed from host memory need not fit,
# but tokens kept on the device do, and the backend's own check (exact, but after minutes) says so.
gpu_total=
case $model in theta-collapsed | collapsed) dense_theta=0 ;; *) dense_theta=1 ;; esac
case ${SAMPLER:-sparse} in sparse) dense_counts=0 ;; *) dense_counts=1 ;; esac
if [ "$device" = cuda ] && command -v nvidia-smi > /dev/null; then
    gpu_total=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | head -1)
    awk -v d="$docs" -v k="$K" -v v="$V" -v t="$gpu_total" -v dense=$((dense_theta + dense_counts)) 'BEGIN {
        need = d * 4 * dense * k + 8 * v * k
        if (need > t * 1048576) { printf "billion: %d documents need at least %.1f GiB of the GPU at K = %d, the GPU has %.1f: raise MEAN_LENGTH or lower TOKENS\n", d, need / 2^30, k, t / 1024; exit 1 } }' >&2
fi
# The disk of WORK (the corpus, 4 bytes a token and 16 a document; the model, z 4 bytes a token and
# φ 4VK) and the host's memory (the corpus, the layout's words, z fetched and in input order: 16
# bytes a token; φ fetched and the model's, 16VK; on the GPU the streamed run's pinned host form,
# about 4 bytes a token; and WORK's files where WORK is in memory): a short disk is
# refused, a short memory only warned of (the estimate is an upper bound: z is fetched to save it
# once the iterations are done).
disk_need=$(awk -v n="$tokens" -v d="$docs" -v k="$K" -v v="$V" 'BEGIN { printf "%.0f", 8 * n + 16 * d + 4 * v * k }')
pinned=0
[ "$device" != cuda ] || pinned=4
host_need=$(awk -v n="$tokens" -v k="$K" -v v="$V" -v p="$pinned" 'BEGIN { printf "%.0f", (16 + p) * n + 16 * v * k }')
[ "$(stat -f -c %T "$work" 2> /dev/null)" != tmpfs ] || host_need=$((host_need + disk_need))
disk_free=$(($(df -Pk "$work" | awk 'NR == 2 { print $4 }') * 1024))
mem_free=$(($(sed -n 's/^MemAvailable: *\([0-9]*\) kB/\1/p' /proc/meminfo) * 1024))
awk -v need="$disk_need" -v have="$disk_free" -v work="$work" -v host="$host_need" -v mem="$mem_free" 'BEGIN {
    if (need > have) { printf "billion: %s has %.1f GB free; the corpus and the model need about %.1f GB: set WORK\n", work, have / 1e9, need / 1e9; exit 1 }
    if (host > mem) printf "billion: warning: the run may need up to %.1f GB of host memory (WORK included where it is in memory), %.1f GB are available\n", host / 1e9, mem / 1e9 }' >&2

start=$(now) t0=$(now)
"$bin" generate -o "$corpus" --docs "$docs" --mean-length "$mean" --lengths lognormal --length-sigma "$sigma" \
    --vocab-size "$V" -K "$K" -a "$alpha" -b "$beta" -s "$seed" -j "$jobs" 2> "$out/generate.log" ||
    { cat "$out/generate.log" >&2; exit 1; }
gen_wall=$(echo "$t0 $(now)" | awk '{ printf "%.1f", $2 - $1 }')
cat "$out/generate.log" >&2

# Peak device memory: nvidia-smi's own loop every 0.2 s (memory.used, the whole GPU).
smi=
if [ "$device" = cuda ] && command -v nvidia-smi > /dev/null; then
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | head -1 > "$out/gpu-before.txt"
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 200 > "$out/gpu-memory.txt" &
    smi=$!
fi
# Peak host RSS: /usr/bin/time -v where present, else VmHWM read every 0.2 s (misses at most the
# last 0.2 s of growth). exec keeps the pid, so the SIGTERM at TRAIN_LIMIT reaches ldagpu itself,
# which then stops after its iteration, writes the model and exits 143.
timer=
[ -x /usr/bin/time ] && timer=1
if [ -n "$timer" ]; then set -- /usr/bin/time -v -o "$out/train.time"; else set --; fi
t0=$(now)
deadline=$(($(date +%s) + limit))
# shellcheck disable=SC2016
"$@" sh -c 'echo $$ > "$0"; exec "$@"' "$work/train.pid" "$bin" train "$corpus" -K "$K" -n "$iters" \
    --model "$model" --sampler "${SAMPLER:-sparse}" --device "$device" -j "$jobs" --alpha "$alpha" --beta "$beta" -s "$seed" \
    -e "${EVAL_EVERY:-10}" --doc-topics "${DOC_TOPICS:-top:10}" ${TRAIN_ARGS:-} -o "$work/model" 2> "$out/train.log" &
runner=$!
while [ ! -s "$work/train.pid" ] && kill -0 "$runner" 2> /dev/null; do sleep 0.05; done
pid=$(cat "$work/train.pid" 2> /dev/null || echo "$runner")
stopped=0
while kill -0 "$pid" 2> /dev/null; do
    if [ -z "$timer" ]; then
        hwm=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$pid/status" 2> /dev/null) || :
        [ -z "$hwm" ] || echo "$hwm" > "$out/rss-hwm.txt"
    fi
    if [ "$stopped" = 0 ] && [ "$(date +%s)" -ge "$deadline" ]; then
        echo "billion: TRAIN_LIMIT ($limit s) reached: SIGTERM sent" >&2
        kill -TERM "$pid" 2> /dev/null || :
        stopped=1
    fi
    sleep 0.2
done
train_rc=0
wait "$runner" || train_rc=$?
train_wall=$(echo "$t0 $(now)" | awk '{ printf "%.1f", $2 - $1 }')
[ -z "$smi" ] || kill "$smi" 2> /dev/null || :
cat "$out/train.log" >&2
if [ "$train_rc" != 0 ] && ! { [ "$stopped" = 1 ] && [ "$train_rc" = 143 ]; }; then
    echo "billion: train failed (status $train_rc); see $out/train.log" >&2
    exit 1
fi
cp "$work/model/log.csv" "$work/model/model.conf" "$out/"

# RECOVERY_LIMIT (s, 900): planted-recovery.py's matrix product grows with K^2 V (K = 10,000 over
# 50,000 words is 100 times K = 1024's); past the limit the summary says not measured.
timeout "${RECOVERY_LIMIT:-900}" "$py" "$(dirname "$0")/planted-recovery.py" "$corpus.phi.npy" "$work/model/phi.npy" \
    > "$out/recovery.txt" || echo "billion: planted-recovery.py failed or ran past RECOVERY_LIMIT" >&2

# ---- the summary: every figure from a file above; "not measured" where there is none ----
nm="not measured"
gen_line=$(grep 'ldagpu generate: wrote' "$out/generate.log")
n_tokens=$(echo "$gen_line" | sed -n 's/.*documents, \([0-9]*\) tokens.*/\1/p')
gen_rate=$(echo "$gen_line" | sed -n 's/.*(\([0-9.e+]*\) M tokens\/s.*/\1/p')
gen_topics=$(echo "$gen_line" | sed -n 's/.*the topics drawn in \([0-9.]*\) s of it.*/\1/p')
read_s=$(sed -n 's/^ldagpu: read .* in \([0-9.]*\) s$/\1/p' "$out/train.log")
setup=$(sed -n 's/^ldagpu: set up in \([0-9.]*\) s (the layout built in \([0-9.]*\) s.*/\1 s (layout \2 s)/p' "$out/train.log")
layout=$(sed -n 's/^ldagpu: layout: //p' "$out/train.log")
state=$(sed -n 's/.*, \([0-9.]* GiB of state\).*/\1/p' "$out/train.log")
memory=$(sed -n 's/^ldagpu: device memory: //p' "$out/train.log")
gpu_name=$(sed -n 's/.* on CUDA: \([^(]*[^ (]\) *(.*/\1/p' "$out/train.log")
run=$(sed -n 's/^ldagpu: \([0-9]*\) iterations in .* (\([0-9.]*\) s per iteration, \([0-9.]*\) M tokens\/s)$/\1 \2 \3/p' "$out/train.log")
saved=$(sed -n 's/^ldagpu: θ as \(.*\) built in \([0-9.]*\) s; the model written in \([0-9.]*\) s$/θ as \1 built in \2 s; the model written in \3 s/p' "$out/train.log")
# median, min and max of the iterations' seconds, z and update (log.csv; iteration 0 is the start)
its=$(awk -F, 'NR > 1 && $1 > 0 { print $2, $5, $6 }' "$out/log.csv" | sort -n |
      awk '{ s[NR] = $1; z[NR] = $2; u[NR] = $3 } END { if (NR) { m = int((NR + 1) / 2)
          printf "%.1f ms median (min %.1f, max %.1f); z %.1f ms, updates %.1f ms in the median iteration", 1000 * s[m], 1000 * s[1], 1000 * s[NR], 1000 * z[m], 1000 * u[m] } }')
ll=$(awk -F, 'NR > 1 && $7 != "" { i = $1; p = $7 } END { if (i != "") printf "%s at iteration %s", p, i }' "$out/log.csv")
# the iterations over the run: 1, 2, 5, 10, 20, 50, 100, 200, ... and the last, in ms and tokens/s
over_run=$(awk -F, -v n="${n_tokens:-0}" 'NR > 1 && $1 > 0 { s[$1 + 0] = $2; last = $1 + 0 } END {
    step[0] = 1; step[1] = 2; step[2] = 5
    for (m = 1; m <= last; m *= 10) for (j = 0; j < 3; j++) { i = m * step[j]
        if (i < last && i in s) printf "%d: %.0f ms, %.0f M tokens/s; ", i, 1000 * s[i], n / s[i] / 1e6 }
    if (last) printf "%d (the last): %.0f ms, %.0f M tokens/s", last, 1000 * s[last], n / s[last] / 1e6 }' "$out/log.csv")
# where train streams tokens from host memory through the GPU: its line, and the copies' share
stream_line=$(sed -n 's/^ldagpu: \(.*tokens streamed from host memory.*\)/\1/p' "$out/train.log" | head -1)
# the iterations' lines (train's standard error): "copies not hidden S s" (the time the draw waited
# for the chunks' copies)
copies_line=$(awk '/^iter/ && /copies not hidden/ { for (i = 1; i < NF; i++) { if ($i == "s" && !t) t = $(i - 1)
        if ($i == "hidden") w = $(i + 1) } s += t; c += w; n++; t = 0 } END {
    if (n) printf "%.1f ms of %.1f ms an iteration (%.1f%%) not hidden behind the draw, the mean of %d iterations", 1000 * c / n, 1000 * s / n, 100 * c / s, n }' "$out/train.log")
gpu_peak=
[ ! -s "$out/gpu-memory.txt" ] ||
    gpu_peak="$(sort -n "$out/gpu-memory.txt" | tail -1) MiB (before the run: $(cat "$out/gpu-before.txt") MiB, total $gpu_total MiB)"
rss_kib=
if [ -n "$timer" ]; then rss_kib=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$out/train.time")
elif [ -s "$out/rss-hwm.txt" ]; then rss_kib=$(cat "$out/rss-hwm.txt"); fi
rss=
[ -z "$rss_kib" ] || rss="$((rss_kib / 1024)) MiB ($([ -n "$timer" ] && echo "/usr/bin/time -v" || echo "VmHWM every 0.2 s"))"
rec="$out/recovery.txt"
{
    echo "| $tokens-token run | measured |"
    echo "|---|---|"
    echo "| machine | $(uname -n), $(nproc) cores, ${gpu_name:-no GPU} |"
    echo "| corpus | $docs documents (log-normal lengths, mean $mean, σ $sigma), ${n_tokens:-?} tokens, V = $V, K = $K planted, α = $alpha, β = $beta, seed $seed |"
    echo "| generate (-j $jobs) | $gen_wall s wall, ${gen_rate:-?} M tokens/s (its own timing; the planted topics ${gen_topics:-?} s of it), $(du -h "$corpus" | cut -f1) |"
    echo "| corpus read (binary) | ${read_s:-$nm} s |"
    echo "| set-up after the read | ${setup:-$nm} |"
    echo "| layout | ${layout:-$nm} |"
    if [ -n "$run" ]; then
        # shellcheck disable=SC2086 # three numbers, split on purpose
        set -- $run
        [ "$stopped" = 0 ] || limited=" (stopped at TRAIN_LIMIT, $limit s)"
        echo "| iterations ($model, $device) | $1 of $iters${limited:-}: $2 s an iteration on average, $3 M tokens/s |"
    else
        echo "| iterations | $nm |"
    fi
    echo "| per iteration (log.csv) | ${its:-$nm} |"
    echo "| over the run (log.csv; tokens/s from the corpus's tokens) | ${over_run:-$nm} |"
    echo "| predictive log-likelihood a token (log.csv, last evaluated) | ${ll:-$nm} |"
    echo "| device memory planned (the CUDA backend's state) | ${state:-none reported} |"
    echo "| device memory planned, array by array (train's line) | ${memory:-none reported} |"
    echo "| device memory peak (nvidia-smi memory.used, every 0.2 s) | ${gpu_peak:-$nm} |"
    echo "| host peak RSS (train) | ${rss:-$nm} |"
    echo "| tokens streamed from host memory (train's line) | ${stream_line:-not streamed (no such line in the log)} |"
    copies=${copies_line:-${stream_line:+not printed by train}}
    echo "| the copies' share (train's iteration lines: copies not hidden) | ${copies:-not streamed} |"
    echo "| model saved (--doc-topics ${DOC_TOPICS:-top:10}) | ${saved:-$nm} |"
    echo "| train command, wall | $train_wall s |"
    echo "| the script so far (generate, train, recovery), wall | $(echo "$start $(now)" | awk '{ printf "%.1f", $2 - $1 }') s |"
    if grep -q '^recovered=' "$rec" 2> /dev/null; then
        echo "| planted topics recovered (nearest learned topic within $(value max_tv "$rec") in total variation) | $(value recovered "$rec") of $(value topics "$rec") ($(value recovered_fraction "$rec")); matched to $(value distinct_matches "$rec") distinct learned topics |"
        echo "| distance to the nearest learned topic | Hellinger mean $(value hellinger_mean "$rec"), median $(value hellinger_median "$rec"); total variation mean $(value tv_mean "$rec"), median $(value tv_median "$rec") |"
    else
        echo "| planted topics recovered | $nm (planted-recovery.py failed or ran past RECOVERY_LIMIT) |"
    fi
} > "$out/summary.md"
cat "$out/summary.md"
[ "${KEEP:-0}" = 1 ] || rm -rf "$work/model" "$corpus" "$corpus.phi.npy" "$work/train.pid"
