/* NETWORK_MAIL_BLOCK under the landlock backend: with no mounts there is no stub over the host's
 * mailers, only the PATH part of the block, a directory of stubs first on the command's PATH.
 * The launch makes it on the host and removes it at its end. */
#pragma once

struct cordon_diag;
struct cordon_launch;

/* Landlock backend with the policy's mail_stub (auto; `on` is refused before): makes the
 * directory once (none in a dry run), `cordon-mail-XXXXXX` in the first of /dev/shm, /tmp and
 * /var/tmp that no writable Landlock grant of @l->ll reaches, holding the stub (mode 0555,
 * written beneath the directory's descriptor) and a symbolic link to it under each other name,
 * and adds its Landlock rule (read and execute, nothing else) when the layer is on and the plan
 * not prepared yet. Nothing inside can change it then: no rule grants writing there, and
 * linking or renaming out of it needs a right no rule grants. With the Landlock layer off
 * nothing is confined, and the stubs are only the message. Returns 0, or -errno with the diag
 * naming NETWORK_MAIL_BLOCK (fail closed: no place outside the writable grants, or one that
 * cannot be made). */
int cordon_mail_shadow_prepare(struct cordon_launch *l, struct cordon_diag *diag);

/* "PATH=DIR:..." in *@ret (the caller frees it): the command's PATH (@envp's) with the directory
 * first, in place of the ns backend's directory of stubs, which a PATH resolved for `auto`
 * starts with; NULL when the launch made none. Returns 0 or -ENOMEM. */
int cordon_mail_shadow_path(const struct cordon_launch *l, char *const *envp, char **ret);

/* Removes the directory (a physical walk), at the launch's clear. */
void cordon_mail_shadow_remove(struct cordon_launch *l);
