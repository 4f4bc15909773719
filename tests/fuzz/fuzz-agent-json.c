/* Fuzz target for src/lib/policy/agent-json.c: the input is up to three JSON texts separated by
 * NUL bytes, the base handed to an agent, its copy after the run (hostile) and the host's file;
 * and as an overlay onto the base. Checks: results are the documented ones; the write-back
 * changes the host's document only at keys the patterns allow (whatever the copy holds), and
 * only by taking the copy's values there; dropped names are printable and bounded. */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "lib/policy/agent-json.h"
#include "shared/strv.h"

static json_t *part(const uint8_t **data, size_t *size)
{
        const uint8_t *nul = memchr(*data, 0, *size);
        size_t n = nul ? (size_t)(nul - *data) : *size;
        json_t *j = json_loadb((const char *)*data, n, JSON_DECODE_ANY, NULL);
        *data += n + (nul != NULL);
        *size -= n + (nul != NULL);
        return j;
}

/* Every top-level key whose value differs between @a and @b is one of @allowed. */
static void only_allowed(json_t *a, json_t *b, const char *const *allowed)
{
        const char *key;
        json_t *v;
        json_object_foreach(b, key, v)
        {
                json_t *old = json_object_get(a, key);
                if (old && json_equal(old, v))
                        continue;
                bool ok = false;
                for (size_t i = 0; allowed[i]; i++)
                        ok = ok || strcmp(allowed[i], key) == 0;
                FUZZ_CHECK(ok);
        }
        json_object_foreach(a, key, v)
        {
                if (json_object_get(b, key))
                        continue;
                bool ok = false;
                for (size_t i = 0; allowed[i]; i++)
                        ok = ok || strcmp(allowed[i], key) == 0;
                FUZZ_CHECK(ok);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        json_t *base = part(&data, &size), *final = part(&data, &size), *host = part(&data, &size);
        if (!json_is_object(host)) {
                json_decref(host);
                host = json_object();
        }
        char *patterns[] = {strdup("theme"), strdup("projects.$PROJECT.trust"), strdup("n*"), NULL};
        const char *const top[] = {"theme", "projects", NULL};
        json_t *before = json_deep_copy(host);
        struct cordon_agent_json_result res;
        int r = cordon_agent_json_writeback(base, final, host, patterns, "/p", &res);
        FUZZ_CHECK(r == 0 || r == -ENOMEM);
        if (r == 0) {
                /* n*: any top-level key starting with n; the rest by name. */
                const char *key;
                json_t *v;
                void *tmp;
                json_t *a = json_deep_copy(before), *b = json_deep_copy(host);
                json_object_foreach_safe(a, tmp, key, v) if (key[0] == 'n') json_object_del(a, key);
                json_object_foreach_safe(b, tmp, key, v) if (key[0] == 'n') json_object_del(b, key);
                only_allowed(a, b, top);
                /* Below projects: only /p's trust. */
                json_t *pa = json_object_get(a, "projects"), *pb = json_object_get(b, "projects");
                if (json_is_object(pb) && !json_equal(pa, pb)) {
                        json_object_foreach(pb, key, v)
                        {
                                json_t *o = json_is_object(pa) ? json_object_get(pa, key) : NULL;
                                FUZZ_CHECK((o && json_equal(o, v)) || strcmp(key, "/p") == 0);
                        }
                }
                json_decref(a);
                json_decref(b);
                FUZZ_CHECK(strv_length(res.dropped) <= CORDON_AGENT_JSON_NAMES_MAX);
                STRV_FOREACH (n, res.dropped) {
                        FUZZ_CHECK(strlen(*n) <= CORDON_AGENT_JSON_NAME_MAX);
                        for (const char *c = *n; *c; c++)
                                FUZZ_CHECK((unsigned char)*c >= ' ' && (unsigned char)*c < 0x7f);
                }
                cordon_agent_json_result_clear(&res);
        }
        if (json_is_object(base) && json_is_object(final)) {
                r = cordon_agent_json_overlay(base, final);
                FUZZ_CHECK(r == 0 || r == -ENOMEM);
        }
        json_decref(before);
        for (size_t i = 0; patterns[i]; i++)
                free(patterns[i]);
        json_decref(base);
        json_decref(final);
        json_decref(host);
        return 0;
}
