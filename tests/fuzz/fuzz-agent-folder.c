/* Fuzz target for an agent folder's parsers (src/lib/profiles/agent-conf.c, agent-folder.c): the
 * first byte picks one. Even: the rest is the confined child's stdout for 1 to 3 files (the byte
 * says how many), read back with cordon_agent_conf_parse_dump() and the first file's values
 * mapped with cordon_agent_conf_map() (home /h, the text of config.conf the same bytes); a success
 * holds only plain paths below the home, variable names and a printable hint. Odd: the rest is
 * settings.json for cordon_agent_settings_reduce(), whose output must read back as an object of
 * permissions and hooks only. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "lib/profiles/agent-conf.h"
#include "lib/profiles/agent-folder.h"
#include "shared/macro.h"
#include "shared/strv.h"

static void conf(size_t n, const char *text, size_t size)
{
        static const char *const files[] = {"f", "g", "h"};
        struct cordon_declare_value v[3 * _CORDON_AGENT_CONF_MAX] = {0};
        struct cordon_diag diag = {0};
        int r = cordon_agent_conf_parse_dump(files, n, text, size, v, &diag);
        if (r < 0 && r != -EINVAL && r != -ENOMEM)
                __builtin_trap();
        if (r == -EINVAL && diag.message[1] != ':')
                __builtin_trap();
        struct cordon_agent_profile a = {.name = strdup("fuzz"), .note = strdup("")};
        char **w = NULL;
        if (r == 0 && a.name && a.note) {
                _cleanup_free_ char *nul = strndup(text, size);
                r = cordon_agent_conf_map(&a, NULL, "f", nul, "/h", v, &w, &diag);
                if (r < 0 && r != -EINVAL && r != -E2BIG && r != -ENOMEM)
                        __builtin_trap();
                for (size_t k = 0; r == 0 && k < _CORDON_PROFILE_KEY_MAX; k++)
                        CORDON_LIST_FOREACH (it, &a.items[k]) {
                                if (k != CORDON_PROFILE_CREDENTIAL_ENV &&
                                    !cordon_profile_path_is_valid(it->value))
                                        __builtin_trap();
                                if (!startswith(it->origin, "profile fuzz (f"))
                                        __builtin_trap();
                        }
                if (r == 0 && a.login_hint &&
                    (strlen(a.login_hint) > CORDON_AGENT_HINT_MAX ||
                     strpbrk(a.login_hint, "\n\r\033")))
                        __builtin_trap();
        }
        strv_free(w);
        cordon_agent_profile_clear(&a);
        cordon_declare_values_clear(v, 3 * _CORDON_AGENT_CONF_MAX);
}

static void settings(const char *text, size_t size)
{
        char *out = NULL;
        struct cordon_diag diag = {0};
        int r = cordon_agent_settings_reduce("s", text, size, &out, &diag);
        if (r < 0) {
                if ((r != -EINVAL && r != -E2BIG && r != -ENOMEM) || out)
                        __builtin_trap();
                return;
        }
        if (!out)
                return;
        json_error_t e;
        json_t *j = json_loads(out, 0, &e);
        const char *key;
        json_t *value;
        if (!json_is_object(j))
                __builtin_trap();
        json_object_foreach(j, key, value) if (!streq(key, "permissions") && !streq(key, "hooks"))
            __builtin_trap();
        json_decref(j);
        free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size < 1 || size > FUZZ_MAX_INPUT)
                return 0;
        if (data[0] % 2 == 0)
                conf(1 + (data[0] / 2) % 3, (const char *)data + 1, size - 1);
        else
                settings((const char *)data + 1, size - 1);
        return 0;
}
