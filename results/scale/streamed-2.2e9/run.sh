#!/bin/sh
# 2.2 x 10^9 tokens (V = 10^5), K = 10^4, one H100: more than the in-memory plan holds, so --stream-tokens auto streams.
set -u
export LD_LIBRARY_PATH=$PWD/.crit
B=$PWD/build/cuda/ldagpu; mkdir -p $OUT /tmp/big; cd /tmp/big
t0=$(date +%s)
$B generate -o c.ldab --docs 7333333 --mean-length 300 --lengths lognormal --length-sigma 1 --vocab-size 100000 -K 10000 -a 0.00032 -b 0.01 -s 1 -j 16 > $OUT/gen.log 2>&1; tail -1 $OUT/gen.log
echo "generated at $(( $(date +%s) - t0 )) s"; free -g | head -2
$B train c.ldab -K 10000 -n 12 -a 0.00032 -b 0.01 --model collapsed --sampler sparse --eval-every 0 -o m -s 1 > $OUT/train.log 2>&1 &
pid=$!
( while kill -0 $pid 2>/dev/null; do grep -E "VmHWM|VmRSS" /proc/$pid/status > $OUT/host-mem.txt 2>/dev/null; nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits >> $OUT/gpu-mem.txt; sleep 2; done ) &
mon=$!
left=$(( 570 - ($(date +%s) - t0) ))
( sleep $left; kill -TERM $pid 2>/dev/null; sleep 5; kill -KILL $pid 2>/dev/null ) &
wait $pid; echo "train rc $? at $(( $(date +%s) - t0 )) s"
grep -E "layout|device memory|tokens (in|streamed)|set up|^iter|too little|stopped|iterations in" $OUT/train.log | cut -c1-260
cat $OUT/host-mem.txt; echo "GPU peak MiB: $(sort -n $OUT/gpu-mem.txt | tail -1)"
