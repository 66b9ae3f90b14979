/* token_pattern.c — see token_pattern.h. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "corpus/token_pattern.h"

#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#if PCRE2_MAJOR < 10 || (PCRE2_MAJOR == 10 && PCRE2_MINOR < 34)
#error "ldagpu needs PCRE2 10.34 or later (PCRE2_MATCH_INVALID_UTF)"
#endif

#include "util/text.h"

/* The JIT's stack: PCRE2's default (32 KiB) is too small for some patterns with nested
 * repeats over long lines; what a match needs beyond this max is an error, not a crash. */
enum { JIT_STACK_START = 32 << 10, JIT_STACK_MAX = 8 << 20 };

struct token_pattern {
    pcre2_code *code;
    int jit; /* compiled to machine code: matched by pcre2_jit_match, without pcre2_match's checks */
    pcre2_match_data *match;
    pcre2_match_context *context;
    pcre2_jit_stack *jit_stack;
    char *text; /* the pattern, for messages */
};

void token_pattern_free(token_pattern *p)
{
    if (!p)
        return;
    pcre2_match_data_free(p->match);
    pcre2_match_context_free(p->context);
    pcre2_jit_stack_free(p->jit_stack);
    pcre2_code_free(p->code);
    free(p->text);
    free(p);
}

/* Where JIT compiling works, matches run as machine code with their own stack; where it does
 * not (a platform without JIT, a pattern it refuses), the interpreter runs them: same matches. */
static void try_jit(token_pattern *p)
{
    if (pcre2_jit_compile(p->code, PCRE2_JIT_COMPLETE) != 0)
        return;
    p->jit_stack = pcre2_jit_stack_create(JIT_STACK_START, JIT_STACK_MAX, NULL);
    p->context = pcre2_match_context_create(NULL);
    if (p->jit_stack && p->context)
        pcre2_jit_stack_assign(p->context, NULL, p->jit_stack);
    p->jit = 1;
}

token_pattern *token_pattern_compile(const char *pattern, lda_error *err)
{
    token_pattern *p = calloc(1, sizeof *p);
    if (!p || !(p->text = strdup(pattern))) {
        free(p);
        lda_error_fail(err, "out of memory (a token pattern)");
        return NULL;
    }
    int code;
    PCRE2_SIZE offset;
    p->code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF,
                            &code, &offset, NULL);
    if (!p->code) {
        PCRE2_UCHAR message[256];
        char quoted[LDA_QUOTE_MAX];
        pcre2_get_error_message(code, message, sizeof message);
        lda_error_input(err, "token pattern '%s': %s at offset %zu", lda_quote(pattern, strlen(pattern), quoted),
                        (const char *)message, (size_t)offset);
        token_pattern_free(p);
        return NULL;
    }
    try_jit(p);
    if (!(p->match = pcre2_match_data_create_from_pattern(p->code, NULL))) {
        lda_error_fail(err, "out of memory (a token pattern's match data)");
        token_pattern_free(p);
        return NULL;
    }
    return p;
}

int token_pattern_each(token_pattern *p, const char *text, size_t len, const char *path, size_t line, token_fn word,
                       void *ctx, lda_error *err)
{
    PCRE2_SIZE start = 0;
    while (start < len) {
        int rc = p->jit ? pcre2_jit_match(p->code, (PCRE2_SPTR)text, len, start, PCRE2_NOTEMPTY, p->match, p->context)
                        : pcre2_match(p->code, (PCRE2_SPTR)text, len, start, PCRE2_NOTEMPTY, p->match, p->context);
        if (rc == PCRE2_ERROR_NOMATCH)
            return 0;
        if (rc < 0) {
            PCRE2_UCHAR message[256];
            char quoted[LDA_QUOTE_MAX];
            pcre2_get_error_message(rc, message, sizeof message);
            lda_error_input(err, "%s:%zu: token pattern '%s': %s", path, line,
                            lda_quote(p->text, strlen(p->text), quoted), (const char *)message);
            return -1;
        }
        const PCRE2_SIZE *ov = pcre2_get_ovector_pointer(p->match);
        if (ov[1] <= start) /* no progress: NOTEMPTY rules it out; never loop on it */
            return 0;
        if (ov[0] < ov[1] && word(ctx, text + ov[0], ov[1] - ov[0], err) < 0)
            return -1;
        start = ov[1];
    }
    return 0;
}
