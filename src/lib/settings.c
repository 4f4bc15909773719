/* Built-in defaults of the sandbox.conf variables: the first front end. */
#include <stdlib.h>
#include <string.h>

#include "lib/settings.h"
#include "shared/macro.h"

#define BUILTIN "built-in default"

static const char *const default_readonly_mounts[] = {
    "/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc",
};

/* Shell and tool configuration that tools read but an agent must not rewrite. */
static const char *const default_home_readonly[] = {
    ".bashrc",           ".bash_profile", ".bash_logout", ".profile",   ".inputrc",   ".zshrc",
    ".zshenv",           ".zprofile",     ".vimrc",       ".vim",       ".tmux.conf", ".nanorc",
    ".editorconfig",     ".linuxbrew",    ".local/bin",   "micromamba", ".condarc",   ".config/git",
    ".gitignore_global",
};

/* .cache/uv plus the default-enabled agent profiles (claude, codex, gemini). */
static const char *const default_home_writable[] = {
    ".cache/uv",
    ".claude",
    ".codex",
    ".gemini",
};

static const char *const default_home_seeded[] = {
    ".gitconfig",
};

/* Credential stores that are never visible, whatever HOME_ACCESS says: keys, cloud and cluster
 * logins, registry tokens, password stores, browser profiles (session cookies). The agents' own
 * logins (~/.claude, ~/.codex, ~/.gemini) are not here: the agent needs them. */
static const char *const default_home_always_blocked[] = {
    ".ssh",
    ".aws",
    ".gnupg",
    ".azure",
    ".config/gcloud",
    ".kube",
    ".docker",
    ".config/containers/auth.json",
    ".oci",
    ".config/doctl",
    ".pulumi/credentials.json",
    ".terraform.d/credentials.tfrc.json",
    ".vault-token",
    ".config/gh",
    ".config/hub",
    ".git-credentials",
    ".config/git/credentials",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".pgpass",
    ".my.cnf",
    ".s3cfg",
    ".boto",
    ".config/rclone",
    ".password-store",
    ".local/share/keyrings",
    ".config/op",
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
};

static const char *const default_devices[] = {
    "/dev/nvidia[0-9]*",     "/dev/nvidiactl",      "/dev/nvidia-uvm",
    "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset", "/dev/nvidia-caps/*",
};

static const char *const default_devices_blacklist[] = {
    "/dev/mem",   "/dev/kmem", "/dev/port",  "/dev/pts",
    "/dev/pts/*", "/dev/sd*",  "/dev/nvme*", "/dev/loop*",
};

/* Credentials with names the patterns below do not catch, and host-session plumbing. */
static const char *const default_blocked_env_vars[] = {
    "GITHUB_PAT",
    /* Unlocked password-manager sessions: Bitwarden's CLI; its API key's secret has no "_". */
    "BW_SESSION",
    "BW_CLIENTSECRET",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_PROFILE",
    "DATABASE_URL",
    "PGPASSWORD",
    "PGPASSFILE",
    "MYSQL_PWD",
    "MONGODB_URI",
    "REDIS_URL",
    "KRB5CCNAME",
    "NETRC",
    "KUBECONFIG",
    "VAULT_ADDR",
    "GPG_AGENT_INFO",
    "DBUS_SESSION_BUS_ADDRESS",
    "XAUTHORITY",
    "TMUX",
    "TMUX_PANE",
    "STY",
    "OLDPWD",
};

static const char *const default_blocked_env_patterns[] = {
    "SSH_*",           "*_TOKEN/i",    "*_TOKEN_*/i",    "*_SECRET/i",      "*_SECRET_*/i",
    "SECRET_*/i",      "*_PASSWORD/i", "*_PASSWORD_*/i", "*_PASSWD/i",      "*_CREDENTIAL/i",
    "*_CREDENTIALS/i", "*_API_KEY/i",  "*_SECRET_KEY/i", "*_PRIVATE_KEY/i", "*_ACCESS_KEY/i",
    "AZURE_*",         "GCP_*",        "GCLOUD_*",       "GOOGLE_CLOUD_*",  "DOCKER_*",
    "REGISTRY_*",      "CI_*",         "GITLAB_*",       "JENKINS_*",       "BUILDKITE_*",
    "CIRCLECI_*",
};

/* More of BLOCKED_ENV_PATTERNS: credential names the conventions above miss. */
static const char *const default_blocked_env_patterns_more[] = {
    /* The credential words on their own, as exact names in any case (a glob such as *TOKEN*
     * would take TOKENIZERS_PARALLELISM and the like). */
    "PASSWORD/i",
    "PASSWD/i",
    "PASSPHRASE/i",
    "TOKEN/i",
    "SECRET/i",
    "API_KEY/i",
    /* Key passphrases, and the short form of passwords (DB_PASS, SMTP_PASS). */
    "*_PASSPHRASE/i",
    "*_PASS/i",
    /* 1Password CLI sessions, one per account: OP_SESSION_<account>. */
    "OP_SESSION_*",
    /* npm and yarn classic take any config key from npm_config_*, also per registry
     * (npm_config_//registry.example/:_authToken); _auth is base64 of user:password. Yarn
     * berry's YARN_NPM_AUTH_IDENT is user:password as well. */
    "*_authToken/i",
    "npm_config_*_auth/i",
    "*_AUTH_IDENT/i",
};

static const char *const default_allowed_env_vars[] = {
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "CODEX_API_KEY",
    "GOOGLE_API_KEY",
    /* The agents' own credentials besides their API keys: Gemini CLI's key, Claude Code's
     * long-lived OAuth token and the bearer token it sends instead of an API key. */
    "GEMINI_API_KEY",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "ANTHROPIC_AUTH_TOKEN",
};

static int add_all(struct cordon_list *l, const char *const *v, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                int r = cordon_list_add(l, v[i], BUILTIN);
                if (r < 0)
                        return r;
        }
        return 0;
}

#define ADD_ALL(l, v) add_all((l), (v), ELEMENTSOF(v))

int cordon_settings_init_defaults(struct cordon_settings *s, const char *home)
{
        int r;
        *s = (struct cordon_settings){
            .home_access = CORDON_HOME_TMPWRITE,
            .net_mode = CORDON_NET_ISOLATED,
            .private_tmp = true,
            .private_ipc = true,
            .filter_passwd = true,
            .protect_git = true,
            .block_env_url_credentials = true,
            .backend = CORDON_BACKEND_AUTO,
            .profile = CORDON_PROFILE_WORKTREE,
            .fallback = CORDON_FALLBACK_ENFORCE,
        };
        s->home_access_origin = strdup(BUILTIN);
        if (!s->home_access_origin)
                return -ENOMEM;

        if (home && (r = cordon_list_add(&s->allowed_project_parents, home, BUILTIN)) < 0)
                return r;
        if ((r = cordon_list_add(&s->allowed_project_parents, "/tmp", BUILTIN)) < 0 ||
            (r = cordon_list_add(&s->allowed_project_parents, "/var/tmp", BUILTIN)) < 0 ||
            (r = ADD_ALL(&s->readonly_mounts, default_readonly_mounts)) < 0 ||
            (r = ADD_ALL(&s->home_readonly, default_home_readonly)) < 0 ||
            (r = ADD_ALL(&s->home_writable, default_home_writable)) < 0 ||
            (r = ADD_ALL(&s->home_seeded, default_home_seeded)) < 0 ||
            (r = ADD_ALL(&s->home_always_blocked, default_home_always_blocked)) < 0 ||
            (r = ADD_ALL(&s->devices, default_devices)) < 0 ||
            (r = ADD_ALL(&s->devices_blacklist, default_devices_blacklist)) < 0 ||
            (r = ADD_ALL(&s->blocked_env_vars, default_blocked_env_vars)) < 0 ||
            (r = ADD_ALL(&s->blocked_env_patterns, default_blocked_env_patterns)) < 0 ||
            (r = ADD_ALL(&s->blocked_env_patterns, default_blocked_env_patterns_more)) < 0 ||
            (r = ADD_ALL(&s->allowed_env_vars, default_allowed_env_vars)) < 0)
                return r;
        return 0;
}

void cordon_settings_clear(struct cordon_settings *s)
{
        cordon_list_clear(&s->allowed_project_parents);
        cordon_list_clear(&s->readonly_mounts);
        cordon_list_clear(&s->home_readonly);
        cordon_list_clear(&s->home_writable);
        cordon_list_clear(&s->home_seeded);
        cordon_list_clear(&s->home_always_blocked);
        cordon_list_clear(&s->extra_blocked_paths);
        cordon_list_clear(&s->extra_writable_paths);
        cordon_list_clear(&s->blocked_files);
        cordon_list_clear(&s->devices);
        cordon_list_clear(&s->devices_blacklist);
        cordon_list_clear(&s->blocked_env_vars);
        cordon_list_clear(&s->blocked_env_patterns);
        cordon_list_clear(&s->allowed_env_vars);
        cordon_list_clear(&s->sandbox_env);
        free(s->home_access_origin);
        free(s->project_dir);
        free(s->cgroup_path);
        free(s->project_dir_origin);
        if (s->cap_policy) {
                cordon_cap_policy_clear(s->cap_policy);
                free(s->cap_policy);
        }
        free(s->cap_policy_origin);
        *s = (struct cordon_settings){0};
}
