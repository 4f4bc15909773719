/* cordon_lower_keep_absent(): a read-write bind that would hold a missing protected path is
 * carved (read-only, each entry read-write). Fixture in lower-fixture.h. */
#include "lower-fixture.h"

TestSuite(lower_carve, .init = setup, .fini = teardown);

static size_t count_below(const char *dir, enum cordon_access access)
{
        size_t n = 0;
        for (size_t i = 0; i < p->n_fs; i++)
                if (p->fs[i].access == access && path_is_below(p->fs[i].guest, dir) &&
                    !streq(p->fs[i].guest, dir))
                        n++;
        return n;
}

Test(lower_carve, nothing_to_carve_without_a_writable_bind_over_a_missing_path)
{
        /* The default home is a tmpfs: its writable entries (the agents') hold no protected
         * path. */
        lower_ok();
        cr_assert_not_null(rule(home, CORDON_ACCESS_TMPFS));
        cr_assert_null(rule(home, CORDON_ACCESS_RO), "the home is not carved");
        cr_assert_null(rule(fmt("%s/.config", home), CORDON_ACCESS_RO));
}

Test(lower_carve, entries_bound_one_by_one_links_and_protected_ones_left_out)
{
        s.home_access = CORDON_HOME_WRITE;
        write_file(fmt("%s/notes.txt", home), "n");
        mkdir_p(fmt("%s/work", home));
        mkdir_p(fmt("%s/.ssh", home));
        write_file(fmt("%s/.bashrc", home), "# rc");
        cr_assert_eq(symlink("work", fmt("%s/worklink", home)), 0);
        lower_ok();
        cr_assert_not_null(rule(home, CORDON_ACCESS_RO));
        cr_assert_not_null(rule(fmt("%s/notes.txt", home), CORDON_ACCESS_RW));
        cr_assert_not_null(rule(fmt("%s/work", home), CORDON_ACCESS_RW));
        cr_assert_null(rule(fmt("%s/worklink", home), CORDON_ACCESS_RW), "a link needs no rule");
        cr_assert_null(rule(fmt("%s/.ssh", home), CORDON_ACCESS_RW), "a store: masked only");
        assert_masked(fmt("%s/.ssh", home));
        cr_assert_not_null(rule(fmt("%s/.bashrc", home), CORDON_ACCESS_RO));
        cr_assert_null(rule(fmt("%s/.bashrc", home), CORDON_ACCESS_RW));
}

Test(lower_carve, down_the_way_to_the_missing_path_only)
{
        /* ~/.config/autostart is missing: ~ and ~/.config are carved; ~/.cache, which holds no
         * protected path, stays one read-write bind. */
        s.home_access = CORDON_HOME_WRITE;
        mkdir_p(fmt("%s/.config/tool", home));
        mkdir_p(fmt("%s/.cache/pip/http", home));
        lower_ok();
        cr_assert_not_null(rule(fmt("%s/.config", home), CORDON_ACCESS_RO));
        cr_assert_not_null(rule(fmt("%s/.config/tool", home), CORDON_ACCESS_RW));
        cr_assert_not_null(rule(fmt("%s/.cache", home), CORDON_ACCESS_RW));
        cr_assert_eq(count_below(fmt("%s/.cache", home), CORDON_ACCESS_RW), 0);
        const struct cordon_fs_rule *r = rule(fmt("%s/.config", home), CORDON_ACCESS_RO);
        cr_assert(r && strstr(r->origin, "cannot be created"));
}

Test(lower_carve, a_bind_above_the_home_is_not_carved)
{
        /* /tmp read-write holds the scratch home: carving it would take the rights of the
         * whole /tmp; the old placeholders (.ssh, .aws, .gnupg) serve there. */
        s.private_tmp = false;
        lower_ok();
        cr_assert_not_null(rule("/tmp", CORDON_ACCESS_RW));
        cr_assert_null(rule("/tmp", CORDON_ACCESS_RO));
}

Test(lower_carve, through_a_symlinked_directory_into_the_project)
{
        /* ~/.config is a link into the project (a dotfiles repository): a missing
         * ~/.config/autostart would be created in the project, so the project's directory is
         * carved, not the link. */
        mkdir_p(fmt("%s/dotfiles/config/tool", project));
        cr_assert_eq(symlink(fmt("%s/dotfiles/config", project), fmt("%s/.config", home)), 0);
        lower_ok();
        cr_assert_not_null(rule(fmt("%s/dotfiles/config", project), CORDON_ACCESS_RO));
        cr_assert_not_null(rule(fmt("%s/dotfiles/config/tool", project), CORDON_ACCESS_RW));
        cr_assert_not_null(rule(fmt("%s/dotfiles", project), CORDON_ACCESS_RO));
        cr_assert_not_null(rule(project, CORDON_ACCESS_RO));
}

Test(lower_carve, a_directory_too_large_to_carve_is_refused)
{
        /* Each entry of a carved directory becomes a bind of its own: past 4096 the start is
         * refused, naming the directory and the path it protects, rather than made slow. */
        s.home_access = CORDON_HOME_WRITE;
        for (unsigned i = 0; i <= 4096; i++)
                write_file(fmt("%s/f%u", home, i), "");
        cr_assert_eq(lower(), -E2BIG);
        cr_assert(strstr(diag.message, "more than 4096 entries"), "%s", diag.message);
        cr_assert(strstr(diag.message, home), "%s", diag.message);
}
