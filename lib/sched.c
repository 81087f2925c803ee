// SPDX-License-Identifier: MIT
/*
 * sched.c - decode the messages CFQ and BFQ write into a trace.  Their
 * format changed with nearly every kernel era: CFQ on 2.6.26-2.6.29 wrote
 * "cfq<pid> text", 2.6.30 added the sync letter ("cfq<pid>S"), 2.6.33 the
 * sync-noidle N and, with group scheduling, the blkcg path as a token
 * ("cfq<pid>SN /user.slice text"; a space stands in for a missing N, so two
 * spaces are normal); 4.x moved the cgroup into the record as an 8-byte id.
 * BFQ (4.12+) writes "bfq<pid>S [path] text", and since 5.1 "bfqSHARED-S"
 * for merged queues, which older BFQ printed as pid -1.  Only the queue
 * token, the optional path and the first words of the text matter here.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "btkit.h"

static int starts(const char *s, size_t len, const char *word)
{
	size_t n = strlen(word);

	return len >= n && memcmp(s, word, n) == 0;
}

static size_t skip_spaces(const char *s, size_t i, size_t len)
{
	while (i < len && s[i] == ' ')
		i++;
	return i;
}

/* Which slice marker a queue message's text is, per scheduler. */
static unsigned classify(unsigned sched, const char *t, size_t n)
{
	if (sched == BT_SCHED_CFQ) {
		if (starts(t, n, "add_to_rr"))
			return BT_SCHED_BACKLOG;
		if (starts(t, n, "del_from_rr"))
			return BT_SCHED_LEAVE;
		if (starts(t, n, "set_active"))
			return BT_SCHED_START;
		if (starts(t, n, "slice expired"))
			return BT_SCHED_END;
	} else {
		if (starts(t, n, "add to busy"))
			return BT_SCHED_BACKLOG;
		if (starts(t, n, "del from busy"))
			return BT_SCHED_LEAVE;
		if (starts(t, n, "set_in_service_queue"))
			return BT_SCHED_START;
		if (starts(t, n, "expire ("))
			return BT_SCHED_END;
	}
	return BT_SCHED_OTHER;
}

/*
 * The queue token after "cfq"/"bfq": digits (or -1), then S or A, then N.
 * Returns the index after the token, or 0 when it is not a queue token.
 */
static size_t queue_token(const char *s, size_t i, size_t len,
			  struct bt_sched_msg *m)
{
	int neg = 0;
	int64_t pid = 0;
	size_t digits = 0;

	if (starts(s + i, len - i, "SHARED-")) {
		i += 7;
		m->shared = 1;
		m->pid = -1;
	} else {
		if (i < len && s[i] == '-') {
			neg = 1;
			i++;
		}
		while (i < len && s[i] >= '0' && s[i] <= '9') {
			if (pid < 100000000)
				pid = pid * 10 + (s[i] - '0');
			i++;
			digits++;
		}
		if (!digits)
			return 0;
		m->pid = neg ? -1 : (int32_t)pid;
		m->shared = neg;
	}
	if (i < len && (s[i] == 'S' || s[i] == 'A')) {
		m->has_type = 1;
		m->sync = s[i] == 'S';
		i++;
		if (i < len && s[i] == 'N') {
			m->noidle = 1;
			i++;
		}
	} else if (m->shared && !neg) {
		return 0;	/* "SHARED-" always carries its letter */
	}
	if (i < len && s[i] != ' ')
		return 0;
	return i;
}

int bt_sched_parse(const char *text, size_t len, struct bt_sched_msg *m)
{
	size_t i;

	memset(m, 0, sizeof(*m));
	m->pid = -1;
	while (len && (text[len - 1] == '\0' || text[len - 1] == '\n' ||
		       text[len - 1] == ' '))
		len--;
	/* The kernel pads with NULs; stop at the first one. */
	if (len) {
		const char *nul = memchr(text, '\0', len);

		if (nul)
			len = (size_t)(nul - text);
	}
	if (starts(text, len, "elv switch:")) {
		i = skip_spaces(text, 11, len);
		m->kind = BT_SCHED_SWITCH;
		m->arg = text + i;
		m->arg_len = len - i;
		m->text = text;
		m->text_len = len;
		return 1;
	}
	if (starts(text, len, "cfq"))
		m->sched = BT_SCHED_CFQ;
	else if (starts(text, len, "bfq"))
		m->sched = BT_SCHED_BFQ;
	else
		return 0;
	i = 3;
	if (i < len && text[i] == ' ') {
		i = skip_spaces(text, i, len);
		m->kind = BT_SCHED_DEVICE;
		m->text = text + i;
		m->text_len = len - i;
		return 1;
	}
	i = queue_token(text, i, len, m);
	if (!i) {
		memset(m, 0, sizeof(*m));
		m->pid = -1;
		return 0;
	}
	m->kind = BT_SCHED_QUEUE;
	i = skip_spaces(text, i, len);
	if (i < len && text[i] == '/') {
		size_t g = i;

		while (i < len && text[i] != ' ')
			i++;
		m->group = text + g;
		m->group_len = i - g;
		i = skip_spaces(text, i, len);
	}
	m->text = text + i;
	m->text_len = len - i;
	m->mark = (uint8_t)classify(m->sched, m->text, m->text_len);
	return 1;
}

int bt_sched_event(const struct bt_event *e, struct bt_sched_msg *m)
{
	if (!bt_event_is_note(e) || e->action != BT_N_MESSAGE) {
		memset(m, 0, sizeof(*m));
		m->pid = -1;
		return -EINVAL;
	}
	return bt_sched_parse((const char *)e->pdu, e->pdu ? e->pdu_len : 0, m);
}

char *bt_sched_queue_name(const struct bt_sched_msg *m, char *buf, size_t len)
{
	const char *s = m->sched == BT_SCHED_BFQ ? "bfq" : "cfq";
	char type[3] = { 0 };

	if (!len)
		return buf;
	if (m->has_type) {
		type[0] = m->sync ? 'S' : 'A';
		type[1] = m->noidle ? 'N' : '\0';
	}
	if (m->kind != BT_SCHED_QUEUE)
		snprintf(buf, len, "%s", s);
	else if (m->pid < 0)
		snprintf(buf, len, "%sSHARED-%s", s, type);
	else
		snprintf(buf, len, "%s%d%s", s, (int)m->pid, type);
	return buf;
}
