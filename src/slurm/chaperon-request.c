/* A stub's request, parsed (chaperon.h): what the stub says is hostile input from the sandbox;
 * only its shape is trusted, and only the allowed variables are kept. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lib/slurm/slurm-names.h"
#include "lib/slurm/slurm-submit.h"
#include "shared/path-util.h"
#include "shared/strv.h"
#include "slurm/chaperon.h"

/* The request's variables that reach the real command (its output's language and width). */
static const char *const env_allowed[] = {"LANG",    "LC_ALL",     "LC_CTYPE", "LC_MESSAGES",
                                          "LC_TIME", "LC_NUMERIC", "TZ",       "TERM",
                                          "COLUMNS", NULL};
/* The most a value of one may hold. */
#define ENV_VALUE_MAX 256

static bool allowed_name(const char *name)
{
        for (const char *const *n = env_allowed; *n; n++)
                if (streq(*n, name))
                        return true;
        return false;
}

const char *chaperon_request_command(const char *name)
{
        for (const char *const *n = cordon_slurm_command_names(); name && *n; n++)
                if (streq(*n, name))
                        return *n;
        return NULL;
}

void chaperon_request_clear(struct chaperon_request *r)
{
        strv_free(r->argv);
        free(r->cwd);
        strv_free(r->envp);
        *r = (struct chaperon_request){0};
}

int chaperon_request_parse(const char *text, size_t len, struct chaperon_request *ret)
{
        *ret = (struct chaperon_request){0};
        if (len > CORDON_CHAPERON_REQUEST_MAX)
                return -EBADMSG;
        json_error_t e;
        json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &e), *v;
        int r = -EBADMSG;
        json_t *argv = json_object_get(o, "argv"), *env = json_object_get(o, "env");
        const char *cwd = json_string_value(json_object_get(o, "cwd"));
        size_t i;
        const char *key;
        struct chaperon_request q = {0};
        if (!json_is_object(o) || json_object_size(o) != 3 || !json_is_array(argv) ||
            json_array_size(argv) < 1 || json_array_size(argv) > CORDON_SLURM_MAX_ARGS ||
            !json_is_object(env) || !cwd || !path_is_absolute(cwd) ||
            strlen(cwd) != json_string_length(json_object_get(o, "cwd")) ||
            !chaperon_request_command(json_string_value(json_array_get(argv, 0))))
                goto out;
        json_array_foreach(argv, i, v)
        {
                const char *s = json_string_value(v);
                if (!s || strlen(s) != json_string_length(v) ||
                    strlen(s) > CORDON_SLURM_MAX_ARG_SIZE)
                        goto out;
                if (strv_extend(&q.argv, s) < 0) {
                        r = -ENOMEM;
                        goto out;
                }
        }
        json_object_foreach(env, key, v)
        {
                const char *s = json_string_value(v);
                if (!s || strlen(s) != json_string_length(v) || strlen(s) > ENV_VALUE_MAX ||
                    !allowed_name(key))
                        continue;
                char *kv = NULL;
                if (asprintf(&kv, "%s=%s", key, s) < 0 || strv_consume(&q.envp, kv) < 0) {
                        r = -ENOMEM;
                        goto out;
                }
        }
        if (!(q.cwd = strdup(cwd))) {
                r = -ENOMEM;
                goto out;
        }
        *ret = q;
        q = (struct chaperon_request){0};
        r = 0;
out:
        chaperon_request_clear(&q);
        json_decref(o);
        return r;
}
