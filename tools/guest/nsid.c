// SPDX-License-Identifier: GPL-2.0-only
/*
 * nsid: print the registry id of namespaces, as the NS_GET_ID ioctl gives
 * it on an nsfs file descriptor.
 *
 *   nsid FILE...     FILE is /proc/PID/ns/TYPE or a bind mount of one
 *
 * Prints one line per FILE: "TYPE:[INUM] ID". Exits 1 if a FILE could not
 * be read (the kernel lacks NS_GET_ID: ENOTTY), 2 on a usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#ifndef NS_GET_ID
#define NS_GET_ID _IOR(NSIO, 13, uint64_t)
#endif

static int show(const char *path)
{
	char link[64];
	uint64_t id;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "nsid: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (ioctl(fd, NS_GET_ID, &id) < 0) {
		fprintf(stderr, "nsid: %s: NS_GET_ID: %s\n", path,
			strerror(errno));
		close(fd);
		return 1;
	}
	close(fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0) {
		/* A bind mount of a namespace file is not a link. */
		strcpy(link, "?");
		n = 1;
	}
	link[n] = '\0';
	printf("%s %llu\n", link, (unsigned long long)id);
	return 0;
}

int main(int argc, char **argv)
{
	int ret = 0;
	int i;

	if (argc < 2) {
		fputs("usage: nsid FILE...\n", stderr);
		return 2;
	}
	for (i = 1; i < argc; i++)
		ret |= show(argv[i]);
	return ret;
}
