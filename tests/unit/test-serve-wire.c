/* Unit tests for src/serve/wire-parse.c and wire-encode.c: harn's serde shapes round-trip
 * against literal JSON, every refusal names its key, durations, limits, lossy UTF-8 and the
 * truncation of an exec's output. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "serve/wire.h"

static char *dump(json_t *j)
{
        cr_assert(j);
        char *s = serve_json_dump(j);
        cr_assert(s);
        return s;
}

static void assert_dump(json_t *j, const char *want)
{
        char *s = dump(j);
        cr_assert_str_eq(s, want);
        free(s);
}

/* Parses @in as a spec, checks its encoding is @want, and that @want parses to itself. */
static void spec_round(const char *in, const char *want)
{
        struct serve_spec s;
        struct serve_error err = {};
        cr_assert_eq(serve_spec_parse(in, strlen(in), &s, &err), 0, "%s: %s", in, err.message);
        char *out = dump(serve_spec_to_json(&s));
        cr_assert_str_eq(out, want);
        serve_spec_clear(&s);
        cr_assert_eq(serve_spec_parse(out, strlen(out), &s, &err), 0, "%s", err.message);
        assert_dump(serve_spec_to_json(&s), want);
        serve_spec_clear(&s);
        free(out);
}

static void exec_round(const char *in, bool allow_pty, const char *want)
{
        struct serve_exec_request r;
        struct serve_error err = {};
        cr_assert_eq(serve_exec_request_parse(in, strlen(in), allow_pty, &r, &err), 0, "%s: %s", in,
                     err.message);
        char *out = dump(serve_exec_request_to_json(&r));
        cr_assert_str_eq(out, want);
        serve_exec_request_clear(&r);
        cr_assert_eq(serve_exec_request_parse(out, strlen(out), allow_pty, &r, &err), 0);
        assert_dump(serve_exec_request_to_json(&r), want);
        serve_exec_request_clear(&r);
        free(out);
}

/* The refusal is invalid_request and its message starts with @prefix. */
static void assert_refusal(int r, const struct serve_error *err, const char *prefix)
{
        cr_assert_eq(r, -EINVAL);
        cr_assert_eq(err->kind, SERVE_ERR_INVALID_REQUEST);
        cr_assert(strncmp(err->message, prefix, strlen(prefix)) == 0, "message \"%s\", want \"%s\"",
                  err->message, prefix);
}

static void spec_refused(const char *in, const char *prefix)
{
        struct serve_spec s;
        struct serve_error err = {};
        assert_refusal(serve_spec_parse(in, strlen(in), &s, &err), &err, prefix);
        serve_spec_clear(&s);
}

static void exec_refused(const char *in, bool allow_pty, const char *prefix)
{
        struct serve_exec_request r;
        struct serve_error err = {};
        assert_refusal(serve_exec_request_parse(in, strlen(in), allow_pty, &r, &err), &err, prefix);
        serve_exec_request_clear(&r);
}

static void policy_refused(const char *in, const char *prefix)
{
        struct serve_network_policy p;
        struct serve_error err = {};
        assert_refusal(serve_network_policy_parse(in, strlen(in), &p, &err), &err, prefix);
        serve_network_policy_clear(&p);
}

static void mount_refused(const char *in, const char *prefix)
{
        struct serve_mount m;
        struct serve_error err = {};
        assert_refusal(serve_mount_parse(in, strlen(in), &m, &err), &err, prefix);
        serve_mount_clear(&m);
}

#define DEFAULT_LIMITS                                                                             \
        "{\"wall_time\":null,\"cpu_count\":null,\"memory_mb\":null,\"idle_timeout\":null}"

Test(serve_wire, spec_default_is_serde_default)
{
        spec_round("{}", "{\"session_id\":null,\"labels\":{},\"network_policy\":{\"mode\":"
                         "\"unrestricted\"},\"mounts\":[],\"limits\":" DEFAULT_LIMITS "}");
        /* Option fields take null as absent. */
        spec_round("{\"session_id\":null,\"from_snapshot\":null,\"limits\":{\"cpu_count\":null}}",
                   "{\"session_id\":null,\"labels\":{},\"network_policy\":{\"mode\":"
                   "\"unrestricted\"},\"mounts\":[],\"limits\":" DEFAULT_LIMITS "}");
}

Test(serve_wire, spec_full_round_trip)
{
        const char *full =
            "{\"session_id\":\"s1\",\"labels\":{\"persona\":\"dev\",\"tenant\":\"acme\"},"
            "\"network_policy\":{\"mode\":\"limited\",\"allowed_hosts\":[\"api.github.com\"]},"
            "\"mounts\":[{\"source\":\"\",\"target\":\"/mnt/session/outputs\",\"access\":"
            "\"read_write\"},{\"source\":\"/srv/mem\",\"target\":\"/mnt/memory\",\"access\":"
            "\"read_only\"}],\"limits\":{\"wall_time\":{\"secs\":30,\"nanos\":0},\"cpu_count\":"
            "2,\"memory_mb\":512,\"idle_timeout\":{\"secs\":1,\"nanos\":500000000}}}";
        spec_round(full, full);

        struct serve_spec s;
        struct serve_error err = {};
        cr_assert_eq(serve_spec_parse(full, strlen(full), &s, &err), 0);
        cr_assert_str_eq(s.session_id, "s1");
        cr_assert(s.network.limited);
        cr_assert_eq(s.network.n_hosts, 1);
        cr_assert_str_eq(s.network.allowed_hosts[0], "api.github.com");
        cr_assert_null(s.network.allowed_hosts[1]);
        cr_assert_eq(s.n_mounts, 2);
        cr_assert_str_eq(s.mounts[0].source, "");
        cr_assert_eq(s.mounts[0].access, SERVE_READ_WRITE);
        cr_assert_eq(s.mounts[1].access, SERVE_READ_ONLY);
        cr_assert(s.limits.has_cpu_count && s.limits.cpu_count == 2);
        cr_assert(s.limits.has_memory_mb && s.limits.memory_mb == 512);
        cr_assert_eq(serve_duration_usec(&s.limits.idle_timeout), 1500000);
        serve_spec_clear(&s);
        serve_spec_clear(&s); /* cleared twice: a zeroed struct */
}

Test(serve_wire, spec_labels_sorted_and_cordon_fields)
{
        spec_round(
            "{\"labels\":{\"z\":\"1\",\"a\":\"2\",\"m\":\"3\"},\"from_snapshot\":\"snap-1\"}",
            "{\"session_id\":null,\"labels\":{\"a\":\"2\",\"m\":\"3\",\"z\":\"1\"},"
            "\"network_policy\":{\"mode\":\"unrestricted\"},\"mounts\":[],"
            "\"limits\":" DEFAULT_LIMITS ",\"from_snapshot\":\"snap-1\"}");
}

Test(serve_wire, spec_mount_targets_normalised_as_harn)
{
        spec_round("{\"mounts\":[{\"source\":\"/a\",\"target\":\" /data/x// \",\"access\":"
                   "\"read_only\"}]}",
                   "{\"session_id\":null,\"labels\":{},\"network_policy\":{\"mode\":"
                   "\"unrestricted\"},\"mounts\":[{\"source\":\"/a\",\"target\":\"/data/x\","
                   "\"access\":\"read_only\"}],\"limits\":" DEFAULT_LIMITS "}");
        /* a component that only starts with two dots is not ".." */
        struct serve_mount m;
        struct serve_error err = {};
        const char *ok = "{\"source\":\"\",\"target\":\"/a/..b/.\",\"access\":\"read_write\"}";
        cr_assert_eq(serve_mount_parse(ok, strlen(ok), &m, &err), 0, "%s", err.message);
        cr_assert_str_eq(m.target, "/a/..b/.");
        assert_dump(serve_mount_to_json(&m),
                    "{\"source\":\"\",\"target\":\"/a/..b/.\",\"access\":\"read_write\"}");
        serve_mount_clear(&m);
}

Test(serve_wire, spec_refusals_name_the_key)
{
        spec_refused("{\"session_id\":\"\"}", "session_id: ");
        spec_refused("{\"session_id\":\" \\t\\n\"}", "session_id: must not be empty or blank");
        spec_refused("{\"session_id\":\"\\u3000\\u00a0\"}", "session_id: ");
        spec_refused("{\"session_id\":5}", "session_id: must be a string");
        spec_refused("{\"from_snapshot\":\"  \"}", "from_snapshot: ");
        char big[300];
        snprintf(big, sizeof(big), "{\"session_id\":\"%0*d\"}", SERVE_ID_MAX + 1, 0);
        spec_refused(big, "session_id: longer than 128 bytes");
        snprintf(big, sizeof(big), "{\"session_id\":\"%0*d\"}", SERVE_ID_MAX, 0);
        struct serve_spec s;
        struct serve_error err = {};
        cr_assert_eq(serve_spec_parse(big, strlen(big), &s, &err), 0, "%s", err.message);
        cr_assert_eq(strlen(s.session_id), SERVE_ID_MAX);
        serve_spec_clear(&s);

        spec_refused("{\"mounts\":[{\"source\":\"\",\"target\":\"/a\",\"access\":\"read_only\"},"
                     "{\"source\":\"\",\"target\":\"/b\",\"access\":\"read_only\"},"
                     "{\"source\":\"\",\"target\":\"rel/c\",\"access\":\"read_only\"}]}",
                     "mounts[2].target: must be absolute");
        spec_refused("{\"mounts\":[{\"source\":\"\",\"target\":\"/mnt/memory/../../etc/passwd\","
                     "\"access\":\"read_only\"}]}",
                     "mounts[0].target: must not contain a \"..\" component");
        spec_refused("{\"mounts\":[{\"source\":\"\",\"target\":\"/..\",\"access\":\"read_only\"}]}",
                     "mounts[0].target: must not contain");
        spec_refused("{\"mounts\":[{\"source\":\"\",\"target\":\"//\",\"access\":\"read_only\"}]}",
                     "mounts[0].target: must be absolute");
        spec_refused("{\"mounts\":[{\"source\":\"\",\"target\":\"/a\"}]}",
                     "mounts[0].access: missing");
        spec_refused("{\"mounts\":[{\"target\":\"/a\",\"access\":\"read_only\"}]}",
                     "mounts[0].source: missing");
        spec_refused("{\"mounts\":[{\"source\":\"\",\"target\":\"/a\",\"access\":\"rw\"}]}",
                     "mounts[0].access: must be");
        spec_refused("{\"mounts\":[{\"source\":\"\",\"target\":\"/a\",\"access\":\"read_only\","
                     "\"mode\":1}]}",
                     "mounts[0].mode: unknown field");
        spec_refused("{\"mounts\":[{\"source\":\"a\\u0000b\",\"target\":\"/a\",\"access\":"
                     "\"read_only\"}]}",
                     "mounts[0].source: must not contain a NUL byte");
        spec_refused("{\"mounts\":{}}", "mounts: must be an array");
        spec_refused("{\"mounts\":null}", "mounts: must be an array");
        spec_refused("{\"labels\":{\"k\":1}}", "labels.k: must be a string");
        spec_refused("{\"labels\":null}", "labels: must be an object");
        spec_refused("{\"network_policy\":null}", "network_policy: must be an object");
        spec_refused("{\"network_policy\":{\"mode\":\"limited\"}}",
                     "network_policy.allowed_hosts: missing");
        spec_refused(
            "{\"network_policy\":{\"mode\":\"limited\",\"allowed_hosts\":[\"a\",\"b c\"]}}",
            "network_policy.allowed_hosts[1]: must be a host name");
        spec_refused("{\"limits\":{\"cpus\":2}}", "limits.cpus: unknown field");
        spec_refused("{\"limits\":{\"cpu_count\":-1}}", "limits.cpu_count: must be between");
        spec_refused("{\"limits\":{\"memory_mb\":4294967296}}",
                     "limits.memory_mb: must be between");
        spec_refused("{\"limits\":{\"memory_mb\":1.5}}", "limits.memory_mb: must be an integer");
        spec_refused("{\"limits\":{\"wall_time\":-1}}", "limits.wall_time: must not be negative");
        spec_refused("{\"tenant\":\"x\"}", "tenant: unknown field");
        /* a key with a NUL byte (jansson's reader refuses it; were it read, it would be an
         * unknown field, not the known key it starts with) */
        spec_refused("{\"labels\\u0000x\":{}}", "malformed JSON");
}

Test(serve_wire, spec_limits_on_counts)
{
        /* SERVE_MOUNTS_MAX mounts pass, one more is refused. */
        size_t cap = 64 + (SERVE_MOUNTS_MAX + 1) * 64;
        char *body = malloc(cap);
        cr_assert(body);
        for (size_t extra = 0; extra < 2; extra++) {
                size_t n = SERVE_MOUNTS_MAX + extra, o = 0;
                o += sprintf(body + o, "{\"mounts\":[");
                for (size_t i = 0; i < n; i++)
                        o += sprintf(body + o,
                                     "%s{\"source\":\"\",\"target\":\"/m%zu\",\"access\":"
                                     "\"read_only\"}",
                                     i ? "," : "", i);
                sprintf(body + o, "]}");
                struct serve_spec s;
                struct serve_error err = {};
                int r = serve_spec_parse(body, strlen(body), &s, &err);
                if (extra)
                        assert_refusal(r, &err, "mounts: more than 64 mounts");
                else
                        cr_assert_eq(r, 0, "%s", err.message);
                serve_spec_clear(&s);
        }
        free(body);
}

Test(serve_wire, body_shape_refusals)
{
        spec_refused("{", "malformed JSON");
        spec_refused("", "malformed JSON");
        spec_refused("[]", "request body must be a JSON object");
        spec_refused("{\"session_id\":\"a\",\"session_id\":\"b\"}", "malformed JSON");
        exec_refused("{\"command\":\"x\"} trailing", false, "malformed JSON");
        /* not UTF-8 */
        exec_refused("{\"command\":\"\xff\"}", false, "malformed JSON");
        mount_refused("5", "malformed JSON");
        policy_refused("null", "malformed JSON");
}

Test(serve_wire, body_size_refused_before_parsing)
{
        /* A valid body of exactly SERVE_BODY_MAX bytes passes... */
        size_t len = SERVE_BODY_MAX;
        char *body = malloc(len + 2);
        cr_assert(body);
        const char *head = "{\"command\":\"x\",\"stdin\":\"", *tail = "\"}";
        memcpy(body, head, strlen(head));
        memset(body + strlen(head), 'a', len - strlen(head) - strlen(tail));
        memcpy(body + len - strlen(tail), tail, strlen(tail));
        struct serve_exec_request r;
        struct serve_error err = {};
        cr_assert_eq(serve_exec_request_parse(body, len, false, &r, &err), 0, "%s", err.message);
        cr_assert_eq(r.stdin_len, len - strlen(head) - strlen(tail));
        serve_exec_request_clear(&r);

        /* ...one byte more is refused for its size, even though it is valid JSON too... */
        memcpy(body + len - strlen(tail), "a", 1);
        memcpy(body + len + 1 - strlen(tail), tail, strlen(tail));
        assert_refusal(serve_exec_request_parse(body, len + 1, false, &r, &err), &err,
                       "request body is larger than 8388608 bytes");
        serve_exec_request_clear(&r);

        /* ...and before parsing: garbage of that size gets the same answer, not "malformed". */
        memset(body, 0xff, len + 1);
        assert_refusal(serve_spec_parse(body, len + 1, (struct serve_spec[1]){}, &err), &err,
                       "request body is larger than");
        struct serve_mount m;
        assert_refusal(serve_mount_parse(body, len + 1, &m, &err), &err, "request body is larger");
        struct serve_network_policy p;
        assert_refusal(serve_network_policy_parse(body, len + 1, &p, &err), &err,
                       "request body is larger");
        free(body);
}

Test(serve_wire, network_policy_shapes)
{
        /* the spec's own test: network_policy_uses_anthropic_compatible_shape */
        const char *limited = "{\"mode\":\"limited\",\"allowed_hosts\":[\"api.github.com\"]}";
        struct serve_network_policy p;
        struct serve_error err = {};
        cr_assert_eq(serve_network_policy_parse(limited, strlen(limited), &p, &err), 0);
        assert_dump(serve_network_policy_to_json(&p), limited);
        serve_network_policy_clear(&p);

        const char *with_type = "{\"type\":\"limited\",\"allowed_hosts\":[]}";
        cr_assert_eq(serve_network_policy_parse(with_type, strlen(with_type), &p, &err), 0);
        cr_assert(p.limited);
        cr_assert_eq(p.n_hosts, 0);
        cr_assert_null(p.allowed_hosts[0]);
        assert_dump(serve_network_policy_to_json(&p),
                    "{\"mode\":\"limited\",\"allowed_hosts\":[]}");
        serve_network_policy_clear(&p);

        const char *open = "{\"mode\":\"unrestricted\"}";
        cr_assert_eq(serve_network_policy_parse(open, strlen(open), &p, &err), 0);
        cr_assert(!p.limited);
        assert_dump(serve_network_policy_to_json(&p), open);
        serve_network_policy_clear(&p);

        policy_refused("{}", "mode: missing");
        policy_refused("{\"mode\":\"limited\",\"type\":\"limited\",\"allowed_hosts\":[]}",
                       "mode: ");
        policy_refused("{\"mode\":\"open\"}", "mode: must be");
        policy_refused("{\"type\":\"Limited\",\"allowed_hosts\":[]}", "type: must be");
        policy_refused("{\"mode\":\"unrestricted\",\"allowed_hosts\":[]}",
                       "allowed_hosts: only with");
        policy_refused("{\"mode\":\"limited\",\"allowed_hosts\":null}",
                       "allowed_hosts: must be an array");
        policy_refused("{\"mode\":\"limited\",\"allowed_hosts\":[\"\"]}",
                       "allowed_hosts[0]: must be a host");
        policy_refused("{\"mode\":\"limited\",\"allowed_hosts\":[\"a\\u0085b\"]}",
                       "allowed_hosts[0]: must be a host");
        policy_refused("{\"mode\":\"limited\",\"allowed_hosts\":[\"a\\tb\"]}",
                       "allowed_hosts[0]: must be a host");
        policy_refused("{\"mode\":\"limited\",\"allowed_hosts\":[1]}",
                       "allowed_hosts[0]: must be a string");
        policy_refused("{\"mode\":\"limited\",\"allowed_hosts\":[],\"hosts\":[]}",
                       "hosts: unknown field");

        char body[400];
        snprintf(body, sizeof(body), "{\"mode\":\"limited\",\"allowed_hosts\":[\"%0*d\"]}", 253, 0);
        cr_assert_eq(serve_network_policy_parse(body, strlen(body), &p, &err), 0, "%s",
                     err.message);
        serve_network_policy_clear(&p);
        snprintf(body, sizeof(body), "{\"mode\":\"limited\",\"allowed_hosts\":[\"%0*d\"]}", 254, 0);
        policy_refused(body, "allowed_hosts[0]: longer than 253 bytes");
}

Test(serve_wire, mount_body)
{
        const char *in = "{\"source\":\"/srv/x\",\"target\":\"/mnt/x/\",\"access\":\"read_write\"}";
        struct serve_mount m;
        struct serve_error err = {};
        cr_assert_eq(serve_mount_parse(in, strlen(in), &m, &err), 0);
        assert_dump(serve_mount_to_json(&m),
                    "{\"source\":\"/srv/x\",\"target\":\"/mnt/x\",\"access\":\"read_write\"}");
        serve_mount_clear(&m);
        mount_refused("{\"source\":\"\",\"access\":\"read_only\"}", "target: missing");
        mount_refused("{\"source\":\"\",\"target\":\"x\",\"access\":\"read_only\"}",
                      "target: must be absolute");
        mount_refused("{\"source\":\"\",\"target\":null,\"access\":\"read_only\"}",
                      "target: must be a string");
        mount_refused("{\"source\":\"\",\"target\":\"/\",\"access\":\"read_only\"}",
                      "target: must be absolute");
}

Test(serve_wire, exec_request_round_trip)
{
        exec_round("{\"command\":\"ls\"}", false,
                   "{\"command\":\"ls\",\"args\":[],\"cwd\":null,\"env\":{},\"stdin\":null,"
                   "\"timeout\":null}");
        /* env stays in the object's key order (header: NAME=VALUE in key order) */
        const char *full = "{\"command\":\"sh\",\"args\":[\"-c\",\"echo hi\"],\"cwd\":\"/work\","
                           "\"env\":{\"B\":\"2\",\"A_1\":\"x=y\"},\"stdin\":\"data\",\"timeout\":"
                           "{\"secs\":5,\"nanos\":0}}";
        exec_round(full, false, full);
        struct serve_exec_request r;
        struct serve_error err = {};
        cr_assert_eq(serve_exec_request_parse(full, strlen(full), false, &r, &err), 0);
        cr_assert_eq(r.n_args, 2);
        cr_assert_str_eq(r.args[1], "echo hi");
        cr_assert_null(r.args[2]);
        cr_assert_eq(r.n_env, 2);
        cr_assert_str_eq(r.env[0], "B=2");
        cr_assert_str_eq(r.env[1], "A_1=x=y");
        cr_assert_null(r.env[2]);
        cr_assert_eq(r.stdin_len, 4);
        cr_assert_eq(serve_duration_usec(&r.timeout), 5000000);
        serve_exec_request_clear(&r);

        /* stdin may hold NUL bytes; they survive the round trip */
        const char *nul = "{\"command\":\"cat\",\"stdin\":\"a\\u0000b\"}";
        cr_assert_eq(serve_exec_request_parse(nul, strlen(nul), false, &r, &err), 0);
        cr_assert_eq(r.stdin_len, 3);
        cr_assert_eq(memcmp(r.stdin_data, "a\0b", 3), 0);
        serve_exec_request_clear(&r);
        exec_round(
            nul, false,
            "{\"command\":\"cat\",\"args\":[],\"cwd\":null,\"env\":{},\"stdin\":\"a\\u0000b\","
            "\"timeout\":null}");

        /* relative cwd is kept (resolved later); nulls are absent */
        exec_round("{\"command\":\"x\",\"cwd\":\"sub/dir\",\"stdin\":null,\"timeout\":null}", false,
                   "{\"command\":\"x\",\"args\":[],\"cwd\":\"sub/dir\",\"env\":{},\"stdin\":null,"
                   "\"timeout\":null}");
}

Test(serve_wire, exec_request_pty)
{
        exec_round("{\"command\":\"sh\",\"pty\":true}", true,
                   "{\"command\":\"sh\",\"args\":[],\"cwd\":null,\"env\":{},\"stdin\":null,"
                   "\"timeout\":null,\"pty\":true}");
        exec_round("{\"command\":\"sh\",\"pty\":false}", true,
                   "{\"command\":\"sh\",\"args\":[],\"cwd\":null,\"env\":{},\"stdin\":null,"
                   "\"timeout\":null}");
        exec_refused("{\"command\":\"sh\",\"pty\":true}", false, "pty: unknown field");
        exec_refused("{\"command\":\"sh\",\"pty\":false}", false, "pty: unknown field");
        exec_refused("{\"command\":\"sh\",\"pty\":1}", true, "pty: must be a boolean");
}

Test(serve_wire, exec_request_refusals)
{
        exec_refused("{}", false, "command: missing");
        exec_refused("{\"command\":\"\"}", false, "command: must not be empty");
        exec_refused("{\"command\":\" \\t\"}", false, "command: must not be empty");
        exec_refused("{\"command\":null}", false, "command: must be a string");
        exec_refused("{\"command\":\"a\\u0000b\"}", false, "command: must not contain a NUL");
        exec_refused("{\"command\":\"x\",\"args\":\"-l\"}", false, "args: must be an array");
        exec_refused("{\"command\":\"x\",\"args\":[\"a\",2]}", false, "args[1]: must be a string");
        exec_refused("{\"command\":\"x\",\"args\":[\"a\",\"\\u0000\"]}", false,
                     "args[1]: must not contain a NUL");
        exec_refused("{\"command\":\"x\",\"env\":{\"1A\":\"v\"}}", false, "env.1A: not a valid");
        exec_refused("{\"command\":\"x\",\"env\":{\"A-B\":\"v\"}}", false, "env.A-B: not a valid");
        exec_refused("{\"command\":\"x\",\"env\":{\"\":\"v\"}}", false, "env.: not a valid");
        exec_refused("{\"command\":\"x\",\"env\":{\"A=B\":\"v\"}}", false, "env.A=B: not a valid");
        exec_refused("{\"command\":\"x\",\"env\":{\"A\":1}}", false, "env.A: must be a string");
        exec_refused("{\"command\":\"x\",\"env\":{\"A\":\"a\\u0000\"}}", false,
                     "env.A: must not contain a NUL");
        exec_refused("{\"command\":\"x\",\"env\":[]}", false, "env: must be an object");
        exec_refused("{\"command\":\"x\",\"cwd\":\"/a\\u0000\"}", false, "cwd: must not contain");
        exec_refused("{\"command\":\"x\",\"stdin\":5}", false, "stdin: must be a string");
        exec_refused("{\"command\":\"x\",\"shell\":true}", false, "shell: unknown field");
}

Test(serve_wire, exec_request_args_limit)
{
        /* SERVE_ARGS_MAX arguments pass, SERVE_ARGS_MAX + 1 are refused */
        size_t cap = 64 + (SERVE_ARGS_MAX + 1) * 4;
        char *body = malloc(cap);
        cr_assert(body);
        for (size_t extra = 0; extra < 2; extra++) {
                size_t n = SERVE_ARGS_MAX + extra, o = 0;
                o += sprintf(body + o, "{\"command\":\"x\",\"args\":[");
                for (size_t i = 0; i < n; i++)
                        o += sprintf(body + o, "%s\"\"", i ? "," : "");
                sprintf(body + o, "]}");
                struct serve_exec_request r;
                struct serve_error err = {};
                int ret = serve_exec_request_parse(body, strlen(body), false, &r, &err);
                if (extra)
                        assert_refusal(ret, &err, "args: more than 4096 arguments");
                else {
                        cr_assert_eq(ret, 0, "%s", err.message);
                        cr_assert_eq(r.n_args, SERVE_ARGS_MAX);
                }
                serve_exec_request_clear(&r);
        }
        free(body);
}

/* The timeout of {"command":"x","timeout":@t}. */
static struct serve_duration timeout_of(const char *t)
{
        char body[200];
        snprintf(body, sizeof(body), "{\"command\":\"x\",\"timeout\":%s}", t);
        struct serve_exec_request r;
        struct serve_error err = {};
        cr_assert_eq(serve_exec_request_parse(body, strlen(body), false, &r, &err), 0, "%s: %s", t,
                     err.message);
        struct serve_duration d = r.timeout;
        serve_exec_request_clear(&r);
        return d;
}

static void timeout_refused(const char *t, const char *prefix)
{
        char body[200];
        snprintf(body, sizeof(body), "{\"command\":\"x\",\"timeout\":%s}", t);
        exec_refused(body, false, prefix);
}

Test(serve_wire, durations)
{
        struct serve_duration d = timeout_of("{\"secs\":5,\"nanos\":10}");
        cr_assert(d.set && d.secs == 5 && d.nanos == 10);
        d = timeout_of("7");
        cr_assert(d.set && d.secs == 7 && d.nanos == 0);
        d = timeout_of("0");
        cr_assert(d.set && d.secs == 0 && d.nanos == 0);
        d = timeout_of("1.5");
        cr_assert(d.set && d.secs == 1 && d.nanos == 500000000);
        d = timeout_of("0.9999999999"); /* rounds up to a whole second */
        cr_assert(d.set && d.secs == 1 && d.nanos == 0);
        d = timeout_of("2.5e-9");
        cr_assert(d.set && d.secs == 0 && d.nanos == 3);
        d = timeout_of("9223372036854775807");
        cr_assert(d.set && d.secs == INT64_MAX);
        d = timeout_of("null");
        cr_assert(!d.set);
        d = timeout_of("{\"secs\":0,\"nanos\":999999999}");
        cr_assert(d.set && d.nanos == 999999999);

        timeout_refused("-1", "timeout: must not be negative");
        timeout_refused("-0.5", "timeout: must not be negative");
        timeout_refused("1e30", "timeout: too large");
        timeout_refused("{\"secs\":1,\"nanos\":1000000000}", "timeout.nanos: must be an integer");
        timeout_refused("{\"secs\":-1,\"nanos\":0}", "timeout.secs: must be a non-negative");
        timeout_refused("{\"secs\":1.5,\"nanos\":0}", "timeout.secs: must be a non-negative");
        timeout_refused("{\"secs\":1}", "timeout.nanos: missing");
        timeout_refused("{\"nanos\":1}", "timeout.secs: missing");
        timeout_refused("{\"secs\":1,\"nanos\":0,\"millis\":3}", "timeout.millis: unknown field");
        timeout_refused("\"5\"", "timeout: must be {");
        timeout_refused("[5,0]", "timeout: must be {");
        timeout_refused("true", "timeout: must be {");

        /* usec: saturating; encoding */
        struct serve_duration big = {.set = true, .secs = UINT64_MAX, .nanos = 999999999};
        cr_assert_eq(serve_duration_usec(&big), UINT64_MAX);
        struct serve_duration some = {.set = true, .secs = 2, .nanos = 1500};
        cr_assert_eq(serve_duration_usec(&some), 2000001);
        cr_assert_eq(serve_duration_usec(&(struct serve_duration){}), 0);
        assert_dump(serve_duration_to_json(&some), "{\"secs\":2,\"nanos\":1500}");
        assert_dump(serve_duration_to_json(&(struct serve_duration){}), "null");
}

/* serve_text_to_json of @len bytes with @cap, as raw bytes of the JSON string. */
static void assert_text(const char *in, size_t len, size_t cap, const char *want, size_t want_len)
{
        json_t *j = serve_text_to_json(in, len, cap);
        cr_assert(json_is_string(j));
        cr_assert_eq(json_string_length(j), want_len, "length %zu, want %zu", json_string_length(j),
                     want_len);
        cr_assert_eq(memcmp(json_string_value(j), want, want_len), 0);
        /* and it is JSON text: it dumps */
        char *s = serve_json_dump(j);
        cr_assert(s);
        free(s);
}
#define TEXT(in, cap, want) assert_text(in, sizeof(in) - 1, cap, want, sizeof(want) - 1)
#define R                   "\xef\xbf\xbd" /* U+FFFD */
#define M                   SERVE_TRUNCATED_MARKER

Test(serve_wire, utf8_lossy_replacement)
{
        TEXT("plain", 100, "plain");
        TEXT("\xe2\x82\xac \xf0\x9f\x98\x80", 100, "\xe2\x82\xac \xf0\x9f\x98\x80");
        TEXT("\xf4\x8f\xbf\xbf", 100, "\xf4\x8f\xbf\xbf"); /* U+10FFFF is fine */
        TEXT("a\0b", 100, "a\0b");                         /* NUL kept, as in a String */
        TEXT("a\x80z", 100, "a" R "z");                    /* lone continuation byte */
        TEXT("ab\xe2\x82", 100, "ab" R);                   /* truncated at the end: one */
        TEXT("\xe2\x82z", 100, R "z");                     /* truncated in the middle: one */
        TEXT("\xc0\xaf", 100, R R);                        /* overlong 2-byte */
        TEXT("\xe0\x80\xaf", 100, R R R);                  /* overlong 3-byte */
        TEXT("\xed\xa0\x80", 100, R R R);                  /* surrogate D800 */
        TEXT("\xf4\x90\x80\x80", 100, R R R R);            /* above U+10FFFF */
        TEXT("\xf5\xff", 100, R R);                        /* never valid */
        TEXT("\xf0\x9f\x98", 100, R);                      /* 4-byte cut short */
        TEXT("\xf0\x9f\x98\xf0\x9f\x98\x80", 100, R "\xf0\x9f\x98\x80");
}

static size_t count(const char *hay, size_t len, const char *needle)
{
        size_t n = 0, nl = strlen(needle);
        for (size_t i = 0; i + nl <= len; i++)
                n += memcmp(hay + i, needle, nl) == 0;
        return n;
}

Test(serve_wire, truncation)
{
        TEXT("hello world", 5, "hello" M);
        TEXT("hello", 5, "hello"); /* exactly the cap: no marker */
        TEXT("hello", 0, M);
        TEXT("", 0, "");
        TEXT("\xe2\x82\xac\xe2\x82\xac", 4, "\xe2\x82\xac" M); /* not split into garbage */
        TEXT("\xe2\x82\xac\xe2\x82\xac", 5, "\xe2\x82\xac" M);
        TEXT("\xe2\x82\xac\xe2\x82\xac", 3, "\xe2\x82\xac" M);
        TEXT("ab\xff\xff", 3, "ab" R M); /* a bad byte inside the cap is still replaced */
        TEXT("ab\xe2\x82z", 3, "ab" M);  /* an ill-formed unit straddling the cap is dropped */

        /* the marker exactly once, however long the output */
        size_t len = 3 * SERVE_OUTPUT_CAP_DEFAULT;
        char *big = malloc(len);
        cr_assert(big);
        memset(big, 'x', len);
        json_t *j = serve_text_to_json(big, len, SERVE_OUTPUT_CAP_DEFAULT);
        cr_assert_eq(json_string_length(j), SERVE_OUTPUT_CAP_DEFAULT + strlen(M));
        cr_assert_eq(count(json_string_value(j), json_string_length(j), "[cordon: output"), 1);
        json_decref(j);
        free(big);
}

Test(serve_wire, exec_result)
{
        json_t *j = serve_exec_result_to_json("hi\n", 3, "", 0, SERVE_OUTPUT_CAP_DEFAULT, 0, false);
        assert_dump(j,
                    "{\"stdout\":\"hi\\n\",\"stderr\":\"\",\"exit_code\":0,\"timed_out\":false}");
        j = serve_exec_result_to_json("abcdef", 6, "e\xff", 2, 4, -1, true);
        assert_dump(
            j, "{\"stdout\":\"abcd\\n[cordon: output truncated]\\n\",\"stderr\":\"e\xef\xbf\xbd\","
               "\"exit_code\":-1,\"timed_out\":true}");
        j = serve_exec_result_to_json(NULL, 0, NULL, 0, 10, 137, false);
        assert_dump(j, "{\"stdout\":\"\",\"stderr\":\"\",\"exit_code\":137,\"timed_out\":false}");
}

/* A modifiable copy of a literal (struct serve_label holds char *). */
#define S(lit) ((char[]){lit})

Test(serve_wire, session_snapshot_capabilities)
{
        struct serve_resolved_mount mounts[] = {
            {.target = "/mnt/memory", .access = SERVE_READ_ONLY, .host_path = "/var/lib/m"},
            {.target = "/data", .access = SERVE_READ_WRITE, .host_path = NULL},
        };
        struct serve_label meta[] = {
            {S("z"), S("2")}, {S("a"), S("1")}, {S("root"), S("/r")}, {S("a"), S("last")}};
        struct serve_session_view v = {.id = "s1",
                                       .backend = "cordon",
                                       .state = SERVE_RUNNING,
                                       .mounts = mounts,
                                       .n_mounts = 2,
                                       .metadata = meta,
                                       .n_metadata = 4};
        assert_dump(
            serve_session_to_json(&v),
            "{\"id\":\"s1\",\"backend\":\"cordon\",\"state\":\"running\",\"mounts\":["
            "{\"target\":\"/mnt/memory\",\"access\":\"read_only\",\"host_path\":"
            "\"/var/lib/m\"},{\"target\":\"/data\",\"access\":\"read_write\","
            "\"host_path\":null}],\"metadata\":{\"a\":\"last\",\"root\":\"/r\",\"z\":\"2\"}}");
        v = (struct serve_session_view){.id = "s2", .backend = "cordon", .state = SERVE_TERMINATED};
        assert_dump(serve_session_to_json(&v), "{\"id\":\"s2\",\"backend\":\"cordon\",\"state\":"
                                               "\"terminated\",\"mounts\":[],\"metadata\":{}}");
        cr_assert_str_eq(serve_state_name(SERVE_PROVISIONED), "provisioned");
        cr_assert_str_eq(serve_state_name(SERVE_SUSPENDED), "suspended");

        struct serve_label smeta[] = {{S("b"), S("y")}, {S("a"), S("x")}};
        struct serve_snapshot_view s = {.session_id = "s1",
                                        .backend = "cordon",
                                        .snapshot_id = "snap-1",
                                        .metadata = smeta,
                                        .n_metadata = 2};
        assert_dump(serve_snapshot_to_json(&s),
                    "{\"session_id\":\"s1\",\"backend\":\"cordon\",\"snapshot_id\":\"snap-1\","
                    "\"metadata\":{\"a\":\"x\",\"b\":\"y\"}}");

        struct serve_capabilities c = {.local_process_sandbox = true,
                                       .network_policy = true,
                                       .snapshot = true,
                                       .resume = true};
        assert_dump(serve_capabilities_to_json(&c),
                    "{\"local_process_sandbox\":true,\"network_policy\":true,\"snapshot\":true,"
                    "\"resume\":true,\"suspend_on_idle\":false}");
}

Test(serve_wire, errors)
{
        static const struct {
                enum serve_error_kind kind;
                const char *name;
                unsigned status;
        } kinds[] = {
            {SERVE_ERR_SESSION_NOT_FOUND, "session_not_found", 404},
            {SERVE_ERR_UNSUPPORTED, "unsupported", 501},
            {SERVE_ERR_INVALID_REQUEST, "invalid_request", 400},
            {SERVE_ERR_LIFECYCLE, "lifecycle", 409},
            {SERVE_ERR_EXEC, "exec", 500},
            {SERVE_ERR_NETWORK_POLICY, "network_policy", 422},
            {SERVE_ERR_IO, "io", 500},
        };
        for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
                cr_assert_str_eq(serve_error_kind_name(kinds[i].kind), kinds[i].name);
                cr_assert_eq(serve_error_http_status(kinds[i].kind), kinds[i].status);
        }

        struct serve_error err;
        cr_assert_eq(serve_error_set(&err, SERVE_ERR_SESSION_NOT_FOUND,
                                     "sandbox session `%s` was "
                                     "not found",
                                     "s9"),
                     -EINVAL);
        assert_dump(serve_error_to_json(&err),
                    "{\"error\":{\"kind\":\"session_not_found\",\"message\":\"sandbox session "
                    "`s9` was not found\"}}");
        serve_error_set(&err, SERVE_ERR_UNSUPPORTED, "backend `cordon` does not support %s",
                        "snapshot");
        err.backend = "cordon";
        err.operation = "snapshot";
        assert_dump(serve_error_to_json(&err),
                    "{\"error\":{\"kind\":\"unsupported\",\"message\":\"backend `cordon` does not "
                    "support snapshot\",\"backend\":\"cordon\",\"operation\":\"snapshot\"}}");

        /* A message cut inside a UTF-8 sequence, or with a user's bad bytes, still encodes. */
        char long_key[600];
        memset(long_key, 'k', sizeof(long_key));
        memcpy(long_key + 505, "\xe2\x82\xac", 3);
        long_key[sizeof(long_key) - 1] = 0;
        serve_error_set(&err, SERVE_ERR_IO, "%s", long_key);
        char *s = dump(serve_error_to_json(&err));
        cr_assert(strstr(s, "\"kind\":\"io\""));
        free(s);
}

Test(serve_wire, refusal_json_is_the_contract)
{
        struct serve_spec s;
        struct serve_error err = {};
        const char *in =
            "{\"mounts\":[{\"source\":\"\",\"target\":\"x\",\"access\":\"read_only\"}]}";
        cr_assert_eq(serve_spec_parse(in, strlen(in), &s, &err), -EINVAL);
        serve_spec_clear(&s);
        cr_assert_eq(serve_error_http_status(err.kind), 400);
        assert_dump(serve_error_to_json(&err),
                    "{\"error\":{\"kind\":\"invalid_request\",\"message\":\"mounts[0].target: must "
                    "be absolute\"}}");
}
