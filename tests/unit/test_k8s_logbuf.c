/*
 * Tests of k8s/logs/logbuf.c: a log larger than the ring reads back whole (the spill
 * file), at any offset and across the ring/file boundary, with the ring never
 * growing; a small log stays in memory without a file.
 */
#include "tests/unit/harness.h"

#include <errno.h>
#include <stdlib.h>

#include "k8s/logs/logbuf.h"

static char byte_at(uint64_t off)
{
	return (char)('A' + (off * 7 + off / 13) % 53);
}

TEST(logbuf_small_log_stays_in_memory)
{
	struct logbuf b;
	char out[64];

	CHECK_INT_EQ(logbuf_init(&b, 100), 0);
	CHECK_INT_EQ(logbuf_append(&b, "hello ", 6), 0);
	CHECK_INT_EQ(logbuf_append(&b, "world\n", 6), 0);
	CHECK_INT_EQ(b.size, 12);
	CHECK_INT_EQ(b.fd, -1);
	CHECK_INT_EQ(logbuf_read(&b, out, sizeof(out), 0), 12);
	CHECK(memcmp(out, "hello world\n", 12) == 0);
	CHECK_INT_EQ(logbuf_read(&b, out, 3, 6), 3);
	CHECK(memcmp(out, "wor", 3) == 0);
	CHECK_INT_EQ(logbuf_read(&b, out, 10, 12), 0);
	CHECK_INT_EQ(logbuf_read(&b, out, 10, 99), 0);
	logbuf_free(&b);
}

TEST(logbuf_large_log_spills_and_reads_back_everywhere)
{
	const size_t cap = 1000, total = 50000;
	struct logbuf b;
	char *chunk = malloc(4096), *out = malloc(total);
	uint64_t off = 0;
	int bad = 0;

	CHECK_INT_EQ(logbuf_init(&b, cap), 0);
	/* appends of varying sizes, some larger than the ring */
	for (size_t step = 1; off < total; step = step * 3 % 2999 + 1) {
		size_t n = step < total - off ? step : total - off;

		for (size_t i = 0; i < n; i++)
			chunk[i] = byte_at(off + i);
		CHECK_INT_EQ(logbuf_append(&b, chunk, n), 0);
		off += n;
		CHECK(b.ring_len <= cap);
	}
	CHECK_INT_EQ(b.size, total);
	CHECK(b.fd >= 0);
	CHECK_INT_EQ(b.ring_len, cap);
	/* whole log in one read, then reads at many offsets and sizes */
	CHECK_INT_EQ(logbuf_read(&b, out, total, 0), (long long)total);
	for (size_t i = 0; i < total; i++)
		if (out[i] != byte_at(i) && bad++ < 3)
			harness_fail(__FILE__, __LINE__, "byte %zu differs", i);
	for (uint64_t o = 0; o < total; o += 977) {
		size_t want = o % 3000 + 1;
		ssize_t n = logbuf_read(&b, out, want, o);
		size_t exp = want < total - o ? want : total - o;

		if (n != (ssize_t)exp) {
			harness_fail(__FILE__, __LINE__, "read at %llu: %zd", (unsigned long long)o,
			             n);
			continue;
		}
		for (ssize_t i = 0; i < n; i++)
			if (out[i] != byte_at(o + (uint64_t)i) && bad++ < 3)
				harness_fail(__FILE__, __LINE__, "read at %llu byte %zd differs",
				             (unsigned long long)o, i);
	}
	CHECK_INT_EQ(bad, 0);
	logbuf_free(&b);
	free(chunk);
	free(out);
}

TEST(logbuf_without_a_spill_directory_keeps_the_newest_bytes)
{
	const char *old = getenv("TMPDIR");
	char *saved = old ? strdup(old) : NULL;
	struct logbuf b;
	char out[16];

	setenv("TMPDIR", "/nonexistent-arenafs-dir", 1);
	CHECK_INT_EQ(logbuf_init(&b, 10), 0);
	CHECK_INT_EQ(logbuf_append(&b, "0123456789", 10), 0);
	CHECK(logbuf_append(&b, "abcdef", 6) < 0);
	CHECK_INT_EQ(b.size, 16);
	CHECK_INT_EQ(logbuf_read(&b, out, 4, 12), 4);
	CHECK(memcmp(out, "cdef", 4) == 0);
	CHECK_INT_EQ(logbuf_read(&b, out, 4, 0), -EIO);
	logbuf_free(&b);
	if (saved)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
	free(saved);
}
