/* test_readme.c — the README's commands cannot drift from the program: its shell blocks are
 * taken out of README.md and run, in order, in a fresh clone of the repository (git clone, then
 * the README's own `make demo` with CUDA=0), as a user would follow it, and its quick start must
 * end with topics and a report. Its Python blocks run there too where the interpreter has their
 * modules, and are compiled where it does not.
 *
 * A block's info string says what it needs: ```sh runs everywhere; ```sh gpu needs a GPU, ```sh
 * gpus several, ```sh mpi mpirun, ```sh root root, ```sh net the network, and ```sh self is the
 * test command itself (no recursion). Those are checked for their syntax and for option names
 * that --help lists (as every block is), and the GPU ones run where this ldagpu has a GPU. Every
 * fenced block names its language, so that no command can hide in an untested block.
 *
 * The guide's own shape is checked too: at most 300 lines, no history in README.md or docs/
 * (sessions, issue numbers), and every relative link of those pages names a file that exists. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#ifdef LDA_HAVE_CUDA
#include "backend/backend.h"
#endif

enum { MAX_BLOCKS = 64 };

typedef struct {
    char lang[16];  /* sh, python, text, ... */
    char tags[64];  /* the info string's words after the language, space-separated */
    char *body;     /* the block's lines */
    int line;       /* README line of the opening fence */
} readme_block;

typedef struct {
    readme_block blocks[MAX_BLOCKS];
    size_t count;
} readme;

static const char *const known_tags[] = {"gpu", "gpus", "mpi", "root", "net", "self"};

static char *readme_path(void)
{
    char *p = NULL;
    cr_assert(asprintf(&p, "%s/README.md", test_root()) > 0);
    return p;
}

/* The fenced blocks of README.md, each with its language and tags; asserts every fence names
 * a language and every tag is one the runner knows. */
static void readme_parse(readme *r)
{
    char *path = readme_path();
    char *text = test_read_file(path);
    cr_assert(text, "cannot read %s", path);
    memset(r, 0, sizeof *r);
    readme_block *open = NULL;
    size_t body_len = 0;
    int line = 0;
    for (char *s = text, *eol; *s; s = eol + (*eol != '\0')) {
        eol = strchr(s, '\n');
        if (!eol)
            eol = s + strlen(s);
        line++;
        const size_t len = (size_t)(eol - s);
        const int fence = len >= 3 && strncmp(s, "```", 3) == 0;
        if (open && fence) {
            open = NULL;
            continue;
        }
        if (open) {
            open->body = realloc(open->body, body_len + len + 2);
            memcpy(open->body + body_len, s, len);
            body_len += len;
            open->body[body_len++] = '\n';
            open->body[body_len] = '\0';
            continue;
        }
        if (!fence)
            continue;
        cr_assert(r->count < MAX_BLOCKS, "README.md: more than %d blocks", MAX_BLOCKS);
        open = &r->blocks[r->count++];
        open->line = line;
        open->body = calloc(1, 1);
        body_len = 0;
        char info[128];
        snprintf(info, sizeof info, "%.*s", (int)(len - 3), s + 3);
        char *save = NULL, *word = strtok_r(info, " \t\r", &save);
        cr_assert(word, "README.md:%d: a fenced block without a language (```sh, ```python, ```text)", line);
        snprintf(open->lang, sizeof open->lang, "%s", word);
        while ((word = strtok_r(NULL, " \t\r", &save))) {
            int known = 0;
            for (size_t i = 0; i < sizeof known_tags / sizeof *known_tags; i++)
                known |= strcmp(word, known_tags[i]) == 0;
            cr_assert(known && strcmp(open->lang, "sh") == 0,
                      "README.md:%d: unknown tag '%s' (sh blocks take gpu, gpus, mpi, root, net, self)", line, word);
            size_t used = strlen(open->tags);
            snprintf(open->tags + used, sizeof open->tags - used, "%s%s", used ? " " : "", word);
        }
    }
    cr_assert(!open, "README.md:%d: a block is never closed", open ? open->line : 0);
    free(text);
    free(path);
}

static void readme_free(readme *r)
{
    for (size_t i = 0; i < r->count; i++)
        free(r->blocks[i].body);
}

static int has_tag(const readme_block *b, const char *tag)
{
    char tags[sizeof b->tags + 2];
    snprintf(tags, sizeof tags, " %s ", b->tags);
    char want[32];
    snprintf(want, sizeof want, " %s ", tag);
    return strstr(tags, want) != NULL;
}

/* Writes text to path. */
static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert(f, "cannot write %s", path);
    fputs(text, f);
    cr_assert(fclose(f) == 0);
}

/* The last `keep` bytes of text (for a failure's message). */
static const char *tail_of(const char *text, size_t keep)
{
    size_t n = strlen(text);
    return n > keep ? text + n - keep : text;
}

/* Runs one shell block in dir (bash, stopping at the first failing command) and asserts it
 * succeeds; returns its output (malloc'ed). */
static char *run_sh_block(const readme_block *b, const char *dir, const char *scratch, int n)
{
    char script[512], cmd[2048];
    snprintf(script, sizeof script, "%s/block-%d.sh", scratch, n);
    char *text = NULL;
    cr_assert(asprintf(&text, "set -e\n%s", b->body) > 0);
    write_text(script, text);
    free(text);
    /* CUDA=0: the README's plain `make` builds the CPU backend here (CI has no GPU, and the CUDA
     * build would take minutes); the outer make's job server is not the clone's. */
    snprintf(cmd, sizeof cmd,
             "cd '%s' && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL CUDA=0 MAKEFLAGS=-j2 timeout -s KILL 600 bash '%s' 2>&1",
             dir, script);
    int status;
    char *out = test_shell(cmd, &status);
    cr_assert_eq(status, 0, "README.md:%d: this block failed (exit %d) in %s:\n%s\n--- its output (end):\n%s", b->line,
                 status, dir, b->body, tail_of(out, 4000));
    return out;
}

/* The top-level modules a Python block imports, comma-separated ("numpy,scipy"). */
static void python_imports(const char *body, char *mods, size_t size)
{
    mods[0] = '\0';
    for (const char *s = body; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL) {
        char line[512];
        size_t len = strcspn(s, "\n");
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), s);
        const char *rest = NULL;
        if (strncmp(line, "import ", 7) == 0)
            rest = line + 7;
        else if (strncmp(line, "from ", 5) == 0)
            rest = line + 5;
        if (!rest)
            continue;
        char names[512];
        snprintf(names, sizeof names, "%s", rest);
        if (strncmp(line, "from ", 5) == 0)
            names[strcspn(names, " ")] = '\0';
        char *save = NULL;
        for (char *m = strtok_r(names, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
            while (*m == ' ')
                m++;
            m[strcspn(m, ". ")] = '\0';
            if (*m) {
                size_t used = strlen(mods);
                snprintf(mods + used, size - used, "%s%s", used ? "," : "", m);
            }
        }
    }
}

/* Runs a Python block in dir when python has every module it imports (asserting it succeeds),
 * else compiles it; returns whether it ran. */
static int run_python_block(const readme_block *b, const char *python, const char *dir, const char *scratch, int n)
{
    char script[512], mods[256], cmd[4096];
    snprintf(script, sizeof script, "%s/block-%d.py", scratch, n);
    write_text(script, b->body);
    python_imports(b->body, mods, sizeof mods);
    int status;
    /* The ldagpu package runs from the clone's python/ over the clone's own library (make lib
     * links the objects the quick start compiled), as an installed package would. */
    char env[1100];
    snprintf(env, sizeof env, "PYTHONPATH='%s/python' LDAGPU_LIBRARY='%s/libldagpu.so'", dir, dir);
    const int uses_package = strstr(mods, "ldagpu") != NULL;
    if (uses_package) {
        snprintf(cmd, sizeof cmd, "make -s -C '%s' lib 2>&1", dir);
        char *made = test_shell(cmd, &status);
        cr_assert_eq(status, 0, "README.md:%d: make lib in the clone failed:\n%s", b->line, tail_of(made, 3000));
        free(made);
    }
    snprintf(cmd, sizeof cmd, "%s '%s' -c 'import %s' >/dev/null 2>&1", env, python, *mods ? mods : "sys");
    free(test_shell(cmd, &status));
    const int runs = status == 0;
    cr_assert(runs || !uses_package, "README.md:%d: the ldagpu package does not import from the clone's python/",
              b->line);
    if (runs)
        snprintf(cmd, sizeof cmd, "cd '%s' && %s timeout -s KILL 300 '%s' '%s' 2>&1", dir, env, python, script);
    else
        snprintf(cmd, sizeof cmd, "'%s' -m py_compile '%s' 2>&1", python, script);
    char *out = test_shell(cmd, &status);
    cr_assert_eq(status, 0, "README.md:%d: this Python block %s (exit %d):\n%s\n--- its output:\n%s", b->line,
                 runs ? "failed" : "does not compile", status, b->body, tail_of(out, 4000));
    if (!runs)
        cr_log_info("README.md:%d: Python block compiled, not run (%s lacks one of: %s)", b->line, python, mods);
    free(out);
    return runs;
}

/* ---- the quick start, and every block, in a fresh clone ---- */

Test(readme, followed_word_for_word_in_a_fresh_clone_reaches_topics_and_a_report)
{
    int status;
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "git -C '%s' rev-parse --is-inside-work-tree >/dev/null 2>&1", test_root());
    free(test_shell(cmd, &status));
    if (status != 0)
        cr_skip_test("%s is not a git checkout: no fresh clone to make (the blocks' options are still checked)",
                     test_root());
    snprintf(cmd, sizeof cmd, "git -C '%s' status --porcelain --untracked-files=no -- src cuda Makefile scripts data configs",
             test_root());
    /* A clone holds the last commit: where the code differs from it (uncommitted work, or a copy
     * of the tree whose .git is older, as on the GPU machine) the clone would test other code. */
    char *dirty = test_shell(cmd, &status);
    if (*dirty) {
        cr_log_info("the code differs from the last commit, which a clone would hold:\n%s", dirty);
        free(dirty);
        cr_skip_test("the code differs from its last commit: a fresh clone would test other code (commit first)");
    }
    free(dirty);

    readme r;
    readme_parse(&r);
    char *scratch = test_tmpdir(), clone[512];
    snprintf(clone, sizeof clone, "%s/ldagpu", scratch);
    snprintf(cmd, sizeof cmd, "git clone -q '%s' '%s' 2>&1", test_root(), clone);
    char *out = test_shell(cmd, &status);
    cr_assert_eq(status, 0, "git clone failed: %s", out);
    free(out);

    const char *python = test_python_with("numpy");
    int ran = 0, python_ran = 0, quick_start = -1;
    char *quick_out = NULL;
    for (size_t i = 0; i < r.count; i++) {
        const readme_block *b = &r.blocks[i];
        if (strcmp(b->lang, "python") == 0) {
            cr_assert(python, "README.md:%d: no python3 with NumPy to run this block (scripts/install-deps.sh --test)",
                      b->line);
            python_ran += run_python_block(b, python, clone, scratch, (int)i);
            continue;
        }
        if (strcmp(b->lang, "sh") != 0 || b->tags[0])
            continue;
        out = run_sh_block(b, clone, scratch, (int)i);
        ran++;
        if (quick_start < 0 && strstr(b->body, "ldagpu report")) {
            quick_start = b->line;
            quick_out = out;
        } else {
            free(out);
        }
    }
    cr_assert(quick_start > 0, "README.md: no quick start (a block that ends with ldagpu report)");
    /* The quick start trains my-model, prints its topics and writes my-report.html. */
    cr_assert(strstr(quick_out, "topic    0"), "README.md:%d: the quick start printed no topics:\n%s", quick_start,
              tail_of(quick_out, 3000));
    char path[1024];
    snprintf(path, sizeof path, "%s/my-model/model.conf", clone);
    cr_assert(access(path, F_OK) == 0, "README.md:%d: the quick start wrote no model (%s)", quick_start, path);
    snprintf(path, sizeof path, "%s/my-report.html", clone);
    char *html = test_read_file(path);
    cr_assert(html && strstr(html, "<svg"), "README.md:%d: the quick start wrote no report (%s)", quick_start, path);
    free(html);
    free(quick_out);
    cr_log_info("README: %d shell blocks and %d Python blocks ran in a fresh clone", ran, python_ran);
    readme_free(&r);
    test_rmdir(scratch);
    free(scratch);
}

/* ---- every block: its syntax, and the options it gives ldagpu ---- */

/* `ldagpu SUB --help` of the suite's binary (malloc'ed); NULL when SUB is no command. */
static char *help_of(const char *sub)
{
    char cmd[1024];
    int status;
    snprintf(cmd, sizeof cmd, "'%s' %s --help 2>/dev/null", getenv("LDAGPU_BIN"), sub);
    char *out = test_shell(cmd, &status);
    if (status != 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* Whether help names the option opt ("--topics", "-K") as a whole word. */
static int help_names(const char *help, const char *opt)
{
    const size_t n = strlen(opt);
    for (const char *p = strstr(help, opt); p; p = strstr(p + 1, opt)) {
        const char before = p == help ? ' ' : p[-1], after = p[n];
        if (!isalnum((unsigned char)before) && before != '-' && !isalnum((unsigned char)after) && after != '-')
            return 1;
    }
    return 0;
}

/* Checks the options given to ./ldagpu in one command line of a block against --help. */
static void check_command(const char *command, int line)
{
    char words[64][128];
    size_t count = 0;
    char copy[2048];
    snprintf(copy, sizeof copy, "%s", command);
    char *save = NULL;
    for (char *w = strtok_r(copy, " \t", &save); w && count < 64; w = strtok_r(NULL, " \t", &save))
        snprintf(words[count++], sizeof words[0], "%s", w);
    for (size_t i = 0; i + 1 < count; i++) {
        const char *w = words[i];
        const size_t wl = strlen(w);
        if (!(wl >= 6 && strcmp(w + wl - 6, "ldagpu") == 0))
            continue;
        char *help = help_of(words[i + 1]);
        if (!help)
            return; /* `ldagpu --help` and the like */
        for (size_t j = i + 2; j < count; j++) {
            char opt[128];
            snprintf(opt, sizeof opt, "%s", words[j]);
            opt[strcspn(opt, "=")] = '\0';
            const int is_long = strncmp(opt, "--", 2) == 0 && isalpha((unsigned char)opt[2]);
            const int is_short = opt[0] == '-' && isalpha((unsigned char)opt[1]) && opt[2] == '\0';
            if (is_long || is_short)
                cr_expect(help_names(help, opt), "README.md:%d: `ldagpu %s --help` lists no option %s", line,
                          words[i + 1], opt);
        }
        free(help);
        return;
    }
}

Test(readme, every_block_parses_and_names_options_ldagpu_has)
{
    readme r;
    readme_parse(&r);
    char *scratch = test_tmpdir();
    size_t checked = 0;
    for (size_t i = 0; i < r.count; i++) {
        const readme_block *b = &r.blocks[i];
        if (strcmp(b->lang, "sh") != 0)
            continue;
        char script[512], cmd[1024];
        snprintf(script, sizeof script, "%s/block-%zu.sh", scratch, i);
        write_text(script, b->body);
        snprintf(cmd, sizeof cmd, "bash -n '%s' 2>&1", script);
        int status;
        char *out = test_shell(cmd, &status);
        cr_expect_eq(status, 0, "README.md:%d: not valid shell: %s", b->line, out);
        free(out);
        /* One command line: continuation lines joined, comments dropped, then cut at | ; && ||. */
        char *joined = strdup(b->body);
        for (char *c = joined; (c = strstr(c, "\\\n"));)
            c[0] = c[1] = ' ';
        int line = b->line;
        for (char *l = joined, *next; l && *l; l = next) {
            next = strchr(l, '\n');
            if (next)
                *next++ = '\0';
            line++;
            char *hash = strstr(l, " #");
            if (hash)
                *hash = '\0';
            char *save2 = NULL;
            for (char *c = strtok_r(l, "|;&", &save2); c; c = strtok_r(NULL, "|;&", &save2))
                check_command(c, line);
        }
        free(joined);
        checked++;
    }
    cr_assert(checked > 0, "README.md has no ```sh block");
    readme_free(&r);
    test_rmdir(scratch);
    free(scratch);
}

/* ---- the GPU blocks, where there is a GPU ---- */

Test(readme, gpu_blocks_run_where_there_is_a_gpu)
{
    int gpus = 0;
    char why[256] = "this ldagpu was built without CUDA";
#ifdef LDA_HAVE_CUDA
    gpus = lda_cuda_device_count(why, sizeof why);
#endif
    if (gpus <= 0)
        cr_skip_test("no GPU here (%s): the GPU blocks are checked by readme/every_block_parses_and_names_options_ldagpu_has",
                     why);
    readme r;
    readme_parse(&r);
    /* A folder like a checkout's, its ldagpu the suite's (built with CUDA). */
    char *dir = test_tmpdir(), cmd[2048];
    snprintf(cmd, sizeof cmd, "ln -s '%s' '%s/ldagpu' && ln -s '%s/data' '%s/data'", getenv("LDAGPU_BIN"), dir,
             test_root(), dir);
    int status;
    free(test_shell(cmd, &status));
    cr_assert_eq(status, 0);
    int ran = 0;
    for (size_t i = 0; i < r.count; i++) {
        const readme_block *b = &r.blocks[i];
        if (strcmp(b->lang, "sh") != 0 || !(has_tag(b, "gpu") || (has_tag(b, "gpus") && gpus >= 2)) ||
            has_tag(b, "mpi"))
            continue;
        free(run_sh_block(b, dir, dir, (int)i));
        ran++;
    }
    cr_log_info("README: %d GPU blocks ran on %d GPU(s)", ran, gpus);
    readme_free(&r);
    test_rmdir(dir);
    free(dir);
}

/* ---- the guide's shape ---- */

/* Lines of a file. */
static size_t count_lines(const char *text)
{
    size_t n = 0;
    for (const char *c = text; *c; c++)
        n += *c == '\n';
    return n;
}

/* The pages of the guide: README.md and the .md files of docs/ (paths malloc'ed, NULL-terminated). */
static char **guide_pages(void)
{
    char **pages = calloc(64, sizeof *pages);
    size_t n = 0;
    pages[n++] = readme_path();
    char docs[1024];
    snprintf(docs, sizeof docs, "%s/docs", test_root());
    DIR *d = opendir(docs);
    cr_assert(d, "no docs/ folder");
    for (struct dirent *e; (e = readdir(d)) && n < 63;) {
        size_t len = strlen(e->d_name);
        if (len > 3 && strcmp(e->d_name + len - 3, ".md") == 0)
            cr_assert(asprintf(&pages[n++], "%s/%s", docs, e->d_name) > 0);
    }
    closedir(d);
    return pages;
}

static void free_pages(char **pages)
{
    for (char **p = pages; *p; p++)
        free(*p);
    free(pages);
}

Test(readme, is_a_guide_of_at_most_300_lines_without_history)
{
    char *path = readme_path();
    char *text = test_read_file(path);
    cr_assert(text);
    cr_expect_leq(count_lines(text), 300, "README.md has %zu lines: the guide is at most 300 (details go to docs/)",
                  count_lines(text));
    free(text);
    free(path);
    char **pages = guide_pages();
    for (char **p = pages; *p; p++) {
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "grep -inE 'session|issue [0-9]' '%s'", *p);
        int status;
        char *hits = test_shell(cmd, &status);
        cr_expect_str_empty(hits, "%s tells history (sessions, issue numbers: git log and results/ keep those):\n%s", *p,
                            hits);
        free(hits);
    }
    free_pages(pages);
}

Test(readme, every_relative_link_of_the_guide_names_a_file)
{
    char **pages = guide_pages();
    size_t links = 0;
    for (char **p = pages; *p; p++) {
        char *text = test_read_file(*p);
        cr_assert(text);
        char base[1024];
        snprintf(base, sizeof base, "%s", *p);
        *strrchr(base, '/') = '\0';
        for (char *l = strstr(text, "]("); l; l = strstr(l + 2, "](")) {
            char target[512];
            size_t len = strcspn(l + 2, ")#");
            if (len == 0 || len >= sizeof target)
                continue;
            snprintf(target, sizeof target, "%.*s", (int)len, l + 2);
            if (strstr(target, "://") || strncmp(target, "mailto:", 7) == 0)
                continue;
            char full[2048];
            snprintf(full, sizeof full, "%s/%s", base, target);
            struct stat st;
            cr_expect(stat(full, &st) == 0, "%s: the link (%s) names no file", *p, target);
            links++;
        }
        free(text);
    }
    cr_assert(links > 0);
    free_pages(pages);
}
