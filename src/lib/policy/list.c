/* Origin-tagged string lists. */
#include <stdlib.h>
#include <string.h>

#include "lib/policy/list.h"
#include "shared/macro.h"

int cordon_list_add(struct cordon_list *l, const char *value, const char *origin)
{
        _cleanup_free_ char *v = strdup(value);
        _cleanup_free_ char *o = strdup(origin ?: "");
        if (!v || !o)
                return -ENOMEM;
        struct cordon_item *n = realloc(l->items, sizeof(*n) * (l->n + 1));
        if (!n)
                return -ENOMEM;
        l->items = n;
        l->items[l->n++] = (struct cordon_item){.value = TAKE_PTR(v), .origin = TAKE_PTR(o)};
        return 0;
}

const struct cordon_item *cordon_list_find(const struct cordon_list *l, const char *value)
{
        CORDON_LIST_FOREACH (it, l)
                if (streq(it->value, value))
                        return it;
        return NULL;
}

int cordon_list_add_unique(struct cordon_list *l, const char *value, const char *origin)
{
        if (cordon_list_find(l, value))
                return 0;
        return cordon_list_add(l, value, origin);
}

int cordon_list_filter(struct cordon_list *l,
                       int (*keep)(const struct cordon_item *it, void *userdata), void *userdata)
{
        size_t w = 0, i = 0;
        int r = 0;
        for (; i < l->n; i++) {
                r = keep(&l->items[i], userdata);
                if (r < 0)
                        break;
                if (r == 0) {
                        free(l->items[i].value);
                        free(l->items[i].origin);
                        continue;
                }
                l->items[w++] = l->items[i];
        }
        for (; i < l->n; i++) /* after an error: the rest, unlooked at */
                l->items[w++] = l->items[i];
        l->n = w;
        return r < 0 ? r : 0;
}

size_t cordon_list_remove(struct cordon_list *l, const char *value)
{
        size_t w = 0, removed = 0;
        for (size_t i = 0; i < l->n; i++) {
                if (streq(l->items[i].value, value)) {
                        free(l->items[i].value);
                        free(l->items[i].origin);
                        removed++;
                        continue;
                }
                l->items[w++] = l->items[i];
        }
        l->n = w;
        return removed;
}

void cordon_list_clear(struct cordon_list *l)
{
        for (size_t i = 0; i < l->n; i++) {
                free(l->items[i].value);
                free(l->items[i].origin);
        }
        free(l->items);
        *l = (struct cordon_list){0};
}

int cordon_list_copy(struct cordon_list *dst, const struct cordon_list *src)
{
        CORDON_LIST_FOREACH (it, src) {
                int r = cordon_list_add(dst, it->value, it->origin);
                if (r < 0)
                        return r;
        }
        return 0;
}
