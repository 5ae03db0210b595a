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
		uint64_t t0 = raw_ns(), c0 = __rdtsc(), t1, c1;

		nanosleep(&window, NULL);
		t1 = raw_ns();
		c1 = __rdtsc();
		if (t1 <= t0 || c1 <= c0) {
			fprintf(stderr, "tsc-khz: clock or TSC did not advance\n");
			return 1;
		}
		khz[i] = (double)(c1 - c0) * 1e6 / (double)(t1 - t0);
	}
	qsort(khz, 5, sizeof(khz[0]), cmp);
	printf("%.0f\n", khz[2]);
	return 0;
}
