/* replay_main.c — runs a libFuzzer target over every file named on the command
 * line, so `make test` replays the fuzz corpora with the ordinary compiler (and
 * under the sanitizers with `make test-san`). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) { perror(argv[i]); return 1; }
        size_t cap = 1 << 16, len = 0;
        uint8_t *buf = malloc(cap);
        if (!buf) { fclose(f); return 1; }
        size_t n;
        while ((n = fread(buf + len, 1, cap - len, f)) > 0) {
            len += n;
            if (len == cap) {
                uint8_t *nb = realloc(buf, cap *= 2);
                if (!nb) { free(buf); fclose(f); return 1; }
                buf = nb;
            }
        }
        fclose(f);
        LLVMFuzzerTestOneInput(buf, len);
        free(buf);
    }
    return 0;
}
