/* The seccomp programs compiled at build time (see seccomp-gen.c): a launch copies one. */
#include <errno.h>
#include <linux/filter.h>
#include <stdlib.h>
#include <string.h>

#include "lib/seccomp-filter.h"
#include "seccomp-programs.h"

int cordon_seccomp_build(const struct cordon_seccomp_opts *o, struct cordon_bpf *ret)
{
        if (!ret)
                return -EINVAL;
        unsigned v = cordon_seccomp_variant(o);
        size_t bytes = variants[v].len * sizeof(struct sock_filter);
        struct sock_filter *insns = malloc(bytes);
        if (!insns)
                return -ENOMEM;
        memcpy(insns, variants[v].insns, bytes);
        *ret = (struct cordon_bpf){.insns = insns, .len = variants[v].len};
        return 0;
}
