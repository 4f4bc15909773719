/* Fuzz target for src/lib/policy/agent-toml.cc: the input is up to three TOML texts separated by
 * NUL bytes, the base handed to codex, its copy after the run (hostile) and the host's file.
 * The copy's allowed changes are merged into the host's document (agent-json.c) and the host's
 * text edited to hold it; the host's text is also edited to hold the copy's whole document,
 * which reaches every kind of edit. Checks: results are the documented ones; an edit that
 * succeeds reads back as what was asked (the function checks it; so does this), and one asked
 * for no change returns the text unchanged; messages are printable and bounded. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "lib/policy/agent-json.h"
#include "lib/policy/agent-toml.h"

struct part {
        const char *text;
        size_t len;
};

static struct part next(const uint8_t **data, size_t *size)
{
        const uint8_t *nul = memchr(*data, 0, *size);
        size_t n = nul ? (size_t)(nul - *data) : *size;
        struct part p = {(const char *)*data, n};
        *data += n + (nul != NULL);
        *size -= n + (nul != NULL);
        return p;
}

static void check_why(const char *why)
{
        FUZZ_CHECK(strlen(why) < CORDON_AGENT_TOML_WHY_MAX);
        for (const char *c = why; *c; c++)
                FUZZ_CHECK((unsigned char)*c >= ' ' && (unsigned char)*c < 0x7f);
}

static json_t *read_toml(struct part p)
{
        char why[CORDON_AGENT_TOML_WHY_MAX];
        json_t *j = NULL;
        int r = cordon_agent_toml_to_json(p.text, p.len, &j, why);
        FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
        FUZZ_CHECK((r == 0) == (j != NULL));
        FUZZ_CHECK(!j || json_is_object(j));
        if (r == -EINVAL)
                FUZZ_CHECK(why[0] != 0);
        check_why(why);
        return j;
}

/* @host's text edited to read as @want: the result's documented properties. */
static void edit(struct part host, json_t *host_doc, json_t *want)
{
        char why[CORDON_AGENT_TOML_WHY_MAX];
        char *out = NULL;
        size_t len = 0;
        int r = cordon_agent_toml_edit(host.text, host.len, want, &out, &len, why);
        check_why(why);
        if (!host_doc) {
                FUZZ_CHECK(r == -EINVAL || r == -ENOMEM);
                return;
        }
        FUZZ_CHECK(r == 0 || r == -ENOTSUP || r == -ENOMEM);
        if (r == -ENOTSUP)
                FUZZ_CHECK(why[0] != 0);
        if (r < 0)
                return;
        FUZZ_CHECK(strlen(out) == len || memchr(out, 0, len));
        json_t *again = read_toml((struct part){out, len});
        FUZZ_CHECK(again && json_equal(again, want));
        if (json_equal(host_doc, want))
                FUZZ_CHECK(len == host.len && memcmp(out, host.text, len) == 0);
        json_decref(again);
        free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        struct part base = next(&data, &size), final = next(&data, &size),
                    host = next(&data, &size);
        json_t *b = read_toml(base), *f = read_toml(final), *h = read_toml(host);
        if (f) {
                json_t *merged = json_deep_copy(h ? h : f);
                char *patterns[] = {strdup("model"), strdup("projects.$PROJECT.trust_level"),
                                    strdup("n*"), strdup("notice.hide_*"), NULL};
                struct cordon_agent_json_result res;
                if (h && merged &&
                    cordon_agent_json_writeback(b, f, merged, patterns, "/p", &res) == 0) {
                        edit(host, h, merged);
                        cordon_agent_json_result_clear(&res);
                }
                for (size_t i = 0; patterns[i]; i++)
                        free(patterns[i]);
                json_decref(merged);
                /* Every difference at once. */
                edit(host, h, f);
        }
        json_decref(b);
        json_decref(f);
        json_decref(h);
        return 0;
}
