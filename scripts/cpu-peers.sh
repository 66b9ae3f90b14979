#!/bin/sh
# ldagpu on the CPU beside Mallet, tomotopy and WarpLDA, each built from its public source: seconds
# of training to held-out log-likelihood a token after each of a list of iteration counts, on the
# same training split, every system's topics scored by one evaluator (ldagpu eval --phi), each run
# started on a quiet machine. Not run in CI: it needs the peers' sources, Java, a C++ compiler,
# cmake and NumPy (scripts/install-deps.sh --peers), and hours.
#
# usage: sh scripts/cpu-peers.sh OUTDIR
# env: CORPORA     corpora of CORPUS_DIR, each NAME/docword.NAME.txt.gz + vocab.NAME.txt.gz (UCI)
#                  ("wiki43k wikimix"); CORPUS_DIR (.corpora, ../shared/corpora or ../../shared/corpora)
#      TOPICS      ("100 1024")
#      ITERATIONS  the points, in increasing order ("25 50 100 200 400 800")
#      LEVELS      the iteration counts whose best peer figure is a level to time ("50 200 800")
#      SYSTEMS     ("ldagpu mallet tomotopy warplda"); ldagpu:NAME trains with --sampler NAME
#                  instead of auto, e.g. "ldagpu:alias ldagpu:mh mallet warplda" 
#      THREADS (2), ALPHA_SUM (20: α = ALPHA_SUM/K, ldagpu's collapsed default), BETA (0.01),
#      SEED (1: the split's, and the training's unless SEEDS), HOLDOUT (0.1),
#      EVAL_ITERATIONS (20: eval's sweeps estimating θ)
#      SEEDS       training seeds, each system trained once a seed on the one split (SEED); the
#                  tables take the mean over the seeds at each point (WarpLDA, whose seed is fixed
#                  in its code, runs under the first only)
#      LOAD_MAX    a timed run starts once the 1-minute load average is below this (0.5) ...
#      LOAD_WAIT   ... or after this many seconds of waiting, said on stderr (1800)
#      PROBE_SLACK ... and once a probe, a fixed piece of ldagpu's work (bench of the corpus's
#                  training documents, K = 100, THREADS threads, iterations 3-5), takes at most
#                  this many times the fastest probe of the corpus so far (1.15; 0: no probe).
#                  The load average sees only this machine's processes; the probe also sees
#                  other work sharing its caches and memory.
#      WORK        sources, builds, the split and the runs (a new temporary folder); a run whose
#                  results are there is not repeated, a build or split not redone
#      SRC_MIRROR  a folder of bare git mirrors, OWNER+NAME/repo, used instead of cloning from
#                  GitHub (files absent from a mirror are left out: Mallet's Error Prone jar, whose
#                  @Var annotation gets a one-line definition)
#      LDAGPU (./ldagpu), JAVA_OPTS (-Xmx6g), PYTHON (a python3 with NumPy)
#      SMOKE=1     a check of the whole pipeline in a minute: wiki5k, K = 20, ITERATIONS "5 10",
#                  LEVELS "5 10", no waiting
#
# What runs (THREADS threads each; symmetric α and β, never learned, the same for all):
#   ldagpu    train --model collapsed --sampler auto (or NAME) --device cpu, to the first point, then
#             --resume to each next one (50 + 50 resumed is 100 iterations in one run); its
#             seconds are log.csv's (the iterations: z draw and updates; no evaluation, reading
#             or set-up) and, at each point, the φ written there (--phi-estimate auto, the CPU's
#             default: cvb up to K = 128, expected above; phi_seconds); φ is the model's phi.npy
#   mallet    ParallelTopicModel (SparseLDA), fed the documents by scripts/peers/MalletPeer.java,
#             estimate() called once a point, its time summed; no log-likelihood between
#             iterations (train-topics computes one every 10)
#   tomotopy  the C++ core's LDAModel (the Python module's LDAModel.train) through
#             scripts/peers/tomotopy_lda.cpp, train() once a point, its time and prepare()'s summed
#   warplda   its own command, one run from the start to each point (it writes its counts only at
#             its end), the time the sum of its per-iteration figures; its random seed is fixed
#             in its code
# Mallet, tomotopy and WarpLDA write word-topic counts; φ = (n[k,w] + β) / (n[k] + Vβ) over the
# whole vocabulary (scripts/peers/counts_to_phi.py), ldagpu's collapsed φ.
#
# The split (scripts/peers/split.py): 10% of the documents held out once, by the seed, and the
# training documents written in each program's input format through the one vocabulary.
# The evaluator: ldagpu eval --phi PHI --phi-vocab vocab.txt --alpha ALPHA_SUM/K on the held-out
# documents (document completion: θ from each document's first half, its second half scored; the
# held-out tokens are shuffled within a document once, when written).
#
# Writes to OUTDIR: peers.csv (corpus,topics,system,iterations,seconds,heldout_loglik,
# tokens_per_second,segment_tokens_per_second (from the point before; WarpLDA: its run's), load_before,
# load_after,threads,probe_ms (the probe's ms an iteration before the run; 0: none),seed (the
# training's)), peers.md (a table per corpus and K, the seconds to the levels, the means over the
# seeds where there are several: scripts/peers/table.py), versions.txt (the
# sources' commits, compilers, the machine). On a quiet 2-core machine wiki43k to 400 iterations
# trained about a minute a system at K = 100 and two at K = 1024, tomotopy's 8 there; with the
# defaults (to 800) expect one to two hours in all.
set -eu
out=${1:?usage: sh scripts/cpu-peers.sh OUTDIR (see the header for the settings)}
root=$(cd "$(dirname "$0")/.." && pwd)
peers="$root/scripts/peers"
if [ "${SMOKE:-0}" = 1 ]; then
    : "${CORPORA:=wiki5k}" "${TOPICS:=20}" "${ITERATIONS:=5 10}" "${LEVELS:=5 10}" "${LOAD_MAX:=1000}" "${PROBE_SLACK:=1000}"
fi
corpora=${CORPORA:-wiki43k wikimix}
topics=${TOPICS:-100 1024}
iterations=${ITERATIONS:-25 50 100 200 400 800}
levels=${LEVELS:-50 200 800}
systems=${SYSTEMS:-ldagpu mallet tomotopy warplda}
threads=${THREADS:-2}
alpha_sum=${ALPHA_SUM:-20}
beta=${BETA:-0.01}
seed=${SEED:-1}
seeds=$(echo ${SEEDS:-$seed}) # one space between seeds: the first is ${seeds%% *}
holdout=${HOLDOUT:-0.1}
eval_iterations=${EVAL_ITERATIONS:-20}
load_max=${LOAD_MAX:-0.5}
load_wait=${LOAD_WAIT:-1800}
probe_slack=${PROBE_SLACK:-1.15}
work=${WORK:-$(mktemp -d)}
bin=${LDAGPU:-./ldagpu}
java_opts=${JAVA_OPTS:--Xmx6g}
case "$bin" in /*) ;; *) bin="$PWD/$bin" ;; esac
mkdir -p "$out" "$work/src" "$work/build" "$work/data" "$work/runs"
out=$(cd "$out" && pwd)
work=$(cd "$work" && pwd)

die() { echo "cpu-peers: $*" >&2; exit 2; }
[ -x "$bin" ] || die "no ldagpu at $bin (make, or set LDAGPU)"
python=${PYTHON:-}
if [ -z "$python" ]; then
    for p in /usr/bin/python3 python3; do
        "$p" -c 'import numpy' 2> /dev/null && { python=$p; break; }
    done
fi
[ -n "$python" ] || die "no python3 with NumPy (scripts/install-deps.sh --peers)"
corpus_dir=${CORPUS_DIR:-}
if [ -z "$corpus_dir" ]; then
    for d in .corpora ../shared/corpora ../../shared/corpora; do
        [ -d "$d" ] && { corpus_dir=$d; break; }
    done
    [ -n "$corpus_dir" ] || die "no .corpora or ../shared/corpora: set CORPUS_DIR"
fi
for system in $systems; do
    case $system in
        ldagpu|ldagpu:*) ;;
        mallet) for t in java javac git; do command -v $t > /dev/null || die "$t not found (mallet)"; done ;;
        tomotopy) for t in g++ git; do command -v $t > /dev/null || die "$t not found (tomotopy)"; done
                  [ -f /usr/include/eigen3/Eigen/Dense ] || die "no Eigen (libeigen3-dev; scripts/install-deps.sh --peers)" ;;
        warplda) for t in cmake make g++ git patch; do command -v $t > /dev/null || die "$t not found (warplda)"; done ;;
        *) die "unknown system '$system' (ldagpu, mallet, tomotopy, warplda)" ;;
    esac
done

# ---- sources: pinned commits, from a mirror or GitHub ----
MALLET_COMMIT=2de54cbab526ee2a89f2a6e9bc03d822ccbafa66
TOMOTOPY_COMMIT=2d65b7ec0817a5b6c6c6d0e5cedd9caca7a7dd4f
EIGENRAND_COMMIT=f3190cd7f85c5878c949625cb2811262ff050d66 # v0.5.1, the tag tomotopy's CMakeLists fetches
WARPLDA_COMMIT=c97265d9b219d43afc95fa05966c0eba075779d6

# source OWNER/NAME COMMIT: the tree at COMMIT in $work/src/NAME.
source_tree() {
    dest="$work/src/${1#*/}"
    [ -d "$dest" ] && return 0
    rm -rf "$dest.part" && mkdir -p "$dest.part"
    mirror="${SRC_MIRROR:-}/$(echo "$1" | tr / +)/repo"
    if [ -n "${SRC_MIRROR:-}" ] && [ -d "$mirror" ]; then
        # The files the mirror holds (a large one may be absent): blobs git can read.
        git --git-dir="$mirror" ls-tree -r "$2" | awk '$2 == "blob" {print $3}' |
            git --git-dir="$mirror" cat-file --batch-check='%(objectname) %(objecttype)' |
            awk '$2 == "blob" {print $1}' > "$dest.part.have"
        git --git-dir="$mirror" ls-tree -r "$2" |
            awk 'NR == FNR {have[$1] = 1; next} $2 == "blob" && have[$3] {sub(/^[^\t]*\t/, ""); print}' \
                "$dest.part.have" - > "$dest.part.list"
        ! grep -q ' ' "$dest.part.list" || die "$1: a path with a space in $mirror"
        # shellcheck disable=SC2046
        (set -f; git --git-dir="$mirror" archive "$2" -- $(cat "$dest.part.list")) | tar -x -C "$dest.part"
        rm -f "$dest.part.have" "$dest.part.list"
    else
        git clone --quiet "https://github.com/$1" "$dest.part" && git -C "$dest.part" checkout --quiet "$2"
    fi
    mv "$dest.part" "$dest"
}

# ---- builds ----
build_mallet() {
    [ -f "$work/build/mallet/MalletPeer.class" ] && return 0
    source_tree mimno/Mallet $MALLET_COMMIT
    src="$work/src/Mallet" b="$work/build/mallet"
    rm -rf "$b" && mkdir -p "$b/classes" "$b/stub/com/google/errorprone/annotations"
    echo 'package com.google.errorprone.annotations; public @interface Var {}' \
        > "$b/stub/com/google/errorprone/annotations/Var.java"
    find "$src/src/main/java" "$b/stub" -name '*.java' > "$b/sources.txt"
    javac -nowarn -encoding UTF-8 -cp "$src/lib/*" -d "$b/classes" @"$b/sources.txt" 2>&1 | grep -v '^Note:' >&2 || true
    [ -f "$b/classes/cc/mallet/topics/ParallelTopicModel.class" ] || die "Mallet did not compile"
    cp -r "$src/src/main/resources/." "$b/classes/"
    javac -nowarn -cp "$b/classes:$src/lib/*" -d "$b" "$peers/MalletPeer.java"
}
build_tomotopy() {
    [ -x "$work/build/tomotopy_lda" ] && return 0
    source_tree bab2min/tomotopy $TOMOTOPY_COMMIT
    source_tree bab2min/EigenRand $EIGENRAND_COMMIT
    # Its LDA and what it needs, not the Python module (every model, four instruction sets).
    (cd "$work/src/tomotopy" &&
        g++ -O3 -march=native -std=c++17 -DNDEBUG -w -Isrc -I/usr/include/eigen3 -I"$work/src/EigenRand" \
            -o "$work/build/tomotopy_lda.part" "$peers/tomotopy_lda.cpp" src/TopicModel/LDAModel.cpp src/Utils/*.cpp \
            -pthread)
    mv "$work/build/tomotopy_lda.part" "$work/build/tomotopy_lda"
}
build_warplda() {
    [ -x "$work/build/warplda/release/src/warplda" ] && return 0
    source_tree thu-ml/warplda $WARPLDA_COMMIT
    b="$work/build/warplda"
    rm -rf "$b" && cp -r "$work/src/warplda" "$b"
    (cd "$b" && patch -p1 -s < "$peers/warplda.patch" && mkdir -p release && cd release &&
        cmake .. -DCMAKE_BUILD_TYPE=Release > cmake.log && make -j"$threads" warplda format > make.log 2>&1) ||
        die "WarpLDA did not build (see $b/release)"
}
for system in $systems; do
    case $system in mallet) build_mallet ;; tomotopy) build_tomotopy ;; warplda) build_warplda ;; esac
done

# ---- the quiet machine ----
load1() { cut -d' ' -f1 /proc/loadavg; }
probe_ms() { # ms an iteration of the probe (module header: PROBE_SLACK)
    "$bin" bench "$data/train.docword" --vocab "$data/vocab.txt" -K 100 --samplers alias --models collapsed \
        --device cpu -j "$threads" -w 2 -n 3 -r 1 2> /dev/null | awk -F, '$2 == "alias" {printf "%.1f", $7}'
}
faster() { awk -v a="$1" -v b="$2" 'BEGIN {exit !(a < b)}'; }
machine_quiet() { # sets quiet_load and quiet_probe (0: none); where not quiet, why and the pause
    quiet_load=$(load1) quiet_probe=0 pause=10
    if ! faster "$quiet_load" "$load_max"; then
        why="the load is $quiet_load, not below $load_max"
        return 1
    fi
    faster 0 "$probe_slack" || return 0
    quiet_probe=$(probe_ms)
    [ -n "$quiet_probe" ] || die "the probe (ldagpu bench of $data/train.docword) printed no time"
    if [ -z "$best_probe" ] || faster "$quiet_probe" "$best_probe"; then best_probe=$quiet_probe; fi
    if faster "$(awk -v b="$best_probe" -v k="$probe_slack" 'BEGIN {print b * k}')" "$quiet_probe"; then
        why="the probe took $quiet_probe ms, more than $probe_slack × $best_probe"
        pause=30 # the probe's own load takes a while to leave the load average
        return 1
    fi
}
wait_quiet() {
    waited=0
    until machine_quiet; do
        if [ "$waited" -ge "$load_wait" ]; then
            echo "cpu-peers: $why, after ${waited} s: running anyway" >&2
            break
        fi
        sleep "$pause"
        waited=$((waited + pause))
    done
}

# ---- one system's run: $run/times.txt ("N SECONDS LOAD_BEFORE LOAD_AFTER PROBE_MS") and $run/phi-N.npy ----
run_ldagpu() {
    wait_quiet
    done_its=0
    rm -rf "$run/model"
    for n in $iterations; do
        if [ "$done_its" = 0 ]; then
            "$bin" train "$data/train.docword" --vocab "$data/vocab.txt" -K "$K" -n "$n" -a "$alpha" -b "$beta" \
                -s "$train_seed" --model collapsed --sampler "$sampler" --device cpu -j "$threads" -e 0 --doc-topics none \
                -o "$run/model" -q
        else
            "$bin" train --resume "$run/model" -n $((n - done_its)) -q
        fi
        cp "$run/model/phi.npy" "$run/phi-$n.npy"
        done_its=$n
    done
    after=$(load1)
    for n in $iterations; do
        # the iterations' seconds, and the φ written after iteration n (--phi-estimate auto)
        awk -F, -v n="$n" -v l0="$quiet_load" -v l1="$after" -v p="$quiet_probe" \
            'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "phi_seconds") c = i}
             NR > 1 && $1 <= n {s += $2} NR > 1 && $1 == n && c {s += $c}
             END {printf "%d %.3f %s %s %s\n", n, s, l0, l1, p}' "$run/model/log.csv"
    done > "$run/times.txt"
}
counts_runs() { # mallet, tomotopy: the program's "N SECONDS" lines, then φ from each N's counts
    after=$(load1)
    while read -r n s; do
        echo "$n $s $quiet_load $after $quiet_probe"
        "$python" "$peers/counts_to_phi.py" "$data/vocab.txt" "$K" "$beta" "$run/phi-$n.npy" counts "$run/c-$n.counts"
        rm -f "$run/c-$n.counts"
    done < "$run/program.txt" > "$run/times.txt"
}
run_mallet() {
    wait_quiet
    java $java_opts -cp "$work/build/mallet:$work/build/mallet/classes:$work/src/Mallet/lib/*" MalletPeer \
        "$data/train.txt" "$data/vocab.txt" "$K" "$alpha_sum" "$beta" "$train_seed" "$threads" "$iterations" "$run/c" \
        > "$run/program.txt" 2> "$run/stderr.txt"
    counts_runs
}
run_tomotopy() {
    wait_quiet
    "$work/build/tomotopy_lda" "$data/train.txt" "$K" "$alpha" "$beta" "$train_seed" "$threads" "$iterations" "$run/c" \
        > "$run/program.txt" 2> "$run/stderr.txt"
    counts_runs
}
run_warplda() {
    : > "$run/times.txt"
    for n in $iterations; do
        wait_quiet
        OMP_NUM_THREADS=$threads "$work/build/warplda/release/src/warplda" --prefix "$data/warplda/train" --k "$K" \
            --niter "$n" --alpha "$alpha_sum" --beta "$beta" --model "$run/w-$n.model" --writeinfo=false \
            --dumpz=false > "$run/w-$n.log" 2>&1 || die "WarpLDA failed: $run/w-$n.log"
        after=$(load1)
        s=$(awk '/^Iteration [0-9]+, / {s += $3} END {printf "%.3f", s}' "$run/w-$n.log")
        echo "$n $s $quiet_load $after $quiet_probe" >> "$run/times.txt"
        "$python" "$peers/counts_to_phi.py" "$data/vocab.txt" "$K" "$beta" "$run/phi-$n.npy" warplda \
            "$run/w-$n.model" "$data/warplda/train.vocab"
        rm -f "$run/w-$n.model"
    done
}

# ---- the corpora, the systems, the evaluation ----
csv="$out/peers.csv"
echo "corpus,topics,system,iterations,seconds,heldout_loglik,tokens_per_second,segment_tokens_per_second,load_before,load_after,threads,probe_ms,seed" > "$csv"
for name in $corpora; do
    data="$work/data/$name"
    if [ ! -f "$data/split.txt" ]; then
        [ -f "$corpus_dir/$name/docword.$name.txt.gz" ] || die "no $corpus_dir/$name/docword.$name.txt.gz"
        rm -rf "$data" && mkdir -p "$data.part"
        "$python" "$peers/split.py" "$corpus_dir/$name/docword.$name.txt.gz" "$corpus_dir/$name/vocab.$name.txt.gz" \
            "$holdout" "$seed" "$data.part"
        mv "$data.part" "$data"
    fi
    if echo " $systems " | grep -q ' warplda ' && [ ! -f "$data/warplda/train.vocab" ]; then
        mkdir -p "$data/warplda"
        "$work/build/warplda/release/src/format" -input "$data/train.yahoo" -prefix "$data/warplda/train" \
            > "$data/warplda/format.log" 2>&1 || die "WarpLDA's format failed: $data/warplda/format.log"
    fi
    tokens=$(awk '$1 == "train_tokens" {print $2}' "$data/split.txt")
    best_probe=
    for K in $topics; do
        alpha=$(awk -v a="$alpha_sum" -v k="$K" 'BEGIN {printf "%.9g", a / k}')
        for train_seed in $seeds; do
        for system in $systems; do
            # WarpLDA's seed is fixed in its code: one run, the first seed's
            [ "$system" != warplda ] || [ "$train_seed" = "${seeds%% *}" ] || continue
            run="$work/runs/$name-K$K-$(echo "$system" | tr : -)-s$train_seed"
            case $system in ldagpu:*) sampler=${system#ldagpu:} ;; *) sampler=auto ;; esac
            if [ ! -f "$run/rows.csv" ]; then
                rm -rf "$run" && mkdir -p "$run"
                echo "cpu-peers: $name K = $K $system ($iterations iterations)" >&2
                "run_${system%%:*}"
                : > "$run/rows.part"
                prev_n=0 prev_s=0
                while read -r n s l0 l1 p; do
                    ll=$("$bin" eval --phi "$run/phi-$n.npy" --phi-vocab "$data/vocab.txt" --alpha "$alpha" \
                        "$data/heldout.docword" --vocab "$data/vocab.txt" -n "$eval_iterations" -s "$seed" \
                        --device cpu -j "$threads" | awk '$1 == "loglik_per_token" {print $2}')
                    awk -v c="$name" -v K="$K" -v sys="$system" -v n="$n" -v s="$s" -v ll="$ll" -v tok="$tokens" \
                        -v pn="$prev_n" -v ps="$prev_s" -v l0="$l0" -v l1="$l1" -v j="$threads" -v p="${p:-0}" \
                        -v sd="$train_seed" 'BEGIN {
                            all = (s > 0) ? tok * n / s : 0
                            seg = (s > ps) ? tok * (n - pn) / (s - ps) : 0
                            if (sys == "warplda") seg = all # a run a point: no segments
                            printf "%s,%d,%s,%d,%.3f,%s,%.0f,%.0f,%s,%s,%d,%s,%s\n", c, K, sys, n, s, ll, all, seg, l0, l1, j, p, sd
                        }' >> "$run/rows.part"
                    prev_n=$n prev_s=$s
                done < "$run/times.txt"
                rm -f "$run"/phi-*.npy
                mv "$run/rows.part" "$run/rows.csv"
            fi
            cat "$run/rows.csv" >> "$csv"
        done
        done
    done
done
"$python" "$peers/table.py" "$csv" "$levels" > "$out/peers.md"

{
    echo "$("$bin" --version 2>&1 | head -1) ($(git -C "$root" rev-parse --short HEAD 2> /dev/null || echo unknown))"
    echo "Mallet $MALLET_COMMIT"
    echo "tomotopy $TOMOTOPY_COMMIT (EigenRand $EIGENRAND_COMMIT, Eigen $(awk '/define EIGEN_(WORLD|MAJOR|MINOR)_VERSION/ {printf "%s%s", sep, $3; sep="."}' /usr/include/eigen3/Eigen/src/Core/util/Macros.h 2> /dev/null))"
    echo "WarpLDA $WARPLDA_COMMIT + scripts/peers/warplda.patch"
    echo "java: $(java -version 2>&1 | head -1)"
    echo "g++: $(g++ --version | head -1)"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-) ($(nproc) cores seen), threads $threads"
    echo "alpha_sum $alpha_sum beta $beta seed $seed seeds $seeds holdout $holdout eval_iterations $eval_iterations"
    echo "load_max $load_max load_wait $load_wait probe_slack $probe_slack"
    echo "date $(date -u +%Y-%m-%dT%H:%MZ)"
} > "$out/versions.txt"
echo "cpu-peers: wrote $out/peers.csv, peers.md and versions.txt" >&2
