#!/bin/sh
# kill-test.sh — kills `ldagpu train` at random moments and checks, every time, that its model
# folder holds the old model or the new one, complete, and never a mixed one
# (src/model/model_folder.h).
#
#   scripts/kill-test.sh                      200 rounds
#   KILL_TEST_ROUNDS=12 scripts/kill-test.sh  (the test suite runs this)
#
# Settings (environment): LDAGPU_BIN (default ./ldagpu), KILL_TEST_ROUNDS (200), KILL_TEST_SEED
# (1: the same moments again), KILL_TEST_CORPUS (data/wiki2k.txt.gz: its read takes a few
# tenths of a second, so some kills land in it), KILL_TEST_DIR (a new folder under /tmp).
#
# Two reference models are trained first: A (K = 3, seed 1) and B (K = 4, seed 2). Every round
# trains one of them with --force into the folder, which holds whatever the last round left,
# with a checkpoint every iteration and LDAGPU_RENAME_PAUSE_MS (the test switch) holding the
# run for a moment before each rename, link and exchange, so that the kills land between them
# too. The moment of the kill is drawn at random: in a third of the rounds over the length of
# an unkilled run (before, during and after the read), in a third after its set-up (while it
# trains and checkpoints), in a third after its last iteration (while it writes). Three
# kills in four are SIGKILL; the others SIGTERM or SIGINT, which stop the run after its
# iteration (a complete model at an earlier iteration) or, before the first, leave the
# folder as it was. After each round:
#   - the folder's files match its manifest (`cksum`), and `ldagpu topics` reads it;
#   - after SIGKILL its model files are, byte for byte, those the folder held before the round
#     or those of the round's reference (never some of each);
#   - after SIGTERM/SIGINT: the same, or a complete model of the round's settings;
#   - the user's folder `exports/` inside it is there (or comes back with the next run).
# At the end one unkilled run must leave nothing beside the folder or in it.
set -eu

bin=${LDAGPU_BIN:-./ldagpu}
rounds=${KILL_TEST_ROUNDS:-200}
seed=${KILL_TEST_SEED:-1}
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=${KILL_TEST_CORPUS:-$root/data/wiki2k.txt.gz}
work=${KILL_TEST_DIR:-$(mktemp -d /tmp/ldagpu-kill-test-XXXXXX)}
pause=10
iterations=3
files="model.conf vocab.txt phi.npy theta.npy topic_tokens.npy z.npy topics.txt"

fail() {
    echo "kill-test: round $round: $*" >&2
    echo "kill-test: the folder is kept in $work" >&2
    exit 1
}

topics_of() { # A or B: its K
    if [ "$1" = A ]; then echo 3; else echo 4; fi
}

# The options of a run of model A or B.
options() {
    if [ "$1" = A ]; then seed_of=1; else seed_of=2; fi
    echo "-K $(topics_of "$1") -s $seed_of -n $iterations -e 0 -j 2 --device cpu --checkpoint-every 1"
}

train() { # A|B OUTPUT [more options]
    which=$1 out=$2
    shift 2
    # shellcheck disable=SC2046
    "$bin" train "$corpus" $(options "$which") -o "$out" "$@"
}

# The files of folder $1 all match its manifest.
manifest_ok() {
    [ -f "$1/manifest.txt" ] || return 1
    tail -n +2 "$1/manifest.txt" > "$work/listed"
    while read -r _ _ file; do (cd "$1" && cksum "$file") || return 1; done < "$work/listed" > "$work/found"
    cmp -s "$work/listed" "$work/found"
}

# The model files of folders $1 and $2 are the same, byte for byte.
same_model() {
    for f in $files; do cmp -s "$1/$f" "$2/$f" || return 1; done
}

random_fraction() { # a number in [0, 1), from the seed and the round
    awk -v s="$seed" -v r="$1" 'BEGIN { srand(s * 100003 + r); print rand() }'
}

# Waits until the run's log has a line matching $1 (or the run has ended).
wait_for_line() {
    while ! grep -q "$1" "$work/run.log" 2>/dev/null && kill -0 $pid 2>/dev/null; do sleep 0.01; done
}

mkdir -p "$work"
train A "$work/A" > /dev/null 2>&1 || { echo "kill-test: cannot train: $bin train $corpus" >&2; exit 1; }
train B "$work/B" > /dev/null 2>&1
rm -rf "$work/A/checkpoint" "$work/B/checkpoint"
cp -a "$work/A" "$work/m"
mkdir "$work/m/exports"
echo "the user's" > "$work/m/exports/keys.txt"

# The length of an unkilled run (the slowest of three), with the pauses.
export LDAGPU_RENAME_PAUSE_MS=$pause
span=0
for which in B A B; do
    start=$(date +%s.%N)
    train $which "$work/m" --force > /dev/null 2>&1
    span=$(echo "$start $(date +%s.%N) $span" | awk '{ t = $2 - $1; printf "%.3f", (t > $3 ? t : $3) }')
done

round=0
kills=0 terms=0 old=0 new=0 partial=0
while [ "$round" -lt "$rounds" ]; do
    round=$((round + 1))
    if [ $((round % 2)) -eq 1 ]; then name=A; else name=B; fi
    rm -rf "$work/before"
    cp -a "$work/m" "$work/before"
    f=$(random_fraction "$round")
    signal=KILL
    case $((round % 8)) in 3) signal=TERM ;; 7) signal=INT ;; esac
    # shellcheck disable=SC2046
    (exec "$bin" train "$corpus" $(options $name) -o "$work/m" --force) > "$work/run.log" 2>&1 &
    pid=$!
    case $((round % 3)) in
        0) delay=$(echo "$f $span" | awk '{ printf "%.3f", $1 * $2 * 1.1 }') ;; # anywhere: read, set-up, ...
        1) wait_for_line "set up in"                                           # training and checkpoints
           delay=$(echo "$f $span" | awk '{ printf "%.3f", $1 * $2 * 0.4 }') ;;
        2) wait_for_line "iterations in"                                       # writing the model
           delay=$(echo "$f" | awk -v p="$pause" '{ printf "%.3f", $1 * (0.1 + 12 * p / 1000) }') ;;
    esac
    sleep "$delay"
    kill -s $signal $pid 2>/dev/null || true
    status=0
    { wait $pid; } 2>/dev/null || status=$?
    [ $signal = KILL ] && kills=$((kills + 1)) || terms=$((terms + 1))
    case $status in 0 | 130 | 137 | 143) ;; *) fail "train ended with status $status: $(cat "$work/run.log")" ;; esac

    manifest_ok "$work/m" || fail "the files do not match the manifest (a mixed folder)"
    "$bin" topics "$work/m" > /dev/null 2>&1 || fail "topics refuses the folder: $("$bin" topics "$work/m" 2>&1)"
    if same_model "$work/m" "$work/before"; then
        old=$((old + 1))
    elif same_model "$work/m" "$work/$name"; then
        new=$((new + 1))
    elif [ $signal != KILL ] && grep -q "^topics = $(topics_of $name)\$" "$work/m/model.conf"; then
        partial=$((partial + 1)) # stopped after an iteration: complete, checked by its manifest
    else
        fail "neither the model it held nor the new one (SIG$signal after ${delay} s)"
    fi
done

# One unkilled run: whatever the kills left beside the folder or in it is tidied.
unset LDAGPU_RENAME_PAUSE_MS
train A "$work/m" --force > "$work/run.log" 2>&1 || fail "the last run failed: $(cat "$work/run.log")"
same_model "$work/m" "$work/A" || fail "the last run did not write model A"
[ -f "$work/m/exports/keys.txt" ] || fail "the user's folder exports/ was lost"
left=$(ls -a "$work" | grep -c 'ldagpu-' || true)
inside=$(ls -a "$work/m" | grep -c 'tmp' || true)
[ "$left" -eq 0 ] && [ "$inside" -eq 0 ] || fail "left behind: $(ls -a "$work" "$work/m" | tr '\n' ' ')"

echo "kill-test: $rounds rounds ($kills SIGKILL, $terms SIGTERM/SIGINT over ${span} s runs): the old model" \
     "$old times, the new one $new, an earlier iteration of the new one $partial; never a mixed folder"
[ -n "${KILL_TEST_DIR:-}" ] || rm -rf "$work"
