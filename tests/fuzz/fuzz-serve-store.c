/* Fuzz target for the record parsers of cordon-serve's store (src/serve/serve-store-record.c):
 * the input is a session record and a snapshot record, and an entry name of the snapshots
 * directory. Checks: a refusal is -EBADMSG with a message, or -ENOMEM; what parsed holds its
 * limits (a store name, an id within SERVE_ID_MAX, an absolute socket path, a pid above 0);
 * a snapshot record encodes to text that parses to the same encoding (a fixed point); an entry
 * name classified as ours carries a store name and never a '/'. */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "serve/serve-store.h"

static void session_record(const char *data, size_t size)
{
        struct serve_session_record r;
        char err[256] = "";
        int k = serve_session_record_parse(data, size, &r, err, sizeof(err));
        FUZZ_CHECK(k == 0 || k == -EBADMSG || k == -ENOMEM);
        if (k == -EBADMSG)
                FUZZ_CHECK(err[0] != 0);
        if (k == 0) {
                FUZZ_CHECK(holder_name_valid(r.name));
                FUZZ_CHECK(r.session_id[0] && strlen(r.session_id) <= SERVE_ID_MAX);
                FUZZ_CHECK(r.socket[0] == '/' && strlen(r.socket) < 108);
                FUZZ_CHECK(r.holder_pid > 0);
                FUZZ_CHECK(r.backend[0] && !strchr(r.backend, '/'));
        }
        serve_session_record_clear(&r);
}

static void snapshot_record(const char *data, size_t size)
{
        struct serve_snapshot_record r, again;
        char err[256] = "";
        int k = serve_snapshot_record_parse(data, size, &r, err, sizeof(err));
        FUZZ_CHECK(k == 0 || k == -EBADMSG || k == -ENOMEM);
        if (k == 0) {
                FUZZ_CHECK(holder_name_valid(r.id));
                FUZZ_CHECK(r.n_metadata <= SERVE_SNAPSHOT_METADATA_MAX);
                char *text = serve_json_dump(serve_snapshot_record_to_json(&r));
                if (text) {
                        k = serve_snapshot_record_parse(text, strlen(text), &again, err,
                                                        sizeof(err));
                        FUZZ_CHECK(k == 0 || k == -ENOMEM);
                        if (k == 0) {
                                char *t2 = serve_json_dump(serve_snapshot_record_to_json(&again));
                                FUZZ_CHECK(!t2 || strcmp(t2, text) == 0);
                                free(t2);
                        }
                        serve_snapshot_record_clear(&again);
                        json_t *view = serve_snapshot_record_view(&r);
                        json_decref(view);
                }
                free(text);
        }
        serve_snapshot_record_clear(&r);
}

static void entry(const char *data, size_t size)
{
        char name[256];
        size_t n = size < sizeof(name) - 1 ? size : sizeof(name) - 1;
        memcpy(name, data, n);
        name[n] = 0;
        char id[HOLDER_NAME_LEN + 1] = "";
        enum serve_snapshot_entry k = serve_snapshot_entry_kind(name, id);
        if (k != SERVE_SNAPSHOT_ENTRY_OTHER) {
                FUZZ_CHECK(holder_name_valid(id));
                FUZZ_CHECK(!strchr(name, '/'));
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_INPUT)
                return 0;
        session_record((const char *)data, size);
        snapshot_record((const char *)data, size);
        entry((const char *)data, size);
        return 0;
}
