/* Unit tests for src/lib/launch/agent-toml-child.c: agent-toml.h's functions in a confined
 * child give what they give in the caller, and a child that goes wrong is a refusal. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/launch/agent-toml-child.h"
#include "lib/policy/agent-toml.h"

static json_t *J(const char *text)
{
        json_error_t e;
        json_t *j = json_loads(text, JSON_ALLOW_NUL, &e);
        cr_assert(j, "%s: %s", text, e.text);
        return j;
}

/* The direct and the confined reading of @text (@len bytes) agree. */
static void same_to_json(const char *text, size_t len)
{
        char why_d[CORDON_AGENT_TOML_WHY_MAX] = "", why_c[CORDON_AGENT_TOML_WHY_MAX] = "";
        json_t *d = NULL, *c = NULL;
        int rd = cordon_agent_toml_to_json(text, len, &d, why_d);
        int rc = cordon_agent_toml_to_json_confined(text, len, &c, why_c);
        cr_expect_eq(rc, rd, "%.60s: %d (%s), direct %d (%s)", text, rc, why_c, rd, why_d);
        cr_expect_str_eq(why_c, why_d, "%.60s", text);
        if (rd == 0 && rc == 0) {
                char *gc = json_dumps(c, JSON_COMPACT), *gd = json_dumps(d, JSON_COMPACT);
                cr_expect(json_equal(c, d), "%.60s: %s, direct %s", text, gc, gd);
                free(gc);
                free(gd);
        }
        json_decref(d);
        json_decref(c);
}

static void same_edit(const char *host, const char *want_json)
{
        char why_d[CORDON_AGENT_TOML_WHY_MAX] = "", why_c[CORDON_AGENT_TOML_WHY_MAX] = "";
        json_t *want = J(want_json);
        char *d = NULL, *c = NULL;
        size_t ld = 0, lc = 0;
        int rd = cordon_agent_toml_edit(host, strlen(host), want, &d, &ld, why_d);
        int rc = cordon_agent_toml_edit_confined(host, strlen(host), want, &c, &lc, why_c);
        cr_expect_eq(rc, rd, "%s: %d (%s), direct %d (%s)", host, rc, why_c, rd, why_d);
        cr_expect_str_eq(why_c, why_d, "%s", host);
        if (rd == 0 && rc == 0) {
                cr_expect_eq(lc, ld);
                cr_expect_eq(strlen(c), lc);
                cr_expect_str_eq(c, d);
        }
        free(d);
        free(c);
        json_decref(want);
}

#define SAME(s) same_to_json(s, sizeof(s) - 1)

Test(agent_toml_child, to_json_same)
{
        SAME("a = 1\nb = -2.5\nc = \"x\\u00e9\\n\"\nd = true\ne = [1, [\"two\"], {k = 3}]\n"
             "[t.u]\nv = 1.0\n[[arr]]\nz = 1\n[[arr]]\nz = 2\n");
        /* Values JSON holds only as markers, floats to the last bit, a NUL in a string. */
        SAME("odt = 1979-05-27T07:32:00Z\nld = 1979-05-27\nn = nan\ni = -inf\nz = -0.0\n"
             "p = 0.1\nq = 1e300\nr = 4.9e-324\nbig = 9223372036854775807\n"
             "small = -9223372036854775808\ns = \"a\\u0000b\"\n");
        SAME("");
        /* Refusals, with their reasons. */
        SAME("a = ");
        SAME("a = 1\na = 2\n");
        SAME("a = \"\xff\"\n");
        SAME("\"k\\u0000\" = 1\n");
        SAME("a = 1\xc3\xa9\n");
        SAME("[ =\n");
        SAME("[[ =]]\n");
        char deep[512] = "a = ";
        for (int i = 0; i < 40; i++)
                strcat(deep, "[");
        for (int i = 0; i < 40; i++)
                strcat(deep, "]");
        same_to_json(deep, strlen(deep));
}

/* More than a socket's buffer each way: the parent sends and reads at once. */
Test(agent_toml_child, to_json_large)
{
        size_t n = 100000;
        char *text = malloc(n * 32);
        size_t len = 0;
        for (size_t i = 0; i < n; i++)
                len += (size_t)sprintf(text + len, "key_%zu = \"v%zu\"\n", i, i);
        same_to_json(text, len);
        free(text);
}

Test(agent_toml_child, edit_same)
{
        same_edit("# my model\nmodel = \"o3\"   # the fast one\n\n[tui]\ntheme = 'dark'\n",
                  "{\"model\":\"o4\",\"tui\":{\"theme\":\"dark\",\"n\":1}}");
        same_edit("a = 1\n[t]\nb = 2\n", "{\"a\":1}");
        same_edit("a = 1\n", "{\"a\":1,\"s\":\"x\\u0000y\",\"f\":0.1}");
        /* Refusals: -ENOTSUP with why, and -EINVAL for a text that is not TOML. */
        same_edit("notice.a = true\n", "{\"notice\":{\"a\":true,\"b\":true}}");
        same_edit("a = 1\n", "{\"a\":[null,\"12\"]}");
        same_edit("a =", "{}");
        json_t *arr = json_array();
        char *out = NULL;
        size_t len = 0;
        char why[CORDON_AGENT_TOML_WHY_MAX];
        cr_expect_eq(cordon_agent_toml_edit_confined("", 0, arr, &out, &len, why), -EINVAL);
        json_decref(arr);
}

/* The profile's overlay: set where the user's file does not set it, the rest kept; a key the
 * user set is named and keeps its value; a text that is not TOML is refused. */
Test(agent_toml_child, overlay)
{
        json_t *ov = J("{\"sandbox_mode\":\"danger-full-access\","
                       "\"features\":{\"daemon_auto_start\":false}}");
        char why[CORDON_AGENT_TOML_WHY_MAX] = "";
        char *out = NULL, **kept = NULL;
        size_t len = 0;
        const char *host = "# mine\nmodel = \"o3\"\n\n[features]\nweb_search = true\n";
        cr_assert_eq(
            cordon_agent_toml_overlay_confined(host, strlen(host), ov, &out, &len, &kept, why), 0,
            "%s", why);
        cr_expect_str_eq(out, "# mine\nmodel = \"o3\"\nsandbox_mode = \"danger-full-access\"\n\n"
                              "[features]\ndaemon_auto_start = false\nweb_search = true\n");
        cr_expect_eq(strlen(out), len);
        cr_expect_null(kept);
        free(out);
        out = NULL;
        host = "sandbox_mode = \"read-only\"\n";
        cr_assert_eq(
            cordon_agent_toml_overlay_confined(host, strlen(host), ov, &out, &len, &kept, why), 0,
            "%s", why);
        cr_expect_str_eq(out,
                         "sandbox_mode = \"read-only\"\n\n[features]\ndaemon_auto_start = false\n");
        cr_assert_not_null(kept);
        cr_expect_str_eq(kept[0], "sandbox_mode");
        cr_expect_null(kept[1]);
        free(out);
        out = NULL;
        cr_expect_eq(cordon_agent_toml_overlay_confined("x = ", 4, ov, &out, &len, &kept, why),
                     -EINVAL);
        cr_expect_null(out);
        cr_expect(strstr(why, "line 1") != NULL, "%s", why);
        for (char **k = kept; k && *k; k++)
                free(*k);
        free(kept);
        json_decref(ov);
}

static void try_open(bool filtered)
{
        if (filtered)
                (void)open("/etc/hostname", O_RDONLY | O_CLOEXEC);
}

/* A call outside the filter kills the child: a refusal that says so, nothing returned. */
Test(agent_toml_child, forbidden_call_kills)
{
        cordon_agent_toml_child_test_hook = try_open;
        char why[CORDON_AGENT_TOML_WHY_MAX] = "";
        json_t *j = NULL;
        cr_expect_eq(cordon_agent_toml_to_json_confined("a = 1\n", 6, &j, why), -EINVAL);
        cr_expect_null(j);
        cr_expect(strstr(why, "killed by signal") && strstr(why, "seccomp"), "%s", why);
        json_t *want = J("{\"a\":2}");
        char *out = NULL;
        size_t len = 0;
        cr_expect_eq(cordon_agent_toml_edit_confined("a = 1\n", 6, want, &out, &len, why), -EINVAL);
        cr_expect_null(out);
        cr_expect(strstr(why, "killed by signal"), "%s", why);
        json_decref(want);
        cordon_agent_toml_child_test_hook = NULL;
}

/* Before its filter, the child holds descriptor 0 (its socket) and nothing else, whatever the
 * caller had open: it exits with 3 otherwise, which the parent reports. */
static void check_fds(bool filtered)
{
        if (filtered)
                return;
        for (int fd = 1; fd < 1024; fd++)
                if (fcntl(fd, F_GETFD) >= 0)
                        _exit(3);
        if (fcntl(0, F_GETFD) < 0)
                _exit(3);
}

static void exit_3(bool filtered)
{
        if (!filtered)
                _exit(3);
}

Test(agent_toml_child, no_fd_leaks)
{
        int keep = open("/dev/null", O_RDONLY); /* inherited, were it not closed */
        cr_assert_geq(keep, 0);
        int p[2];
        cr_assert_eq(pipe(p), 0);
        char why[CORDON_AGENT_TOML_WHY_MAX] = "";
        json_t *j = NULL;
        cordon_agent_toml_child_test_hook = exit_3;
        cr_expect_eq(cordon_agent_toml_to_json_confined("a = 1\n", 6, &j, why), -EINVAL);
        cr_expect(strstr(why, "exit status 3"), "%s", why);
        cordon_agent_toml_child_test_hook = check_fds;
        cr_expect_eq(cordon_agent_toml_to_json_confined("a = 1\n", 6, &j, why), 0, "%s", why);
        json_decref(j);
        cordon_agent_toml_child_test_hook = NULL;
        close(keep);
        close(p[0]);
        close(p[1]);
}
