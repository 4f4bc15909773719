/* The chaperon's configuration (chaperon.h): the JSON object the supervisor writes to the
 * chaperon's descriptor 4 (lib/launch/slurm-doorbell.c), parsed apart from main() so that the
 * unit tests and the fuzz target reach it. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "shared/fd-util.h"
#include "shared/macro.h"
#include "slurm/chaperon.h"

#define CONFIG_MAX (1u << 20)

static const char *const scopes[] = {"session", "project", "user", "none", NULL};

void chaperon_config_clear(struct chaperon_config *c)
{
        free(c->session);
        free(c->project);
        free(c->user);
        cordon_list_clear(&c->read_roots);
        cordon_list_clear(&c->write_roots);
        cordon_list_clear(&c->blocked_env);
        cordon_list_clear(&c->blocked_env_pat);
        free(c->cordon);
        for (char **a = c->wrap_args; a && *a; a++)
                free(*a);
        free(c->wrap_args);
        free(c->state_dir);
        free(c->net_mode);
        cordon_chaperon_log_free(c->log);
        *c = (struct chaperon_config){0};
}

static int get_list(json_t *o, const char *key, struct cordon_list *l)
{
        json_t *a = json_object_get(o, key), *v;
        size_t i;
        if (!json_is_array(a))
                return -EINVAL;
        json_array_foreach(a, i, v)
        {
                if (!json_is_string(v))
                        return -EINVAL;
                int r = cordon_list_add(l, json_string_value(v), "chaperon");
                if (r < 0)
                        return r;
        }
        return 0;
}

static int get_string(json_t *o, const char *key, char **ret)
{
        const char *v = json_string_value(json_object_get(o, key));
        if (!v)
                return -EINVAL;
        return (*ret = strdup(v)) ? 0 : -ENOMEM;
}

const char *chaperon_config_scope_name(int scope)
{
        return scope >= 0 && scope < (int)ELEMENTSOF(scopes) - 1 ? scopes[scope] : NULL;
}

int chaperon_config_read(int fd, struct chaperon_config *c, char *why, size_t why_size)
{
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int r = read_full_fd(fd, CONFIG_MAX, &text, &len);
        if (r < 0) {
                snprintf(why, why_size, "cannot read the configuration: %s", strerror(-r));
                return r;
        }
        return chaperon_config_parse(text, len, c, why, why_size);
}

int chaperon_config_parse(const char *text, size_t len, struct chaperon_config *c, char *why,
                          size_t why_size)
{
        /* The same limit as a read's (read_full_fd()'s answer past it). */
        if (len > CONFIG_MAX) {
                snprintf(why, why_size, "cannot read the configuration: %s", strerror(EFBIG));
                return -EFBIG;
        }
        int r;
        json_error_t e;
        json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &e);
        if (!json_is_object(o)) {
                snprintf(why, why_size, "the configuration is not a JSON object: %s", e.text);
                json_decref(o);
                return -EINVAL;
        }
        const char *scope = json_string_value(json_object_get(o, "scope"));
        c->scope = -1;
        for (int i = 0; scope && scopes[i]; i++)
                if (streq(scope, scopes[i]))
                        c->scope = i;
        json_t *uid = json_object_get(o, "uid");
        json_t *level = json_object_get(o, "log_level"),
               *days = json_object_get(o, "log_retain_days");
        r = c->scope < 0 || !json_is_integer(uid) || json_integer_value(uid) < 0 ||
                    json_integer_value(uid) >= (json_int_t)UINT32_MAX || !json_is_integer(level) ||
                    json_integer_value(level) < 0 ||
                    json_integer_value(level) >= _CORDON_CHAPERON_LEVEL_MAX ||
                    !json_is_integer(days) || json_integer_value(days) < 0
                ? -EINVAL
                : 0;
        if (r >= 0) {
                c->uid = (uid_t)json_integer_value(uid);
                c->log_level = (int)json_integer_value(level);
                c->log_retain_days = (uint64_t)json_integer_value(days);
        }
        if (r >= 0)
                r = get_string(o, "session", &c->session);
        if (r >= 0)
                r = get_string(o, "project", &c->project);
        if (r >= 0)
                r = get_string(o, "user", &c->user);
        if (r >= 0)
                r = get_list(o, "read_roots", &c->read_roots);
        if (r >= 0)
                r = get_list(o, "write_roots", &c->write_roots);
        if (r >= 0)
                r = get_list(o, "blocked_env", &c->blocked_env);
        if (r >= 0)
                r = get_list(o, "blocked_env_patterns", &c->blocked_env_pat);
        /* The wrapper that confines a job on the node as the sandbox was: cordon run with the
         * same project, backend and network mode (the node reads the same configuration files
         * from the same home). */
        const char *backend = json_string_value(json_object_get(o, "backend"));
        const char *net = json_string_value(json_object_get(o, "net_mode"));
        if (r >= 0 && (!backend || !net))
                r = -EINVAL;
        const char *const wrap[] = {"run",       "-q",    "--project-dir", c->project,
                                    "--backend", backend, "--net",         net};
        /* Then the sandbox's own settings (those not built-in), each as --set NAME=VALUE: what
         * its command line and environment gave it too, so that a job cannot recover what the
         * sandbox hid. */
        json_t *baked = json_object_get(o, "settings");
        size_t n_baked = json_is_array(baked) ? json_array_size(baked) : 0;
        if (r >= 0 && baked && !json_is_array(baked))
                r = -EINVAL;
        if (r >= 0 && n_baked > CHAPERON_SETTINGS_MAX)
                r = -E2BIG;
        if (r >= 0 && !(c->wrap_args = calloc(ELEMENTSOF(wrap) + 2 * n_baked + 1, sizeof(char *))))
                r = -ENOMEM;
        size_t w = 0;
        for (size_t k = 0; r >= 0 && k < ELEMENTSOF(wrap); k++)
                if (!(c->wrap_args[w++] = strdup(wrap[k])))
                        r = -ENOMEM;
        for (size_t k = 0; r >= 0 && k < n_baked; k++) {
                const char *kv = json_string_value(json_array_get(baked, k));
                if (!kv || !strchr(kv, '=') ||
                    strlen(kv) != json_string_length(json_array_get(baked, k))) {
                        r = -EINVAL;
                        break;
                }
                if (!(c->wrap_args[w++] = strdup("--set")) || !(c->wrap_args[w++] = strdup(kv)))
                        r = -ENOMEM;
        }
        if (r >= 0 && !(c->net_mode = strdup(net)))
                r = -ENOMEM;
        json_decref(o);
        if (r < 0)
                snprintf(why, why_size, "the configuration lacks a key or has a wrong type: %s",
                         strerror(-r));
        return r;
}
