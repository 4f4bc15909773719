/* The body of the four fuzz targets of src/lib/resolve/tool-config*.c, one per format
 * (TOOL_CONFIG_FORMAT). Checks the documented promises: only -EINVAL, -E2BIG or -ENOMEM as
 * errors; every line of the copy is a line of the input; no credential left in the copy (by
 * the rules that judged it) nor in a dropped name; and a copy is its own copy, nothing more
 * dropped. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "lib/resolve/tool-config.h"
#include "shared/strv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        const char *in = (const char *)data;
        char *text = NULL, **dropped = NULL;
        int r = cordon_tool_config_sanitize(TOOL_CONFIG_FORMAT, in, size, &text, &dropped);
        FUZZ_CHECK(r == 0 || r == -EINVAL || r == -E2BIG || r == -ENOMEM);
        if (r < 0)
                return 0;
        size_t len = strlen(text);
        FUZZ_CHECK(len == 0 || text[len - 1] == '\n');
        for (const char *l = text; *l;) {
                const char *nl = strchr(l, '\n');
                FUZZ_CHECK(nl);
                FUZZ_CHECK(nl == l || memmem(in, size, l, (size_t)(nl - l)));
                l = nl + 1;
        }
        FUZZ_CHECK(!cordon_tool_config_value_secret(text, len));
        STRV_FOREACH (d, dropped) {
                FUZZ_CHECK(**d);
                FUZZ_CHECK(!cordon_tool_config_value_secret(*d, strlen(*d)));
        }
        char *again = NULL, **dropped_again = NULL;
        r = cordon_tool_config_sanitize(TOOL_CONFIG_FORMAT, text, len, &again, &dropped_again);
        FUZZ_CHECK(r == 0 || r == -ENOMEM);
        if (r == 0) {
                FUZZ_CHECK(strcmp(again, text) == 0);
                FUZZ_CHECK(!dropped_again);
        }
        free(again);
        strv_free(dropped_again);
        free(text);
        strv_free(dropped);
        return 0;
}
