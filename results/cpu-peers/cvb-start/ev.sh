# ev.sh corpus K prefix its...
D=/tmp/pw/data/$1; K=$2; pre=$3; shift 3
a=$(awk -v k=$K 'BEGIN{printf "%.9g", 20/k}')
for n in "$@"; do echo -n "$n "; /work/main/build/cpu/ldagpu eval --phi $pre-$n.npy --phi-vocab $D/vocab.txt --alpha $a $D/heldout.docword --vocab $D/vocab.txt -n 20 -s 1 --device cpu -j 2 | awk '$1 == "loglik_per_token" {print $2}'; done
