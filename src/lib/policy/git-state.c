/* What a sandbox may leave in a git directory (git-state.h). */
#include "lib/policy/git-state.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "shared/macro.h"

/* The entries of a git directory that stay writable: what git changes while it commits,
 * branches, tags, fetches, merges, rebases, stashes, bisects and collects garbage. */
static const char *const git_writable[] = {
    "objects",        "refs",         "logs",
    "reftable",       "rebase-merge", "rebase-apply",
    "sequencer",      "rr-cache",     "lfs",
    "index",          "HEAD",         "ORIG_HEAD",
    "FETCH_HEAD",     "MERGE_HEAD",   "MERGE_MSG",
    "MERGE_MODE",     "MERGE_RR",     "MERGE_AUTOSTASH",
    "AUTO_MERGE",     "REBASE_HEAD",  "CHERRY_PICK_HEAD",
    "REVERT_HEAD",    "packed-refs",  "shallow",
    "COMMIT_EDITMSG", "SQUASH_MSG",   "TAG_EDITMSG",
    "NOTES_EDITMSG",  "gc.pid",       "gc.log",
};
static const char *const git_writable_prefixes[] = {"BISECT_", "NOTES_MERGE_", "sharedindex."};

bool cordon_git_entry_writable(const char *name)
{
        for (size_t i = 0; i < ELEMENTSOF(git_writable); i++)
                if (streq(name, git_writable[i]))
                        return true;
        for (size_t i = 0; i < ELEMENTSOF(git_writable_prefixes); i++)
                if (strncmp(name, git_writable_prefixes[i], strlen(git_writable_prefixes[i])) == 0)
                        return true;
        /* A lock left behind by an interrupted git: the next git removes it. */
        size_t n = strlen(name);
        return n > 5 && streq(name + n - 5, ".lock");
}

/* The keys a repository the sandbox made or changed may carry: none makes git run a program
 * or read configuration from elsewhere. @sub: the section takes a subsection ("remote
 * \"origin\""), and only then. */
struct git_key {
        const char *section;
        bool sub;
        const char *keys; /* space-separated, lower case */
};
static const struct git_key git_keys[] = {
    {"core", false,
     "repositoryformatversion filemode bare logallrefupdates ignorecase precomposeunicode "
     "symlinks autocrlf eol safecrlf sharedrepository worktree"},
    {"extensions", false, "objectformat worktreeconfig refstorage preciousobjects"},
    {"remote", true, "url pushurl fetch push tagopt mirror prune promisor partialclonefilter"},
    {"branch", true, "remote merge rebase pushremote description"},
    {"submodule", true, "url active branch"},
    {"init", false, "defaultbranch"},
    {"user", false, "name email"},
    {"pull", false, "rebase ff"},
    {"fetch", false, "prune"},
    {"push", false, "default"},
};

static bool word_in(const char *word, size_t n, const char *list)
{
        for (const char *p = list; *p;) {
                size_t k = strcspn(p, " ");
                if (k == n && strncasecmp(p, word, n) == 0)
                        return true;
                p += k;
                p += *p == ' ';
        }
        return false;
}

_printf_(4, 5) static int refuse(char *reason, size_t size, unsigned line, const char *fmt, ...)
{
        if (size) {
                int k = line ? snprintf(reason, size, "line %u: ", line) : 0;
                if (k < 0 || (size_t)k >= size)
                        k = 0;
                va_list ap;
                va_start(ap, fmt);
                vsnprintf(reason + k, size - k, fmt, ap);
                va_end(ap);
        }
        return -EPERM;
}

static bool is_blank(char c)
{
        return c == ' ' || c == '\t';
}

static bool is_name_char(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '-';
}

/* The checks both texts start with; the reason is emptied. */
static int check_text(const char *text, size_t len, char *reason, size_t size)
{
        if (size)
                reason[0] = 0;
        if (len > CORDON_GIT_STATE_MAX)
                return refuse(reason, size, 0, "larger than %u bytes", CORDON_GIT_STATE_MAX);
        if (memchr(text, 0, len))
                return refuse(reason, size, 0, "holds a NUL byte");
        return 0;
}

/* The line at *@pos of @text (without its newline) in *@ret and *@ret_n; false at the end. */
static bool next_line(const char *text, size_t len, size_t *pos, const char **ret, size_t *ret_n)
{
        if (*pos >= len)
                return false;
        const char *s = text + *pos;
        const char *nl = memchr(s, '\n', len - *pos);
        size_t n = nl ? (size_t)(nl - s) : len - *pos;
        *pos += n + (nl != NULL);
        *ret = s;
        *ret_n = n;
        return true;
}

/* A value git would read as the name of a transport helper it runs ("helper::address"). */
static bool url_names_helper(const char *v, size_t n)
{
        for (size_t i = 0; i + 1 < n; i++)
                if (v[i] == ':' && v[i + 1] == ':')
                        return true;
        return false;
}

int cordon_git_config_check(const char *text, size_t len, char *reason, size_t size)
{
        int r = check_text(text, len, reason, size);
        if (r < 0)
                return r;
        const struct git_key *section = NULL;
        bool has_sub = false;
        char name[32] = "";
        unsigned line = 0;
        const char *s;
        size_t n;
        for (size_t pos = 0; next_line(text, len, &pos, &s, &n);) {
                line++;
                if (n && s[n - 1] == '\r')
                        n--;
                while (n && is_blank(*s))
                        s++, n--;
                while (n && is_blank(s[n - 1]))
                        n--;
                if (n == 0 || *s == '#' || *s == ';')
                        continue;
                if (*s == '[') {
                        size_t k = 1;
                        while (k < n && is_name_char(s[k]))
                                k++;
                        if (k == 1 || k - 1 >= sizeof(name))
                                return refuse(reason, size, line,
                                              "a section name git's own "
                                              "commands do not write");
                        memcpy(name, s + 1, k - 1);
                        name[k - 1] = 0;
                        has_sub = false;
                        if (k < n && s[k] == ' ') {
                                /* [section "subsection"]: no quote or escape inside */
                                if (k + 1 >= n || s[k + 1] != '"')
                                        return refuse(reason, size, line, "a malformed section");
                                size_t e = k + 2;
                                while (e < n && s[e] != '"' && s[e] != '\\')
                                        e++;
                                if (e >= n || s[e] != '"')
                                        return refuse(reason, size, line,
                                                      "a subsection with an escape");
                                k = e + 1;
                                has_sub = true;
                        }
                        if (k + 1 != n || s[k] != ']')
                                return refuse(reason, size, line, "a malformed section");
                        section = NULL;
                        for (size_t i = 0; i < ELEMENTSOF(git_keys); i++)
                                if (strcasecmp(name, git_keys[i].section) == 0 &&
                                    git_keys[i].sub == has_sub)
                                        section = &git_keys[i];
                        if (!section)
                                return refuse(reason, size, line,
                                              "section '%s' is not one a sandbox may set", name);
                        continue;
                }
                if (!section)
                        return refuse(reason, size, line, "a key outside any section");
                size_t k = 0;
                while (k < n && is_name_char(s[k]))
                        k++;
                if (k == 0 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
                        return refuse(reason, size, line, "a malformed key");
                if (!word_in(s, k, section->keys))
                        return refuse(reason, size, line,
                                      "key '%s.%.*s' is not one a sandbox may set", name, (int)k,
                                      s);
                const char *v = s + k;
                size_t vn = n - k;
                while (vn && is_blank(*v))
                        v++, vn--;
                if (vn == 0)
                        continue; /* a bare key: true */
                if (*v != '=')
                        return refuse(reason, size, line, "a malformed key");
                v++, vn--;
                while (vn && is_blank(*v))
                        v++, vn--;
                if (vn >= 2 && v[0] == '"' && v[vn - 1] == '"')
                        v++, vn -= 2;
                for (size_t i = 0; i < vn; i++)
                        if (v[i] == '"' || v[i] == '\\' || v[i] == '#' || v[i] == ';')
                                return refuse(reason, size, line,
                                              "a value with a quote, escape or comment inside");
                if (word_in(s, k, "url pushurl") && url_names_helper(v, vn))
                        return refuse(reason, size, line,
                                      "'%s.%.*s' names a transport helper, a program git runs",
                                      name, (int)k, s);
        }
        return 0;
}

int cordon_git_todo_check(const char *text, size_t len, char *reason, size_t size)
{
        int r = check_text(text, len, reason, size);
        if (r < 0)
                return r;
        unsigned line = 0;
        const char *s;
        size_t n;
        for (size_t pos = 0; next_line(text, len, &pos, &s, &n);) {
                line++;
                while (n && (is_blank(*s) || *s == '\r'))
                        s++, n--;
                size_t w = 0;
                while (w < n && !is_blank(s[w]) && s[w] != '\r')
                        w++;
                if ((w == 4 && strncmp(s, "exec", 4) == 0) || (w == 1 && *s == 'x'))
                        return refuse(reason, size, line, "'%.*s' runs a command", (int)w, s);
        }
        return 0;
}
