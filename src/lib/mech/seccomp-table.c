/* The seccomp layer at launch time: the programs compiled at build time (see seccomp-gen.c and
 * seccomp-filter.c, which holds the rules), copied and installed. No libseccomp here, so the
 * cordon binary does not load it. */
#include <errno.h>
#include <linux/seccomp.h>
#include <linux/filter.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "lib/mech/seccomp-filter.h"
#include "seccomp-programs.h"
#include "shared/macro.h"

/* A key added to the enums without a program would index past the generated table. */
_Static_assert(ELEMENTSOF(programs) == CORDON_SECCOMP_PROGRAMS,
               "seccomp-gen made one program per key");

int cordon_seccomp_build(const struct cordon_seccomp_key *k, struct cordon_bpf *ret)
{
        int v = cordon_seccomp_program(k);
        if (!ret || v < 0)
                return -EINVAL;
        size_t bytes = programs[v].len * sizeof(struct sock_filter);
        struct sock_filter *insns = malloc(bytes);
        if (!insns)
                return -ENOMEM;
        memcpy(insns, programs[v].insns, bytes);
        *ret = (struct cordon_bpf){.insns = insns, .len = programs[v].len};
        return 0;
}

void cordon_bpf_clear(struct cordon_bpf *b)
{
        if (!b)
                return;
        free(b->insns);
        *b = (struct cordon_bpf){.insns = NULL, .len = 0};
}

int cordon_seccomp_install(const struct cordon_bpf *b)
{
        if (!b || !b->insns || b->len == 0)
                return -EINVAL;
        struct sock_fprog prog = {.len = b->len, .filter = b->insns};
        /* The plain prctl() rather than seccomp(2): no flags are needed in a single-threaded
         * child, and it works on every kernel with filter support. */
        if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
                return negative_errno();
        return 0;
}

static bool probe_seccomp(void)
{
        /* EINVAL: a kernel without CONFIG_SECCOMP. A NULL filter is refused with EFAULT only once
         * the kernel has accepted the request as a filter (CONFIG_SECCOMP_FILTER). */
        if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0)
                return false;
        return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, NULL, 0, 0) < 0 && errno == EFAULT;
}

bool cordon_seccomp_available(void)
{
        /* What the kernel offers does not change while we run: asked once per process (a start
         * asks twice: for the layer, and for the landlock backend's socket rule). */
        static atomic_int known; /* 0: not asked yet; 1: available; -1: not */
        int k = atomic_load_explicit(&known, memory_order_relaxed);
        if (k == 0) {
                k = probe_seccomp() ? 1 : -1;
                atomic_store_explicit(&known, k, memory_order_relaxed);
        }
        return k > 0;
}
