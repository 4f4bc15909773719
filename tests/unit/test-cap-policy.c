/* Unit tests for src/lib/settings/cap-policy.c: the parser and its messages, the canonical form,
 * the intersection rules, and properties of the intersection over generated policies. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "lib/settings/cap-policy.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"
#include "test-helpers.h"

TestSuite(cap_policy);

#define _cleanup_policy_ _cleanup_(cordon_cap_policy_clear)
#define _cleanup_json_   _cleanup_(json_decrefp)

static const char default_canonical[] =
    "{\"capabilities\":null,\"workspace_roots\":[],\"read_only_roots\":[],"
    "\"sandbox_profile\":\"worktree\",\"side_effect_level\":null,"
    "\"process_sandbox\":{\"presets\":null,\"read_roots\":[],\"write_roots\":[]}}";

static void parse_ok(const char *json, struct cordon_cap_policy *ret)
{
        struct cordon_diag diag = {0};
        int r = cordon_cap_policy_parse(json, strlen(json), "policy.json", ret, &diag);
        cr_assert_eq(r, 0, "parse %s: %d %s", json, r, diag.message);
}

static char *to_json(const struct cordon_cap_policy *p)
{
        char *s = NULL;
        cr_assert_eq(cordon_cap_policy_to_json(p, &s), 0);
        cr_assert_not_null(s);
        return s;
}

/* Checks that @p serialises to the default canonical form overridden by the keys of @delta. */
static void assert_canonical(const struct cordon_cap_policy *p, const char *delta, const char *what)
{
        _cleanup_free_ char *s = to_json(p);
        _cleanup_json_ json_t *got = json_loads(s, 0, NULL);
        _cleanup_json_ json_t *want = json_loads(default_canonical, 0, NULL);
        _cleanup_json_ json_t *d = json_loads(delta, 0, NULL);
        cr_assert(got && want && d, "%s: bad JSON in the test: %s", what, delta);
        cr_assert_eq(json_object_update(want, d), 0);
        _cleanup_free_ char *ws = json_dumps(want, JSON_COMPACT | JSON_SORT_KEYS);
        _cleanup_free_ char *gs = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS);
        cr_assert(json_equal(got, want), "%s:\n  want %s\n  got  %s", what, ws, gs);
}

/* parse(to_json(p)) == p, and the canonical text is a fixed point. */
static void assert_round_trip(const struct cordon_cap_policy *p)
{
        _cleanup_free_ char *s = to_json(p);
        _cleanup_policy_ struct cordon_cap_policy q;
        cordon_cap_policy_init(&q);
        parse_ok(s, &q);
        cr_assert(cordon_cap_policy_equal(p, &q), "round trip changed the policy:\n%s", s);
        _cleanup_free_ char *s2 = to_json(&q);
        cr_assert_str_eq(s, s2);
}

Test(cap_policy, init_is_the_empty_policy)
{
        _cleanup_policy_ struct cordon_cap_policy p, q;
        cordon_cap_policy_init(&p);
        cr_assert_not(p.has_capabilities);
        cr_assert_not(p.has_side_effect_level);
        cr_assert_eq(p.profile, CORDON_PROFILE_WORKTREE);
        cr_assert(p.presets_default);
        cr_assert_null(p.workspace_roots);
        parse_ok("{}", &q);
        cr_assert(cordon_cap_policy_equal(&p, &q));
        assert_canonical(&p, "{}", "empty");
        cordon_cap_policy_clear(&p);
        cordon_cap_policy_clear(&p); /* twice is fine */
        cordon_cap_policy_clear(NULL);
}

Test(cap_policy, canonical_text_is_exact)
{
        _cleanup_policy_ struct cordon_cap_policy p;
        parse_ok("{\"process_sandbox\": {\"write_roots\": [\"/w\"], \"presets\": []},"
                 " \"side_effect_level\": \"none\", \"capabilities\": {\"process\": [\"exec\"]},"
                 " \"workspace_roots\": [\"/b\", \"/a\"]}",
                 &p);
        _cleanup_free_ char *s = to_json(&p);
        cr_assert_str_eq(s, "{\n"
                            "  \"capabilities\": {\n"
                            "    \"workspace\": [],\n"
                            "    \"process\": [\n"
                            "      \"exec\"\n"
                            "    ]\n"
                            "  },\n"
                            "  \"workspace_roots\": [\n"
                            "    \"/a\",\n"
                            "    \"/b\"\n"
                            "  ],\n"
                            "  \"read_only_roots\": [],\n"
                            "  \"sandbox_profile\": \"worktree\",\n"
                            "  \"side_effect_level\": \"none\",\n"
                            "  \"process_sandbox\": {\n"
                            "    \"presets\": [],\n"
                            "    \"read_roots\": [],\n"
                            "    \"write_roots\": [\n"
                            "      \"/w\"\n"
                            "    ]\n"
                            "  }\n"
                            "}");
}

static const struct {
        const char *json;
        const char *canonical; /* the keys that differ from default_canonical */
} valid[] = {
    {"{}", "{}"},
    {" \n{ } \n", "{}"},
    {"{\"capabilities\": null}", "{}"},
    {"{\"capabilities\": {}}", "{}"},
    {"{\"capabilities\": {\"workspace\": []}}",
     "{\"capabilities\": {\"workspace\": [], \"process\": []}}"},
    {"{\"capabilities\": {\"workspace\": [\"delete\", \"read_text\", \"delete\", \"exists\", "
     "\"list\", \"write_text\"], \"process\": [\"exec\", \"exec\"]}}",
     "{\"capabilities\": {\"workspace\": [\"read_text\", \"list\", \"exists\", \"write_text\", "
     "\"delete\"], \"process\": [\"exec\"]}}"},
    {"{\"workspace_roots\": [\"/srv//proj/./src/\", \"/a\"]}",
     "{\"workspace_roots\": [\"/a\", \"/srv/proj/src\"]}"},
    /* Duplicates collapse, and so does an entry below another one of the same list. */
    {"{\"read_only_roots\": [\"/a/b\", \"/a\", \"/a/\", \"/a-b\", \"/a/b/c\"]}",
     "{\"read_only_roots\": [\"/a\", \"/a-b\"]}"},
    {"{\"workspace_roots\": [\"/\", \"/usr\"]}", "{\"workspace_roots\": [\"/\"]}"},
    {"{\"workspace_roots\": [\"//\", \"/.\"]}", "{\"workspace_roots\": [\"/\"]}"},
    /* Names that merely contain dots are fine. */
    {"{\"workspace_roots\": [\"/a/...\", \"/a/..b\", \"/a/b..\", \"/.x\"]}",
     "{\"workspace_roots\": [\"/.x\", \"/a/...\", \"/a/..b\", \"/a/b..\"]}"},
    /* Path order: a directory comes right before what is below it. */
    {"{\"workspace_roots\": [\"/a.txt\", \"/a b\", \"/a/z\", \"/b\"]}",
     "{\"workspace_roots\": [\"/a/z\", \"/a b\", \"/a.txt\", \"/b\"]}"},
    {"{\"workspace_roots\": [\"/h\\u00e9\\u00e9/\\u65e5\"]}",
     "{\"workspace_roots\": [\"/h\\u00e9\\u00e9/\\u65e5\"]}"},
    {"{\"sandbox_profile\": \"unrestricted\"}", "{\"sandbox_profile\": \"unrestricted\"}"},
    {"{\"sandbox_profile\": \"wasi\"}", "{\"sandbox_profile\": \"wasi\"}"},
    {"{\"sandbox_profile\": \"os_hardened\"}", "{\"sandbox_profile\": \"os_hardened\"}"},
    {"{\"side_effect_level\": null}", "{}"},
    {"{\"side_effect_level\": \"read_only\"}", "{\"side_effect_level\": \"read_only\"}"},
    {"{\"side_effect_level\": \"workspace_write\"}",
     "{\"side_effect_level\": \"workspace_write\"}"},
    {"{\"side_effect_level\": \"process_exec\"}", "{\"side_effect_level\": \"process_exec\"}"},
    {"{\"side_effect_level\": \"network\"}", "{\"side_effect_level\": \"network\"}"},
    {"{\"process_sandbox\": null}", "{}"},
    {"{\"process_sandbox\": {}}", "{}"},
    {"{\"process_sandbox\": {\"presets\": null}}", "{}"},
    {"{\"process_sandbox\": {\"presets\": []}}",
     "{\"process_sandbox\": {\"presets\": [], \"read_roots\": [], \"write_roots\": []}}"},
    {"{\"process_sandbox\": {\"presets\": [\"user_temp\", \"system_runtime\", "
     "\"package_manager_config\", \"developer_toolchains\"]}}",
     "{\"process_sandbox\": {\"presets\": [\"system_runtime\", \"developer_toolchains\", "
     "\"package_manager_config\", \"user_temp\"], \"read_roots\": [], \"write_roots\": []}}"},
    {"{\"process_sandbox\": {\"read_roots\": [\"/opt/sdk\", \"/opt/sdk/lib\"], "
     "\"write_roots\": [\"/var/cache/x/\"]}}",
     "{\"process_sandbox\": {\"presets\": null, \"read_roots\": [\"/opt/sdk\"], "
     "\"write_roots\": [\"/var/cache/x\"]}}"},
    /* The example of the format's documentation. */
    {"{\"capabilities\": {\"workspace\": [\"read_text\"], \"process\": [\"exec\"]},\n"
     " \"workspace_roots\": [\"/home/u/proj\"], \"read_only_roots\": [\"/srv/ref\"],\n"
     " \"sandbox_profile\": \"os_hardened\", \"side_effect_level\": \"process_exec\",\n"
     " \"process_sandbox\": {\"presets\": [\"system_runtime\"], \"read_roots\": [\"/opt/sdk\"],\n"
     "                     \"write_roots\": []}}",
     "{\"capabilities\": {\"workspace\": [\"read_text\"], \"process\": [\"exec\"]},"
     " \"workspace_roots\": [\"/home/u/proj\"], \"read_only_roots\": [\"/srv/ref\"],"
     " \"sandbox_profile\": \"os_hardened\", \"side_effect_level\": \"process_exec\","
     " \"process_sandbox\": {\"presets\": [\"system_runtime\"], \"read_roots\": [\"/opt/sdk\"],"
     " \"write_roots\": []}}"},
};

Test(cap_policy, parse_valid)
{
        for (size_t i = 0; i < ELEMENTSOF(valid); i++) {
                _cleanup_policy_ struct cordon_cap_policy p;
                parse_ok(valid[i].json, &p);
                assert_canonical(&p, valid[i].canonical, valid[i].json);
                assert_round_trip(&p);
        }
}

Test(cap_policy, parse_fields)
{
        _cleanup_policy_ struct cordon_cap_policy p;
        parse_ok(valid[ELEMENTSOF(valid) - 1].json, &p);
        cr_assert(p.has_capabilities);
        cr_assert_eq(p.capabilities, CORDON_CAP_READ_TEXT | CORDON_CAP_EXEC);
        cr_assert_eq(p.profile, CORDON_PROFILE_OS_HARDENED);
        cr_assert(p.has_side_effect_level);
        cr_assert_eq(p.side_effect_level, CORDON_SIDE_EFFECT_PROCESS_EXEC);
        cr_assert_not(p.presets_default);
        cr_assert_eq(p.presets, CORDON_PRESET_SYSTEM_RUNTIME);
        cr_assert_eq(strv_length(p.workspace_roots), 1);
        cr_assert_str_eq(p.workspace_roots[0], "/home/u/proj");
        cr_assert_str_eq(p.read_only_roots[0], "/srv/ref");
        cr_assert_str_eq(p.read_roots[0], "/opt/sdk");
        cr_assert_eq(strv_length(p.write_roots), 0);
}

static const struct {
        const char *json;
        const char *message; /* exact, or a prefix when it ends in '*' */
} invalid[] = {
    /* Syntax errors carry line and column. */
    {"", "policy.json:1:0: *"},
    {"{", "policy.json:1:1: *"},
    {"{\n  \"workspace_roots\": [\"/a\",]\n}", "policy.json:2:28: *"},
    {"{} {}", "policy.json:1:4: end of file expected*"},
    {"{\"sandbox_profile\": \"wasi\",\n \"sandbox_profile\": \"wasi\"}",
     "policy.json:2:18: duplicate object key*"},
    {"{\"a\\u0000\": 1}", "policy.json:1:10: NUL byte in object key*"},
    {"{\"workspace_roots\": [\"/\xff\"]}", "policy.json:1:23: unable to decode byte 0xff*"},
    /* The top level. */
    {"[]", "policy.json: top level: expected an object, got an array"},
    {"\"x\"", "policy.json: top level: expected an object, got a string"},
    {"null", "policy.json: top level: expected an object, got null"},
    /* Unknown keys, at each level. */
    {"{\"workspace_root\": []}",
     "policy.json: /workspace_root: unknown key \"workspace_root\" (expected capabilities, "
     "workspace_roots, read_only_roots, sandbox_profile, side_effect_level or process_sandbox)"},
    {"{\"capabilities\": {\"network\": []}}",
     "policy.json: /capabilities/network: unknown key \"network\" (expected workspace or "
     "process)"},
    {"{\"process_sandbox\": {\"presets\": [], \"exec_roots\": []}}",
     "policy.json: /process_sandbox/exec_roots: unknown key \"exec_roots\" (expected presets, "
     "read_roots or write_roots)"},
    {"{\"a/b~c\\n\": 1}",
     "policy.json: /a~1b~0c\\x0a: unknown key \"a/b~c\\x0a\" (expected capabilities, "
     "workspace_roots, read_only_roots, sandbox_profile, side_effect_level or process_sandbox)"},
    {"{\"capabilities\": {\"\\\"q\\\\\": []}}",
     "policy.json: /capabilities/\"q\\: unknown key \"\\\"q\\\\\" (expected workspace or "
     "process)"},
    /* Wrong types. */
    {"{\"capabilities\": []}",
     "policy.json: /capabilities: expected an object or null, got an array"},
    {"{\"capabilities\": {\"workspace\": \"read_text\"}}",
     "policy.json: /capabilities/workspace: expected an array, got a string"},
    {"{\"capabilities\": {\"process\": [true]}}",
     "policy.json: /capabilities/process/0: expected a string, got a boolean"},
    {"{\"workspace_roots\": \"/a\"}",
     "policy.json: /workspace_roots: expected an array, got a string"},
    {"{\"workspace_roots\": null}", "policy.json: /workspace_roots: expected an array, got null"},
    {"{\"read_only_roots\": [\"/a\", 1]}",
     "policy.json: /read_only_roots/1: expected a string, got a number"},
    {"{\"sandbox_profile\": null}", "policy.json: /sandbox_profile: expected a string, got null"},
    {"{\"sandbox_profile\": 3}", "policy.json: /sandbox_profile: expected a string, got a number"},
    {"{\"side_effect_level\": {}}",
     "policy.json: /side_effect_level: expected a string, got an object"},
    {"{\"process_sandbox\": []}",
     "policy.json: /process_sandbox: expected an object or null, got an array"},
    {"{\"process_sandbox\": {\"presets\": {}}}",
     "policy.json: /process_sandbox/presets: expected an array, got an object"},
    {"{\"process_sandbox\": {\"write_roots\": [[]]}}",
     "policy.json: /process_sandbox/write_roots/0: expected a string, got an array"},
    /* Unknown names. */
    {"{\"sandbox_profile\": \"OS_HARDENED\"}",
     "policy.json: /sandbox_profile: unknown sandbox profile \"OS_HARDENED\" (expected "
     "unrestricted, worktree, wasi or os_hardened)"},
    {"{\"side_effect_level\": \"\"}",
     "policy.json: /side_effect_level: unknown side-effect level \"\" (expected none, read_only, "
     "workspace_write, process_exec or network)"},
    {"{\"capabilities\": {\"workspace\": [\"read_text\", \"exec\"]}}",
     "policy.json: /capabilities/workspace/1: unknown workspace capability \"exec\" (expected "
     "read_text, list, exists, write_text or delete)"},
    {"{\"capabilities\": {\"process\": [\"spawn\"]}}",
     "policy.json: /capabilities/process/0: unknown process capability \"spawn\" (expected "
     "exec)"},
    {"{\"process_sandbox\": {\"presets\": [\"system_runtime\", \"home\"]}}",
     "policy.json: /process_sandbox/presets/1: unknown preset \"home\" (expected "
     "system_runtime, developer_toolchains, package_manager_config or user_temp)"},
    /* Roots. */
    {"{\"workspace_roots\": [\"/a\", \"\"]}",
     "policy.json: /workspace_roots/1: a root must not be empty"},
    {"{\"workspace_roots\": [\"proj\"]}",
     "policy.json: /workspace_roots/0: a root must be an absolute path: \"proj\""},
    {"{\"read_only_roots\": [\"~/x\"]}",
     "policy.json: /read_only_roots/0: a root must be an absolute path: \"~/x\""},
    {"{\"process_sandbox\": {\"read_roots\": [\"/x\", \"/y\", \"/a/../b\"]}}",
     "policy.json: /process_sandbox/read_roots/2: \"..\" is not allowed in a root: \"/a/../b\""},
    {"{\"process_sandbox\": {\"write_roots\": [\"/a/..\"]}}",
     "policy.json: /process_sandbox/write_roots/0: \"..\" is not allowed in a root: \"/a/..\""},
    {"{\"workspace_roots\": [\"/..\"]}",
     "policy.json: /workspace_roots/0: \"..\" is not allowed in a root: \"/..\""},
    {"{\"workspace_roots\": [\"/a\\u0000/b\"]}",
     "policy.json: /workspace_roots/0: a NUL byte is not allowed in a string"},
    {"{\"sandbox_profile\": \"wasi\\u0000\"}",
     "policy.json: /sandbox_profile: a NUL byte is not allowed in a string"},
    {"{\"workspace_roots\": [\"/a\\tb\\\"\"]}", NULL /* accepted: any byte but NUL */},
};

Test(cap_policy, parse_invalid)
{
        for (size_t i = 0; i < ELEMENTSOF(invalid); i++) {
                if (!invalid[i].message)
                        continue;
                struct cordon_cap_policy p = {.profile = 42};
                struct cordon_diag diag = {0};
                int r = cordon_cap_policy_parse(invalid[i].json, strlen(invalid[i].json),
                                                "policy.json", &p, &diag);
                cr_assert_eq(r, -EINVAL, "%s: got %d", invalid[i].json, r);
                cr_assert_eq(p.profile, 42, "the result is set only on success");
                const char *m = invalid[i].message;
                size_t l = strlen(m);
                if (m[l - 1] == '*')
                        cr_assert(strncmp(diag.message, m, l - 1) == 0, "%s:\n  want %s\n  got  %s",
                                  invalid[i].json, m, diag.message);
                else
                        cr_assert_str_eq(diag.message, m, "%s", invalid[i].json);
                cr_assert_null(strchr(diag.message, '\n'), "one line: %s", diag.message);
        }
}

Test(cap_policy, parse_any_byte_but_nul_in_a_root)
{
        _cleanup_policy_ struct cordon_cap_policy p;
        parse_ok(invalid[ELEMENTSOF(invalid) - 1].json, &p);
        cr_assert_str_eq(p.workspace_roots[0], "/a\tb\"");
        assert_round_trip(&p);
}

Test(cap_policy, parse_source_defaults)
{
        struct cordon_cap_policy p;
        struct cordon_diag diag = {0};
        cr_assert_eq(cordon_cap_policy_parse("[]", 2, NULL, &p, &diag), -EINVAL);
        cr_assert_str_eq(diag.message, "policy: top level: expected an object, got an array");
        cr_assert_eq(cordon_cap_policy_parse("[]", 2, "x", &p, NULL), -EINVAL, "diag is optional");
}

Test(cap_policy, parse_too_big)
{
        size_t n = CORDON_CAP_POLICY_MAX_BYTES + 1;
        _cleanup_free_ char *buf = malloc(n);
        cr_assert_not_null(buf);
        memset(buf, ' ', n);
        buf[0] = '{';
        buf[n - 1] = '}';
        struct cordon_cap_policy p;
        struct cordon_diag diag = {0};
        cr_assert_eq(cordon_cap_policy_parse(buf, n, "big.json", &p, &diag), -EFBIG);
        cr_assert_str_eq(diag.message, "big.json: larger than 1048576 bytes");
        /* Exactly the limit is fine. */
        _cleanup_policy_ struct cordon_cap_policy q;
        buf[n - 2] = '}';
        cr_assert_eq(cordon_cap_policy_parse(buf, n - 1, "big.json", &q, &diag), 0, "%s",
                     diag.message);
}

static void *mfree(void *p)
{
        free(p);
        return NULL;
}

/* @prefix, then @n copies of @element separated by commas (a "#" in @element is replaced by the
 * index), then @suffix. */
static char *list_json(const char *prefix, const char *element, size_t n, const char *suffix)
{
        size_t cap = strlen(prefix) + strlen(suffix) + n * (strlen(element) + 16) + 1, o = 0;
        char *s = malloc(cap);
        cr_assert_not_null(s);
        const char *hash = strchr(element, '#');
        int head = hash ? (int)(hash - element) : (int)strlen(element);
        o += (size_t)snprintf(s + o, cap - o, "%s", prefix);
        for (size_t i = 0; i < n; i++) {
                o += (size_t)snprintf(s + o, cap - o, "%s%.*s", i ? "," : "", head, element);
                if (hash)
                        o += (size_t)snprintf(s + o, cap - o, "%zu%s", i, hash + 1);
        }
        snprintf(s + o, cap - o, "%s", suffix);
        return s;
}

Test(cap_policy, parse_entry_limit)
{
        static const struct {
                const char *prefix, *element, *suffix, *pointer;
        } lists[] = {
            {"{\"workspace_roots\": [", "\"/r/#\"", "]}", "/workspace_roots"},
            {"{\"process_sandbox\": {\"read_roots\": [", "\"/r/#\"", "]}}",
             "/process_sandbox/read_roots"},
            {"{\"capabilities\": {\"process\": [", "\"exec\"", "]}}", "/capabilities/process"},
            {"{\"process_sandbox\": {\"presets\": [", "\"user_temp\"", "]}}",
             "/process_sandbox/presets"},
        };
        for (size_t i = 0; i < ELEMENTSOF(lists); i++) {
                _cleanup_free_ char *ok = list_json(lists[i].prefix, lists[i].element,
                                                    CORDON_CAP_POLICY_MAX_ENTRIES, lists[i].suffix);
                _cleanup_free_ char *bad =
                    list_json(lists[i].prefix, lists[i].element, CORDON_CAP_POLICY_MAX_ENTRIES + 1,
                              lists[i].suffix);
                _cleanup_policy_ struct cordon_cap_policy p;
                parse_ok(ok, &p);
                struct cordon_cap_policy q;
                struct cordon_diag diag = {0};
                cr_assert_eq(cordon_cap_policy_parse(bad, strlen(bad), "policy.json", &q, &diag),
                             -EINVAL);
                char want[256];
                snprintf(want, sizeof(want), "policy.json: %s: more than 4096 entries (the limit)",
                         lists[i].pointer);
                cr_assert_str_eq(diag.message, want);
        }
}

Test(cap_policy, parse_root_length_limit)
{
        char path[PATH_MAX + 1];
        memset(path, 'a', sizeof(path));
        path[0] = '/';
        path[PATH_MAX - 1] = 0; /* PATH_MAX - 1 bytes: fine */
        _cleanup_free_ char *ok = NULL, *bad = NULL;
        cr_assert_gt(asprintf(&ok, "{\"workspace_roots\": [\"%s\"]}", path), 0);
        path[PATH_MAX - 1] = 'a';
        path[PATH_MAX] = 0;
        cr_assert_gt(asprintf(&bad, "{\"workspace_roots\": [\"%s\"]}", path), 0);
        _cleanup_policy_ struct cordon_cap_policy p;
        parse_ok(ok, &p);
        struct cordon_cap_policy q;
        struct cordon_diag diag = {0};
        cr_assert_eq(cordon_cap_policy_parse(bad, strlen(bad), "policy.json", &q, &diag), -EINVAL);
        cr_assert_str_eq(diag.message,
                         "policy.json: /workspace_roots/0: a root must be shorter than 4096 bytes");
}

Test(cap_policy, long_values_are_cut_in_messages)
{
        char key[2000];
        memset(key, 'k', sizeof(key) - 1);
        key[sizeof(key) - 1] = 0;
        _cleanup_free_ char *json = NULL;
        cr_assert_gt(asprintf(&json, "{\"%s\": 1}", key), 0);
        struct cordon_cap_policy p;
        struct cordon_diag diag = {0};
        cr_assert_eq(cordon_cap_policy_parse(json, strlen(json), "policy.json", &p, &diag),
                     -EINVAL);
        cr_assert(strstr(diag.message, "kkk...: unknown key \"kkk"), "%s", diag.message);
        cr_assert(strstr(diag.message, "...\" (expected capabilities"), "%s", diag.message);
        cr_assert_lt(strlen(diag.message), 600);
}

/* --- the writer on hand-built policies --- */

Test(cap_policy, to_json_refuses_what_no_parse_gives)
{
        _cleanup_policy_ struct cordon_cap_policy p;
        cordon_cap_policy_init(&p);
        char *s = NULL;
        p.profile = _CORDON_PROFILE_MAX;
        cr_assert_eq(cordon_cap_policy_to_json(&p, &s), -EINVAL);
        p.profile = CORDON_PROFILE_WASI;
        p.has_side_effect_level = true;
        p.side_effect_level = _CORDON_SIDE_EFFECT_MAX;
        cr_assert_eq(cordon_cap_policy_to_json(&p, &s), -EINVAL);
        p.has_side_effect_level = false; /* ignored then */
        cr_assert_eq(cordon_cap_policy_to_json(&p, &s), 0);
        s = mfree(s);
        p.read_roots = STRV_MAKE("/ok", "/not-utf8-\xff");
        cr_assert_eq(cordon_cap_policy_to_json(&p, &s), -EINVAL);
        cr_assert_null(s);
}

Test(cap_policy, to_json_canonicalises_hand_built_lists)
{
        _cleanup_policy_ struct cordon_cap_policy p;
        cordon_cap_policy_init(&p);
        p.workspace_roots = STRV_MAKE("/z", "/a/b", "/a", "/z");
        p.has_capabilities = true;
        p.capabilities = CORDON_CAP_ALL | 1u << 20; /* unknown bits are not written */
        p.presets_default = false;
        p.presets = CORDON_PRESET_USER_TEMP | 1u << 9;
        assert_canonical(
            &p,
            "{\"workspace_roots\": [\"/a\", \"/z\"], \"capabilities\": {\"workspace\": "
            "[\"read_text\", \"list\", \"exists\", \"write_text\", \"delete\"], "
            "\"process\": [\"exec\"]}, \"process_sandbox\": {\"presets\": "
            "[\"user_temp\"], \"read_roots\": [], \"write_roots\": []}}",
            "hand-built");
        assert_round_trip(&p);
}

Test(cap_policy, equal_compares_lists_as_sets)
{
        _cleanup_policy_ struct cordon_cap_policy a, b;
        cordon_cap_policy_init(&a);
        cordon_cap_policy_init(&b);
        a.read_roots = STRV_MAKE("/b", "/a", "/b");
        b.read_roots = STRV_MAKE("/a", "/b");
        cr_assert(cordon_cap_policy_equal(&a, &b));
        cr_assert(cordon_cap_policy_equal(&b, &a));
        strv_free(b.read_roots);
        b.read_roots = STRV_MAKE("/a");
        cr_assert_not(cordon_cap_policy_equal(&a, &b));
        /* Lists that cover the same paths are equal: a nested entry adds nothing. */
        strv_free(b.read_roots);
        b.read_roots = STRV_MAKE("/a", "/b/c", "/b", "/a/x/y");
        cr_assert(cordon_cap_policy_equal(&a, &b));
        cr_assert(cordon_cap_policy_equal(&b, &a));
        strv_free(b.read_roots);
        b.read_roots = STRV_MAKE("/a", "/b/c");
        cr_assert_not(cordon_cap_policy_equal(&a, &b));
        cr_assert_not(cordon_cap_policy_equal(&b, &a));
        /* Fields that do not count while their flag is off. */
        strv_free(a.read_roots);
        a.read_roots = NULL;
        strv_free(b.read_roots);
        b.read_roots = strv_copy(NULL);
        cr_assert(cordon_cap_policy_equal(&a, &b), "NULL and empty lists are the same");
        a.capabilities = CORDON_CAP_LIST;
        a.side_effect_level = CORDON_SIDE_EFFECT_NONE + 2;
        a.presets = CORDON_PRESET_USER_TEMP;
        cr_assert(cordon_cap_policy_equal(&a, &b));
        a.presets_default = false;
        cr_assert_not(cordon_cap_policy_equal(&a, &b));
}

/* --- intersection --- */

static const struct {
        const char *a, *b;
        const char *result; /* the keys that differ from default_canonical, or the error */
        bool fails;
} intersections[] = {
    {"{}", "{}", "{}"},
    /* Profiles: the stricter one on the ladder. */
    {"{\"sandbox_profile\": \"unrestricted\"}", "{}", "{}"},
    {"{\"sandbox_profile\": \"wasi\"}", "{\"sandbox_profile\": \"os_hardened\"}",
     "{\"sandbox_profile\": \"os_hardened\"}"},
    {"{\"sandbox_profile\": \"unrestricted\"}", "{\"sandbox_profile\": \"wasi\"}",
     "{\"sandbox_profile\": \"wasi\"}"},
    /* Capabilities: no ceiling defers, else the common operations. */
    {"{\"capabilities\": {\"workspace\": [\"list\"]}}", "{}",
     "{\"capabilities\": {\"workspace\": [\"list\"], \"process\": []}}"},
    {"{\"capabilities\": {\"workspace\": []}}", "{\"capabilities\": null}",
     "{\"capabilities\": {\"workspace\": [], \"process\": []}}"},
    {"{\"capabilities\": {\"workspace\": [\"list\", \"read_text\"], \"process\": [\"exec\"]}}",
     "{\"capabilities\": {\"workspace\": [\"read_text\", \"delete\"]}}",
     "{\"capabilities\": {\"workspace\": [\"read_text\"], \"process\": []}}"},
    /* Side effects: absent defers, else the lower level. */
    {"{\"side_effect_level\": \"network\"}", "{}", "{\"side_effect_level\": \"network\"}"},
    {"{\"side_effect_level\": \"network\"}", "{\"side_effect_level\": \"none\"}",
     "{\"side_effect_level\": \"none\"}"},
    {"{\"side_effect_level\": \"process_exec\"}", "{\"side_effect_level\": \"workspace_write\"}",
     "{\"side_effect_level\": \"workspace_write\"}"},
    /* Presets: the default means all four, and stays the default only on both sides. */
    {"{\"process_sandbox\": {\"presets\": null}}", "{}", "{}"},
    {"{\"process_sandbox\": {\"presets\": [\"user_temp\"]}}", "{}",
     "{\"process_sandbox\": {\"presets\": [\"user_temp\"], \"read_roots\": [], "
     "\"write_roots\": []}}"},
    {"{\"process_sandbox\": {\"presets\": [\"system_runtime\", \"developer_toolchains\", "
     "\"package_manager_config\", \"user_temp\"]}}",
     "{}",
     "{\"process_sandbox\": {\"presets\": [\"system_runtime\", \"developer_toolchains\", "
     "\"package_manager_config\", \"user_temp\"], \"read_roots\": [], \"write_roots\": []}}"},
    {"{\"process_sandbox\": {\"presets\": [\"user_temp\", \"system_runtime\"]}}",
     "{\"process_sandbox\": {\"presets\": [\"system_runtime\", \"developer_toolchains\"]}}",
     "{\"process_sandbox\": {\"presets\": [\"system_runtime\"], \"read_roots\": [], "
     "\"write_roots\": []}}"},
    {"{\"process_sandbox\": {\"presets\": []}}",
     "{\"process_sandbox\": {\"presets\": [\"user_temp\"]}}",
     "{\"process_sandbox\": {\"presets\": [], \"read_roots\": [], \"write_roots\": []}}"},
    /* workspace_roots: an empty list defers, else the paths both cover. */
    {"{\"workspace_roots\": [\"/a\", \"/b\"]}", "{}", "{\"workspace_roots\": [\"/a\", \"/b\"]}"},
    {"{\"workspace_roots\": [\"/home/u\"]}", "{\"workspace_roots\": [\"/home/u/proj\"]}",
     "{\"workspace_roots\": [\"/home/u/proj\"]}"},
    {"{\"workspace_roots\": [\"/a\", \"/b/1\", \"/b/2\", \"/c\"]}",
     "{\"workspace_roots\": [\"/a/1\", \"/a/2\", \"/b\", \"/d\"]}",
     "{\"workspace_roots\": [\"/a/1\", \"/a/2\", \"/b/1\", \"/b/2\"]}"},
    {"{\"workspace_roots\": [\"/\"]}", "{\"workspace_roots\": [\"/x/y\", \"/z\"]}",
     "{\"workspace_roots\": [\"/x/y\", \"/z\"]}"},
    {"{\"workspace_roots\": [\"/a\", \"/a-b\"]}", "{\"workspace_roots\": [\"/a-b/c\", \"/a/c\"]}",
     "{\"workspace_roots\": [\"/a/c\", \"/a-b/c\"]}"},
    {"{\"workspace_roots\": [\"/a\"]}", "{\"workspace_roots\": [\"/b\"]}",
     "workspace_roots have no path in common: \"/a\" and \"/b\"", true},
    {"{\"workspace_roots\": [\"/ab\"]}", "{\"workspace_roots\": [\"/a\", \"/b\", \"/c\", \"/d\"]}",
     "workspace_roots have no path in common: \"/ab\" and \"/a\", \"/b\", \"/c\", ... (4 in all)",
     true},
    /* read_only_roots: the same. */
    {"{}", "{\"read_only_roots\": [\"/ref\"]}", "{\"read_only_roots\": [\"/ref\"]}"},
    {"{\"read_only_roots\": [\"/ref\"]}", "{\"read_only_roots\": [\"/ref/a\", \"/other\"]}",
     "{\"read_only_roots\": [\"/ref/a\"]}"},
    {"{\"read_only_roots\": [\"/ref\"]}", "{\"read_only_roots\": [\"/refs\"]}",
     "read_only_roots have no path in common: \"/ref\" and \"/refs\"", true},
    /* read_roots and write_roots: an empty list grants nothing. */
    {"{\"process_sandbox\": {\"read_roots\": [\"/opt\"]}}", "{}", "{}"},
    {"{\"process_sandbox\": {\"read_roots\": [\"/opt\"], \"write_roots\": [\"/var/c\"]}}",
     "{\"process_sandbox\": {\"read_roots\": [\"/opt/sdk\", \"/usr\"], \"write_roots\": "
     "[\"/var\"]}}",
     "{\"process_sandbox\": {\"presets\": null, \"read_roots\": [\"/opt/sdk\"], "
     "\"write_roots\": [\"/var/c\"]}}"},
    {"{\"process_sandbox\": {\"write_roots\": [\"/a\"]}}",
     "{\"process_sandbox\": {\"write_roots\": [\"/b\"]}}", "{}"},
};

Test(cap_policy, intersect_table)
{
        for (size_t i = 0; i < ELEMENTSOF(intersections); i++) {
                _cleanup_policy_ struct cordon_cap_policy a, b, ab, ba;
                parse_ok(intersections[i].a, &a);
                parse_ok(intersections[i].b, &b);
                struct cordon_diag d1 = {0}, d2 = {0};
                int r1 = cordon_cap_policy_intersect(&a, &b, &ab, &d1);
                int r2 = cordon_cap_policy_intersect(&b, &a, &ba, &d2);
                char what[512];
                snprintf(what, sizeof(what), "%s & %s", intersections[i].a, intersections[i].b);
                if (intersections[i].fails) {
                        cr_assert_eq(r1, -EINVAL, "%s", what);
                        cr_assert_eq(r2, -EINVAL, "%s", what);
                        cr_assert_str_eq(d1.message, intersections[i].result, "%s", what);
                        continue;
                }
                cr_assert_eq(r1, 0, "%s: %s", what, d1.message);
                cr_assert_eq(r2, 0, "%s: %s", what, d2.message);
                assert_canonical(&ab, intersections[i].result, what);
                cr_assert(cordon_cap_policy_equal(&ab, &ba), "%s: not commutative", what);
                assert_round_trip(&ab);
        }
}

Test(cap_policy, intersect_result_may_alias_an_input)
{
        _cleanup_policy_ struct cordon_cap_policy a, b;
        parse_ok("{\"workspace_roots\": [\"/a\"], \"sandbox_profile\": \"wasi\"}", &a);
        parse_ok("{\"workspace_roots\": [\"/a/b\"]}", &b);
        cr_assert_eq(cordon_cap_policy_intersect(&a, &b, &a, NULL), 0);
        assert_canonical(&a, "{\"workspace_roots\": [\"/a/b\"], \"sandbox_profile\": \"wasi\"}",
                         "a &= b");
        cr_assert_eq(cordon_cap_policy_intersect(&a, &b, &b, NULL), 0);
        cr_assert(cordon_cap_policy_equal(&a, &b));
        /* A failure leaves the aliased input alone. */
        _cleanup_policy_ struct cordon_cap_policy c;
        parse_ok("{\"workspace_roots\": [\"/c\"]}", &c);
        cr_assert_eq(cordon_cap_policy_intersect(&a, &c, &a, NULL), -EINVAL);
        cr_assert_str_eq(a.workspace_roots[0], "/a/b");
}

Test(cap_policy, intersect_failure_leaves_an_empty_policy)
{
        _cleanup_policy_ struct cordon_cap_policy a, b, ret;
        parse_ok("{\"read_only_roots\": [\"/a\"]}", &a);
        parse_ok("{\"read_only_roots\": [\"/b\"]}", &b);
        memset(&ret, 0x5a, sizeof(ret));
        cr_assert_eq(cordon_cap_policy_intersect(&a, &b, &ret, NULL), -EINVAL);
        cr_assert_null(ret.read_only_roots); /* and clearing it is safe */
        cr_assert(ret.presets_default);
}

Test(cap_policy, intersect_refuses_invalid_profiles)
{
        _cleanup_policy_ struct cordon_cap_policy a, b, ret;
        cordon_cap_policy_init(&a);
        cordon_cap_policy_init(&b);
        b.profile = (enum cordon_profile)17;
        struct cordon_diag diag = {0};
        cr_assert_eq(cordon_cap_policy_intersect(&a, &b, &ret, &diag), -EINVAL);
        cr_assert_str_eq(diag.message, "invalid sandbox profile");
}

Test(cap_policy, intersect_entry_limit)
{
        /* [/a, /b/0 ...] & [/b, /a/0 ...]: the result takes the deeper entries of both sides,
         * which is more than one list may hold. */
        _cleanup_policy_ struct cordon_cap_policy a, b, ret;
        cordon_cap_policy_init(&a);
        cordon_cap_policy_init(&b);
        cr_assert_eq(strv_extend(&a.workspace_roots, "/a"), 0);
        cr_assert_eq(strv_extend(&b.workspace_roots, "/b"), 0);
        for (int i = 0; i < CORDON_CAP_POLICY_MAX_ENTRIES - 1; i++) {
                char p[32];
                snprintf(p, sizeof(p), "/b/%d", i);
                cr_assert_eq(strv_extend(&a.workspace_roots, p), 0);
                p[1] = 'a';
                cr_assert_eq(strv_extend(&b.workspace_roots, p), 0);
        }
        struct cordon_diag diag = {0};
        cr_assert_eq(cordon_cap_policy_intersect(&a, &b, &ret, &diag), -EINVAL);
        cr_assert_str_eq(diag.message,
                         "workspace_roots: the intersection has more than 4096 entries");
        /* Half of it fits. */
        _cleanup_policy_ struct cordon_cap_policy c;
        cordon_cap_policy_init(&c);
        c.workspace_roots = STRV_MAKE("/a");
        cr_assert_eq(cordon_cap_policy_intersect(&a, &c, &ret, &diag), 0, "%s", diag.message);
        cr_assert_eq(strv_length(ret.workspace_roots), 1);
        cordon_cap_policy_clear(&ret);
        cr_assert_eq(cordon_cap_policy_intersect(&b, &c, &ret, &diag), 0, "%s", diag.message);
        cr_assert_eq(strv_length(ret.workspace_roots), CORDON_CAP_POLICY_MAX_ENTRIES - 1);
}

/* --- properties over generated policies --- */

/* Roots the generator draws from: nested, siblings, look-alike prefixes, and the root itself. */
static const char *const universe[] = {
    "/", "/a", "/a/b", "/a/b/c", "/a-b", "/ab", "/c", "/c/d",
};
/* Paths the checks probe: the universe, and one step below each entry. */
static const char *const probes[] = {
    "/",   "/a",    "/a/b",   "/a/b/c", "/a/b/c/x", "/a/x",   "/a/b/x", "/a-b",
    "/ab", "/ab/x", "/a-b/x", "/c",     "/c/d",     "/c/d/e", "/c/x",   "/x",
};

static unsigned long long rng_state = 0x9e3779b97f4a7c15ull;

static unsigned rnd(unsigned n)
{
        rng_state ^= rng_state << 13;
        rng_state ^= rng_state >> 7;
        rng_state ^= rng_state << 17;
        return (unsigned)(rng_state % n);
}

/* A hand-built (so unsorted, possibly nested) subset of the universe chosen by @mask. */
static char **subset(unsigned mask)
{
        char **l = NULL;
        for (size_t i = 0; i < ELEMENTSOF(universe); i++)
                if (mask & (1u << i))
                        cr_assert_eq(strv_extend(&l, universe[(i * 5) % ELEMENTSOF(universe)]), 0);
        return l;
}

static char **random_roots(void)
{
        /* Mostly short lists; every so often none. */
        unsigned mask = 0;
        for (unsigned k = rnd(4); k > 0; k--)
                mask |= 1u << rnd(ELEMENTSOF(universe));
        return subset(mask);
}

static void random_policy(struct cordon_cap_policy *p)
{
        cordon_cap_policy_init(p);
        p->has_capabilities = rnd(3) != 0;
        p->capabilities = p->has_capabilities ? rnd(CORDON_CAP_ALL + 1) : 0;
        p->profile = (enum cordon_profile)rnd(_CORDON_PROFILE_MAX);
        p->has_side_effect_level = rnd(2);
        p->side_effect_level =
            p->has_side_effect_level ? (enum cordon_side_effect)rnd(_CORDON_SIDE_EFFECT_MAX) : 0;
        p->presets_default = rnd(2);
        p->presets = p->presets_default ? 0 : rnd(CORDON_PRESETS_ALL + 1);
        p->workspace_roots = random_roots();
        p->read_only_roots = rnd(2) ? random_roots() : NULL;
        p->read_roots = random_roots();
        p->write_roots = rnd(2) ? random_roots() : NULL;
}

static bool covered(char *const *l, const char *path)
{
        STRV_FOREACH (r, l)
                if (path_is_below(path, *r))
                        return true;
        return false;
}

/* workspace_roots and read_only_roots: an empty list is no ceiling. */
static bool ceiling_allows(char *const *l, const char *path)
{
        return strv_length(l) == 0 || covered(l, path);
}

static unsigned caps_of(const struct cordon_cap_policy *p)
{
        return p->has_capabilities ? p->capabilities : CORDON_CAP_ALL;
}

static unsigned level_of(const struct cordon_cap_policy *p)
{
        return p->has_side_effect_level ? p->side_effect_level : CORDON_SIDE_EFFECT_NETWORK;
}

static unsigned presets_of(const struct cordon_cap_policy *p)
{
        return p->presets_default ? CORDON_PRESETS_ALL : p->presets;
}

/* True when everything @r allows, @x allows too: @r is at least as strict as @x. */
static bool covers(const struct cordon_cap_policy *r, const struct cordon_cap_policy *x)
{
        if (r->profile < x->profile || (caps_of(r) & ~caps_of(x)) || level_of(r) > level_of(x) ||
            (presets_of(r) & ~presets_of(x)))
                return false;
        for (size_t i = 0; i < ELEMENTSOF(probes); i++) {
                const char *p = probes[i];
                if ((ceiling_allows(r->workspace_roots, p) &&
                     !ceiling_allows(x->workspace_roots, p)) ||
                    (ceiling_allows(r->read_only_roots, p) &&
                     !ceiling_allows(x->read_only_roots, p)) ||
                    (covered(r->read_roots, p) && !covered(x->read_roots, p)) ||
                    (covered(r->write_roots, p) && !covered(x->write_roots, p)))
                        return false;
        }
        return true;
}

/* The intersection is not stricter than it has to be either: on every probe path, it allows
 * what both sides allow. */
static bool is_greatest(const struct cordon_cap_policy *r, const struct cordon_cap_policy *a,
                        const struct cordon_cap_policy *b)
{
        if (r->profile != (a->profile > b->profile ? a->profile : b->profile) ||
            caps_of(r) != (caps_of(a) & caps_of(b)) ||
            level_of(r) != (level_of(a) < level_of(b) ? level_of(a) : level_of(b)) ||
            presets_of(r) != (presets_of(a) & presets_of(b)))
                return false;
        for (size_t i = 0; i < ELEMENTSOF(probes); i++) {
                const char *p = probes[i];
                if (ceiling_allows(r->workspace_roots, p) !=
                        (ceiling_allows(a->workspace_roots, p) &&
                         ceiling_allows(b->workspace_roots, p)) ||
                    ceiling_allows(r->read_only_roots, p) !=
                        (ceiling_allows(a->read_only_roots, p) &&
                         ceiling_allows(b->read_only_roots, p)) ||
                    covered(r->read_roots, p) !=
                        (covered(a->read_roots, p) && covered(b->read_roots, p)) ||
                    covered(r->write_roots, p) !=
                        (covered(a->write_roots, p) && covered(b->write_roots, p)))
                        return false;
        }
        return true;
}

/* Whether two non-empty lists share a probe path (the generator's paths are all probes). */
static bool share_a_path(char *const *a, char *const *b)
{
        for (size_t i = 0; i < ELEMENTSOF(probes); i++)
                if (covered(a, probes[i]) && covered(b, probes[i]))
                        return true;
        return false;
}

static bool should_fail(const struct cordon_cap_policy *a, const struct cordon_cap_policy *b)
{
        return (strv_length(a->workspace_roots) > 0 && strv_length(b->workspace_roots) > 0 &&
                !share_a_path(a->workspace_roots, b->workspace_roots)) ||
               (strv_length(a->read_only_roots) > 0 && strv_length(b->read_only_roots) > 0 &&
                !share_a_path(a->read_only_roots, b->read_only_roots));
}

#define N_GENERATED 160

Test(cap_policy, properties_of_generated_policies)
{
        static struct cordon_cap_policy gen[N_GENERATED];
        for (size_t i = 0; i < N_GENERATED; i++) {
                random_policy(&gen[i]);
                /* Each policy round-trips through its canonical form, and that form is the
                 * intersection with itself. */
                _cleanup_free_ char *s = to_json(&gen[i]);
                _cleanup_policy_ struct cordon_cap_policy canon, self;
                parse_ok(s, &canon);
                cr_assert(cordon_cap_policy_equal(&canon, &gen[i]), "%s", s);
                cr_assert(covers(&canon, &gen[i]) && covers(&gen[i], &canon), "%s", s);
                cr_assert_eq(cordon_cap_policy_intersect(&gen[i], &gen[i], &self, NULL), 0);
                cr_assert(cordon_cap_policy_equal(&self, &canon), "x & x != x:\n%s", s);
        }
        size_t n_ok = 0, n_failed = 0;
        for (size_t i = 0; i < N_GENERATED; i++)
                for (size_t j = i; j < N_GENERATED; j++) {
                        const struct cordon_cap_policy *a = &gen[i], *b = &gen[j];
                        _cleanup_policy_ struct cordon_cap_policy ab, ba;
                        int r1 = cordon_cap_policy_intersect(a, b, &ab, NULL);
                        int r2 = cordon_cap_policy_intersect(b, a, &ba, NULL);
                        cr_assert_eq(r1, r2, "pair %zu,%zu: not commutative", i, j);
                        cr_assert_eq(r1 < 0, should_fail(a, b), "pair %zu,%zu: %d", i, j, r1);
                        if (r1 < 0) {
                                cr_assert_eq(r1, -EINVAL);
                                n_failed++;
                                continue;
                        }
                        n_ok++;
                        cr_assert(cordon_cap_policy_equal(&ab, &ba), "pair %zu,%zu", i, j);
                        cr_assert(covers(&ab, a) && covers(&ab, b), "pair %zu,%zu: looser", i, j);
                        cr_assert(is_greatest(&ab, a, b), "pair %zu,%zu: too strict", i, j);
                        if ((i + j) % 16 == 0)
                                assert_round_trip(&ab);
                }
        /* The generator reaches both outcomes. */
        cr_assert_gt(n_ok, 1000);
        cr_assert_gt(n_failed, 100);
        for (size_t i = 0; i < N_GENERATED; i++)
                cordon_cap_policy_clear(&gen[i]);
}

/* Every pair of subsets of the universe, as workspace_roots (a ceiling) and as read_roots (a
 * grant): exactly the common paths, in canonical form. */
Test(cap_policy, roots_exhaustive)
{
        for (unsigned ma = 0; ma < 1u << ELEMENTSOF(universe); ma++)
                for (unsigned mb = ma; mb < 1u << ELEMENTSOF(universe); mb += 3) {
                        _cleanup_policy_ struct cordon_cap_policy a, b, r;
                        cordon_cap_policy_init(&a);
                        cordon_cap_policy_init(&b);
                        a.workspace_roots = subset(ma);
                        b.workspace_roots = subset(mb);
                        a.read_roots = subset(ma);
                        b.read_roots = subset(mb);
                        int k = cordon_cap_policy_intersect(&a, &b, &r, NULL);
                        cr_assert_eq(k < 0, should_fail(&a, &b), "%x & %x", ma, mb);
                        if (k < 0)
                                continue;
                        cr_assert(is_greatest(&r, &a, &b), "%x & %x", ma, mb);
                        /* Canonical: sorted in path order, nothing below another entry. */
                        char **l = r.read_roots;
                        for (size_t i = 1; l && l[0] && l[i]; i++)
                                cr_assert_not(path_is_below(l[i], l[i - 1]), "%s %s", l[i - 1],
                                              l[i]);
                }
}
