/* Fuzz target for cordon_profile_parse() (src/lib/profiles/profile-parse.c): any bytes as a
 * profile file. A success holds only valid items (home-relative paths, variable names); a
 * failure names the file and leaves nothing behind. */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "lib/profiles/profiles.h"
#include "shared/macro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        struct cordon_agent_profile a = {0};
        struct cordon_diag diag = {0};
        int r = cordon_profile_parse("fuzz", "f", (const char *)data, size, &a, &diag);
        if (r < 0) {
                if (r != -EINVAL && r != -E2BIG && r != -ENOMEM)
                        __builtin_trap();
                if (a.name || (r != -ENOMEM && strncmp(diag.message, "f", 1) != 0))
                        __builtin_trap();
                return 0;
        }
        for (size_t k = 0; k < _CORDON_PROFILE_KEY_MAX; k++)
                CORDON_LIST_FOREACH (it, &a.items[k]) {
                        if (!*it->value || it->value[0] == '/' || streq(it->value, "..") ||
                            startswith(it->value, "../") || strstr(it->value, "/../") ||
                            strpbrk(it->value, " \t\r\n"))
                                __builtin_trap();
                        if (!startswith(it->origin, "profile fuzz (f:"))
                                __builtin_trap();
                }
        cordon_agent_profile_clear(&a);
        return 0;
}
