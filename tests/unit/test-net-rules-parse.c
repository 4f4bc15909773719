/* Unit tests for src/lib/net/net-rules-parse.c and net-addr.c: the pattern syntax and its
 * messages (host globs, URL paths, bracketed IPv6 with a port either way), name normalisation,
 * canonical addresses. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "lib/net/net-rules.h"
#include "shared/macro.h"

TestSuite(net_rules_parse);

#define ORIGIN "command line --block"

/* @p parses as @kind with @port and @name_or_addr (a host, suffix or glob; an address for a
 * CIDR, with @prefix) and the URL path @path (NULL: none). */
static void parse_ok_path(const char *p, enum cordon_net_rule_kind kind, uint16_t port,
                          const char *name_or_addr, unsigned prefix, const char *path)
{
        struct cordon_net_rule rule;
        struct cordon_diag d = {0};
        cr_assert_eq(cordon_net_rule_parse(p, false, ORIGIN, &rule, &d), 0, "%s: %s", p, d.message);
        cr_assert_eq(rule.kind, kind, "%s: kind %d", p, rule.kind);
        cr_assert_eq(rule.port, port, "%s: port %u", p, rule.port);
        cr_assert_str_eq(rule.pattern, p);
        cr_assert_str_eq(rule.origin, ORIGIN);
        cr_assert(!rule.exception && !rule.floor);
        if (kind == CORDON_NET_RULE_HOST || kind == CORDON_NET_RULE_SUFFIX ||
            kind == CORDON_NET_RULE_GLOB)
                cr_assert_str_eq(rule.name, name_or_addr, "%s", p);
        else
                cr_assert_null(rule.name);
        if (path)
                cr_assert_str_eq(rule.path, path, "%s", p);
        else
                cr_assert_null(rule.path, "%s: path %s", p, rule.path);
        if (kind == CORDON_NET_RULE_CIDR) {
                char buf[INET6_ADDRSTRLEN];
                cordon_net_addr_format(&rule.addr, buf, sizeof(buf));
                cr_assert_str_eq(buf, name_or_addr, "%s", p);
                cr_assert_eq(rule.prefix, prefix, "%s: prefix %u", p, rule.prefix);
        }
        cordon_net_rule_clear(&rule);
}

static void parse_ok(const char *p, enum cordon_net_rule_kind kind, uint16_t port,
                     const char *name_or_addr, unsigned prefix)
{
        parse_ok_path(p, kind, port, name_or_addr, prefix, NULL);
}

/* @p is refused with a message naming the pattern (as quoted), the origin and @why. */
static void parse_bad_quoted(const char *p, const char *quoted, const char *why)
{
        struct cordon_net_rule rule;
        struct cordon_diag d = {0};
        cr_assert_eq(cordon_net_rule_parse(p, false, ORIGIN, &rule, &d), -EINVAL, "%s accepted",
                     quoted);
        char expect[sizeof(d.message)];
        snprintf(expect, sizeof(expect), "NETWORK_BLOCKLIST entry \"%s\" (" ORIGIN "): %s", quoted,
                 why);
        cr_assert_str_eq(d.message, expect);
        const char *reason = NULL;
        cr_assert_eq(cordon_net_pattern_check(p, &reason), -EINVAL);
        cr_assert_str_eq(reason, why);
}

static void parse_bad(const char *p, const char *why)
{
        parse_bad_quoted(p, p, why);
}

Test(net_rules_parse, every_kind_parses)
{
        parse_ok("example.com", CORDON_NET_RULE_HOST, 0, "example.com", 0);
        parse_ok("Example.COM.", CORDON_NET_RULE_HOST, 0, "example.com", 0);
        parse_ok("my_host-1.example.com:8443", CORDON_NET_RULE_HOST, 8443, "my_host-1.example.com",
                 0);
        parse_ok("localhost", CORDON_NET_RULE_HOST, 0, "localhost", 0);
        parse_ok("*.example.com", CORDON_NET_RULE_SUFFIX, 0, "example.com", 0);
        parse_ok("*.EXAMPLE.com.:443", CORDON_NET_RULE_SUFFIX, 443, "example.com", 0);
        parse_ok("*.com", CORDON_NET_RULE_SUFFIX, 0, "com", 0);
        parse_ok("*", CORDON_NET_RULE_ANY, 0, NULL, 0);
        parse_ok("*:22", CORDON_NET_RULE_ANY, 22, NULL, 0);
        parse_ok("22", CORDON_NET_RULE_PORT, 22, NULL, 0);
        parse_ok("1", CORDON_NET_RULE_PORT, 1, NULL, 0);
        parse_ok("65535", CORDON_NET_RULE_PORT, 65535, NULL, 0);
        parse_ok("203.0.113.5", CORDON_NET_RULE_CIDR, 0, "203.0.113.5", 32);
        parse_ok("203.0.113.5:80", CORDON_NET_RULE_CIDR, 80, "203.0.113.5", 32);
        parse_ok("0.0.0.0", CORDON_NET_RULE_CIDR, 0, "0.0.0.0", 32);
        parse_ok("10.0.0.0/8", CORDON_NET_RULE_CIDR, 0, "10.0.0.0", 8);
        parse_ok("10.1.2.3/8:25", CORDON_NET_RULE_CIDR, 25, "10.0.0.0", 8); /* host bits cleared */
        parse_ok("0.0.0.0/0", CORDON_NET_RULE_CIDR, 0, "0.0.0.0", 0);
        parse_ok("2001:db8::1", CORDON_NET_RULE_CIDR, 0, "2001:db8::1", 128);
        parse_ok("2001:DB8::1", CORDON_NET_RULE_CIDR, 0, "2001:db8::1", 128);
        parse_ok("[2001:db8::1]:443", CORDON_NET_RULE_CIDR, 443, "2001:db8::1", 128);
        parse_ok("[2001:db8::1]", CORDON_NET_RULE_CIDR, 0, "2001:db8::1", 128);
        parse_ok("2001:db8::/32", CORDON_NET_RULE_CIDR, 0, "2001:db8::", 32);
        parse_ok("[2001:db8:ffff::/32]:443", CORDON_NET_RULE_CIDR, 443, "2001:db8::", 32);
        parse_ok("::/0", CORDON_NET_RULE_CIDR, 0, "::", 0);
        parse_ok("::1", CORDON_NET_RULE_CIDR, 0, "::1", 128);
        /* IPv4-mapped patterns become the IPv4 rule they stand for. */
        parse_ok("::ffff:10.1.2.3", CORDON_NET_RULE_CIDR, 0, "10.1.2.3", 32);
        parse_ok("::ffff:10.0.0.0/104", CORDON_NET_RULE_CIDR, 0, "10.0.0.0", 8);
        parse_ok("::ffff:0:0/80", CORDON_NET_RULE_CIDR, 0, "::", 80);
}

Test(net_rules_parse, exception_flag_and_null_origin)
{
        struct cordon_net_rule rule;
        cr_assert_eq(cordon_net_rule_parse("github.com", true, NULL, &rule, NULL), 0);
        cr_assert(rule.exception);
        cr_assert_null(rule.origin);
        cordon_net_rule_clear(&rule);
        cordon_net_rule_clear(&rule); /* idempotent */

        struct cordon_diag d = {0};
        cr_assert_eq(cordon_net_rule_parse("127.1", true, NULL, &rule, &d), -EINVAL);
        cr_assert_str_eq(d.message,
                         "NETWORK_BLOCKLIST_EXCEPT entry \"127.1\": not a canonical IP address");
        cr_assert_eq(cordon_net_rule_parse("127.1", true, "policy.json", &rule, &d), -EINVAL);
        cr_assert_str_eq(d.message, "NETWORK_BLOCKLIST_EXCEPT entry \"127.1\" (policy.json): not "
                                    "a canonical IP address");
}

Test(net_rules_parse, malformed_patterns_name_pattern_and_origin)
{
        parse_bad("", "empty pattern");
        parse_bad(" example.com", "control byte or space in pattern");
        parse_bad("example .com", "control byte or space in pattern");
        parse_bad_quoted("exa\tmple.com", "exa\\x09mple.com", "control byte or space in pattern");
        parse_bad_quoted("exa\x7fmple.com", "exa\\x7fmple.com", "control byte or space in pattern");
        parse_bad_quoted("b\xc3\xbc"
                         "cher.de",
                         "b\\xc3\\xbccher.de", "non-ASCII byte in pattern (IDN only as punycode)");
        parse_bad_quoted("a\"b", "a\\\"b",
                         "character not allowed in a host name (letters, digits, '-', '_')");
        parse_bad("*.", "empty host name");
        parse_bad("**.", "empty host name");
        parse_bad("*:", "empty port");
        parse_bad("*:0", "port out of range (1-65535)");
        parse_bad("0", "port out of range (1-65535)");
        parse_bad("65536", "port out of range (1-65535)");
        parse_bad("99999", "port out of range (1-65535)");
        parse_bad("080", "port with a leading zero");
        parse_bad("example.com:080", "port with a leading zero");
        parse_bad("example.com:+80", "port is not a decimal number");
        parse_bad("example.com:-1", "port is not a decimal number");
        parse_bad("example.com:65536", "port out of range (1-65535)");
        parse_bad("example.com:", "empty port");
        parse_bad(":80", "empty host");
        parse_bad("example.com:80:90", "not a canonical IPv6 address");
        parse_bad("10.0.0.0/33", "CIDR prefix length out of range (0-32)");
        parse_bad("10.0.0.0/", "malformed CIDR prefix length");
        parse_bad("10.0.0.0/08", "malformed CIDR prefix length");
        parse_bad("10.0.0.0/-1", "malformed CIDR prefix length");
        parse_bad("10.0.0.0/8/8", "malformed CIDR prefix length");
        parse_bad("2001:db8::/129", "CIDR prefix length out of range (0-128)");
        parse_bad("[2001:db8::1", "\"[\" without \"]\"");
        parse_bad("2001:db8::1]:443", "\"]\" without \"[\"");
        parse_bad("[2001:db8::1]443", "expected \":PORT\" or \"/LENGTH\" after \"]\"");
        parse_bad("[2001:db8::1]:0", "port out of range (1-65535)");
        parse_bad("[1.2.3.4]:80", "not a canonical IPv6 address");
        parse_bad("fe80::1%eth0", "not a canonical IPv6 address");
        parse_bad("1.2.3/8", "not a canonical IP address");
        parse_bad("a..b", "empty label in host name");
        parse_bad(".example.com", "empty label in host name");
        parse_bad("example.com..", "empty label in host name");
        /* Non-canonical IPv4 forms are refused, never read as inet_aton would. */
        parse_bad("127.1", "not a canonical IP address");
        parse_bad("2130706433", "not a canonical IP address");
        parse_bad("0x7f000001", "not a canonical IP address");
        parse_bad("0177.0.0.1", "not a canonical IP address");
        parse_bad("1.2.3.04", "not a canonical IP address");
        parse_bad("127.0.0.0x1", "not a canonical IP address");
        parse_bad("1.2.3.4.5", "not a canonical IP address");
        parse_bad("256.1.1.1", "not a canonical IP address");
        parse_bad("127.1:80", "not a canonical IP address");
        parse_bad("80:443", "not a canonical IP address");
        parse_bad("::ffff:1.2.3.04", "not a canonical IPv6 address");

        char long_label[80];
        memset(long_label, 'a', 64);
        strcpy(long_label + 64, ".com");
        parse_bad(long_label, "label longer than 63 bytes in host name");
        char long_name[600];
        memset(long_name, 0, sizeof(long_name));
        for (size_t i = 0; i < 300; i += 2)
                memcpy(long_name + i, "a.", 2);
        strcat(long_name, "com");
        char cut[170];
        snprintf(cut, sizeof(cut), "%.160s...", long_name); /* quoted values are cut at 160 */
        parse_bad_quoted(long_name, cut, "host name longer than 253 bytes");
        memset(long_name, 'a', 520);
        long_name[520] = 0;
        struct cordon_net_rule rule;
        struct cordon_diag d = {0};
        cr_assert_eq(cordon_net_rule_parse(long_name, false, ORIGIN, &rule, &d), -EINVAL);
        cr_assert(strstr(d.message, "...\" (" ORIGIN "): pattern longer than 512 bytes"), "%s",
                  d.message);
        cr_assert_eq(cordon_net_rule_parse(NULL, false, ORIGIN, &rule, &d), -EINVAL);
}

/* IPv6 CIDRs with a port, the prefix length after the brackets as agent-sandbox's file writes
 * them ("[::]/0:25") or inside them; the IPv4 and address forms next to them still parse. */
Test(net_rules_parse, ipv6_cidr_with_port_both_spellings)
{
        parse_ok("[::]/0:25", CORDON_NET_RULE_CIDR, 25, "::", 0);
        parse_ok("[::]/0", CORDON_NET_RULE_CIDR, 0, "::", 0);
        parse_ok("[2001:db8::]/32:443", CORDON_NET_RULE_CIDR, 443, "2001:db8::", 32);
        parse_ok("[2001:db8:ffff::1]/32:443", CORDON_NET_RULE_CIDR, 443, "2001:db8::", 32);
        parse_ok("[2001:db8::/32]:443", CORDON_NET_RULE_CIDR, 443, "2001:db8::", 32);
        parse_ok("[::ffff:10.0.0.0]/104:25", CORDON_NET_RULE_CIDR, 25, "10.0.0.0", 8);
        parse_ok("[::1]:25", CORDON_NET_RULE_CIDR, 25, "::1", 128);
        parse_ok("0.0.0.0/0:25", CORDON_NET_RULE_CIDR, 25, "0.0.0.0", 0);
        parse_ok("127.0.0.1:2525", CORDON_NET_RULE_CIDR, 2525, "127.0.0.1", 32);

        parse_bad("[::]/129:25", "CIDR prefix length out of range (0-128)");
        parse_bad("[::]/0:", "empty port");
        parse_bad("[::]:99999", "port out of range (1-65535)");
        parse_bad("[::]/:25", "malformed CIDR prefix length");
        parse_bad("[::]/", "malformed CIDR prefix length");
        parse_bad("[::]/00:25", "malformed CIDR prefix length");
        parse_bad("[::]/0:25:26", "port is not a decimal number");
        parse_bad("[2001:db8::/32]/32:443", "two prefix lengths, inside and after \"]\"");
        parse_bad("[1.2.3.4]/8:25", "not a canonical IPv6 address");
        parse_bad("[::1]/api", "malformed CIDR prefix length");

        /* The message names the entry, as the user wrote it, and where it came from. */
        struct cordon_net_rule rule;
        struct cordon_diag d = {0};
        cr_assert_eq(cordon_net_rule_parse("[::]/129:25", false, "sandbox.conf:12", &rule, &d),
                     -EINVAL);
        cr_assert_str_eq(d.message, "NETWORK_BLOCKLIST entry \"[::]/129:25\" (sandbox.conf:12): "
                                    "CIDR prefix length out of range (0-128)");
}

/* Host globs as bash reads them: `*` and `?` anywhere, `*` across dots; *.suffix stays its
 * own kind; runs of `*` are one; `*` alone, however written, is every destination. */
Test(net_rules_parse, host_globs)
{
        parse_ok("email.*.amazonaws.com", CORDON_NET_RULE_GLOB, 0, "email.*.amazonaws.com", 0);
        parse_ok("api-?.example.com:443", CORDON_NET_RULE_GLOB, 443, "api-?.example.com", 0);
        parse_ok("*.s3.*.amazonaws.com", CORDON_NET_RULE_GLOB, 0, "*.s3.*.amazonaws.com", 0);
        parse_ok("Email.*.AmazonAWS.com.", CORDON_NET_RULE_GLOB, 0, "email.*.amazonaws.com", 0);
        parse_ok("*example.com", CORDON_NET_RULE_GLOB, 0, "*example.com", 0);
        parse_ok("example.*", CORDON_NET_RULE_GLOB, 0, "example.*", 0);
        parse_ok("a**b.example.com", CORDON_NET_RULE_GLOB, 0, "a*b.example.com", 0);
        parse_ok("*.*", CORDON_NET_RULE_GLOB, 0, "*.*", 0);
        parse_ok("**.example.com", CORDON_NET_RULE_SUFFIX, 0, "example.com", 0);
        parse_ok("**", CORDON_NET_RULE_ANY, 0, NULL, 0);
        parse_ok("**:443", CORDON_NET_RULE_ANY, 443, NULL, 0);

        const char *brackets = "bracket expressions (\"[...]\") are not supported in a host name; "
                               "use \"?\" for one character or \"*\" for any";
        parse_bad("api[0-9].example.com", brackets);
        parse_bad("api[0-9].example.com:443", brackets);
        parse_bad("a]b.example.com", brackets);
        parse_bad("10.0.0.*", "a wildcard in an address (write a CIDR, such as 10.0.0.0/24)");
        parse_bad("192.168.?.1:80", "a wildcard in an address (write a CIDR, such as 10.0.0.0/24)");
        parse_bad("1*", "a wildcard in an address (write a CIDR, such as 10.0.0.0/24)");
        parse_bad("*.example.123", "not a canonical IP address");
        parse_bad("a..*.example.com", "empty label in host name");
        parse_bad("*..example.com", "empty label in host name");
        parse_bad_quoted("*.exam\\ple.com", "*.exam\\\\ple.com",
                         "character not allowed in a host name (letters, digits, '-', '_')");
        parse_bad("*.exa+mple.com",
                  "character not allowed in a host name (letters, digits, '-', '_')");
        parse_bad("2001:db8::*", "not a canonical IPv6 address");
}

/* A host (name, *.suffix or glob) with a URL path; the path as written, no trailing '/'. */
Test(net_rules_parse, path_entries)
{
        parse_ok_path("discord.com/api/webhooks", CORDON_NET_RULE_HOST, 0, "discord.com", 0,
                      "/api/webhooks");
        parse_ok_path("outlook.office.com/webhook", CORDON_NET_RULE_HOST, 0, "outlook.office.com",
                      0, "/webhook");
        parse_ok_path("Example.COM.:8080/Upload/", CORDON_NET_RULE_HOST, 8080, "example.com", 0,
                      "/Upload");
        parse_ok_path("*.example.com/upload", CORDON_NET_RULE_SUFFIX, 0, "example.com", 0,
                      "/upload");
        parse_ok_path("api-?.example.com/v1/x", CORDON_NET_RULE_GLOB, 0, "api-?.example.com", 0,
                      "/v1/x");
        parse_ok_path("example.com/8", CORDON_NET_RULE_HOST, 0, "example.com", 0, "/8");
        parse_ok_path("example.com/a:b@c!$&'()+,=~_-.x", CORDON_NET_RULE_HOST, 0, "example.com", 0,
                      "/a:b@c!$&'()+,=~_-.x");

        const char *needs_host = "a path entry needs a host name (not an address, a port or \"*\")";
        parse_bad("*/api", needs_host);
        parse_bad("*:443/api", needs_host);
        parse_bad("127.0.0.1:80/api", "a path entry needs a host name, not an address");
        parse_bad("10.0.0.0/8/api", "malformed CIDR prefix length");
        parse_bad("443/api", "not a canonical IP address");
        parse_bad("example.com/", "a path of \"/\" alone (write the host without it)");
        parse_bad("example.com//", "a path of \"/\" alone (write the host without it)");
        parse_bad("example.com/a//b", "empty segment (\"//\") in the path");
        parse_bad("example.com/a/../b", "\".\" or \"..\" segment in the path");
        parse_bad("example.com/./b", "\".\" or \"..\" segment in the path");
        parse_bad("example.com/a./b", "a segment of the path ends in \".\"");
        parse_bad("example.com/a%2Fb",
                  "percent-encoding in a path entry (write the character itself)");
        parse_bad("example.com/a*",
                  "a wildcard in the path (a path entry covers everything under it already)");
        parse_bad("example.com/a?x=1", "a query or fragment in a path entry");
        parse_bad("example.com/a#x", "a query or fragment in a path entry");
        parse_bad("example.com/a;x", "path parameters (\";\") in a path entry");
        parse_bad_quoted("example.com/a\\b", "example.com/a\\\\b",
                         "character not allowed in a path");
        parse_bad_quoted("example.com/a\"b", "example.com/a\\\"b",
                         "character not allowed in a path");
        parse_bad("example.com:/api", "empty port");
        parse_bad("example.com:0/api", "port out of range (1-65535)");
        parse_bad("/api", "empty host");

        /* An exception takes the same forms. */
        struct cordon_net_rule rule;
        cr_assert_eq(cordon_net_rule_parse("discord.com/api/webhooks/123", true, NULL, &rule, NULL),
                     0);
        cr_assert(rule.exception);
        cr_assert_str_eq(rule.path, "/api/webhooks/123");
        cordon_net_rule_clear(&rule);
        cr_assert_eq(cordon_net_rule_parse("email.*.example.com:443", true, NULL, &rule, NULL), 0);
        cr_assert_eq(rule.kind, CORDON_NET_RULE_GLOB);
        cordon_net_rule_clear(&rule);
}

/* The entries of agent-sandbox's shipped sandbox.conf (NETWORK_BLOCKLIST) all parse. */
Test(net_rules_parse, agent_sandbox_shipped_entries)
{
        static const char *const shipped[] = {"127.0.0.1:24",
                                              "127.0.0.1:25",
                                              "127.0.0.1:465",
                                              "127.0.0.1:587",
                                              "127.0.0.1:2525",
                                              "[::1]:24",
                                              "[::1]:25",
                                              "[::1]:465",
                                              "[::1]:587",
                                              "[::1]:2525",
                                              "0.0.0.0/0:24",
                                              "0.0.0.0/0:25",
                                              "0.0.0.0/0:465",
                                              "0.0.0.0/0:587",
                                              "0.0.0.0/0:2525",
                                              "[::]/0:24",
                                              "[::]/0:25",
                                              "[::]/0:465",
                                              "[::]/0:587",
                                              "[::]/0:2525",
                                              "api.mailgun.net",
                                              "api.sendgrid.com",
                                              "api.postmarkapp.com",
                                              "api.resend.com",
                                              "email.*.amazonaws.com",
                                              "hooks.slack.com",
                                              "discord.com/api/webhooks",
                                              "*.webhook.office.com",
                                              "outlook.office.com/webhook",
                                              "webhook.site",
                                              "*.requestbin.com",
                                              "maker.ifttt.com",
                                              "transfer.sh",
                                              "file.io",
                                              "0x0.st",
                                              "catbox.moe",
                                              "bashupload.com",
                                              "pastebin.com",
                                              "0bin.net",
                                              "cloudflare-dns.com",
                                              "dns.google",
                                              "dns.quad9.net",
                                              "mozilla.cloudflare-dns.com",
                                              "853",
                                              "23",
                                              "79",
                                              "113",
                                              "512",
                                              "513",
                                              "514",
                                              "140.107.0.0/16:25",
                                              "*.untrusted-vendor.com",
                                              "*.s3.amazonaws.com",
                                              "*.blob.core.windows.net",
                                              "*.storage.googleapis.com"};
        for (size_t i = 0; i < ELEMENTSOF(shipped); i++) {
                const char *why = NULL;
                cr_expect_eq(cordon_net_pattern_check(shipped[i], &why), 0, "%s: %s", shipped[i],
                             why);
        }
}

/* ---- names ---- */

static void norm_ok(const char *in, size_t len, const char *out)
{
        char buf[CORDON_NET_NAME_MAX + 1];
        cr_assert_eq(cordon_net_name_normalize(in, len, buf), 0, "%s refused", in);
        cr_assert_str_eq(buf, out);
}

static void norm_bad(const char *in, size_t len)
{
        char buf[CORDON_NET_NAME_MAX + 1];
        cr_assert_eq(cordon_net_name_normalize(in, len, buf), -EINVAL, "%.*s accepted", (int)len,
                     in);
}
#define NORM_BAD(s) norm_bad(s, sizeof(s) - 1)

Test(net_rules_parse, name_normalize)
{
        norm_ok("Example.COM", 11, "example.com");
        norm_ok("example.com.", 12, "example.com");
        norm_ok("example.com.trailing", 11, "example.com"); /* only @len bytes */
        norm_ok("_dmarc.x-y.example", 18, "_dmarc.x-y.example");
        norm_ok("a", 1, "a");
        norm_ok("xn--bcher-kva.de", 16, "xn--bcher-kva.de");
        norm_ok("123.example.com", 15, "123.example.com");
        norm_ok("0x7f.example", 12, "0x7f.example");
        NORM_BAD("");
        NORM_BAD(".");
        NORM_BAD("example.com..");
        NORM_BAD("..example.com");
        NORM_BAD("a..b");
        NORM_BAD("exam\0ple.com");
        NORM_BAD("example.com\0");
        NORM_BAD("example.com\0.evil.com");
        NORM_BAD("exa\nmple.com");
        NORM_BAD("exa\rmple.com");
        NORM_BAD("exa\x1bmple.com");
        NORM_BAD("exa\x7fmple.com");
        NORM_BAD("exa mple.com");
        NORM_BAD("b\xc3\xbc"
                 "cher.de");
        NORM_BAD("user@example.com");
        NORM_BAD("example.com:80");
        NORM_BAD("example.com/x");
        NORM_BAD("*.example.com");
        NORM_BAD("api-?.example.com");
        NORM_BAD("[::1]");
        /* IP literals in every lenient form are not names. */
        NORM_BAD("127.0.0.1");
        NORM_BAD("127.1");
        NORM_BAD("2130706433");
        NORM_BAD("0x7f000001");
        NORM_BAD("0X7F000001");
        NORM_BAD("0177.0.0.1");
        NORM_BAD("127.0.0.1.");
        NORM_BAD("1.2.3.04");
        NORM_BAD("example.0x10");
        NORM_BAD("example.123");

        char buf[CORDON_NET_NAME_MAX + 1];
        char name[300];
        memset(name, 'a', 63);
        strcpy(name + 63, ".com");
        cr_assert_eq(cordon_net_name_normalize(name, strlen(name), buf), 0);
        memset(name, 'a', 64);
        strcpy(name + 64, ".com");
        cr_assert_eq(cordon_net_name_normalize(name, strlen(name), buf), -EINVAL);
        /* 253 bytes pass (with one trailing dot too), 254 do not. */
        for (size_t i = 0; i < 252; i += 2)
                memcpy(name + i, "a.", 2);
        name[252] = 'b';
        name[253] = 0;
        cr_assert_eq(cordon_net_name_normalize(name, 253, buf), 0);
        cr_assert_eq(strlen(buf), 253);
        name[253] = '.';
        name[254] = 0;
        cr_assert_eq(cordon_net_name_normalize(name, 254, buf), 0);
        name[253] = 'c';
        cr_assert_eq(cordon_net_name_normalize(name, 254, buf), -EINVAL);
}

Test(net_rules_parse, addr_parse_is_canonical_only)
{
        struct cordon_net_addr a;
        char buf[INET6_ADDRSTRLEN];
        cr_assert_eq(cordon_net_addr_parse("192.0.2.1", &a), 0);
        cr_assert_eq(a.family, AF_INET);
        cr_assert_str_eq(cordon_net_addr_format(&a, buf, sizeof(buf)), "192.0.2.1");
        cr_assert_eq(cordon_net_addr_parse("::ffff:127.0.0.1", &a), 0);
        cr_assert_eq(a.family, AF_INET6); /* kept as written; the matcher unmaps */
        const char *bad[] = {"127.1",     "2130706433", "0x7f000001", "0177.0.0.1",  "1.2.3.04",
                             "1.2.3.4 ",  " 1.2.3.4",   "1.2.3.",     ".1.2.3",      "1.2.3.4.",
                             "01.2.3.4",  "1.2.3.256",  "1.2.3.-1",   "+1.2.3.4",    "[::1]",
                             "fe80::1%1", "",           "1::2::3",    "example.com", "1.2.3.4/32"};
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                cr_assert_eq(cordon_net_addr_parse(bad[i], &a), -EINVAL, "%s accepted", bad[i]);
        cr_assert_eq(cordon_net_addr_parse(NULL, &a), -EINVAL);
}

/* ---- precedence for names ---- */
