/* Fuzz target for the text scan of configuration files (src/lib/config/config-scan.c): any
 * bytes up to a NUL as a file's text. Every assignment found lies within the text, names a
 * variable and has its value on the same line; the other scans end. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "lib/config/config-scan.h"

struct ctx {
        const char *text;
        size_t len;
        unsigned lines;
        unsigned found;
};

static int check(const struct cordon_config_assignment *a, void *userdata)
{
        struct ctx *c = userdata;
        if (a->name < c->text || a->name + a->name_len > c->text + c->len || a->name_len == 0 ||
            a->line < 1 || a->line > c->lines || a->value < a->name + a->name_len ||
            a->value > c->text + c->len)
                __builtin_trap();
        if (memchr(a->name, '\n', a->name_len) || memchr(a->name, '=', a->name_len))
                __builtin_trap();
        (void)cordon_config_value_substitutes(a->value);
        c->found++;
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        char *text = malloc(size + 1);
        if (!text)
                return 0;
        memcpy(text, data, size);
        text[size] = 0;
        struct ctx c = {.text = text, .len = strlen(text), .lines = 1};
        for (const char *p = text; *p; p++)
                c.lines += *p == '\n';
        (void)cordon_config_scan(text, check, &c);
        (void)cordon_config_has_code(text);
        (void)cordon_config_last_assignment(text, "HOME_ACCESS");
        free(text);
        return 0;
}
