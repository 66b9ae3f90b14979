/* clock.h — seconds on the monotonic clock, for the durations commands and the driver print. */
#ifndef LDA_CLOCK_H
#define LDA_CLOCK_H

#include <time.h>

static inline double lda_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
