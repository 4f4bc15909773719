/* cordon_blocked_refusal(): the refusal over BLOCKED_FILES entries that cannot be protected names
 * every entry, the variable and the fix (the commands, shell-quoted), and still names every path
 * when the full text does not fit. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cordon/cordon.h"
#include "lib/resolve/blocked-refusal.h"

static struct cordon_diag diag;

Test(blocked_refusal, one_entry_with_its_commands)
{
        const struct cordon_blocked_failure f = {
            .path = "/etc/cordon-x/a",
            .origin = "--mask",
            .why = "cannot create '/etc/cordon-x' in '/etc': Permission denied",
            .creatable = true,
            .parent_missing = true,
        };
        cr_assert_eq(cordon_blocked_refusal(&diag, -EACCES, &f, 1), -EACCES);
        cr_assert_str_eq(diag.message,
                         "cannot protect BLOCKED_FILES entry '/etc/cordon-x/a' (from --mask): "
                         "cannot create '/etc/cordon-x' in '/etc': Permission denied; refusing to "
                         "run with it unprotected (remove it from BLOCKED_FILES, or create it once "
                         "outside the sandbox, as a user who may write there: mkdir -p "
                         "/etc/cordon-x && touch /etc/cordon-x/a)");
}

/* Commands only for the entries creating would fix; a path with spaces or quotes is quoted. */
Test(blocked_refusal, commands_for_the_creatable_ones_quoted)
{
        const struct cordon_blocked_failure f[] = {
            {.path = "/p/f1/x", .origin = "a.conf:1", .why = "Not a directory"},
            {.path = "/ro/it's here",
             .origin = "a.conf:2",
             .why = "Read-only file system",
             .creatable = true},
        };
        cordon_blocked_refusal(&diag, -ENOTDIR, f, 2);
        cr_assert(strstr(diag.message, "cannot protect 2 BLOCKED_FILES entries: '/p/f1/x' (from "
                                       "a.conf:1): Not a directory; '/ro/it's here' (from "
                                       "a.conf:2): Read-only file system; refusing to run with "
                                       "them unprotected (remove them from BLOCKED_FILES, or "
                                       "create it once outside the sandbox, as a user who may "
                                       "write there: touch '/ro/it'\\''s here')"),
                  "%s", diag.message);
}

/* Many entries: the reasons, then the origins, then the commands give way; every path stays
 * named as long as the paths alone fit, and beyond that a count of the rest. */
Test(blocked_refusal, every_path_named_when_the_text_is_long)
{
        struct cordon_blocked_failure f[12];
        char paths[12][64];
        for (int i = 0; i < 12; i++) {
                snprintf(paths[i], sizeof(paths[i]), "/etc/cordon-refusal-test-%02d/file", i);
                f[i] = (struct cordon_blocked_failure){
                    .path = paths[i],
                    .origin = "/home/someone/.config/cordon/conf.d/50-project.conf:12",
                    .why = "cannot create '/etc/cordon-refusal-test' in '/etc': Permission denied",
                    .creatable = true,
                    .parent_missing = true};
        }
        cordon_blocked_refusal(&diag, -EACCES, f, 12);
        cr_assert_lt(strlen(diag.message), sizeof(diag.message));
        for (int i = 0; i < 12; i++)
                cr_assert(strstr(diag.message, paths[i]), "%s missing: %s", paths[i], diag.message);
        cr_assert(strstr(diag.message, "BLOCKED_FILES"), "%s", diag.message);
        cr_assert(strstr(diag.message, "remove them from BLOCKED_FILES"), "%s", diag.message);

        struct cordon_blocked_failure many[200];
        char long_paths[200][64];
        for (int i = 0; i < 200; i++) {
                snprintf(long_paths[i], sizeof(long_paths[i]), "/etc/cordon-refusal-%03d/x", i);
                many[i] = f[0];
                many[i].path = long_paths[i];
        }
        cordon_blocked_refusal(&diag, -EACCES, many, 200);
        cr_assert(strstr(diag.message, "cannot protect 200 BLOCKED_FILES entries: "), "%s",
                  diag.message);
        cr_assert(strstr(diag.message, "more; refusing to run with them unprotected (remove them "
                                       "from BLOCKED_FILES, or create each once outside the "
                                       "sandbox, as a user who may write there: mkdir -p DIR && "
                                       "touch FILE)"),
                  "%s", diag.message);
}

Test(blocked_refusal, no_diag)
{
        const struct cordon_blocked_failure f = {.path = "/x"};
        cr_assert_eq(cordon_blocked_refusal(NULL, -EACCES, &f, 1), -EACCES);
}
