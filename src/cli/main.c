/* main.c — ldagpu's command dispatcher: a table of subcommands, each parsing its own
 * options. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "core/version.h"
#include "util/atomic_file.h"
#include "util/ranks.h"

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help;
} command;

static const command commands[] = {
    {"train", lda_cmd_train, "train a topic model on a corpus and write the model folder"},
    {"topics", lda_cmd_topics, "print the top words of every topic of a model, and their coherence"},
    {"infer", lda_cmd_infer, "topic proportions of new documents under a model"},
    {"eval", lda_cmd_eval, "held-out log-likelihood and perplexity of documents under a model"},
    {"report", lda_cmd_report, "write one self-contained HTML page about a model: map, topics, documents, curves"},
    {"export", lda_cmd_export, "write a model as Mallet's topic keys and document topics, or for pyLDAvis"},
    {"format", lda_cmd_format, "write a corpus as ldagpu's binary corpus, read in one pass instead of parsed"},
    {"generate", lda_cmd_generate, "write a synthetic corpus drawn from planted topics, and the topics"},
    {"bench", lda_cmd_bench, "time training iterations over K values, samplers, precisions and models"},
    {NULL, NULL, NULL},
};

static void print_help(FILE *out)
{
    fprintf(out, "ldagpu %s — LDA topic models trained by Gibbs sampling on the GPU or CPU\n\n"
                 "usage: ldagpu COMMAND [options]     (ldagpu COMMAND --help for its options)\n\ncommands:\n",
            LDAGPU_VERSION);
    for (const command *c = commands; c->name; c++)
        fprintf(out, "  %-10s %s\n", c->name, c->help);
    fprintf(out, "\nexample:\n  ldagpu train corpus.txt -K 1024 --model collapsed -o model && ldagpu topics model --top 20\n");
}

/* Under mpirun every process runs `ldagpu train` with the same arguments; rank 0 trains and
 * writes the model, the others follow it (backend_sharded.c) and are silent but for a failure. */
static int start_ranks(int *argc, char ***argv)
{
    lda_error err = {0};
    if (lda_ranks_start(argc, argv, &err))
        return lda_report("", &err);
    if (lda_ranks_size() == 1)
        return 0;
    if (*argc < 2 || strcmp((*argv)[1], "train") != 0) {
        lda_error_input(&err, "under mpirun, only 'ldagpu train' runs (one process a GPU)");
        return lda_report(*argc > 1 ? (*argv)[1] : "", &err);
    }
    if (lda_ranks_rank() != 0) {
        const int saved = dup(STDERR_FILENO);
        FILE *failures = saved >= 0 ? fdopen(saved, "w") : NULL;
        if (failures && freopen("/dev/null", "w", stderr))
            lda_report_to(failures);
    }
    return 0;
}

static int run(int argc, char **argv);

int main(int argc, char **argv)
{
    /* A file-size limit (ulimit -f) then makes a write fail with EFBIG, which is reported and
     * leaves the output as it was, instead of killing the process without a word. */
    signal(SIGXFSZ, SIG_IGN);
    lda_atomic_guard_inputs(); /* no output replaces the command's own corpus or model */
    int rc = start_ranks(&argc, &argv);
    if (rc == 0)
        rc = run(argc, argv);
    if (rc != 0)
        lda_ranks_abort(rc); /* the other processes would wait for this one */
    lda_ranks_stop();
    return rc;
}

static int run(int argc, char **argv)
{
    if (argc < 2) {
        print_help(stderr);
        return LDA_EXIT_BAD_INPUT;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        print_help(stdout);
        return LDA_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("ldagpu %s\n", LDAGPU_VERSION);
        return LDA_EXIT_OK;
    }
    for (const command *c = commands; c->name; c++)
        if (strcmp(argv[1], c->name) == 0)
            return c->run(argc - 1, argv + 1);
    fprintf(stderr, "ldagpu: unknown command '%s' (see 'ldagpu --help')\n", argv[1]);
    return LDA_EXIT_BAD_INPUT;
}
