// SPDX-License-Identifier: GPL-2.0
/*
 * Does the (emulated) CPU keep the arithmetic flags across CMPXCHG16B?
 *
 * A successful CMPXCHG16B sets ZF and leaves CF, PF, AF, SF and OF as they
 * were. QEMU 7.2's TCG (Debian bookworm's) computes the flags after it from
 * a stale record of the last flag-setting operation: pushfq right after it
 * shows the operand of the add before it as flags (0x895 gives 0xad7, where
 * 0x246 is right). SLUB's fast path runs cmpxchg16b with interrupts on; an
 * interrupt taken just after it pushes, and its iret restores, those bits,
 * TF and IOPL among them: a 6.12 guest died of a double fault in
 * __kmalloc_noprof that way, the flags it reported being the low half of
 * the freed object's address. run-vm gives TCG guests no CX16; the kernel
 * then emulates the instruction with interrupts off.
 *
 * Exit 0 when the CPU has no CMPXCHG16B (CPUID) or keeps the flags, 1 when
 * it does not.
 */
#include <cpuid.h>
#include <stdint.h>
#include <stdio.h>

static __attribute__((aligned(16))) uint64_t mem[2];

int main(void)
{
	unsigned int a, b, c, d;
	int bad = 0, i;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_CMPXCHG16B)) {
		printf("cx16check: no cmpxchg16b\n");
		return 0;
	}
	for (i = 0; i < 1000; i++) {
		uint64_t src = 0x895 + ((uint64_t)i << 12), acc = 0, fl, want;
		uint64_t lo = 1, hi = 2;

		/* The add's own flags, and ZF as the exchange sets it. */
		__asm__ volatile("pushq $0x202; popfq; add %2, %1; pushfq; popq %0"
				 : "=r"(want), "+r"(acc) : "r"(src) : "cc");
		want |= 0x40;
		acc = 0;
		mem[0] = 1;
		mem[1] = 2;
		/* popfq ends QEMU's translation block: the add and the exchange
		 * are translated together, as in SLUB's fast path.
		 */
		__asm__ volatile("pushq $0x202; popfq\n\t"
				 "add %[s], %[acc]\n\t"
				 "lock cmpxchg16b %[m]\n\t"
				 "pushfq; popq %[f]"
				 : [f] "=r"(fl), [acc] "+r"(acc), [m] "+m"(mem), "+a"(lo), "+d"(hi)
				 : [s] "r"(src), "b"(3ULL), "c"(4ULL) : "cc", "memory");
		if ((fl & 0x8d5) != (want & 0x8d5) && bad++ < 3)
			printf("cx16check: flags after cmpxchg16b %#llx, want %#llx\n",
			       (unsigned long long)fl, (unsigned long long)want);
	}
	printf("cx16check: %d of 1000 exchanges left wrong flags\n", bad);
	return bad != 0;
}
