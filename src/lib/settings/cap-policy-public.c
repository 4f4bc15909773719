/* The public face of capability policies (cordon/cap-policy.h): heap objects around the
 * embedded struct cordon_cap_policy that cap-policy.c and cap-policy-parse.c work on. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cordon/cap-policy.h"
#include "lib/settings/cap-policy.h"
#include "lib/policy/diag.h"
#include "shared/fd-util.h"
#include "shared/macro.h"

_public_ struct cordon_cap_policy *cordon_cap_policy_free(struct cordon_cap_policy *c)
{
        if (c) {
                cordon_cap_policy_clear(c);
                free(c);
        }
        return NULL;
}

_public_ int cordon_cap_policy_from_json(const char *json, size_t len, const char *source,
                                         struct cordon_cap_policy **ret, struct cordon_diag *diag)
{
        if (!json || !ret)
                return -EINVAL;
        struct cordon_cap_policy *c = malloc(sizeof(*c));
        if (!c)
                return -ENOMEM;
        int r = cordon_cap_policy_parse(json, len, source, c, diag);
        if (r < 0) {
                free(c);
                return r;
        }
        *ret = c;
        return 0;
}

_public_ int cordon_cap_policy_load(const char *path, struct cordon_cap_policy **ret,
                                    struct cordon_diag *diag)
{
        if (!path || !ret)
                return -EINVAL;
        const char *name = streq(path, "-") ? "<stdin>" : path;
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        int r = read_full_file_or_stdin(path, CORDON_CAP_POLICY_MAX_BYTES, &buf, &len);
        if (r == -EFBIG)
                return cordon_diag_set(diag, r, "%s: larger than %d bytes (1 MiB)", name,
                                       CORDON_CAP_POLICY_MAX_BYTES);
        if (r < 0)
                return cordon_diag_set(diag, r, "%s: %s", name, strerror(-r));
        return cordon_cap_policy_from_json(buf, len, name, ret, diag);
}

_public_ int cordon_cap_policy_intersection(const struct cordon_cap_policy *a,
                                            const struct cordon_cap_policy *b,
                                            struct cordon_cap_policy **ret,
                                            struct cordon_diag *diag)
{
        if (!a || !b || !ret)
                return -EINVAL;
        struct cordon_cap_policy *c = malloc(sizeof(*c));
        if (!c)
                return -ENOMEM;
        int r = cordon_cap_policy_intersect(a, b, c, diag);
        if (r < 0) {
                free(c);
                return r;
        }
        *ret = c;
        return 0;
}

_public_ int cordon_cap_policy_format_json(const struct cordon_cap_policy *c, char **ret)
{
        if (!c || !ret)
                return -EINVAL;
        return cordon_cap_policy_to_json(c, ret);
}
