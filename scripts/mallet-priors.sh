#!/bin/sh
# The α and β that Mallet's ParallelTopicModel (SparseLDA, collapsed Gibbs) and ldagpu
# (--model collapsed, CPU) learn with --optimize-interval on the same tokens, side by side; the α
# and β that maximise the likelihood of each program's last state; and a plain collapsed Gibbs
# sampler with ldagpu's departures from the exact one switched on and off, learning the priors
# the ldagpu way and the Mallet way (results/priors/mallet-vs-ldagpu-wiki5k.md). Not run in CI:
# it needs Mallet's source and Java.
#
# usage: MALLET_HOME=DIR sh scripts/mallet-priors.sh [OUTDIR]        (OUTDIR: results/priors)
#   MALLET_HOME  a checkout of https://github.com/mimno/Mallet (src/main/java, lib/*.jar); it is
#                compiled with javac into WORK (no Maven; Error Prone's @Var, an annotation that
#                only feeds a static check, gets a one-line definition in case its jar is absent)
# env: CORPUS     raw text, read by ldagpu's default tokenizer (default: wiki5k/wiki5k.txt.gz in
#                 .corpora, ../shared/corpora or ../../shared/corpora); NAME its name in the
#                 output files (wiki5k)
#      TOPICS ("50 256 1024"), ITERATIONS (300), ALPHA_SUM (50; ldagpu's -a is ALPHA_SUM/K),
#      BETA (0.01), INTERVAL (10), BURN_IN (50), SEEDS ("1 2")
#      LONG       iterations of one more learning run of each program at the first K and seed
#                 (0: none; default 3000)
#      SAMPLER_TOPICS  the K of the plain sampler's runs ("50 256"; "": none)
#      LDAGPU (./ldagpu), WORK (a new temporary folder; a run whose results are already there
#      is not repeated), MALLET_COMMIT (recorded where MALLET_HOME is not a git checkout)
# Needs java and javac (17), python3 (no modules) and ldagpu built. The defaults take one to two
# hours on one core (a Mallet or ldagpu run at K = 1024: 2-3 minutes; a plain sampler run at
# K = 256: about 3).
#
# The tokens: `ldagpu format` reads CORPUS as train does; its binary corpus is written out as one
# document a line of the words ldagpu kept, which Mallet imports keeping every token
# (--token-regex '\S+', case and stop words kept); the two token counts must agree. Each program
# runs once learning the priors (every INTERVAL iterations after BURN_IN) and once without, one
# thread, no held-out part, from α_k = ALPHA_SUM/K and β = BETA. Mallet is driven through its own
# classes in train-topics' order of calls (the same topic keys as train-topics), with a hook
# recording α and β after every optimisation, and beside them Σα of Minka's fixed point run to
# convergence on the same histograms (what ldagpu would learn there). Every run's last state then
# goes through one estimator, Mallet's (cc.mallet.types.Dirichlet): the joint log-likelihood
# under the priors in force, and the α (learnParameters without a hyperprior, converged) and β
# (learnSymmetricConcentration) that maximise the likelihood of its counts.
#
# Writes to OUTDIR (NAME = wiki5k):
#   mallet-vs-ldagpu-NAME.csv        a run a row: program,K,seed,iterations,optimize_interval,tokens,
#                                    alpha_sum,alpha_min,alpha_median,alpha_max,beta,joint_ll_per_token
#                                    (the priors at the end and the program's own joint figure)
#   mallet-vs-ldagpu-NAME-trace.csv  learning runs, each optimisation: program,K,seed,iterations,
#                                    iteration,alpha_sum,alpha_min,alpha_median,alpha_max,beta,
#                                    converged_alpha_sum (ldagpu: its log's 4 digits, no median;
#                                    its own steps are converged; dense-*: Σα and β only)
#   mallet-vs-ldagpu-NAME-alpha.csv  learning runs: K,seed,iterations,rank,mallet,ldagpu (α, largest first)
#   mallet-vs-ldagpu-NAME-state.csv  every run's last state: program,K,seed,iterations,
#                                    optimize_interval,tokens,joint_ll_per_token,mle_alpha_sum,
#                                    mle_alpha_min,mle_alpha_median,mle_alpha_max,mle_beta,
#                                    unused_topics (no document has them), and for learning runs
#                                    alpha_vs_mle_max_rel_diff,one_step_max_rel_change (one more
#                                    fixed-point step from the learned α; both over the used
#                                    topics),beta_vs_mle_rel_diff
#   mallet-vs-ldagpu-NAME-samplers.csv  the plain sampler (DenseGibbs below): sampler,update,K,
#                                    seed,iterations,alpha_sum,beta, then the state's columns
#   mallet-vs-ldagpu-NAME-versions.txt  Mallet's commit, Java, ldagpu, the corpus, the machine
set -eu
: "${MALLET_HOME:?set MALLET_HOME to a Mallet source checkout (see the header)}"
out=${1:-results/priors}
corpus=${CORPUS:-}
if [ -z "$corpus" ]; then
    for dir in .corpora ../shared/corpora ../../shared/corpora; do
        [ -f "$dir/wiki5k/wiki5k.txt.gz" ] && { corpus="$dir/wiki5k/wiki5k.txt.gz"; break; }
    done
    [ -n "$corpus" ] || { echo "mallet-priors: no wiki5k.txt.gz in .corpora or ../shared/corpora: set CORPUS" >&2; exit 2; }
fi
name=${NAME:-wiki5k}
bin=${LDAGPU:-./ldagpu}
iterations=${ITERATIONS:-300}
alpha_sum=${ALPHA_SUM:-50}
beta=${BETA:-0.01}
interval=${INTERVAL:-10}
burn_in=${BURN_IN:-50}
seeds=${SEEDS:-1 2}
first_seed=${seeds%% *}
long=${LONG:-3000}
work=${WORK:-$(mktemp -d)}
mkdir -p "$out" "$work/classes" "$work/hook"
for tool in java javac jar python3; do
    command -v "$tool" > /dev/null || { echo "mallet-priors: $tool not found" >&2; exit 2; }
done
[ -x "$bin" ] || { echo "mallet-priors: no ldagpu at $bin (make, or set LDAGPU)" >&2; exit 2; }

# ---- Mallet, compiled from its source ----
jar="$work/mallet.jar"
if [ ! -f "$jar" ]; then
    mkdir -p "$work/stub/com/google/errorprone/annotations"
    echo 'package com.google.errorprone.annotations; public @interface Var {}' \
        > "$work/stub/com/google/errorprone/annotations/Var.java"
    find "$MALLET_HOME/src/main/java" "$work/stub" -name '*.java' > "$work/sources.txt"
    javac -nowarn -encoding UTF-8 -cp "$MALLET_HOME/lib/*" -d "$work/classes" @"$work/sources.txt" 2>&1 |
        grep -v '^Note:' >&2 || true
    [ -f "$work/classes/cc/mallet/topics/ParallelTopicModel.class" ] || { echo "mallet-priors: Mallet did not compile" >&2; exit 1; }
    cp -r "$MALLET_HOME/src/main/resources/." "$work/classes/"
    jar cf "$jar" -C "$work/classes" .
fi
cp="$jar:$MALLET_HOME/lib/*"
mallet_commit=${MALLET_COMMIT:-$(git -C "$MALLET_HOME" rev-parse HEAD 2> /dev/null || echo unknown)}

# ldagpu's binary corpus and the .npy files the Java programs read and write.
cat > "$work/hook/Ldab.java" << 'JAVA'
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;

/* ldagpu's binary corpus (src/corpus/corpus_binary.h): each document's token range, the word ids. */
public class Ldab {
    final int docs, tokens, words;
    final int[] offsets, ids;

    Ldab(String path) throws IOException {
        ByteBuffer c = read(path);
        int header = c.getInt(12);
        docs = (int) c.getLong(24);
        tokens = (int) c.getLong(32);
        words = c.getInt(40);
        int at = (int) (header + (c.getLong(56) + 7) / 8 * 8); /* past the note */
        offsets = new int[docs + 1];
        for (int d = 0; d <= docs; d++) offsets[d] = (int) c.getLong(at + 8 * d);
        at += 8 * (docs + 1) + 8 * docs; /* the offsets, then the input positions */
        ids = new int[tokens];
        for (int i = 0; i < tokens; i++) ids[i] = c.getInt(at + 4 * i);
    }

    int longest() {
        int n = 0;
        for (int d = 0; d < docs; d++) n = Math.max(n, offsets[d + 1] - offsets[d]);
        return n;
    }

    static ByteBuffer read(String path) throws IOException {
        return ByteBuffer.wrap(Files.readAllBytes(Paths.get(path))).order(ByteOrder.LITTLE_ENDIAN);
    }

    /* The data of a .npy file (version 1 or 2), past its header. */
    static ByteBuffer npy(String path) throws IOException {
        ByteBuffer b = read(path);
        int major = b.get(6);
        int headerLength = major == 1 ? (b.getShort(8) & 0xffff) : b.getInt(8);
        b.position((major == 1 ? 10 : 12) + headerLength);
        return b.slice().order(ByteOrder.LITTLE_ENDIAN);
    }

    /* Every token's topic in corpus order, as ldagpu's z.npy (uint32). */
    static void writeZ(String path, int[] z) throws IOException {
        String dict = "{'descr': '<u4', 'fortran_order': False, 'shape': (" + z.length + ",), }";
        String header = dict + " ".repeat((64 - (10 + dict.length() + 1) % 64) % 64) + "\n";
        ByteBuffer b = ByteBuffer.allocate(10 + header.length() + 4 * z.length).order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) 0x93).put("NUMPY".getBytes(StandardCharsets.US_ASCII)).put((byte) 1).put((byte) 0);
        b.putShort((short) header.length()).put(header.getBytes(StandardCharsets.US_ASCII));
        for (int k : z) b.putInt(k);
        Files.write(Paths.get(path), b.array());
    }
}
JAVA

# The hook: train-topics' calls; α and β recorded after each optimisation (optimizeBeta runs
# right after optimizeAlpha, so overriding it sees both); the last state written as z.npy.
cat > "$work/hook/MalletPriors.java" << 'JAVA'
import cc.mallet.topics.ParallelTopicModel;
import cc.mallet.topics.TopicAssignment;
import cc.mallet.topics.WorkerCallable;
import cc.mallet.types.Dirichlet;
import cc.mallet.types.InstanceList;
import java.io.File;
import java.io.PrintWriter;
import java.util.Arrays;

/* args: INSTANCES K ALPHA_SUM BETA ITERATIONS INTERVAL BURN_IN SEED OUT_PREFIX */
public class MalletPriors extends ParallelTopicModel {
    final int interval, burnIn;
    final PrintWriter trace;
    int optimisations = 0;

    MalletPriors(int k, double alphaSum, double beta, int interval, int burnIn, PrintWriter trace) {
        super(k, alphaSum, beta);
        this.interval = interval;
        this.burnIn = burnIn;
        this.trace = trace;
    }

    /* sum,min,median,max of α */
    static String alphaStats(double[] alpha) {
        double[] a = alpha.clone();
        Arrays.sort(a);
        double sum = 0;
        for (double x : a) sum += x;
        double median = a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
        return sum + "," + a[0] + "," + median + "," + a[a.length - 1];
    }

    /* Σα of Minka's fixed point run to convergence without a hyperprior (shape 0, 1/scale 0),
     * as ldagpu learns it, on the histograms Mallet's own step just used. */
    double convergedAlphaSum() {
        return Dirichlet.learnParameters(alpha.clone(), topicDocCounts, docLengthCounts, 0.0,
                                         Double.POSITIVE_INFINITY, 1000);
    }

    @Override
    public void optimizeBeta(WorkerCallable[] callables) {
        super.optimizeBeta(callables);
        optimisations++; /* the first is at the first multiple of the interval past the burn-in */
        trace.println((burnIn / interval + optimisations) * interval + "," + alphaStats(alpha) + "," + beta + ","
                      + convergedAlphaSum());
        trace.flush();
    }

    public static void main(String[] args) throws Exception {
        InstanceList training = InstanceList.load(new File(args[0]));
        int k = Integer.parseInt(args[1]), iterations = Integer.parseInt(args[4]);
        int interval = Integer.parseInt(args[5]), burnIn = Integer.parseInt(args[6]), seed = Integer.parseInt(args[7]);
        String out = args[8];
        PrintWriter trace = new PrintWriter(out + "-trace.csv");
        MalletPriors model = new MalletPriors(k, Double.parseDouble(args[2]), Double.parseDouble(args[3]), interval,
                                              burnIn, trace);
        model.setRandomSeed(seed);
        model.addInstances(training);
        trace.println("0," + alphaStats(model.alpha) + "," + model.beta + ",");
        model.setTopicDisplay(0, 20);
        model.setNumIterations(iterations);
        model.setOptimizeInterval(interval);
        model.setBurninPeriod(burnIn);
        model.setSymmetricAlpha(false);
        model.setNumThreads(1);
        model.estimate();
        trace.close();
        try (PrintWriter a = new PrintWriter(out + "-alpha.txt")) {
            for (double x : model.alpha) a.println(x);
        }
        int[] z = new int[(int) model.totalTokens];
        int at = 0;
        for (TopicAssignment t : model.data)
            for (int topic : t.topicSequence.getFeatures()) z[at++] = topic;
        Ldab.writeZ(out + "-z.npy", z);
        model.printTopWords(new File(out + "-keys.txt"), 20, false);
        try (PrintWriter e = new PrintWriter(out + "-end.csv")) { /* tokens,alpha stats,beta,joint */
            e.println(model.totalTokens + "," + alphaStats(model.alpha) + "," + model.beta + ","
                      + model.modelLogLikelihood() / model.totalTokens);
        }
    }
}
JAVA

# One state (a corpus and every token's topic) through one estimator, Mallet's own.
cat > "$work/hook/StatePriors.java" << 'JAVA'
import cc.mallet.types.Dirichlet;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.List;

/* args: CORPUS.ldab Z.npy K START_ALPHA ALPHA BETA LEARNED
 *   ALPHA: the α_k in force, a number (symmetric), alpha.npy (ldagpu's) or a .txt file (one a
 *   line); LEARNED: 1 when ALPHA and BETA were learned (then compared with the maximum).
 * Prints tokens,joint_ll_per_token,mle_alpha_sum,mle_alpha_min,mle_alpha_median,mle_alpha_max,
 * mle_beta,unused_topics,alpha_vs_mle_max_rel_diff,one_step_max_rel_change,beta_vs_mle_rel_diff;
 * the α comparisons over the topics some document uses (the maximum gives the others 0, ldagpu
 * its floor of 1e-6). */
public class StatePriors {
    static double[] alphaOf(String given, int K) throws IOException {
        double[] a = new double[K];
        if (given.endsWith(".npy")) {
            ByteBuffer b = Ldab.npy(given);
            for (int k = 0; k < K; k++) a[k] = b.getFloat(4 * k);
        } else if (given.endsWith(".txt")) {
            List<String> lines = Files.readAllLines(Paths.get(given));
            for (int k = 0; k < K; k++) a[k] = Double.parseDouble(lines.get(k));
        } else {
            Arrays.fill(a, Double.parseDouble(given));
        }
        return a;
    }

    static double median(double[] values) {
        double[] a = values.clone();
        Arrays.sort(a);
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }

    static double lg(double x) {
        return Dirichlet.logGammaStirling(x); /* as Mallet's modelLogLikelihood */
    }

    public static void main(String[] args) throws IOException {
        Ldab c = new Ldab(args[0]);
        ByteBuffer z = Ldab.npy(args[1]);
        int K = Integer.parseInt(args[2]), D = c.docs, N = c.tokens, V = c.words;
        double start = Double.parseDouble(args[3]);
        double[] alpha = alphaOf(args[4], K);
        double beta = Double.parseDouble(args[5]);
        boolean learned = args[6].equals("1");

        int longest = c.longest();
        int[] lengths = new int[longest + 1], topicTokens = new int[K], docTopic = new int[K];
        int[][] topicDocCounts = new int[K][longest + 1];
        int[][] wordTopic = new int[V][K];
        double alphaSum = 0, joint = 0;
        for (double x : alpha) alphaSum += x;
        for (int d = 0; d < D; d++) {
            Arrays.fill(docTopic, 0);
            for (int i = c.offsets[d]; i < c.offsets[d + 1]; i++) {
                int k = z.getInt(4 * i);
                docTopic[k]++;
                wordTopic[c.ids[i]][k]++;
                topicTokens[k]++;
            }
            int length = c.offsets[d + 1] - c.offsets[d];
            lengths[length]++;
            joint += lg(alphaSum) - lg(alphaSum + length);
            for (int k = 0; k < K; k++) {
                topicDocCounts[k][docTopic[k]]++;
                if (docTopic[k] > 0) joint += lg(alpha[k] + docTopic[k]) - lg(alpha[k]);
            }
        }
        for (int[] row : wordTopic)
            for (int n : row)
                if (n > 0) joint += lg(beta + n) - lg(beta);
        for (int n : topicTokens) joint += lg(V * beta) - lg(V * beta + n);

        int largestPair = 0, largestTopic = 0;
        for (int[] row : wordTopic) for (int n : row) largestPair = Math.max(largestPair, n);
        for (int n : topicTokens) largestTopic = Math.max(largestTopic, n);
        int[] pairHistogram = new int[largestPair + 1], topicHistogram = new int[largestTopic + 1];
        for (int[] row : wordTopic) for (int n : row) if (n > 0) pairHistogram[n]++;
        for (int n : topicTokens) topicHistogram[n]++;

        double[] mle = new double[K];
        Arrays.fill(mle, start);
        double mleSum = Dirichlet.learnParameters(mle, topicDocCounts, lengths, 0.0, Double.POSITIVE_INFINITY, 1000);
        double mleBeta = Dirichlet.learnSymmetricConcentration(pairHistogram, topicHistogram, V, V * beta) / V;
        double lo = mle[0], hi = mle[0];
        for (double x : mle) { lo = Math.min(lo, x); hi = Math.max(hi, x); }
        int unused = 0;
        for (int k = 0; k < K; k++)
            if (topicDocCounts[k][0] == D) unused++;
        String compared = ",,";
        if (learned) {
            double[] step = alpha.clone(); /* one more step from the learned α: a fixed point does not move */
            Dirichlet.learnParameters(step, topicDocCounts, lengths, 0.0, Double.POSITIVE_INFINITY, 1);
            double diff = 0, change = 0;
            for (int k = 0; k < K; k++) {
                if (topicDocCounts[k][0] == D) continue;
                diff = Math.max(diff, Math.abs(alpha[k] / mle[k] - 1));
                change = Math.max(change, Math.abs(step[k] / alpha[k] - 1));
            }
            compared = diff + "," + change + "," + Math.abs(beta / mleBeta - 1);
        }
        System.out.println(N + "," + joint / N + "," + mleSum + "," + lo + "," + median(mle) + "," + hi + ","
                           + mleBeta + "," + unused + "," + compared);
    }
}
JAVA

# A plain collapsed Gibbs sampler whose word side can be made ldagpu's, learning the priors
# either way: which of ldagpu's differences from Mallet moves the learned priors.
cat > "$work/hook/DenseGibbs.java" << 'JAVA'
import cc.mallet.types.Dirichlet;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.SplittableRandom;

/* Collapsed Gibbs sampling, dense, one thread, document by document. The document side is exact
 * (n[m,k] without the token) in every mode; the word side, by MODE:
 *   exact       n[w,k], n[k] updated token by token, the token's own count removed (as Mallet)
 *   stale       n[w,k], n[k] as they were at the iteration's start, the token's own count
 *               included (ldagpu's collapsed model: φ the mean of the counts at the iteration's start)
 *   stale-excl  as stale, the token's own count removed from the start's counts
 *   self        updated token by token, the token's own count included
 * UPDATE none keeps the priors; otherwise they are learned every INTERVAL iterations after
 * BURN_IN, α by converged (Minka's fixed point to convergence, no hyperprior, α_k at least 1e-6:
 * ldagpu's) or step (one step with the Gamma(1.001, 1) hyperprior: Mallet's), β by Mallet's
 * learnSymmetricConcentration (converged, as ldagpu's).
 * args: CORPUS.ldab K ALPHA BETA ITERATIONS SEED MODE UPDATE INTERVAL BURN_IN OUT_PREFIX
 * Prints iteration,alpha_sum,beta after each learning; writes OUT-z.npy, OUT-alpha.txt,
 * OUT-end.csv (alpha_sum,beta). */
public class DenseGibbs {
    public static void main(String[] args) throws Exception {
        Ldab c = new Ldab(args[0]);
        int D = c.docs, N = c.tokens, V = c.words, K = Integer.parseInt(args[1]);
        double beta = Double.parseDouble(args[3]);
        int iterations = Integer.parseInt(args[4]);
        SplittableRandom rng = new SplittableRandom(Long.parseLong(args[5]));
        String mode = args[6], update = args[7], out = args[10];
        int interval = Integer.parseInt(args[8]), burnIn = Integer.parseInt(args[9]);
        boolean stale = mode.startsWith("stale"), exclude = mode.equals("exact") || mode.equals("stale-excl");
        int[] z = new int[N], nwk = new int[V * K], nk = new int[K], ndk = new int[K];
        int[] startWk = new int[V * K], startK = new int[K];
        for (int i = 0; i < N; i++) {
            z[i] = rng.nextInt(K);
            nwk[c.ids[i] * K + z[i]]++;
            nk[z[i]]++;
        }
        double[] p = new double[K], a = new double[K];
        Arrays.fill(a, Double.parseDouble(args[2]));
        int longest = c.longest();
        for (int it = 1; it <= iterations; it++) {
            if (stale) {
                System.arraycopy(nwk, 0, startWk, 0, nwk.length);
                System.arraycopy(nk, 0, startK, 0, K);
            }
            int[] word = stale ? startWk : nwk, total = stale ? startK : nk;
            /* what the token's own count adds to the counts read: live counts have it removed
             * (put back for self), the start's counts hold it (taken out for stale-excl) */
            int ownLive = exclude ? 0 : 1, ownStale = exclude ? -1 : 0, own = stale ? ownStale : ownLive;
            for (int d = 0; d < D; d++) {
                Arrays.fill(ndk, 0);
                for (int i = c.offsets[d]; i < c.offsets[d + 1]; i++) ndk[z[i]]++;
                for (int i = c.offsets[d]; i < c.offsets[d + 1]; i++) {
                    int old = z[i], row = c.ids[i] * K;
                    ndk[old]--;
                    nwk[row + old]--;
                    nk[old]--;
                    double sum = 0;
                    for (int k = 0; k < K; k++) {
                        int mine = k == old ? own : 0;
                        sum += (ndk[k] + a[k]) * (word[row + k] + mine + beta) / (total[k] + mine + V * beta);
                        p[k] = sum;
                    }
                    double u = rng.nextDouble() * sum;
                    int k = 0;
                    while (k < K - 1 && p[k] <= u) k++;
                    z[i] = k;
                    ndk[k]++;
                    nwk[row + k]++;
                    nk[k]++;
                }
            }
            if (!update.equals("none") && it > burnIn && it % interval == 0) {
                int[] lengths = new int[longest + 1];
                int[][] hist = new int[K][longest + 1];
                for (int d = 0; d < D; d++) {
                    Arrays.fill(ndk, 0);
                    for (int i = c.offsets[d]; i < c.offsets[d + 1]; i++) ndk[z[i]]++;
                    lengths[c.offsets[d + 1] - c.offsets[d]]++;
                    for (int k = 0; k < K; k++) hist[k][ndk[k]]++;
                }
                if (update.equals("converged")) {
                    Dirichlet.learnParameters(a, hist, lengths, 0.0, Double.POSITIVE_INFINITY, 1000);
                    for (int k = 0; k < K; k++) a[k] = Math.max(a[k], 1e-6);
                } else {
                    Dirichlet.learnParameters(a, hist, lengths, 1.001, 1.0, 1);
                }
                int largest = 0, largestTopic = 0;
                for (int x : nwk) largest = Math.max(largest, x);
                for (int x : nk) largestTopic = Math.max(largestTopic, x);
                int[] pairs = new int[largest + 1], sizes = new int[largestTopic + 1];
                for (int x : nwk) if (x > 0) pairs[x]++;
                for (int x : nk) sizes[x]++;
                beta = Dirichlet.learnSymmetricConcentration(pairs, sizes, V, V * beta) / V;
                System.out.println(it + "," + Arrays.stream(a).sum() + "," + beta);
            }
        }
        try (PrintWriter pa = new PrintWriter(out + "-alpha.txt")) {
            for (double x : a) pa.println(x);
        }
        Ldab.writeZ(out + "-z.npy", z);
        try (PrintWriter e = new PrintWriter(out + "-end.csv")) {
            e.println(Arrays.stream(a).sum() + "," + beta);
        }
    }
}
JAVA
javac -nowarn -cp "$cp" -d "$work/hook" "$work/hook/Ldab.java" "$work/hook/MalletPriors.java" \
    "$work/hook/StatePriors.java" "$work/hook/DenseGibbs.java"

# Small readers: the binary corpus as lines of words, alpha.npy, train's log.
cat > "$work/helpers.py" << 'PYTHON'
import re, struct, sys

def ldab_lines(path, out):
    b = open(path, 'rb').read()
    assert b[:8] == b'LDAGPUCB', path + ': not a binary corpus'
    header = struct.unpack_from('<I', b, 12)[0]
    docs, tokens = struct.unpack_from('<QQ', b, 24)
    vocab_size = struct.unpack_from('<I', b, 40)[0]
    vocab_bytes, note = struct.unpack_from('<QQ', b, 48)
    at = header + (note + 7) // 8 * 8
    off = struct.unpack_from('<%dQ' % (docs + 1), b, at)
    at += 8 * (docs + 1) + 8 * docs
    words = struct.unpack_from('<%dI' % tokens, b, at)
    vocab = b[at + 4 * tokens:at + 4 * tokens + vocab_bytes].split(b'\0')[:vocab_size]
    with open(out, 'wb') as f:
        for d in range(docs):
            f.write(b'%d\tX\t' % d + b' '.join(vocab[w] for w in words[off[d]:off[d + 1]]) + b'\n')
    print(tokens)

def npy_floats(path):
    b = open(path, 'rb').read()
    n = struct.unpack_from('<H', b, 8)[0] if b[6] == 1 else struct.unpack_from('<I', b, 8)[0]
    at = (10 if b[6] == 1 else 12) + n
    assert b"'<f4'" in b[:at], path + ': not float32'
    return list(struct.unpack_from('<%df' % ((len(b) - at) // 4), b, at))

def stats(values):
    a = sorted(values)
    m = len(a) // 2
    return '%.9g,%.9g,%.9g,%.9g' % (sum(a), a[0], a[m] if len(a) % 2 else (a[m - 1] + a[m]) / 2, a[-1])

cmd = sys.argv[1]
if cmd == 'lines':      # LDAB OUT: the documents as lines; prints the token count
    ldab_lines(sys.argv[2], sys.argv[3])
elif cmd == 'alpha':    # ALPHA.npy | K VALUE: sum,min,median,max
    print(stats(npy_floats(sys.argv[2]) if len(sys.argv) == 3 else [float(sys.argv[3])] * int(sys.argv[2])))
elif cmd == 'trace':    # LOG PREFIX: ldagpu's "priors learned" lines as trace rows
    pattern = re.compile(r'iteration (\d+): priors learned: alpha sum (\S+) \(from (\S+) to (\S+)\), beta (\S+)')
    for line in open(sys.argv[2]):
        m = pattern.search(line)
        if m:
            print('%s,%s,%s,%s,,%s,%s,' % ((sys.argv[3],) + m.groups()))
elif cmd == 'ranked':   # MALLET_ALPHA.txt LDAGPU_ALPHA.npy PREFIX: both α, largest first
    mallet = sorted((float(x) for x in open(sys.argv[2])), reverse=True)
    ldagpu = sorted(npy_floats(sys.argv[3]), reverse=True)
    for r, (x, y) in enumerate(zip(mallet, ldagpu)):
        print('%s,%d,%.9g,%.9g' % (sys.argv[4], r, x, y))
PYTHON

# ---- the same tokens for both ----
"$bin" format "$corpus" -o "$work/corpus.ldab" > "$work/format.log" 2>&1 || { cat "$work/format.log" >&2; exit 1; }
tokens=$(python3 "$work/helpers.py" lines "$work/corpus.ldab" "$work/tokens.txt")
java -cp "$cp" cc.mallet.classify.tui.Csv2Vectors --input "$work/tokens.txt" --output "$work/corpus.mallet" \
    --keep-sequence true --token-regex '\S+' --preserve-case true --remove-stopwords false --encoding UTF-8 \
    2> "$work/import.log"

summary="$out/mallet-vs-ldagpu-$name.csv"
trace="$out/mallet-vs-ldagpu-$name-trace.csv"
ranked="$out/mallet-vs-ldagpu-$name-alpha.csv"
state="$out/mallet-vs-ldagpu-$name-state.csv"
samplers="$out/mallet-vs-ldagpu-$name-samplers.csv"
state_columns="tokens,joint_ll_per_token,mle_alpha_sum,mle_alpha_min,mle_alpha_median,mle_alpha_max,mle_beta,unused_topics,alpha_vs_mle_max_rel_diff,one_step_max_rel_change,beta_vs_mle_rel_diff"
echo "program,K,seed,iterations,optimize_interval,tokens,alpha_sum,alpha_min,alpha_median,alpha_max,beta,joint_ll_per_token" > "$summary"
echo "program,K,seed,iterations,iteration,alpha_sum,alpha_min,alpha_median,alpha_max,beta,converged_alpha_sum" > "$trace"
echo "K,seed,iterations,rank,mallet,ldagpu" > "$ranked"
echo "program,K,seed,iterations,optimize_interval,$state_columns" > "$state"
echo "sampler,update,K,seed,iterations,alpha_sum,beta,$state_columns" > "$samplers"

# A state through StatePriors: Z K ALPHA_IN_FORCE BETA_IN_FORCE LEARNED (α starts at alpha_sum/K)
state_of() {
    java -cp "$work/hook:$cp" StatePriors "$work/corpus.ldab" "$1" "$2" "$(python3 -c "print(repr($alpha_sum / $2))")" \
        "$3" "$4" "$5"
}

# One run of each program: K SEED ITERATIONS INTERVAL (0: the priors stay symmetric)
run_both() {
    k=$1 seed=$2 its=$3 every=$4
    tag="K$k-s$seed-n$its-i$every" run="$k,$seed,$its,$every"
    alpha=$(python3 -c "print(repr($alpha_sum / $k))")
    learned=$([ "$every" -gt 0 ] && echo 1 || echo 0)
    echo "mallet-priors: K = $k, seed $seed, $its iterations, optimize interval $every" >&2

    prefix="$work/mallet-$tag"
    if [ ! -s "$prefix-end.csv" ]; then
        java -Xmx4g -cp "$work/hook:$cp" MalletPriors "$work/corpus.mallet" "$k" "$alpha_sum" "$beta" "$its" "$every" \
            "$burn_in" "$seed" "$prefix" > "$prefix.log" 2>&1 || { tail "$prefix.log" >&2; exit 1; }
    fi
    end=$(cat "$prefix-end.csv")
    [ "${end%%,*}" = "$tokens" ] || { echo "mallet-priors: Mallet has ${end%%,*} tokens, ldagpu $tokens" >&2; exit 1; }
    echo "mallet,$run,$end" >> "$summary"
    echo "mallet,$run,$(state_of "$prefix-z.npy" "$k" "$prefix-alpha.txt" "$(echo "$end" | cut -d, -f6)" "$learned")" \
        >> "$state"

    model="$work/ldagpu-$tag"
    if [ ! -s "$model/z.npy" ]; then
        "$bin" train "$corpus" -K "$k" -n "$its" -a "$alpha" -b "$beta" --model collapsed --optimize-interval "$every" \
            --optimize-burn-in "$burn_in" -j 1 --device cpu -s "$seed" --force -o "$model" > "$model.log" 2>&1 ||
            { tail "$model.log" >&2; exit 1; }
    fi
    trained=$(sed -n 's/^tokens = //p' "$model/model.conf")
    joint=$(awk -F, -v n="$its" '$1 == n { print $8 }' "$model/log.csv")
    if [ "$learned" = 1 ]; then
        ldagpu_alpha="$model/alpha.npy" ldagpu_beta=$(sed -n 's/^learned_beta = //p' "$model/model.conf")
        stats=$(python3 "$work/helpers.py" alpha "$ldagpu_alpha")
    else
        ldagpu_alpha=$alpha ldagpu_beta=$beta
        stats=$(python3 "$work/helpers.py" alpha "$k" "$alpha")
    fi
    echo "ldagpu,$run,$trained,$stats,$ldagpu_beta,$joint" >> "$summary"
    echo "ldagpu,$run,$(state_of "$model/z.npy" "$k" "$ldagpu_alpha" "$ldagpu_beta" "$learned")" >> "$state"

    if [ "$learned" = 1 ]; then
        sed "s/^/mallet,$k,$seed,$its,/" "$prefix-trace.csv" >> "$trace"
        python3 "$work/helpers.py" trace "$model.log" "ldagpu,$k,$seed,$its" >> "$trace"
        python3 "$work/helpers.py" ranked "$prefix-alpha.txt" "$model/alpha.npy" "$k,$seed,$its" >> "$ranked"
    fi
}

# One run of the plain sampler: K MODE UPDATE (none: symmetric priors), the first seed
run_dense() {
    k=$1 mode=$2 update=$3
    prefix="$work/dense-K$k-s$first_seed-n$iterations-$mode-$update"
    alpha=$(python3 -c "print(repr($alpha_sum / $k))")
    echo "mallet-priors: plain sampler, K = $k, $mode, priors $update" >&2
    if [ ! -s "$prefix-end.csv" ]; then
        java -Xmx4g -cp "$work/hook:$cp" DenseGibbs "$work/corpus.ldab" "$k" "$alpha" "$beta" "$iterations" \
            "$first_seed" "$mode" "$update" "$interval" "$burn_in" "$prefix" > "$prefix.log" 2>&1 ||
            { tail "$prefix.log" >&2; exit 1; }
    fi
    end=$(cat "$prefix-end.csv")
    learned=$([ "$update" = none ] && echo 0 || echo 1)
    echo "$mode,$update,$k,$first_seed,$iterations,$end,$(state_of "$prefix-z.npy" "$k" "$prefix-alpha.txt" \
        "${end#*,}" "$learned")" >> "$samplers"
    if [ "$learned" = 1 ]; then
        awk -F, -v OFS=, -v p="dense-$mode-$update,$k,$first_seed,$iterations" '/^[0-9]+,/ { print p, $1, $2, "", "", "", $3, "" }' \
            "$prefix.log" >> "$trace"
    fi
}

for seed in $seeds; do
    for k in ${TOPICS:-50 256 1024}; do
        run_both "$k" "$seed" "$iterations" "$interval"
        run_both "$k" "$seed" "$iterations" 0
    done
done
if [ "$long" -gt 0 ]; then
    # shellcheck disable=SC2086
    set -- ${TOPICS:-50 256 1024}
    run_both "$1" "$first_seed" "$long" "$interval"
fi
for k in ${SAMPLER_TOPICS-50 256}; do
    for mode in exact stale stale-excl self; do
        run_dense "$k" "$mode" none
    done
    for mode in exact stale; do
        for update in converged step; do
            run_dense "$k" "$mode" "$update"
        done
    done
done
cat > "$out/mallet-vs-ldagpu-$name-versions.txt" << EOF
mallet $mallet_commit (github.com/mimno/Mallet), $(java -version 2>&1 | head -n 1)
$("$bin" --version 2>&1 | head -n 1), $(git rev-parse --short HEAD 2> /dev/null || true)
corpus $corpus, $tokens tokens, $(sed -n 's/.*: \([0-9]* documents\).*/\1/p' "$work/format.log")
machine $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cores
EOF
column -ts, "$summary"
echo "mallet-priors: wrote $summary, $trace, $ranked, $state, $samplers (work files in $work)" >&2
