/* vocab_check.c — see vocab_check.h. */
#include "corpus/vocab_check.h"

#include <stdio.h>
#include <string.h>

#include "util/strmap.h"
#include "util/text.h"

/* "PATH:LINE" or "PATH: word id ID", the place of word i. */
static const char *place(const char *path, vocab_where where, uint32_t i, char *buf, size_t size)
{
    if (where == VOCAB_BY_LINE)
        snprintf(buf, size, "%s:%llu", path, (unsigned long long)i + 1);
    else
        snprintf(buf, size, "%s: word id %u", path, i);
    return buf;
}

/* What control character w holds, or NULL when none. */
static const char *control_character(const char *w)
{
    for (const unsigned char *p = (const unsigned char *)w; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return *p == '\t' ? "a tab" : *p == '\n' ? "a line break" : *p == '\r' ? "a carriage return"
                                                                             : "a control character";
    return NULL;
}

int vocab_check(char *const *words, uint32_t n, const char *path, vocab_where where, lda_error *err)
{
    strmap *seen = strmap_new(n, err);
    if (!seen)
        return -1;
    char at[1200], quoted[LDA_QUOTE_MAX];
    int rc = -1;
    for (uint32_t i = 0; i < n; i++) {
        const char *w = words[i], *control = control_character(w);
        const size_t len = strlen(w);
        uint32_t id;
        if (len == 0) {
            lda_error_input(err, "%s: an empty word", place(path, where, i, at, sizeof at));
            goto out;
        }
        if (control) {
            lda_error_input(err, "%s: the word '%s' contains %s; vocabulary words may not contain tabs, line breaks "
                            "or other control characters", place(path, where, i, at, sizeof at),
                            lda_quote(w, len, quoted), control);
            goto out;
        }
        if (strmap_intern(seen, w, len, &id, err))
            goto out;
        if (id != i) { /* every word before was new, so a new one gets id i */
            lda_error_input(err, "%s: the word '%s' is also %s %llu; a vocabulary lists each word once",
                            place(path, where, i, at, sizeof at), lda_quote(w, len, quoted),
                            where == VOCAB_BY_LINE ? "on line" : "word id",
                            (unsigned long long)id + (where == VOCAB_BY_LINE));
            goto out;
        }
    }
    rc = 0;
out:
    strmap_free(seen);
    return rc;
}
