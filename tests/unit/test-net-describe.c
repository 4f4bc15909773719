/* Unit tests for src/lib/net/net-describe.c and cordon_settings_describe_item(): what a network
 * pattern means, and that a path entry says plainly where it is not applied. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "cordon/settings.h"
#include "lib/net/net-rules.h"

TestSuite(net_describe);

static void says(const char *pattern, bool exception, const char *want)
{
        char buf[1024];
        int n = cordon_net_pattern_describe(pattern, exception, buf, sizeof(buf));
        cr_assert_gt(n, 0, "%s: %s", pattern, buf);
        cr_expect_str_eq(buf, want, "%s", pattern);
}

Test(net_describe, each_kind)
{
        says("discord.com/api/webhooks", false,
             "blocks plain HTTP requests to the host name discord.com whose path is /api/webhooks "
             "or under it (any case of its letters), in proxied mode only; HTTPS and other "
             "tunnels (CONNECT, SOCKS5) and filtered mode do not show the path, and there this "
             "entry does not block the host");
        says("discord.com/api/webhooks/123", true,
             "lifts the blocks of plain HTTP requests to the host name discord.com whose path is "
             "/api/webhooks/123 or under it (exactly as written), in proxied mode only; HTTPS and "
             "other tunnels (CONNECT, SOCKS5) and filtered mode do not show the path, and there "
             "this entry lifts nothing");
        says("email.*.amazonaws.com", false,
             "blocks the host names that match email.*.amazonaws.com (\"*\" any characters, dots "
             "included; \"?\" one), applied in proxied mode to connections by name, in filtered "
             "mode to the names the sandbox's resolver answers (not to connections by address)");
        says("*.example.com:443", false,
             "blocks the host names under example.com (not example.com itself) on port 443, "
             "applied in proxied mode to connections by name, in filtered mode to the names the "
             "sandbox's resolver answers (not to connections by address)");
        says("[::]/0:25", false,
             "blocks the addresses in ::/0 on port 25, in filtered and proxied mode");
        says("[::1]:25", false, "blocks the address ::1 on port 25, in filtered and proxied mode");
        says("853", false, "blocks port 853 of every destination, in filtered and proxied mode");
        says("*", false, "blocks every destination, in filtered and proxied mode");

        char buf[256];
        cr_expect_eq(cordon_net_pattern_describe("[::]/129:25", false, buf, sizeof(buf)), -EINVAL);
        cr_expect_str_eq(buf, "NETWORK_BLOCKLIST entry \"[::]/129:25\": CIDR prefix length out of "
                              "range (0-128)");
        /* Cut, and still terminated. */
        cr_expect_gt(cordon_net_pattern_describe("example.com", false, buf, 8), 8);
        cr_expect_eq(strlen(buf), 7);
}

Test(net_describe, settings_item)
{
        char buf[1024];
        cr_expect_gt(cordon_settings_describe_item("NETWORK_BLOCKLIST", "discord.com/api/webhooks",
                                                   buf, sizeof(buf)),
                     0);
        cr_expect(strstr(buf, "does not block the host"), "%s", buf);
        cr_expect_gt(cordon_settings_describe_item("NETWORK_BLOCKLIST_EXCEPT", "example.com/x", buf,
                                                   sizeof(buf)),
                     0);
        cr_expect(strstr(buf, "lifts nothing"), "%s", buf);
        cr_expect_eq(cordon_settings_describe_item("READONLY_MOUNTS", "/data", buf, sizeof(buf)),
                     0);
        cr_expect_str_eq(buf, "");
        cr_expect_eq(cordon_settings_describe_item("TMP_SIZE", "1G", buf, sizeof(buf)), -ENOTDIR);
        cr_expect_eq(cordon_settings_describe_item("NO_SUCH", "x", buf, sizeof(buf)), -ENOENT);
        cr_expect_eq(cordon_settings_describe_item("NETWORK_BLOCKLIST", "127.1", buf, sizeof(buf)),
                     -EINVAL);
}
