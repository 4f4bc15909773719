/* Capability policies: the model, the canonical writer and the strictest-wins intersection (the
 * parser is in cap-policy-parse.c). Root lists are kept canonical: normalised, sorted in path
 * order and with no entry below another entry of the same list. */
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/settings/cap-policy-internal.h"
#include "lib/policy/diag.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

const char *const cordon_cap_workspace_op_names[CORDON_CAP_N_WORKSPACE_OPS] = {
    "read_text", "list", "exists", "write_text", "delete",
};
const char *const cordon_cap_process_op_names[CORDON_CAP_N_PROCESS_OPS] = {"exec"};
const char *const cordon_cap_preset_names[CORDON_CAP_N_PRESETS] = {
    "system_runtime",
    "developer_toolchains",
    "package_manager_config",
    "user_temp",
};

void cordon_cap_policy_init(struct cordon_cap_policy *c)
{
        *c = (struct cordon_cap_policy){
            .profile = CORDON_PROFILE_WORKTREE,
            .presets_default = true,
        };
}

void cordon_cap_policy_clear(struct cordon_cap_policy *c)
{
        if (!c)
                return;
        strv_free(c->workspace_roots);
        strv_free(c->read_only_roots);
        strv_free(c->read_roots);
        strv_free(c->write_roots);
        cordon_cap_policy_init(c);
}

/* Writes @s (of @len bytes) to @buf for a message, control bytes as \xNN so that a message stays
 * one printable line. Long values are cut with "...". */
void cordon_cap_escape(char *buf, size_t size, const char *s, size_t len, enum escape_mode mode)
{
        size_t o = 0;
        for (size_t i = 0; i < len; i++) {
                unsigned char ch = (unsigned char)s[i];
                char tmp[8];
                if (mode == ESCAPE_POINTER && (ch == '~' || ch == '/'))
                        snprintf(tmp, sizeof(tmp), "~%c", ch == '~' ? '0' : '1');
                else if (mode == ESCAPE_QUOTED && (ch == '"' || ch == '\\'))
                        snprintf(tmp, sizeof(tmp), "\\%c", ch);
                else if (ch < 0x20 || ch == 0x7f)
                        snprintf(tmp, sizeof(tmp), "\\x%02x", ch);
                else {
                        tmp[0] = (char)ch;
                        tmp[1] = 0;
                }
                size_t l = strlen(tmp);
                if (i >= QUOTE_MAX || o + l + 4 > size) {
                        /* Do not leave half a UTF-8 sequence before the "...". */
                        while (o > 0 && ((unsigned char)buf[o - 1] & 0xc0) == 0x80)
                                o--;
                        if (o > 0 && (unsigned char)buf[o - 1] >= 0xc0)
                                o--;
                        memcpy(buf + o, "...", 4);
                        return;
                }
                memcpy(buf + o, tmp, l);
                o += l;
        }
        buf[o] = 0;
}

/* --- root lists --- */

/* Orders paths component by component: "/" sorts before every other byte, so a directory is
 * followed directly by everything below it ("/a", "/a/b", "/a-b"), which lets the callers drop
 * nested entries and merge two lists in one pass. */
static int path_compare(const char *a, const char *b)
{
        for (;; a++, b++) {
                unsigned ka = *a == '/' ? 1u : *a ? (unsigned char)*a + 1u : 0u;
                unsigned kb = *b == '/' ? 1u : *b ? (unsigned char)*b + 1u : 0u;
                if (ka != kb)
                        return ka < kb ? -1 : 1;
                if (ka == 0)
                        return 0;
        }
}

static int path_comparep(const void *a, const void *b)
{
        return path_compare(*(char *const *)a, *(char *const *)b);
}

/* Sorts @v in path order and drops every entry equal to or below an earlier kept one. Returns the
 * new count; the dropped pointers are freed when @free_dropped. */
size_t cordon_cap_roots_minimize(char **v, size_t n, bool free_dropped)
{
        if (n == 0)
                return 0;
        qsort(v, n, sizeof(char *), path_comparep);
        size_t k = 1;
        for (size_t i = 1; i < n; i++) {
                if (path_is_below(v[i], v[k - 1])) {
                        if (free_dropped)
                                free(v[i]);
                        continue;
                }
                v[k++] = v[i];
        }
        v[k] = NULL;
        return k;
}

/* A sorted, minimal array of the pointers of @l (not copies). NULL for an empty list. */
static int roots_view(char *const *l, char ***ret, size_t *ret_n)
{
        size_t n = strv_length(l);
        char **v = NULL;
        if (n > 0) {
                v = calloc(n + 1, sizeof(char *));
                if (!v)
                        return -ENOMEM;
                memcpy(v, l, n * sizeof(char *));
                n = cordon_cap_roots_minimize(v, n, false);
        }
        *ret = v;
        *ret_n = n;
        return 0;
}

/* A strv of copies of the @n strings in @v; NULL when @n is 0. */
static int roots_dup(char *const *v, size_t n, char ***ret)
{
        if (n > CORDON_CAP_POLICY_MAX_ENTRIES)
                return -E2BIG;
        _cleanup_strv_free_ char **l = NULL;
        if (n > 0) {
                l = calloc(n + 1, sizeof(char *));
                if (!l)
                        return -ENOMEM;
                for (size_t i = 0; i < n; i++)
                        if (!(l[i] = strdup(v[i])))
                                return -ENOMEM;
        }
        *ret = TAKE_PTR(l);
        return 0;
}

static int roots_copy(char *const *l, char ***ret)
{
        _cleanup_free_ char **v = NULL;
        size_t n = 0;
        int r = roots_view(l, &v, &n);
        if (r < 0)
                return r;
        return roots_dup(v, n, ret);
}

/* Every path that both lists cover. With minimal sorted lists, the subtrees of @a and @b meet
 * only where one entry lies below the other, and then in the deeper one; a merge walk finds
 * those pairs, since each entry's descendants follow it directly in path order. */
static int roots_narrow(char *const *a, char *const *b, char ***ret)
{
        _cleanup_free_ char **va = NULL, **vb = NULL, **out = NULL;
        size_t na = 0, nb = 0, n = 0;
        int r = roots_view(a, &va, &na);
        if (r >= 0)
                r = roots_view(b, &vb, &nb);
        if (r < 0)
                return r;
        out = calloc(na + nb + 1, sizeof(char *));
        if (!out)
                return -ENOMEM;
        for (size_t i = 0, j = 0; i < na && j < nb;) {
                if (path_is_below(va[i], vb[j]))
                        out[n++] = va[i++];
                else if (path_is_below(vb[j], va[i]))
                        out[n++] = vb[j++];
                else if (path_compare(va[i], vb[j]) < 0)
                        i++;
                else
                        j++;
        }
        n = cordon_cap_roots_minimize(out, n, false);
        return roots_dup(out, n, ret);
}

static bool roots_sorted_minimal(char *const *l)
{
        for (size_t i = 1; l && l[0] && l[i]; i++)
                if (path_compare(l[i - 1], l[i]) >= 0 || path_is_below(l[i], l[i - 1]))
                        return false;
        return true;
}

static bool roots_cover(char *const *l, const char *path)
{
        STRV_FOREACH (r, l)
                if (path_is_below(path, *r))
                        return true;
        return false;
}

/* Whether both lists cover the same paths. A subtree lies within a union of subtrees exactly
 * when its own root does, so checking the entries both ways is enough. Linear for canonical
 * lists (as parse and intersect make them), where it reduces to comparing the entries. */
static bool roots_equal(char *const *a, char *const *b)
{
        if (roots_sorted_minimal(a) && roots_sorted_minimal(b)) {
                if (strv_length(a) != strv_length(b))
                        return false;
                for (size_t i = 0; a && a[i]; i++)
                        if (!streq(a[i], b[i]))
                                return false;
                return true;
        }
        STRV_FOREACH (s, a)
                if (!roots_cover(b, *s))
                        return false;
        STRV_FOREACH (s, b)
                if (!roots_cover(a, *s))
                        return false;
        return true;
}

/* --- writing --- */

/* json_object_set_new() and json_array_append_new() consume @v even on failure. */
static void put(json_t *o, const char *key, json_t *v, int *r)
{
        if (!v && *r == 0)
                *r = -ENOMEM;
        if (json_object_set_new(o, key, v) < 0 && *r == 0)
                *r = -ENOMEM;
}

static void append(json_t *a, json_t *v, int *r)
{
        if (!v && *r == 0)
                *r = -ENOMEM;
        if (json_array_append_new(a, v) < 0 && *r == 0)
                *r = -ENOMEM;
}

/* A string, or NULL with *@r set: -EINVAL for bytes that are not UTF-8 (a hand-built policy
 * may hold any path), -ENOMEM otherwise. */
static json_t *string_json(const char *s, int *r)
{
        json_t *j = json_string(s);
        if (!j && *r == 0) {
                json_t *probe = json_string_nocheck(s);
                *r = probe ? -EINVAL : -ENOMEM;
                json_decref(probe);
        }
        return j;
}

static json_t *names_json(unsigned bits, const char *const *names, size_t n, unsigned shift, int *r)
{
        json_t *a = json_array();
        for (size_t i = 0; a && i < n; i++)
                if (bits & (1u << (i + shift)))
                        append(a, json_string(names[i]), r);
        return a;
}

static json_t *roots_json(char *const *l, int *r)
{
        _cleanup_free_ char **v = NULL;
        size_t n = 0;
        json_t *a = json_array();
        int k = roots_view(l, &v, &n);
        if (k < 0 && *r == 0)
                *r = k;
        for (size_t i = 0; a && i < n; i++) {
                json_t *s = string_json(v[i], r);
                if (s)
                        append(a, s, r);
        }
        return a;
}

int cordon_cap_policy_to_json(const struct cordon_cap_policy *c, char **ret)
{
        const char *profile = cordon_profile_to_string(c->profile);
        const char *level = cordon_side_effect_to_string(c->side_effect_level);
        if (!profile || (c->has_side_effect_level && !level))
                return -EINVAL;

        int r = 0;
        _cleanup_json_ json_t *root = json_object();
        if (!root)
                return -ENOMEM;
        if (c->has_capabilities) {
                json_t *caps = json_object();
                if (caps) {
                        put(caps, "workspace",
                            names_json(c->capabilities, cordon_cap_workspace_op_names,
                                       ELEMENTSOF(cordon_cap_workspace_op_names), 0, &r),
                            &r);
                        put(caps, "process",
                            names_json(c->capabilities, cordon_cap_process_op_names,
                                       ELEMENTSOF(cordon_cap_process_op_names), PROCESS_OP_SHIFT,
                                       &r),
                            &r);
                }
                put(root, "capabilities", caps, &r);
        } else
                put(root, "capabilities", json_null(), &r);
        put(root, "workspace_roots", roots_json(c->workspace_roots, &r), &r);
        put(root, "read_only_roots", roots_json(c->read_only_roots, &r), &r);
        put(root, "sandbox_profile", json_string(profile), &r);
        put(root, "side_effect_level", c->has_side_effect_level ? json_string(level) : json_null(),
            &r);
        json_t *ps = json_object();
        if (ps) {
                put(ps, "presets",
                    c->presets_default ? json_null()
                                       : names_json(c->presets, cordon_cap_preset_names,
                                                    ELEMENTSOF(cordon_cap_preset_names), 0, &r),
                    &r);
                put(ps, "read_roots", roots_json(c->read_roots, &r), &r);
                put(ps, "write_roots", roots_json(c->write_roots, &r), &r);
        }
        put(root, "process_sandbox", ps, &r);
        if (r < 0)
                return r;

        char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

/* --- intersection --- */

/* The first entries of @l for a message: "/a", "/b", "/c", ... (N in all). */
static void describe_roots(char *buf, size_t size, char *const *l)
{
        size_t n = strv_length(l), o = 0;
        for (size_t i = 0; i < n && i < 3 && o < size; i++) {
                char esc[QUOTE_MAX * 4 + 8];
                cordon_cap_escape(esc, sizeof(esc), l[i], strlen(l[i]), ESCAPE_QUOTED);
                o += (size_t)snprintf(buf + o, size - o, "%s\"%s\"", i ? ", " : "", esc);
        }
        if (n > 3 && o < size)
                snprintf(buf + o, size - o, ", ... (%zu in all)", n);
}

/* workspace_roots and read_only_roots: an empty list sets no ceiling and defers to the other
 * side. When both set one, the result must not be empty, or it would read as no ceiling. */
static int narrow_ceiling(char *const *a, char *const *b, const char *what, char ***ret,
                          struct cordon_diag *diag)
{
        if (strv_length(a) == 0 || strv_length(b) == 0) {
                int r = roots_copy(strv_length(a) == 0 ? b : a, ret);
                if (r == -E2BIG)
                        return cordon_diag_set(diag, -EINVAL, "%s: more than %d entries", what,
                                               CORDON_CAP_POLICY_MAX_ENTRIES);
                return r;
        }
        _cleanup_strv_free_ char **l = NULL;
        int r = roots_narrow(a, b, &l);
        if (r == -E2BIG)
                return cordon_diag_set(diag, -EINVAL,
                                       "%s: the intersection has more than %d entries", what,
                                       CORDON_CAP_POLICY_MAX_ENTRIES);
        if (r < 0)
                return r;
        if (!l) {
                char da[400], db[400];
                describe_roots(da, sizeof(da), a);
                describe_roots(db, sizeof(db), b);
                return cordon_diag_set(diag, -EINVAL, "%s have no path in common: %s and %s", what,
                                       da, db);
        }
        *ret = TAKE_PTR(l);
        return 0;
}

/* read_roots and write_roots: an empty list grants nothing, so an empty result is fine. */
static int narrow_grant(char *const *a, char *const *b, const char *what, char ***ret,
                        struct cordon_diag *diag)
{
        int r = roots_narrow(a, b, ret);
        if (r == -E2BIG)
                return cordon_diag_set(diag, -EINVAL,
                                       "%s: the intersection has more than %d entries", what,
                                       CORDON_CAP_POLICY_MAX_ENTRIES);
        return r;
}

static unsigned effective_presets(const struct cordon_cap_policy *c)
{
        return c->presets_default ? CORDON_PRESETS_ALL : c->presets & CORDON_PRESETS_ALL;
}

static int intersect_into(const struct cordon_cap_policy *a, const struct cordon_cap_policy *b,
                          struct cordon_cap_policy *p, struct cordon_diag *diag)
{
        if (!cordon_profile_to_string(a->profile) || !cordon_profile_to_string(b->profile))
                return cordon_diag_set(diag, -EINVAL, "invalid sandbox profile");
        p->profile = a->profile > b->profile ? a->profile : b->profile;

        p->has_capabilities = a->has_capabilities || b->has_capabilities;
        p->capabilities = (a->has_capabilities ? a->capabilities : CORDON_CAP_ALL) &
                          (b->has_capabilities ? b->capabilities : CORDON_CAP_ALL) & CORDON_CAP_ALL;
        if (!p->has_capabilities)
                p->capabilities = 0;

        p->has_side_effect_level = a->has_side_effect_level || b->has_side_effect_level;
        if (a->has_side_effect_level && b->has_side_effect_level)
                p->side_effect_level = a->side_effect_level < b->side_effect_level
                                           ? a->side_effect_level
                                           : b->side_effect_level;
        else if (p->has_side_effect_level)
                p->side_effect_level =
                    a->has_side_effect_level ? a->side_effect_level : b->side_effect_level;

        p->presets_default = a->presets_default && b->presets_default;
        p->presets = p->presets_default ? 0 : effective_presets(a) & effective_presets(b);

        int r = narrow_ceiling(a->workspace_roots, b->workspace_roots, "workspace_roots",
                               &p->workspace_roots, diag);
        if (r >= 0)
                r = narrow_ceiling(a->read_only_roots, b->read_only_roots, "read_only_roots",
                                   &p->read_only_roots, diag);
        if (r >= 0)
                r = narrow_grant(a->read_roots, b->read_roots, "process_sandbox.read_roots",
                                 &p->read_roots, diag);
        if (r >= 0)
                r = narrow_grant(a->write_roots, b->write_roots, "process_sandbox.write_roots",
                                 &p->write_roots, diag);
        return r;
}

int cordon_cap_policy_intersect(const struct cordon_cap_policy *a,
                                const struct cordon_cap_policy *b, struct cordon_cap_policy *ret,
                                struct cordon_diag *diag)
{
        _cleanup_(cordon_cap_policy_clear) struct cordon_cap_policy p;
        cordon_cap_policy_init(&p);
        int r = intersect_into(a, b, &p, diag);
        /* @ret may be @a or @b: replace it only once the result is complete. */
        if (ret == a || ret == b) {
                if (r < 0)
                        return r;
                cordon_cap_policy_clear(ret);
        } else if (r < 0) {
                cordon_cap_policy_init(ret);
                return r;
        }
        *ret = p;
        cordon_cap_policy_init(&p);
        return 0;
}

bool cordon_cap_policy_equal(const struct cordon_cap_policy *a, const struct cordon_cap_policy *b)
{
        /* Bits without a name are not part of the policy: the JSON form cannot carry them. */
        if (a->has_capabilities != b->has_capabilities ||
            (a->has_capabilities &&
             (a->capabilities & CORDON_CAP_ALL) != (b->capabilities & CORDON_CAP_ALL)))
                return false;
        if (a->profile != b->profile)
                return false;
        if (a->has_side_effect_level != b->has_side_effect_level ||
            (a->has_side_effect_level && a->side_effect_level != b->side_effect_level))
                return false;
        if (a->presets_default != b->presets_default ||
            (!a->presets_default &&
             (a->presets & CORDON_PRESETS_ALL) != (b->presets & CORDON_PRESETS_ALL)))
                return false;
        return roots_equal(a->workspace_roots, b->workspace_roots) &&
               roots_equal(a->read_only_roots, b->read_only_roots) &&
               roots_equal(a->read_roots, b->read_roots) &&
               roots_equal(a->write_roots, b->write_roots);
}
