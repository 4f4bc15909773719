/* Unit tests for src/lib/policy/agent-toml.cc: codex's config.toml read as JSON, and the host's
 * text edited in place after the allow list (agent-json.c) has decided what flows back. */
#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lib/policy/agent-json.h"
#include "lib/policy/agent-toml.h"
#include "shared/strv.h"

static json_t *J(const char *text)
{
        json_error_t e;
        json_t *j = json_loads(text, 0, &e);
        cr_assert(j, "%s: %s", text, e.text);
        return j;
}

static json_t *T(const char *text)
{
        json_t *j = NULL;
        char why[CORDON_AGENT_TOML_WHY_MAX];
        int r = cordon_agent_toml_to_json(text, strlen(text), &j, why);
        cr_assert_eq(r, 0, "%s: %d %s", text, r, why);
        return j;
}

static void expect_json(json_t *got, const char *want)
{
        json_t *w = J(want);
        char *g = json_dumps(got, JSON_COMPACT | JSON_ENCODE_ANY);
        cr_expect(json_equal(got, w), "got %s, want %s", g, want);
        free(g);
        json_decref(w);
}

static char **P(const char *first, ...)
{
        char **l = NULL;
        va_list ap;
        va_start(ap, first);
        for (const char *p = first; p; p = va_arg(ap, const char *))
                cr_assert_geq(strv_extend(&l, p), 0);
        va_end(ap);
        return l;
}

/* Host @host edited to read as JSON @want: the text, or NULL with @why set (-errno in *@r). */
static char *edit(const char *host, json_t *want, int *r, char *why)
{
        char *out = NULL;
        size_t len = 0;
        *r = cordon_agent_toml_edit(host, strlen(host), want, &out, &len, why);
        if (*r == 0)
                cr_expect_eq(strlen(out), len);
        return out;
}

static void expect_edit(const char *host, const char *want_json, const char *want_text)
{
        char why[CORDON_AGENT_TOML_WHY_MAX] = "";
        json_t *want = J(want_json);
        int r;
        char *out = edit(host, want, &r, why);
        cr_assert_eq(r, 0, "edit of <<%s>> refused: %d %s", host, r, why);
        cr_expect_str_eq(out, want_text);
        free(out);
        json_decref(want);
}

static void expect_refused(const char *host, const char *want_json, const char *why_has)
{
        char why[CORDON_AGENT_TOML_WHY_MAX] = "";
        json_t *want = J(want_json);
        int r;
        char *out = edit(host, want, &r, why);
        cr_expect_eq(r, -ENOTSUP, "edit of <<%s>>: %d, %s", host, r, out ? out : "");
        cr_expect(strstr(why, why_has), "why: %s (want %s)", why, why_has);
        free(out);
        json_decref(want);
}

/* The whole write-back as agent-home.c does it: base, final and host texts, the allow list. */
static char *writeback(const char *base, const char *final, const char *host, char **patterns,
                       struct cordon_agent_json_result *res, int *r, char *why)
{
        json_t *b = T(base), *f = T(final), *h = T(host);
        cr_assert_eq(cordon_agent_json_writeback(b, f, h, patterns, "/home/u/p", res), 0);
        char *out = edit(host, h, r, why);
        json_decref(b);
        json_decref(f);
        json_decref(h);
        return out;
}

Test(agent_toml, to_json)
{
        json_t *j =
            T("a = 1\nb = -2.5\nc = \"x\\u00e9\\n\"\nd = true\ne = [1, [\"two\"], {k = 3}]\n"
              "f = 'lit'\ng = \"\"\"\nmulti\"\"\"\nh = 0x10\n"
              "[t.u]\nv = 1.0\n[[arr]]\nz = 1\n[[arr]]\nz = 2\n");
        expect_json(j, "{\"a\":1,\"b\":-2.5,\"c\":\"x\\u00e9\\n\",\"d\":true,"
                       "\"e\":[1,[\"two\"],{\"k\":3}],\"f\":\"lit\",\"g\":\"multi\",\"h\":16,"
                       "\"t\":{\"u\":{\"v\":1.0}},\"arr\":[{\"z\":1},{\"z\":2}]}");
        json_decref(j);
        /* What JSON cannot hold: [null, TEXT], which no TOML value reads as. */
        j = T("odt = 1979-05-27T07:32:00Z\noff = 1979-05-27 00:32:00.5-07:00\nldt = "
              "1979-05-27T07:32:00\nld = 1979-05-27\nlt = 00:32:00.999\nn = nan\ni = -inf\n");
        expect_json(j,
                    "{\"odt\":[null,\"1979-05-27T07:32:00Z\"],"
                    "\"off\":[null,\"1979-05-27T00:32:00.5-07:00\"],"
                    "\"ldt\":[null,\"1979-05-27T07:32:00\"],\"ld\":[null,\"1979-05-27\"],"
                    "\"lt\":[null,\"00:32:00.999\"],\"n\":[null,\"nan\"],\"i\":[null,\"-inf\"]}");
        json_decref(j);
        j = T("");
        expect_json(j, "{}");
        json_decref(j);
}

Test(agent_toml, to_json_refusals)
{
        char why[CORDON_AGENT_TOML_WHY_MAX];
        json_t *j = NULL;
        /* Among them a letter where whitespace may be (toml++ 3.3's own test for it reached
         * __builtin_unreachable(): agent-toml.cc replaces it), and headers without a key (they
         * failed an assertion of its parser: agent-toml.cc makes them throw, and refuses). */
        const char *bad[] = {"a = ", "a = 1\na = 2\n", "[a]\n[a]\n", "a = \"\xff\"\n",
                             "\"k\\u0000\" = 1\n", "a = 1\xc3\xa9\n", "a = 00:00:00\xd0\x96\n",
                             "a = true\xe3\x80\x81\n", "a = 1\xef\xbc\x81\n",
                             /* and toml++'s own assertions, which throw inside */
                             "[ =\n", "[\n", "[[ =]]\n"};
        for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
                cr_expect_eq(cordon_agent_toml_to_json(bad[i], strlen(bad[i]), &j, why), -EINVAL,
                             "%s", bad[i]);
                cr_expect_neq(why[0], 0);
                for (const char *c = why; *c; c++)
                        cr_expect((unsigned char)*c >= ' ' && (unsigned char)*c < 0x7f);
        }
        /* Tables nested too deeply, by headers or by inline tables and arrays. */
        char deep[4096] = "[a";
        for (int i = 0; i < 60; i++)
                strcat(deep, ".a");
        strcat(deep, "]\n");
        cr_expect_eq(cordon_agent_toml_to_json(deep, strlen(deep), &j, why), -EINVAL);
        cr_expect(strstr(why, "nests deeper"), "%s", why);
        strcpy(deep, "a = ");
        for (int i = 0; i < 40; i++)
                strcat(deep, "[");
        for (int i = 0; i < 40; i++)
                strcat(deep, "]");
        cr_expect_eq(cordon_agent_toml_to_json(deep, strlen(deep), &j, why), -EINVAL);
        /* A key of thousands of segments is refused before the parser builds its tables. */
        size_t n = 200000;
        char *huge = malloc(2 * n + 8);
        strcpy(huge, "[a");
        for (size_t i = 0; i < n; i++)
                strcat(huge + 2 * i, ".a");
        strcat(huge, "]");
        cr_expect_eq(cordon_agent_toml_to_json(huge, strlen(huge), &j, why), -EINVAL);
        cr_expect(strstr(why, "dots"), "%s", why);
        free(huge);
}

/* A changed value: its text only, the comment after it and every other byte kept. */
Test(agent_toml, edit_replace)
{
        expect_edit("# my model\nmodel = \"o3\"   # the fast one\n\n[tui]\ntheme = 'dark'\n",
                    "{\"model\":\"gpt-5\",\"tui\":{\"theme\":\"dark\"}}",
                    "# my model\nmodel = \"gpt-5\"   # the fast one\n\n[tui]\ntheme = 'dark'\n");
        /* Columns count code points: the span after a multi-byte key is found. */
        expect_edit("\"é\" = 1 # x\n", "{\"\\u00e9\":2}", "\"é\" = 2 # x\n");
        /* A value of another type, an inline table and a multi-line array replaced whole. */
        expect_edit("a = [\n  1, # one\n  2,\n] # list\nb = { x = 1 }\nc = 1\n",
                    "{\"a\":[3],\"b\":{\"x\":1,\"y\":\"q\\\"\"},\"c\":{\"d\":[1.5]}}",
                    "a = [3] # list\nb = { x = 1, y = \"q\\\"\" }\nc = { d = [1.5] }\n");
        /* A date stays a date (its marker), a forged one is refused by the check. */
        expect_edit("d = 1979-05-27\n", "{\"d\":[null,\"2024-01-02T03:04:05Z\"]}",
                    "d = 2024-01-02T03:04:05Z\n");
        /* A byte order mark and CRLF lines. */
        expect_edit("\xef\xbb\xbf"
                    "a = 1\r\n[t]\r\nb = 2\r\n",
                    "{\"a\":1,\"t\":{\"b\":3}}",
                    "\xef\xbb\xbf"
                    "a = 1\r\n[t]\r\nb = 3\r\n");
}

Test(agent_toml, edit_add_under_header)
{
        expect_edit(
            "[notice]  # acknowledgements\nhide_full_access_warning = true\n\n[x]\ny = 1\n",
            "{\"notice\":{\"hide_full_access_warning\":true,\"hide_rate_limit_model_nudge\":"
            "true},\"x\":{\"y\":1}}",
            "[notice]  # acknowledgements\nhide_rate_limit_model_nudge = true\n"
            "hide_full_access_warning = true\n\n[x]\ny = 1\n");
        /* A header on the last line without a newline. */
        expect_edit("[notice]", "{\"notice\":{\"a\":true}}", "[notice]\na = true\n");
        /* A top-level key: after the last top-level key's line, before the comments and tables
         * that follow it (a top-level key of dotted keys counts too). */
        expect_edit("# top\nmodel = \"o3\" # m\nz.y = 1\n\n# servers\n[mcp_servers.x]\ncommand = "
                    "\"a\"\n",
                    "{\"model\":\"o3\",\"z\":{\"y\":1},\"model_reasoning_effort\":\"high\","
                    "\"mcp_servers\":{\"x\":{\"command\":\"a\"}}}",
                    "# top\nmodel = \"o3\" # m\nz.y = 1\nmodel_reasoning_effort = \"high\"\n\n# "
                    "servers\n[mcp_servers.x]\ncommand = \"a\"\n");
        /* No top-level key yet: first in the file. */
        expect_edit("# codex\n[tui]\ntheme = \"x\"\n",
                    "{\"model\":\"m\",\"tui\":{\"theme\":\"x\"}}",
                    "model = \"m\"\n# codex\n[tui]\ntheme = \"x\"\n");
        expect_edit("", "{\"model\":\"m\"}", "model = \"m\"\n");
}

/* A key whose table has no header of its own: a header appended, keys quoted as needed. */
Test(agent_toml, edit_add_new_table)
{
        expect_edit("model = \"o3\"\n# servers\n[mcp_servers.a]\ncommand = \"sh\"",
                    "{\"model\":\"o3\",\"mcp_servers\":{\"a\":{\"command\":\"sh\"}},"
                    "\"projects\":{\"/home/u/p.d\":{\"trust_level\":\"trusted\"}}}",
                    "model = \"o3\"\n# servers\n[mcp_servers.a]\ncommand = \"sh\"\n\n"
                    "[projects.\"/home/u/p.d\"]\ntrust_level = \"trusted\"\n");
        /* An implicit table (made by a deeper header) gets its own header at the end. */
        expect_edit("[projects.\"/q\"]\ntrust_level = \"untrusted\"\n",
                    "{\"projects\":{\"/q\":{\"trust_level\":\"untrusted\"},\"k\":1,"
                    "\"/p\":{\"trust_level\":\"trusted\"}}}",
                    "[projects.\"/q\"]\ntrust_level = \"untrusted\"\n\n[projects]\nk = 1\n\n"
                    "[projects.\"/p\"]\ntrust_level = \"trusted\"\n");
        /* Nested new tables, and an empty one. */
        expect_edit("", "{\"notice\":{\"model_migrations\":{\"a b\":\"c\"},\"x\":{}}}",
                    "[notice.model_migrations]\n\"a b\" = \"c\"\n\n[notice.x]\n");
}

/* Removed keys lose their lines; the comments around them stay. */
Test(agent_toml, edit_remove)
{
        expect_edit("# model\nmodel = \"o3\" # m\neffort = \"high\"\n[projects.\"/p\"]\n# trust\n  "
                    "trust_level = \"trusted\"\nother = [\n 1,\n]\n",
                    "{\"effort\":\"high\",\"projects\":{\"/p\":{}}}",
                    "# model\neffort = \"high\"\n[projects.\"/p\"]\n# trust\n");
        /* A table removed: its header line and its keys' lines, its sub-tables too. */
        expect_edit("a = 1\n[t] # t\nx = 1\n# kept\n[t.u]\ny = 2\n[v]\nz = 3\n",
                    "{\"a\":1,\"v\":{\"z\":3}}", "a = 1\n# kept\n[v]\nz = 3\n");
        /* A quoted key. */
        expect_edit("[p]\n\"/a.b\" = 1\nc = 2\n", "{\"p\":{\"c\":2}}", "[p]\nc = 2\n");
}

Test(agent_toml, edit_refusals)
{
        /* Keys added to or removed from tables made by dotted keys or inline. */
        expect_refused("notice.a = true\n", "{\"notice\":{\"a\":true,\"b\":true}}", "dotted");
        expect_refused("notice.a = true\nnotice.b = 1\n", "{\"notice\":{\"a\":true}}",
                       "not a line of its own");
        expect_refused("n.m.a = true\n", "{}", "dotted");
        /* A table where a value goes; arrays of tables. */
        expect_refused("[t]\na = 1\n", "{\"t\":5}", "is a table");
        expect_refused("[[t]]\na = 1\n", "{\"t\":[]}", "array of tables");
        expect_refused("[[t]]\na = 1\n", "{}", "array of tables");
        /* What cannot be written as TOML (a null). */
        expect_refused("a = 1\n", "{\"a\":null}", "holds a value");
        /* Not TOML: -EINVAL. */
        char why[CORDON_AGENT_TOML_WHY_MAX];
        json_t *want = J("{}");
        char *out = NULL;
        size_t len = 0;
        cr_expect_eq(cordon_agent_toml_edit("a =", 3, want, &out, &len, why), -EINVAL);
        cr_expect(strstr(why, "line 1"), "%s", why);
        json_decref(want);
}

/* The check after the edit: a forged date (a marker whose text reads as something else) is
 * written, read back as an integer, and the file is left as it was. */
Test(agent_toml, edit_validation)
{
        expect_refused("a = 1\n", "{\"a\":[null,\"12\"]}", "would not read as meant");
        expect_refused("a = 1\n", "{\"a\":[null,\"1979-13-45\"]}", "would not read as meant");
        expect_refused("a = 1\n", "{\"a\":[null,\"1 = 2\"]}", "holds a value");
}

/* The whole path as codex's copy comes back: trust and model flow, commands do not, the
 * host's comments stay byte for byte, and sandbox_mode (the overlay) is no change. */
Test(agent_toml, writeback_codex)
{
        const char *host = "# my codex settings\nmodel = \"o3\" # default model\n\n"
                           "# servers I use\n[mcp_servers.docs]\ncommand = \"docs-server\"\n"
                           "args = [\"--port\", \"3000\"] # keep\n";
        char *base = NULL;
        cr_assert_gt(asprintf(&base, "sandbox_mode = \"danger-full-access\"\n%s", host), 0);
        const char *final =
            "sandbox_mode = \"workspace-write\"\nmodel = \"gpt-5\"\n"
            "model_reasoning_effort = \"high\"\nnotify = [\"sh\", \"-c\", \"x\"]\n"
            "[mcp_servers.docs]\ncommand = \"evil\"\nargs = [\"--port\", \"3000\"]\n"
            "[projects.\"/home/u/p\"]\ntrust_level = \"trusted\"\n"
            "[projects.\"/elsewhere\"]\ntrust_level = \"trusted\"\n";
        _cleanup_strv_free_ char **patterns =
            P("model", "model_reasoning_effort", "projects.$PROJECT.trust_level", NULL);
        struct cordon_agent_json_result res;
        char why[CORDON_AGENT_TOML_WHY_MAX];
        int r;
        char *out = writeback(base, final, host, patterns, &res, &r, why);
        cr_assert_eq(r, 0, "%s", why);
        cr_expect_str_eq(out, "# my codex settings\nmodel = \"gpt-5\" # default model\n"
                              "model_reasoning_effort = \"high\"\n\n"
                              "# servers I use\n[mcp_servers.docs]\ncommand = \"docs-server\"\n"
                              "args = [\"--port\", \"3000\"] # keep\n\n"
                              "[projects.\"/home/u/p\"]\ntrust_level = \"trusted\"\n");
        cr_expect_eq(res.kept, 3);
        cr_expect(strv_contains(res.dropped, "sandbox_mode"));
        cr_expect(strv_contains(res.dropped, "notify"));
        cr_expect(strv_contains(res.dropped, "mcp_servers.docs.command"));
        cr_expect(strv_contains(res.dropped, "projects./elsewhere.trust_level"));
        cr_expect_eq(strv_length(res.dropped), 4);
        cordon_agent_json_result_clear(&res);
        free(out);
        /* Unchanged: the same text back. */
        out = writeback(base, base, host, patterns, &res, &r, why);
        cr_assert_eq(r, 0, "%s", why);
        cr_expect_str_eq(out, host);
        cr_expect_eq(res.kept, 0);
        cordon_agent_json_result_clear(&res);
        free(out);
        free(base);
}
