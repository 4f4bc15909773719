/* Unit tests for src/lib/launch/net-proxied.c: the landlock backend's proxy port on the host's
 * loopback, drawn at random from its range, drawn again when taken, and a bounded number of
 * times. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/launch/net-proxied.h"

/* The fake random source: each call hands out the next of @draws, then the last again. */
static uint32_t draws[4];
static size_t n_draws, next_draw, calls;

static int fake_random(void *buf, size_t n)
{
        cr_assert_eq(n, sizeof(uint32_t));
        uint32_t x = draws[next_draw < n_draws ? next_draw++ : n_draws - 1];
        memcpy(buf, &x, n);
        calls++;
        return 0;
}

static uint16_t port_of(uint32_t x)
{
        return (uint16_t)(CORDON_PROXY_HOST_PORT_MIN +
                          x % (CORDON_PROXY_HOST_PORT_MAX - CORDON_PROXY_HOST_PORT_MIN + 1));
}

static int listen_on(uint16_t port)
{
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = {
            .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(0x7f000001)};
        if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 1) < 0) {
                if (fd >= 0)
                        close(fd);
                return -1;
        }
        return fd;
}

Test(net_proxied, random_port_in_range_on_loopback)
{
        uint16_t port = 0;
        int fd = cordon_net_proxied_listen_host(NULL, &port);
        cr_assert_geq(fd, 0, "%s", strerror(-fd));
        cr_expect_geq(port, CORDON_PROXY_HOST_PORT_MIN);
        struct sockaddr_in a;
        socklen_t len = sizeof(a);
        cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
        cr_expect_eq(ntohs(a.sin_port), port);
        cr_expect_eq(ntohl(a.sin_addr.s_addr), 0x7f000001u, "127.0.0.1 only, never any address");
        int acc = 0;
        socklen_t al = sizeof(acc);
        cr_assert_eq(getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &al), 0);
        cr_expect(acc, "listening");
        cr_expect(fcntl(fd, F_GETFD) & FD_CLOEXEC);
        close(fd);
}

Test(net_proxied, a_taken_port_is_drawn_again)
{
        /* Take a port in the range first, then make the first draw land on it. */
        uint32_t x = 0;
        int taken = -1;
        for (; taken < 0 && x < 64; x++)
                taken = listen_on(port_of(x * 977));
        cr_assert_geq(taken, 0, "no free port to take for the test");
        draws[0] = (x - 1) * 977;
        draws[1] = draws[0] + 1;
        n_draws = 2;
        next_draw = calls = 0;
        uint16_t port = 0;
        int fd = cordon_net_proxied_listen_host(fake_random, &port);
        if (fd == -EADDRINUSE)
                cr_skip_test("the second port happens to be taken too");
        cr_assert_geq(fd, 0, "%s", strerror(-fd));
        cr_expect_eq(calls, 2);
        cr_expect_eq(port, port_of(draws[1]));
        close(fd);

        /* Every draw on the taken port: a bounded number of tries, then EADDRINUSE. */
        draws[0] = (x - 1) * 977;
        n_draws = 1;
        next_draw = calls = 0;
        cr_expect_eq(cordon_net_proxied_listen_host(fake_random, &port), -EADDRINUSE);
        cr_expect_eq(calls, CORDON_PROXY_HOST_PORT_TRIES);
        close(taken);
}
