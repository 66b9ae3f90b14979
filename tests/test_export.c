/* test_export.c — `ldagpu export`: Mallet's topic keys and document topics, checked field by
 * field against the model's own files, and the pyLDAvis JSON read back by Python (json, and
 * numpy where present) with the checks pyLDAvis.prepare makes of its arguments. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "model/matrix_file.h"

/* A model of tests/data/v1-corpus.txt (K = 3, 10% held out) in DIR/m. */
static char *train_small(const char *dir)
{
    char args[2048], *out = NULL, *m = NULL;
    cr_assert(asprintf(&m, "%s/m", dir) > 0);
    snprintf(args, sizeof args, "train '%s/tests/data/v1-corpus.txt' -K 3 -n 8 -s 3 --holdout 0.1 -q --device cpu "
             "-o '%s'", test_root(), m);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    free(out);
    return m;
}

static void run_ok(const char *args)
{
    char *out = NULL;
    int rc = test_run_ldagpu(args, &out);
    cr_assert_eq(rc, 0, "ldagpu %s: exit %d: %s", args, rc, out);
    free(out);
}

Test(export, mallet_topic_keys_and_doc_topics)
{
    char *dir = test_tmpdir(), *m = train_small(dir), args[4096], path[1024];
    snprintf(args, sizeof args, "export '%s' --output-topic-keys '%s/keys.txt' --num-top-words 4 "
             "--output-doc-topics '%s/dt.txt'", m, dir, dir);
    run_ok(args);
    /* Topic keys: "k<tab>α<tab>w1 w2 w3 w4 " with α = 50/3 at 5 decimals, the words of `topics`. */
    snprintf(path, sizeof path, "%s/keys.txt", dir);
    char *keys = test_read_file(path), *tsv = NULL;
    snprintf(args, sizeof args, "topics '%s' --top 4 --format tsv", m);
    cr_assert_eq(test_run_ldagpu(args, &tsv), 0);
    char *line = keys, *row = strchr(tsv, '\n') + 1;
    for (int k = 0; k < 3; k++) {
        char expect[512], words[400];
        const char *eol = strchr(row, '\n'), *w = (const char *)memrchr(row, '\t', (size_t)(eol - row)) + 1;
        snprintf(words, sizeof words, "%.*s", (int)(eol - w), w);
        snprintf(expect, sizeof expect, "%d\t16.66667\t%s \n", k, words);
        cr_assert_eq(strncmp(line, expect, strlen(expect)), 0, "line %d: %s expected %s", k, line, expect);
        line += strlen(expect);
        row = (char *)eol + 1;
    }
    cr_assert_eq(*line, 0, "one line a topic");
    free(keys);
    free(tsv);

    /* Document topics, dense: "d<tab>d<tab>θ[d,0]<tab>θ[d,1]<tab>θ[d,2]" for every input document. */
    float *theta = NULL;
    uint64_t rows, cols;
    lda_error err = {0};
    snprintf(path, sizeof path, "%s/theta.npy", m);
    cr_assert_eq(lda_matrix_read(path, LDA_MATRIX_F32, &rows, &cols, (void **)&theta, &err), 0, "%s", err.msg);
    snprintf(path, sizeof path, "%s/dt.txt", dir);
    FILE *f = fopen(path, "r");
    cr_assert(f);
    for (uint64_t d = 0; d < rows; d++) {
        unsigned long long doc, name;
        double p[3];
        cr_assert_eq(fscanf(f, "%llu\t%llu\t%lf\t%lf\t%lf\n", &doc, &name, &p[0], &p[1], &p[2]), 5, "row %llu",
                     (unsigned long long)d);
        cr_assert(doc == d && name == d);
        for (int k = 0; k < 3; k++)
            cr_assert_float_eq(p[k], theta[d * 3 + k], 1e-7);
    }
    cr_assert_eq(fgetc(f), EOF, "one line an input document");
    fclose(f);

    /* Sparse: a header, then pairs largest first, at most 2, none below 0.3. */
    snprintf(args, sizeof args, "export '%s' --output-doc-topics '%s/dts.txt' --doc-topics-max 2 "
             "--doc-topics-threshold 0.3", m, dir);
    run_ok(args);
    snprintf(path, sizeof path, "%s/dts.txt", dir);
    f = fopen(path, "r");
    char text[512];
    cr_assert(fgets(text, sizeof text, f) && strcmp(text, "#doc name topic proportion ...\n") == 0, "%s", text);
    for (uint64_t d = 0; d < rows; d++) {
        cr_assert(fgets(text, sizeof text, f));
        char *s = text, *end;
        cr_assert_eq(strtoull(s, &end, 10), d);
        s = end + 1;
        cr_assert_eq(strtoull(s, &end, 10), d);
        s = end + 1;
        int pairs = 0;
        double last = 2;
        while (*s && *s != '\n') {
            unsigned long k = strtoul(s, &end, 10);
            double p = strtod(end + 1, &end);
            s = end + 1;
            cr_assert(k < 3 && p >= 0.3 && p <= last, "%s", text);
            cr_assert_float_eq(p, theta[d * 3 + k], 1e-7);
            last = p;
            pairs++;
        }
        cr_assert(pairs <= 2, "%s", text);
        int above = 0; /* every topic at or above the threshold is there, up to the maximum */
        for (int k = 0; k < 3; k++)
            above += theta[d * 3 + k] >= 0.3f;
        cr_assert_eq(pairs, above < 2 ? above : 2, "%s", text);
    }
    fclose(f);
    free(theta);
    test_expect_failure("export /nonexistent", 2, "nothing to export");
    free(m);
    test_rmdir(dir);
    free(dir);
}

Test(export, pyldavis_json_has_what_prepare_checks)
{
    const char *python = test_python_with("numpy"); /* else the checks that need no numpy */
    if (!python)
        python = test_python_with("json");
    if (!python)
        cr_skip_test("no Python");
    char *dir = test_tmpdir(), *m = train_small(dir), args[4096], *out = NULL;
    snprintf(args, sizeof args, "export '%s' --pyldavis '%s/lv.json'", m, dir);
    run_ok(args);
    /* The checks of pyLDAvis's _input_check, and the values against the model's files. */
    static const char script[] =
        "import json, sys\n"
        "m, path = sys.argv[1], sys.argv[2]\n"
        "d = json.load(open(path))\n"
        "assert sorted(d) == ['doc_lengths', 'doc_topic_dists', 'term_frequency', 'topic_term_dists', 'vocab']\n"
        "ttd, dtd, lens, vocab, tf = (d[k] for k in ('topic_term_dists', 'doc_topic_dists', 'doc_lengths', "
        "'vocab', 'term_frequency'))\n"
        "K, W = len(ttd), len(vocab)\n"
        "assert all(len(r) == K for r in dtd), 'doc_topic_dists columns are topics'\n"
        "assert len(lens) == len(dtd) and all(len(r) == W for r in ttd) and len(tf) == W\n"
        "assert all(sum(r) >= 0.999 for r in ttd) and all(sum(r) >= 0.999 for r in dtd), 'rows sum to 1'\n"
        "assert vocab == open(m + '/vocab.txt').read().split('\\n')[:-1]\n"
        "conf = dict(l.split(' = ', 1) for l in open(m + '/model.conf').read().splitlines() if ' = ' in l)\n"
        "held = len(open(m + '/heldout.txt').read().split())\n"
        "assert sum(lens) == sum(tf) == int(conf['tokens']), (sum(lens), sum(tf), conf['tokens'])\n"
        "assert len(dtd) == int(conf['documents']) - held - 1, 'trained, non-empty documents'\n"
        "try:\n"
        "    import numpy as np\n"
        "except ImportError:\n"
        "    print('json ok'); sys.exit(0)\n"
        "phi = np.load(m + '/phi.npy')\n"
        "assert np.allclose(np.array(ttd), phi, rtol=1e-6, atol=1e-9), 'topic_term_dists is phi'\n"
        "theta = np.load(m + '/theta.npy')\n"
        "rows = [i for i in range(theta.shape[0]) if not np.allclose(theta[i], 1 / K)]\n"
        "assert np.allclose(np.array(dtd), theta[rows], atol=1e-6), 'doc_topic_dists are the trained rows of theta'\n"
        "print('numpy ok')\n";
    snprintf(args, sizeof args, "'%s' '%s/lv.json'", m, dir);
    int rc = test_run_python(python, script, args, &out);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, " ok"), "%s", out);
    free(out);
    free(m);
    test_rmdir(dir);
    free(dir);
}

/* --counts: n[k,w] and n[d,k] of z; their sums are the topic sizes, the words' corpus counts
 * (as the pyLDAvis export has them) and the documents' lengths. */
Test(export, count_matrices_as_npy)
{
    const char *python = test_python_with("numpy");
    if (!python)
        cr_skip_test("no Python with numpy (scripts/install-deps.sh --test installs it)");
    char *dir = test_tmpdir(), *m = train_small(dir), args[4096], *out = NULL;
    snprintf(args, sizeof args, "export '%s' --counts '%s/counts' --pyldavis '%s/lv.json'", m, dir, dir);
    run_ok(args);
    static const char script[] =
        "import json, sys, numpy as np\n"
        "m, d = sys.argv[1], sys.argv[2]\n"
        "kw, dk = np.load(d + '/counts/topic_word_counts.npy'), np.load(d + '/counts/doc_topic_counts.npy')\n"
        "nk, theta = np.load(m + '/topic_tokens.npy'), np.load(m + '/theta.npy')\n"
        "lv = json.load(open(d + '/lv.json'))\n"
        "assert kw.dtype == np.uint32 and kw.shape == (3, len(lv['vocab'])), kw.shape\n"
        "assert dk.dtype == np.uint32 and dk.shape == theta.shape, dk.shape\n"
        "assert (kw.sum(axis=1) == nk).all() and (dk.sum(axis=0) == nk).all()\n"
        "assert (kw.sum(axis=0) == np.array(lv['term_frequency'])).all()\n"
        "lengths = dk.sum(axis=1)\n"
        "assert (lengths[lengths > 0] == np.array(lv['doc_lengths'])).all()\n"
        "held = [int(x) for x in open(m + '/heldout.txt').read().split()]\n"
        "assert (lengths[held] == 0).all(), 'held-out documents were not trained on'\n"
        "print('counts ok')\n";
    snprintf(args, sizeof args, "'%s' '%s'", m, dir);
    int rc = test_run_python(python, script, args, &out);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "counts ok"), "%s", out);
    free(out);
    free(m);
    test_rmdir(dir);
    free(dir);
}
