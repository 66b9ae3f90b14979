/* test_report.c — `ldagpu report`: the page has every topic (card, map circle, top words),
 * coherence, the documents most about each topic with their text, both training curves,
 * nothing from outside the file, and balanced markup (Python's html.parser, where there is a
 * Python); without the corpus it still has the map, words and curves and says what is
 * missing. The browser itself is scripts/report-browser-check.sh's. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

static size_t count(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

static char *report_of(const char *model, const char *dir, const char *extra)
{
    char args[4096], path[2048], *out = NULL;
    snprintf(path, sizeof path, "%s/report.html", dir);
    snprintf(args, sizeof args, "report '%s' -o '%s' --top 6 --docs 2 %s", model, path, extra);
    int rc = test_run_ldagpu(args, &out);
    cr_assert_eq(rc, 0, "ldagpu %s: %s", args, out);
    free(out);
    char *page = test_read_file(path);
    cr_assert(page);
    return page;
}

static void expect_balanced_html(const char *dir)
{
    const char *python = test_python_with("html.parser");
    if (!python)
        return;
    static const char script[] =
        "import sys\n"
        "from html.parser import HTMLParser\n"
        "VOID = {'meta', 'br', 'input', 'img', 'link', 'hr', 'line', 'circle', 'path', 'rect'}\n"
        "class P(HTMLParser):\n"
        "    def __init__(self):\n"
        "        super().__init__(); self.stack = []; self.ids = set()\n"
        "    def handle_starttag(self, tag, attrs):\n"
        "        d = dict(attrs)\n"
        "        assert not d.get('src') and not (d.get('href') or '#').lstrip('#').startswith(('http', '/')), attrs\n"
        "        if 'id' in d:\n"
        "            assert d['id'] not in self.ids, 'duplicate id ' + d['id']; self.ids.add(d['id'])\n"
        "        if tag not in VOID: self.stack.append(tag)\n"
        "    def handle_startendtag(self, tag, attrs): pass\n"
        "    def handle_endtag(self, tag):\n"
        "        if tag in VOID: return\n"
        "        assert self.stack and self.stack[-1] == tag, (tag, self.stack[-3:])\n"
        "        self.stack.pop()\n"
        "p = P(); p.feed(open(sys.argv[1], encoding='utf-8').read()); p.close()\n"
        "assert not p.stack, p.stack\n"
        "print('balanced')\n";
    char args[2048], *out = NULL;
    snprintf(args, sizeof args, "'%s/report.html'", dir);
    cr_assert_eq(test_run_python(python, script, args, &out), 0, "%s", out);
    free(out);
}

Test(report, the_page_has_every_topic_its_words_documents_and_curves)
{
    char *dir = test_tmpdir(), args[4096], *out = NULL, model[1024];
    snprintf(model, sizeof model, "%s/m", dir);
    snprintf(args, sizeof args, "train '%s/tests/data/v1-corpus.txt' -K 4 -n 12 -e 3 -s 5 --holdout 0.1 -q "
             "--device cpu -o '%s'", test_root(), model);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    free(out);
    char *page = report_of(model, dir, "");
    cr_assert_eq(count(page, "<article class=\"topic\" id=\"topic-"), 4);
    cr_assert_eq(count(page, "<circle class=\"t\" data-topic="), 4);
    snprintf(args, sizeof args, "topics '%s' --top 6 --format tsv", model);
    cr_assert_eq(test_run_ldagpu(args, &out), 0);
    for (char *line = strchr(out, '\n') + 1, *next; *line; line = next) { /* every top word */
        char *eol = strchr(line, '\n'), *words = (char *)memrchr(line, '\t', (size_t)(eol - line)) + 1, *w;
        *eol = 0;
        next = eol + 1;
        for (char *save = NULL; (w = strtok_r(words, " ", &save)); words = NULL) {
            char cell[128];
            snprintf(cell, sizeof cell, "<td class=\"w\">%s</td>", w);
            cr_assert(strstr(page, cell), "%s missing", cell);
        }
    }
    free(out);
    for (int k = 0; k < 4; k++) {
        snprintf(args, sizeof args, "id=\"topic-%d\" data-topic=\"%d\" data-share=", k, k);
        cr_assert(strstr(page, args), "%s", args);
        snprintf(args, sizeof args, "data-topic=\"%d\" data-x=", k);
        cr_assert(strstr(page, args), "circle of topic %d", k);
    }
    cr_assert(strstr(page, "UMass ") && strstr(page, "data-npmi="), "coherence from the training corpus");
    cr_assert(strstr(page, "Documents most about this topic"));
    cr_assert(strstr(page, "<div class=\"snip\">"), "the documents' text");
    cr_assert_eq(count(page, "aria-label=\"log-likelihood against"), 2, "two charts");
    cr_assert(strstr(page, "<path stroke=\"#2a9d8f\""), "the held-out curve");
    cr_assert(strstr(page, "held-out</text>"));
    cr_assert(!strstr(page, "http://") && !strstr(page, "https://") && !strstr(page, " src="),
              "self-contained: nothing fetched");
    cr_assert(strstr(page, "<script>") && strstr(page, "</html>\n"));
    expect_balanced_html(dir);
    free(page);

    /* Without the corpus: the map, the words and the curves, and a note why the rest is missing. */
    out = NULL;
    snprintf(args, sizeof args, "report '%s' -o '%s/nocorpus.html' --corpus '%s/moved.txt'", model, dir, dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    cr_assert(strstr(out, "warning") && strstr(out, "moved.txt"), "%s", out);
    free(out);
    snprintf(args, sizeof args, "%s/nocorpus.html", dir);
    page = test_read_file(args);
    cr_assert_eq(count(page, "<circle class=\"t\" data-topic="), 4);
    cr_assert(!strstr(page, "data-umass=") && strstr(page, "moved.txt"), "says why coherence is missing");
    free(page);
    test_expect_failure("report /nonexistent-model", 2, "/nonexistent-model/model.conf");
    test_rmdir(dir);
    free(dir);
}

/* The map's coordinates (the circles' data-x, data-y) are pyLDAvis's js_PCoA of φ: its
 * _jensen_shannon and _pcoa (numpy's eig of the double-centred squared divergences), redone
 * with numpy, up to each axis's sign. */
Test(report, map_coordinates_are_pyldavis_js_pcoa)
{
    const char *python = test_python_with("numpy");
    if (!python)
        cr_skip_test("no Python with numpy (scripts/install-deps.sh --test installs it)");
    char *dir = test_tmpdir(), args[4096], *out = NULL, model[1024];
    snprintf(model, sizeof model, "%s/m", dir);
    snprintf(args, sizeof args, "train '%s/tests/data/v1-corpus.txt' -K 6 -n 15 -s 2 -q --device cpu -o '%s'",
             test_root(), model);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    free(out);
    free(report_of(model, dir, ""));
    static const char script[] =
        "import re, sys, numpy as np\n"
        "m, page = sys.argv[1], open(sys.argv[2], encoding='utf-8').read()\n"
        "xy = {int(t): (float(x), float(y)) for t, x, y in\n"
        "      re.findall(r'data-topic=\"(\\d+)\" data-x=\"([^\"]+)\" data-y=\"([^\"]+)\"', page)}\n"
        "phi = np.load(m + '/phi.npy').astype(np.float64)\n"
        "K = phi.shape[0]\n"
        "def kl(p, q):\n"
        "    nz = p > 0\n"
        "    return np.sum(p[nz] * np.log(p[nz] / q[nz]))\n"
        "def js(p, q):\n"
        "    p, q = p / p.sum(), q / q.sum()\n"
        "    mm = 0.5 * (p + q)\n"
        "    return 0.5 * (kl(p, mm) + kl(q, mm))\n"
        "d = np.array([[js(phi[i], phi[j]) for j in range(K)] for i in range(K)])\n"
        "H = np.eye(K) - np.ones((K, K)) / K\n"
        "B = -H.dot(d ** 2).dot(H) / 2\n"
        "vals, vecs = np.linalg.eig(B)\n"
        "ix = vals.real.argsort()[::-1][:2]\n"
        "ref = np.sqrt(np.maximum(vals.real[ix], 0)) * vecs.real[:, ix]\n"
        "ours = np.array([xy[k] for k in range(K)])\n"
        "for a in range(2):\n"
        "    s = 1.0 if np.dot(ref[:, a], ours[:, a]) >= 0 else -1.0\n"
        "    assert np.allclose(ours[:, a], s * ref[:, a], atol=1e-5), (a, ours[:, a], ref[:, a])\n"
        "print('pcoa ok', K)\n";
    snprintf(args, sizeof args, "'%s' '%s/report.html'", model, dir);
    int rc = test_run_python(python, script, args, &out);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "pcoa ok 6"), "%s", out);
    free(out);
    test_rmdir(dir);
    free(dir);
}

Test(report, an_old_bin_folder_and_a_uci_corpus)
{
    char *dir = test_tmpdir();
    char model[1024];
    snprintf(model, sizeof model, "%s/tests/data/model-v1", test_root());
    /* The fixture's model.conf names a corpus path of the machine that made it. */
    char extra[1024];
    snprintf(extra, sizeof extra, "--corpus '%s/tests/data/v1-corpus.txt'", test_root());
    char *page = report_of(model, dir, extra);
    cr_assert_eq(count(page, "<article class=\"topic\""), 3);
    cr_assert(strstr(page, "data-umass="));
    free(page);

    /* UCI: no text, so a document is shown by its most frequent words. */
    char *docword = test_write_file(dir, "docword.r.txt", "3\n4\n6\n1 1 3\n1 2 1\n2 3 4\n2 4 2\n3 1 2\n3 4 2\n");
    free(test_write_file(dir, "vocab.r.txt", "apple\nbanana\ncherry\ndate\n"));
    char args[4096], *out = NULL;
    snprintf(args, sizeof args, "train '%s' -K 2 -n 5 -q --device cpu -o '%s/u'", docword, dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    free(out);
    snprintf(model, sizeof model, "%s/u", dir);
    page = report_of(model, dir, "");
    cr_assert(strstr(page, "apple ×3") || strstr(page, "cherry ×4"), "a document's words with their counts");
    free(page);
    free(docword);
    test_rmdir(dir);
    free(dir);
}

/* The map of K = 20,000 topics took all pairs (200 million divergences, then an eigen-decomposition
 * of 20,000 × 20,000) and did not finish in 10 minutes: it places the largest topics only, says so,
 * and still lists every topic. */
Test(report, a_model_of_twenty_thousand_topics_in_seconds)
{
    char *dir = test_tmpdir(), *tiny = test_tiny_corpus(dir), args[4096], *out = NULL;
    snprintf(args, sizeof args, "train '%s' -K 20000 -n 1 -q --device cpu -o '%s/m'", tiny, dir);
    cr_assert_eq(test_run_ldagpu(args, &out), 0, "%s", out);
    free(out);
    snprintf(args, sizeof args, "report '%s/m' -o '%s/r.html'", dir, dir);
    int rc = test_run_ldagpu_within(args, 10, &out);
    cr_assert_eq(rc, 0, "exit %d (137: not done in 10 s): %s", rc, out);
    free(out);
    snprintf(args, sizeof args, "%s/r.html", dir);
    char *page = test_read_file(args);
    cr_assert(page);
    cr_assert(strstr(page, "The map places the 300 largest of the 20000 topics"), "the page says what the map shows");
    cr_assert_eq(count(page, "<circle class=\"t\""), 300);
    cr_assert_eq(count(page, "<article class=\"topic\""), 20000);
    free(page);
    free(tiny);
    test_rmdir(dir);
    free(dir);
}
