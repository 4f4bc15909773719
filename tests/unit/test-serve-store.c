/* Unit tests for cordon-serve's store (src/serve/serve-store.c and its pure part
 * serve-store-record.c): hostile records (wrong types, huge, a name that is not hex, unknown and
 * duplicate keys), the snapshot record's round trip, the names of the snapshot directory's
 * entries, the UUID text; and on a scratch directory, the store's directories (made 0700,
 * refused when a component is a symlink or too open), a session record read through a
 * symlinked directory refused, a symlink in the sessions directory removed without following
 * it, and the snapshot table's load and its leftovers. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "serve/serve-store.h"
#include "shared/fd-util.h"
#include "shared/macro.h"

#define NAME "0123456789abcdef0123456789abcdef"
#define GOOD                                                                                       \
        "{\"version\":1,\"name\":\"" NAME "\",\"session_id\":\"s1\",\"holder_pid\":42,"            \
        "\"holder_start\":12345,\"socket\":\"/run/user/1/cordon/sessions/" NAME ".sock\","         \
        "\"backend\":\"cordon\",\"created\":1700000000}"

static int parse(const char *text, struct serve_session_record *r, char *err)
{
        return serve_session_record_parse(text, strlen(text), r, err, 256);
}

Test(serve_store, session_record_parses)
{
        struct serve_session_record r;
        char err[256] = "";
        cr_assert_eq(parse(GOOD, &r, err), 0, "%s", err);
        cr_assert_str_eq(r.name, NAME);
        cr_assert_str_eq(r.session_id, "s1");
        cr_assert_eq(r.holder_pid, 42);
        cr_assert_eq(r.holder_start, 12345);
        cr_assert_str_eq(r.backend, "cordon");
        cr_assert_eq(r.created, 1700000000);
        serve_session_record_clear(&r);
}

Test(serve_store, session_record_unknown_keys_are_ignored)
{
        struct serve_session_record r;
        char err[256] = "";
        const char *t =
            "{\"version\":1,\"name\":\"" NAME "\",\"session_id\":\"s\",\"holder_pid\":1,"
            "\"holder_start\":0,\"socket\":\"/s\",\"backend\":\"ns\",\"created\":0,"
            "\"later\":{\"x\":[1]}}";
        cr_assert_eq(parse(t, &r, err), 0, "%s", err);
        serve_session_record_clear(&r);
}

/* Each hostile variant of GOOD, with the key its refusal names. */
static void refused(const char *text, const char *key)
{
        struct serve_session_record r;
        char err[256] = "";
        cr_assert_eq(parse(text, &r, err), -EBADMSG, "accepted: %s", text);
        cr_assert(strstr(err, key), "'%s' does not name '%s'", err, key);
        serve_session_record_clear(&r);
}

static char *replace(const char *from, const char *to)
{
        const char *p = strstr(GOOD, from);
        cr_assert(p);
        char *s;
        cr_assert(asprintf(&s, "%.*s%s%s", (int)(p - GOOD), GOOD, to, p + strlen(from)) > 0);
        return s;
}

static void refused_with(const char *from, const char *to, const char *key)
{
        char *s = replace(from, to);
        refused(s, key);
        free(s);
}

Test(serve_store, session_record_wrong_types)
{
        refused_with("\"version\":1", "\"version\":\"1\"", "version");
        refused_with("\"version\":1", "\"version\":2", "version");
        refused_with("\"holder_pid\":42", "\"holder_pid\":\"42\"", "holder_pid");
        refused_with("\"holder_pid\":42", "\"holder_pid\":42.0", "holder_pid");
        refused_with("\"holder_pid\":42", "\"holder_pid\":0", "holder_pid");
        refused_with("\"holder_pid\":42", "\"holder_pid\":-1", "holder_pid");
        refused_with("\"holder_pid\":42", "\"holder_pid\":4294967338", "holder_pid");
        refused_with("\"holder_start\":12345", "\"holder_start\":-5", "holder_start");
        refused_with("\"holder_start\":12345", "\"holder_start\":null", "holder_start");
        refused_with("\"session_id\":\"s1\"", "\"session_id\":[\"s1\"]", "session_id");
        refused_with("\"session_id\":\"s1\"", "\"session_id\":\" \\t \"", "session_id");
        refused_with("\"session_id\":\"s1\"", "\"session_id\":\"a\\u0000b\"", "JSON");
        refused_with("\"socket\":\"/run", "\"socket\":\"run", "socket");
        refused_with("\"backend\":\"cordon\"", "\"backend\":\"Cordon/../x\"", "backend");
        refused_with("\"created\":1700000000", "\"created\":true", "created");
}

Test(serve_store, session_record_missing_fields)
{
        refused_with("\"backend\":\"cordon\",", "", "backend");
        refused_with("\"version\":1,", "", "version");
        refused_with(",\"created\":1700000000", "", "created");
}

Test(serve_store, session_record_name_not_hex)
{
        refused_with("\"name\":\"" NAME "\"", "\"name\":\"0123456789ABCDEF0123456789ABCDEF\"",
                     "name");
        refused_with("\"name\":\"" NAME "\"", "\"name\":\"../../../../etc/passwd\"", "name");
        refused_with("\"name\":\"" NAME "\"", "\"name\":\"0123456789abcdef\"", "name");
        refused_with("\"name\":\"" NAME "\"", "\"name\":\"0123456789abcdef0123456789abcdef0\"",
                     "name");
}

Test(serve_store, session_record_not_an_object_or_not_json)
{
        refused("[1,2]", "object");
        refused("", "JSON");
        refused("{\"version\":1", "JSON");
        /* A repeated key is refused: a reader keeping the first would see another record. */
        char *dup;
        cr_assert(asprintf(&dup, "%.*s,\"holder_pid\":7}", (int)strlen(GOOD) - 1, GOOD) > 0);
        refused(dup, "JSON");
        free(dup);
}

Test(serve_store, session_record_huge)
{
        size_t n = HOLDER_RECORD_MAX + 16;
        char *big = malloc(n + 1);
        cr_assert(big);
        memset(big, ' ', n);
        memcpy(big, GOOD, strlen(GOOD));
        big[n] = 0;
        struct serve_session_record r;
        char err[256] = "";
        cr_assert_eq(serve_session_record_parse(big, n, &r, err, sizeof(err)), -EBADMSG);
        cr_assert(strstr(err, "bytes"), "%s", err);
        serve_session_record_clear(&r);
        free(big);
        /* A session id over SERVE_ID_MAX. */
        char id[SERVE_ID_MAX + 2];
        memset(id, 'x', sizeof(id) - 1);
        id[sizeof(id) - 1] = 0;
        char *to;
        cr_assert(asprintf(&to, "\"session_id\":\"%s\"", id) > 0);
        refused_with("\"session_id\":\"s1\"", to, "session_id");
        free(to);
}

static struct serve_snapshot_record snap_record(void)
{
        struct serve_snapshot_record r = {.created = 1700000001, .size = 4096};
        strcpy(r.id, NAME);
        r.session_id = strdup("s1");
        r.backend = strdup("cordon");
        r.metadata = calloc(2, sizeof(*r.metadata));
        r.metadata[0] = (struct serve_label){strdup("size"), strdup("4096")};
        r.metadata[1] = (struct serve_label){strdup("archive"), strdup("/x/" NAME ".tar.zst")};
        r.n_metadata = 2;
        return r;
}

Test(serve_store, snapshot_record_round_trip)
{
        struct serve_snapshot_record r = snap_record(), back;
        char *text = serve_json_dump(serve_snapshot_record_to_json(&r));
        cr_assert(text);
        cr_assert_str_eq(text,
                         "{\"version\":1,\"snapshot_id\":\"" NAME "\",\"session_id\":\"s1\","
                         "\"backend\":\"cordon\",\"created\":1700000001,\"size\":4096,"
                         "\"metadata\":{\"size\":\"4096\",\"archive\":\"/x/" NAME ".tar.zst\"}}");
        char err[256] = "";
        cr_assert_eq(serve_snapshot_record_parse(text, strlen(text), &back, err, sizeof(err)), 0,
                     "%s", err);
        cr_assert_str_eq(back.id, NAME);
        cr_assert_str_eq(back.session_id, "s1");
        cr_assert_eq(back.size, 4096);
        cr_assert_eq(back.n_metadata, 2);
        /* The view is SandboxSnapshot, metadata in BTreeMap order. */
        char *view = serve_json_dump(serve_snapshot_record_view(&back));
        cr_assert_str_eq(
            view, "{\"session_id\":\"s1\",\"backend\":\"cordon\",\"snapshot_id\":\"" NAME
                  "\",\"metadata\":{\"archive\":\"/x/" NAME ".tar.zst\",\"size\":\"4096\"}}");
        free(view);
        free(text);
        serve_snapshot_record_clear(&back);
        serve_snapshot_record_clear(&r);
}

static void snap_refused(const char *text, const char *key)
{
        struct serve_snapshot_record r;
        char err[256] = "";
        cr_assert_eq(serve_snapshot_record_parse(text, strlen(text), &r, err, sizeof(err)),
                     -EBADMSG, "accepted: %s", text);
        cr_assert(strstr(err, key), "'%s' does not name '%s'", err, key);
        serve_snapshot_record_clear(&r);
}

Test(serve_store, snapshot_record_hostile)
{
#define SNAP(x)                                                                                    \
        "{\"version\":1,\"snapshot_id\":\"" NAME "\",\"session_id\":\"s\",\"backend\":\"b\","      \
        "\"created\":0,\"size\":0,\"metadata\":" x "}"
        snap_refused(SNAP("[]"), "metadata");
        snap_refused(SNAP("{\"a\":1}"), "metadata.a");
        snap_refused(SNAP("{}") "x", "JSON");
        snap_refused("{\"version\":1,\"snapshot_id\":\"../" NAME "\"}", "snapshot_id");
        snap_refused("{\"version\":1,\"snapshot_id\":\"" NAME "\",\"extra\":1}", "extra");
        snap_refused("{\"version\":1,\"snapshot_id\":\"" NAME
                     "\",\"session_id\":\"s\",\"backend\":\"b\",\"created\":0,\"size\":-1,"
                     "\"metadata\":{}}",
                     "size");
        /* More metadata entries than allowed. */
        char *md = strdup("{");
        for (int i = 0; i <= SERVE_SNAPSHOT_METADATA_MAX; i++) {
                char *n;
                cr_assert(asprintf(&n, "%s%s\"k%d\":\"v\"", md, i ? "," : "", i) > 0);
                free(md);
                md = n;
        }
        char *text;
        cr_assert(asprintf(&text,
                           "{\"version\":1,\"snapshot_id\":\"" NAME "\",\"session_id\":\"s\","
                           "\"backend\":\"b\",\"created\":0,\"size\":0,\"metadata\":%s}}",
                           md) > 0);
        snap_refused(text, "entries");
        free(text);
        free(md);
#undef SNAP
}

Test(serve_store, snapshot_entry_kinds)
{
        char id[HOLDER_NAME_LEN + 1] = "";
        cr_assert_eq(serve_snapshot_entry_kind(NAME ".json", id), SERVE_SNAPSHOT_ENTRY_RECORD);
        cr_assert_str_eq(id, NAME);
        cr_assert_eq(serve_snapshot_entry_kind(NAME ".tar.zst", id), SERVE_SNAPSHOT_ENTRY_ARCHIVE);
        cr_assert_eq(serve_snapshot_entry_kind("." NAME ".json.tmp", id),
                     SERVE_SNAPSHOT_ENTRY_TEMP);
        cr_assert_eq(serve_snapshot_entry_kind("." NAME ".tar.zst.0123456789abcdef.tmp", id),
                     SERVE_SNAPSHOT_ENTRY_TEMP);
        cr_assert_eq(serve_snapshot_entry_kind(NAME, id), SERVE_SNAPSHOT_ENTRY_OTHER);
        cr_assert_eq(serve_snapshot_entry_kind(NAME ".json.bak", id), SERVE_SNAPSHOT_ENTRY_OTHER);
        cr_assert_eq(serve_snapshot_entry_kind("notes.txt", id), SERVE_SNAPSHOT_ENTRY_OTHER);
        cr_assert_eq(serve_snapshot_entry_kind("0123456789ABCDEF0123456789abcdef.json", id),
                     SERVE_SNAPSHOT_ENTRY_OTHER);
        cr_assert_eq(serve_snapshot_entry_kind("." NAME ".tar.zst.tmp", id),
                     SERVE_SNAPSHOT_ENTRY_OTHER);
}

Test(serve_store, uuid_text)
{
        uint8_t b[16];
        memset(b, 0xff, sizeof(b));
        char u[37];
        serve_uuid_format(b, u);
        cr_assert_str_eq(u, "ffffffff-ffff-4fff-bfff-ffffffffffff");
        memset(b, 0, sizeof(b));
        serve_uuid_format(b, u);
        cr_assert_str_eq(u, "00000000-0000-4000-8000-000000000000");
        char minted[37];
        cr_assert_eq(serve_store_mint_session_id(minted), 0);
        cr_assert_eq(strlen(minted), 36);
        cr_assert_eq(minted[14], '4');
        char name[HOLDER_NAME_LEN + 1];
        cr_assert_eq(serve_store_mint_name(name), 0);
        cr_assert(holder_name_valid(name));
}

/* --- on a scratch directory --- */

static char dir[64];

static void scratch(void)
{
        strcpy(dir, "/tmp/test-serve-store.XXXXXX");
        cr_assert(mkdtemp(dir));
        char p[128];
        snprintf(p, sizeof(p), "%s/run", dir);
        cr_assert_eq(mkdir(p, 0700), 0);
        snprintf(p, sizeof(p), "%s/state", dir);
        cr_assert_eq(mkdir(p, 0700), 0);
}

static void unscratch(void)
{
        remove_tree_physical(dir);
}

static int open_store(struct serve_store *s, char *err)
{
        char state[128], run[128];
        snprintf(state, sizeof(state), "%s/state", dir);
        snprintf(run, sizeof(run), "%s/run", dir);
        return serve_store_open(state, NULL, run, s, err, 256);
}

static mode_t mode_of(const char *rel)
{
        char p[256];
        struct stat st;
        snprintf(p, sizeof(p), "%s/%s", dir, rel);
        cr_assert_eq(lstat(p, &st), 0, "%s", p);
        return st.st_mode & 07777;
}

Test(serve_store, directories_made_private, .init = scratch, .fini = unscratch)
{
        struct serve_store s = SERVE_STORE_NULL;
        char err[256] = "";
        cr_assert_eq(open_store(&s, err), 0, "%s", err);
        cr_assert_eq(mode_of("state/cordon"), 0700);
        cr_assert_eq(mode_of("state/cordon/sessions"), 0700);
        cr_assert_eq(mode_of("state/cordon/snapshots"), 0700);
        cr_assert_eq(mode_of("run/sessions"), 0700);
        char *d = serve_store_session_dir(&s, NAME), *k = serve_store_session_socket(&s, NAME);
        char want[256];
        snprintf(want, sizeof(want), "%s/state/cordon/sessions/" NAME, dir);
        cr_assert_str_eq(d, want);
        snprintf(want, sizeof(want), "%s/run/sessions/" NAME ".sock", dir);
        cr_assert_str_eq(k, want);
        cr_assert_null(serve_store_session_dir(&s, "../x"));
        free(d);
        free(k);
        serve_store_close(&s);
        /* The default without XDG_STATE_HOME: HOME/.local/state/cordon. */
        char home[128], run[128];
        snprintf(home, sizeof(home), "%s/state", dir);
        snprintf(run, sizeof(run), "%s/run", dir);
        cr_assert_eq(serve_store_open("relative/ignored", home, run, &s, err, sizeof(err)), 0, "%s",
                     err);
        cr_assert_eq(mode_of("state/.local/state/cordon"), 0700);
        serve_store_close(&s);
}

Test(serve_store, symlinked_component_refused, .init = scratch, .fini = unscratch)
{
        char p[128], t[128];
        snprintf(t, sizeof(t), "%s/elsewhere", dir);
        cr_assert_eq(mkdir(t, 0700), 0);
        snprintf(p, sizeof(p), "%s/state/cordon", dir);
        cr_assert_eq(symlink(t, p), 0);
        struct serve_store s = SERVE_STORE_NULL;
        char err[256] = "";
        cr_assert_eq(open_store(&s, err), -ELOOP);
        cr_assert(strstr(err, "symlink"), "%s", err);
        /* Nothing was made through the link. */
        snprintf(p, sizeof(p), "%s/elsewhere/sessions", dir);
        cr_assert_eq(access(p, F_OK), -1);
}

Test(serve_store, open_component_refused, .init = scratch, .fini = unscratch)
{
        char p[128];
        snprintf(p, sizeof(p), "%s/state/cordon", dir);
        cr_assert_eq(mkdir(p, 0755), 0);
        cr_assert_eq(chmod(p, 0755), 0);
        struct serve_store s = SERVE_STORE_NULL;
        char err[256] = "";
        cr_assert_eq(open_store(&s, err), -EPERM);
        cr_assert(strstr(err, "0755"), "%s", err);
        /* The control: private, it opens. */
        cr_assert_eq(chmod(p, 0700), 0);
        cr_assert_eq(open_store(&s, err), 0, "%s", err);
        serve_store_close(&s);
}

static void write_at(const char *rel, const char *text)
{
        char p[256];
        snprintf(p, sizeof(p), "%s/%s", dir, rel);
        int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        cr_assert(fd >= 0, "%s: %m", p);
        cr_assert_eq(write_all(fd, text, strlen(text)), 0);
        close(fd);
}

static void count(const char *name, void *userdata)
{
        (*(int *)userdata)++;
}

Test(serve_store, session_record_through_symlinked_dir_refused, .init = scratch, .fini = unscratch)
{
        struct serve_store s = SERVE_STORE_NULL;
        char err[256] = "";
        cr_assert_eq(open_store(&s, err), 0, "%s", err);
        /* A real directory with a good record elsewhere, linked in as a session's. */
        char t[128], p[256];
        snprintf(t, sizeof(t), "%s/elsewhere", dir);
        cr_assert_eq(mkdir(t, 0700), 0);
        write_at("elsewhere/record.json", GOOD);
        snprintf(p, sizeof(p), "%s/state/cordon/sessions/" NAME, dir);
        cr_assert_eq(symlink(t, p), 0);
        struct serve_session_record r;
        cr_assert_eq(serve_store_session_record(&s, NAME, &r, err, sizeof(err)), -ELOOP, "%s", err);
        /* The scan removes the link, never what it points at. */
        int n = 0;
        cr_assert_eq(serve_store_sessions_foreach(&s, count, &n), 0);
        cr_assert_eq(n, 0);
        cr_assert_eq(access(p, F_OK), -1);
        snprintf(p, sizeof(p), "%s/elsewhere/record.json", dir);
        cr_assert_eq(access(p, F_OK), 0);
        /* The control: the same record in a directory of the store is read. */
        cr_assert_eq(serve_store_session_create(&s, NAME), 0);
        write_at("state/cordon/sessions/" NAME "/record.json", GOOD);
        cr_assert_eq(serve_store_session_record(&s, NAME, &r, err, sizeof(err)), 0, "%s", err);
        cr_assert_str_eq(r.session_id, "s1");
        serve_session_record_clear(&r);
        cr_assert_eq(serve_store_sessions_foreach(&s, count, &n), 0);
        cr_assert_eq(n, 1);
        /* A record naming another session is refused; a symlinked record file too. */
        write_at("state/cordon/sessions/" NAME "/record.json",
                 "{\"version\":1,\"name\":\"ffffffffffffffffffffffffffffffff\","
                 "\"session_id\":\"s1\",\"holder_pid\":42,\"holder_start\":1,\"socket\":\"/s\","
                 "\"backend\":\"b\",\"created\":0}");
        cr_assert_eq(serve_store_session_record(&s, NAME, &r, err, sizeof(err)), -EBADMSG);
        snprintf(p, sizeof(p), "%s/state/cordon/sessions/" NAME "/record.json", dir);
        cr_assert_eq(unlink(p), 0);
        snprintf(t, sizeof(t), "%s/elsewhere/record.json", dir);
        cr_assert_eq(symlink(t, p), 0);
        cr_assert_eq(serve_store_session_record(&s, NAME, &r, err, sizeof(err)), -ELOOP, "%s", err);
        /* Removal takes the directory and the socket's files. */
        write_at("run/sessions/" NAME ".sock", "");
        write_at("run/sessions/" NAME ".sock.lock", "");
        serve_store_session_remove(&s, NAME);
        snprintf(p, sizeof(p), "%s/state/cordon/sessions/" NAME, dir);
        cr_assert_eq(access(p, F_OK), -1);
        snprintf(p, sizeof(p), "%s/run/sessions/" NAME ".sock", dir);
        cr_assert_eq(access(p, F_OK), -1);
        snprintf(p, sizeof(p), "%s/run/sessions/" NAME ".sock.lock", dir);
        cr_assert_eq(access(p, F_OK), -1);
        snprintf(p, sizeof(p), "%s/elsewhere/record.json", dir);
        cr_assert_eq(access(p, F_OK), 0);
        serve_store_close(&s);
}

Test(serve_store, snapshots_commit_load_remove, .init = scratch, .fini = unscratch)
{
        struct serve_store s = SERVE_STORE_NULL;
        char err[256] = "";
        cr_assert_eq(open_store(&s, err), 0, "%s", err);
        /* Commit without an archive: refused, nothing left. */
        struct serve_snapshot_record r = snap_record();
        cr_assert_lt(serve_store_snapshot_commit(&s, &r, err, sizeof(err)), 0);
        cr_assert_eq(s.n_snapshots, 0);
        /* With its archive: in the table and on disk, its size the file's. */
        write_at("state/cordon/snapshots/" NAME ".tar.zst", "0123456789");
        cr_assert_eq(serve_store_snapshot_commit(&s, &r, err, sizeof(err)), 0, "%s", err);
        cr_assert_null(r.session_id); /* moved into the table */
        const struct serve_snapshot_record *k = serve_store_snapshot_find(&s, NAME);
        cr_assert(k);
        cr_assert_eq(k->size, 10);
        cr_assert_null(serve_store_snapshot_find(&s, NAME "x"));
        serve_store_close(&s);
        /* Loaded again, with leftovers: an archive without a record and a temporary file go,
         * a record whose archive is missing goes, a hostile record goes, others stay. */
        write_at("state/cordon/snapshots/ffffffffffffffffffffffffffffffff.tar.zst", "x");
        write_at("state/cordon/snapshots/.eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee.tar.zst.00.tmp", "x");
        write_at("state/cordon/snapshots/dddddddddddddddddddddddddddddddd.json",
                 "{\"version\":1,\"snapshot_id\":\"dddddddddddddddddddddddddddddddd\","
                 "\"session_id\":\"s\",\"backend\":\"b\",\"created\":0,\"size\":0,"
                 "\"metadata\":{}}");
        write_at("state/cordon/snapshots/cccccccccccccccccccccccccccccccc.json",
                 "{\"version\":[]}");
        write_at("state/cordon/snapshots/cccccccccccccccccccccccccccccccc.tar.zst", "x");
        write_at("state/cordon/snapshots/README", "not ours");
        cr_assert_eq(open_store(&s, err), 0, "%s", err);
        cr_assert_eq(serve_store_snapshots_load(&s), 0);
        cr_assert_eq(s.n_snapshots, 1);
        cr_assert(serve_store_snapshot_find(&s, NAME));
        const char *gone[] = {"ffffffffffffffffffffffffffffffff.tar.zst",
                              ".eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee.tar.zst.00.tmp",
                              "dddddddddddddddddddddddddddddddd.json",
                              "cccccccccccccccccccccccccccccccc.json",
                              "cccccccccccccccccccccccccccccccc.tar.zst"};
        char p[256];
        for (size_t i = 0; i < ELEMENTSOF(gone); i++) {
                snprintf(p, sizeof(p), "%s/state/cordon/snapshots/%s", dir, gone[i]);
                cr_assert_eq(access(p, F_OK), -1, "%s stayed", gone[i]);
        }
        snprintf(p, sizeof(p), "%s/state/cordon/snapshots/README", dir);
        cr_assert_eq(access(p, F_OK), 0);
        /* Removal: the record and the archive, then unknown. */
        cr_assert_eq(serve_store_snapshot_remove(&s, NAME), 0);
        cr_assert_eq(s.n_snapshots, 0);
        snprintf(p, sizeof(p), "%s/state/cordon/snapshots/" NAME ".tar.zst", dir);
        cr_assert_eq(access(p, F_OK), -1);
        cr_assert_eq(serve_store_snapshot_remove(&s, NAME), -ENOENT);
        serve_store_close(&s);
}
