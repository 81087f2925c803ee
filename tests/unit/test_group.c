// SPDX-License-Identifier: MIT
/*
 * test_group.c - report groups: a new group's value is zeroed and the same
 * key finds it again, keys differing in any of dev, pid, sub are distinct
 * groups (checked against values derived from the key after thousands of
 * groups made the table grow), sorting orders by dev, pid, sub or by the
 * caller's order and lookups still work after it (interleaved keys too),
 * and odd value sizes stay aligned and apart.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "btkit.h"

struct val {
	uint64_t a, b;
};

/* A small deterministic generator (xorshift64*), so failures reproduce. */
static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static uint64_t mark(uint32_t dev, uint32_t pid, uint32_t sub)
{
	return ((uint64_t)dev << 40) ^ ((uint64_t)pid << 8) ^ sub ^ 0x5a5a;
}

static void test_group_new_value_zeroed_and_found_again(void **state)
{
	struct bt_group *g;
	struct val *v, *w;

	(void)state;
	assert_int_equal(bt_group_new(&g, sizeof(struct val)), 0);
	assert_int_equal(bt_group_count(g), 0);
	assert_null(bt_group_find(g, 8, 1, 0));
	v = bt_group_get(g, 8, 1, 0);
	assert_non_null(v);
	assert_int_equal(v->a, 0);
	assert_int_equal(v->b, 0);
	v->a = 42;
	w = bt_group_get(g, 8, 1, 0);
	assert_ptr_equal(v, w);
	assert_int_equal(w->a, 42);
	assert_int_equal(bt_group_count(g), 1);
	assert_ptr_equal(bt_group_find(g, 8, 1, 0), v);
	assert_null(bt_group_find(g, 8, 1, 1));
	assert_null(bt_group_find(g, 8, 2, 0));
	assert_null(bt_group_find(g, 9, 1, 0));
	assert_null(bt_group_at(g, 1, NULL));
	bt_group_free(g);
}

/* Keys that differ in one field only, many of them: the table grows. */
static void test_group_many_keys_distinct_after_growth(void **state)
{
	enum { N = 5000 };
	struct bt_group *g;
	struct bt_group_key k;

	(void)state;
	assert_int_equal(bt_group_new(&g, sizeof(struct val)), 0);
	for (uint32_t i = 0; i < N; i++) {
		uint32_t dev = i % 7, pid = i / 7 % 50, sub = i / 350;
		struct val *v = bt_group_get(g, dev, pid, sub);

		assert_non_null(v);
		assert_int_equal(v->a, 0);
		v->a = mark(dev, pid, sub);
		v->b = i;
	}
	assert_int_equal(bt_group_count(g), N);
	for (uint32_t i = 0; i < N; i++) {
		uint32_t dev = i % 7, pid = i / 7 % 50, sub = i / 350;
		struct val *v = bt_group_find(g, dev, pid, sub);

		assert_non_null(v);
		assert_int_equal(v->a, mark(dev, pid, sub));
		assert_int_equal(v->b, i);
	}
	/* Until sorted, the order they came. */
	for (size_t i = 0; i < N; i++) {
		struct val *v = bt_group_at(g, i, &k);

		assert_non_null(v);
		assert_int_equal(v->b, i);
		assert_int_equal(v->a, mark(k.dev, k.pid, k.sub));
	}
	bt_group_free(g);
}

static void test_group_sort_by_dev_pid_sub(void **state)
{
	struct bt_group *g;
	struct bt_group_key k, prev;
	size_t n;

	(void)state;
	assert_int_equal(bt_group_new(&g, sizeof(struct val)), 0);
	for (int i = 0; i < 3000; i++) {
		uint32_t dev = (uint32_t)(rnd() % 4), pid = (uint32_t)rnd(),
			 sub = (uint32_t)(rnd() % 3);
		struct val *v = bt_group_get(g, dev, pid, sub);

		assert_non_null(v);
		v->a = mark(dev, pid, sub);
	}
	/* The extremes of each field sort as unsigned. */
	((struct val *)bt_group_get(g, 0, UINT32_MAX, 0))->a =
		mark(0, UINT32_MAX, 0);
	((struct val *)bt_group_get(g, UINT32_MAX, 0, UINT32_MAX))->a =
		mark(UINT32_MAX, 0, UINT32_MAX);
	n = bt_group_count(g);
	bt_group_sort(g, NULL);
	assert_int_equal(bt_group_count(g), n);
	for (size_t i = 0; i < n; i++) {
		struct val *v = bt_group_at(g, i, &k);

		assert_int_equal(v->a, mark(k.dev, k.pid, k.sub));
		if (i) {
			int later = k.dev != prev.dev ? k.dev > prev.dev :
				    k.pid != prev.pid ? k.pid > prev.pid :
				    k.sub > prev.sub;

			assert_true(later);
		}
		/* Lookups find the moved values. */
		assert_ptr_equal(bt_group_find(g, k.dev, k.pid, k.sub), v);
		prev = k;
	}
	bt_group_free(g);
}

/* Descending pid: the caller's order. */
static int by_pid_down(const void *a, const void *b)
{
	const struct bt_group_key *x = a, *y = b;

	return (x->pid < y->pid) - (x->pid > y->pid);
}

static void test_group_sort_caller_order_then_add(void **state)
{
	struct bt_group *g;
	struct bt_group_key k;
	uint32_t *v;

	(void)state;
	assert_int_equal(bt_group_new(&g, sizeof(uint32_t)), 0);
	for (uint32_t pid = 1; pid <= 100; pid++)
		*(uint32_t *)bt_group_get(g, 0, pid * 37 % 101, 0) = pid;
	bt_group_sort(g, by_pid_down);
	for (size_t i = 0; i < 100; i++) {
		assert_non_null(bt_group_at(g, i, &k));
		assert_int_equal(k.pid, 100 - i);
	}
	/* Adding after a sort appends and finds old and new alike. */
	v = bt_group_get(g, 1, 5, 0);
	assert_int_equal(*v, 0);
	*v = 7;
	assert_non_null(bt_group_at(g, 100, &k));
	assert_int_equal(k.dev, 1);
	for (uint32_t pid = 1; pid <= 100; pid++)
		assert_int_equal(*(uint32_t *)bt_group_find(g, 0, pid * 37 % 101, 0),
				 pid);
	assert_int_equal(*(uint32_t *)bt_group_find(g, 1, 5, 0), 7);
	bt_group_free(g);
}

/* Odd value sizes: aligned for any type, and apart from each other. */
static void test_group_odd_sizes_aligned_and_apart(void **state)
{
	struct bt_group *g;

	(void)state;
	for (size_t size = 0; size < 40; size += 3) {
		assert_int_equal(bt_group_new(&g, size), 0);
		for (uint32_t i = 0; i < 100; i++) {
			unsigned char *v = bt_group_get(g, i, 0, 0);

			assert_non_null(v);
			assert_int_equal((uintptr_t)v % alignof(max_align_t), 0);
			memset(v, (int)i, size);
		}
		for (uint32_t i = 0; i < 100; i++) {
			unsigned char *v = bt_group_find(g, i, 0, 0);

			for (size_t b = 0; b < size; b++)
				assert_int_equal(v[b], (unsigned char)i);
		}
		bt_group_free(g);
	}
	bt_group_free(NULL);
}

static int by_pid_desc(const void *a, const void *b)
{
	const struct bt_group_key *x = a, *y = b;

	return (x->pid < y->pid) - (x->pid > y->pid);
}

/* The key asked for last is remembered: sorting moves it, growth keeps it. */
static void test_group_last_key_follows_sort_and_growth(void **state)
{
	struct bt_group *g;
	struct val *v;

	(void)state;
	assert_int_equal(bt_group_new(&g, sizeof(struct val)), 0);
	for (uint32_t pid = 1; pid <= 3; pid++) {
		v = bt_group_get(g, 8, pid, 0);
		v->a = pid;
	}
	/* pid 3 was asked last; sorted, it moves from entry 3 to entry 1 */
	bt_group_sort(g, by_pid_desc);
	assert_int_equal(((struct val *)bt_group_get(g, 8, 3, 0))->a, 3);
	assert_int_equal(((struct val *)bt_group_get(g, 8, 1, 0))->a, 1);
	bt_group_sort(g, NULL);
	assert_int_equal(((struct val *)bt_group_get(g, 8, 1, 0))->a, 1);
	/* growing the entry array keeps the remembered entry's value */
	for (uint32_t pid = 10; pid < 200; pid++)
		((struct val *)bt_group_get(g, 9, pid, 0))->a = pid + 1000;
	assert_int_equal(((struct val *)bt_group_get(g, 9, 199, 0))->a, 1199);
	assert_int_equal(((struct val *)bt_group_get(g, 9, 199, 0))->a, 1199);
	assert_int_equal(((struct val *)bt_group_get(g, 8, 2, 0))->a, 2);
	bt_group_free(g);
}

/*
 * Interleaved keys are answered from the cache of entry numbers: right
 * before and after a sort moved every entry, and for keys that share a
 * cache slot, with get and find alike.
 */
static void test_group_interleaved_keys_follow_sort(void **state)
{
	struct bt_group *g;
	struct val *v;

	(void)state;
	assert_int_equal(bt_group_new(&g, sizeof(struct val)), 0);
	for (int round = 0; round < 3; round++) {
		for (uint32_t k = 0; k < 300; k++) {
			uint32_t pid = 5000 + k % 150, sub = k / 150;

			v = bt_group_get(g, 8 << 20, pid, sub);
			assert_non_null(v);
			v->a += mark(8 << 20, pid, sub);
			v->b++;
		}
		bt_group_sort(g, round == 1 ? by_pid_desc : NULL);
	}
	assert_int_equal(bt_group_count(g), 300);
	for (uint32_t k = 0; k < 300; k++) {
		uint32_t pid = 5000 + k % 150, sub = k / 150;
		const struct val *f = bt_group_find(g, 8 << 20, pid, sub);

		v = bt_group_get(g, 8 << 20, pid, sub);
		assert_ptr_equal(f, v);
		assert_int_equal(v->b, 3);
		assert_int_equal(v->a, 3 * mark(8 << 20, pid, sub));
	}
	assert_null(bt_group_find(g, 8 << 20, 5000 + 150, 0));
	bt_group_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_group_last_key_follows_sort_and_growth),
		cmocka_unit_test(test_group_interleaved_keys_follow_sort),
		cmocka_unit_test(test_group_new_value_zeroed_and_found_again),
		cmocka_unit_test(test_group_many_keys_distinct_after_growth),
		cmocka_unit_test(test_group_sort_by_dev_pid_sub),
		cmocka_unit_test(test_group_sort_caller_order_then_add),
		cmocka_unit_test(test_group_odd_sizes_aligned_and_apart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
