/* MalletPeer.java — Mallet's ParallelTopicModel (SparseLDA, collapsed Gibbs) on the peers' training
 * split, for scripts/cpu-peers.sh: the model train-topics builds, fed the documents directly (the
 * shared vocabulary is the alphabet, in its order; every token kept), symmetric priors never
 * optimised, no log-likelihood printed between iterations (train-topics prints one every 10).
 *
 * usage: java MalletPeer TRAIN.txt VOCAB.txt K ALPHA_SUM BETA SEED THREADS "25 50 100" OUTPREFIX
 * After each iteration count of the list it writes OUTPREFIX-N.counts ("word topic count" lines)
 * and prints "N SECONDS" (seconds in estimate() so far). Each further call of estimate() goes on
 * from the state the last one left, with its own seed (estimate() seeds its random stream anew). */
import cc.mallet.topics.ParallelTopicModel;
import cc.mallet.topics.TopicAssignment;
import cc.mallet.types.Alphabet;
import cc.mallet.types.FeatureSequence;
import cc.mallet.types.Instance;
import cc.mallet.types.InstanceList;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

public class MalletPeer {
    public static void main(String[] args) throws IOException {
        if (args.length != 9) {
            System.err.println("usage: java MalletPeer TRAIN.txt VOCAB.txt K ALPHA_SUM BETA SEED THREADS \"N ...\" OUTPREFIX");
            System.exit(2);
        }
        int K = Integer.parseInt(args[2]);
        double alphaSum = Double.parseDouble(args[3]), beta = Double.parseDouble(args[4]);
        int seed = Integer.parseInt(args[5]), threads = Integer.parseInt(args[6]);
        List<Integer> marks = new ArrayList<>();
        for (String s : args[7].trim().split("\\s+"))
            marks.add(Integer.parseInt(s));

        Alphabet alphabet = new Alphabet();
        for (String word : Files.readAllLines(Paths.get(args[1]), StandardCharsets.UTF_8))
            if (!word.isEmpty())
                alphabet.lookupIndex(word, true);
        alphabet.stopGrowth();
        InstanceList instances = new InstanceList(alphabet, null);
        try (BufferedReader in = Files.newBufferedReader(Paths.get(args[0]), StandardCharsets.UTF_8)) {
            int d = 0;
            for (String line; (line = in.readLine()) != null; d++) {
                String[] words = line.trim().split(" ");
                if (line.trim().isEmpty())
                    continue;
                int[] ids = new int[words.length];
                for (int i = 0; i < words.length; i++) {
                    ids[i] = alphabet.lookupIndex(words[i], false);
                    if (ids[i] < 0)
                        throw new IOException(args[0] + ":" + (d + 1) + ": '" + words[i] + "' is not in " + args[1]);
                }
                instances.add(new Instance(new FeatureSequence(alphabet, ids), null, "d" + d, null));
            }
        }
        Logger.getLogger(ParallelTopicModel.class.getName()).setLevel(Level.WARNING);
        ParallelTopicModel model = new ParallelTopicModel(K, alphaSum, beta);
        model.printLogLikelihood = false;
        model.setTopicDisplay(0, 0);
        model.setNumThreads(threads);
        model.setRandomSeed(seed);
        model.addInstances(instances);

        double seconds = 0;
        int done = 0, segment = 0;
        for (int n : marks) {
            if (n > done) {
                model.setNumIterations(n - done);
                model.setRandomSeed(seed + 1000003 * segment++);
                long t0 = System.nanoTime();
                model.estimate();
                seconds += (System.nanoTime() - t0) / 1e9;
            }
            done = n;
            int[][] counts = new int[alphabet.size()][K];
            for (TopicAssignment t : model.getData()) {
                int[] words = ((FeatureSequence) t.instance.getData()).getFeatures();
                int[] topics = t.topicSequence.getFeatures();
                for (int i = 0; i < topics.length; i++)
                    counts[words[i]][topics[i]]++;
            }
            try (BufferedWriter out = Files.newBufferedWriter(Paths.get(args[8] + "-" + n + ".counts"),
                                                              StandardCharsets.UTF_8)) {
                for (int w = 0; w < counts.length; w++)
                    for (int k = 0; k < K; k++)
                        if (counts[w][k] > 0)
                            out.write(alphabet.lookupObject(w) + " " + k + " " + counts[w][k] + "\n");
            }
            System.out.printf("%d %.3f%n", n, seconds);
            System.out.flush();
        }
    }
}
