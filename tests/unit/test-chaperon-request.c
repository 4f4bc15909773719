/* Unit tests for a stub's request as the chaperon parses it (src/slurm/chaperon-request.c): a
 * good request, every malformed shape refused with -EBADMSG (not an object, a key too many or
 * missing, argv empty, not an array, with a non-string, a NUL, too many or too long arguments,
 * a command that is none of Slurm's, a relative cwd, one with a NUL), the environment filtered
 * to the allowed names with short string values, and the size limit. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/slurm/slurm-names.h"
#include "lib/slurm/slurm-submit.h"
#include "shared/macro.h"
#include "shared/strv.h"
#include "slurm/chaperon.h"

static struct chaperon_request q;

static void clear_request(void)
{
        chaperon_request_clear(&q);
}

TestSuite(chaperon_request, .fini = clear_request);

static int parse(const char *text)
{
        chaperon_request_clear(&q);
        return chaperon_request_parse(text, strlen(text), &q);
}

static void refused(const char *text)
{
        int r = parse(text);
        cr_assert_eq(r, -EBADMSG, "%s: %d", text, r);
        /* Nothing is handed out with a refusal. */
        cr_assert_null(q.argv);
        cr_assert_null(q.cwd);
        cr_assert_null(q.envp);
}

static void parsed(const char *text)
{
        int r = parse(text);
        cr_assert_eq(r, 0, "%s: %d", text, r);
        cr_assert_not_null(q.argv);
        cr_assert_not_null(q.cwd);
}

Test(chaperon_request, good_request)
{
        parsed("{\"argv\": [\"sbatch\", \"--wrap\", \"echo hi\", \"\"], \"cwd\": \"/home/u/proj\","
               " \"env\": {\"LANG\": \"C.UTF-8\", \"COLUMNS\": \"120\"}}");
        cr_assert_eq(strv_length(q.argv), 4);
        cr_assert_str_eq(q.argv[0], "sbatch");
        cr_assert_str_eq(q.argv[1], "--wrap");
        cr_assert_str_eq(q.argv[2], "echo hi");
        cr_assert_str_eq(q.argv[3], "", "an empty argument is an argument");
        cr_assert_str_eq(q.cwd, "/home/u/proj");
        cr_assert_eq(strv_length(q.envp), 2);
        cr_assert(strv_contains(q.envp, "LANG=C.UTF-8"));
        cr_assert(strv_contains(q.envp, "COLUMNS=120"));

        /* The keys in any order, an empty environment. */
        parsed("{\"env\": {}, \"cwd\": \"/\", \"argv\": [\"squeue\"]}");
        cr_assert_eq(strv_length(q.argv), 1);
        cr_assert_str_eq(q.argv[0], "squeue");
        cr_assert_str_eq(q.cwd, "/");
        cr_assert_null(q.envp, "no variable, no list");
}

Test(chaperon_request, every_command_name_is_taken)
{
        size_t n = 0;
        for (const char *const *c = cordon_slurm_command_names(); *c; c++, n++) {
                char text[256];
                snprintf(text, sizeof(text), "{\"argv\": [\"%s\"], \"cwd\": \"/\", \"env\": {}}",
                         *c);
                parsed(text);
                cr_assert_str_eq(q.argv[0], *c);
                cr_assert_eq(chaperon_request_command(*c), *c, "the registry's own spelling");
        }
        cr_assert_geq(n, 11);
        cr_assert_null(chaperon_request_command(NULL));
        cr_assert_null(chaperon_request_command("sh"));
        cr_assert_null(chaperon_request_command("SBATCH"));
        cr_assert_null(chaperon_request_command("/usr/bin/sbatch"), "a name, not a path");
}

Test(chaperon_request, not_an_object)
{
        refused("");
        refused("[\"sbatch\"]");
        refused("\"sbatch\"");
        refused("null");
        refused("42");
        refused("{\"argv\": [\"sbatch\"], \"cwd\": \"/\", \"env\": {}");
        refused("{\"argv\": [\"sbatch\"], \"cwd\": \"/\", \"env\": {}} trailing");
}

Test(chaperon_request, keys_exactly_the_three)
{
        refused("{\"argv\": [\"sbatch\"], \"cwd\": \"/\", \"env\": {}, \"uid\": 0}");
        refused("{\"argv\": [\"sbatch\"], \"cwd\": \"/\"}");
        refused("{\"argv\": [\"sbatch\"], \"env\": {}}");
        refused("{\"cwd\": \"/\", \"env\": {}}");
        refused("{}");
        /* A duplicate key is no way to a fourth one or to two meanings of one. */
        refused("{\"argv\": [\"sbatch\"], \"cwd\": \"/\", \"cwd\": \"/etc\", \"env\": {}}");
        /* Right count, wrong name. */
        refused("{\"argv\": [\"sbatch\"], \"cwd\": \"/\", \"envp\": {}}");
}

Test(chaperon_request, argv_shapes)
{
        refused("{\"argv\": [], \"cwd\": \"/\", \"env\": {}}");
        refused("{\"argv\": \"sbatch\", \"cwd\": \"/\", \"env\": {}}");
        refused("{\"argv\": {\"0\": \"sbatch\"}, \"cwd\": \"/\", \"env\": {}}");
        refused("{\"argv\": null, \"cwd\": \"/\", \"env\": {}}");
        refused("{\"argv\": [\"sbatch\", 1], \"cwd\": \"/\", \"env\": {}}");
        refused("{\"argv\": [\"sbatch\", null], \"cwd\": \"/\", \"env\": {}}");
        refused("{\"argv\": [\"sbatch\", [\"x\"]], \"cwd\": \"/\", \"env\": {}}");
        refused("{\"argv\": [1], \"cwd\": \"/\", \"env\": {}}");
        /* A NUL would cut the argument short where the real command reads it. */
        refused("{\"argv\": [\"sbatch\", \"--wrap=a\\u0000b\"], \"cwd\": \"/\", \"env\": {}}");
        refused("{\"argv\": [\"sbatch\\u0000\"], \"cwd\": \"/\", \"env\": {}}");
        /* Positive control: the same without the NUL. */
        parsed("{\"argv\": [\"sbatch\", \"--wrap=ab\"], \"cwd\": \"/\", \"env\": {}}");
}

Test(chaperon_request, unknown_command)
{
        refused("{\"argv\": [\"sh\", \"-c\", \"id\"], \"cwd\": \"/\", \"env\": {}}");
        refused("{\"argv\": [\"/usr/bin/sbatch\"], \"cwd\": \"/\", \"env\": {}}");
        refused("{\"argv\": [\"sbatch \"], \"cwd\": \"/\", \"env\": {}}");
        refused("{\"argv\": [\"\"], \"cwd\": \"/\", \"env\": {}}");
        refused("{\"argv\": [\"Sbatch\"], \"cwd\": \"/\", \"env\": {}}");
}

Test(chaperon_request, cwd_shapes)
{
        refused("{\"argv\": [\"sbatch\"], \"cwd\": \"proj\", \"env\": {}}");
        refused("{\"argv\": [\"sbatch\"], \"cwd\": \"\", \"env\": {}}");
        refused("{\"argv\": [\"sbatch\"], \"cwd\": \"./x\", \"env\": {}}");
        refused("{\"argv\": [\"sbatch\"], \"cwd\": null, \"env\": {}}");
        refused("{\"argv\": [\"sbatch\"], \"cwd\": 1, \"env\": {}}");
        refused("{\"argv\": [\"sbatch\"], \"cwd\": [\"/\"], \"env\": {}}");
        refused("{\"argv\": [\"sbatch\"], \"cwd\": \"/tmp\\u0000/etc\", \"env\": {}}");
        parsed("{\"argv\": [\"sbatch\"], \"cwd\": \"/tmp/etc\", \"env\": {}}");
        cr_assert_str_eq(q.cwd, "/tmp/etc");
}

Test(chaperon_request, env_not_an_object)
{
        refused("{\"argv\": [\"sbatch\"], \"cwd\": \"/\", \"env\": []}");
        refused("{\"argv\": [\"sbatch\"], \"cwd\": \"/\", \"env\": [\"LANG=C\"]}");
        refused("{\"argv\": [\"sbatch\"], \"cwd\": \"/\", \"env\": \"LANG=C\"}");
        refused("{\"argv\": [\"sbatch\"], \"cwd\": \"/\", \"env\": null}");
}

Test(chaperon_request, env_filtered)
{
        static const char *const allowed[] = {"LANG",        "LC_ALL",  "LC_CTYPE",
                                              "LC_MESSAGES", "LC_TIME", "LC_NUMERIC",
                                              "TZ",          "TERM",    "COLUMNS"};
        parsed("{\"argv\": [\"squeue\"], \"cwd\": \"/\", \"env\": {"
               "\"LANG\": \"C\", \"LC_ALL\": \"C\", \"LC_CTYPE\": \"C\", \"LC_MESSAGES\": \"C\","
               " \"LC_TIME\": \"C\", \"LC_NUMERIC\": \"C\", \"TZ\": \"UTC\", \"TERM\": \"xterm\","
               " \"COLUMNS\": \"80\","
               /* what would steer the real command or the chaperon: dropped */
               " \"PATH\": \"/tmp/evil\", \"LD_PRELOAD\": \"/tmp/evil.so\","
               " \"SLURM_CONF\": \"/tmp/slurm.conf\", \"SQUEUE_FORMAT\": \"%i\","
               " \"HOME\": \"/tmp\", \"lang\": \"C\", \"LANG \": \"C\", \"LC_\": \"C\","
               " \"\": \"x\"}}");
        cr_assert_eq(strv_length(q.envp), ELEMENTSOF(allowed), "only the allowed names");
        for (size_t i = 0; i < ELEMENTSOF(allowed); i++) {
                bool found = false;
                STRV_FOREACH (e, q.envp)
                        found = found || (strncmp(*e, allowed[i], strlen(allowed[i])) == 0 &&
                                          (*e)[strlen(allowed[i])] == '=');
                cr_assert(found, "%s kept", allowed[i]);
        }
        cr_assert(strv_contains(q.envp, "TZ=UTC"));
        cr_assert(strv_contains(q.envp, "TERM=xterm"));
}

Test(chaperon_request, env_values_checked)
{
        char v256[257], v257[258];
        memset(v256, 'x', 256);
        v256[256] = 0;
        memset(v257, 'y', 257);
        v257[257] = 0;
        char text[1024];
        snprintf(text, sizeof(text),
                 "{\"argv\": [\"squeue\"], \"cwd\": \"/\", \"env\": {\"TERM\": \"%s\","
                 " \"COLUMNS\": \"%s\", \"LANG\": 1, \"LC_ALL\": null, \"TZ\": [\"UTC\"],"
                 " \"LC_TIME\": {}, \"LC_CTYPE\": \"\"}}",
                 v256, v257);
        parsed(text);
        /* TERM at the limit is kept, COLUMNS over it dropped; non-strings dropped; an empty
         * string is a value. The request itself stands. */
        cr_assert_eq(strv_length(q.envp), 2, "%s", q.envp ? q.envp[0] : "(none)");
        char want[300];
        snprintf(want, sizeof(want), "TERM=%s", v256);
        cr_assert(strv_contains(q.envp, want));
        cr_assert(strv_contains(q.envp, "LC_CTYPE="));
        cr_assert_str_eq(q.argv[0], "squeue");

        /* A value with a NUL is not cut into a shorter one: dropped. */
        parsed("{\"argv\": [\"squeue\"], \"cwd\": \"/\", \"env\": {\"TERM\": \"xterm\"}}");
        cr_assert(strv_contains(q.envp, "TERM=xterm"));
        int r =
            parse("{\"argv\": [\"squeue\"], \"cwd\": \"/\", \"env\": {\"TERM\": \"x\\u0000y\"}}");
        cr_assert(r == -EBADMSG || (r == 0 && !q.envp), "%d", r);
}

/* A request with @n arguments of @size bytes each after the command. */
static char *many_args(size_t n, size_t size)
{
        size_t cap = 64 + n * (size + 4);
        char *t = malloc(cap);
        cr_assert_not_null(t);
        char *w = t + sprintf(t, "{\"cwd\": \"/\", \"env\": {}, \"argv\": [\"srun\"");
        for (size_t i = 0; i < n; i++) {
                *w++ = ',';
                *w++ = '"';
                memset(w, 'a', size);
                w += size;
                *w++ = '"';
        }
        strcpy(w, "]}");
        return t;
}

Test(chaperon_request, argument_count_limit)
{
        _cleanup_free_ char *at = many_args(CORDON_SLURM_MAX_ARGS - 1, 1);
        _cleanup_free_ char *over = many_args(CORDON_SLURM_MAX_ARGS, 1);
        parsed(at);
        cr_assert_eq(strv_length(q.argv), CORDON_SLURM_MAX_ARGS);
        refused(over);
}

Test(chaperon_request, argument_size_limit)
{
        _cleanup_free_ char *at = many_args(1, CORDON_SLURM_MAX_ARG_SIZE);
        _cleanup_free_ char *over = many_args(1, CORDON_SLURM_MAX_ARG_SIZE + 1);
        parsed(at);
        cr_assert_eq(strlen(q.argv[1]), CORDON_SLURM_MAX_ARG_SIZE);
        refused(over);
}

Test(chaperon_request, text_size_limit)
{
        /* A valid request padded with whitespace past the limit: refused for its size alone. */
        const char *req = "{\"argv\": [\"sinfo\"], \"cwd\": \"/\", \"env\": {}}";
        size_t len = CORDON_CHAPERON_REQUEST_MAX + 1;
        _cleanup_free_ char *text = malloc(len);
        cr_assert_not_null(text);
        memset(text, ' ', len);
        memcpy(text, req, strlen(req));
        cr_assert_eq(chaperon_request_parse(text, len, &q), -EBADMSG);
        cr_assert_null(q.argv);
        /* Positive control: at the limit it parses. */
        cr_assert_eq(chaperon_request_parse(text, len - 1, &q), 0);
        cr_assert_str_eq(q.argv[0], "sinfo");
}

Test(chaperon_request, length_not_nul_terminated)
{
        /* Only @len bytes are read: a request cut short is refused, not read on. */
        const char *full = "{\"argv\": [\"sinfo\"], \"cwd\": \"/\", \"env\": {}}";
        cr_assert_eq(chaperon_request_parse(full, strlen(full) - 1, &q), -EBADMSG);
        cr_assert_eq(chaperon_request_parse(full, strlen(full), &q), 0);
}
