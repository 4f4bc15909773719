/* Fuzz target for src/lib/net/net-policy.c: parses the input as a NetworkPolicy. A failure must
 * be -EINVAL (or -EFBIG) with a one-line message naming the source; a success must write JSON
 * that parses back to a policy writing the same text, and its rules must add to a set. */
#include <string.h>

#include "fuzz.h"
#include "lib/net/net-policy.h"
#include "shared/macro.h"
#include "shared/strv.h"

#define SOURCE "fuzz.json"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        struct cordon_net_policy p, q;
        struct cordon_diag diag = {0};
        int r = cordon_net_policy_parse((const char *)data, size, SOURCE, &p, &diag);
        if (r == -ENOMEM)
                return 0;
        if (r < 0) {
                FUZZ_CHECK(r == -EINVAL);
                FUZZ_CHECK(startswith(diag.message, SOURCE));
                FUZZ_CHECK(!strchr(diag.message, '\n'));
                return 0;
        }
        FUZZ_CHECK(p.mode == CORDON_NET_POLICY_UNRESTRICTED || p.mode == CORDON_NET_POLICY_LIMITED);
        FUZZ_CHECK((p.mode == CORDON_NET_POLICY_LIMITED) == (p.allowed_hosts != NULL));

        _cleanup_free_ char *s = NULL, *s2 = NULL;
        r = cordon_net_policy_to_json(&p, &s);
        if (r == 0) {
                r = cordon_net_policy_parse(s, strlen(s), SOURCE, &q, &diag);
                FUZZ_CHECK(r == 0 || r == -ENOMEM);
                if (r == 0) {
                        FUZZ_CHECK(q.mode == p.mode);
                        FUZZ_CHECK(strv_length(q.allowed_hosts) == strv_length(p.allowed_hosts));
                        if (cordon_net_policy_to_json(&q, &s2) == 0)
                                FUZZ_CHECK(streq(s, s2));
                        cordon_net_policy_clear(&q);
                }
        } else
                FUZZ_CHECK(r == -ENOMEM);

        struct cordon_net_rules *rules = NULL;
        if (cordon_net_rules_new(&rules) == 0) {
                r = cordon_net_policy_add_rules(&p, rules, SOURCE, &diag);
                FUZZ_CHECK(r == 0 || r == -ENOMEM);
                if (r == 0 && p.mode == CORDON_NET_POLICY_LIMITED) {
                        struct cordon_net_verdict v;
                        cordon_net_rules_check_name(rules, "hooks.slack.com", 443, &v);
                        FUZZ_CHECK(!v.allow);
                }
                cordon_net_rules_free(rules);
        }
        cordon_net_policy_clear(&p);
        return 0;
}
