/* test_tfevents.c — CRC32C, TFRecord framing, the original's averaging rule,
 * writer/reader round trip, corrupt files, the text fallback and a run dir. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "results/tfevents.h"
#include "util/fsutil.h"

static void test_crc32c(void)
{
    /* RFC 3720 B.4 check value of "123456789" is 0xE3069283 */
    CHECK_INT(tfev_crc32c("123456789", 9), 0xE3069283u);
    uint8_t zeros[32] = {0};
    CHECK_INT(tfev_crc32c(zeros, 32), 0x8A9136AAu); /* RFC 3720 B.4: 32 bytes of zeros */
    uint32_t c = tfev_crc32c("abc", 3);
    CHECK_INT(tfev_masked_crc("abc", 3), (uint32_t)(((c >> 15) | (c << 17)) + 0xa282ead8u));
}

static void test_average_rule(void)
{
    double v[10] = { 9, 9, 9, 9, 9, 1.0, 2.0, 3.0, 4.0, 5.00004 };
    double avg = -1;
    CHECK(tfev_average(v, 6, &avg) < 0);          /* ≤ 6 values: ignored */
    CHECK(tfev_average(v, 7, &avg) == 0);         /* 7: drops 5, mean of 1, 2 */
    CHECK_NEAR(avg, 1.5, 1e-12);
    CHECK(tfev_average(v, 10, &avg) == 0);        /* mean 3.000008 → 3.0 at 4 places */
    CHECK_NEAR(avg, 3.0, 1e-12);
    double w[7] = { 0, 0, 0, 0, 0, 1.23456, 1.23456 };
    CHECK(tfev_average(w, 7, &avg) == 0);
    CHECK_NEAR(avg, 1.2346, 1e-12);
}

static void test_round_trip(void)
{
    double v[12];
    for (int i = 0; i < 12; i++) v[i] = i < 5 ? 10.0 : 0.5;
    uint8_t *buf;
    size_t len, n;
    double *got, avg;
    ac_err e;
    CHECK(tfev_encode(TFEV_TAG, v, 12, 1, &buf, &len, &e) == 0);
    CHECK(tfev_parse(buf, len, "mem", &got, &n, &e) == 0);
    CHECK_INT(n, 12);
    CHECK_NEAR(got[0], 10.0, 1e-6);
    CHECK(tfev_average(got, n, &avg) == 0);
    CHECK_NEAR(avg, 0.5, 1e-9);
    free(got);
    /* the old tag is read when the new one is absent */
    uint8_t *ob;
    size_t ol;
    CHECK(tfev_encode(TFEV_TAG_OLD, v, 12, 0, &ob, &ol, &e) == 0);
    CHECK(tfev_parse(ob, ol, "old", &got, &n, &e) == 0);
    CHECK_INT(n, 12);
    free(got);
    free(ob);
    /* another tag only: no values, no error */
    CHECK(tfev_encode("reduced_train_loss", v, 12, 0, &ob, &ol, &e) == 0);
    CHECK(tfev_parse(ob, ol, "loss", &got, &n, &e) == 0);
    CHECK_INT(n, 0);
    free(got);
    free(ob);

    /* corrupt: flip a payload byte → data CRC error naming the offset */
    buf[len - 6] ^= 0x40;
    CHECK(tfev_parse(buf, len, "bad.tfevents", &got, &n, &e) < 0);
    CHECK_CONTAINS(e.msg, "bad.tfevents: data CRC mismatch");
    buf[len - 6] ^= 0x40;
    /* truncated */
    CHECK(tfev_parse(buf, len - 3, "cut", &got, &n, &e) < 0);
    CHECK_CONTAINS(e.msg, "truncated");
    /* not a TFRecord file at all */
    const char *txt = "hello, this is not an event file";
    CHECK(tfev_parse((const uint8_t *)txt, strlen(txt), "txt", &got, &n, &e) < 0);
    CHECK_CONTAINS(e.msg, "length CRC mismatch");
    /* empty file: fine, no values */
    CHECK(tfev_parse(buf, 0, "empty", &got, &n, &e) == 0);
    CHECK_INT(n, 0);
    free(buf);
}

static void test_text_fallback(void)
{
    const char *log = "Epoch 0: 1/9 [train_step_timing in s=3.0]\n"
                      "x train_step_timing in s=3.0\nx train_step_timing in s=3.0\n"
                      "x train_step_timing in s=3.0\nx train_step_timing in s=3.0\n"
                      "x train_step_timing in s: 2.0\nx train_step_timing in s=4.0, global_step=7\n"
                      "x train_step_timing in s=garbage\n";
    double *v, avg;
    size_t n;
    ac_err e;
    CHECK(tfev_parse_text(log, &v, &n, &e) == 0);
    CHECK_INT(n, 7);
    CHECK(tfev_average(v, n, &avg) == 0);
    CHECK_NEAR(avg, 3.0, 1e-12);
    free(v);
    CHECK(tfev_parse_text("train_step_timing=1.5 train_step_timing=2", &v, &n, &e) == 0);
    CHECK_INT(n, 2);
    free(v);
}

static void test_run_dir(void)
{
    char dir[] = "/tmp/test_tfevents.XXXXXX", res[256], path[512];
    CHECK(mkdtemp(dir) != NULL);
    ac_err e;
    double avg;
    size_t n;
    CHECK(tfev_run_step_time(dir, &avg, &n, &e) < 0);
    CHECK_CONTAINS(e.msg, "no step timing");
    snprintf(res, sizeof res, "%s/results", dir);
    CHECK(fs_mkdir_p(res, &e) == 0);
    double v[8] = { 5, 5, 5, 5, 5, 1.25, 1.25, 1.25 };
    snprintf(path, sizeof path, "%s/events.out.tfevents.1.host.1.0", res);
    CHECK(tfev_write_file(path, TFEV_TAG, v, 8, 0, &e) == 0);
    CHECK(tfev_run_step_time(dir, &avg, &n, &e) == 0);
    CHECK_NEAR(avg, 1.25, 1e-9);
    CHECK_INT(n, 8);
    /* a corrupt file alone is named in the error */
    CHECK(fs_write_atomic(path, "garbage-garbage", 15, &e) == 0);
    CHECK(tfev_run_step_time(dir, &avg, &n, &e) < 0);
    CHECK_CONTAINS(e.msg, "events.out.tfevents.1.host.1.0");
    unlink(path);
    rmdir(res);
    rmdir(dir);
}

int main(void)
{
    RUN(test_crc32c);
    RUN(test_average_rule);
    RUN(test_round_trip);
    RUN(test_text_fallback);
    RUN(test_run_dir);
    CHECK_DONE();
}
