/* Unit tests for whether the site runs cordon's SPANK plugin (src/slurm/chaperon-spank.c), with
 * SLURM_CONF naming a slurm.conf in a scratch directory: plugstack.conf beside it by default,
 * PlugStackConfig= (any case, the last one, a comment after it), required and optional lines,
 * comments, includes with a glob and their depth limit (a loop ends), a plugin of another
 * name, missing files. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shared/fd-util.h"
#include "shared/macro.h"
#include "slurm/chaperon.h"

static char base[64];

static void scratch(void)
{
        snprintf(base, sizeof(base), "/tmp/cordon-chapspank.XXXXXX");
        cr_assert(mkdtemp(base));
        char conf[128];
        snprintf(conf, sizeof(conf), "%s/slurm.conf", base);
        cr_assert_eq(setenv("SLURM_CONF", conf, 1), 0);
}

static void scratch_remove(void)
{
        remove_tree_physical(base);
}

TestSuite(chaperon_spank, .init = scratch, .fini = scratch_remove);

/* @rel below the scratch directory, in a static buffer of four that rotate. */
static const char *at(const char *rel)
{
        static char bufs[4][256];
        static unsigned k;
        char *b = bufs[k++ % 4];
        snprintf(b, sizeof(bufs[0]), "%s/%s", base, rel);
        return b;
}

/* Writes @rel below the scratch directory (its directory made), the text formatted. */
_printf_(2, 3) static void put(const char *rel, const char *fmt, ...)
{
        char path[256], dir[256];
        snprintf(path, sizeof(path), "%s/%s", base, rel);
        snprintf(dir, sizeof(dir), "%s", path);
        *strrchr(dir, '/') = 0;
        cr_assert(mkdir(dir, 0700) == 0 || errno == EEXIST, "mkdir %s: %m", dir);
        FILE *f = fopen(path, "we");
        cr_assert_not_null(f, "%s: %m", path);
        va_list ap;
        va_start(ap, fmt);
        vfprintf(f, fmt, ap);
        va_end(ap);
        cr_assert_eq(fclose(f), 0);
}

static const char *slurm_conf = "ClusterName=test\nSlurmctldHost=localhost\n";

Test(chaperon_spank, default_plugstack_beside_slurm_conf)
{
        put("slurm.conf", "%s", slurm_conf);
        cr_assert_not(chaperon_spank_present(), "no plugstack.conf");
        put("plugstack.conf", "required /usr/lib/x86_64-linux-gnu/slurm-wlm/cordon_spank.so\n");
        cr_assert(chaperon_spank_present());
        put("plugstack.conf", "optional cordon_spank.so --some-arg\n");
        cr_assert(chaperon_spank_present(), "a bare name, optional, with arguments");
        put("plugstack.conf", "  \tRequired\t/x/cordon_spank.so\r\n");
        cr_assert(chaperon_spank_present(), "blanks before, the kind in any case, CRLF");
        put("plugstack.conf", "OPTIONAL /x/cordon_spank.so");
        cr_assert(chaperon_spank_present(), "no newline at the end");
}

Test(chaperon_spank, missing_files)
{
        cr_assert_not(chaperon_spank_present(), "no slurm.conf");
        /* Without slurm.conf, a plugstack.conf beside where it would be is not looked at: a
         * configless client keeps to the wrapper. */
        put("plugstack.conf", "required cordon_spank.so\n");
        cr_assert_not(chaperon_spank_present());
        put("slurm.conf", "PlugStackConfig=%s\n", at("nowhere/plugstack.conf"));
        cr_assert_not(chaperon_spank_present(), "PlugStackConfig names a missing file");
        /* Positive control. */
        put("slurm.conf", "PlugStackConfig=%s\n", at("plugstack.conf"));
        cr_assert(chaperon_spank_present());
}

Test(chaperon_spank, plugstackconfig_explicit)
{
        put("plugstack.conf", "# nothing here\n");
        put("etc/stack.conf", "required /opt/slurm/lib/cordon_spank.so\n");
        put("slurm.conf", "%sPlugStackConfig=%s\n", slurm_conf, at("etc/stack.conf"));
        cr_assert(chaperon_spank_present(), "the named file, not the one beside");
        put("slurm.conf", "%splugstackconfig=%s\n", slurm_conf, at("etc/stack.conf"));
        cr_assert(chaperon_spank_present(), "the key in lower case");
        put("slurm.conf", "  PLUGSTACKCONFIG=%s   # the site's stack\n", at("etc/stack.conf"));
        cr_assert(chaperon_spank_present(), "leading blanks, a comment after the value");
        /* The last one counts, as in Slurm. */
        put("slurm.conf", "PlugStackConfig=%s\nPlugStackConfig=%s\n", at("etc/stack.conf"),
            at("plugstack.conf"));
        cr_assert_not(chaperon_spank_present());
        put("slurm.conf", "PlugStackConfig=%s\nPlugStackConfig=%s\n", at("plugstack.conf"),
            at("etc/stack.conf"));
        cr_assert(chaperon_spank_present());
        /* A commented-out key is no key: the default beside slurm.conf is read. */
        put("slurm.conf", "#PlugStackConfig=%s\n", at("etc/stack.conf"));
        cr_assert_not(chaperon_spank_present());
        put("plugstack.conf", "required cordon_spank.so\n");
        cr_assert(chaperon_spank_present());
}

Test(chaperon_spank, comments_and_other_plugins)
{
        put("slurm.conf", "%s", slurm_conf);
        put("plugstack.conf", "# required /x/cordon_spank.so\n"
                              "#required /x/cordon_spank.so\n"
                              "\n"
                              "   \n"
                              "required /x/other_spank.so\n"
                              "optional /x/cordon_spank.so.bak\n"
                              "required /x/not_cordon_spank.so\n"
                              "required /x/cordon_spank.so/\n"
                              "loaded /x/cordon_spank.so\n"
                              "cordon_spank.so\n"
                              "required\n"
                              "required cordon_spank.sox\n");
        cr_assert_not(chaperon_spank_present());
        /* Positive control: the same file and one more line. */
        put("plugstack.conf", "# required /x/cordon_spank.so\n"
                              "required /x/other_spank.so\n"
                              "required /x/cordon_spank.so\n");
        cr_assert(chaperon_spank_present());
}

Test(chaperon_spank, include_with_a_glob)
{
        put("slurm.conf", "%s", slurm_conf);
        put("plugstack.conf.d/10-other.conf", "required other_spank.so\n");
        put("plugstack.conf.d/20-cordon.conf", "optional /x/cordon_spank.so\n");
        put("plugstack.conf.d/30-cordon.disabled", "x\n");
        put("plugstack.conf", "required first_spank.so\ninclude %s\n",
            at("plugstack.conf.d/*.conf"));
        cr_assert(chaperon_spank_present());
        put("plugstack.conf", "INCLUDE %s\n", at("plugstack.conf.d/2*"));
        cr_assert(chaperon_spank_present(), "the keyword in any case");
        put("plugstack.conf", "include %s\n", at("plugstack.conf.d/1*.conf"));
        cr_assert_not(chaperon_spank_present(), "only what the glob matches");
        put("plugstack.conf", "include %s\n", at("plugstack.conf.d/*.nothing"));
        cr_assert_not(chaperon_spank_present(), "a glob that matches nothing");
        put("plugstack.conf", "include\n");
        cr_assert_not(chaperon_spank_present());
        put("plugstack.conf", "# include %s\n", at("plugstack.conf.d/*.conf"));
        cr_assert_not(chaperon_spank_present());
}

Test(chaperon_spank, include_depth_limit)
{
        /* plugstack.conf includes inc1, inc1 inc2, ... : the files four includes deep are
         * read, not those five deep. */
        put("slurm.conf", "%s", slurm_conf);
        put("plugstack.conf", "include %s\n", at("inc1.conf"));
        for (int i = 1; i <= 4; i++) {
                char rel[32], next[32];
                snprintf(rel, sizeof(rel), "inc%d.conf", i);
                snprintf(next, sizeof(next), "inc%d.conf", i + 1);
                put(rel, "include %s\n", at(next));
        }
        put("inc4.conf", "required cordon_spank.so\n");
        cr_assert(chaperon_spank_present(), "four includes deep");
        put("inc4.conf", "include %s\n", at("inc5.conf"));
        put("inc5.conf", "required cordon_spank.so\n");
        cr_assert_not(chaperon_spank_present(), "five includes deep");
}

Test(chaperon_spank, include_loop_ends)
{
        put("slurm.conf", "%s", slurm_conf);
        put("plugstack.conf", "include %s\n", at("plugstack.conf"));
        cr_assert_not(chaperon_spank_present(), "a file including itself");
        /* Each file including every file, twice: 2^... reads bounded by the depth. */
        put("plugstack.conf", "include %s\ninclude %s\n", at("loop/*.conf"), at("loop/*.conf"));
        put("loop/a.conf", "include %s\ninclude %s\n", at("loop/*.conf"), at("plugstack.conf"));
        put("loop/b.conf", "include %s\n", at("loop/*.conf"));
        cr_assert_not(chaperon_spank_present());
        /* Found past a loop. */
        put("loop/c.conf", "required cordon_spank.so\n");
        cr_assert(chaperon_spank_present());
}
