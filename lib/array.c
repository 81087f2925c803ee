// SPDX-License-Identifier: MIT
/*
 * array.c - growth of the library's dense arrays (entries indexed by
 * lib/map.c, rows, devices): one place that doubles a capacity, checks the
 * multiplication for overflow and keeps the old array when realloc fails,
 * instead of the same five lines beside every array.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

int bt_array_room(void *arrp, size_t *cap, size_t n, size_t elem, size_t min)
{
	void *a, *fresh;
	size_t c;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : (min ? min : 1);
	while (c < n + 1)
		c *= 2;
	if (!elem || c > SIZE_MAX / elem)
		return -ENOMEM;
	memcpy(&a, arrp, sizeof(a));
	fresh = realloc(a, c * elem);
	if (!fresh)
		return -ENOMEM;
	memcpy(arrp, &fresh, sizeof(fresh));
	*cap = c;
	return 0;
}
