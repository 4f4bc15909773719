/* The agents' private JSON copies: overlay before the run, allow-listed write-back after it
 * (agent-json.h). */
#include "lib/policy/agent-json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/macro.h"
#include "shared/strv.h"

#define DEPTH_MAX   32u
#define CHANGES_MAX 100000u

int cordon_agent_json_overlay(json_t *doc, json_t *overlay)
{
        if (!json_is_object(doc) || !json_is_object(overlay))
                return -EINVAL;
        const char *key;
        json_t *value;
        json_object_foreach(overlay, key, value)
        {
                json_t *mine = json_object_get(doc, key);
                int r = 0;
                if (json_is_object(mine) && json_is_object(value)) {
                        r = cordon_agent_json_overlay(mine, value);
                } else if (json_is_array(mine) && json_is_array(value)) {
                        size_t i;
                        json_t *v;
                        json_array_foreach(value, i, v)
                        {
                                bool have = false;
                                size_t j;
                                json_t *m;
                                json_array_foreach(mine, j, m) have = have || json_equal(m, v);
                                if (!have && json_array_append_new(mine, json_deep_copy(v)) < 0)
                                        return -ENOMEM;
                        }
                } else {
                        json_t *copy = json_deep_copy(value);
                        r = copy && json_object_set_new(doc, key, copy) == 0 ? 0 : -ENOMEM;
                }
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The command of hook @h, "" when it has none. */
static const char *hook_command(json_t *h)
{
        const char *c = json_string_value(json_object_get(h, "command"));
        return c ? c : "";
}

/* Whether one of @groups (an event's) runs @command already. */
static bool event_runs(json_t *groups, const char *command)
{
        size_t i, j;
        json_t *g, *h;
        json_array_foreach(groups, i, g)
        {
                json_array_foreach(json_object_get(g, "hooks"), j,
                                   h) if (streq(hook_command(h), command)) return true;
        }
        return false;
}

int cordon_agent_json_add_hooks(json_t *doc, json_t *hooks)
{
        if (!json_is_object(doc) || !json_is_object(hooks))
                return -EINVAL;
        json_t *mine = json_object_get(doc, "hooks");
        const char *event;
        json_t *groups;
        /* The user's shape first, so that a refusal changes nothing. */
        if (mine && !json_is_object(mine))
                return -EINVAL;
        json_object_foreach(mine, event, groups) if (!json_is_array(groups)) return -EINVAL;
        if (!mine) {
                if (json_object_set_new(doc, "hooks", json_object()) < 0)
                        return -ENOMEM;
                mine = json_object_get(doc, "hooks");
        }
        json_object_foreach(hooks, event, groups)
        {
                json_t *have = json_object_get(mine, event);
                if (!have) {
                        if (json_object_set_new(mine, event, json_array()) < 0)
                                return -ENOMEM;
                        have = json_object_get(mine, event);
                }
                size_t i, j;
                json_t *g, *h;
                json_array_foreach(groups, i, g)
                {
                        _cleanup_(json_decrefp) json_t *keep = json_array();
                        if (!keep)
                                return -ENOMEM;
                        json_array_foreach(json_object_get(g, "hooks"), j, h)
                        {
                                bool dup = event_runs(have, hook_command(h));
                                size_t k;
                                json_t *o;
                                /* and within the group itself */
                                json_array_foreach(keep, k, o) dup =
                                    dup || streq(hook_command(o), hook_command(h));
                                if (!dup && json_array_append(keep, h) < 0)
                                        return -ENOMEM;
                        }
                        if (json_array_size(keep) == 0)
                                continue;
                        json_t *copy = json_deep_copy(g);
                        if (!copy || json_object_set(copy, "hooks", keep) < 0) {
                                json_decref(copy);
                                return -ENOMEM;
                        }
                        if (json_array_append_new(have, copy) < 0) /* takes @copy either way */
                                return -ENOMEM;
                }
        }
        return 0;
}

static bool step_match(const char *p, size_t plen, const char *key, const char *project)
{
        if (plen == 1 && p[0] == '*')
                return true;
        if (plen == 8 && strncmp(p, "$PROJECT", 8) == 0)
                return project && streq(key, project);
        if (plen > 0 && p[plen - 1] == '*')
                return strncmp(key, p, plen - 1) == 0;
        if (plen > 1 && p[0] == '*') {
                size_t k = strlen(key);
                return k >= plen - 1 && strncmp(key + k - (plen - 1), p + 1, plen - 1) == 0;
        }
        return strlen(key) == plen && strncmp(key, p, plen) == 0;
}

bool cordon_agent_json_pattern_match(const char *pattern, const char *const *steps, size_t n,
                                     const char *project, size_t *ret_len)
{
        size_t k = 0;
        for (const char *p = pattern; *p; k++) {
                /* "$PROJECT" may hold dots and slashes: it is one step, up to the next ".". */
                size_t len = strcspn(p, ".");
                if (k >= n || !step_match(p, len, steps[k], project))
                        return false;
                p += len;
                p += *p == '.';
        }
        if (k == 0)
                return false;
        *ret_len = k;
        return true;
}

struct walk {
        json_t *final;
        json_t *host;
        char *const *patterns;
        const char *project;
        struct cordon_agent_json_result *out;
        char **applied; /* prefixes applied, joined by \x1f */
        size_t changes;
        json_t *empty;
};

/* A printable, bounded name for key path @steps[0..n), three steps at most. */
static char *name_of(const char *const *steps, size_t n)
{
        char buf[CORDON_AGENT_JSON_NAME_MAX + 1];
        size_t at = 0;
        for (size_t i = 0; i < n && i < 3 && at < CORDON_AGENT_JSON_NAME_MAX; i++) {
                if (i)
                        buf[at++] = '.';
                for (const char *c = steps[i]; *c && at < CORDON_AGENT_JSON_NAME_MAX; c++)
                        buf[at++] = (unsigned char)*c < ' ' || (unsigned char)*c >= 0x7f ? '?' : *c;
        }
        buf[at] = 0;
        if (n > 3 && at + 2 <= CORDON_AGENT_JSON_NAME_MAX) {
                buf[at++] = '.';
                buf[at++] = '*';
                buf[at] = 0;
        }
        return strdup(buf);
}

static char *joined(const char *const *steps, size_t n)
{
        size_t len = 1;
        for (size_t i = 0; i < n; i++)
                len += strlen(steps[i]) + 1;
        char *s = malloc(len), *at = s;
        if (!s)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                size_t k = strlen(steps[i]);
                memcpy(at, steps[i], k);
                at += k;
                *at++ = '\x1f';
        }
        *at = 0;
        return s;
}

/* @host takes @final's value at @steps[0..k), or loses it. */
static int apply(struct walk *w, const char *const *steps, size_t k)
{
        _cleanup_free_ char *key = joined(steps, k);
        if (!key)
                return -ENOMEM;
        if (strv_contains(w->applied, key))
                return 0;
        if (strv_extend(&w->applied, key) < 0)
                return -ENOMEM;
        json_t *src = w->final;
        for (size_t i = 0; i < k && src; i++)
                src = json_is_object(src) ? json_object_get(src, steps[i]) : NULL;
        json_t *dst = w->host;
        for (size_t i = 0; i + 1 < k; i++) {
                json_t *next = json_object_get(dst, steps[i]);
                if (!next) {
                        if (!src)
                                return 0; /* nothing there to remove */
                        next = json_object();
                        if (!next || json_object_set_new(dst, steps[i], next) < 0)
                                return -ENOMEM;
                }
                if (!json_is_object(next))
                        return 0; /* the host's document has no object there: left alone */
                dst = next;
        }
        if (!src) {
                if (json_object_get(dst, steps[k - 1]) && json_object_del(dst, steps[k - 1]) == 0)
                        w->out->kept++;
                return 0;
        }
        json_t *copy = json_deep_copy(src);
        if (!copy || json_object_set_new(dst, steps[k - 1], copy) < 0)
                return -ENOMEM;
        w->out->kept++;
        return 0;
}

/* What makes nothing run whatever it means: nothing, null, an empty list or object. */
static bool empty_leaf(json_t *v)
{
        return !v || json_is_null(v) || (json_is_array(v) && json_array_size(v) == 0) ||
               (json_is_object(v) && json_object_size(v) == 0);
}

/* A change at @steps[0..n): @value is the final value there (NULL: removed). */
static int changed(struct walk *w, const char *const *steps, size_t n, json_t *value)
{
        if (++w->changes > CHANGES_MAX)
                return 0;
        size_t k;
        STRV_FOREACH (p, w->patterns)
                if (cordon_agent_json_pattern_match(*p, steps, n, w->project, &k))
                        return apply(w, steps, k);
        if (empty_leaf(value))
                return 0; /* an empty list or object added, or a key emptied: nothing to say */
        _cleanup_free_ char *name = name_of(steps, n);
        if (!name)
                return -ENOMEM;
        if (strv_contains(w->out->dropped, name))
                return 0;
        if (strv_length(w->out->dropped) >= CORDON_AGENT_JSON_NAMES_MAX) {
                w->out->more = true;
                return 0;
        }
        return strv_extend(&w->out->dropped, name) < 0 ? -ENOMEM : 0;
}

/* Compares @a (base) and @b (final) below key path @steps[0..n). A side that lacks a key counts
 * as an empty object when the other side's value is one, so that what is added or removed is
 * found key by key. */
static int diff(struct walk *w, json_t *a, json_t *b, const char **steps, size_t n)
{
        if (w->changes > CHANGES_MAX)
                return 0;
        bool ao = json_is_object(a) || (!a && json_is_object(b));
        bool bo = json_is_object(b) || (!b && json_is_object(a));
        if (n > 0 && (!ao || !bo || n >= DEPTH_MAX))
                return a && b && json_equal(a, b) ? 0 : changed(w, steps, n, b);
        if (!a)
                a = w->empty;
        if (!b)
                b = w->empty;
        const char *key;
        json_t *v;
        int r;
        json_object_foreach(b, key, v)
        {
                json_t *old = json_object_get(a, key);
                if (old && json_equal(old, v))
                        continue;
                steps[n] = key;
                if ((r = diff(w, old, v, steps, n + 1)) < 0)
                        return r;
        }
        json_object_foreach(a, key, v)
        {
                if (json_object_get(b, key))
                        continue;
                steps[n] = key;
                if ((r = diff(w, v, NULL, steps, n + 1)) < 0)
                        return r;
        }
        return 0;
}

int cordon_agent_json_writeback(json_t *base, json_t *final, json_t *host, char *const *patterns,
                                const char *project, struct cordon_agent_json_result *ret)
{
        *ret = (struct cordon_agent_json_result){0};
        if (!json_is_object(host))
                return -EINVAL;
        struct walk w = {.final = json_is_object(final) ? final : NULL,
                         .host = host,
                         .patterns = patterns,
                         .project = project,
                         .out = ret,
                         .empty = json_object()};
        const char *steps[DEPTH_MAX + 1];
        if (!w.empty)
                return -ENOMEM;
        int r =
            diff(&w, json_is_object(base) ? base : w.empty, w.final ? w.final : w.empty, steps, 0);
        json_decref(w.empty);
        strv_free(w.applied);
        if (r < 0)
                cordon_agent_json_result_clear(ret);
        return r;
}

void cordon_agent_json_result_clear(struct cordon_agent_json_result *r)
{
        strv_free(r->dropped);
        *r = (struct cordon_agent_json_result){0};
}

/* Sets in @doc each leaf of @overlay that @doc lacks (objects key by key); the dotted names of
 * the leaves @doc has already, which stay as they are, are added to *@ret_kept. @prefix: the
 * dotted path of @doc (NULL at the top). 0 or -ENOMEM. */
static int fill_missing(json_t *doc, json_t *overlay, const char *prefix, char ***ret_kept)
{
        const char *key;
        json_t *v;
        json_object_foreach(overlay, key, v)
        {
                _cleanup_free_ char *name = NULL;
                if (asprintf(&name, "%s%s%s", strempty(prefix), prefix ? "." : "", key) < 0)
                        return -ENOMEM;
                json_t *have = json_object_get(doc, key);
                if (json_is_object(v) && json_is_object(have)) {
                        int r = fill_missing(have, v, name, ret_kept);
                        if (r < 0)
                                return r;
                } else if (have) {
                        if (strv_extend(ret_kept, name) < 0)
                                return -ENOMEM;
                } else if (json_object_set(doc, key, v) < 0)
                        return -ENOMEM;
        }
        return 0;
}

int cordon_agent_json_fill_missing(json_t *doc, json_t *overlay, char ***ret_kept)
{
        if (!json_is_object(doc) || !json_is_object(overlay))
                return -EINVAL;
        return fill_missing(doc, overlay, NULL, ret_kept);
}
