/* CORDON_ASAN: defined when this translation unit is built with AddressSanitizer (gcc or
 * clang), which cannot follow a child onto a stack it did not make (clone() with CLONE_VM). */
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define CORDON_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CORDON_ASAN 1
#endif
#endif
