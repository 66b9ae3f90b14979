#!/bin/sh
# H100: 10^9 K = 10^4, the count update by word off and on to 30, on to 100; then Nsight Compute's
# time of every launch of 8 iterations with it on.
set -u
export LD_LIBRARY_PATH=$PWD/.crit
mkdir -p $OUT
B=$PWD/build/cuda/ldagpu
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
t0=$(date +%s)
[ -f /dev/shm/c.ldab ] || $B generate -o /dev/shm/c.ldab --docs 3333333 --mean-length 300 --lengths lognormal --length-sigma 1 --vocab-size 100000 -K 10000 -a 0.00032 -b 0.01 -s 1 -j 16 > $OUT/gen.log 2>&1
echo "corpus at $(( $(date +%s) - t0 )) s"
upto() { # name switch N
  rm -rf /dev/shm/m-*
  LDAGPU_WORD_CHANGES=$2 $B train /dev/shm/c.ldab -K 10000 -n 200 -a 0.00032 -b 0.01 --model collapsed --sampler sparse --eval-every 0 -s 1 -o /dev/shm/m-$1 > $OUT/$1.log 2>&1 &
  P=$!
  while kill -0 $P 2>/dev/null && ! grep -qE "^iter +$3 " $OUT/$1.log; do sleep 0.5; done
  kill -9 $P 2>/dev/null; wait $P 2>/dev/null
  rm -rf /dev/shm/m-*
  echo "$1 at $(( $(date +%s) - t0 )) s:"; grep -E '^iter +(1|2|5|10|20|25|30|50|75|100) ' $OUT/$1.log
}
upto off30 off 30
upto on30 "" 30
upto on100 "" 100
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader
rm -rf /dev/shm/m-*
timeout 240 ncu --csv --log-file $OUT/ncu.csv --cache-control none --clock-control none --print-units base --metrics gpu__time_duration.sum --launch-count 20000 \
    $B train /dev/shm/c.ldab -K 10000 -n 8 -a 0.00032 -b 0.01 --model collapsed --sampler sparse --eval-every 0 -s 1 -o /dev/shm/m-ncu > $OUT/ncu-train.log 2>&1
echo "ncu rc $? at $(( $(date +%s) - t0 )) s"
rm -rf /dev/shm/m-*
python3 - $OUT/ncu.csv <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; ki = h.index("Kernel Name"); vi = h.index("Metric Value"); ui = h.index("Metric Unit")
rows = rows[1:]
print(len(rows), "launches; unit", rows[0][ui])
draws = [i for i, r in enumerate(rows) if "zsample_sparse" in r[ki]]
for a, b in zip(draws[-4:-1], draws[-3:]):
    tot = collections.OrderedDict()
    for r in rows[a:b]:
        n = r[ki].split("(")[0][:50]
        u = {"ns": 1, "nsecond": 1, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6, "s": 1e9, "second": 1e9}.get(r[ui], 1)
        tot[n] = tot.get(n, 0) + float(r[vi].replace(",", "")) * u
    print("--- iteration from launch", a, "total %.3f ms" % (sum(tot.values()) / 1e6))
    for n, v in tot.items():
        print("  %-50s %10.3f ms" % (n, v / 1e6))
PY
echo "done at $(( $(date +%s) - t0 )) s"
