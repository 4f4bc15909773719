/* `cordon config explain KEY|PATH`. A key: its value or items with the layer, file and line
 * behind each (a network pattern also with what it means, cordon_settings_describe_item()),
 * and the admin rules' changes to it. A path: every filesystem rule of the resolved
 * policy whose guest path is the path, above it or below it, in the policy's order, and the one
 * that wins, as cordon_policy_describe_path() decides it (the last rule at or above the path in
 * the ns backend's mount order, less an optional bind whose host path is missing: it is
 * skipped); then the setting behind it and the flag that would show it. A rule below the path
 * replaces a part of it unless a later one covers its own path (a mask above it). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli-config.h"
#include "cli/commands.h"
#include "cli/config-explain.h"
#include "cli/run-options.h"
#include "shared/log.h"
#include "shared/macro.h"
#include "shared/path-util.h"
#include "shared/strv.h"

bool config_is_variable(const char *name)
{
        for (size_t i = 0; cordon_settings_variable(i); i++)
                if (streq(cordon_settings_variable(i), name))
                        return true;
        return false;
}

/* "line 3 of FILE (the user layer)", "the built-in default", "the environment variable X",
 * "the command line (--ro)", ... */
static void describe_origin(const struct cordon_settings *s, const char *origin, char *buf,
                            size_t size)
{
        const char *file = NULL;
        unsigned line = 0;
        const char *layer = cli_origin_layer(s, origin, &file, &line);
        if (file)
                snprintf(buf, size, "line %u of %s (the %s layer)", line, file, layer);
        else if (streq(layer, "built-in"))
                snprintf(buf, size, "the built-in default");
        else if (streq(layer, "environment"))
                snprintf(buf, size, "the environment variable %s", origin + strlen("env "));
        else if (streq(layer, "command line"))
                snprintf(buf, size, "the command line (%s)", origin);
        else if (streq(layer, "policy file"))
                snprintf(buf, size, "the policy file (%s)", origin);
        else
                snprintf(buf, size, "%s", strempty(origin));
}

static void print_admin_changes(const struct cordon_settings *s, const char *name)
{
        ssize_t n = cordon_settings_admin_change_count(s);
        size_t k = 0;
        for (ssize_t i = 0; i < n; i++) {
                const char *var = NULL, *message = NULL;
                if (cordon_settings_get_admin_change(s, (size_t)i, &var, &message) < 0 ||
                    !streq_ptr(var, name))
                        continue;
                if (k++ == 0)
                        printf("admin rules changed it:\n");
                printf("  %s\n", strempty(message));
        }
        if (k == 0)
                printf("admin rules: none changed it\n");
        /* Which admin baselines there were (agent-sandbox's and cordon's may both be read). */
        ssize_t nf = cordon_settings_config_file_count(s);
        k = 0;
        for (ssize_t i = 0; i < nf; i++) {
                const char *path = NULL, *layer = NULL;
                if (cordon_settings_get_config_file(s, (size_t)i, &path, &layer) < 0 ||
                    !streq_ptr(layer, "admin"))
                        continue;
                printf("%s%s", k++ ? ", then " : "admin baselines read: ", strempty(path));
        }
        printf("%s\n", k ? "" : "admin baselines read: none");
}

int config_explain_key(const struct cordon_settings *s, const char *name)
{
        char where[1024];
        ssize_t n = cordon_settings_count(s, name);
        if (n == -ENOTDIR) {
                _cleanup_free_ char *value = NULL;
                const char *origin = NULL;
                int r = cli_settings_get(s, name, &value, &origin);
                if (r < 0) {
                        log_error("%s: %s", name, strerror(-r));
                        return EXIT_SETUP;
                }
                describe_origin(s, origin, where, sizeof(where));
                printf("%s=%s\n  set by %s\n", name, value, where);
        } else if (n < 0) {
                log_error("%s: %s", name, strerror((int)-n));
                return EXIT_SETUP;
        } else {
                printf("%s: a list of %zd item%s, in order\n", name, n, n == 1 ? "" : "s");
                for (ssize_t i = 0; i < n; i++) {
                        const char *value = NULL, *origin = NULL;
                        if (cordon_settings_get_item(s, name, (size_t)i, &value, &origin) < 0)
                                continue;
                        describe_origin(s, origin, where, sizeof(where));
                        printf("  %s\n    set by %s\n", strempty(value), where);
                        /* What a network pattern matches and where it is applied. */
                        char means[1024];
                        if (cordon_settings_describe_item(name, strempty(value), means,
                                                          sizeof(means)) > 0)
                                printf("    means: %s\n", means);
                }
        }
        print_admin_changes(s, name);
        return fflush(stdout) == 0 ? 0 : EXIT_SETUP;
}

struct rule {
        size_t index;
        const char *guest, *host, *origin;
        enum cordon_access access;
        unsigned flags;
};

/* An optional bind whose host path is missing is skipped by the launch. */
static bool rule_skipped(const struct rule *r)
{
        bool bind = r->access == CORDON_ACCESS_RO || r->access == CORDON_ACCESS_RW ||
                    r->access == CORDON_ACCESS_DEVICE || r->access == CORDON_ACCESS_COPY;
        return bind && (r->flags & CORDON_FS_OPTIONAL) && r->host && access(r->host, F_OK) < 0;
}

/* What @path is inside when rule @w (at or above it) decides; @shown: for a mask, whether the
 * view below it shows something at the mask's path; @view: what the library says shows there. */
static void describe_winner(const struct rule *w, bool shown, enum cordon_path_view view,
                            const char *path, char *buf, size_t size)
{
        const char *host = strempty(w->host);
        bool self = streq(w->guest, path);
        const char *below = self ? "" : path + strlen(w->guest) + (streq(w->guest, "/") ? 0 : 1);
        switch (w->access) {
        case CORDON_ACCESS_RO:
        case CORDON_ACCESS_RW:
                snprintf(buf, size, "%s, the host's %s%s%s",
                         w->access == CORDON_ACCESS_RO ? "read-only" : "read-write", host,
                         self ? "" : "/", below);
                break;
        case CORDON_ACCESS_TMPFS:
                snprintf(buf, size, "%s",
                         self ? "an empty writable tmpfs, discarded on exit"
                              : "inside an empty writable tmpfs (discarded on exit): what the "
                                "host has there is not visible");
                break;
        case CORDON_ACCESS_MASKED:
                /* The mask is mounted only over what the view shows there (apply_mask() in
                 * ns-mount.c): inside a tmpfs, or over a host path that is missing, there is
                 * nothing, and the mask keeps any bind from showing it. */
                if (!shown)
                        snprintf(buf, size,
                                 "absent: hidden, the sandbox sees no such file or directory%s",
                                 self ? "" : " (a directory above it is masked)");
                else
                        snprintf(buf, size, "%s",
                                 self ? "hidden: an empty read-only file or directory stands in "
                                        "its place"
                                      : "absent: hidden, a directory above it is replaced by an "
                                        "empty read-only one");
                break;
        case CORDON_ACCESS_SYMLINK:
                snprintf(buf, size, "%s a symbolic link to %s", self ? "a" : "below", host);
                break;
        case CORDON_ACCESS_PROC:
                snprintf(buf, size, "the sandbox's own procfs");
                break;
        case CORDON_ACCESS_DEV:
                snprintf(buf, size, "the sandbox's minimal /dev");
                break;
        case CORDON_ACCESS_DEVICE:
        case CORDON_ACCESS_COPY:
        case CORDON_ACCESS_DATA:
                if (!self)
                        snprintf(buf, size, "missing: the rule above it makes a file");
                else if (w->access == CORDON_ACCESS_DEVICE)
                        snprintf(buf, size, "the host's device node %s", host);
                else if (w->access == CORDON_ACCESS_COPY)
                        snprintf(buf, size, "a writable copy of the host's %s, discarded on exit",
                                 host);
                else if (view == CORDON_PATH_COPY)
                        snprintf(buf, size,
                                 "a writable file cordon generates, the sandbox's own: discarded "
                                 "on exit, never written back");
                else
                        snprintf(buf, size, "a read-only file cordon generates");
                break;
        default:
                snprintf(buf, size, "%s", cordon_access_to_string(w->access));
                break;
        }
}

/* Whether the view shows something at the guest path of mask @m (rules[@winner]) before it is
 * mounted: the last rule before it at or above that path decides; a tmpfs shows nothing there
 * unless it is the path itself, a bind shows what its host path has. */
static bool mask_shows(const struct rule *rules, ssize_t winner, const struct rule *m)
{
        for (ssize_t i = winner - 1; i >= 0; i--) {
                const struct rule *x = &rules[i];
                if (x->access == CORDON_ACCESS_MASKED || rule_skipped(x) ||
                    !path_is_below(m->guest, x->guest))
                        continue;
                switch (x->access) {
                case CORDON_ACCESS_RO:
                case CORDON_ACCESS_RW: {
                        if (!x->host)
                                return true;
                        const char *below = m->guest + strlen(x->guest);
                        _cleanup_free_ char *hp = NULL;
                        if (asprintf(&hp, "%s%s", x->host,
                                     streq(x->guest, "/") ? m->guest : below) < 0)
                                return true;
                        return access(hp, F_OK) == 0;
                }
                case CORDON_ACCESS_TMPFS:
                        return streq(x->guest, m->guest);
                default:
                        return true;
                }
        }
        return false;
}

int config_explain_path(const struct cordon_settings *s, const struct cordon_host *h,
                        const char *path)
{
        struct cordon_policy *p = NULL;
        _cleanup_strv_free_ char **warnings = NULL;
        struct cordon_diag diag = {0};
        int r = cordon_settings_resolve(s, h, &p, &warnings, &diag);
        STRV_FOREACH (w, warnings)
                log_warning("%s", *w);
        if (r < 0) {
                log_error("%s", *diag.message ? diag.message : strerror(-r));
                return EXIT_SETUP;
        }
        /* The library decides which rule wins (the ns backend's mount order); this lists the
         * rules around it. */
        struct cordon_path_info info;
        if ((r = cordon_policy_describe_path(p, path, CORDON_BACKEND_NS, &info)) < 0) {
                cordon_policy_free(p);
                log_error("'%s': %s", path, strerror(-r));
                return EXIT_USAGE;
        }

        size_t n = cordon_policy_fs_count(p);
        _cleanup_free_ struct rule *rules = calloc(n ?: 1, sizeof(*rules));
        if (!rules) {
                cordon_policy_free(p);
                log_error("out of memory");
                return EXIT_SETUP;
        }
        size_t k = 0;
        ssize_t winner = -1;
        for (size_t i = 0; i < n; i++) {
                struct rule r1 = {.index = i + 1};
                if (cordon_policy_get_fs(p, i, &r1.guest, &r1.host, &r1.access, &r1.flags,
                                         &r1.origin) < 0)
                        break;
                if (!path_is_below(path, r1.guest) && !path_is_below(r1.guest, path))
                        continue;
                if (i == info.rule)
                        winner = (ssize_t)k;
                rules[k++] = r1;
        }

        if (k == 0)
                printf("%s: no rule touches it\n", path);
        else
                printf("%s: %zu rule%s touch%s it, in mount order:\n", path, k, k == 1 ? "" : "s",
                       k == 1 ? "es" : "");
        int gw = 0;
        for (size_t i = 0; i < k; i++)
                if ((int)strlen(rules[i].guest) > gw)
                        gw = (int)strlen(rules[i].guest);
        for (size_t i = 0; i < k; i++) {
                const struct rule *x = &rules[i];
                bool self = streq(x->guest, path), above = !self && path_is_below(path, x->guest);
                char verdict[64] = "";
                struct cordon_path_info own;
                if ((ssize_t)i == winner)
                        snprintf(verdict, sizeof(verdict), "wins");
                else if (rule_skipped(x))
                        snprintf(verdict, sizeof(verdict), "skipped: its host path is missing");
                else if (winner >= 0 && (self || above))
                        snprintf(verdict, sizeof(verdict), "covered by #%zu", rules[winner].index);
                else if (!self && !above &&
                         cordon_policy_describe_path(p, x->guest, CORDON_BACKEND_NS, &own) >= 0 &&
                         own.rule != x->index - 1 && own.rule != SIZE_MAX)
                        /* Mounted before a rule over its own path: a mask above it, say. */
                        snprintf(verdict, sizeof(verdict), "covered by #%zu", own.rule + 1);
                else if (!self && !above)
                        snprintf(verdict, sizeof(verdict), "replaces a part of it");
                printf("  #%-3zu %-7s %-*s  %-11s  (from %s)%s%s\n", x->index,
                       cordon_access_to_string(x->access), gw, x->guest,
                       self    ? "[this path]"
                       : above ? "[above it]"
                               : "[below it]",
                       strempty(x->origin), *verdict ? "  -> " : "", verdict);
        }
        char what[1024];
        if (winner < 0)
                printf("result: not visible inside: no rule at or above it (the sandbox's root "
                       "starts empty)\n");
        else {
                const struct rule *w = &rules[winner];
                describe_winner(w,
                                w->access == CORDON_ACCESS_MASKED && mask_shows(rules, winner, w),
                                info.view, path, what, sizeof(what));
                printf("result: #%zu wins: %s\n", w->index, what);
        }
        if (*info.variable)
                printf("setting: %s%s%s\n", info.variable, *info.value ? "=" : "", info.value);
        if (*info.fix_variable) {
                char fix[1400];
                run_options_spell_fix_home(info.fix_variable, info.fix_value, h->home, fix,
                                           sizeof(fix));
                printf("to %s: %s\n",
                       info.view == CORDON_PATH_ABSENT || info.view == CORDON_PATH_HIDDEN
                           ? "show it"
                           : "lift the protection",
                       fix);
        }
        printf("(the mount view of the ns backend; the landlock backend grants the same paths "
               "with Landlock rules and leaves out those marked for the ns backend only%s)\n",
               winner >= 0 && rules[winner].access == CORDON_ACCESS_MASKED
                   ? "; there a hidden path stays in place and opening it is refused "
                     "with EACCES"
                   : "");
        cordon_policy_free(p);
        return fflush(stdout) == 0 ? 0 : EXIT_SETUP;
}
