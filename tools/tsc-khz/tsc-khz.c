// SPDX-License-Identifier: GPL-2.0
/*
 * Print the host's TSC frequency in kHz, measured against
 * CLOCK_MONOTONIC_RAW: the median of five 100 ms windows.
 *
 * Under TCG (no -icount) a guest's RDTSC returns the host's TSC, so this
 * is the frequency a guest kernel must be told (tsc_early_khz=) when it
 * has nothing to calibrate against: the debug kernel has no ACPI, so no
 * HPET or PM timer, and its PIT calibration fails whenever the host is
 * busy; its TSC is then never used and local_clock() counts in jiffies.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

static uint64_t raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/*
 * A (clock, TSC) pair read close together: the clock between two TSC
 * reads, kept when they are less than 20 us apart (no preemption or
 * interrupt between), the TSC taken as their midpoint.
 */
static int pair(uint64_t *ns, uint64_t *tsc)
{
	int tries;

	for (tries = 0; tries < 1000; tries++) {
		uint64_t c0 = __rdtsc(), t = raw_ns(), c1 = __rdtsc();

		if (c1 > c0 && c1 - c0 < 20 * 1000 * 10) {	/* 20 us at <= 10 GHz */
			*ns = t;
			*tsc = c0 + (c1 - c0) / 2;
			return 0;
		}
	}
	return -1;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	const struct timespec window = { 0, 100 * 1000 * 1000 };
	double khz[5];
	int i;

	for (i = 0; i < 5; i++) {
		uint64_t t0, c0, t1, c1;

		if (pair(&t0, &c0) || nanosleep(&window, NULL) || pair(&t1, &c1) ||
		    t1 <= t0 || c1 <= c0) {
			fprintf(stderr, "tsc-khz: no close pair of clock and TSC reads\n");
			return 1;
		}
		khz[i] = (double)(c1 - c0) * 1e6 / (double)(t1 - t0);
	}
	qsort(khz, 5, sizeof(khz[0]), cmp);
	printf("%.0f\n", khz[2]);
	return 0;
}
