/* Fuzz target for the SPANK plugin's parsers (src/slurm/spank/spank-args.c): the input's first
 * line is an option value (--cordon's PROFILE, --cordon-network's MODE) and PMI_FD's value, the
 * rest, split at NUL bytes, plugstack.conf's arguments. What is accepted holds its invariants:
 * an absolute policy_dir, partitions of allowed characters, a profile path that stays in the
 * directory, a PMI_FD of digits only. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "shared/strv.h"
#include "slurm/spank/spank-args.h"

static void check_value(const char *v, const struct cordon_spank_conf *c)
{
        char err[512], path[8192];
        int r = cordon_spank_profile_check(v, err, sizeof(err));
        FUZZ_CHECK(r == 0 || r == -EINVAL);
        if (r == 0) {
                FUZZ_CHECK(!strchr(v, '/') && !strchr(v, '.') && *v);
                if (c->policy_dir &&
                    cordon_spank_profile_path(c->policy_dir, v, path, sizeof(path)) == 0)
                        FUZZ_CHECK(strncmp(path, c->policy_dir, strlen(c->policy_dir)) == 0 &&
                                   !strchr(path + strlen(c->policy_dir) + 1, '/'));
        }
        r = cordon_spank_network_check(v, err, sizeof(err));
        FUZZ_CHECK(r == 0 || r == -EINVAL);
        r = cordon_spank_pmi_fd(v);
        FUZZ_CHECK(r == -EINVAL || (r >= 3 && r <= CORDON_SPANK_PMI_FD_MAX && v[0] != '0' &&
                                    strspn(v, "0123456789") == strlen(v)));
        (void)cordon_spank_partition_enforced(c, v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        char *text = malloc(size + 1);
        if (!text)
                return 0;
        memcpy(text, data, size);
        text[size] = 0;
        char *nl = memchr(text, '\n', size);
        const char *value = text;
        char **args = NULL;
        if (nl) {
                *nl = 0;
                for (const char *p = nl + 1; p <= text + size; p += strlen(p) + 1)
                        if (strv_extend(&args, p) < 0)
                                break;
        }
        struct cordon_spank_conf c = {0};
        char err[512];
        int r = cordon_spank_conf_parse(&c, (int)strv_length(args), args, err, sizeof(err));
        FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
        if (r == 0) {
                FUZZ_CHECK(c.policy_dir && c.policy_dir[0] == '/');
                FUZZ_CHECK(strv_length(c.enforce) <= CORDON_SPANK_PARTITIONS_MAX);
                STRV_FOREACH (e, c.enforce)
                        FUZZ_CHECK(**e && strlen(*e) <= CORDON_SPANK_PARTITION_MAX &&
                                   strspn(*e, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789-_.") == strlen(*e));
        } else {
                FUZZ_CHECK(!c.policy_dir && !c.enforce);
        }
        check_value(value, &c);
        /* The arguments as two environments: every entry to set is one of the second. */
        char **unset = NULL, **set = NULL;
        if (cordon_spank_env_diff(args, args + (args ? strv_length(args) / 2 : 0), &unset, &set) ==
            0)
                STRV_FOREACH (s, set)
                        FUZZ_CHECK(strchr(*s, '='));
        strv_free(unset);
        strv_free(set);
        cordon_spank_conf_clear(&c);
        strv_free(args);
        free(text);
        return 0;
}
