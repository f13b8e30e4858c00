// SPDX-License-Identifier: GPL-2.0
/*
 * memcpy-bench: the physical limit a RAM disk's 1 MiB transfers are
 * measured against.  Copies 1 MiB buffers with memcpy() for about
 * SECONDS seconds and prints MiB/s, two ways:
 *   hot     the same 1 MiB source to the same 1 MiB destination
 *   stream  1 MiB chunks walked through a STORE_MB-sized source (like a
 *           RAM disk's store) into one 1 MiB destination (like fio's
 *           buffer)
 *   movsb   like hot, but copying with "rep movsb", which is what the
 *           x86-64 kernel's memcpy() runs on CPUs with FSRM/ERMS (the
 *           copy brd and sbd do); glibc's memcpy() uses vector loads.
 * Output: "memcpy hot MIBS stream MIBS movsb MIBS".  Built static
 * (gcc -static -O2) by scripts/bench.sh and run inside the VM.
 *   usage: memcpy-bench [SECONDS] [STORE_MB]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHUNK (1u << 20)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void copy_movsb(void *dst, const void *src, size_t n)
{
#if defined(__x86_64__)
	__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
#else
	memcpy(dst, src, n);
#endif
}

static int use_movsb;

/* Copy for about @secs seconds; return MiB/s. */
static double run(unsigned char *src, size_t src_len, unsigned char *dst,
		  double secs)
{
	size_t off = 0, n = 0;
	double t0 = now(), t;

	do {
		for (int i = 0; i < 16; i++) {
			if (use_movsb)
				copy_movsb(dst, src + off, CHUNK);
			else
				memcpy(dst, src + off, CHUNK);
			/* Keep the copy from being optimised away. */
			__asm__ volatile("" : : "r"(dst) : "memory");
			off += CHUNK;
			if (off + CHUNK > src_len)
				off = 0;
			n++;
		}
		t = now() - t0;
	} while (t < secs);
	return n / t;	/* n chunks of 1 MiB */
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3;
	size_t store = (argc > 2 ? strtoul(argv[2], NULL, 0) : 256) << 20;
	unsigned char *src = malloc(store), *dst = malloc(CHUNK);
	double hot, stream, movsb;

	if (!src || !dst || store < CHUNK) {
		fprintf(stderr, "memcpy-bench: cannot allocate %zu bytes\n", store);
		return 1;
	}
	/* Touch everything so page faults are not measured. */
	for (size_t i = 0; i < store; i++)
		src[i] = (unsigned char)(i * 2654435761u >> 13);
	memset(dst, 0, CHUNK);
	run(src, CHUNK, dst, secs / 10);	/* warm up */
	hot = run(src, CHUNK, dst, secs);
	stream = run(src, store, dst, secs);
	use_movsb = 1;
	movsb = run(src, CHUNK, dst, secs);
	printf("memcpy hot %.0f stream %.0f movsb %.0f\n", hot, stream, movsb);
	return 0;
}
