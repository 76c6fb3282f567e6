/* check.h — the unit-test harness: each test file is one binary whose tests
 * print "PASS <file>:<test>" or "FAIL <file>:<test>: <where>: <what>";
 * scripts/run-tests.sh counts the lines.  A failed CHECK records and goes on
 * so one run shows every broken assertion of a test. */
#ifndef CHECK_H
#define CHECK_H
#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_failed_;
static int check_any_failed_;

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            printf("  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);    \
            check_failed_ = 1;                                                   \
        }                                                                        \
    } while (0)

#define CHECK_INT(a, b)                                                          \
    do {                                                                         \
        long long a_ = (long long)(a), b_ = (long long)(b);                      \
        if (a_ != b_) {                                                          \
            printf("  %s:%d: %s == %lld, expected %lld\n", __FILE__, __LINE__,   \
                   #a, a_, b_);                                                  \
            check_failed_ = 1;                                                   \
        }                                                                        \
    } while (0)

/* relative tolerance, stated at the call site */
#define CHECK_NEAR(a, b, rel)                                                    \
    do {                                                                         \
        double a_ = (double)(a), b_ = (double)(b);                               \
        if (!(fabs(a_ - b_) <= (rel) * fabs(b_) + 1e-12)) {                      \
            printf("  %s:%d: %s == %.9g, expected %.9g (rel tol %g)\n",          \
                   __FILE__, __LINE__, #a, a_, b_, (double)(rel));               \
            check_failed_ = 1;                                                   \
        }                                                                        \
    } while (0)

#define CHECK_STR(a, b)                                                          \
    do {                                                                         \
        const char *a_ = (a), *b_ = (b);                                         \
        if (!a_ || !b_ || strcmp(a_, b_) != 0) {                                 \
            printf("  %s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__,         \
                   __LINE__, #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)");        \
            check_failed_ = 1;                                                   \
        }                                                                        \
    } while (0)

#define CHECK_CONTAINS(hay, needle)                                              \
    do {                                                                         \
        const char *h_ = (hay), *n_ = (needle);                                  \
        if (!h_ || !strstr(h_, n_)) {                                            \
            printf("  %s:%d: \"%s\" does not contain \"%s\"\n", __FILE__,        \
                   __LINE__, h_ ? h_ : "(null)", n_);                            \
            check_failed_ = 1;                                                   \
        }                                                                        \
    } while (0)

#define RUN(test)                                                                \
    do {                                                                         \
        check_failed_ = 0;                                                       \
        test();                                                                  \
        printf("%s %s:%s\n", check_failed_ ? "FAIL" : "PASS", __FILE__, #test);  \
        if (check_failed_) check_any_failed_ = 1;                                \
        fflush(stdout);                                                          \
    } while (0)

#define CHECK_DONE() return check_any_failed_ ? 1 : 0

#endif
