/* Finding the layers of sandbox.conf (cordon-config(5)): the admin baselines (agent-sandbox's,
 * then cordon's own) with their ownership checks, the user's file (or the one CORDON_CONF /
 * SANDBOX_CONF names), conf.d/ *.conf in lexical order, agent-sandbox's files when cordon has none,
 * and the commented default file written on a first run. Reads @envp, never the process
 * environment. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cordon/cordon.h"

/* The real admin baselines, read in this order when they exist: agent-sandbox's (a site moving
 * to cordon keeps its floor), then cordon's own, which can add to it or tighten it further. */
#define CORDON_AGENT_SANDBOX_ADMIN_CONF_PATH "/app/lib/agent-sandbox/sandbox.conf"
#define CORDON_ADMIN_CONF_PATH               "/etc/cordon/sandbox.conf"
/* The largest configuration file read. */
#define CORDON_CONFIG_FILE_MAX (1024u * 1024)
/* The most conf.d files read. */
#define CORDON_CONFD_MAX 256u

struct cordon_config_file {
        char *path;        /* absolute, as found (what messages name) */
        char *real_path;   /* resolved: what the child reads; NULL when the same */
        const char *layer; /* "admin", "user" or "conf.d" */
        char *text;        /* the contents, NUL-terminated */
        bool code;         /* holds more than comments and blank lines: evaluated */
};

struct cordon_config_files {
        struct cordon_config_file *files;
        size_t n;
        /* files[0..n_admin-1] are admin baselines (at most two) and the caller's admin profile */
        size_t n_admin;
};

/* Where the files are looked for. Tests pass their own admin paths (stand-ins for
 * /app/lib/agent-sandbox/sandbox.conf and /etc/cordon/sandbox.conf) and owner. */
struct cordon_config_where {
        char *const *envp;
        const char *agent_admin_path; /* NULL: CORDON_AGENT_SANDBOX_ADMIN_CONF_PATH */
        const char *admin_path;       /* NULL: CORDON_ADMIN_CONF_PATH */
        const char *admin_profile;    /* read after the baselines as one more; NULL: none */
        uid_t admin_owner;            /* the owner the real baseline must have: 0 (root) */
        uid_t caller;                 /* unused: CORDON_ADMIN_CONF must be owned by root too */
        bool write_default;           /* CORDON_CONFIG_WRITE_DEFAULT */
        bool announce_default;        /* CORDON_CONFIG_ANNOUNCE_DEFAULT */
};

/* Finds and reads the files, in layer order (the admin profile last of the admin files, held
 * to the same checks, and missing: -ENOENT). Warnings (the agent-sandbox files read instead, a
 * default file written) are appended to *@warnings. Returns 0; -ENOENT (a file CORDON_CONF,
 * SANDBOX_CONF or CORDON_ADMIN_CONF names does not exist), -EPERM (an admin file or a directory
 * above it with the wrong owner or mode, a symlink, not a regular file, or CORDON_ADMIN_CONF set
 * while a real baseline exists at either path), -EFBIG, -errno of reading or of checking whether
 * a baseline exists; @diag names the file. */
int cordon_config_find(const struct cordon_config_where *w, struct cordon_config_files *ret,
                       char ***warnings, struct cordon_diag *diag);
void cordon_config_files_clear(struct cordon_config_files *f);

/* The commented default sandbox.conf, generated from the registry. The caller frees it. */
char *cordon_config_default_text(void);

/* The value of @name in @envp, or NULL. */
const char *cordon_config_getenv(char *const *envp, const char *name);
