/* Replays fuzz corpora without libFuzzer: every file named on the command line, and every
 * regular file in every directory named there (sorted), goes through LLVMFuzzerTestOneInput
 * once. Prints TAP; a crash is a crash, which the harness counts as a failure. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "shared/fd-util.h"
#include "shared/macro.h"
#include "shared/strv.h"

static int add_path(char ***files, const char *path)
{
        struct stat st;
        if (stat(path, &st) < 0)
                return strv_extend(files, path); /* reported as "not ok" below */
        if (!S_ISDIR(st.st_mode))
                return strv_extend(files, path);
        struct dirent **names = NULL;
        int n = scandir(path, &names, NULL, alphasort);
        if (n < 0)
                return strv_extend(files, path);
        int r = 0;
        for (int i = 0; i < n; i++) {
                if (r >= 0 && names[i]->d_name[0] != '.') {
                        char *f = NULL;
                        if (asprintf(&f, "%s/%s", path, names[i]->d_name) < 0)
                                r = -ENOMEM;
                        else if (stat(f, &st) == 0 && S_ISREG(st.st_mode))
                                r = strv_consume(files, f);
                        else
                                free(f);
                }
                free(names[i]);
        }
        free(names);
        return r;
}

int main(int argc, char **argv)
{
        _cleanup_strv_free_ char **files = NULL;
        for (int i = 1; i < argc; i++)
                if (add_path(&files, argv[i]) < 0) {
                        fprintf(stderr, "out of memory\n");
                        return 1;
                }

        size_t n = strv_length(files);
        int failed = 0;
        printf("1..%zu\n", n);
        fflush(stdout);
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *buf = NULL;
                size_t len = 0;
                int r = read_full_file(files[i], 16u << 20, &buf, &len);
                if (r < 0) {
                        printf("not ok %zu - %s # cannot read: %s\n", i + 1, files[i],
                               strerror(-r));
                        failed = 1;
                        continue;
                }
                LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
                printf("ok %zu - %s\n", i + 1, files[i]);
                fflush(stdout);
        }
        return failed;
}
