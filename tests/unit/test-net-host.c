/* The host's own addresses (src/lib/net/net-host.c): the list without loopback, and the watched
 * list following an address added and removed (as root, in a network namespace of its own). */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/net/net-host.h"

Test(net_host, addrs_without_loopback)
{
        struct cordon_net_addr *v = NULL;
        size_t n = 0;
        cr_assert_eq(cordon_net_host_addrs(&v, &n), 0);
        for (size_t i = 0; i < n; i++)
                if (v[i].family == AF_INET)
                        cr_expect_neq(ntohl(v[i].v4.s_addr) >> 24, 127u);
                else
                        cr_expect_not(IN6_IS_ADDR_LOOPBACK(&v[i].v6));
        free(v);
}

Test(net_host, has_every_listed_address)
{
        struct cordon_net_addr *v = NULL;
        size_t n = 0;
        struct cordon_net_host *h = NULL;
        cr_assert_eq(cordon_net_host_addrs(&v, &n), 0);
        cr_assert_eq(cordon_net_host_new(&h), 0);
        for (size_t i = 0; i < n; i++)
                cr_expect_eq(cordon_net_host_has(h, &v[i]), 1);
        struct cordon_net_addr doc = {.family = AF_INET};
        inet_pton(AF_INET, "203.0.113.254", &doc.v4);
        cr_expect_eq(cordon_net_host_has(h, &doc), 0);
        cordon_net_host_free(h);
        free(v);
}

/* In a child with a network namespace of its own: 198.51.100.7 and 2001:db8::7 are not the
 * host's, then they are (added), then not again (removed), each seen at the next question. */
static int watch_child(void)
{
        if (unshare(CLONE_NEWNET) < 0)
                return 10;
        struct cordon_net_host *h = NULL;
        if (cordon_net_host_new(&h) < 0)
                return 11;
        struct cordon_net_addr a4 = {.family = AF_INET}, a6 = {.family = AF_INET6},
                               mapped = {.family = AF_INET6};
        inet_pton(AF_INET, "198.51.100.7", &a4.v4);
        inet_pton(AF_INET6, "2001:db8::7", &a6.v6);
        inet_pton(AF_INET6, "::ffff:198.51.100.7", &mapped.v6);
        if (cordon_net_host_has(h, &a4) != 0 || cordon_net_host_has(h, &a6) != 0)
                return 12;
        if (system("ip link set lo up && ip addr add 198.51.100.7/32 dev lo && "
                   "ip addr add 2001:db8::7/128 dev lo nodad") != 0)
                return 13;
        if (cordon_net_host_has(h, &a4) != 1 || cordon_net_host_has(h, &mapped) != 1 ||
            cordon_net_host_has(h, &a6) != 1)
                return 14;
        if (system("ip addr del 198.51.100.7/32 dev lo && ip addr del 2001:db8::7/128 dev lo") != 0)
                return 15;
        if (cordon_net_host_has(h, &a4) != 0 || cordon_net_host_has(h, &a6) != 0)
                return 16;
        cordon_net_host_free(h);
        return 0;
}

Test(net_host, follows_address_changes)
{
        if (geteuid() != 0) {
                cr_skip_test("needs root (a network namespace and ip addr)");
                return;
        }
        pid_t pid = fork();
        cr_assert_geq(pid, 0);
        if (pid == 0)
                _exit(watch_child());
        int st = 0;
        cr_assert_eq(waitpid(pid, &st, 0), pid);
        cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d", st);
}
