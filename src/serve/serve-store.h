/* cordon-serve's store (issue 26): where sessions and snapshots live on disk, the records that
 * describe them, and the in-memory table of snapshots. An id that comes in a URL is only ever
 * matched against these tables; every path is built from a name the daemon minted itself
 * (HOLDER_NAME_LEN hex digits, checked again when read back).
 *
 *   $XDG_STATE_HOME/cordon/              0700 (default ~/.local/state/cordon)
 *     sessions/NAME/                     a session's state directory (its holder's record.json)
 *     snapshots/ID.tar.zst, ID.json      an archive and its record
 *   $XDG_RUNTIME_DIR/cordon/sessions/NAME.sock   a holder's socket
 *
 * Every directory of ours is opened component by component with O_NOFOLLOW, made 0700 when
 * missing, and must belong to us; ours and below must also have no group or other access. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "serve/holder-proto.h"
#include "serve/wire.h"

/* A session record as a holder writes it (holder-proto.h), checked. */
struct serve_session_record {
        char name[HOLDER_NAME_LEN + 1];
        char *session_id;
        pid_t holder_pid;
        uint64_t holder_start;
        char *socket;
        char *backend;
        int64_t created;
};

/* Parses record text @text (@len bytes): 0, or -EBADMSG with @err saying what is wrong (the
 * key), -ENOMEM. Refused: more than HOLDER_RECORD_MAX bytes, not a JSON object, duplicate keys,
 * a version other than 1, a missing or mistyped field, a name that is not a store name, a
 * blank session id or one over SERVE_ID_MAX bytes, a pid outside 1..INT32_MAX, a socket path
 * that is not absolute or does not fit a unix socket address, a backend that is not a short
 * lowercase word. Unknown keys are ignored (a later holder may add some). Free with _clear(),
 * also after a failure. */
int serve_session_record_parse(const char *text, size_t len, struct serve_session_record *ret,
                               char *err, size_t n);
void serve_session_record_clear(struct serve_session_record *r);

/* A snapshot's record, written by the daemon beside its archive. */
#define SERVE_SNAPSHOT_METADATA_MAX 64
struct serve_snapshot_record {
        char id[HOLDER_NAME_LEN + 1]; /* the snapshot id (minted by the daemon) */
        char *session_id;
        char *backend;
        int64_t created; /* unix seconds */
        uint64_t size;   /* bytes of the archive */
        struct serve_label *metadata;
        size_t n_metadata;
};

/* The record's JSON: {"version":1,"snapshot_id","session_id","backend","created","size",
 * "metadata":{...}}. NULL on ENOMEM. */
json_t *serve_snapshot_record_to_json(const struct serve_snapshot_record *r);
/* The same rules as serve_session_record_parse(), for a snapshot record: unknown keys refused
 * (the daemon writes them all), metadata string to string, at most SERVE_SNAPSHOT_METADATA_MAX
 * entries. */
int serve_snapshot_record_parse(const char *text, size_t len, struct serve_snapshot_record *ret,
                                char *err, size_t n);
void serve_snapshot_record_clear(struct serve_snapshot_record *r);
/* SandboxSnapshot of @r. NULL on ENOMEM. */
json_t *serve_snapshot_record_view(const struct serve_snapshot_record *r);

/* What an entry of the snapshots directory is, by its name alone. */
enum serve_snapshot_entry {
        SERVE_SNAPSHOT_ENTRY_OTHER,   /* not ours: left alone */
        SERVE_SNAPSHOT_ENTRY_RECORD,  /* ID.json */
        SERVE_SNAPSHOT_ENTRY_ARCHIVE, /* ID.tar.zst */
        SERVE_SNAPSHOT_ENTRY_TEMP,    /* a temporary file of ours or of the archive's writer */
};
/* Classifies @name, with the ID (when it has one) in @ret_id. */
enum serve_snapshot_entry serve_snapshot_entry_kind(const char *name,
                                                    char ret_id[HOLDER_NAME_LEN + 1]);

/* A version 4 UUID's text of @b (16 random bytes), in @ret (37 bytes). */
void serve_uuid_format(const uint8_t b[16], char ret[37]);

struct serve_store {
        int sessions_fd, snapshots_fd, runtime_fd;
        char *sessions_path, *snapshots_path, *runtime_path;
        struct serve_snapshot_record *snapshots; /* the table, in creation order */
        size_t n_snapshots;
};
#define SERVE_STORE_NULL                                                                           \
        ((struct serve_store){.sessions_fd = -EBADF, .snapshots_fd = -EBADF, .runtime_fd = -EBADF})

/* Opens (and makes) the store: @state_home is $XDG_STATE_HOME (NULL or empty: @home/.local/
 * state), @runtime the directory for the holders' sockets' directory (its "sessions" below it
 * is made). Every component of ours is checked as the file's comment says. 0, or -errno with
 * @err naming the directory. */
int serve_store_open(const char *state_home, const char *home, const char *runtime,
                     struct serve_store *ret, char *err, size_t n);
void serve_store_close(struct serve_store *s);

/* HOLDER_NAME_LEN hex digits from getrandom(): 0 or -errno. */
int serve_store_mint_name(char ret[HOLDER_NAME_LEN + 1]);
/* A session id: a version 4 UUID. 0 or -errno. */
int serve_store_mint_session_id(char ret[37]);

/* The paths a holder is given, malloc'd: its state directory and its socket. NULL: ENOMEM or
 * @name is not a store name. */
char *serve_store_session_dir(const struct serve_store *s, const char *name);
char *serve_store_session_socket(const struct serve_store *s, const char *name);
/* Makes the state directory of @name (0700, new): 0 or -errno. */
int serve_store_session_create(const struct serve_store *s, const char *name);
/* Removes what a session of @name left: its socket and its state directory (a physical walk;
 * nothing is followed). */
void serve_store_session_remove(const struct serve_store *s, const char *name);

/* Reads the record of session @name: 0; -ENOENT when it has none (yet); -ELOOP when its
 * directory is a symbolic link; -EPERM when the directory or file is not ours or not private;
 * -EBADMSG (with @err) when it does not parse or names another session; -errno. */
int serve_store_session_record(const struct serve_store *s, const char *name,
                               struct serve_session_record *ret, char *err, size_t n);

/* Calls @fn with each entry name of the sessions directory that is a store name, in name
 * order; an entry that is not one is logged and left alone; a symbolic link there is removed
 * (never followed). 0, -errno. */
int serve_store_sessions_foreach(const struct serve_store *s,
                                 void (*fn)(const char *name, void *userdata), void *userdata);

/* Snapshots. */
/* Loads the table from the snapshots directory: a record whose archive is missing, an archive
 * or a temporary file without a record, and a record that does not parse, are removed
 * (logged). 0 or -errno. */
int serve_store_snapshots_load(struct serve_store *s);
/* The archive path of snapshot @id (malloc'd; NULL: ENOMEM or not a store name). */
char *serve_store_snapshot_archive(const struct serve_store *s, const char *id);
/* The snapshot whose id is exactly @id, or NULL. */
const struct serve_snapshot_record *serve_store_snapshot_find(const struct serve_store *s,
                                                              const char *id);
/* After the archive of @r->id was written: fills @r->size from it, writes the record
 * (temporary file, fsync, rename, fsync of the directory) and takes @r into the table (its
 * contents are moved: @r is zeroed). On failure the archive is removed too, so no partial
 * snapshot stays: -errno with @err. */
int serve_store_snapshot_commit(struct serve_store *s, struct serve_snapshot_record *r, char *err,
                                size_t n);
/* Removes the archive and record of @id and its table entry: 0, -ENOENT, -errno. */
int serve_store_snapshot_remove(struct serve_store *s, const char *id);
/* Removes the archive of @id when one is there (a failed snapshot's). */
void serve_store_snapshot_discard(const struct serve_store *s, const char *id);

/* Shared by the store's two files. */
#define ARCHIVE_SUFFIX ".tar.zst"
#define RECORD_SUFFIX  ".json"
#define BACKEND_MAX    32
/* Fills @err (when @n > 0) with the message and returns @r. */
int serve_store_fail(int r, char *err, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
