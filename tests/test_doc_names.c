/* test_doc_names.c — documents with names: text lines NAME<tab>LABEL<tab>TEXT (--format mallet)
 * and NAME<tab>TEXT (--format named). Only the text is tokenized; the names (and labels) go into
 * the model (doc_names.txt, doc_labels.txt) and come back in every output that lists documents:
 * export's document topics, the report, infer (from its own input), eval --doc-names; through the
 * binary corpus (format, --cache) and the held-out split. A corpus without names keeps row
 * numbers; a line that does not fit the named format is refused with its file and line. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus/corpus_read.h"
#include "helpers.h"
#include "util/string_list.h"

enum { DOCS = 40 };

static const char *const fruit[] = {"apple", "banana", "cherry", "grape", "lemon", "mango"};
static const char *const space[] = {"rocket", "planet", "comet", "orbit", "galaxy", "nebula"};

/* Document d's text: eight words of its topic (fruit for even d, space for odd d). */
static void doc_text(FILE *f, int d)
{
    const char *const *words = d % 2 ? space : fruit;
    for (int i = 0; i < 8; i++)
        fprintf(f, "%s%s", i ? " " : "", words[(d + i * 5) % 6]);
}

/* DOCS lines "docNN<tab>LABEL<tab>TEXT" (layout "mallet"), "docNN<tab>TEXT" ("named") or TEXT
 * ("text"); the label is quokka for fruit, wombat for space. Returns the path. */
static char *write_corpus(const char *dir, const char *name, const char *layout)
{
    char *path = NULL;
    cr_assert(asprintf(&path, "%s/%s", dir, name) > 0);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    for (int d = 0; d < DOCS; d++) {
        if (strcmp(layout, "text") != 0)
            fprintf(f, "doc%02d\t", d);
        if (strcmp(layout, "mallet") == 0)
            fprintf(f, "%s\t", d % 2 ? "wombat" : "quokka");
        doc_text(f, d);
        fputc('\n', f);
    }
    fclose(f);
    return path;
}

/* The end of a test: its corpus and model paths freed, its folder removed. */
static void finish(char *dir, char *path, char *model)
{
    free(path);
    free(model);
    test_rmdir(dir);
    free(dir);
}

static char *run_ok(const char *args)
{
    char *out = NULL;
    int rc = test_run_ldagpu(args, &out);
    cr_assert_eq(rc, 0, "ldagpu %s: exit %d: %s", args, rc, out);
    return out;
}

/* Trains DIR/NAME on corpus with the extra options; returns the model path. */
static char *train(const char *dir, const char *name, const char *corpus_path, const char *extra)
{
    char args[4096], *m = NULL;
    cr_assert(asprintf(&m, "%s/%s", dir, name) > 0);
    snprintf(args, sizeof args, "train '%s' -K 2 -n 20 -s 7 --min-df 1 --max-df 1 -q --device cpu -o '%s' %s",
             corpus_path, m, extra);
    free(run_ok(args));
    return m;
}

static char *read_in(const char *dir, const char *name)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return test_read_file(path);
}

/* The expected doc_names.txt / doc_labels.txt. */
static void expect_names_file(const char *model)
{
    char expect[DOCS * 8 + 1] = "", *names = read_in(model, "doc_names.txt");
    for (int d = 0; d < DOCS; d++)
        snprintf(expect + strlen(expect), sizeof expect - strlen(expect), "doc%02d\n", d);
    cr_assert(names, "%s/doc_names.txt is missing", model);
    cr_assert_str_eq(names, expect);
    free(names);
}

static void expect_labels_file(const char *model)
{
    char expect[DOCS * 8 + 1] = "", *labels = read_in(model, "doc_labels.txt");
    for (int d = 0; d < DOCS; d++)
        snprintf(expect + strlen(expect), sizeof expect - strlen(expect), "%s\n", d % 2 ? "wombat" : "quokka");
    cr_assert(labels, "%s/doc_labels.txt is missing", model);
    cr_assert_str_eq(labels, expect);
    free(labels);
}

/* Line `line` (0-based) of text, into buf. */
static const char *line_of(const char *text, int line, char *buf, size_t size)
{
    for (int i = 0; i < line && text; i++)
        text = strchr(text, '\n') ? strchr(text, '\n') + 1 : NULL;
    cr_assert(text && *text, "no line %d", line);
    snprintf(buf, size, "%.*s", (int)(strchrnul(text, '\n') - text), text);
    return buf;
}

Test(doc_names, a_mallet_corpus_trains_on_its_text_alone_and_keeps_names_and_labels)
{
    char *dir = test_tmpdir(), *path = write_corpus(dir, "c.tsv", "mallet");
    char *m = train(dir, "m", path, "--format mallet");
    char *vocab = read_in(m, "vocab.txt");
    cr_assert(vocab);
    cr_assert_str_eq(vocab, "apple\nbanana\ncherry\ncomet\ngalaxy\ngrape\nlemon\nmango\nnebula\norbit\nplanet\n"
                            "rocket\n", "names and labels are no words");
    expect_names_file(m);
    expect_labels_file(m);
    char *conf = read_in(m, "model.conf");
    cr_assert(strstr(conf, "\ncorpus_format = mallet\n"), "%s", conf);

    /* The same lines as NAME<tab>TEXT: names, no labels. */
    char *named = write_corpus(dir, "n.tsv", "named"), *mn = train(dir, "mn", named, "--format named");
    char *vocab_n = read_in(mn, "vocab.txt");
    cr_assert_str_eq(vocab_n, vocab);
    expect_names_file(mn);
    char *labels = read_in(mn, "doc_labels.txt");
    cr_assert_null(labels, "no labels in NAME<tab>TEXT");
    free(vocab);
    free(vocab_n);
    free(conf);
    free(named);
    free(mn);
    finish(dir, path, m);
}

Test(doc_names, names_come_back_in_exported_doc_topics_and_the_report)
{
    char *dir = test_tmpdir(), *path = write_corpus(dir, "c.tsv", "mallet"), args[4096], buf[512];
    char *m = train(dir, "m", path, "--format mallet --holdout 0.2");
    expect_names_file(m); /* every input document, held out or not: the rows of θ */
    snprintf(args, sizeof args, "export '%s' --output-doc-topics '%s/dt.txt'", m, dir);
    free(run_ok(args));
    snprintf(args, sizeof args, "export '%s' --output-doc-topics '%s/dts.txt' --doc-topics-max 1", m, dir);
    free(run_ok(args));
    char *dt = read_in(dir, "dt.txt"), *dts = read_in(dir, "dts.txt");
    cr_assert_str_eq(line_of(dts, 0, buf, sizeof buf), "#doc name topic proportion ...");
    for (int d = 0; d < DOCS; d++) {
        char prefix[32];
        snprintf(prefix, sizeof prefix, "%d\tdoc%02d\t", d, d);
        cr_assert_eq(strncmp(line_of(dt, d, buf, sizeof buf), prefix, strlen(prefix)), 0, "%s", buf);
        cr_assert_eq(strncmp(line_of(dts, d + 1, buf, sizeof buf), prefix, strlen(prefix)), 0, "%s", buf);
    }
    line_of(dt, DOCS - 1, buf, sizeof buf);
    cr_assert_eq(*(strchr(strstr(dt, buf), '\n') + 1), 0, "one line a document");

    /* The report names the documents (with their labels) and shows their text without the fields. */
    snprintf(args, sizeof args, "report '%s' -o '%s/r.html' --docs 3", m, dir);
    free(run_ok(args));
    char *page = read_in(dir, "r.html");
    cr_assert(page);
    cr_assert(strstr(page, "<span class=\"dmeta\">doc"), "documents listed by name");
    cr_assert(strstr(page, " · quokka · ") && strstr(page, " · wombat · "), "with their labels");
    cr_assert_null(strstr(page, "<span class=\"dmeta\">document "), "no row numbers");
    int snippets = 0; /* each the text alone: it starts with a word of the text */
    for (const char *at = page; (at = strstr(at, "<div class=\"snip\">")); snippets++) {
        at += strlen("<div class=\"snip\">");
        int word = 0;
        for (int i = 0; i < 6; i++)
            word |= !strncmp(at, fruit[i], strlen(fruit[i])) || !strncmp(at, space[i], strlen(space[i]));
        cr_assert(word, "a snippet: %.40s", at);
    }
    cr_assert_eq(snippets, 6, "3 documents of each of 2 topics");
    free(page);
    free(dt);
    free(dts);
    finish(dir, path, m);
}

Test(doc_names, infer_names_the_new_documents_from_their_input)
{
    char *dir = test_tmpdir(), *path = write_corpus(dir, "c.tsv", "mallet"), args[4096], buf[512];
    char *m = train(dir, "m", path, "--format mallet");
    char *fresh = test_write_file(dir, "new.tsv", "new-a\tquokka\tapple banana cherry grape\n"
                                                  "new-b\twombat\trocket planet comet orbit\n"
                                                  "new-c\tquokka\t\n");
    /* --format given, and left out: a model trained on named lines reads new text the same way. */
    for (int given = 0; given < 2; given++) {
        snprintf(args, sizeof args, "infer '%s' '%s' -o '%s/theta.tsv' %s", m, fresh, dir,
                 given ? "--format mallet" : "");
        free(run_ok(args));
        char *tsv = read_in(dir, "theta.tsv");
        cr_assert_str_eq(line_of(tsv, 0, buf, sizeof buf), "document\tname\tlabel\ttopic0\ttopic1");
        cr_assert_eq(strncmp(line_of(tsv, 1, buf, sizeof buf), "0\tnew-a\tquokka\t", 15), 0, "%s", buf);
        cr_assert_eq(strncmp(line_of(tsv, 2, buf, sizeof buf), "1\tnew-b\twombat\t", 15), 0, "%s", buf);
        cr_assert_str_eq(line_of(tsv, 3, buf, sizeof buf), "2\tnew-c\tquokka\t0.5\t0.5", "an empty document");
        free(tsv);
    }
    snprintf(args, sizeof args, "infer '%s' '%s' -o '%s/top.tsv' --doc-topics top:1 --format named", m, fresh, dir);
    free(run_ok(args)); /* NAME<tab>TEXT: the label is text here */
    char *top = read_in(dir, "top.tsv");
    cr_assert_str_eq(line_of(top, 0, buf, sizeof buf), "document\tname\ttop1_topic\ttop1_weight");
    cr_assert_eq(strncmp(line_of(top, 1, buf, sizeof buf), "0\tnew-a\t", 8), 0, "%s", buf);
    free(top);
    /* Plain lines given to a model of named ones: refused, saying how they were read. */
    char *plain = test_write_file(dir, "plain.txt", "apple banana cherry\n");
    snprintf(args, sizeof args, "infer '%s' '%s'", m, plain);
    test_expect_failure(args, 2, "plain.txt:1: expected NAME<tab>LABEL<tab>TEXT (--format mallet); the line has no "
                                 "tab (read as the model's corpus was; --format text reads plain lines)");
    snprintf(args, sizeof args, "infer '%s' '%s' --format text", m, plain);
    char *out = run_ok(args);
    cr_assert(strstr(out, "document\ttopic0\ttopic1\n0\t"), "%s", out);
    free(out);
    free(plain);
    free(fresh);
    finish(dir, path, m);
}

Test(doc_names, eval_scores_the_documents_a_file_names)
{
    char *dir = test_tmpdir(), *path = write_corpus(dir, "c.tsv", "mallet"), args[4096];
    char *m = train(dir, "m", path, "--format mallet");
    char *names = test_write_file(dir, "names.txt", "doc03\n# a comment\ndoc10\n\ndoc31\n");
    char *rows = test_write_file(dir, "rows.txt", "3\n10\n31\n");
    snprintf(args, sizeof args, "eval '%s' '%s' --doc-names '%s'", m, path, names);
    char *by_name = run_ok(args);
    snprintf(args, sizeof args, "eval '%s' '%s' --docs '%s'", m, path, rows);
    char *by_row = run_ok(args);
    cr_assert(strstr(by_name, "documents 3\n"), "%s", by_name);
    cr_assert_str_eq(by_name, by_row);
    char *unknown = test_write_file(dir, "unknown.txt", "doc03\ndoc99\n");
    snprintf(args, sizeof args, "eval '%s' '%s' --doc-names '%s'", m, path, unknown);
    char needle[2048];
    snprintf(needle, sizeof needle, "%s:2: no document is named 'doc99'", unknown);
    test_expect_failure(args, 2, needle);
    /* Names need a corpus with names. */
    char *plain = write_corpus(dir, "plain.txt", "text");
    snprintf(args, sizeof args, "eval '%s' '%s' --format text --doc-names '%s'", m, plain, names);
    test_expect_failure(args, 2, "--doc-names: the documents of");
    free(by_name);
    free(by_row);
    free(names);
    free(rows);
    free(unknown);
    free(plain);
    finish(dir, path, m);
}

Test(doc_names, a_corpus_without_names_keeps_row_numbers)
{
    char *dir = test_tmpdir(), *path = write_corpus(dir, "plain.txt", "text"), args[4096], buf[512];
    char *m = train(dir, "m", path, "");
    cr_assert_null(read_in(m, "doc_names.txt"));
    cr_assert_null(read_in(m, "doc_labels.txt"));
    snprintf(args, sizeof args, "export '%s' --output-doc-topics '%s/dt.txt'", m, dir);
    free(run_ok(args));
    char *dt = read_in(dir, "dt.txt");
    for (int d = 0; d < DOCS; d++) {
        char prefix[32];
        snprintf(prefix, sizeof prefix, "%d\t%d\t", d, d);
        cr_assert_eq(strncmp(line_of(dt, d, buf, sizeof buf), prefix, strlen(prefix)), 0, "%s", buf);
    }
    snprintf(args, sizeof args, "infer '%s' '%s'", m, path);
    char *out = run_ok(args), *tsv = strstr(out, "document\t");
    cr_assert(tsv && strncmp(tsv, "document\ttopic0\ttopic1\n0\t", 25) == 0, "%s", out);
    snprintf(args, sizeof args, "report '%s' -o '%s/r.html' --docs 2", m, dir);
    free(run_ok(args));
    char *page = read_in(dir, "r.html");
    cr_assert(strstr(page, "<span class=\"dmeta\">document "), "documents by row number");
    free(page);
    free(out);
    free(dt);
    finish(dir, path, m);
}

Test(doc_names, a_line_that_does_not_fit_the_named_format_is_refused_with_its_line)
{
    char *dir = test_tmpdir(), args[4096], needle[2048];
    static const struct {
        const char *format, *text, *message;
        int line;
    } bad[] = {
        {"mallet", "a\tx\tapple banana\nb apple banana\n", "expected NAME<tab>LABEL<tab>TEXT (--format mallet); "
                                                            "the line has no tab", 2},
        {"mallet", "a\tx\tapple banana\nb\tapple banana\n", "expected NAME<tab>LABEL<tab>TEXT (--format mallet); "
                                                             "the line has one tab", 2},
        {"named", "a\tapple\nb\tbanana\n\n", "expected NAME<tab>TEXT (--format named); the line has no tab", 3},
        {"named", "\tapple banana\n", "the document name (the first field) is empty", 1},
        {"mallet", "a\tx\tapple\nb\x01\tx\tbanana\n", "the document name holds a control character (\\x01)", 2},
        {"mallet", "a\tx\x7f\tapple\n", "the label holds a control character (\\x7f)", 1},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "bad%zu.tsv", i);
        char *path = test_write_file(dir, name, bad[i].text);
        snprintf(args, sizeof args, "train '%s' --format %s -K 2 -n 2 -q --device cpu -o '%s/m'", path, bad[i].format,
                 dir);
        snprintf(needle, sizeof needle, "%s:%d: %s", path, bad[i].line, bad[i].message);
        test_expect_failure(args, 2, needle);
        snprintf(args, sizeof args, "format '%s' --format %s -o '%s/c.ldab'", path, bad[i].format, dir);
        test_expect_failure(args, 2, needle);
        free(path);
    }
    finish(dir, NULL, NULL);
}

Test(doc_names, the_binary_corpus_and_the_cache_carry_the_names)
{
    char *dir = test_tmpdir(), *path = write_corpus(dir, "c.tsv", "mallet"), args[4096];
    snprintf(args, sizeof args, "format '%s' --format mallet -o '%s/c.ldab'", path, dir);
    free(run_ok(args));
    char *binary = NULL;
    cr_assert(asprintf(&binary, "%s/c.ldab", dir) > 0);
    char *m = train(dir, "m", binary, "");
    expect_names_file(m);
    expect_labels_file(m);
    /* --cache: written by the first run, read by the second; both models named. */
    char *cache = NULL;
    cr_assert(asprintf(&cache, "--format mallet --cache '%s/cache.ldab'", dir) > 0);
    char *m1 = train(dir, "m1", path, cache), *m2 = train(dir, "m2", path, cache);
    expect_names_file(m1);
    expect_names_file(m2);
    expect_labels_file(m2);
    /* The binary corpus and the cache read directly: every name and label. */
    char *cache_path = NULL;
    cr_assert(asprintf(&cache_path, "%s/cache.ldab", dir) > 0);
    const char *files[] = {binary, cache_path};
    for (int i = 0; i < 2; i++) {
        corpus_options opt;
        corpus_options_default(&opt);
        lda_error err = {0};
        corpus *c = corpus_read(files[i], &opt, &err);
        cr_assert(c, "%s", err.msg);
        cr_assert(c->names && c->labels, "%s", files[i]);
        cr_assert_eq(c->names->count, DOCS);
        cr_assert_eq(c->labels->count, DOCS);
        cr_assert_str_eq(lda_string_list_get(c->names, 17), "doc17");
        cr_assert_str_eq(lda_string_list_get(c->labels, 17), "wombat");
        corpus_free(c);
    }
    free(cache_path);
    free(cache);
    free(binary);
    free(m1);
    free(m2);
    finish(dir, path, m);
}

Test(doc_names, a_names_file_that_does_not_match_the_model_is_refused)
{
    char *dir = test_tmpdir(), *path = write_corpus(dir, "c.tsv", "mallet"), args[4096], needle[2048];
    char *m = train(dir, "m", path, "--format mallet");
    char *short_list = test_write_file(m, "doc_names.txt", "doc00\ndoc01\n");
    snprintf(args, sizeof args, "export '%s' --output-doc-topics '%s/dt.txt'", m, dir);
    snprintf(needle, sizeof needle, "%s: expected %d document names (model.conf says so), found 2", short_list, DOCS);
    test_expect_failure(args, 2, needle);
    free(short_list);
    finish(dir, path, m);
}

Test(doc_names, the_reader_splits_the_fields_before_tokenizing)
{
    char *dir = test_tmpdir();
    char *path = test_write_file(dir, "c.tsv", "first\tsport\tApple banana\tcherry doc\n"
                                               "second\tnews\t\n"
                                               "third\tsport\tbanana apple\n");
    corpus_options opt;
    corpus_options_default(&opt);
    opt.format = CORPUS_FORMAT_MALLET;
    opt.min_df = 1;
    opt.max_df = 1;
    lda_error err = {0};
    corpus *c = corpus_read(path, &opt, &err);
    cr_assert(c, "%s", err.msg);
    cr_assert_eq(c->format, CORPUS_FORMAT_MALLET);
    cr_assert_eq(c->num_input_docs, 3);
    cr_assert_eq(c->num_docs, 2, "the empty document is skipped, its name kept");
    cr_assert_eq(c->vocab_size, 4); /* apple banana cherry doc: the text keeps its own tabs */
    cr_assert_eq(c->names->count, 3);
    cr_assert_str_eq(lda_string_list_get(c->names, 1), "second");
    cr_assert_str_eq(lda_string_list_get(c->labels, 2), "sport");
    corpus_free(c);
    finish(dir, path, NULL);
}
