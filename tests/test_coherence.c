/* test_coherence.c — UMass and NPMI coherence against a hand computation, in the library
 * and through `ldagpu topics --coherence` on a hand-made model; the output formats. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "model/coherence.h"
#include "model/model.h"

/* Five documents over the words w0..w4 (a repeated word counts once per document):
 *   d0: w0 w0 w1 w2    d1: w0 w1    d2: w0 w3    d3: w2 w3 w4    d4: w1
 * Document frequencies D(w0) = 3, D(w1) = 3, D(w2) = 2, D(w3) = 2, D(w4) = 1;
 * co-document frequencies D(w0,w1) = 2, D(w0,w2) = 1, D(w1,w2) = 1, D(w3,w4) = 1,
 * D(w3,w1) = 0, D(w4,w1) = 0. */
static corpus *hand_corpus(void)
{
    static const uint32_t d0[] = {0, 0, 1, 2}, d1[] = {0, 1}, d2[] = {0, 3}, d3[] = {2, 3, 4}, d4[] = {1};
    const uint32_t *docs[] = {d0, d1, d2, d3, d4}, lengths[] = {4, 2, 2, 3, 1};
    return test_corpus_from_docs(5, docs, lengths, 5);
}

/* Topic A, top words w0 > w1 > w2 (UMass, as NPMI, the mean over the 3 pairs, as gensim and
 * tomotopy report it: a sum would grow with the number of words listed):
 *   UMass = (log((D(w1,w0)+1)/D(w0)) + log((D(w2,w0)+1)/D(w0)) + log((D(w2,w1)+1)/D(w1))) / 3
 *         = (log(3/3) + log(2/3) + log(2/3)) / 3
 *   NPMI pairs (p = D/5): (w0,w1) log(.4/(.6·.6))/-log(.4); (w0,w2) log(.2/(.6·.4))/-log(.2);
 *   (w1,w2) the same as (w0,w2); their mean.
 * Topic B, top words w3 > w4 > w1:
 *   UMass = (log((1+1)/2) + log((0+1)/2) + log((0+1)/1)) / 3 = log(1/2) / 3
 *   NPMI: (w3,w4) log(.2/(.4·.2))/-log(.2); two pairs that never co-occur: -1 each. */
static const double umass_a = (0.0 + 2 * -0.40546510810816438) / 3; /* log(2/3) = -0.405465 */
static const double umass_b = -0.69314718055994531 / 3;              /* log(1/2) */
static double npmi_a(void)
{
    return (log(0.4 / 0.36) / -log(0.4) + 2 * (log(0.2 / 0.24) / -log(0.2))) / 3;
}
static double npmi_b(void)
{
    return (log(0.2 / 0.08) / -log(0.2) - 2.0) / 3;
}

Test(coherence, equals_the_hand_computation)
{
    corpus *c = hand_corpus();
    const uint32_t top[] = {0, 1, 2, 3, 4, 1};
    lda_coherence out[2];
    lda_error err = {0};
    cr_assert_eq(lda_coherence_compute(c, top, 2, 3, out, &err), 0, "%s", err.msg);
    cr_assert_float_eq(out[0].umass, umass_a, 1e-12, "UMass A %.15f", out[0].umass);
    cr_assert_float_eq(out[1].umass, umass_b, 1e-12, "UMass B %.15f", out[1].umass);
    cr_assert_float_eq(out[0].npmi, npmi_a(), 1e-12, "NPMI A %.15f vs %.15f", out[0].npmi, npmi_a());
    cr_assert_float_eq(out[1].npmi, npmi_b(), 1e-12, "NPMI B %.15f vs %.15f", out[1].npmi, npmi_b());
    /* The order of the top words matters for UMass: the denominator is the higher-ranked word. */
    const uint32_t reversed[] = {2, 1, 0};
    cr_assert_eq(lda_coherence_compute(c, reversed, 1, 3, out, &err), 0);
    /* log((D(w1,w2)+1)/D(w2)) + log((D(w0,w2)+1)/D(w2)) + log((D(w0,w1)+1)/D(w1)) = 0 + 0 + 0 */
    cr_assert_float_eq(out[0].umass, 0.0, 1e-12, "%.15f", out[0].umass);
    corpus_free(c);
}

/* A model folder written by hand: φ puts w0 > w1 > w2 first in topic 0 and w3 > w4 > w1 in
 * topic 1; its corpus is the hand corpus as LDA-C. */
static char *hand_model(const char *dir, const char *corpus_path, const char *const *words)
{
    float phi[2 * 5] = {0.5f, 0.3f, 0.15f, 0.03f, 0.02f, /* topic 0 */
                        0.02f, 0.18f, 0.01f, 0.5f, 0.29f /* topic 1 */};
    uint32_t sizes[2] = {7, 5};
    lda_model m;
    memset(&m, 0, sizeof m);
    m.num_topics = 2;
    m.vocab_size = 5;
    m.num_docs = 5;
    m.num_tokens = 12; /* the hand corpus's, as the topic sizes */
    lda_settings_default(&m.settings);
    m.settings.params.num_topics = 2;
    m.settings.params.alpha = 0.5;
    m.corpus_path = (char *)corpus_path;
    m.settings.corpus.format = CORPUS_FORMAT_LDAC;
    m.vocab = (char **)words;
    m.phi = phi;
    m.theta = (lda_theta){.form = {LDA_DOC_TOPICS_DENSE, 0, 0.0}, .num_docs = 5, .num_topics = 2,
                          .dense = (float[10]){0}};
    m.topic_tokens = sizes;
    m.z = (uint32_t[12]){0};
    m.settings.corpus.min_word_len = 1;
    m.settings.corpus.min_df = 1;
    m.settings.corpus.max_df = 1.0;
    char *path = NULL;
    cr_assert(asprintf(&path, "%s/model", dir) > 0);
    lda_error err = {0};
    cr_assert_eq(lda_model_write(&m, path, 3, &err), 0, "%s", err.msg);
    return path;
}

Test(coherence, topics_command_prints_it_as_text_tsv_and_json)
{
    char *dir = test_tmpdir();
    static const char *const words[] = {"apple", "say \"hi\"", "back\\slash", "delta", "echo"};
    char *corpus_file = test_write_file(dir, "hand.ldac", "3 0:2 1:1 2:1\n2 0:1 1:1\n2 0:1 3:1\n3 2:1 3:1 4:1\n1 1:1\n");
    char *vocab = test_write_file(dir, "hand.vocab", "apple\nsay \"hi\"\nback\\slash\ndelta\necho\n");
    char *model = hand_model(dir, corpus_file, words);
    char args[2048], *out = NULL;

    snprintf(args, sizeof args, "topics '%s' --top 3 --coherence --format tsv", model);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    double ua, na, ub, nb;
    unsigned k0, k1;
    char *line2 = strchr(out, '\n') + 1;
    cr_assert(strncmp(out, "topic\tshare\ttokens\tumass\tnpmi\twords\n", 36) == 0, "%s", out);
    cr_assert_eq(sscanf(line2, "%u\t%*f\t%*u\t%lf\t%lf", &k0, &ua, &na), 3, "%s", out);
    cr_assert_eq(sscanf(strchr(line2, '\n') + 1, "%u\t%*f\t%*u\t%lf\t%lf", &k1, &ub, &nb), 3, "%s", out);
    cr_assert_eq(k0, 0);
    cr_assert_eq(k1, 1);
    cr_assert_float_eq(ua, umass_a, 1e-6);
    cr_assert_float_eq(ub, umass_b, 1e-6);
    cr_assert_float_eq(na, npmi_a(), 1e-6);
    cr_assert_float_eq(nb, npmi_b(), 1e-6);
    cr_assert(strstr(out, "\tapple say \"hi\" back\\slash\n"), "%s", out);
    free(out);

    /* Sorted by coherence: topic 1 (log 1/2 / 3) above topic 0 (2 log 2/3 / 3); by size: 0 (7) first. */
    snprintf(args, sizeof args, "topics '%s' --top 3 --sort coherence", model);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    cr_assert(strncmp(out, "topic    1", 10) == 0, "%s", out);
    cr_assert(strstr(out, "umass    -0.23"), "%s", out);
    cr_assert(strstr(out, "mean over"), "the output says what UMass is: %s", out);
    free(out);
    snprintf(args, sizeof args, "topics '%s' --top 3 --sort size", model);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    cr_assert(strncmp(out, "topic    0  58.33%  apple", 25) == 0, "%s", out);
    free(out);

    /* JSON: words escaped, one object per topic. */
    snprintf(args, sizeof args, "topics '%s' --top 3 --coherence --format json", model);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    cr_assert(strncmp(out, "{\"num_topics\": 2, \"top\": 3, \"topics\": [", 39) == 0, "%s", out);
    cr_assert(strstr(out, "\"words\": [\"apple\", \"say \\\"hi\\\"\", \"back\\\\slash\"]"), "%s", out);
    cr_assert(strstr(out, "\"umass\": -0.231049"), "%s", out);
    cr_assert(strstr(out, "\n]}\n"), "%s", out);
    free(out);

    /* --corpus: another corpus (here the same documents, twice over: D doubles, UMass of B
     * becomes (log(3/4) + log(1/4) + log(1/2)) / 3). */
    char *twice = test_write_file(dir, "twice.ldac",
                                  "3 0:2 1:1 2:1\n2 0:1 1:1\n2 0:1 3:1\n3 2:1 3:1 4:1\n1 1:1\n"
                                  "3 0:2 1:1 2:1\n2 0:1 1:1\n2 0:1 3:1\n3 2:1 3:1 4:1\n1 1:1\n");
    char *twice_vocab = test_write_file(dir, "twice.vocab", "apple\nsay \"hi\"\nback\\slash\ndelta\necho\n");
    snprintf(args, sizeof args, "topics '%s' --top 3 --format tsv --corpus '%s'", model, twice);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    line2 = strchr(out, '\n') + 1;
    cr_assert_eq(sscanf(strchr(line2, '\n') + 1, "%u\t%*f\t%*u\t%lf", &k1, &ub), 2, "%s", out);
    cr_assert_float_eq(ub, (log(3.0 / 4) + log(1.0 / 4) + log(1.0 / 2)) / 3, 1e-6, "%s", out);
    free(out);

    snprintf(args, sizeof args, "topics '%s' --sort sideways", model);
    cr_assert_eq(test_run_ldagpu(args, &out), 2);
    cr_assert(strstr(out, "expected one of id|size|coherence"), "%s", out);
    free(out);
    snprintf(args, sizeof args, "topics '%s' --format xml", model);
    cr_assert_eq(test_run_ldagpu(args, &out), 2);
    cr_assert(strstr(out, "expected one of text|tsv|json"), "%s", out);
    free(out);
    test_rmdir(dir);
    free(dir);
    free(corpus_file);
    free(vocab);
    free(model);
    free(twice);
    free(twice_vocab);
}
