/* Fuzz target for src/lib/policy/git-state.c: the input as a git configuration file and as a
 * todo list. Checks: results are the documented ones; a refusal always has a reason and the
 * reason is a NUL-terminated string within its buffer; an accepted configuration has no
 * line that starts with a key git reads as a command (a cheap second opinion on the allow
 * list). */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "fuzz.h"
#include "lib/policy/git-state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        const char *text = (const char *)data;
        char reason[64];
        memset(reason, 'x', sizeof(reason));
        int r = cordon_git_config_check(text, size, reason, sizeof(reason));
        FUZZ_CHECK(r == 0 || r == -EPERM);
        FUZZ_CHECK(memchr(reason, 0, sizeof(reason)) != NULL);
        FUZZ_CHECK(r == 0 ? reason[0] == 0 : reason[0] != 0);
        if (r == 0) {
                static const char *const never[] = {"fsmonitor", "hookspath", "sshcommand", "pager",
                                                    "editor",    "path",      "helper"};
                for (size_t at = 0; at < size;) {
                        const char *nl = memchr(text + at, '\n', size - at);
                        size_t n = nl ? (size_t)(nl - (text + at)) : size - at;
                        const char *s = text + at;
                        while (n && (*s == ' ' || *s == '\t'))
                                s++, n--;
                        for (size_t i = 0; i < sizeof(never) / sizeof(*never); i++) {
                                size_t k = strlen(never[i]);
                                FUZZ_CHECK(
                                    !(n >= k && strncasecmp(s, never[i], k) == 0 &&
                                      (n == k || s[k] == ' ' || s[k] == '\t' || s[k] == '=')));
                        }
                        at += (nl ? (size_t)(nl - (text + at)) + 1 : size - at);
                }
        }
        memset(reason, 'x', sizeof(reason));
        r = cordon_git_todo_check(text, size, reason, sizeof(reason));
        FUZZ_CHECK(r == 0 || r == -EPERM);
        FUZZ_CHECK(memchr(reason, 0, sizeof(reason)) != NULL);
        FUZZ_CHECK(r == 0 ? reason[0] == 0 : reason[0] != 0);
        return 0;
}
