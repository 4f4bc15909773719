/* Unit tests for src/lib/net/net-embedded.c: the IPv4 address each IPv6 form carries. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <string.h>

#include "lib/net/net-rules.h"

/* @v6 carries @v4 in the form @form (NULL: carries none). */
static void carries(const char *v6, const char *v4, const char *form)
{
        struct cordon_net_addr a, got;
        const char *f = NULL;
        cr_assert_eq(cordon_net_addr_parse(v6, &a), 0, "%s", v6);
        bool yes = cordon_net_addr_embedded(&a, &got, &f);
        if (!v4) {
                cr_expect_not(yes, "%s carries %s (%s)", v6, yes ? inet_ntoa(got.v4) : "",
                              yes ? f : "");
                return;
        }
        cr_assert(yes, "%s carries nothing", v6);
        cr_expect_eq(got.family, AF_INET);
        char buf[INET6_ADDRSTRLEN];
        cr_expect_str_eq(cordon_net_addr_format(&got, buf, sizeof(buf)), v4, "%s", v6);
        cr_expect_str_eq(f, form, "%s", v6);
}

Test(net_embedded, nat64_well_known)
{
        carries("64:ff9b::7f00:1", "127.0.0.1", "NAT64");
        carries("64:ff9b::10.1.2.3", "10.1.2.3", "NAT64");
        carries("64:ff9b::a9fe:a9fe", "169.254.169.254", "NAT64");
}

Test(net_embedded, nat64_local_use_slash48)
{
        /* RFC 6052 /48: IPv4 bits 0-15 at address bits 48-63, bits 16-31 at 72-87 (bits 64-71
         * are the "u" octet, zero). */
        carries("64:ff9b:1:7f00:0:100::", "127.0.0.1", "NAT64 local-use");
        carries("64:ff9b:1:c0a8:1:100::", "192.168.1.1", "NAT64 local-use");
        carries("64:ff9b:1:a01:2:300::", "10.1.2.3", "NAT64 local-use");
}

Test(net_embedded, sixtofour)
{
        carries("2002:7f00:1::", "127.0.0.1", "6to4");
        carries("2002:c0a8:101::1", "192.168.1.1", "6to4");
        carries("2002:a9fe:a9fe:1:2:3:4:5", "169.254.169.254", "6to4");
}

Test(net_embedded, teredo_client_inverted)
{
        /* 2001:0:SERVER:FLAGS:PORT:~CLIENT */
        carries("2001:0:4136:e378:8000:63bf:80ff:fffe", "127.0.0.1", "Teredo");
        carries("2001:0:4136:e378:8000:63bf:f5fe:fdfc", "10.1.2.3", "Teredo");
        /* 2001:db8::/32 is documentation, not Teredo. */
        carries("2001:db8::7f00:1", NULL, NULL);
}

Test(net_embedded, compatible_and_translated)
{
        carries("::127.0.0.1", "127.0.0.1", "IPv4-compatible");
        carries("::10.0.0.1", "10.0.0.1", "IPv4-compatible");
        carries("::ffff:0:127.0.0.1", "127.0.0.1", "IPv4-translated");
        /* :: and ::1 are themselves. */
        carries("::", NULL, NULL);
        carries("::1", NULL, NULL);
}

Test(net_embedded, others_carry_nothing)
{
        carries("2606:4700::1111", NULL, NULL);
        carries("fe80::1", NULL, NULL);
        carries("64:ff9b:2::7f00:1", NULL, NULL);
        carries("127.0.0.1", NULL, NULL);
        cr_expect_not(cordon_net_addr_embedded(NULL, NULL, NULL));
}

Test(net_embedded, table_prefixes_parse)
{
        for (size_t i = 0; i < cordon_net_n_embeddings; i++) {
                struct in6_addr p;
                cr_expect_eq(inet_pton(AF_INET6, cordon_net_embeddings[i].prefix, &p), 1);
                cr_expect_eq(cordon_net_embeddings[i].prefix_len % 8, 0);
        }
}
