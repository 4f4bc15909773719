/* Whether the site runs cordon's SPANK plugin (chaperon.h): slurm.conf's PlugStackConfig (by
 * default plugstack.conf beside it) names cordon_spank.so on a required or optional line, here
 * or in a file it includes. Read from the files, not by running a command: the first submission
 * of a session pays a few reads. A configless client (no slurm.conf here) finds none and keeps
 * to the wrapper. */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "shared/fd-util.h"
#include "shared/path-util.h"
#include "slurm/chaperon.h"

#define CONF_MAX      (1u << 20)
#define INCLUDE_DEPTH 4

static bool plugstack_has(const char *path, unsigned depth);

static bool line_has(char *line, unsigned depth)
{
        const char *sep = " \t\r";
        char *save = NULL, *kind = strtok_r(line, sep, &save);
        if (!kind || kind[0] == '#')
                return false;
        char *what = strtok_r(NULL, sep, &save);
        if (!what)
                return false;
        if (strcasecmp(kind, "include") == 0) {
                if (depth >= INCLUDE_DEPTH)
                        return false;
                glob_t g = {0};
                bool found = false;
                if (glob(what, 0, NULL, &g) == 0)
                        for (size_t i = 0; i < g.gl_pathc && !found; i++)
                                found = plugstack_has(g.gl_pathv[i], depth + 1);
                globfree(&g);
                return found;
        }
        if (strcasecmp(kind, "required") != 0 && strcasecmp(kind, "optional") != 0)
                return false;
        const char *base = strrchr(what, '/');
        return streq(base ? base + 1 : what, "cordon_spank.so");
}

static bool plugstack_has(const char *path, unsigned depth)
{
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        if (read_full_file(path, CONF_MAX, &text, &len) < 0)
                return false;
        for (char *line = text, *next; line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;
                if (line_has(line, depth))
                        return true;
        }
        return false;
}

bool chaperon_spank_present(void)
{
        const char *conf = getenv("SLURM_CONF");
        if (!conf || !*conf)
                conf = "/etc/slurm/slurm.conf";
        _cleanup_free_ char *text = NULL, *stack = NULL;
        size_t len = 0;
        if (read_full_file(conf, CONF_MAX, &text, &len) < 0)
                return false;
        for (char *line = text, *next; line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;
                line += strspn(line, " \t");
                if (strncasecmp(line, "PlugStackConfig=", 16) != 0)
                        continue;
                char *v = line + 16;
                v[strcspn(v, " \t\r#")] = 0;
                free(stack);
                stack = strdup(v);
                if (!stack)
                        return false;
        }
        if (!stack) {
                const char *slash = strrchr(conf, '/');
                if (!slash ||
                    asprintf(&stack, "%.*s/plugstack.conf", (int)(slash - conf), conf) < 0)
                        return false;
        }
        return plugstack_has(stack, 0);
}
