/* NETWORK_MAIL_BLOCK's stub program and the names it stands in for, shared by the resolve
 * (lower-mail.c: the ns backend's binds over the mailers and its directory of stubs) and the
 * launch (launch/mail-shadow.c: the landlock backend's directory of stubs on the host). */
#pragma once

#include <stdbool.h>

/* The ns backend's directory of stubs, first on PATH. */
#define CORDON_MAIL_STUB_DIR "/run/cordon/mail-block"

/* The stub program, a shell script: one deterrent message on stderr naming the program it was
 * called as (printable bytes only, at most 64) and the argument count, never an argument; exit
 * 77 (EX_NOPERM). @by_name_only: the landlock backend's, whose message says only the names
 * found on PATH lead to it (no mount covers a mailer's absolute path there). */
const char *cordon_mail_stub_script(bool by_name_only);
/* The canonical mailer paths, and the names of the directory of stubs (NULL-terminated; the
 * first is the stub, the others link to it). */
const char *const *cordon_mail_paths(void);
const char *const *cordon_mail_names(void);
