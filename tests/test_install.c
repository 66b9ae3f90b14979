/* test_install.c — ldagpu as a Unix tool: the man page and the bash completion carry every
 * command and every option of every command's --help (they are generated from it: these
 * tests fail when the generators miss something the option tables added), the page renders
 * without a groff warning, and `make install` puts the three files under DESTDIR/PREFIX and
 * `make uninstall` removes them. */
#include <criterion/criterion.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

static const char *bin(void)
{
    const char *b = getenv("LDAGPU_BIN");
    return b ? b : "./ldagpu";
}

/* The commands of `ldagpu --help`, space-separated. */
static char *commands(void)
{
    char cmd[1024];
    int st;
    snprintf(cmd, sizeof cmd, "'%s' --help | awk '/^commands:/ {on=1; next} on && /^$/ {exit} on {printf \"%%s \", $1}'",
             bin());
    return test_shell(cmd, &st);
}

/* The long options of `ldagpu COMMAND --help`, space-separated, without their dashes. */
static char *options_of(const char *command)
{
    char cmd[1024];
    int st;
    snprintf(cmd, sizeof cmd, "'%s' %s --help | sed -n 's/^  \\(-., \\|    \\)--\\([a-z-]*\\).*/\\2/p' | tr '\\n' ' '",
             bin(), command);
    return test_shell(cmd, &st);
}

Test(install, man_page_has_every_command_and_option_and_renders_cleanly)
{
    char cmd[2048], *page;
    int st;
    snprintf(cmd, sizeof cmd, "'%s/scripts/gen-man.sh' '%s'", test_root(), bin());
    page = test_shell(cmd, &st);
    cr_assert_eq(st, 0, "%s", page);
    char *cmds = commands(), *save = NULL;
    cr_assert(strstr(cmds, "train") && strstr(cmds, "report") && strstr(cmds, "export"), "%s", cmds);
    int options = 0;
    for (char *c = strtok_r(cmds, " ", &save); c; c = strtok_r(NULL, " ", &save)) {
        char want[256];
        snprintf(want, sizeof want, ".SS \"ldagpu %s ", c);
        cr_assert(strstr(page, want), "the man page lacks command %s", c);
        char *opts = options_of(c), *s2 = NULL;
        for (char *o = strtok_r(opts, " ", &s2); o; o = strtok_r(NULL, " ", &s2), options++) {
            char roff[256] = "\\fB\\-\\-", *r = roff + strlen(roff);
            for (const char *q = o; *q; q++) /* hyphens are \- in roff */
                r += *q == '-' ? sprintf(r, "\\-") : sprintf(r, "%c", *q);
            strcat(roff, "\\fR");
            cr_assert(strstr(page, roff), "the man page lacks %s %s (%s)", c, o, roff);
        }
        free(opts);
    }
    cr_assert_gt(options, 60, "every command's options were found (%d)", options);
    free(cmds);
    snprintf(cmd, sizeof cmd, "'%s' --version | cut -d' ' -f2", bin());
    char *version = test_shell(cmd, &st);
    version[strcspn(version, "\n")] = 0;
    snprintf(cmd, sizeof cmd, "\"ldagpu %s\"", version);
    cr_assert(strstr(page, cmd), "the page names version %s", version);
    free(version);
    free(page);
    if (system("command -v groff >/dev/null 2>&1") != 0)
        return;
    snprintf(cmd, sizeof cmd, "'%s/scripts/gen-man.sh' '%s' | groff -k -man -Tutf8 -ww 2>&1 >/dev/null", test_root(),
             bin());
    char *warnings = test_shell(cmd, &st);
    cr_assert_eq(st, 0);
    cr_assert_str_empty(warnings, "groff: %s", warnings);
    free(warnings);
}

/* What bash completion offers for the words given (the last one being completed). */
static char *complete(const char *script, const char *words)
{
    char cmd[4096];
    int st;
    snprintf(cmd, sizeof cmd, "bash -c 'source \"%s\"; COMP_WORDS=(%s); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); "
             "_ldagpu; echo \"${COMPREPLY[*]}\"' 2>&1", script, words);
    return test_shell(cmd, &st);
}

Test(install, bash_completion_offers_commands_options_and_values)
{
    if (system("command -v bash >/dev/null 2>&1") != 0)
        cr_skip_test("no bash");
    char *dir = test_tmpdir(), cmd[4096], script[512];
    int st;
    snprintf(script, sizeof script, "%s/ldagpu.bash", dir);
    snprintf(cmd, sizeof cmd, "'%s/scripts/gen-completion.sh' '%s' > '%s' && bash -n '%s'", test_root(), bin(), script,
             script);
    free(test_shell(cmd, &st));
    cr_assert_eq(st, 0);
    char *out = complete(script, "ldagpu \"\""), *cmds = commands(), *save = NULL, *have = NULL;
    out[strcspn(out, "\n")] = 0;
    cr_assert(asprintf(&have, " %s ", out) > 0); /* every command between spaces */
    for (char *c = strtok_r(cmds, " ", &save); c; c = strtok_r(NULL, " ", &save)) {
        char padded[64];
        snprintf(padded, sizeof padded, " %s ", c);
        cr_assert(strstr(have, padded), "command %s not offered: %s", c, out);
        char words[128], *opts = options_of(c), *s2 = NULL;
        snprintf(words, sizeof words, "ldagpu %s --", c);
        char *offered = complete(script, words);
        for (char *o = strtok_r(opts, " ", &s2); o; o = strtok_r(NULL, " ", &s2)) {
            char want[128];
            snprintf(want, sizeof want, "--%s", o);
            int found = 0;
            for (char *p = offered; (p = strstr(p, want)); p += strlen(want))
                found |= (p[strlen(want)] == ' ' || p[strlen(want)] == '\n') && (p == offered || p[-1] == ' ');
            cr_assert(found, "ldagpu %s: --%s not offered: %s", c, o, offered);
        }
        free(offered);
        free(opts);
    }
    free(cmds);
    free(out);
    free(have);
    out = complete(script, "ldagpu train --device \"\"");
    cr_assert_str_eq(out, "auto cpu cuda\n");
    free(out);
    out = complete(script, "ldagpu report model --to");
    cr_assert_str_eq(out, "--top\n");
    free(out);
    out = complete(script, "ldagpu topics m --sort c");
    cr_assert_str_eq(out, "coherence\n");
    free(out);
    test_rmdir(dir);
    free(dir);
}

Test(install, make_install_honours_destdir_and_prefix)
{
    if (system("command -v make >/dev/null 2>&1") != 0)
        cr_skip_test("no make");
    /* The build folder of the binary under test, which make must take as it is (-o): where the
     * tree's times say otherwise (a copy of it, on another machine) make would build it again
     * while other tests run it. */
    char *copy = strdup(bin()), *folder = dirname(copy), *root = realpath(test_root(), NULL), *abs = realpath(folder, NULL);
    cr_assert(root && abs);
    const char *build = strncmp(abs, root, strlen(root)) == 0 ? abs + strlen(root) + 1 : abs;
    char *dir = test_tmpdir(), cmd[4096], path[2048];
    int st;
    snprintf(cmd, sizeof cmd,
             "make -s -C '%s' install BUILD='%s' -o '%s/ldagpu' CUDA=%d DESTDIR='%s/stage' PREFIX=/opt/ldagpu 2>&1",
             root, build, build, strstr(build, "cuda") ? 1 : 0, dir);
    char *out = test_shell(cmd, &st);
    cr_assert_eq(st, 0, "%s: %s", cmd, out);
    free(out);
    static const char *const files[] = {"bin/ldagpu", "share/man/man1/ldagpu.1",
                                        "share/bash-completion/completions/ldagpu"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/stage/opt/ldagpu/%s", dir, files[i]);
        cr_assert_eq(access(path, i == 0 ? X_OK : R_OK), 0, "%s not installed", path);
    }
    snprintf(cmd, sizeof cmd, "'%s/stage/opt/ldagpu/bin/ldagpu' --version", dir);
    out = test_shell(cmd, &st);
    cr_assert(st == 0 && strncmp(out, "ldagpu ", 7) == 0, "%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "make -s -C '%s' uninstall BUILD='%s' DESTDIR='%s/stage' PREFIX=/opt/ldagpu 2>&1", root,
             build, dir);
    out = test_shell(cmd, &st);
    cr_assert_eq(st, 0, "%s", out);
    free(out);
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/stage/opt/ldagpu/%s", dir, files[i]);
        cr_assert_neq(access(path, F_OK), 0, "%s left by uninstall", path);
    }
    free(copy);
    free(root);
    free(abs);
    test_rmdir(dir);
    free(dir);
}
