/* cordon_settings_lower(): the directories of the command's PATH below the home (lower-path.c),
 * shown read-only with what their programs need, never a hidden path. Fixture in
 * lower-fixture.h. */
#include "lower-fixture.h"

TestSuite(lower_path, .init = setup, .fini = teardown);

/* Sets the caller's PATH to @path. */
static void set_path(const char *path)
{
        free(envp[0]);
        envp[0] = NULL;
        cr_assert_geq(asprintf(&envp[0], "PATH=%s", path), 0);
}

static void make_link(const char *target, const char *path)
{
        _cleanup_free_ char *dir = strdup(path);
        *strrchr(dir, '/') = 0;
        mkdir_p(dir);
        cr_assert_eq(symlink(target, path), 0, "symlink %s: %m", path);
}

static void exe(const char *path, const char *text)
{
        write_file(path, text);
        cr_assert_eq(chmod(path, 0755), 0);
}

/* The rule at @guest, read-only from @host, with an origin that starts with "PATH". */
static void assert_shown(const char *guest, const char *host)
{
        const struct cordon_fs_rule *r = rule(guest, CORDON_ACCESS_RO);
        if (!r)
                dump();
        cr_assert_not_null(r, "no read-only rule at '%s'", guest);
        cr_assert_str_eq(r->host, host);
        cr_assert(startswith(r->origin, "PATH"), "origin '%s'", r->origin);
}

/* No rule of this step at or below @guest. */
static void assert_not_shown(const char *guest)
{
        for (size_t i = 0; i < p->n_fs; i++)
                if (path_is_below(p->fs[i].guest, guest) &&
                    p->fs[i].access != CORDON_ACCESS_MASKED &&
                    startswith(p->fs[i].origin, "PATH")) {
                        dump();
                        cr_assert_fail("rule at '%s' from %s", p->fs[i].guest, p->fs[i].origin);
                }
}

Test(lower_path, npm_prefix_and_its_link)
{
        const char *prefix = fmt("%s/.npm-global", home);
        exe(fmt("%s/lib/node_modules/@a/cc/cli.js", prefix), "#!/usr/bin/env node\n");
        make_link("../lib/node_modules/@a/cc/cli.js", fmt("%s/bin/claude", prefix));
        write_file(fmt("%s/etc/npmrc", prefix), "//registry.invalid/:_authToken=secret\n");
        set_path(fmt("%s/bin:/usr/bin", prefix));
        lower_ok();
        assert_shown(prefix, prefix);
        cr_assert_str_eq(rule(prefix, CORDON_ACCESS_RO)->origin,
                         fmt("PATH (for '%s/bin')", prefix));
        cr_assert_null(rule(fmt("%s/bin", prefix), CORDON_ACCESS_RO), "inside the prefix");
        assert_masked(fmt("%s/etc/npmrc", prefix));
}

Test(lower_path, nvm_version_and_nvm_sh)
{
        const char *nvm = fmt("%s/.nvm", home);
        const char *v = fmt("%s/versions/node/v22.1.0", nvm);
        exe(fmt("%s/bin/node", v), "ELF");
        mkdir_p(fmt("%s/lib/node_modules/npm", v));
        write_file(fmt("%s/nvm.sh", nvm), "nvm() { :; }\n");
        write_file(fmt("%s/alias/default", nvm), "22\n");
        mkdir_p(fmt("%s/.cache/bin", nvm));
        set_path(fmt("%s/bin", v));
        lower_ok();
        assert_shown(v, v);
        assert_shown(fmt("%s/nvm.sh", nvm), fmt("%s/nvm.sh", nvm));
        assert_shown(fmt("%s/alias", nvm), fmt("%s/alias", nvm));
        cr_assert_null(rule(nvm, CORDON_ACCESS_RO), "not nvm's whole directory");
}

Test(lower_path, local_bin_user_site_and_pipx)
{
        const char *local = fmt("%s/.local", home);
        exe(fmt("%s/bin/pipscript", local), "#!/usr/bin/python3\nimport mod\n");
        write_file(fmt("%s/lib/python3.11/site-packages/mod.py", local), "\n");
        const char *venv = fmt("%s/share/pipx/venvs/tool", local);
        write_file(fmt("%s/pyvenv.cfg", venv), "home = /usr/bin\n");
        exe(fmt("%s/bin/tool", venv), "#!/x/bin/python\n");
        make_link(fmt("%s/bin/tool", venv), fmt("%s/bin/tool", local));
        /* A uv tool whose interpreter is uv's own python in the home. */
        const char *py = fmt("%s/share/uv/python/cpython-3.12", local);
        exe(fmt("%s/bin/python3.12", py), "ELF");
        mkdir_p(fmt("%s/lib/python3.12", py));
        const char *uvt = fmt("%s/share/uv/tools/ruff", local);
        write_file(fmt("%s/pyvenv.cfg", uvt), "home = x\n");
        exe(fmt("%s/bin/ruff", uvt), "ELF");
        make_link(fmt("%s/bin/python3.12", py), fmt("%s/bin/python", uvt));
        make_link(fmt("%s/bin/ruff", uvt), fmt("%s/bin/ruff", local));
        mkdir_p(fmt("%s/share/keyrings", local));
        write_file(fmt("%s/share/keyrings/login.keyring", local), "secret\n");
        set_path(fmt("/usr/bin:%s/bin", local));
        lower_ok();
        /* ~/.local/bin is HOME_READONLY's already. */
        cr_assert_not_null(rule(fmt("%s/bin", local), CORDON_ACCESS_RO));
        assert_shown(fmt("%s/lib", local), fmt("%s/lib", local));
        assert_shown(venv, venv);
        assert_shown(uvt, uvt);
        assert_shown(py, py);
        cr_assert_null(rule(local, CORDON_ACCESS_RO));
        cr_assert_null(rule(fmt("%s/share", local), CORDON_ACCESS_RO));
        assert_not_shown(fmt("%s/share/keyrings", local));
}

Test(lower_path, pyenv_root_for_its_shims)
{
        const char *pyenv = fmt("%s/.pyenv", home);
        exe(fmt("%s/libexec/pyenv", pyenv), "#!/bin/bash\n");
        exe(fmt("%s/shims/python3", pyenv), "#!/usr/bin/env bash\n");
        exe(fmt("%s/versions/3.12.1/bin/python3", pyenv), "ELF");
        set_path(fmt("%s/shims:%s/bin:/usr/bin", pyenv, pyenv));
        lower_ok();
        assert_shown(pyenv, pyenv);
        cr_assert_null(rule(fmt("%s/shims", pyenv), CORDON_ACCESS_RO));
}

Test(lower_path, cargo_bin_alone)
{
        const char *cargo = fmt("%s/.cargo", home);
        exe(fmt("%s/bin/rg", cargo), "ELF");
        write_file(fmt("%s/credentials.toml", cargo), "token = \"secret\"\n");
        mkdir_p(fmt("%s/registry", cargo));
        mkdir_p(fmt("%s/go/bin", home));
        set_path(fmt("%s/bin:%s/go/bin", cargo, home));
        lower_ok();
        assert_shown(fmt("%s/bin", cargo), fmt("%s/bin", cargo));
        assert_shown(fmt("%s/go/bin", home), fmt("%s/go/bin", home));
        cr_assert_null(rule(cargo, CORDON_ACCESS_RO));
        cr_assert_null(rule(fmt("%s/go", home), CORDON_ACCESS_RO));
        cr_assert_null(rule(fmt("%s/.rustup", home), CORDON_ACCESS_RO), "missing: nothing");
}

Test(lower_path, never_a_credential_store)
{
        write_file(fmt("%s/.ssh/id_ed25519", home), "KEY\n");
        exe(fmt("%s/.ssh/tool", home), "#!/bin/sh\n");
        make_link("../.ssh/id_ed25519", fmt("%s/bin/key", home));
        make_link("../.ssh", fmt("%s/bin/sshdir", home));
        set_path(fmt("%s/.ssh:%s/bin", home, home));
        lower_ok();
        assert_not_shown(fmt("%s/.ssh", home));
        cr_assert(warned(fmt("PATH entry '%s/.ssh' lies in hidden path", home)));
        cr_assert(warned("'key' links to"));
        cr_assert(warned("'sshdir' links to"));
        assert_shown(fmt("%s/bin", home), fmt("%s/bin", home));
        /* The bin directory shows the links; their targets stay masked. */
        assert_masked(fmt("%s/.ssh", home));
}

Test(lower_path, entry_holding_a_credential_store_is_masked_inside)
{
        write_file(fmt("%s/.cargo/credentials.toml", home), "token\n");
        exe(fmt("%s/.cargo/tool", home), "#!/bin/sh\n");
        set_path(fmt("%s/.cargo", home));
        lower_ok();
        assert_shown(fmt("%s/.cargo", home), fmt("%s/.cargo", home));
        assert_masked(fmt("%s/.cargo/credentials.toml", home));
}

Test(lower_path, never_the_home)
{
        exe(fmt("%s/tool", home), "#!/bin/sh\n");
        set_path(fmt("%s:%s/:.:bin::/:%s/x/../.ssh", home, home, home));
        lower_ok();
        cr_assert_null(rule(home, CORDON_ACCESS_RO));
        assert_not_shown(home);
        cr_assert(warned("is the home directory"));
}

Test(lower_path, other_modes_and_writable_entries)
{
        exe(fmt("%s/.venv/bin/python", project), "ELF");
        write_file(fmt("%s/.venv/pyvenv.cfg", project), "home = /usr/bin\n");
        exe(fmt("%s/go/bin/tool", home), "ELF");
        set_path(fmt("%s/.venv/bin:%s/go/bin", project, home));
        lower_ok();
        assert_not_shown(fmt("%s/.venv", project));
        assert_shown(fmt("%s/go/bin", home), fmt("%s/go/bin", home));

        s.home_access = CORDON_HOME_READ;
        lower_ok();
        assert_not_shown(home);
}

Test(lower_path, sandbox_env_path_wins)
{
        exe(fmt("%s/a/bin/x", home), "ELF");
        exe(fmt("%s/b/bin/x", home), "ELF");
        set_path(fmt("%s/a/bin", home));
        cr_assert_eq(cordon_list_add(&s.sandbox_env, fmt("PATH=%s/b/bin", home), "--setenv"), 0);
        lower_ok();
        assert_shown(fmt("%s/b/bin", home), fmt("%s/b/bin", home));
        assert_not_shown(fmt("%s/a", home));
}

Test(lower_path, link_in_the_home_shown_at_the_entry)
{
        /* A link right in the home: no sandbox writes the home itself. */
        exe(fmt("%s/real/bin/x", home), "ELF");
        make_link("real", fmt("%s/linked", home));
        set_path(fmt("%s/linked/bin", home));
        lower_ok();
        assert_shown(fmt("%s/linked/bin", home), fmt("%s/real/bin", home));
}

Test(lower_path, planted_link_on_the_way)
{
        /* A link further down: any directory strictly below the home may have been a project. */
        exe(fmt("%s/real/bin/x", home), "ELF");
        make_link("../real", fmt("%s/sub/linked", home));
        set_path(fmt("%s/sub/linked/bin", home));
        lower_ok();
        assert_not_shown(fmt("%s/sub", home));
        assert_not_shown(fmt("%s/real", home));
        cr_assert(warned("in a directory a sandbox can write"));
}
