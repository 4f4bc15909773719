/* Kernel keyrings: the sandbox must not possess the caller's session keyring. */
#pragma once

/* Child side: joins a new anonymous session keyring, so keys the caller possesses through its
 * session keyring (Kerberos tickets, ecryptfs passphrases, ...) are out of reach. A kernel
 * without keyrings (ENOSYS) has nothing to hide. Returns 0 or -errno. */
int cordon_keyring_detach(void);
