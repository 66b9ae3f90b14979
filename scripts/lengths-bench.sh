#!/bin/sh
# Speed against document lengths: `ldagpu bench` on corpora of the same tokens with different
# length spreads (wiki43k: capped at 450; wikimix: heavy-tailed; long: two documents of about
# 10^6 tokens and one of 10^5 among short ones, scripts/merge-documents.sh), every model, one
# run. Writes OUTDIR/lengths.csv (bench's rows, a corpus column first) and prints a table of
# ms an iteration with each corpus's ratio to wiki43k.
# usage: scripts/lengths-bench.sh OUTDIR [CORPORA_DIR]    (CORPORA_DIR: default .corpora)
# env: LDAGPU (binary, default ./ldagpu), K (default 256,1024), BENCH_ARGS (extra bench options),
#      CORPORA_LIST (default "wiki43k wikimix long"; missing ones are skipped).
set -eu
out=${1:?usage: scripts/lengths-bench.sh OUTDIR [CORPORA_DIR]}
dir=${2:-.corpora}
bin=${LDAGPU:-./ldagpu}
mkdir -p "$out"
csv="$out/lengths.csv"
: > "$csv"
for name in ${CORPORA_LIST:-wiki43k wikimix long}; do
    docword="$dir/$name/docword.$name.txt.gz"
    [ -f "$docword" ] || { echo "lengths-bench: no $docword, skipped" >&2; continue; }
    # shellcheck disable=SC2086
    "$bin" bench "$docword" -K "${K:-256,1024}" --models uncollapsed,mean-for-mode,theta-collapsed,collapsed --samplers butterfly \
        ${BENCH_ARGS:-} -o "$out/bench-$name.csv" 2> "$out/bench-$name.log"
    if [ ! -s "$csv" ]; then head -1 "$out/bench-$name.csv" | sed 's/^/corpus,/' > "$csv"; fi
    tail -n +2 "$out/bench-$name.csv" | sed "s/^/$name,/" >> "$csv"
done
# corpus,K,sampler,precision,model,split,device,ms_median,...: a table by (model, K)
awk -F, 'NR > 1 { key = $5 " K=" $2; ms[key, $1] = $8; if (!(key in seen)) { seen[key] = 1; keys[++n] = key }
                  if (!($1 in cseen)) { cseen[$1] = 1; corp[++m] = $1 } }
    END {
        printf "| model, K |"; for (j = 1; j <= m; j++) printf " %s ms |", corp[j]
        for (j = 2; j <= m; j++) printf " %s / %s |", corp[j], corp[1]; printf "\n|---|"
        for (j = 1; j < 2 * m; j++) printf "---|"; printf "\n"
        for (i = 1; i <= n; i++) {
            printf "| %s |", keys[i]
            for (j = 1; j <= m; j++) printf " %s |", ms[keys[i], corp[j]]
            for (j = 2; j <= m; j++) { a = ms[keys[i], corp[j]]; b = ms[keys[i], corp[1]]
                                       if (a != "" && b > 0) printf " %.2f |", a / b; else printf " |" }
            printf "\n"
        }
    }' "$csv"
