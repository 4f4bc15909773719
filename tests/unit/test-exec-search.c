/* Unit tests for the supervisor side of src/lib/launch/exec-search.c: where a command is on the
 * host, and the #! line of a script. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/launch/exec-search.h"
#include "shared/macro.h"

static int shebang(const char *text, char **interp, char **arg)
{
        *interp = *arg = NULL;
        return cordon_exec_parse_shebang(text, strlen(text), interp, arg);
}

Test(exec_search, parse_shebang)
{
        char *i = NULL, *a = NULL;
        cr_assert_eq(shebang("#!/usr/bin/env node\nrest", &i, &a), 0);
        cr_assert_str_eq(i, "/usr/bin/env");
        cr_assert_str_eq(a, "node");
        free(i);
        free(a);
        cr_assert_eq(shebang("#! /home/u/.pyenv/versions/3.12.1/bin/python3 \r\n", &i, &a), 0);
        cr_assert_str_eq(i, "/home/u/.pyenv/versions/3.12.1/bin/python3");
        cr_assert_null(a);
        free(i);
        cr_assert_eq(shebang("#!/bin/sh -e -u\n", &i, &a), 0);
        cr_assert_str_eq(a, "-e -u", "the rest of the line is one argument");
        free(i);
        free(a);
        cr_assert_eq(shebang("#!/bin/sh", &i, &a), -ENOEXEC, "no end of line");
        cr_assert_eq(shebang("#!\n", &i, &a), -ENOEXEC);
        cr_assert_eq(shebang("#! \t\n", &i, &a), -ENOEXEC);
        cr_assert_eq(shebang("\x7f"
                             "ELF",
                             &i, &a),
                     -ENOEXEC);
        cr_assert_eq(shebang("", &i, &a), -ENOEXEC);
}

static char dir[] = "/tmp/cordon-test-exec-XXXXXX";

static void make(const char *name, const char *text, mode_t mode)
{
        char path[256];
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        FILE *f = fopen(path, "we");
        cr_assert_not_null(f);
        fputs(text, f);
        cr_assert_eq(fclose(f), 0);
        cr_assert_eq(chmod(path, mode), 0);
}

Test(exec_search, find_host)
{
        cr_assert_not_null(mkdtemp(dir));
        char sub[256], path[600], *found = NULL;
        snprintf(sub, sizeof(sub), "%s/bin", dir);
        cr_assert_eq(mkdir(sub, 0755), 0);
        make("bin/tool", "#!/bin/sh\n", 0755);
        make("plain", "data\n", 0644);
        make("bin/plain", "#!/bin/sh\n", 0755);
        snprintf(path, sizeof(path), "relative:%s:%s/bin", dir, dir);
        cr_assert_eq(cordon_exec_find_host("tool", path, &found), 0);
        cr_assert_eq(strcmp(found + strlen(dir), "/bin/tool"), 0);
        free(found);
        cr_assert_eq(cordon_exec_find_host("plain", path, &found), 0,
                     "a file that is not executable is passed over");
        cr_assert_eq(strcmp(found + strlen(dir), "/bin/plain"), 0);
        free(found);
        cr_assert_eq(cordon_exec_find_host("missing", path, &found), -ENOENT);
        cr_assert_eq(cordon_exec_find_host("bin", path, &found), -ENOENT, "not a directory");
        cr_assert_eq(cordon_exec_find_host("", path, &found), -ENOENT);
        cr_assert_eq(cordon_exec_find_host("tool", "", &found), -ENOENT);
        cr_assert_eq(cordon_exec_find_host("tool", NULL, &found), -ENOENT);
        cr_assert_eq(cordon_exec_find_host("bin/tool", dir, &found), -ENOENT,
                     "a relative path names the sandbox's working directory");
        snprintf(path, sizeof(path), "%s/bin/tool", dir);
        cr_assert_eq(cordon_exec_find_host(path, NULL, &found), 0);
        cr_assert_str_eq(found, path);
        free(found);

        char *i = NULL, *a = NULL;
        cr_assert_eq(cordon_exec_read_shebang(path, &i, &a), 0);
        cr_assert_str_eq(i, "/bin/sh");
        free(i);
        cr_assert_eq(cordon_exec_read_shebang(sub, &i, &a), -ENOEXEC, "a directory");
        snprintf(path, sizeof(path), "%s/fifo", dir);
        cr_assert_eq(mkfifo(path, 0600), 0);
        cr_assert_eq(cordon_exec_read_shebang(path, &i, &a), -ENOEXEC, "a FIFO is not read");
        cr_assert_eq(system((snprintf(path, sizeof(path), "rm -rf '%s'", dir), path)), 0);
}
