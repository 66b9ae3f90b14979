// tomotopy_lda.cpp — tomotopy's LDA (its C++ core, src/TopicModel/LDAModel.cpp, as the Python
// module's LDAModel.train runs it) on the peers' training split, for scripts/cpu-peers.sh.
//
// usage: tomotopy_lda TRAIN.txt K ALPHA BETA SEED THREADS "25 50 100" OUTPREFIX
//   TRAIN.txt   one document a line, its words separated by spaces (shared vocabulary ids)
//   ALPHA       α of a topic (symmetric; not learned: optim_interval 0), BETA η
// After each iteration count of the list it writes OUTPREFIX-N.counts ("word topic count" lines,
// the word as it was given) and prints "N SECONDS" (seconds in train() so far, the start included).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "TopicModel/LDA.h"

int main(int argc, char **argv)
{
    if (argc != 9) {
        std::cerr << "usage: tomotopy_lda TRAIN.txt K ALPHA BETA SEED THREADS \"N ...\" OUTPREFIX\n";
        return 2;
    }
    tomoto::LDAArgs args;
    args.k = std::stoul(argv[2]);
    args.alpha = {(tomoto::Float)std::stod(argv[3])};
    args.eta = (tomoto::Float)std::stod(argv[4]);
    args.seed = std::stoul(argv[5]);
    size_t threads = std::stoul(argv[6]);
    std::vector<size_t> marks;
    {
        std::istringstream in(argv[7]);
        for (size_t n; in >> n;)
            marks.push_back(n);
    }
    auto model = tomoto::ILDAModel::create(tomoto::TermWeight::one, args);
    model->setOptimInterval(0);
    std::ifstream in(argv[1]);
    if (!in) {
        std::cerr << "tomotopy_lda: cannot read " << argv[1] << "\n";
        return 2;
    }
    std::string line;
    while (std::getline(in, line)) {
        tomoto::RawDoc doc;
        std::istringstream words(line);
        for (std::string w; words >> w;)
            doc.rawWords.push_back(w);
        if (!doc.rawWords.empty())
            model->addDoc(doc);
    }
    using clock = std::chrono::steady_clock;
    auto t0 = clock::now();
    model->prepare(true, 0, 0, 0);
    double seconds = std::chrono::duration<double>(clock::now() - t0).count();
    size_t done = 0;
    for (size_t n : marks) {
        t0 = clock::now();
        if (n > done && model->train(n - done, threads, tomoto::ParallelScheme::default_) < 0) {
            std::cerr << "tomotopy_lda: train failed\n";
            return 1;
        }
        seconds += std::chrono::duration<double>(clock::now() - t0).count();
        done = n;
        std::string path = std::string(argv[8]) + "-" + std::to_string(n) + ".counts";
        FILE *out = std::fopen(path.c_str(), "w");
        if (!out) {
            std::cerr << "tomotopy_lda: cannot write " << path << "\n";
            return 1;
        }
        const auto &dict = model->getVocabDict();
        for (size_t k = 0; k < model->getK(); k++) {
            std::vector<tomoto::Float> row = model->getWidsByTopic(k, false); // n[k,w] + η
            for (size_t v = 0; v < row.size(); v++) {
                long count = std::lround(row[v] - args.eta);
                if (count > 0)
                    std::fprintf(out, "%s %zu %ld\n", dict.toWord((tomoto::Vid)v).c_str(), k, count);
            }
        }
        if (std::fclose(out) != 0) {
            std::cerr << "tomotopy_lda: cannot write " << path << "\n";
            return 1;
        }
        std::printf("%zu %.3f\n", n, seconds);
        std::fflush(stdout);
    }
    return 0;
}
