D=/tmp/pw/data/wikimix; B=/work/main/build/cpu/ldagpu
ev() { $B eval --phi $1 --phi-vocab $D/vocab.txt --alpha 0.2 $D/heldout.docword --vocab $D/vocab.txt -n 20 -s 1 --device cpu -j 2 | awk '$1 == "loglik_per_token" {print $2}'; }
for s in 2 3; do for N in 25 0; do
  o=out/sd-$s-$N
  $B train $D/train.docword --vocab $D/vocab.txt -K 100 -n 400 -a 0.2 -s $s --model collapsed --device cpu -j 2 -e 0 --doc-topics none -o $o --force --cvb-start $N -q
  a=$(ev $o/phi.npy)
  $B train --resume $o -n 400 -q
  echo "seed $s cvb $N 400: $a 800: $(ev $o/phi.npy)"
done; done
