/* session-bench snapshot: cordon_sandbox_snapshot() of a session whose temporary directory holds
 * FILES files of MBYTES MB, and the restore of that archive into new sessions
 * (cordon_sandbox_options.restore_from), against tar with zstd run inside the same session on
 * the same tree and into the same file systems. Prints "NAME NANOSECONDS" samples and a few
 * "NAME ..." facts for bench/session.sh. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session-bench.h"

/* Run inside the session, once: FILES (argv[1]) files of BYTES (argv[2]) bytes in all under
 * $TMPDIR/tree (TMPDIR: the landlock backend's private one; /tmp, a tmpfs of the session's,
 * under the ns backend), in 185 directories, log-normal sizes from a fixed seed; every third
 * file random bytes (incompressible, as packs, images and build outputs are), the others
 * slices of the text files of /usr/share (the first 8 MB of them without a NUL byte, in name
 * order). Prints "tree FILES BYTES TEXT-BYTES". */
static const char make_tree_py[] =
    "import os, random, sys\n"
    "n, total = int(sys.argv[1]), int(sys.argv[2])\n"
    "root = os.path.join(os.environ.get('TMPDIR', '/tmp'), 'tree')\n"
    "parts, have = [], 0\n"
    "for top, dirs, names in os.walk('/usr/share'):\n"
    "    dirs.sort()\n"
    "    for name in sorted(names):\n"
    "        p = os.path.join(top, name)\n"
    "        try:\n"
    "            if os.path.islink(p) or not os.path.isfile(p) or os.path.getsize(p) > 1 << 20:\n"
    "                continue\n"
    "            with open(p, 'rb') as f:\n"
    "                b = f.read()\n"
    "        except OSError:\n"
    "            continue\n"
    "        if b and b'\\0' not in b:\n"
    "            parts.append(b)\n"
    "            have += len(b)\n"
    "    if have >= 8 << 20:\n"
    "        break\n"
    "text = b''.join(parts)\n"
    "if len(text) < 1 << 20:\n"
    "    sys.exit('too little text under /usr/share')\n"
    "rng = random.Random(25)\n"
    "w = [rng.lognormvariate(0, 1.5) for _ in range(n)]\n"
    "sizes = [max(1, int(x / sum(w) * total)) for x in w]\n"
    "for i, size in enumerate(sizes):\n"
    "    d = os.path.join(root, 'd%02d' % (i % 37), 's%d' % (i % 5))\n"
    "    os.makedirs(d, exist_ok=True)\n"
    "    if i % 3 == 0:\n"
    "        data = rng.randbytes(size)\n"
    "    else:\n"
    "        at = rng.randrange(0, max(1, len(text) - size))\n"
    "        data = (text * (1 + size // len(text)))[at:at + size]\n"
    "    with open(os.path.join(d, 'f%04d' % i), 'wb') as f:\n"
    "        f.write(data)\n"
    "print('tree %d %d %d' % (n, sum(sizes), len(text)))\n";

/* Run inside a session: "digest FILES BYTES SHA256" of the tree $TMPDIR/argv[1]: every entry's
 * path, type and permission bits, every file's size, mtime (in seconds: GNU tar's default
 * format keeps no more) and content, every link's target. */
static const char digest_py[] =
    "import hashlib, os, stat, sys\n"
    "root = os.path.join(os.environ.get('TMPDIR', '/tmp'), sys.argv[1])\n"
    "h, files, size = hashlib.sha256(), 0, 0\n"
    "for top, dirs, names in os.walk(root):\n"
    "    dirs.sort()\n"
    "    for name in sorted(dirs + names):\n"
    "        p = os.path.join(top, name)\n"
    "        st = os.lstat(p)\n"
    "        line = '%s %o' % (os.path.relpath(p, root), st.st_mode)\n"
    "        if stat.S_ISREG(st.st_mode):\n"
    "            with open(p, 'rb') as f:\n"
    "                line += ' %d %d %s' % (st.st_size, int(st.st_mtime),\n"
    "                                       hashlib.sha256(f.read()).hexdigest())\n"
    "            files, size = files + 1, size + st.st_size\n"
    "        elif stat.S_ISLNK(st.st_mode):\n"
    "            line += ' ' + os.readlink(p)\n"
    "        h.update(line.encode() + b'\\n')\n"
    "print('digest %d %d %s' % (files, size, h.hexdigest()))\n";

/* Runs @argv in @sb and waits for it; its standard output, up to @size - 1 bytes and
 * NUL-terminated, in @out when that is not NULL (else /dev/null), its standard error ours.
 * Returns the nanoseconds of exec + wait; dies unless it exits 0. */
static int64_t run_in(struct cordon_sandbox *sb, char *const *argv, char *out, size_t size)
{
        int null = open("/dev/null", O_RDWR | O_CLOEXEC), p[2] = {-1, -1};
        if (null < 0 || (out && pipe2(p, O_CLOEXEC) < 0))
                die("open: %m");
        struct cordon_exec_options eo = {
            .argv = argv, .flags = CORDON_EXEC_STDIO, .stdio = {null, out ? p[1] : null, 2}};
        struct cordon_exec *e = NULL;
        struct cordon_diag d = {0};
        int st = -1;
        int64_t t0 = now_ns();
        int r = cordon_sandbox_exec(sb, &eo, &e, &d);
        if (r < 0)
                die("exec %s: %s (%s)", argv[0], strerror(-r), d.message);
        /* Waited for first and read after: the wait serves the session (the landlock
         * backend's notified file calls), and the output is a line, far below a pipe's
         * buffer. */
        r = cordon_exec_wait(e, &st);
        int64_t t1 = now_ns();
        if (out) {
                close(p[1]);
                size_t n = 0;
                ssize_t k;
                while ((k = read(p[0], out + n, size - 1 - n)) > 0 || (k < 0 && errno == EINTR))
                        n += k > 0 ? (size_t)k : 0;
                out[n] = 0;
                close(p[0]);
        }
        if (r < 0 || st != 0)
                die("%s in the session: %s, status %d", argv[0], strerror(-r), st);
        cordon_exec_free(e);
        close(null);
        return t1 - t0;
}

static void digest(struct cordon_sandbox *sb, const char *tree, char out[static 256])
{
        char *argv[] = {W("/usr/bin/python3"), W("-c"), W(digest_py), W(tree), NULL};
        run_in(sb, argv, out, 256);
        if (strncmp(out, "digest ", 7) != 0)
                die("the digest program said: %s", out);
}

static void free_session(struct cordon_sandbox *sb)
{
        cordon_sandbox_free(sb);
        /* Untimed: what the next row would otherwise pay for (dirty pages, freed blocks). */
        sync();
}

static void unlink_or_die(const char *path)
{
        if (unlink(path) < 0 && errno != ENOENT)
                die("unlink %s: %m", path);
}

static off_t size_of(const char *path)
{
        struct stat st;
        if (stat(path, &st) < 0)
                die("stat %s: %m", path);
        return st.st_size;
}

/* @dir/@name in @out, which has PATH_MAX bytes. */
static void join(char *out, const char *dir, const char *name)
{
        if ((size_t)snprintf(out, PATH_MAX, "%s/%s", dir, name) >= PATH_MAX)
                die("the path %s/%s is too long", dir, name);
}

/* The session's temporary directory as it sees it (PATH_MAX bytes), and its file system's
 * type (64). */
static void tmpdir_of(struct cordon_sandbox *sb, char *ret_path, char *ret_fs)
{
        char *argv[] = {W("/bin/sh"), W("-c"),
                        W("t=${TMPDIR:-/tmp}; printf '%s %s' \"$t\" \"$(stat -f -c %T \"$t\")\""),
                        NULL};
        char line[256];
        run_in(sb, argv, line, sizeof(line));
        if (sscanf(line, "%4095s %63s", ret_path, ret_fs) != 2)
                die("no TMPDIR: %s", line);
}

/* A random order of @n items (at most 8) in @order. */
static void shuffle(unsigned *order, unsigned n)
{
        for (unsigned i = 0; i < n; i++)
                order[i] = i;
        for (unsigned i = n - 1; i > 0; i--) {
                unsigned j = (unsigned)(rnd() % (i + 1)), t = order[i];
                order[i] = order[j];
                order[j] = t;
        }
}

void t_snapshot(int rounds, int warmup, int files, int mbytes, const char *archive_dir)
{
        struct cordon_policy *p = resolve("isolated");
        struct cordon_sandbox *sb = start_restored(p, NULL);
        char tmp[PATH_MAX], line[256], want[256], got[256];

        char fs[64];
        tmpdir_of(sb, tmp, fs);
        printf("tmpdir %s %s\n", tmp, fs);

        char nfiles[16], nbytes[24];
        snprintf(nfiles, sizeof(nfiles), "%d", files);
        snprintf(nbytes, sizeof(nbytes), "%lld", (long long)mbytes * 1000 * 1000);
        char *make[] = {W("/usr/bin/python3"), W("-c"), W(make_tree_py), nfiles, nbytes, NULL};
        run_in(sb, make, line, sizeof(line));
        if (strncmp(line, "tree ", 5) != 0)
                die("the tree's maker said: %s", line);
        printf("%s", line);
        digest(sb, "tree", want);
        sync();

        char snap[PATH_MAX], tarc[PATH_MAX], tar1[PATH_MAX], x[PATH_MAX], x1[PATH_MAX];
        join(snap, archive_dir, "snapshot.tar.zst");
        join(tarc, archive_dir, "tar.tar.zst");
        join(tar1, archive_dir, "tar1.tar.zst");
        join(x, tmp, "x-tar");
        join(x1, tmp, "x-tar1");

        /* Writing: the snapshot, GNU tar with zstd's default level 3 (one thread), and with
         * the level and threads the snapshot uses (--fast=3, -T0), all reading the same tree
         * and writing to the same directory; each round in its own order. */
        char *tar_c[] = {W("tar"), W("--zstd"), W("-cf"), tarc, W("-C"), tmp, W("tree"), NULL};
        char *tar1_c[] = {W("tar"),  W("-I"), W("zstd --fast=3 -T0"), W("-cf"), tar1, W("-C"), tmp,
                          W("tree"), NULL};
        for (int i = 0; i < warmup + rounds; i++) {
                unsigned order[3];
                shuffle(order, 3);
                for (unsigned k = 0; k < 3; k++) {
                        if (order[k] == 0) {
                                struct cordon_diag d = {0};
                                int64_t t0 = now_ns();
                                int r = cordon_sandbox_snapshot(sb, snap, &d);
                                int64_t t1 = now_ns();
                                if (r < 0)
                                        die("snapshot: %s (%s)", strerror(-r), d.message);
                                sample(i, warmup, "snapshot", t1 - t0);
                                /* The first in the process loads libarchive and nettle. */
                                if (i == 0)
                                        sample(0, 0, "first-snapshot", t1 - t0);
                        } else
                                sample(i, warmup, order[k] == 1 ? "tar-c" : "tar1-c",
                                       run_in(sb, order[k] == 1 ? tar_c : tar1_c, NULL, 0));
                }
                /* The last round's archives are the restores'. */
                if (i + 1 < warmup + rounds) {
                        unlink_or_die(snap);
                        unlink_or_die(tarc);
                        unlink_or_die(tar1);
                }
                sync();
        }
        printf("archive %lld %lld %lld\n", (long long)size_of(snap), (long long)size_of(tarc),
               (long long)size_of(tar1));

        /* One session at a time from here: a second live one in the same project cannot
         * start where the settings give agents' homes (their run directory is the
         * project's). */
        free_session(sb);

        /* Restoring: a new session started with the archive against one started without it
         * (the difference is the restore's own cost), in a random order each round; in the
         * plain one, tar's extraction of its archives into its temporary directory, the file
         * system the restore writes to. Every restored tree is compared with the original
         * (untimed); tar's in the first round. */
        char *tar_x[] = {W("tar"), W("--zstd"), W("-xf"), tarc, W("-C"), x, NULL};
        char *tar1_x[] = {W("tar"), W("-I"), W("zstd -d"), W("-xf"), tar1, W("-C"), x1, NULL};
        char *mk[] = {W("mkdir"), x, x1, NULL};
        for (int i = 0; i < warmup + rounds; i++) {
                int64_t plain = 0, restored = 0;
                unsigned first = (unsigned)(rnd() & 1);
                for (unsigned k = 0; k < 2; k++) {
                        bool restore = k ^ first;
                        int64_t t0 = now_ns();
                        struct cordon_sandbox *s2 = start_restored(p, restore ? snap : NULL);
                        int64_t t1 = now_ns();
                        if (restore) {
                                restored = t1 - t0;
                                digest(s2, "tree", got);
                                if (strcmp(got, want) != 0)
                                        die("the restored tree differs: %s against %s", got, want);
                                free_session(s2);
                                continue;
                        }
                        plain = t1 - t0;
                        tmpdir_of(s2, tmp, fs);
                        join(x, tmp, "x-tar");
                        join(x1, tmp, "x-tar1");
                        run_in(s2, mk, NULL, 0);
                        unsigned one = (unsigned)(rnd() & 1);
                        for (unsigned j = 0; j < 2; j++) {
                                bool fast = j ^ one;
                                sample(i, warmup, fast ? "tar1-x" : "tar-x",
                                       run_in(s2, fast ? tar1_x : tar_x, NULL, 0));
                                if (i == 0) {
                                        digest(s2, fast ? "x-tar1/tree" : "x-tar/tree", got);
                                        if (strcmp(got, want) != 0)
                                                die("tar's extraction differs: %s against %s", got,
                                                    want);
                                }
                        }
                        free_session(s2);
                }
                sample(i, warmup, "start", plain);
                sample(i, warmup, "restore", restored);
                sample(i, warmup, "restore-diff", restored - plain);
        }
        unlink_or_die(snap);
        unlink_or_die(tarc);
        unlink_or_die(tar1);
        cordon_policy_free(p);
}
