/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * digits.h: a name made only of decimal digits (a PID in /proc, an inode
 * number in namespacefs), shared by lsnamespaces and the guest programs.
 */
#ifndef NS_DIGITS_H
#define NS_DIGITS_H

#include <stdbool.h>

/* @s is one or more decimal digits and nothing else. */
static inline bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

#endif
