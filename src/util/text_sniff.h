/* text_sniff.h — whether the first bytes of a file look like UTF-8 text, and if not, what they
 * look like instead, so that a PDF, an executable or a spreadsheet given as a corpus is refused
 * with one clear line rather than trained into topics such as "flatedecode obj stream".
 *
 * Not text: a file that starts with the magic of a known binary format (PDF, ELF, zip and the
 * office documents built on it, the old Office format, images, NumPy and ldagpu's own binary
 * files, xz, bzip2, zstd, 7-Zip); UTF-16 or UTF-32 (a byte-order mark, or ASCII with a NUL beside
 * every character), named as such; any NUL byte; or more than LDA_SNIFF_MAX_ODD_PERCENT percent
 * of the bytes being control characters other than tab, CR, LF and FF, or bytes that are not
 * valid UTF-8. Text in a legacy 8-bit encoding with a few accented letters (Latin-1) passes;
 * one whose letters are all above ASCII (KOI8-R, ISO 8859-7) does not, and would have given no
 * words anyway: the tokenizer reads UTF-8. */
#ifndef LDA_TEXT_SNIFF_H
#define LDA_TEXT_SNIFF_H

#include <stddef.h>

enum { LDA_SNIFF_MAX_ODD_PERCENT = 10, LDA_SNIFF_REASON_MAX = 256 };

/* NULL when s[0..len) looks like text. Otherwise what it is instead, to follow the file's name
 * in a message ("does not look like text: it starts like a PDF document", "is UTF-16 text:
 * ...", "is compressed with xz: ..."), written into why; *compressed says whether it is
 * compressed (reading it as text anyway makes no sense). complete: s is the whole file (else a
 * UTF-8 character cut at its end is not held against it). */
const char *lda_sniff_not_text(const char *s, size_t len, int complete, char why[LDA_SNIFF_REASON_MAX],
                               int *compressed);

#endif
