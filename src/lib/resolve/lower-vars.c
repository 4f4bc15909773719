/* The variables that shape the process rather than the file system: SANDBOX_NPROC_LIMIT,
 * PRIVATE_IPC, what the landlock backend must refuse, BIND_DEV_PTS's kernel-aware shim, and one
 * note line for each variable held for the Slurm integration that is set to something else than
 * its default (it is accepted, never silently ignored). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "lib/resolve/lower-internal.h"
#include "lib/settings/settings.h"

bool cordon_lower_dev_pts_shim_applies(const char *release)
{
        unsigned major = 0, minor = 0;
        if (!release || sscanf(release, "%u.%u", &major, &minor) != 2)
                return false; /* unknown: the kernels cordon runs on are all newer */
        return major < 5 || (major == 5 && minor < 4);
}

/* BIND_DEV_PTS=true: one note line; 1 when /dev/pts is to be added to DEVICES. */
static int dev_pts_shim(struct lower *l)
{
        const struct cordon_settings *s = l->s;
        if (!s->bind_dev_pts)
                return 0;
        struct utsname u;
        const char *release = uname(&u) == 0 ? u.release : "?";
        bool applies = cordon_lower_dev_pts_shim_applies(release);
        int r = applies ? cordon_lower_warn(
                              l,
                              "BIND_DEV_PTS (from %s) is deprecated; on kernel %s (< 5.4) "
                              "/dev/pts is added to DEVICES, where DEVICES_BLACKLIST still applies",
                              strempty(s->bind_dev_pts_origin), release)
                        : cordon_lower_warn(
                              l,
                              "BIND_DEV_PTS (from %s) is deprecated and does nothing on "
                              "kernel %s (>= 5.4): the sandbox has a devpts of its own; drop the "
                              "line",
                              strempty(s->bind_dev_pts_origin), release);
        return r < 0 ? r : applies;
}

static int held_notes(struct lower *l)
{
        for (size_t i = 0; i < cordon_vars_count; i++) {
                const struct cordon_var *v = &cordon_vars[i];
                if (v->status != CORDON_VAR_HELD)
                        continue;
                char buf[64];
                const char *origin = NULL;
                if (cordon_settings_get(l->s, v->name, buf, sizeof(buf), &origin) < 0)
                        continue;
                const char *dflt = v->defaults && v->defaults[0] ? v->defaults[0] : "";
                if (streq(buf, dflt))
                        continue;
                if (cordon_lower_warn(l,
                                      "%s=%s (from %s) is accepted but not active yet: "
                                      "cordon has no Slurm integration",
                                      v->name, buf, strempty(origin)) < 0)
                        return -ENOMEM;
        }
        return 0;
}

int cordon_lower_vars(struct lower *l, bool *ret_dev_pts)
{
        const struct cordon_settings *s = l->s;
        struct cordon_policy *p = l->p;
        p->nproc_limit = s->nproc_limit;
        p->host_ipc = !s->private_ipc;
        p->cleanup_materialized = s->cleanup_materialized;
        /* Only an explicit request: the built-in defaults are the landlock backend's documented
         * gaps (`cordon doctor`), a value someone set is a restriction asked for. */
        p->private_ipc_required = s->private_ipc && !cordon_lower_is_builtin(s->private_ipc_origin);
        p->filter_passwd_required =
            s->filter_passwd && !cordon_lower_is_builtin(s->filter_passwd_origin);
        int r = dev_pts_shim(l);
        if (r < 0)
                return r;
        *ret_dev_pts = r > 0;
        return held_notes(l);
}
