/* The network modes as data: what each one is (a namespace, loopback, Landlock's TCP rule, the
 * proxy, the resolver). The code that applies a mode asks this table instead of comparing enum
 * cordon_net_mode values; the launcher's side of a mode (its seccomp socket rules and hooks) is
 * a table of its own indexed the same way (lib/launch/net-mode-hooks.h). */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "cordon/cordon.h"

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
};

/* The traits of @m, or NULL for a value out of range. Thread-safe (a constant table). */
const struct cordon_net_mode_traits *cordon_net_mode_traits(enum cordon_net_mode m);
