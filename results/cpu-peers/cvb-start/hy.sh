# hy.sh corpus K zfile outdir points...
D=/tmp/pw/data/$1; K=$2; zf=$3; od=$4; shift 4
a=$(awk -v k=$K 'BEGIN{printf "%.9g", 20/k}')
B=/tmp/hack/build/cpu/ldagpu
rm -rf $od; mkdir -p $od; done_=0
for n in "$@"; do
  t0=$(date +%s.%N)
  if [ $done_ = 0 ]; then
    LDAGPU_HACK_Z=$zf $B train $D/train.docword --vocab $D/vocab.txt -K $K -n $n -a $a -b 0.01 -s 1 --model collapsed --device cpu -j 2 -e 0 --doc-topics none -q -o $od/model
  else
    $B train --resume $od/model -n $((n - done_)) -q
  fi
  t1=$(date +%s.%N); done_=$n
  ll=$($B eval --phi $od/model/phi.npy --phi-vocab $D/vocab.txt --alpha $a $D/heldout.docword --vocab $D/vocab.txt -n 20 -s 1 --device cpu -j 2 | awk '$1 == "loglik_per_token" {print $2}')
  echo "$n $(echo "$t1 - $t0" | bc) $ll"
done
