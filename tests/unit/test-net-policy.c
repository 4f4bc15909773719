/* Unit tests for src/lib/net/net-policy.c: the NetworkPolicy parser and its messages, the
 * writer, and the rules a limited policy stands for. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "lib/net/net-policy.h"
#include "shared/macro.h"
#include "shared/strv.h"

TestSuite(net_policy);

#define SOURCE "policy.json"

static void parse_ok(const char *json, struct cordon_net_policy *ret)
{
        struct cordon_diag d = {0};
        int r = cordon_net_policy_parse(json, strlen(json), SOURCE, ret, &d);
        cr_assert_eq(r, 0, "%s: %d %s", json, r, d.message);
}

/* @json fails with -EINVAL and exactly @message; the output policy is untouched. */
static void parse_bad(const char *json, const char *message)
{
        struct cordon_diag d = {0};
        struct cordon_net_policy p = {.mode = 77, .allowed_hosts = NULL};
        cr_assert_eq(cordon_net_policy_parse(json, strlen(json), SOURCE, &p, &d), -EINVAL,
                     "%s accepted", json);
        cr_assert_str_eq(d.message, message, "%s", json);
        cr_assert_eq((int)p.mode, 77);
        cr_assert_null(p.allowed_hosts);
}

/* A JSON syntax error: jansson's wording varies between versions, the position does not. */
static void parse_bad_syntax(const char *json, const char *prefix)
{
        struct cordon_diag d = {0};
        struct cordon_net_policy p;
        cr_assert_eq(cordon_net_policy_parse(json, strlen(json), SOURCE, &p, &d), -EINVAL,
                     "%s accepted", json);
        cr_assert(startswith(d.message, prefix), "%s: %s", json, d.message);
        cr_assert(!strchr(d.message, '\n'));
}

static char *to_json(const struct cordon_net_policy *p)
{
        char *s = NULL;
        cr_assert_eq(cordon_net_policy_to_json(p, &s), 0);
        cr_assert_not_null(s);
        return s;
}

Test(net_policy, unrestricted)
{
        struct cordon_net_policy p;
        parse_ok("{\"mode\":\"unrestricted\"}", &p);
        cr_assert_eq(p.mode, CORDON_NET_POLICY_UNRESTRICTED);
        cr_assert_null(p.allowed_hosts);
        _cleanup_free_ char *s = to_json(&p);
        cr_assert_str_eq(s, "{\"mode\":\"unrestricted\"}");
        cordon_net_policy_clear(&p);

        parse_ok(" {\"type\" : \"unrestricted\"}\n", &p);
        cr_assert_eq(p.mode, CORDON_NET_POLICY_UNRESTRICTED);
        parse_ok("{\"type\":\"unrestricted\",\"mode\":\"unrestricted\"}", &p);
        cr_assert_eq(p.mode, CORDON_NET_POLICY_UNRESTRICTED);
}

Test(net_policy, limited)
{
        struct cordon_net_policy p;
        parse_ok("{\"mode\":\"limited\",\"allowed_hosts\":[\"github.com\",\"*.pythonhosted.org\","
                 "\"api.anthropic.com:443\",\"198.18.0.0/15\",\"[2001:db8::/32]:443\"]}",
                 &p);
        cr_assert_eq(p.mode, CORDON_NET_POLICY_LIMITED);
        cr_assert_eq(strv_length(p.allowed_hosts), 5);
        cr_assert_str_eq(p.allowed_hosts[1], "*.pythonhosted.org");
        _cleanup_free_ char *s = to_json(&p);
        cr_assert_str_eq(s, "{\"mode\":\"limited\",\"allowed_hosts\":[\"github.com\","
                            "\"*.pythonhosted.org\",\"api.anthropic.com:443\",\"198.18.0.0/15\","
                            "\"[2001:db8::/32]:443\"]}");
        /* The output parses back to the same policy, and is a fixed point. */
        struct cordon_net_policy q;
        parse_ok(s, &q);
        _cleanup_free_ char *s2 = to_json(&q);
        cr_assert_str_eq(s, s2);
        cordon_net_policy_clear(&q);
        cordon_net_policy_clear(&p);
        cr_assert_null(p.allowed_hosts);

        /* `type` is read for `mode`; `mode` is written. Hosts are kept as written. */
        parse_ok("{\"allowed_hosts\":[\"GitHub.com.\"],\"type\":\"limited\"}", &p);
        cr_assert_eq(p.mode, CORDON_NET_POLICY_LIMITED);
        _cleanup_free_ char *t = to_json(&p);
        cr_assert_str_eq(t, "{\"mode\":\"limited\",\"allowed_hosts\":[\"GitHub.com.\"]}");
        cordon_net_policy_clear(&p);
}

Test(net_policy, empty_list_denies_everything)
{
        struct cordon_net_policy p;
        parse_ok("{\"mode\":\"limited\",\"allowed_hosts\":[]}", &p);
        cr_assert_eq(p.mode, CORDON_NET_POLICY_LIMITED);
        cr_assert_not_null(p.allowed_hosts);
        cr_assert_eq(strv_length(p.allowed_hosts), 0);
        _cleanup_free_ char *s = to_json(&p);
        cr_assert_str_eq(s, "{\"mode\":\"limited\",\"allowed_hosts\":[]}");

        struct cordon_net_rules *r = NULL;
        cr_assert_eq(cordon_net_rules_new(&r), 0);
        cr_assert_eq(cordon_net_policy_add_rules(&p, r, SOURCE, NULL), 0);
        struct cordon_net_verdict v;
        cordon_net_rules_check_name(r, "github.com", 443, &v);
        cr_assert(!v.allow);
        cr_assert_str_eq(v.rule->pattern, "*");
        cr_assert_str_eq(v.rule->origin, SOURCE " /mode");
        struct cordon_net_addr a;
        cr_assert_eq(cordon_net_addr_parse("192.0.2.1", &a), 0);
        cordon_net_rules_check_addr(r, &a, 443, false, &v);
        cr_assert(!v.allow);
        cordon_net_rules_free(r);
        cordon_net_policy_clear(&p);
}

Test(net_policy, limited_rules)
{
        struct cordon_net_policy p;
        parse_ok("{\"mode\":\"limited\",\"allowed_hosts\":[\"github.com\",\"*.pkg.example\","
                 "\"hooks.slack.com\",\"192.0.2.7\"]}",
                 &p);
        struct cordon_net_rules *r = NULL;
        cr_assert_eq(cordon_net_rules_new(&r), 0);
        size_t n = cordon_net_rules_count(r);
        cr_assert_eq(cordon_net_policy_add_rules(&p, r, SOURCE, NULL), 0);
        cr_assert_eq(cordon_net_rules_count(r), n + 5);
        struct cordon_net_verdict v;
        cordon_net_rules_check_name(r, "github.com", 443, &v);
        cr_assert(v.allow);
        cr_assert_str_eq(v.rule->origin, SOURCE " /allowed_hosts/0");
        cordon_net_rules_check_name(r, "registry.pkg.example", 443, &v);
        cr_assert(v.allow);
        cordon_net_rules_check_name(r, "gitlab.com", 443, &v);
        cr_assert(!v.allow);
        cordon_net_rules_check_name(r, "hooks.slack.com", 443, &v); /* the floor stays */
        cr_assert(!v.allow);
        cr_assert(v.rule->floor);
        struct cordon_net_addr a;
        cr_assert_eq(cordon_net_addr_parse("192.0.2.7", &a), 0);
        cordon_net_rules_check_addr(r, &a, 443, false, &v);
        cr_assert(v.allow);
        cr_assert_eq(cordon_net_addr_parse("192.0.2.8", &a), 0);
        cordon_net_rules_check_addr(r, &a, 443, false, &v);
        cr_assert(!v.allow);
        cordon_net_rules_free(r);

        /* Unrestricted adds nothing. */
        cordon_net_policy_clear(&p);
        cr_assert_eq(cordon_net_rules_new(&r), 0);
        cr_assert_eq(cordon_net_policy_add_rules(&p, r, SOURCE, NULL), 0);
        cr_assert_eq(cordon_net_rules_count(r), n);
        cordon_net_rules_free(r);
}

Test(net_policy, errors_name_source_and_pointer)
{
        parse_bad_syntax("", SOURCE ":1:0: ");
        parse_bad_syntax("{\"mode\":", SOURCE ":1:8: ");
        parse_bad("[]", SOURCE ": top level: expected an object, got an array");
        parse_bad("\"limited\"", SOURCE ": top level: expected an object, got a string");
        parse_bad("{}", SOURCE ": top level: missing key \"mode\"");
        parse_bad("{\"mode\":\"open\"}",
                  SOURCE ": /mode: unknown mode \"open\" (expected unrestricted or limited)");
        parse_bad("{\"mode\":\"Limited\",\"allowed_hosts\":[]}",
                  SOURCE ": /mode: unknown mode \"Limited\" (expected unrestricted or limited)");
        parse_bad("{\"mode\":\"limited\\u0000\",\"allowed_hosts\":[]}",
                  SOURCE ": /mode: unknown mode \"limited\\x00\" (expected unrestricted or "
                         "limited)");
        parse_bad("{\"type\":\"closed\"}",
                  SOURCE ": /type: unknown mode \"closed\" (expected unrestricted or limited)");
        parse_bad("{\"mode\":1}", SOURCE ": /mode: expected a string, got a number");
        parse_bad("{\"mode\":null}", SOURCE ": /mode: expected a string, got null");
        parse_bad("{\"mode\":\"limited\",\"type\":\"unrestricted\",\"allowed_hosts\":[]}",
                  SOURCE ": /type: \"unrestricted\" disagrees with mode \"limited\"");
        parse_bad("{\"mode\":\"unrestricted\",\"allowed_hosts\":[]}",
                  SOURCE ": /allowed_hosts: not allowed with mode \"unrestricted\"");
        parse_bad("{\"mode\":\"limited\"}",
                  SOURCE ": top level: missing key \"allowed_hosts\" (required with mode "
                         "\"limited\"; [] denies everything)");
        parse_bad("{\"mode\":\"limited\",\"allowed_hosts\":null}",
                  SOURCE ": /allowed_hosts: expected an array, got null");
        parse_bad("{\"mode\":\"limited\",\"allowed_hosts\":\"github.com\"}",
                  SOURCE ": /allowed_hosts: expected an array, got a string");
        parse_bad("{\"mode\":\"limited\",\"allowed_hosts\":[\"a.com\",\"b.com\",1]}",
                  SOURCE ": /allowed_hosts/2: expected a string, got a number");
        parse_bad("{\"mode\":\"limited\",\"allowed_hosts\":[\"a.com\",\"b.com\",\"127.1\"]}",
                  SOURCE ": /allowed_hosts/2: \"127.1\": not a canonical IP address");
        parse_bad("{\"mode\":\"limited\",\"allowed_hosts\":[\"\"]}",
                  SOURCE ": /allowed_hosts/0: \"\": empty pattern");
        parse_bad("{\"mode\":\"limited\",\"allowed_hosts\":[\"a b\"]}",
                  SOURCE ": /allowed_hosts/0: \"a b\": control byte or space in pattern");
        parse_bad("{\"mode\":\"limited\",\"allowed_hosts\":[\"evil.com\\u0000.github.com\"]}",
                  SOURCE ": /allowed_hosts/0: \"evil.com\\x00.github.com\": a NUL byte is not "
                         "allowed");
        parse_bad("{\"mode\":\"limited\",\"allowed_hosts\":[\"api[12].example.com\"]}",
                  SOURCE ": /allowed_hosts/0: \"api[12].example.com\": bracket expressions "
                         "(\"[...]\") are not supported in a host name; use \"?\" for one "
                         "character or \"*\" for any");
        parse_bad("{\"mode\":\"limited\",\"allowed_hosts\":[],\"extra\":1}",
                  SOURCE ": /extra: unknown key (expected mode, type or allowed_hosts)");
        parse_bad("{\"mode\":\"limited\",\"allowed_hosts\":[],\"a/b~c\":1}",
                  SOURCE ": /a~1b~0c: unknown key (expected mode, type or allowed_hosts)");
        parse_bad_syntax("{\"mode\":\"limited\",\"mode\":\"limited\",\"allowed_hosts\":[]}",
                         SOURCE ":1:24: duplicate object key near '\"mode\"'");
}

Test(net_policy, limits)
{
        struct cordon_diag d = {0};
        struct cordon_net_policy p;
        cr_assert_eq(cordon_net_policy_parse("{}", CORDON_NET_POLICY_MAX_BYTES + 1, SOURCE, &p, &d),
                     -EFBIG);
        cr_assert_str_eq(d.message, SOURCE ": larger than 1048576 bytes");

        size_t n = CORDON_NET_POLICY_MAX_HOSTS + 1;
        char *json = malloc(64 + n * 8);
        cr_assert_not_null(json);
        size_t o = (size_t)sprintf(json, "{\"mode\":\"limited\",\"allowed_hosts\":[");
        for (size_t i = 0; i < n; i++)
                o += (size_t)sprintf(json + o, "%s\"a.com\"", i ? "," : "");
        strcpy(json + o, "]}");
        cr_assert_eq(cordon_net_policy_parse(json, strlen(json), SOURCE, &p, &d), -EINVAL);
        cr_assert_str_eq(d.message, SOURCE ": /allowed_hosts: more than 4096 hosts (the limit)");
        free(json);

        cr_assert_eq(cordon_net_policy_parse(NULL, 0, SOURCE, &p, &d), -EINVAL);
        cr_assert_eq(cordon_net_policy_parse("{}", 2, NULL, &p, &d), -EINVAL);
        cr_assert_str_eq(d.message, "network policy: top level: missing key \"mode\"");
}

Test(net_policy, writer_refuses_what_no_parse_gives)
{
        struct cordon_net_policy p = {.mode = 7};
        char *s = NULL;
        cr_assert_eq(cordon_net_policy_to_json(&p, &s), -EINVAL);
        cr_assert_null(s);
        char bad[] = "b\xff.com";
        char *hosts[] = {bad, NULL};
        p = (struct cordon_net_policy){.mode = CORDON_NET_POLICY_LIMITED, .allowed_hosts = hosts};
        cr_assert_eq(cordon_net_policy_to_json(&p, &s), -EINVAL);
        cr_assert_null(s);
        /* A hand-built limited policy with no list writes an empty one. */
        p.allowed_hosts = NULL;
        cr_assert_eq(cordon_net_policy_to_json(&p, &s), 0);
        cr_assert_str_eq(s, "{\"mode\":\"limited\",\"allowed_hosts\":[]}");
        free(s);
}
