/* session-bench: what its modes share (session-bench.c defines them). */
#pragma once

#include <cordon/cordon.h>
#include <stdint.h>

/* A writable copy of a literal, for the char *const * arrays. */
#define W(x) ((char *)(uintptr_t)(x))

/* "ns" or "landlock": the backend of every session this run starts. */
extern const char *backend;

__attribute__((format(printf, 1, 2))) _Noreturn void die(const char *fmt, ...);
int64_t now_ns(void);
/* A fixed-seed generator: the same sequence on every run. */
uint64_t rnd(void);
/* The policy the settings give for the working directory, the backend and NET ("isolated",
 * or "default": NETWORK_FILTER_MODE left unset). */
struct cordon_policy *resolve(const char *net);
/* cordon_sandbox_start_with(@p, CORDON_SANDBOX_SESSION), restoring @restore_from (NULL: none). */
struct cordon_sandbox *start_restored(const struct cordon_policy *p, const char *restore_from);
/* Prints "NAME NANOSECONDS" unless @round is a warm-up round. */
void sample(int round, int warmup, const char *name, int64_t ns);

/* session-bench snapshot BACKEND ROUNDS WARMUP FILES MBYTES ARCHIVE_DIR */
void t_snapshot(int rounds, int warmup, int files, int mbytes, const char *archive_dir);
