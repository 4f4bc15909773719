/* The built-in defaults of the registry's list variables: what a sandbox keeps read-only,
 * writable or hidden below the home, the devices, the environment's credentials. Kept apart
 * from the table (settings-registry.c) that names them, which is the only reader. */
#include <stddef.h>

#include "lib/settings/settings-defaults.h"

const char *const cordon_default_readonly_mounts[] = {
    "/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc", NULL,
};

/* Shell and tool configuration that tools read but an agent must not rewrite, and what the
 * desktop session and the user's service manager start at the next login. */
const char *const cordon_default_home_readonly[] = {
    ".bashrc",
    ".bash_profile",
    ".bash_logout",
    ".profile",
    ".inputrc",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".vimrc",
    ".vim",
    ".tmux.conf",
    ".nanorc",
    ".editorconfig",
    ".linuxbrew",
    ".local/bin",
    "micromamba",
    ".condarc",
    ".config/git",
    ".gitignore_global",
    ".config/autostart",
    ".config/systemd/user",
    NULL,
};

/* Empty: the agents' directories (~/.claude, ~/.codex, ~/.gemini by default) come from the
 * profiles of ENABLED_AGENTS (profiles/<name>/), folded in by cordon_settings_finalize().
 * agent-sandbox's default .cache/uv is left out on purpose: uv hardlinks the files of its cache
 * into the host's virtual environments, so a sandbox writing the cache would rewrite code the
 * host runs later. */
const char *const cordon_default_home_writable[] = {
    NULL,
};

const char *const cordon_default_home_seeded[] = {
    ".gitconfig",
    NULL,
};

/* Credential stores that are never visible, whatever HOME_ACCESS says: keys, cloud and cluster
 * logins, registry tokens, password stores, browser profiles (session cookies). The agents' own
 * logins (~/.claude, ~/.codex, ~/.gemini) are not here: the agent needs them. */
const char *const cordon_default_home_always_blocked[] = {
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
    NULL,
};

const char *const cordon_default_devices[] = {
    "/dev/nvidia[0-9]*",
    "/dev/nvidiactl",
    "/dev/nvidia-uvm",
    "/dev/nvidia-uvm-tools",
    "/dev/nvidia-modeset",
    "/dev/nvidia-caps/*",
    NULL,
};

const char *const cordon_default_devices_blacklist[] = {
    "/dev/mem", "/dev/kmem",  "/dev/port",  "/dev/pts", "/dev/pts/*",
    "/dev/sd*", "/dev/nvme*", "/dev/loop*", NULL,
};

/* Credentials with names the patterns below do not catch, and host-session plumbing. */
const char *const cordon_default_blocked_env_vars[] = {
    "GITHUB_PAT",
    /* Unlocked password-manager sessions: Bitwarden's CLI; its API key's secret has no "_". */
    "BW_SESSION",
    "BW_CLIENTSECRET",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_PROFILE",
    /* The path of a Google service-account key file. */
    "GOOGLE_APPLICATION_CREDENTIALS",
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
    NULL,
};

const char *const cordon_default_blocked_env_patterns[] = {
    "SSH_*",
    "*_TOKEN/i",
    "*_TOKEN_*/i",
    "*_SECRET/i",
    "*_SECRET_*/i",
    "SECRET_*/i",
    "*_PASSWORD/i",
    "*_PASSWORD_*/i",
    "*_PASSWD/i",
    "*_CREDENTIAL/i",
    "*_CREDENTIALS/i",
    "*_API_KEY/i",
    "*_SECRET_KEY/i",
    "*_PRIVATE_KEY/i",
    "*_ACCESS_KEY/i",
    /* The cloud SDKs' own prefixes: AWS (and its older AMAZON_ and EC2_ tools), Azure and its
     * MSAL token cache, Google Cloud (the gcloud CLI reads CLOUDSDK_*). */
    "AWS_*",
    "AMAZON_*",
    "EC2_*",
    "AZURE_*",
    "MSAL_*",
    "GCP_*",
    "GCLOUD_*",
    "GOOGLE_CLOUD_*",
    "CLOUDSDK_*",
    "DOCKER_*",
    "REGISTRY_*",
    "CI_*",
    "GITLAB_*",
    "JENKINS_*",
    "BUILDKITE_*",
    "CIRCLECI_*",
    /* More of BLOCKED_ENV_PATTERNS: credential names the conventions above miss. */
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
    /* Web sessions: a cookie or a session id is a logged-in credential. Not *_SESSION_ID,
     * which would take XDG_SESSION_ID (a login number, no secret). */
    "COOKIE/i",
    "COOKIES/i",
    "COOKIE_*/i",
    "*_COOKIE/i",
    "*_COOKIES/i",
    "SESSION/i",
    "SESSIONID/i",
    "SESSION_ID/i",
    "SESSION_KEY/i",
    "*_SESSION/i",
    "*_SESSIONID/i",
    "*_SESSION_KEY/i",
    NULL,
};

const char *const cordon_default_allowed_env_vars[] = {
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "CODEX_API_KEY",
    "GOOGLE_API_KEY",
    /* The agents' own credentials besides their API keys: Gemini CLI's key, Claude Code's
     * long-lived OAuth token and the bearer token it sends instead of an API key. */
    "GEMINI_API_KEY",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "ANTHROPIC_AUTH_TOKEN",
    NULL,
};

const char *const cordon_default_allowed_project_parents[] = {"$HOME", "/tmp", "/var/tmp", NULL};
const char *const cordon_default_enabled_agents[] = {"claude", "codex", "gemini", NULL};
/* A capability policy's presets when it names none (process_sandbox.presets null or omitted). */
const char *const cordon_default_presets[] = {
    "system_runtime", "developer_toolchains", "package_manager_config", "user_temp", NULL,
};
