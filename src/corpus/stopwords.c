/* stopwords.c — loading stop words into a string map; see stopwords.h.
 *
 * A user's file is read the way scripts/embed-words.sh reads the built-in list ('#'
 * comments, blanks ignored), so data/stopwords.txt given as a file means the same as the
 * default. Entries that are not plain letters can never equal a token; they are kept
 * harmlessly rather than rejected, so MALLET-style lists with "don't" still load. */
#include "corpus/stopwords.h"

#include <string.h>

#include "util/fields.h"
#include "util/gzlines.h"

static int add_lowercased(strmap *m, char *word, size_t len, lda_error *err)
{
    for (size_t i = 0; i < len; i++)
        if (word[i] >= 'A' && word[i] <= 'Z')
            word[i] = (char)(word[i] - 'A' + 'a');
    uint32_t id;
    return strmap_intern(m, word, len, &id, err);
}

static int add_file(strmap *m, const char *path, lda_error *err)
{
    gzlines *r = gzlines_open(path, err);
    if (!r)
        return -1;
    char *line;
    size_t len;
    while ((line = gzlines_next(r, &len, err))) {
        char *comment = memchr(line, '#', len);
        if (comment)
            len = (size_t)(comment - line);
        size_t i = 0;
        while (i < len) {
            while (i < len && is_field_blank(line[i]))
                i++;
            size_t start = i;
            while (i < len && !is_field_blank(line[i]))
                i++;
            if (i > start && add_lowercased(m, line + start, i - start, err) < 0) {
                gzlines_close(r);
                return -1;
            }
        }
    }
    int failed = gzlines_failed(r);
    gzlines_close(r);
    return failed ? -1 : 0;
}

int stopwords_add(strmap *m, const char *path, lda_error *err)
{
    if (path && strcmp(path, "none") == 0)
        return 0;
    if (path)
        return add_file(m, path, err);
    for (size_t i = 0; i < lda_builtin_stopwords_count; i++) {
        uint32_t id;
        const char *w = lda_builtin_stopwords[i];
        if (strmap_intern(m, w, strlen(w), &id, err) < 0)
            return -1;
    }
    return 0;
}
