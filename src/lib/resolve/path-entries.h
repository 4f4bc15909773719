/* The caller's PATH read for the directories below the home that its programs live in, and what
 * those programs need beside them (lower-path.c does the looking): pure string work. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* At most this many entries of a PATH value are looked at; later ones are left out. */
#define CORDON_PATH_ENTRIES_MAX 64

enum cordon_path_entry_kind {
        CORDON_PATH_ENTRY_OUTSIDE,  /* an absolute path not below the home: not the home's */
        CORDON_PATH_ENTRY_RELATIVE, /* empty, ".", relative or with "..": never exposed */
        CORDON_PATH_ENTRY_HOME,     /* the home itself (or a parent of it): never exposed */
        CORDON_PATH_ENTRY_BELOW,    /* strictly below the home */
};

/* Splits PATH value @path into its entries, in order, without repeats, the first
 * CORDON_PATH_ENTRIES_MAX only (*@ret_truncated then true; may be NULL). Entries are kept as
 * written, empty ones included. Returns 0 with a NULL-terminated array in *@ret (strv_free()),
 * or -ENOMEM. */
int cordon_path_split(const char *path, char ***ret, bool *ret_truncated);

/* What PATH entry @entry is to home @home (a normalised absolute path other than "/"). For
 * CORDON_PATH_ENTRY_BELOW, *@ret_norm is the entry lexically normalised (free()); otherwise it is
 * left alone. -ENOMEM on allocation failure. */
int cordon_path_entry_classify(const char *entry, const char *home, char **ret_norm);

/* Facts about the parent X of a PATH entry X/bin or X/shims, for cordon_path_entry_plan(). */
enum {
        CORDON_PATH_FACT_NODE_PREFIX = 1u << 0, /* X/lib/node_modules is a directory: npm, nvm */
        CORDON_PATH_FACT_VENV = 1u << 1,        /* X/pyvenv.cfg is a file: a virtualenv */
        CORDON_PATH_FACT_PYENV = 1u << 2,       /* X/libexec/pyenv exists: a pyenv root */
};

/* What a PATH entry below the home brings along. Lengths count bytes of the home-relative entry
 * the plan was made for (0: nothing); @companions are home-relative paths, NULL-terminated. */
struct cordon_path_plan {
        size_t prefix_len;             /* the install prefix X its programs need whole */
        size_t nvm_len;                /* nvm's directory N of N/versions/node/VERSION/bin */
        const char *const *companions; /* never NULL */
};

/* The plan for home-relative PATH entry @rel (normalised, not empty) whose parent has @facts:
 *   X/bin with X an npm prefix (npm's user prefix, an nvm version), a virtualenv or a pyenv
 *   root, or X one of .volta and .bun (their programs are shims into X): X whole;
 *   X/shims of a pyenv root: X whole;
 *   anything else (.local/bin, .cargo/bin, go/bin, bin): the entry alone, never its parent
 *   (~/.cargo holds credentials, ~/.local keyrings, ~ everything);
 * plus companions: .local/lib beside .local/bin (pip's user site), .rustup beside .cargo/bin
 * (the toolchains rustup's proxies run); and for an nvm version, nvm's directory N, of which
 * lower-path.c shows nvm.sh, nvm-exec and alias/. */
void cordon_path_entry_plan(const char *rel, unsigned facts, struct cordon_path_plan *ret);

/* The length of @rel (a home-relative path) up to and including its first "node_modules"
 * component: the tree of packages a program in it resolves its imports from. 0 when it has none.
 * Where that component is the first (~/node_modules holds every package ever installed in the
 * home), only the package is taken: node_modules/NAME or node_modules/@SCOPE/NAME. */
size_t cordon_path_node_modules_root(const char *rel);
