/* The host-side chaperon's per-session log (issue 27): one file per session in
 * STATE/cordon/chaperon/, named <host>_<pid>_<UTC time>.log, old logs pruned by age and total
 * size when a new one opens, every line escaped and cut. Environment values never reach it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "cordon/cordon.h"
#include "lib/settings/settings.h"
#include "shared/macro.h"

/* All logs of the directory together, after the retention at open (oldest first out). */
#define CORDON_CHAPERON_LOG_TOTAL_MAX (50u * 1024 * 1024)
/* One live file: a fifth of the total, so that one chatty session cannot push out every other
 * session's log at the next open. Past it one final line says so and nothing more is written. */
#define CORDON_CHAPERON_LOG_FILE_MAX (CORDON_CHAPERON_LOG_TOTAL_MAX / 5)
/* One line, its time, level and newline included; longer ones are cut and end in " [cut]". */
#define CORDON_CHAPERON_LOG_LINE_MAX 4096
/* CHAPERON_LOG_RETAIN_DAYS's default, used for retain_days 0. */
#define CORDON_CHAPERON_LOG_RETAIN_DAYS 7
/* The host part of a log's name: [A-Za-z0-9.-], 1 to 64 bytes. */
#define CORDON_CHAPERON_LOG_HOST_MAX 64
/* A log's name: host, '_', pid (10 digits), '_', 20261130T010203Z, ".log". */
#define CORDON_CHAPERON_LOG_NAME_MAX (CORDON_CHAPERON_LOG_HOST_MAX + 1 + 10 + 1 + 16 + 4)

struct cordon_chaperon_log;

struct cordon_chaperon_log_options {
        /* The directory the log directory is below, absolute, followed as given (a home may be a
         * symlink); it must exist and be ours. cordon_chaperon_log_dir() finds it. */
        const char *base_dir;
        /* Below @base_dir, "a/b/c": each component opened with O_NOFOLLOW|O_DIRECTORY relative to
         * the one above, made 0700 when missing, refused unless ours; the last must give group
         * and others no access. NULL: "cordon/chaperon". */
        const char *sub_dir;
        enum cordon_chaperon_level level; /* CHAPERON_LOG_LEVEL */
        uint64_t retain_days;             /* CHAPERON_LOG_RETAIN_DAYS; 0: the default */
        /* Tests only; 0: the #defines above, the host's name, getpid(), time(NULL). */
        uint64_t total_max;
        uint64_t file_max;
        const char *hostname;
        pid_t pid;
        time_t now;
};

/* A request as the chaperon received it, to be logged. Only the names of @env are written:
 * an entry "NAME=VALUE" is cut at its first '=', so no value can reach the log. */
struct cordon_chaperon_request {
        const char *command;     /* "sbatch", "squeue", ... */
        const char *const *argv; /* NULL-terminated; may be NULL */
        const char *cwd;         /* may be NULL */
        const char *const *env;  /* NULL-terminated NAME or NAME=VALUE; may be NULL */
};

/* Where the log directory is: $XDG_STATE_HOME/cordon/chaperon when @xdg_state_home is absolute
 * (XDG: a relative one is ignored), else $HOME/.local/state/cordon/chaperon. The results point
 * into the arguments or are literals. Returns 0, or -ENXIO (diag says why) when neither is an
 * absolute path. */
int cordon_chaperon_log_dir(const char *xdg_state_home, const char *home, const char **ret_base,
                            const char **ret_sub, struct cordon_diag *diag);

/* Opens the directory (made when missing), creates this session's log there (O_EXCL, 0600,
 * close-on-exec), then prunes the directory: every other log older than retain_days, then the
 * oldest until all logs total at most total_max bytes. A log is a regular file of ours whose
 * name cordon_chaperon_log_name_parse() takes; anything else there (links, directories, other
 * names, other users' files) is left alone, and the new log is never removed. A log's time is
 * the later of its name's time and its mtime (a long session's log still being written is not
 * old), its mtime alone when the name's time lies in the future.
 * Returns 0 and the log in *@ret (free with cordon_chaperon_log_free()), or -errno with @diag:
 * -EINVAL (options), -ELOOP (a component is a symlink), -ENOTDIR, -EPERM (a directory not
 * ours or too open), -EEXIST (this name exists: same host, pid and second), -ERANGE (a time
 * past year 9999), -E2BIG (too many entries to prune), -ENOMEM, other open/unlink errors.
 * On failure nothing is left of the new log. Not thread-safe, as every call on a log. */
int cordon_chaperon_log_open(const struct cordon_chaperon_log_options *o,
                             struct cordon_chaperon_log **ret, struct cordon_diag *diag);
/* Closes the log. Accepts NULL; returns NULL. */
struct cordon_chaperon_log *cordon_chaperon_log_free(struct cordon_chaperon_log *log);
/* The log's path (base, sub and name), owned by @log. */
const char *cordon_chaperon_log_path(const struct cordon_chaperon_log *log);

/* Writes one line "TIME LEVEL MESSAGE" when @level is at or above the log's. Every byte of
 * the message outside printable ASCII (controls, DEL, bytes >= 0x80) and '\' is written as
 * \xNN, so no message can start a line of its own or reach a terminal as a sequence.
 * Returns 1 written, 0 filtered out, -EFBIG when the file is at its cap (the line that met the
 * cap is replaced by one final line saying so), -errno of write(2). */
_printf_(3, 4) int cordon_chaperon_log_line(struct cordon_chaperon_log *log,
                                            enum cordon_chaperon_level level, const char *fmt, ...);
/* Writes one line for @req: command, argv, cwd and the environment's names, each escaped as
 * above and quoted ("...", with '"' escaped too). Returns as cordon_chaperon_log_line(), or
 * -EINVAL without a command. */
int cordon_chaperon_log_request(struct cordon_chaperon_log *log, enum cordon_chaperon_level level,
                                const struct cordon_chaperon_request *req);

/* A log's name, parsed: @ret_host (CORDON_CHAPERON_LOG_HOST_MAX + 1 bytes, may be NULL), pid
 * and time. The name must be exactly what cordon_chaperon_log_name_format() writes: no
 * leading zero, a real date and time. Pure. Returns 0 or -EINVAL. */
int cordon_chaperon_log_name_parse(const char *name, char *ret_host, pid_t *ret_pid,
                                   time_t *ret_time);
/* Writes a log's name into @buf (CORDON_CHAPERON_LOG_NAME_MAX + 1 bytes): @host with each byte
 * outside [A-Za-z0-9.-] made '-', cut at CORDON_CHAPERON_LOG_HOST_MAX ("unknown" when empty).
 * Returns 0, -EINVAL (pid <= 0, time before 1970), -ERANGE (past year 9999). */
int cordon_chaperon_log_name_format(const char *host, pid_t pid, time_t t, char *buf, size_t size);
