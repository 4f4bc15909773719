/* Fuzz target for src/lib/slurm: a submission's command line and batch script parsed, then
 * judged. Input: the first byte picks sbatch, srun or salloc; up to the first 0x01 byte come the
 * arguments, one per line; after it the batch script (sbatch), else none. Checks the parse
 * against getopt's rules and that every outcome names a rule. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "lib/slurm/slurm-submit.h"
#include "shared/macro.h"
#include "shared/strv.h"

static void check_parsed(const struct cordon_slurm_submit *s, char **argv)
{
        size_t argc = strv_length(argv);
        for (size_t i = 0; i < s->n_uses; i++) {
                const struct cordon_slurm_use *u = &s->uses[i];
                FUZZ_CHECK(u->option && u->option->name);
                FUZZ_CHECK(u->option->commands & (1u << s->command));
                FUZZ_CHECK(u->component < s->n_components);
                FUZZ_CHECK(u->spelling && u->spelling[0] == '-');
                if (u->option->arg == CORDON_SLURM_ARG_REQUIRED)
                        FUZZ_CHECK(u->value);
                if (u->option->arg == CORDON_SLURM_ARG_NONE)
                        FUZZ_CHECK(!u->value);
                if (u->line == 0) {
                        /* The option's word is in argv as written. */
                        FUZZ_CHECK(u->argi > 0 && u->argi < argc);
                        const char *w = argv[u->argi];
                        if (u->spelling[1] == '-')
                                FUZZ_CHECK(startswith(w, u->spelling));
                        else
                                FUZZ_CHECK(w[0] == '-' && strchr(w + 1, u->spelling[1]));
                        /* A long spelling is a prefix of the option's name. */
                        if (u->spelling[1] == '-')
                                FUZZ_CHECK(startswith(u->option->name, u->spelling + 2));
                } else
                        FUZZ_CHECK(s->command == CORDON_SLURM_SBATCH && s->script);
        }
        for (size_t i = 0; i < s->n_operands; i++) {
                FUZZ_CHECK(s->operands[i] > 0 && s->operands[i] < argc);
                FUZZ_CHECK(i == 0 || s->operands[i] > s->operands[i - 1]);
        }
        FUZZ_CHECK(s->n_components >= 1 && s->n_components <= CORDON_SLURM_MAX_COMPONENTS);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size < 1 || size > FUZZ_MAX_INPUT)
                return 0;
        enum cordon_slurm_command c = (enum cordon_slurm_command)(data[0] % 3);
        const char *in = (const char *)data + 1, *end = (const char *)data + size;
        const char *sep = memchr(in, 1, (size_t)(end - in));
        const char *args_end = sep ?: end;
        _cleanup_strv_free_ char **argv = NULL;
        if (strv_extend(&argv, cordon_slurm_command_name(c)) < 0)
                return 0;
        for (const char *p = in; p < args_end;) {
                const char *nl = memchr(p, '\n', (size_t)(args_end - p));
                const char *e = nl ?: args_end;
                _cleanup_free_ char *w = strndup(p, (size_t)(e - p));
                if (!w || strv_extend(&argv, w) < 0)
                        return 0;
                p = e + 1;
        }
        const char *script = sep ? sep + 1 : NULL;
        size_t script_size = sep ? (size_t)(end - script) : 0;

        struct cordon_slurm_submit *s = NULL;
        struct cordon_diag diag = {0};
        const char *rule = NULL;
        int r = cordon_slurm_submit_parse(c, argv, script, script_size, &s, &rule, &diag);
        if (r == -ENOMEM)
                return 0;
        if (r < 0) {
                FUZZ_CHECK(r == -EINVAL || r == -E2BIG);
                FUZZ_CHECK(!s && rule && diag.message[0]);
                return 0;
        }
        FUZZ_CHECK(s);
        check_parsed(s, argv);

        struct cordon_list roots = {0}, blocked = {0}, pat = {0};
        if (cordon_list_add(&roots, "/scratch", "fuzz") >= 0 &&
            cordon_list_add(&blocked, "TOKEN", "fuzz") >= 0 &&
            cordon_list_add(&pat, "*_KEY/i", "fuzz") >= 0) {
                struct cordon_slurm_policy p = {
                    .project_dir = "/p",
                    .read_roots = &roots,
                    .write_roots = &roots,
                    .blocked_env = &blocked,
                    .blocked_env_pat = &pat,
                    .job_env_filtered = data[0] & 0x80,
                };
                rule = NULL;
                diag.message[0] = 0;
                r = cordon_slurm_submit_check(s, &p, "/p/w", &rule, &diag);
                FUZZ_CHECK(r == 0 || r == -EPERM || r == -ENOMEM);
                if (r == -EPERM)
                        FUZZ_CHECK(rule && diag.message[0] && strstr(diag.message, rule));
        }
        cordon_list_clear(&roots);
        cordon_list_clear(&blocked);
        cordon_list_clear(&pat);
        cordon_slurm_submit_free(s);
        return 0;
}
