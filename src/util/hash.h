/* hash.h — FNV-1a 64 (Fowler, Noll, Vo): a stable, non-cryptographic hash of bytes, the same
 * on every run and machine (run fingerprints in the ledger, the emulation's per-name noise). */
#ifndef AC_UTIL_HASH_H
#define AC_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HASH_FNV1A_OFFSET 0xcbf29ce484222325ULL

/* FNV-1a over n bytes at p, continuing from h (start with HASH_FNV1A_OFFSET) */
uint64_t hash_fnv1a(uint64_t h, const void *p, size_t n);

#endif
