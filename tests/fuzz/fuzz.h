/* The libFuzzer entry point every target in tests/fuzz defines. Built either with
 * -fsanitize=fuzzer (libFuzzer supplies main) or with replay-main.c, which runs corpus files. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Inputs larger than this are ignored: the parsers' limits are tested elsewhere, and huge
 * inputs only slow the fuzzer down. */
#define FUZZ_MAX_INPUT (64u * 1024u)

/* An invariant of the code under test: a violation aborts, which libFuzzer reports as a crash
 * and the replay runner as a failed test. */
#define FUZZ_CHECK(cond)                                                                           \
        do {                                                                                       \
                if (!(cond)) {                                                                     \
                        fprintf(stderr, "%s:%d: invariant violated: %s\n", __FILE__, __LINE__,     \
                                #cond);                                                            \
                        abort();                                                                   \
                }                                                                                  \
        } while (0)
