/* Fuzz target for src/lib/snapshot/snapshot-restore.c: the input restored as a snapshot into an
 * empty directory, once as cordon_snapshot_restore() reads it (zstd only) and once as plain tar
 * (so that mutations reach the tar parser and the checks without going through zstd). Checks:
 * the result is 0 or one of the documented errors with a message, and nothing appears beside
 * the target (a sentinel directory next to it stays empty, no other name appears). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "lib/snapshot/snapshot.h"
#include "shared/fd-util.h"
#include "shared/macro.h"

static char parent[] = "/tmp/cordon-fuzz-snapshot-XXXXXX";
static char target[sizeof(parent) + 8];
static int parent_fd = -EBADF;

static void setup(void)
{
        FUZZ_CHECK(mkdtemp(parent) != NULL);
        parent_fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        FUZZ_CHECK(parent_fd >= 0);
        FUZZ_CHECK(mkdirat(parent_fd, "outside", 0755) == 0);
        snprintf(target, sizeof(target), "%s/t", parent);
}

static void teardown(void)
{
        remove_tree_physical(parent);
}

/* The names in @fd other than "." and "..", as a count, and whether @only is the one. */
static size_t count_names(int fd, const char *only, bool *ret_only)
{
        int dup_fd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
        FUZZ_CHECK(d != NULL);
        size_t n = 0;
        bool seen = false;
        struct dirent *de;
        while ((de = readdir(d)))
                if (!streq(de->d_name, ".") && !streq(de->d_name, "..")) {
                        n++;
                        seen = seen || (only && streq(de->d_name, only));
                }
        closedir(d);
        if (ret_only)
                *ret_only = seen;
        return n;
}

static void restore_once(int fd, bool require_zstd)
{
        /* Small limits: a sparse file may declare its size for free, and every byte of it is
         * hashed. */
        static const struct cordon_snapshot_limits lim = {
            .max_entries = 512,
            .max_total_bytes = 4u << 20,
            .max_file_bytes = 1u << 20,
            .max_path = 1024,
            .max_manifest = 64u << 10,
        };
        remove_tree_physical(target);
        FUZZ_CHECK(mkdirat(parent_fd, "t", 0755) == 0);
        int tfd = openat(parent_fd, "t", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        FUZZ_CHECK(tfd >= 0);
        FUZZ_CHECK(lseek(fd, 0, SEEK_SET) == 0);
        struct cordon_snapshot_dir dir = {.name = "t", .dirfd = tfd};
        struct cordon_diag diag = {0};
        char *manifest = NULL;
        int r = cordon_snapshot_restore_any(fd, require_zstd, &dir, 1, &lim, &manifest, &diag);
        FUZZ_CHECK(r == 0 || r == -EPERM || r == -EEXIST || r == -EINVAL || r == -EBADMSG ||
                   r == -EOPNOTSUPP || r == -E2BIG || r == -EFBIG || r == -ENAMETOOLONG);
        FUZZ_CHECK(r == 0 ? manifest != NULL : diag.message[0] != 0);
        free(manifest);
        close(tfd);
        /* Beside the target: "outside" and "t", and "outside" is empty. */
        bool t_there;
        FUZZ_CHECK(count_names(parent_fd, "t", &t_there) == 2 && t_there);
        int ofd = openat(parent_fd, "outside", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        FUZZ_CHECK(ofd >= 0);
        FUZZ_CHECK(count_names(ofd, NULL, NULL) == 0);
        close(ofd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        if (parent_fd < 0) {
                setup();
                atexit(teardown);
        }
        int fd = memfd_create("snapshot", MFD_CLOEXEC);
        FUZZ_CHECK(fd >= 0);
        FUZZ_CHECK(write_all(fd, data, size) == 0);
        restore_once(fd, true);
        restore_once(fd, false);
        close(fd);
        return 0;
}
