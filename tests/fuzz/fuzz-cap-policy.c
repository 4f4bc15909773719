/* Fuzz target for src/lib/settings/cap-policy.c: parses the input as a capability policy. A failure
 * must be -EINVAL with a one-line message naming the source; a success must survive the canonical
 * form unchanged, be its own intersection, and intersect with a fixed policy either way round
 * with the same outcome, never looser than either side. */
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "lib/settings/cap-policy.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

#define SOURCE "fuzz.json"

/* A policy with a bit of everything, so intersections narrow each field. */
static const char fixed_json[] =
    "{\"capabilities\": {\"workspace\": [\"read_text\", \"list\", \"write_text\"],"
    " \"process\": [\"exec\"]},"
    " \"workspace_roots\": [\"/home\", \"/srv/a\", \"/tmp/x/y\"],"
    " \"read_only_roots\": [\"/usr\", \"/opt/ref\"],"
    " \"sandbox_profile\": \"wasi\", \"side_effect_level\": \"process_exec\","
    " \"process_sandbox\": {\"presets\": [\"system_runtime\", \"user_temp\"],"
    " \"read_roots\": [\"/opt\", \"/a/b\"], \"write_roots\": [\"/var/cache\"]}}";

static void policy_clearp(struct cordon_cap_policy *p)
{
        cordon_cap_policy_clear(p);
}
#define _cleanup_policy_ _cleanup_(policy_clearp)

/* Whether every entry of @r lies below an entry of @x. */
static bool roots_within(char *const *r, char *const *x)
{
        STRV_FOREACH (p, r) {
                bool found = false;
                STRV_FOREACH (q, x)
                        if (path_is_below(*p, *q))
                                found = true;
                if (!found)
                        return false;
        }
        return true;
}

static unsigned caps_of(const struct cordon_cap_policy *p)
{
        return p->has_capabilities ? p->capabilities : CORDON_CAP_ALL;
}

static unsigned presets_of(const struct cordon_cap_policy *p)
{
        return p->presets_default ? CORDON_PRESETS_ALL : p->presets;
}

/* @r is no looser than @x. Root ceilings: an empty list on @x is no ceiling. */
static void check_within(const struct cordon_cap_policy *r, const struct cordon_cap_policy *x)
{
        FUZZ_CHECK(r->profile >= x->profile);
        FUZZ_CHECK((caps_of(r) & ~caps_of(x)) == 0);
        FUZZ_CHECK(!x->has_side_effect_level ||
                   (r->has_side_effect_level && r->side_effect_level <= x->side_effect_level));
        FUZZ_CHECK((presets_of(r) & ~presets_of(x)) == 0);
        if (strv_length(x->workspace_roots) > 0)
                FUZZ_CHECK(strv_length(r->workspace_roots) > 0 &&
                           roots_within(r->workspace_roots, x->workspace_roots));
        if (strv_length(x->read_only_roots) > 0)
                FUZZ_CHECK(strv_length(r->read_only_roots) > 0 &&
                           roots_within(r->read_only_roots, x->read_only_roots));
        FUZZ_CHECK(roots_within(r->read_roots, x->read_roots));
        FUZZ_CHECK(roots_within(r->write_roots, x->write_roots));
}

/* parse(to_json(p)) == p, and the text is a fixed point. */
static void check_round_trip(const struct cordon_cap_policy *p)
{
        _cleanup_free_ char *s = NULL, *s2 = NULL;
        int r = cordon_cap_policy_to_json(p, &s);
        if (r == -ENOMEM)
                return;
        FUZZ_CHECK(r == 0 && s);
        _cleanup_policy_ struct cordon_cap_policy q;
        cordon_cap_policy_init(&q);
        struct cordon_diag diag = {0};
        r = cordon_cap_policy_parse(s, strlen(s), SOURCE, &q, &diag);
        if (r == -ENOMEM)
                return;
        FUZZ_CHECK(r == 0);
        FUZZ_CHECK(cordon_cap_policy_equal(p, &q));
        r = cordon_cap_policy_to_json(&q, &s2);
        if (r == -ENOMEM)
                return;
        FUZZ_CHECK(r == 0 && streq(s, s2));
}

static void check_intersections(const struct cordon_cap_policy *x)
{
        static struct cordon_cap_policy fixed;
        static bool have_fixed;
        if (!have_fixed) {
                FUZZ_CHECK(cordon_cap_policy_parse(fixed_json, strlen(fixed_json), "fixed", &fixed,
                                                   NULL) == 0);
                have_fixed = true;
        }

        _cleanup_policy_ struct cordon_cap_policy self, a, b;
        int r = cordon_cap_policy_intersect(x, x, &self, NULL);
        if (r != -ENOMEM) {
                FUZZ_CHECK(r == 0);
                FUZZ_CHECK(cordon_cap_policy_equal(&self, x));
        }

        struct cordon_diag d1 = {0}, d2 = {0};
        int r1 = cordon_cap_policy_intersect(x, &fixed, &a, &d1);
        int r2 = cordon_cap_policy_intersect(&fixed, x, &b, &d2);
        if (r1 == -ENOMEM || r2 == -ENOMEM)
                return;
        FUZZ_CHECK(r1 == r2);
        FUZZ_CHECK(r1 == 0 || r1 == -EINVAL);
        if (r1 < 0) {
                FUZZ_CHECK(d1.message[0] && d2.message[0]);
                return;
        }
        FUZZ_CHECK(cordon_cap_policy_equal(&a, &b));
        check_within(&a, x);
        check_within(&a, &fixed);
        check_round_trip(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        _cleanup_policy_ struct cordon_cap_policy p;
        cordon_cap_policy_init(&p);
        struct cordon_diag diag = {0};
        int r = cordon_cap_policy_parse((const char *)data, size, SOURCE, &p, &diag);
        if (r == -ENOMEM)
                return 0;
        if (r < 0) {
                FUZZ_CHECK(r == -EINVAL);
                FUZZ_CHECK(startswith(diag.message, SOURCE));
                FUZZ_CHECK(!strchr(diag.message, '\n'));
                return 0;
        }
        check_round_trip(&p);
        check_intersections(&p);
        return 0;
}
