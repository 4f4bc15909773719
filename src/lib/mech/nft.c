/* The filtered mode's nftables ruleset (see nft.h): built in the supervisor's prepare phase from
 * parsed rules only (no text a user wrote reaches nft), loaded by the child with libnftables. */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <nftables/libnftables.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mech/nft.h"
#include "shared/macro.h"

/* How specific an enforceable rule is: `*` < `*:port` (and a bare port) < any address rule, an
 * address rule by its prefix, with a port just above the same without. */
static unsigned specificity(const struct cordon_net_rule *r)
{
        switch (r->kind) {
        case CORDON_NET_RULE_ANY:
        case CORDON_NET_RULE_PORT:
                return r->port ? 1 : 0;
        case CORDON_NET_RULE_CIDR:
                return 2 + 2 * r->prefix + (r->port ? 1 : 0);
        default:
                return 0;
        }
}

static bool enforceable(const struct cordon_net_rule *r)
{
        return r->kind == CORDON_NET_RULE_ANY || r->kind == CORDON_NET_RULE_PORT ||
               r->kind == CORDON_NET_RULE_CIDR;
}

struct ranked {
        const struct cordon_net_rule *rule;
        size_t index;
};

static int compare_ranked(const void *a, const void *b)
{
        const struct ranked *x = a, *y = b;
        unsigned sx = specificity(x->rule), sy = specificity(y->rule);
        if (sx != sy)
                return sx > sy ? -1 : 1;
        if (x->rule->exception != y->rule->exception)
                return x->rule->exception ? -1 : 1;
        return x->index < y->index ? -1 : x->index > y->index;
}

static void put_addr(FILE *f, const struct cordon_net_addr *a, unsigned prefix)
{
        char buf[INET6_ADDRSTRLEN];
        bool v4 = a->family == AF_INET;
        inet_ntop(a->family, v4 ? (const void *)&a->v4 : (const void *)&a->v6, buf, sizeof(buf));
        fprintf(f, "%s daddr %s", v4 ? "ip" : "ip6", buf);
        if (prefix < (v4 ? 32u : 128u))
                fprintf(f, "/%u", prefix);
        fputc(' ', f);
}

static void put_port(FILE *f, uint16_t port)
{
        fprintf(f, "meta l4proto { tcp, udp } th dport %u ", (unsigned)port);
}

/* @r with the verdict @accept for an exception (blocks and the floor reject). */
static void put_rule_as(FILE *f, const struct cordon_net_rule *r, const char *accept)
{
        fputs("\t\t", f);
        if (r->kind == CORDON_NET_RULE_CIDR)
                put_addr(f, &r->addr, r->prefix);
        if (r->port)
                put_port(f, r->port);
        fprintf(f, "%s\n", r->exception && !r->floor ? accept : CORDON_NFT_REJECT);
}

static void put_rule(FILE *f, const struct cordon_net_rule *r)
{
        put_rule_as(f, r, "accept");
}

/* A reject of the IPv4 range @v4/@prefix (on @port, 0: any) inside the IPv6 form @e
 * (net-embedded.c), matched by payload: the destination address begins at bit 192 of the IPv6
 * header, and the IPv4 bytes lie at e->at[] in it (in runs of consecutive bytes). */
static void put_embedded(FILE *f, const struct cordon_net_embedding *e,
                         const struct cordon_net_addr *v4, unsigned prefix, uint16_t port)
{
        uint32_t a = ntohl(v4->v4.s_addr);
        if (e->inverted)
                a = ~a;
        fprintf(f, "\t\tip6 daddr %s/%u ", e->prefix, e->prefix_len);
        unsigned done = 0;
        for (unsigned k = 0; k < 4 && done < prefix;) {
                unsigned run = 1;
                while (k + run < 4 && e->at[k + run] == e->at[k] + run)
                        run++;
                unsigned bits = run * 8 < prefix - done ? run * 8 : prefix - done;
                uint32_t val =
                    (uint32_t)((uint64_t)a << done >> (32 - bits)) & (uint32_t)((1ULL << bits) - 1);
                fprintf(f, "@nh,%u,%u 0x%x ", 192 + 8 * (unsigned)e->at[k], bits, val);
                done += bits;
                k += run;
        }
        if (port)
                put_port(f, port);
        fputs(CORDON_NFT_REJECT "\n", f);
}

/* Every IPv4 block of the rule set (the floor's, the default ranges', the admin's and the
 * user's) and the host's IPv4 addresses, refused inside each IPv6 form that carries an IPv4
 * address (NAT64, 6to4, Teredo...): a translator or relay would deliver the packet there. An
 * exception does not lift these (matching an exception's embedded form too would take a chain
 * per form; refusing is the stricter side). */
static void put_embedded_all(FILE *f, const struct cordon_net_rule *const *rules, size_t n,
                             const struct cordon_nft_extra *extra)
{
        fputs("\t\t# IPv4 blocks and the host's IPv4 addresses inside NAT64, 6to4, Teredo "
              "and the other IPv6 forms that carry an IPv4 address\n",
              f);
        for (size_t k = 0; k < cordon_net_n_embeddings; k++) {
                const struct cordon_net_embedding *e = &cordon_net_embeddings[k];
                for (size_t i = 0; i < n; i++) {
                        const struct cordon_net_rule *r = rules[i];
                        if (r->kind == CORDON_NET_RULE_CIDR && !r->exception &&
                            r->addr.family == AF_INET)
                                put_embedded(f, e, &r->addr, r->prefix, r->port);
                }
                for (size_t i = 0; i < extra->n_host; i++)
                        if (extra->host[i].family == AF_INET)
                                put_embedded(f, e, &extra->host[i], 32, 0);
        }
}

static void put_host_addr(FILE *f, const struct cordon_net_addr *a, const char *verdict)
{
        fputs("\t\t", f);
        put_addr(f, a, a->family == AF_INET ? 32 : 128);
        fprintf(f, "%s\n", verdict);
}

int cordon_nft_plan_build(const struct cordon_net_rule *const *rules, size_t n,
                          const struct cordon_nft_extra *extra, struct cordon_nft_plan *ret)
{
        static const struct cordon_nft_extra none = {0};
        if (!extra)
                extra = &none;
        _cleanup_free_ struct ranked *ranked = calloc(n ? n : 1, sizeof(*ranked));
        _cleanup_free_ const struct cordon_net_rule **unapplied =
            calloc(n ? n : 1, sizeof(*unapplied));
        if (!ranked || !unapplied)
                return -ENOMEM;
        size_t n_ranked = 0, n_unapplied = 0;
        for (size_t i = 0; i < n; i++) {
                const struct cordon_net_rule *r = rules[i];
                if (!enforceable(r)) {
                        if (!r->floor)
                                unapplied[n_unapplied++] = r;
                } else if (!r->floor) {
                        ranked[n_ranked++] = (struct ranked){.rule = r, .index = i};
                }
        }
        qsort(ranked, n_ranked, sizeof(*ranked), compare_ranked);
        size_t n_admin = 0;
        for (size_t i = 0; i < n_ranked; i++)
                n_admin += ranked[i].rule->admin;

        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        if (!f)
                return -ENOMEM;
        fputs("table inet cordon {\n", f);
        if (n_admin) {
                /* The admin tier (net-rules.h): the admin's rules among themselves, most
                 * specific first; an admin block refuses whatever the user excepted, an admin
                 * exception returns to the ordinary order below. */
                fputs("\tchain admin {\n", f);
                for (size_t i = 0; i < n_ranked; i++)
                        if (ranked[i].rule->admin)
                                put_rule_as(f, ranked[i].rule, "return");
                fputs("\t}\n", f);
        }
        fputs("\tchain output {\n"
              "\t\ttype filter hook output priority filter; policy accept;\n"
              "\t\t# the sandbox's own loopback (and its own copy of the host's address)\n"
              "\t\toif \"lo\" accept\n"
              "\t\t# neighbour discovery with pasta, which answers it itself\n"
              "\t\ticmpv6 type { nd-router-solicit, nd-neighbor-solicit, nd-neighbor-advert } "
              "accept\n"
              "\t\t# the floor: never lifted\n",
              f);
        for (size_t i = 0; i < n; i++)
                if (rules[i]->floor && enforceable(rules[i]))
                        put_rule(f, rules[i]);
        /* The sandbox's resolver is cordon's, on its own loopback (accepted above): DNS to
         * anywhere else, the host's resolvers included, would carry names the rules refuse
         * (and data in them) past the rules. */
        fputs("\t\t# DNS: only cordon's resolver, on the loopback\n\t\t", f);
        put_port(f, 53);
        fputs(CORDON_NFT_REJECT "\n", f);
        if (extra->n_host)
                fputs("\t\t# the host's own addresses: its services are not reached through "
                      "pasta\n",
                      f);
        for (size_t i = 0; i < extra->n_host; i++)
                put_host_addr(f, &extra->host[i], CORDON_NFT_REJECT);
        put_embedded_all(f, rules, n, extra);
        if (n_admin)
                fputs("\t\tjump admin\n", f);
        if (n_ranked)
                fputs("\t\t# the rules, most specific first\n", f);
        for (size_t i = 0; i < n_ranked; i++)
                put_rule(f, ranked[i].rule);
        fputs("\t}\n}\n", f);
        if (fclose(f) != 0) {
                free(text);
                return -ENOMEM;
        }
        *ret = (struct cordon_nft_plan){
            .text = text, .unapplied = TAKE_PTR(unapplied), .n_unapplied = n_unapplied};
        return 0;
}

void cordon_nft_plan_clear(struct cordon_nft_plan *p)
{
        if (!p)
                return;
        free(p->text);
        free(p->unapplied);
        *p = (struct cordon_nft_plan){0};
}

static int addrs_append(struct cordon_net_addr **v, size_t *n, const struct cordon_net_addr *a)
{
        for (size_t i = 0; i < *n; i++)
                if ((*v)[i].family == a->family &&
                    (a->family == AF_INET ? (*v)[i].v4.s_addr == a->v4.s_addr
                                          : !memcmp(&(*v)[i].v6, &a->v6, sizeof(a->v6))))
                        return 0;
        struct cordon_net_addr *grown = realloc(*v, (*n + 1) * sizeof(**v));
        if (!grown)
                return -ENOMEM;
        grown[(*n)++] = *a;
        *v = grown;
        return 0;
}

int cordon_nft_resolvers(const char *path, struct cordon_net_addr **ret, size_t *ret_n)
{
        FILE *f = fopen(path, "re");
        if (!f && errno != ENOENT)
                return -errno;
        _cleanup_free_ struct cordon_net_addr *v = NULL;
        size_t n = 0;
        int r = 0;
        char line[512];
        /* A resolv.conf has at most three nameservers that count; a few more do no harm, a
         * runaway file is not read to its end. */
        for (size_t lines = 0; f && r >= 0 && lines < 256 && fgets(line, sizeof(line), f);
             lines++) {
                char word[16], addr[INET6_ADDRSTRLEN + 1];
                if (sscanf(line, " %15s %46s", word, addr) != 2 || !streq(word, "nameserver"))
                        continue;
                struct cordon_net_addr a = {0};
                if (inet_pton(AF_INET, addr, &a.v4) == 1)
                        a.family = AF_INET;
                else if (inet_pton(AF_INET6, addr, &a.v6) == 1)
                        a.family = AF_INET6;
                else
                        continue; /* scoped ("fe80::1%eth0") or malformed */
                r = addrs_append(&v, &n, &a);
        }
        if (f)
                fclose(f);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(v);
        *ret_n = n;
        return 0;
}

/* libnftables and what it pulls in (libnftnl, libmnl, libxtables, libgmp) cost every start of
 * cordon about 0.4 ms of the dynamic loader if linked; only the filtered mode needs them, so
 * they are opened then, by the supervisor before the clone (the child inherits the mapping). */
static struct {
        void *handle;
        __typeof__(&nft_ctx_new) ctx_new;
        __typeof__(&nft_ctx_free) ctx_free;
        __typeof__(&nft_ctx_buffer_output) buffer_output;
        __typeof__(&nft_ctx_buffer_error) buffer_error;
        __typeof__(&nft_run_cmd_from_buffer) run_cmd_from_buffer;
} lib;
static pthread_once_t lib_once = PTHREAD_ONCE_INIT;
static char lib_error[256];

static void lib_open(void)
{
        void *h = dlopen("libnftables.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!h) {
                snprintf(lib_error, sizeof(lib_error), "%s", dlerror());
                return;
        }
        lib.ctx_new = (__typeof__(lib.ctx_new))dlsym(h, "nft_ctx_new");
        lib.ctx_free = (__typeof__(lib.ctx_free))dlsym(h, "nft_ctx_free");
        lib.buffer_output = (__typeof__(lib.buffer_output))dlsym(h, "nft_ctx_buffer_output");
        lib.buffer_error = (__typeof__(lib.buffer_error))dlsym(h, "nft_ctx_buffer_error");
        lib.run_cmd_from_buffer =
            (__typeof__(lib.run_cmd_from_buffer))dlsym(h, "nft_run_cmd_from_buffer");
        if (!lib.ctx_new || !lib.ctx_free || !lib.buffer_output || !lib.buffer_error ||
            !lib.run_cmd_from_buffer) {
                snprintf(lib_error, sizeof(lib_error), "libnftables.so.1 lacks a function");
                dlclose(h);
                lib.ctx_new = NULL;
                return;
        }
        lib.handle = h;
}

int cordon_nft_open(const char **ret_error)
{
        pthread_once(&lib_once, lib_open);
        if (ret_error)
                *ret_error = lib_error;
        return lib.handle ? 0 : -ENOPKG;
}

int cordon_nft_load(const char *text)
{
        if (!lib.handle)
                return -ENOPKG;
        struct nft_ctx *ctx = lib.ctx_new(NFT_CTX_DEFAULT);
        if (!ctx)
                return -ENOMEM;
        /* Its messages have nowhere to go from the child: buffered and dropped. */
        (void)lib.buffer_output(ctx);
        (void)lib.buffer_error(ctx);
        errno = 0;
        int r = lib.run_cmd_from_buffer(ctx, text);
        int err = errno;
        lib.ctx_free(ctx);
        if (r == 0)
                return 0;
        return err == EPERM || err == EACCES || err == ENOMEM ? -err : -EINVAL;
}
