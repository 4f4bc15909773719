/* Writes and restores snapshots with src/lib/snapshot/, for bench/snapshot.sh and by hand:
 *   snapshot-tool write ARCHIVE NAME=DIR... [--extra JSON]
 *   snapshot-tool restore ARCHIVE NAME=DIR...
 * write prints the stats as one line of JSON; restore prints the manifest. Each DIR is opened
 * with openat2(RESOLVE_NO_SYMLINKS) as a caller of the module would; a restore's DIRs must be
 * empty directories. Exit 2: usage; 1: failure (the diagnostic on stderr). */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/snapshot/snapshot.h"
#include "shared/macro.h"

static int usage(void)
{
        fprintf(stderr, "usage: snapshot-tool write ARCHIVE NAME=DIR... [--extra JSON]\n"
                        "       snapshot-tool restore ARCHIVE NAME=DIR...\n");
        return 2;
}

static int open_tree(const char *dir)
{
        struct open_how how = {.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
                               .resolve = RESOLVE_NO_SYMLINKS};
        return (int)syscall(SYS_openat2, AT_FDCWD, dir, &how, sizeof(how));
}

int main(int argc, char **argv)
{
        if (argc < 4)
                return usage();
        bool write = streq(argv[1], "write");
        if (!write && !streq(argv[1], "restore"))
                return usage();
        const char *archive = argv[2], *extra = NULL;
        struct cordon_snapshot_dir dirs[CORDON_SNAPSHOT_TREES_MAX];
        size_t n = 0;
        for (int i = 3; i < argc; i++) {
                if (write && streq(argv[i], "--extra") && i + 1 < argc) {
                        extra = argv[++i];
                        continue;
                }
                char *eq = strchr(argv[i], '=');
                if (!eq || n == CORDON_SNAPSHOT_TREES_MAX)
                        return usage();
                *eq = 0;
                int fd = open_tree(eq + 1);
                if (fd < 0) {
                        fprintf(stderr, "snapshot-tool: %s: %m\n", eq + 1);
                        return 1;
                }
                dirs[n++] = (struct cordon_snapshot_dir){.name = argv[i], .dirfd = fd};
        }
        struct cordon_diag diag = {0};
        int r;
        if (write) {
                const char *slash = strrchr(archive, '/');
                _cleanup_free_ char *dir =
                    slash ? strndup(archive, (size_t)(slash - archive + 1)) : strdup(".");
                int dfd = dir ? open_tree(dir) : -ENOMEM;
                if (dfd < 0) {
                        fprintf(stderr, "snapshot-tool: %s: %s\n", strempty(dir), strerror(-dfd));
                        return 1;
                }
                struct cordon_snapshot_stats st;
                r = cordon_snapshot_write(dirs, n, extra, dfd, slash ? slash + 1 : archive, &st,
                                          &diag);
                if (r >= 0)
                        printf("{\"files\":%llu,\"dirs\":%llu,\"symlinks\":%llu,\"bytes\":%llu,"
                               "\"skipped_special\":%llu,\"skipped_symlinks\":%llu,"
                               "\"archive_bytes\":%llu,\"archive_sha256\":\"%s\"}\n",
                               (unsigned long long)st.files, (unsigned long long)st.dirs,
                               (unsigned long long)st.symlinks, (unsigned long long)st.bytes,
                               (unsigned long long)st.skipped_special,
                               (unsigned long long)st.skipped_symlinks,
                               (unsigned long long)st.archive_bytes, st.archive_sha256);
        } else {
                int fd = open(archive, O_RDONLY | O_CLOEXEC);
                if (fd < 0) {
                        fprintf(stderr, "snapshot-tool: %s: %m\n", archive);
                        return 1;
                }
                _cleanup_free_ char *manifest = NULL;
                r = cordon_snapshot_restore(fd, dirs, n, NULL, &manifest, &diag);
                if (r >= 0)
                        printf("%s\n", manifest);
        }
        if (r < 0) {
                fprintf(stderr, "snapshot-tool: %s (%s)\n", diag.message, strerror(-r));
                return 1;
        }
        return 0;
}
