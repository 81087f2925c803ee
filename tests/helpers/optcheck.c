// SPDX-License-Identifier: MIT
/*
 * optcheck.c - a minimal tool on tools/common.c, so the golden CLI tests in
 * tests/cli/common/ can check the shared plumbing itself: option parsing
 * and its messages, opening inputs, the -d/-p/-w filters, reader errors
 * and the -c/-H table.  It summarises what passed the filters in a table.
 */
#include "../../tools/common.h"

static void usage(const char *prog)
{
	printf("Usage: %s [options] [TRACE...]\nOptions:\n%s", prog,
	       tool_common_usage);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		TOOL_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	static const char *const cols[] = {
		"events", "notes", "first_s", "last_s", "pid_min", "pid_max",
		"devs"
	};
	struct tool_opts o;
	struct bt_reader *r;
	struct bt_event ev;
	struct bt_table *t;
	uint64_t first = UINT64_MAX, lo = UINT64_MAX, hi = 0, n = 0, notes = 0;
	uint32_t pmin = UINT32_MAX, pmax = 0, dev = 0;
	int c, rc, mixed = 0, status = TOOL_EXIT_OK;

	tool_opts_init(&o, argv[0]);
	while ((c = getopt_long(argc, argv, TOOL_SHORTOPTS, longopts,
				NULL)) != -1) {
		if (tool_opts_common(&o, c, optarg))
			continue;
		if (c == 'h') {
			usage(o.prog);
			return TOOL_EXIT_OK;
		}
		tool_usage_error(&o, "unknown option");
	}
	r = tool_open(&o, argc, argv);
	while ((rc = tool_next(&o, r, &ev, &first)) == 1) {
		if (bt_event_is_note(&ev)) {
			notes++;
			continue;
		}
		n++;
		lo = ev.time < lo ? ev.time : lo;
		hi = ev.time > hi ? ev.time : hi;
		pmin = ev.pid < pmin ? ev.pid : pmin;
		pmax = ev.pid > pmax ? ev.pid : pmax;
		if (n == 1)
			dev = ev.dev;
		mixed |= ev.dev != dev;
	}
	if (rc < 0)
		status = TOOL_EXIT_DATA;
	tool_warnings(&o, r);
	t = tool_table(&o, TOOL_COLS(cols));
	bt_table_u64(t, n);
	bt_table_u64(t, notes);
	bt_table_s(t, n && lo > first ? lo - first : 0);
	bt_table_s(t, n && hi > first ? hi - first : 0);
	bt_table_u64(t, n ? pmin : 0);
	bt_table_u64(t, pmax);
	if (mixed)
		bt_table_str(t, "mixed");
	else
		bt_table_dev(t, dev);
	bt_table_end_row(t);
	if (tool_table_done(&o, t))
		status = TOOL_EXIT_DATA;
	bt_reader_free(r);
	return status;
}
