// SPDX-License-Identifier: GPL-2.0
/*
 * sbd-asuser UID CMD [ARG]...: run CMD as user and group UID, with no
 * supplementary groups, as a server that drops root does (PostgreSQL
 * runs as "postgres").  Exits 2, saying why, if it cannot.
 */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char *end;
	unsigned long id;

	if (argc < 3) {
		fprintf(stderr, "usage: sbd-asuser UID CMD [ARG]...\n");
		return 2;
	}
	id = strtoul(argv[1], &end, 10);
	if (*end || end == argv[1]) {
		fprintf(stderr, "sbd-asuser: %s: not a number\n", argv[1]);
		return 2;
	}
	if (setgroups(0, NULL) || setgid(id) || setuid(id)) {
		perror("sbd-asuser");
		return 2;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 2;
}
