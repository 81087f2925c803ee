// SPDX-License-Identifier: MIT
/*
 * test_map.c - the library's hash map (lib/map.c): put, get, replace and
 * delete; deletion in the middle of a probe run (backward shift) keeps
 * every other key reachable; growth; and a long random churn of inserts
 * and deletes checked against a plain array, as a request table sees;
 * and the growth of the dense arrays beside it (lib/array.c).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "../../lib/internal.h"

static void test_map_put_get_replace_delete(void **state)
{
	struct bt_map m;
	uint32_t old;

	(void)state;
	bt_map_init(&m);
	assert_int_equal(bt_map_get(&m, 1, 2), 0);
	assert_int_equal(bt_map_del(&m, 1, 2), 0);
	assert_int_equal(bt_map_put(&m, 1, 2, 7), 0);
	assert_int_equal(bt_map_put(&m, 2, 1, 8), 0);
	assert_int_equal(bt_map_get(&m, 1, 2), 7);
	assert_int_equal(bt_map_get(&m, 2, 1), 8);
	assert_int_equal(bt_map_get(&m, 1, 1), 0);
	assert_int_equal(bt_map_put(&m, 1, 2, 9), 0);
	assert_int_equal(m.n, 2);
	old = 5;
	assert_int_equal(bt_map_swap(&m, 4, 4, 3, &old), 0);
	assert_int_equal(old, 0);
	assert_int_equal(bt_map_swap(&m, 4, 4, 6, &old), 0);
	assert_int_equal(old, 3);
	assert_int_equal(bt_map_swap(&m, 4, 4, 0, &old), -EINVAL);
	assert_int_equal(bt_map_del(&m, 4, 4), 6);
	assert_int_equal(bt_map_get(&m, 1, 2), 9);
	assert_int_equal(bt_map_put(&m, 3, 3, 0), -EINVAL);
	assert_int_equal(bt_map_del(&m, 1, 2), 9);
	assert_int_equal(bt_map_get(&m, 1, 2), 0);
	assert_int_equal(bt_map_get(&m, 2, 1), 8);
	assert_int_equal(m.n, 1);
	bt_map_clear(&m);
	assert_int_equal(bt_map_get(&m, 2, 1), 0);
	assert_int_equal(m.n, 0);
	bt_map_free(&m);
	bt_map_free(&m);
}

/* Keys that all hash to one home slot form one run: delete from its middle. */
static void test_map_delete_inside_a_run(void **state)
{
	struct bt_map m;
	uint64_t keys[6];
	size_t home, n = 0;

	(void)state;
	bt_map_init(&m);
	assert_int_equal(bt_map_reserve(&m, 4), 0);
	home = bt_map_hash(0, 0) & m.mask;
	for (uint64_t k = 0; n < 6 && k < 100000; k++)
		if ((bt_map_hash(k, 0) & m.mask) == home)
			keys[n++] = k;
	assert_int_equal(n, 6);
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(bt_map_put(&m, keys[i], 0, (uint32_t)i + 1), 0);
	assert_int_equal(bt_map_del(&m, keys[1], 0), 2);
	assert_int_equal(bt_map_del(&m, keys[3], 0), 4);
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(bt_map_get(&m, keys[i], 0),
				 i == 1 || i == 3 ? 0 : i + 1);
	bt_map_free(&m);
}

/* A found slot's value changes in place; deleting it keeps the run whole. */
static void test_map_find_then_change_or_delete_slot(void **state)
{
	struct bt_map m;
	struct bt_map_slot *s;
	uint64_t keys[4];
	size_t home, n = 0;

	(void)state;
	bt_map_init(&m);
	assert_null(bt_map_find(&m, 1, 1));
	assert_int_equal(bt_map_reserve(&m, 4), 0);
	home = bt_map_hash(0, 9) & m.mask;
	for (uint64_t k = 0; n < 4 && k < 100000; k++)
		if ((bt_map_hash(k, 9) & m.mask) == home)
			keys[n++] = k;
	assert_int_equal(n, 4);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(bt_map_put(&m, keys[i], 9, (uint32_t)i + 1), 0);
	s = bt_map_find(&m, keys[2], 9);
	assert_non_null(s);
	assert_int_equal(s->val, 3);
	s->val = 30;
	assert_int_equal(bt_map_get(&m, keys[2], 9), 30);
	bt_map_del_slot(&m, bt_map_find(&m, keys[0], 9));
	assert_int_equal(m.n, 3);
	assert_null(bt_map_find(&m, keys[0], 9));
	assert_int_equal(bt_map_get(&m, keys[1], 9), 2);
	assert_int_equal(bt_map_get(&m, keys[2], 9), 30);
	assert_int_equal(bt_map_get(&m, keys[3], 9), 4);
	bt_map_free(&m);
}

static void test_map_random_churn_matches_array(void **state)
{
	enum { KEYS = 5000, STEPS = 200000 };
	static uint32_t ref[KEYS];
	struct bt_map m;
	uint64_t x = 88172645463325252ull;
	size_t held = 0;

	(void)state;
	bt_map_init(&m);
	for (int s = 0; s < STEPS; s++) {
		size_t k;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		k = (size_t)(x % KEYS);
		/* keys alike in their low bits, different in the high ones */
		if (x >> 63) {
			uint32_t old = bt_map_del(&m, (uint64_t)k << 40, k & 3);

			assert_int_equal(old, ref[k]);
			held -= ref[k] != 0;
			ref[k] = 0;
		} else if (x >> 62 & 1) {
			/* room made first, as the tracker does */
			uint32_t was = ref[k];

			held += ref[k] == 0;
			ref[k] = (uint32_t)(s + 1);
			assert_int_equal(bt_map_reserve(&m, held), 0);
			assert_int_equal(bt_map_swap_reserved(&m,
							      (uint64_t)k << 40,
							      k & 3, ref[k]),
					 was);
		} else {
			held += ref[k] == 0;
			ref[k] = (uint32_t)(s + 1);
			assert_int_equal(bt_map_put(&m, (uint64_t)k << 40, k & 3,
						    ref[k]), 0);
		}
		assert_int_equal(m.n, held);
	}
	for (size_t k = 0; k < KEYS; k++)
		assert_int_equal(bt_map_get(&m, (uint64_t)k << 40, k & 3), ref[k]);
	assert_true(m.n * 2 <= m.mask + 1);
	bt_map_free(&m);
}

/* lib/array.c: growth keeps what was there and refuses overflow. */
static void test_array_room_grows_and_keeps(void **state)
{
	uint32_t *a = NULL;
	size_t cap = 0;

	(void)state;
	for (uint32_t i = 0; i < 1000; i++) {
		assert_int_equal(bt_array_room(&a, &cap, i, sizeof(*a), 4), 0);
		assert_true(cap > i);
		a[i] = i * 7;
	}
	for (uint32_t i = 0; i < 1000; i++)
		assert_int_equal(a[i], i * 7);
	assert_int_equal(cap, 1024);
	/* room already there: nothing moves */
	assert_int_equal(bt_array_room(&a, &cap, 10, sizeof(*a), 4), 0);
	assert_int_equal(cap, 1024);
	assert_int_equal(bt_array_room(&a, &cap, cap, SIZE_MAX / 1024, 4),
			 -ENOMEM);
	assert_int_equal(cap, 1024);
	assert_int_equal(a[999], 999 * 7);
	free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_put_get_replace_delete),
		cmocka_unit_test(test_map_delete_inside_a_run),
		cmocka_unit_test(test_map_find_then_change_or_delete_slot),
		cmocka_unit_test(test_map_random_churn_matches_array),
		cmocka_unit_test(test_array_room_grows_and_keeps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
