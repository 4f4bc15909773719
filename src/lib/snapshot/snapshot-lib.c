/* libarchive and nettle for the snapshot module, opened with dlopen() on the first snapshot
 * (see snapshot-lib.h for why they are not linked). */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#include "lib/policy/diag.h"
#include "lib/snapshot/snapshot-lib.h"

#define ARCHIVE_SONAME "libarchive.so.13"
#define NETTLE_SONAME  "libnettle.so.8"

static struct snapshot_lib lib;
static bool lib_ok;
static pthread_once_t lib_once = PTHREAD_ONCE_INIT;
static char lib_error[256];

static void *open_one(const char *soname)
{
        void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
        if (!h)
                snprintf(lib_error, sizeof(lib_error), "%s", dlerror());
        return h;
}

static void lib_open(void)
{
        void *archive = open_one(ARCHIVE_SONAME);
        if (!archive)
                return;
        void *nettle = open_one(NETTLE_SONAME);
        if (!nettle) {
                dlclose(archive);
                return;
        }
        const char *missing = NULL;
#define SNAPSHOT_LOOKUP(handle, field, symbol)                                                     \
        lib.field = (__typeof__(lib.field))dlsym(handle, #symbol);                                 \
        if (!lib.field && !missing)                                                                \
                missing = #symbol;
#define LOOKUP_ARCHIVE(field, symbol) SNAPSHOT_LOOKUP(archive, field, symbol)
#define LOOKUP_NETTLE(field, symbol)  SNAPSHOT_LOOKUP(nettle, field, symbol)
        SNAPSHOT_ARCHIVE_FUNCTIONS(LOOKUP_ARCHIVE)
        SNAPSHOT_NETTLE_FUNCTIONS(LOOKUP_NETTLE)
#undef LOOKUP_NETTLE
#undef LOOKUP_ARCHIVE
#undef SNAPSHOT_LOOKUP
        if (missing) {
                snprintf(lib_error, sizeof(lib_error), "%s or %s lacks %s", ARCHIVE_SONAME,
                         NETTLE_SONAME, missing);
                dlclose(nettle);
                dlclose(archive);
                return;
        }
        /* Both stay open for the life of the process, as the table points into them. */
        lib_ok = true;
}

const struct snapshot_lib *cordon_snapshot_lib(struct cordon_diag *diag)
{
        pthread_once(&lib_once, lib_open);
        if (!lib_ok) {
                cordon_diag_set(diag, -ENOPKG, "snapshots need libarchive and nettle: %s",
                                lib_error);
                return NULL;
        }
        return &lib;
}
