// SPDX-License-Identifier: GPL-2.0
/*
 * Reading what users write: module parameters' numbers (sbd.c), and
 * sysfs input a blank-separated word at a time, for sbd.c's badblocks
 * file and the cache's and recording's files, whose power-cut policies
 * are read (and shown) here too.  Calls nothing else of sbd.
 */
#include <linux/kernel.h>
#include <linux/ctype.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "sbd.h"

/*
 * The one number parser, for module parameters and sysfs files alike:
 * the @len characters at @s must be decimal digits, nothing else, and
 * fit in a u64.  kstrtou64() alone would also take a leading "+" and a
 * trailing newline, and base 0 would read "010" as 8 and take "0x10".
 * More than 20 digits is refused, leading zeros or not, so that a
 * caller that splits its input into tokens never cuts one in two.
 */
bool sbd_parse_decimal(const char *s, size_t len, u64 *value)
{
	char digits[21];	/* U64_MAX has 20 */
	size_t i;

	if (!len || len >= sizeof(digits))
		return false;
	for (i = 0; i < len; i++)
		if (!isdigit(s[i]))
			return false;
	memcpy(digits, s, len);
	digits[len] = '\0';
	return !kstrtou64(digits, 10, value);
}

/*
 * sysfs input is read a blank-separated word at a time: the next word
 * of *@p (moved past it), its length in *@len; NULL when none is left.
 */
const char *sbd_next_word(const char **p, size_t *len)
{
	const char *s = skip_spaces(*p);

	*len = strcspn(s, " \t\n");
	*p = s + *len;
	return *len ? s : NULL;
}

bool sbd_word_is(const char *word, size_t len, const char *name)
{
	return word && len == strlen(name) && !memcmp(word, name, len);
}

/* The next word of *@p as one decimal number: the whole word or nothing. */
bool sbd_parse_token(const char **p, u64 *value)
{
	size_t len;
	const char *word = sbd_next_word(p, &len);

	return word && sbd_parse_decimal(word, len, value);
}

/* Nothing but blanks (and the newline echo adds) left in @p. */
bool sbd_input_ends(const char *p)
{
	return !*skip_spaces(p);
}

/*
 * A policy from *@p: "none", "all", "random SEED PERCENT" or "torn SEED".
 * Used by powercut_policy and by visit.
 */
bool sbd_parse_policy(const char **p, struct sbd_policy *pol)
{
	u64 percent = 0;
	size_t len;
	const char *word = sbd_next_word(p, &len);

	pol->seed = 0;
	if (sbd_word_is(word, len, "none"))
		pol->kind = SBD_CUT_NONE;
	else if (sbd_word_is(word, len, "all"))
		pol->kind = SBD_CUT_ALL;
	else if (sbd_word_is(word, len, "random") &&
		 sbd_parse_token(p, &pol->seed) &&
		 sbd_parse_token(p, &percent) && percent <= 100)
		pol->kind = SBD_CUT_RANDOM;
	else if (sbd_word_is(word, len, "torn") &&
		 sbd_parse_token(p, &pol->seed))
		pol->kind = SBD_CUT_TORN;
	else
		return false;
	pol->percent = percent;
	return true;
}

/* @pol as sbd_parse_policy() reads it, and a newline, at @buf + @at. */
ssize_t sbd_policy_emit(char *buf, int at, const struct sbd_policy *pol)
{
	switch (pol->kind) {
	case SBD_CUT_ALL:
		return sysfs_emit_at(buf, at, "all\n");
	case SBD_CUT_RANDOM:
		return sysfs_emit_at(buf, at, "random %llu %u\n", pol->seed,
				     pol->percent);
	case SBD_CUT_TORN:
		return sysfs_emit_at(buf, at, "torn %llu\n", pol->seed);
	default:
		return sysfs_emit_at(buf, at, "none\n");
	}
}
