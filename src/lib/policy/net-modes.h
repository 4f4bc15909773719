/* The network modes as data: what each one needs from the launcher, Landlock and seccomp. The
 * code that applies a mode asks this table instead of comparing enum cordon_net_mode values. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "cordon/cordon.h"
#include "lib/mech/seccomp-filter.h"

struct cordon_launch;
struct cordon_policy;

/* NETWORK_FILTER_FALLBACK: what happens when the requested mode cannot be delivered. In ladder
 * order, weakest first (an admin baseline lets the user only move up). */
enum cordon_net_fallback {
        CORDON_NET_FALLBACK_OPEN,     /* the nearest weaker mode that can be delivered */
        CORDON_NET_FALLBACK_STRICTER, /* the nearest stricter mode that can be delivered */
        CORDON_NET_FALLBACK_STRICT,   /* refuse to start */
};

/* NETWORK_MAIL_BLOCK, in ladder order. */
enum cordon_mail_block {
        CORDON_MAIL_BLOCK_OFF,
        CORDON_MAIL_BLOCK_AUTO, /* on unless both the requested and the delivered mode are open */
        CORDON_MAIL_BLOCK_ON,
};

const char *cordon_net_fallback_to_string(enum cordon_net_fallback f);
const char *cordon_mail_block_to_string(enum cordon_mail_block m);

/* Where the egress proxy listens inside the sandbox's network namespace (ns backend; the landlock
 * backend's is a random port of the host's loopback, see net-proxied.h). */
#define CORDON_PROXY_PORT 3128
/* Where the filtered mode's resolver listens (UDP) inside the sandbox's network namespace, on its
 * own loopback, and what its resolv.conf names (lib/supervisor/dns-relay.h). The address of
 * systemd-resolved's stub, so that a resolv.conf linked to the stub's file names it too. */
#define CORDON_DNS_ADDR "127.0.0.53"
#define CORDON_DNS_PORT 53

/* How many network modes there are (the public enum has no _MAX member). */
#define CORDON_NET_MODES (CORDON_NET_ISOLATED + 1)

struct cordon_net_mode_traits {
        const char *name;
        /* ns backend: a network namespace of its own (CLONE_NEWNET), with its loopback brought
         * up inside. */
        bool netns;
        bool loopback;
        /* Under the landlock backend (the host's network namespace: under the ns backend the
         * namespace is the isolation), Landlock (ABI >= 4) handles TCP bind and connect and
         * grants neither... */
        bool landlock_deny_tcp;
        /* ...but a connect to the egress proxy's port, whose listening socket the child makes
         * inside (127.0.0.1:CORDON_PROXY_PORT; landlock backend: the supervisor on the host's
         * loopback) and the supervisor serves. */
        bool proxy;
        /* The sandbox's resolver is the supervisor's (lib/supervisor/dns-relay.h): PID 1 binds its
         * UDP socket inside (CORDON_DNS_ADDR:53) and hands it over; resolv.conf names it. */
        bool dns;
        /* The socket rule the seccomp layer adds, whatever the backend (applied with the layer). */
        enum cordon_seccomp_net seccomp_rule;
        /* The landlock backend has no network namespace: the socket rule standing in for one,
         * applied whatever the profile says about the hardening layers (a kernel without seccomp
         * is then an error). */
        enum cordon_seccomp_net seccomp_rule_no_netns;
        /* The mode's own work in the launcher (lib/launch/net-filtered.c), NULL when it has
         * none. @prepare runs in the supervisor before the clone (again after an `auto` launch
         * fell back to the landlock backend; with @l->dry_run it only decides); @parent_setup
         * after the clone, before the child is released (so the child waits for the release);
         * @parent_ready, when set, after the release while the child runs its steps, which
         * then waits for a second release before its command can run (what @parent_setup
         * started must be done by then), unless its namespace is ready first: @child_up is the
         * read end of the pipe the child then writes a byte to, and @parent_ready returns 1 when
         * that came first (no second release is sent); @child_setup inside the namespaces after the
         * loopback, before the capabilities are dropped; @teardown once the sandbox has ended or
         * its start failed (idempotent; also from cordon_launch_clear()). They return 0 or -errno,
         * the supervisor's with @diag. */
        int (*prepare)(struct cordon_launch *l, struct cordon_diag *diag);
        int (*parent_setup)(struct cordon_launch *l, pid_t child, struct cordon_diag *diag);
        int (*parent_ready)(struct cordon_launch *l, int child_up, struct cordon_diag *diag);
        int (*child_setup)(const struct cordon_launch *l);
        void (*teardown)(struct cordon_launch *l);
};

/* The traits of @m, or NULL for a value out of range. Thread-safe (a constant table). */
const struct cordon_net_mode_traits *cordon_net_mode_traits(enum cordon_net_mode m);
/* The socket rule of @t->seccomp_rule_no_netns for a kernel with Landlock ABI @landlock_abi:
 * STREAM_INET becomes STREAM_UNIX where Landlock can keep pathname unix sockets of the host out
 * of reach (CORDON_LANDLOCK_RESOLVE_UNIX_ABI), and then *@ret_resolve_unix (may be NULL) says
 * the ruleset must handle that right. */
enum cordon_seccomp_net cordon_net_mode_rule_no_netns(const struct cordon_net_mode_traits *t,
                                                      int landlock_abi, bool *ret_resolve_unix);
