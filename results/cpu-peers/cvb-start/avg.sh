# avg.sh corpus K outdir start step count phi-estimate
D=/tmp/pw/data/$1; K=$2; od=$3; st=$4; step=$5; cnt=$6; pe=$7
a=$(awk -v k=$K 'BEGIN{printf "%.9g", 20/k}')
B=/work/main/build/cpu/ldagpu
ev() { $B eval --phi $1 --phi-vocab $D/vocab.txt --alpha $a $D/heldout.docword --vocab $D/vocab.txt -n 20 -s 1 --device cpu -j 2 | awk '$1 == "loglik_per_token" {print $2}'; }
rm -rf $od; mkdir -p $od
$B train $D/train.docword --vocab $D/vocab.txt -K $K -n $st -a $a -b 0.01 -s 1 --model collapsed --device cpu -j 2 -e 0 --doc-topics none -q -o $od/model --phi-estimate $pe
cp $od/model/phi.npy $od/p0.npy; list=$od/p0.npy
for i in $(seq 1 $cnt); do $B train --resume $od/model -n $step -q --phi-estimate $pe; cp $od/model/phi.npy $od/p$i.npy; list="$list $od/p$i.npy"; done
./npyavg $od/avg.npy $list
echo "single@$st $(ev $od/p0.npy) single@$((st+step*cnt)) $(ev $od/p$cnt.npy) avg $(ev $od/avg.npy)"
