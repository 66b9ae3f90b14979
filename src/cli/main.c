/* main.c — ldagpu's command dispatcher: a table of subcommands, each parsing its own
 * options. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"

#define LDAGPU_VERSION "0.2.0"

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
    fprintf(out, "ldagpu %s — LDA topic models trained by an uncollapsed Gibbs sampler on the GPU or CPU\n\n"
                 "usage: ldagpu COMMAND [options]     (ldagpu COMMAND --help for its options)\n\ncommands:\n",
            LDAGPU_VERSION);
    for (const command *c = commands; c->name; c++)
        fprintf(out, "  %-10s %s\n", c->name, c->help);
    fprintf(out, "\nexample:\n  ldagpu train corpus.txt -K 1024 -o model && ldagpu topics model --top 20\n");
}

int main(int argc, char **argv)
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
