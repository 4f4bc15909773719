/* Runs cordon's egress proxy on its own, for the integration tests and bench/proxy.sh:
 *   proxy-harness --listen ADDR:PORT [--block PATTERN]... [--allow PATTERN]... [--dns ADDR[:PORT]]
 *                 [--log FILE] [--max-connections N] [--idle-timeout MS] [--dns-timeout MS]
 *                 [--connect-timeout MS] [--max-header-bytes N] [--pipe-bytes N]
 * Prints "listening ADDR:PORT" (the port bound, useful with port 0) once ready, serves until
 * SIGTERM or SIGINT, then prints the stats as one line and exits 0. Exit 2: usage; 1: failure. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/loop/loop.h"
#include "lib/net/net-rules.h"
#include "lib/proxy/proxy.h"

/* SIGTERM or SIGINT: the loop ends. */
static int on_signal(struct cordon_loop_io *io, int fd, uint32_t revents, void *userdata)
{
        (void)io;
        (void)fd;
        (void)revents;
        cordon_loop_quit(userdata, 0);
        return 0;
}

static int listen_on(const char *spec)
{
        char host[INET6_ADDRSTRLEN + 2];
        const char *colon = strrchr(spec, ':');
        if (!colon || (size_t)(colon - spec) >= sizeof(host))
                return -EINVAL;
        memcpy(host, spec, (size_t)(colon - spec));
        host[colon - spec] = 0;
        char *h = host;
        if (h[0] == '[') {
                h++;
                h[strlen(h) - 1] = 0;
        }
        struct sockaddr_storage sa = {};
        socklen_t len;
        unsigned port = (unsigned)atoi(colon + 1);
        struct sockaddr_in *s4 = (struct sockaddr_in *)&sa;
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&sa;
        if (inet_pton(AF_INET, h, &s4->sin_addr) == 1) {
                s4->sin_family = AF_INET;
                s4->sin_port = htons((uint16_t)port);
                len = sizeof(*s4);
        } else if (inet_pton(AF_INET6, h, &s6->sin6_addr) == 1) {
                s6->sin6_family = AF_INET6;
                s6->sin6_port = htons((uint16_t)port);
                len = sizeof(*s6);
        } else
                return -EINVAL;
        int fd = socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int one = 1;
        if (fd < 0)
                return -errno;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(fd, (struct sockaddr *)&sa, len) < 0 || listen(fd, 4096) < 0) {
                int r = -errno;
                close(fd);
                return r;
        }
        len = sizeof(sa);
        getsockname(fd, (struct sockaddr *)&sa, &len);
        char a[INET6_ADDRSTRLEN];
        if (sa.ss_family == AF_INET6)
                printf("listening [%s]:%u\n", inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a)),
                       ntohs(s6->sin6_port));
        else
                printf("listening %s:%u\n", inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a)),
                       ntohs(s4->sin_port));
        return fd;
}

static int usage(void)
{
        fprintf(stderr, "usage: proxy-harness --listen ADDR:PORT [--block P]... [--allow P]... "
                        "[--dns ADDR[:PORT]] [--log FILE] [--max-connections N] "
                        "[--idle-timeout MS] [--dns-timeout MS] [--connect-timeout MS] "
                        "[--max-header-bytes N] [--pipe-bytes N]\n");
        return 2;
}

int main(int argc, char **argv)
{
        static const struct option opts[] = {
            {"listen", required_argument, NULL, 'l'},
            {"block", required_argument, NULL, 'b'},
            {"allow", required_argument, NULL, 'a'},
            {"dns", required_argument, NULL, 'd'},
            {"log", required_argument, NULL, 'L'},
            {"max-connections", required_argument, NULL, 'm'},
            {"idle-timeout", required_argument, NULL, 'i'},
            {"dns-timeout", required_argument, NULL, 'D'},
            {"connect-timeout", required_argument, NULL, 'c'},
            {"max-header-bytes", required_argument, NULL, 'H'},
            {"pipe-bytes", required_argument, NULL, 'P'},
            {},
        };
        struct cordon_net_rules *rules = NULL;
        struct cordon_proxy_config cfg = {.log_fd = -1};
        struct cordon_diag diag = {};
        const char *listen_spec = NULL;
        int c, r;

        if (cordon_net_rules_new(&rules) < 0)
                return 1;
        while ((c = getopt_long(argc, argv, "", opts, NULL)) >= 0) {
                switch (c) {
                case 'l':
                        listen_spec = optarg;
                        break;
                case 'b':
                case 'a':
                        r = cordon_net_rules_add(rules, optarg, c == 'a', "command line", &diag);
                        if (r < 0) {
                                fprintf(stderr, "proxy-harness: %s\n", diag.message);
                                return 2;
                        }
                        break;
                case 'd':
                        cfg.dns_server = optarg;
                        break;
                case 'L':
                        cfg.log_fd = open(optarg, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
                        if (cfg.log_fd < 0) {
                                perror("proxy-harness: log");
                                return 1;
                        }
                        break;
                case 'm':
                        cfg.max_connections = (unsigned)strtoul(optarg, NULL, 10);
                        break;
                case 'i':
                        cfg.idle_timeout_ms = (unsigned)strtoul(optarg, NULL, 10);
                        break;
                case 'D':
                        cfg.dns_timeout_ms = (unsigned)strtoul(optarg, NULL, 10);
                        break;
                case 'c':
                        cfg.connect_timeout_ms = (unsigned)strtoul(optarg, NULL, 10);
                        break;
                case 'H':
                        cfg.max_header_bytes = strtoul(optarg, NULL, 10);
                        break;
                case 'P':
                        cfg.pipe_bytes = strtoul(optarg, NULL, 10);
                        break;
                default:
                        return usage();
                }
        }
        if (!listen_spec || optind != argc)
                return usage();

        /* 1,000 tunnels take six descriptors each (two sockets, two pipes). */
        struct rlimit rl;
        if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
                rl.rlim_cur = rl.rlim_max;
                (void)setrlimit(RLIMIT_NOFILE, &rl);
        }
        signal(SIGPIPE, SIG_IGN);
        sigset_t mask;
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigprocmask(SIG_BLOCK, &mask, NULL);
        int sfd = signalfd(-1, &mask, SFD_CLOEXEC);

        cfg.rules = rules;
        struct cordon_loop *loop = NULL;
        struct cordon_loop_io *sig_io = NULL;
        if (sfd < 0 || cordon_loop_new(&loop) < 0 ||
            cordon_loop_add_io(loop, sfd, EPOLLIN, on_signal, loop, &sig_io) < 0) {
                fprintf(stderr, "proxy-harness: cannot make the event loop\n");
                return 1;
        }
        struct cordon_proxy *p = NULL;
        r = cordon_proxy_new(&cfg, loop, &p, &diag);
        if (r < 0) {
                fprintf(stderr, "proxy-harness: %s (%s)\n", diag.message, strerror(-r));
                return 1;
        }
        int lfd = listen_on(listen_spec);
        if (lfd < 0 || cordon_proxy_add_listener(p, lfd) < 0) {
                fprintf(stderr, "proxy-harness: cannot listen on %s\n", listen_spec);
                return 1;
        }
        fflush(stdout);

        r = cordon_loop_run(loop);
        if (r < 0) {
                fprintf(stderr, "proxy-harness: %s\n", strerror(-r));
                return 1;
        }
        struct cordon_proxy_stats st;
        cordon_proxy_get_stats(p, &st);
        printf("stats connections=%llu refused=%llu errors=%llu bytes_up=%llu bytes_down=%llu\n",
               (unsigned long long)st.connections, (unsigned long long)st.refused,
               (unsigned long long)st.errors, (unsigned long long)st.bytes_up,
               (unsigned long long)st.bytes_down);
        cordon_proxy_free(p);
        cordon_loop_io_free(sig_io);
        cordon_loop_free(loop);
        cordon_net_rules_free(rules);
        return 0;
}
