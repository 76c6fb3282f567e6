/* hash.c — see hash.h. */
#include "util/hash.h"

uint64_t hash_fnv1a(uint64_t h, const void *p, size_t n)
{
    for (const unsigned char *b = p; n--; b++) h = (h ^ *b) * 0x100000001b3ULL;
    return h;
}
