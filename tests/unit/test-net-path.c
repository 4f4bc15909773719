/* Unit tests for src/lib/net/net-path.c: a pattern's path, the one comparable form of a
 * request's path (and every spelling that is refused because servers read it differently), and
 * the segment-boundary prefix. */
#include <criterion/criterion.h>
#include <string.h>

#include "lib/net/net-path.h"
#include "shared/macro.h"

TestSuite(net_path);

/* Normalises @in; NULL @out: refused with @why. */
static void norm(const char *in, const char *out, const char *why)
{
        char buf[256];
        const char *reason = NULL;
        int r = cordon_net_path_normalize(in, strlen(in), buf, &reason);
        if (out) {
                cr_expect_eq(r, 0, "\"%s\" refused: %s", in, reason);
                if (r == 0)
                        cr_expect_str_eq(buf, out, "\"%s\"", in);
        } else {
                cr_expect_eq(r, -EINVAL, "\"%s\" accepted as \"%s\"", in, r == 0 ? buf : "");
                if (r < 0 && why)
                        cr_expect_str_eq(reason, why, "\"%s\"", in);
        }
}

Test(net_path, normalize_plain_forms)
{
        norm("", "/", NULL);
        norm("/", "/", NULL);
        norm("?x=1", "/", NULL);
        norm("/api/webhooks", "/api/webhooks", NULL);
        norm("/api/webhooks/", "/api/webhooks/", NULL);
        norm("/api/webhooks?x=/../y", "/api/webhooks", NULL); /* the query is not the path */
        norm("/api/%77ebhooks", "/api/webhooks", NULL);
        norm("/api/%57ebhooks", "/api/Webhooks", NULL);
        norm("/a%20b", "/a b", NULL);
        norm("/a%2Eb", "/a.b", NULL);
        norm("/...", NULL, "a segment of the request path that ends in \".\" or a space");
        norm("/v1.2/x", "/v1.2/x", NULL);
}

/* Each spelling an attacker might use to slip past a prefix, or that servers read two ways. */
Test(net_path, normalize_refuses_ambiguous_paths)
{
        norm("/api//webhooks", NULL, "an empty segment (\"//\") in the request path");
        norm("//api/webhooks", NULL, "an empty segment (\"//\") in the request path");
        norm("/x/../api/webhooks", NULL, "a \".\" or \"..\" segment in the request path");
        norm("/./api/webhooks", NULL, "a \".\" or \"..\" segment in the request path");
        norm("/x/%2e%2e/api/webhooks", NULL, "a \".\" or \"..\" segment in the request path");
        norm("/x/.%2E/api/webhooks", NULL, "a \".\" or \"..\" segment in the request path");
        norm("/api/webhooks/..", NULL, "a \".\" or \"..\" segment in the request path");
        norm("/api%2fwebhooks", NULL,
             "an encoded \"/\" or \"\\\" in the request path (servers read it differently)");
        norm("/api%5Cwebhooks", NULL,
             "an encoded \"/\" or \"\\\" in the request path (servers read it differently)");
        norm("/api\\webhooks", NULL,
             "a \"\\\" in the request path (some servers read it as \"/\")");
        norm("/api/%2577ebhooks", NULL, "double percent-encoding (\"%25\") in the request path");
        norm("/api/webhooks%3F", NULL, "an encoded \"?\", \"#\" or \";\" in the request path");
        norm("/api/webhooks%23", NULL, "an encoded \"?\", \"#\" or \";\" in the request path");
        norm("/api;x=1/webhooks", NULL,
             "path parameters (\";\") in the request path (servers read them differently)");
        norm("/api/webhooks%00", NULL, "an encoded control or non-ASCII byte in the request path");
        norm("/api/webhooks%c0%af", NULL,
             "an encoded control or non-ASCII byte in the request path");
        norm("/api/web%zzhooks", NULL, "a malformed percent-encoding in the request path");
        norm("/api/webhooks%2", NULL, "a malformed percent-encoding in the request path");
        norm("/api/webhooks%", NULL, "a malformed percent-encoding in the request path");
        norm("/api/%u0077ebhooks", NULL, "a malformed percent-encoding in the request path");
        norm("/api/webhooks./x", NULL,
             "a segment of the request path that ends in \".\" or a space");
        norm("/api/webhooks%20/x", NULL,
             "a segment of the request path that ends in \".\" or a space");
        norm("/api/webhooks%2e", NULL,
             "a segment of the request path that ends in \".\" or a space");
        norm("api/webhooks", NULL, "a request path that does not start with \"/\"");
}

Test(net_path, under_is_on_a_segment_boundary)
{
        cr_expect(cordon_net_path_under("/api/webhooks", "/api/webhooks", false));
        cr_expect(cordon_net_path_under("/api/webhooks/", "/api/webhooks", false));
        cr_expect(cordon_net_path_under("/api/webhooks/123", "/api/webhooks", false));
        cr_expect(!cordon_net_path_under("/api/webhooksX", "/api/webhooks", false));
        cr_expect(!cordon_net_path_under("/api/webhook", "/api/webhooks", false));
        cr_expect(!cordon_net_path_under("/api", "/api/webhooks", false));
        cr_expect(!cordon_net_path_under("/API/Webhooks", "/api/webhooks", false));
        cr_expect(cordon_net_path_under("/API/Webhooks/1", "/api/webhooks", true));
        cr_expect(cordon_net_path_nested("/a", "/a/b"));
        cr_expect(cordon_net_path_nested("/A/b", "/a"));
        cr_expect(!cordon_net_path_nested("/a/b", "/a/c"));
        cr_expect(!cordon_net_path_nested("/ab", "/a"));
}

Test(net_path, pattern_paths)
{
        char out[64];
        const char *why = NULL;
        cr_expect_eq(cordon_net_path_pattern("/api/webhooks/", 14, out, &why), 0);
        cr_expect_str_eq(out, "/api/webhooks");
        cr_expect_eq(cordon_net_path_pattern("/a", 2, out, &why), 0);
        cr_expect_str_eq(out, "/a");
        cr_expect_eq(cordon_net_path_pattern("/", 1, out, &why), -EINVAL);
        cr_expect_eq(cordon_net_path_pattern("a", 1, out, &why), -EINVAL);
        cr_expect_str_eq(why, "a path starts with \"/\"");
        cr_expect_eq(cordon_net_path_pattern("/a/.", 4, out, &why), -EINVAL);
}
