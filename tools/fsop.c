// SPDX-License-Identifier: GPL-2.0-only
/*
 * fsop: make one file system call and print how it ended, for tests that
 * must tell EROFS from EPERM or EINVAL rather than "it failed".
 *
 *   fsop OP ARGS...
 *
 * Prints "OK" (and, for read, the data) when the call succeeds, otherwise
 * the errno name (EROFS, ENOENT, ...). Exits 0 on success, 1 on an errno,
 * 2 on a usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>

static int usage(void)
{
	fputs("usage: fsop OP ARGS...\n"
	      "  mount SRC DIR FSTYPE [OPTIONS]   mount(2)\n"
	      "  remount DIR [OPTIONS] [ro]       mount(2) with MS_REMOUNT\n"
	      "  umount DIR\n"
	      "  create PATH | mkdir PATH | rmdir PATH | unlink PATH\n"
	      "  rename OLD NEW | link OLD NEW | symlink TARGET PATH\n"
	      "  mknod PATH | chmod PATH | chown PATH | truncate PATH\n"
	      "  setxattr PATH | utimes PATH | open-write PATH\n"
	      "  read PATH                        read(2) it whole\n",
	      stderr);
	return 2;
}

static int report(int ret)
{
	if (ret < 0) {
		const char *name = strerrorname_np(errno);

		printf("%s\n", name ? name : "EUNKNOWN");
		return 1;
	}
	printf("OK\n");
	return 0;
}

static int do_read(const char *path)
{
	char buf[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return report(-1);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, n, stdout);
	if (n < 0)
		return report(-1);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *op;

	if (argc < 3)
		return usage();
	op = argv[1];

	if (!strcmp(op, "mount") && argc >= 5)
		return report(mount(argv[2], argv[3], argv[4], 0,
				    argc > 5 ? argv[5] : NULL));
	if (!strcmp(op, "remount")) {
		unsigned long flags = MS_REMOUNT;

		if (argc > 4 && !strcmp(argv[4], "ro"))
			flags |= MS_RDONLY;
		return report(mount(NULL, argv[2], NULL, flags,
				    argc > 3 ? argv[3] : NULL));
	}
	if (!strcmp(op, "umount"))
		return report(umount(argv[2]));
	if (!strcmp(op, "create"))
		return report(open(argv[2], O_CREAT | O_EXCL | O_WRONLY, 0644));
	if (!strcmp(op, "mkdir"))
		return report(mkdir(argv[2], 0755));
	if (!strcmp(op, "rmdir"))
		return report(rmdir(argv[2]));
	if (!strcmp(op, "unlink"))
		return report(unlink(argv[2]));
	if (!strcmp(op, "mknod"))
		return report(mknod(argv[2], S_IFIFO | 0644, 0));
	if (!strcmp(op, "chmod"))
		return report(chmod(argv[2], 0777));
	if (!strcmp(op, "chown"))
		return report(chown(argv[2], 0, 0));
	if (!strcmp(op, "truncate"))
		return report(truncate(argv[2], 0));
	if (!strcmp(op, "setxattr"))
		return report(setxattr(argv[2], "user.test", "x", 1, 0));
	if (!strcmp(op, "utimes"))
		return report(utimes(argv[2], NULL));
	if (!strcmp(op, "open-write"))
		return report(open(argv[2], O_WRONLY));
	if (!strcmp(op, "read"))
		return do_read(argv[2]);
	if (argc >= 4) {
		if (!strcmp(op, "rename"))
			return report(rename(argv[2], argv[3]));
		if (!strcmp(op, "link"))
			return report(link(argv[2], argv[3]));
		if (!strcmp(op, "symlink"))
			return report(symlink(argv[2], argv[3]));
	}
	return usage();
}
