/* A tiny test runner: CHECK records a failure and goes on; pw_test_summary prints
 * "N passed, N failed" and gives the exit status. */
#ifndef PW_TEST_H
#define PW_TEST_H

#include <stdio.h>

static int pw_tests_passed, pw_tests_failed;

#define CHECK(cond, ...)                                                         \
    do {                                                                         \
        if (cond) {                                                              \
            pw_tests_passed++;                                                   \
        } else {                                                                 \
            pw_tests_failed++;                                                   \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);      \
            fprintf(stderr, __VA_ARGS__);                                        \
            fputc('\n', stderr);                                                 \
        }                                                                        \
    } while (0)

static inline int pw_test_summary(const char *suite) {
    printf("%s: %d passed, %d failed\n", suite, pw_tests_passed, pw_tests_failed);
    return pw_tests_failed == 0 ? 0 : 1;
}

#endif
