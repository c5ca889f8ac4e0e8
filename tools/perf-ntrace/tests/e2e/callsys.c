// SPDX-License-Identifier: GPL-2.0-only
/*
 * A traced program for scripts/perf-e2e.sh: many control-flow kinds and many
 * system calls, so that the user-mode trace of one process is cut by traps
 * and context switches and still has to decode to the exact instruction
 * sequence the hart retired.
 *
 *  - indirect calls through a table of function pointers;
 *  - a switch compiled to a jump table (an indirect jump);
 *  - recursion deeper than the encoder's return stack, then returns;
 *  - setjmp/longjmp (a return that is not to the caller);
 *  - system calls in the loop: getppid, write to /dev/null, read from
 *    /dev/zero, openat/close; sched_yield and short sleeps (the task leaves
 *    the hart, the encoder is switched off and on again).
 * No vDSO calls (gettimeofday, clock_gettime): their code is not in a file
 * the host decoder can load.
 *
 * With "signals", a SIGUSR1 handler runs every 40 iterations; it returns
 * through the vDSO's sigreturn trampoline. With "trigger", the iteration
 * halfway calls trigger_point() once: the function a snapshot is taken at
 * (perf-ntrace trigger), with as much running after it as before.
 *
 * Usage: callsys [ITERATIONS [signals|trigger]]   (default 200); prints a
 * checksum.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>

#define NOINLINE __attribute__((noinline))

NOINLINE static long op_add(long a, long b) { return a + b; }
NOINLINE static long op_sub(long a, long b) { return a - b; }
NOINLINE static long op_mul(long a, long b) { return a * (b | 1); }
NOINLINE static long op_mix(long a, long b) { return (a ^ b) + (a >> 3); }

static long (*volatile ops[4])(long, long) = { op_add, op_sub, op_mul, op_mix };

NOINLINE static long classify(long v)
{
	switch (v & 7) {
	case 0: return v + 11;
	case 1: return v * 3;
	case 2: return v ^ 0x55;
	case 3: return v - 7;
	case 4: return v << 1;
	case 5: return v >> 2;
	case 6: return ~v;
	default: return v + 1;
	}
}

NOINLINE static long deep(int n, long acc)
{
	if (n == 0)
		return acc;
	return deep(n - 1, acc * 5 + n) + 1;
}

static jmp_buf env;
static void (*volatile jump)(struct __jmp_buf_tag *, int) = longjmp;

NOINLINE static void bail(int n)
{
	if (n < 4)
		bail(n + 1);
	else
		jump(env, n);
}

static volatile long caught;

/* Only called with "trigger": kept out of line, so that it has an entry. */
NOINLINE long trigger_point(long acc)
{
	return (acc * 31) >> 3;
}

static void on_signal(int sig)
{
	caught += sig;
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 200;
	int sigs = argc > 2 && !strcmp(argv[2], "signals");
	int trig = argc > 2 && !strcmp(argv[2], "trigger");
	int dn = open("/dev/null", O_WRONLY);
	int dz = open("/dev/zero", O_RDONLY);
	struct timespec ts = { 0, 200000 };
	long acc = 1;
	char buf[16];
	int i, j;

	if (dn < 0 || dz < 0)
		return 2;
	if (sigs)
		signal(SIGUSR1, on_signal);
	for (i = 0; i < iters; i++) {
		acc = ops[(i * 7 + (acc & 1)) & 3](acc, i) & 0xffffff;
		acc += classify(acc + i);
		acc += getppid() > 0;	/* the flow must not depend on the pid */
		if (write(dn, &acc, sizeof(acc)) != sizeof(acc) ||
		    read(dz, buf, sizeof(buf)) != sizeof(buf))
			return 3;
		if (i % 16 == 0) {
			int fd = open("/dev/null", O_RDONLY);

			if (fd < 0)
				return 4;
			close(fd);
			acc += deep(40 + i % 32, acc) & 0xff;
		}
		if (i % 32 == 5) {
			j = setjmp(env);
			if (!j)
				bail(0);
			acc += j;
		}
		if (i % 50 == 10)
			sched_yield();
		if (i % 64 == 20)
			nanosleep(&ts, NULL);
		if (sigs && i % 40 == 7)
			raise(SIGUSR1);
		if (trig && i == iters / 2)
			acc += trigger_point(acc) & 0xff;
	}
	printf("callsys: iterations=%d checksum=%ld signals=%ld\n", iters, acc & 0xffffff,
	       caught / SIGUSR1);
	return 0;
}
