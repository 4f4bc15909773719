/* Unit tests for src/lib/policy/git-state.c: what a repository the sandbox made may hold. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "lib/policy/git-state.h"

static int config(const char *text, char *reason, size_t size)
{
        return cordon_git_config_check(text, strlen(text), reason, size);
}

/* What `git init`, `git clone` and `git remote add` write passes. */
Test(git_state, git_own_configs_pass)
{
        char reason[200];
        cr_expect_eq(config("[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n"
                            "\tbare = false\n\tlogallrefupdates = true\n",
                            reason, sizeof(reason)),
                     0, "%s", reason);
        cr_expect_eq(config("[core]\n\tbare = true\n[remote \"origin\"]\n"
                            "\turl = https://example.com/r.git\n"
                            "\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
                            "[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n",
                            reason, sizeof(reason)),
                     0, "%s", reason);
        cr_expect_eq(config("# a comment\n; another\n\n[user]\n\tname = \"A B\"\r\n\temail=a@b\n"
                            "[extensions]\n\tobjectformat = sha256\n[core]\n\tbare\n",
                            reason, sizeof(reason)),
                     0, "%s", reason);
        cr_expect_eq(config("", reason, sizeof(reason)), 0);
}

/* Each key that makes git run a program, or read configuration elsewhere, is refused with its
 * line. */
Test(git_state, command_keys_refused)
{
        static const char *const bad[] = {
            "[core]\n\tfsmonitor = touch x\n",
            "[core]\n\thooksPath = /tmp/h\n",
            "[core]\n\tsshCommand = evil\n",
            "[core]\n\tpager = evil\n",
            "[core]\n\teditor = evil\n",
            "[core]\n\tgitProxy = evil\n",
            "[include]\n\tpath = /tmp/c\n",
            "[includeIf \"gitdir:/\"]\n\tpath = /tmp/c\n",
            "[alias]\n\tst = !evil\n",
            "[filter \"x\"]\n\tclean = evil\n",
            "[diff \"x\"]\n\ttextconv = evil\n",
            "[remote \"o\"]\n\tuploadpack = evil\n",
            "[remote \"o\"]\n\tvcs = evil\n",
            "[remote \"o\"]\n\turl = evil::x\n",
            "[submodule \"s\"]\n\tupdate = !evil\n",
            "[credential]\n\thelper = !evil\n",
            "[gpg]\n\tprogram = evil\n",
            "[sequence]\n\teditor = evil\n",
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
                char reason[200] = "";
                cr_expect_eq(config(bad[i], reason, sizeof(reason)), -EPERM, "%s", bad[i]);
                cr_expect(strncmp(reason, "line ", 5) == 0, "%s: %s", bad[i], reason);
        }
        char reason[200];
        config("[core]\n\tbare = false\n\tfsmonitor = touch x\n", reason, sizeof(reason));
        cr_expect_str_eq(reason, "line 3: key 'core.fsmonitor' is not one a sandbox may set");
}

/* Anything outside the strict subset of git's syntax is refused: it could hide a key. */
Test(git_state, syntax_outside_the_subset_refused)
{
        static const char *const bad[] = {
            "\tbare = true\n",                   /* a key outside any section */
            "[core] fsmonitor = x\n",            /* a key on the section's line */
            "[core.x]\n",                        /* the old subsection spelling */
            "[remote \"o\\\"x\"]\n\turl = a\n",  /* an escape in a subsection */
            "[core]\n\tbare = tr\\\nue\n",       /* a continuation line */
            "[core]\n\tbare = \"a\\\"b\"\n",     /* an escape in a value */
            "[core]\n\tbare = true # comment\n", /* an inline comment */
            "[remote]\n\turl = a\n",             /* a subsection missing */
            "[core \"x\"]\n\tbare = true\n",     /* a subsection too many */
            "[core]\n\t1bare = true\n",          /* a malformed key */
            "[core]\n\tbare true\n",             /* no equals sign */
            "[",                                 /* unterminated */
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
                char reason[200] = "";
                cr_expect_eq(config(bad[i], reason, sizeof(reason)), -EPERM, "%s", bad[i]);
        }
        char reason[200];
        cr_expect_eq(cordon_git_config_check("[core]\n\0", 8, reason, sizeof(reason)), -EPERM);
        cr_expect_str_eq(reason, "holds a NUL byte");
        static char big[CORDON_GIT_STATE_MAX + 2];
        memset(big, '#', sizeof(big) - 1);
        cr_expect_eq(config(big, reason, sizeof(reason)), -EPERM);
        /* A reason that does not fit is cut, never overrun. */
        char tiny[8];
        cr_expect_eq(config("[alias]\n", tiny, sizeof(tiny)), -EPERM);
        cr_expect_eq(strlen(tiny), sizeof(tiny) - 1);
}

Test(git_state, todo_exec_refused)
{
        char reason[200];
        const char *good = "pick 1234 one\n# exec in a comment\nfixup 5678 two\nbreak\n";
        cr_expect_eq(cordon_git_todo_check(good, strlen(good), reason, sizeof(reason)), 0);
        const char *bad[] = {"pick 1 a\nexec touch x\n", "  x touch x", "pick 1 a\r\nexec\tx\n"};
        for (size_t i = 0; i < 3; i++)
                cr_expect_eq(cordon_git_todo_check(bad[i], strlen(bad[i]), reason, sizeof(reason)),
                             -EPERM, "%s", bad[i]);
        cordon_git_todo_check(bad[0], strlen(bad[0]), reason, sizeof(reason));
        cr_expect_str_eq(reason, "line 2: 'exec' runs a command");
}

Test(git_state, writable_entries)
{
        cr_expect(cordon_git_entry_writable("objects"));
        cr_expect(cordon_git_entry_writable("index.lock"));
        cr_expect(cordon_git_entry_writable("BISECT_LOG"));
        cr_expect_not(cordon_git_entry_writable("config"));
        cr_expect_not(cordon_git_entry_writable("hooks"));
        cr_expect_not(cordon_git_entry_writable("commondir"));
        cr_expect_not(cordon_git_entry_writable(".lock"));
}
