/* Unit tests for src/lib/policy/agent-json.c: the agents' private copies, overlay and write-back.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <string.h>

#include "lib/policy/agent-json.h"
#include "shared/strv.h"

static json_t *J(const char *text)
{
        json_error_t e;
        json_t *j = json_loads(text, 0, &e);
        cr_assert(j, "%s: %s", text, e.text);
        return j;
}

/* A NULL-terminated list of patterns (a strv: the API takes char *const *). */
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

static void expect_json(json_t *got, const char *want)
{
        json_t *w = J(want);
        char *g = json_dumps(got, JSON_SORT_KEYS | JSON_COMPACT);
        cr_expect(json_equal(got, w), "got %s, want %s", g, want);
        free(g);
        json_decref(w);
}

Test(agent_json, overlay_keeps_the_users_rules)
{
        json_t *doc = J("{\"permissions\":{\"allow\":[\"Bash(ls)\"],\"deny\":[\"Bash(rm:*)\"]},"
                        "\"sandbox\":{\"enabled\":true},\"model\":\"x\"}");
        json_t *ov = J("{\"permissions\":{\"allow\":[\"Bash\",\"Bash(ls)\",\"Read\"]},"
                       "\"sandbox\":{\"enabled\":false}}");
        cr_assert_eq(cordon_agent_json_overlay(doc, ov), 0);
        expect_json(doc, "{\"permissions\":{\"allow\":[\"Bash(ls)\",\"Bash\",\"Read\"],"
                         "\"deny\":[\"Bash(rm:*)\"]},\"sandbox\":{\"enabled\":false},"
                         "\"model\":\"x\"}");
        cr_expect_eq(cordon_agent_json_overlay(doc, json_array()), -EINVAL);
        json_decref(doc);
        json_decref(ov);
}

Test(agent_json, patterns)
{
        const char *steps[] = {"projects", "/p", "lastCost", "x"};
        size_t k = 0;
        cr_expect(cordon_agent_json_pattern_match("projects.$PROJECT.last*", steps, 4, "/p", &k));
        cr_expect_eq(k, 3);
        cr_expect_not(
            cordon_agent_json_pattern_match("projects.$PROJECT.last*", steps, 4, "/q", &k));
        cr_expect_not(
            cordon_agent_json_pattern_match("projects.$PROJECT.last*", steps, 4, NULL, &k));
        cr_expect(cordon_agent_json_pattern_match("projects.*", steps, 4, NULL, &k));
        cr_expect_eq(k, 2);
        cr_expect_not(
            cordon_agent_json_pattern_match("projects.*.lastCost.x.y", steps, 4, NULL, &k));
        cr_expect_not(cordon_agent_json_pattern_match("", steps, 4, NULL, &k));
        const char *mig[] = {"opusMigrationComplete"};
        cr_expect(cordon_agent_json_pattern_match("*MigrationComplete", mig, 1, NULL, &k));
        cr_expect_not(cordon_agent_json_pattern_match("*Migration", mig, 1, NULL, &k));
        cr_expect(cordon_agent_json_pattern_match("opus*", mig, 1, NULL, &k));
}

/* Allowed changes reach the host's document, which keeps what it had (a concurrent run's
 * keys); commands never do, and are named. */
Test(agent_json, writeback_allow_list)
{
        json_t *base = J("{\"numStartups\":1,\"projects\":{}}");
        json_t *final = J("{\"numStartups\":2,\"hasCompletedOnboarding\":true,"
                          "\"mcpServers\":{\"evil\":{\"command\":\"sh\"}},"
                          "\"projects\":{\"/p\":{\"hasTrustDialogAccepted\":true,"
                          "\"allowedTools\":[\"Bash(*)\"],\"lastCost\":3},"
                          "\"/elsewhere\":{\"hasTrustDialogAccepted\":true}}}");
        json_t *host = J("{\"numStartups\":7,\"other\":\"kept\",\"projects\":{\"/q\":{\"x\":1}}}");
        _cleanup_strv_free_ char **patterns =
            P("numStartups", "hasCompletedOnboarding", "projects.$PROJECT.hasTrustDialogAccepted",
              "projects.$PROJECT.last*", NULL);
        struct cordon_agent_json_result res;
        cr_assert_eq(cordon_agent_json_writeback(base, final, host, patterns, "/p", &res), 0);
        expect_json(host, "{\"numStartups\":2,\"other\":\"kept\",\"hasCompletedOnboarding\":true,"
                          "\"projects\":{\"/q\":{\"x\":1},\"/p\":{\"hasTrustDialogAccepted\":true,"
                          "\"lastCost\":3}}}");
        cr_expect_eq(res.kept, 4);
        cr_expect(strv_contains(res.dropped, "mcpServers.evil.command"));
        cr_expect(strv_contains(res.dropped, "projects./p.allowedTools"));
        cr_expect(strv_contains(res.dropped, "projects./elsewhere.hasTrustDialogAccepted"));
        cr_expect_eq(strv_length(res.dropped), 3);
        cordon_agent_json_result_clear(&res);
        json_decref(base);
        json_decref(final);
        json_decref(host);
}

/* A key the run removed is removed from the host where allowed (and kept there where not);
 * a copy that is not an object
 * (replaced by garbage) removes every allowed key, and adds nothing. */
Test(agent_json, writeback_removal)
{
        json_t *base = J("{\"theme\":\"dark\",\"mcpServers\":{\"x\":{\"command\":\"a\"}}}");
        json_t *final = J("{}");
        json_t *host = J("{\"theme\":\"dark\",\"mcpServers\":{\"mine\":{}}}");
        _cleanup_strv_free_ char **patterns = P("theme", NULL);
        struct cordon_agent_json_result res;
        cr_assert_eq(cordon_agent_json_writeback(base, final, host, patterns, NULL, &res), 0);
        expect_json(host, "{\"mcpServers\":{\"mine\":{}}}");
        /* Removing what may not flow back changes nothing on the host: nothing to name. */
        cr_expect_null(res.dropped);
        cordon_agent_json_result_clear(&res);
        json_t *garbage = json_integer(3);
        cr_assert_eq(cordon_agent_json_writeback(base, garbage, host, patterns, NULL, &res), 0);
        cordon_agent_json_result_clear(&res);
        cr_expect_eq(cordon_agent_json_writeback(base, final, garbage, patterns, NULL, &res),
                     -EINVAL);
        json_decref(garbage);
        json_decref(base);
        json_decref(final);
        json_decref(host);
}

/* The host's document without an object where the key goes: left alone. Names are printable
 * and bounded, and only so many are kept. */
Test(agent_json, writeback_bounds)
{
        json_t *base = J("{}");
        json_t *final = J("{\"a\":{\"b\":1},\"\\u001b[31mred\":1}");
        json_t *host = J("{\"a\":5}");
        _cleanup_strv_free_ char **patterns = P("a.b", NULL);
        struct cordon_agent_json_result res;
        cr_assert_eq(cordon_agent_json_writeback(base, final, host, patterns, NULL, &res), 0);
        expect_json(host, "{\"a\":5}");
        cr_expect(strv_contains(res.dropped, "?[31mred"));
        cordon_agent_json_result_clear(&res);
        json_t *many = json_object();
        for (int i = 0; i < 100; i++) {
                char k[16];
                snprintf(k, sizeof(k), "k%d", i);
                json_object_set_new(many, k, json_true());
        }
        cr_assert_eq(cordon_agent_json_writeback(base, many, host, patterns, NULL, &res), 0);
        cr_expect_eq(strv_length(res.dropped), CORDON_AGENT_JSON_NAMES_MAX);
        cr_expect(res.more);
        cordon_agent_json_result_clear(&res);
        json_decref(many);
        json_decref(base);
        json_decref(final);
        json_decref(host);
}

Test(agent_json, hooks_added_per_event_without_a_command_twice)
{
        json_t *doc = J("{\"hooks\":{\"Stop\":[{\"matcher\":\"x\",\"hooks\":[{\"type\":\"command\","
                        "\"command\":\"echo stop\"}]}]},\"model\":\"opus\"}");
        json_t *add =
            J("{\"Stop\":[{\"matcher\":\"\",\"hooks\":[{\"type\":\"command\","
              "\"command\":\"echo stop\"},{\"type\":\"command\",\"command\":\"notify\"},"
              "{\"type\":\"command\",\"command\":\"notify\"}]}],"
              "\"Notification\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"n\"}]}],"
              "\"PreToolUse\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"echo stop\"}]},"
              "{\"hooks\":[{\"type\":\"command\",\"command\":\"echo stop\"}]}]}");
        cr_assert_eq(cordon_agent_json_add_hooks(doc, add), 0);
        expect_json(doc,
                    "{\"model\":\"opus\",\"hooks\":{"
                    "\"Stop\":[{\"matcher\":\"x\",\"hooks\":[{\"type\":\"command\","
                    "\"command\":\"echo stop\"}]},{\"matcher\":\"\",\"hooks\":[{\"type\":"
                    "\"command\",\"command\":\"notify\"}]}],"
                    "\"Notification\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"n\"}]}],"
                    "\"PreToolUse\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"echo "
                    "stop\"}]}]}}");
        /* Adding the same again changes nothing. */
        json_t *before = json_deep_copy(doc);
        cr_assert_eq(cordon_agent_json_add_hooks(doc, add), 0);
        cr_expect(json_equal(doc, before));
        json_decref(before);
        json_decref(doc);
        /* No hooks yet: made. */
        doc = J("{}");
        cr_assert_eq(cordon_agent_json_add_hooks(doc, add), 0);
        cr_assert_eq(json_object_size(json_object_get(doc, "hooks")), 3);
        json_decref(doc);
        /* Hooks of another shape: refused, nothing changed. */
        doc = J("{\"hooks\":{\"Stop\":\"x\"}}");
        cr_assert_eq(cordon_agent_json_add_hooks(doc, add), -EINVAL);
        expect_json(doc, "{\"hooks\":{\"Stop\":\"x\"}}");
        json_decref(doc);
        doc = J("{\"hooks\":[]}");
        cr_assert_eq(cordon_agent_json_add_hooks(doc, add), -EINVAL);
        json_decref(doc);
        json_decref(add);
}
