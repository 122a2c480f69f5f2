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
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdbool.h>
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
	      "  reconfigure DIR KEY VALUE        fspick(2) DIR, set KEY to VALUE\n"
	      "                                   (the flag KEY if VALUE is \"\")\n"
	      "                                   and reconfigure (fsconfig(2))\n"
	      "  umount DIR\n"
	      "  create PATH | mkdir PATH | rmdir PATH | unlink PATH\n"
	      "  rename OLD NEW | link OLD NEW | symlink TARGET PATH\n"
	      "  mknod PATH | chmod PATH | chown PATH | truncate PATH\n"
	      "  setxattr PATH | utimes PATH | open-write PATH\n"
	      "  read PATH                        read(2) it whole\n"
	      "  consistent PATH                  read it whole, a byte at a time,\n"
	      "                                   with pread at every offset and\n"
	      "                                   past the end: same content?\n"
	      "  consistent-live PATH             the same for a file of one line\n"
	      "                                   per task, whose tasks come and\n"
	      "                                   go: every line of two whole reads\n"
	      "                                   is in 1- and 7-byte reads\n"
	      "  seekdir DIR OFFSET               lseek(2) the directory to OFFSET\n"
	      "                                   and print how many entries\n"
	      "                                   getdents64(2) then returns\n"
	      "  dir-resume DIR                   list it one entry a getdents64(2);\n"
	      "                                   then, on another descriptor, seek\n"
	      "                                   to each entry's d_off: is the next\n"
	      "                                   entry there? No name twice?\n"
	      "  inodes DIR                       print \"NAME D_INO ST_INO\" for\n"
	      "                                   each entry of DIR but . and ..\n"
	      "                                   (readdir's d_ino, then fstatat's)\n",
	      stderr);
	return 2;
}

/* Reconfigure the super block of DIR with the new mount API alone. */
static int reconfigure(const char *dir, const char *key, const char *value)
{
	int fd = fspick(AT_FDCWD, dir, FSPICK_CLOEXEC);

	if (fd < 0)
		return -1;
	if ((*value ? fsconfig(fd, FSCONFIG_SET_STRING, key, value, 0) :
		      fsconfig(fd, FSCONFIG_SET_FLAG, key, NULL, 0)) < 0 ||
	    fsconfig(fd, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0) < 0) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	return close(fd);
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

/* Read @fd from its offset to the end, @chunk bytes a call, into @buf. */
static ssize_t read_chunks(int fd, char *buf, size_t size, size_t chunk)
{
	size_t len = 0;
	ssize_t n;

	while (len < size) {
		n = read(fd, buf + len, chunk < size - len ? chunk : size - len);
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		len += n;
	}
	return len;
}

/*
 * Whether every way of reading a file gives the same bytes: one big read,
 * 1-byte reads, a 1-byte pread at every offset, and reads past the end,
 * which must give 0 bytes. Prints "OK", an errno name, or what differs.
 */
static int do_consistent(const char *path)
{
	static char whole[1 << 16], bytes[1 << 16];
	ssize_t len, len1, i;
	char c;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return report(-1);
	len = read_chunks(fd, whole, sizeof(whole), sizeof(whole));
	if (len < 0)
		return report(-1);
	if (lseek(fd, 0, SEEK_SET) != 0)
		return report(-1);
	len1 = read_chunks(fd, bytes, sizeof(bytes), 1);
	if (len1 < 0)
		return report(-1);
	if (len1 != len || memcmp(whole, bytes, len)) {
		printf("1-byte reads differ: %zd bytes, not %zd\n", len1, len);
		return 1;
	}
	for (i = 0; i < len; i++) {
		if (pread(fd, &c, 1, i) != 1 || c != whole[i]) {
			printf("pread at offset %zd differs\n", i);
			return 1;
		}
	}
	if (pread(fd, bytes, 16, len) != 0 || pread(fd, bytes, 16, len + 4096) != 0 ||
	    lseek(fd, len + 100, SEEK_SET) != len + 100 || read(fd, bytes, 16) != 0) {
		printf("reading past the end gives data\n");
		return 1;
	}
	if (len && whole[len - 1] != '\n') {
		printf("does not end in a newline\n");
		return 1;
	}
	close(fd);
	printf("OK\n");
	return 0;
}

/* Read @path whole, @chunk bytes a call, into @buf; -1 on error. */
static ssize_t read_path(const char *path, char *buf, size_t size,
			 size_t chunk)
{
	int fd = open(path, O_RDONLY);
	ssize_t len;
	char c;

	if (fd < 0)
		return -1;
	len = read_chunks(fd, buf, size, chunk);
	if (len >= 0 && read(fd, &c, 1) != 0)
		len = -2;	/* more than fits, or data past the end */
	close(fd);
	return len;
}

/*
 * Whether @buf holds whole lines whose first fields are numbers in strictly
 * increasing order (a record per task, by PID). Prints what is wrong.
 */
static bool ordered_lines(const char *what, const char *buf, ssize_t len)
{
	long long last = 0, nr;
	const char *p = buf, *end = buf + len;
	char *num_end;

	if (len && buf[len - 1] != '\n') {
		printf("%s: does not end in a newline\n", what);
		return false;
	}
	while (p < end) {
		nr = strtoll(p, &num_end, 10);
		if (num_end == p || nr <= last) {
			printf("%s: line at offset %td is out of order or no record\n",
			       what, p - buf);
			return false;
		}
		last = nr;
		p = memchr(p, '\n', end - p) + 1;
	}
	return true;
}

/* Whether @line, @n bytes ending in a newline, is a line of @buf. */
static bool has_line(const char *buf, ssize_t len, const char *line,
		     ssize_t n)
{
	const char *p = buf, *end = buf + len;

	while (p < end && (p = memmem(p, end - p, line, n))) {
		if (p == buf || p[-1] == '\n')
			return true;
		p++;
	}
	return false;
}

/* Whether every line of @a that is also in @b is in @c. */
static bool has_common_lines(const char *what, const char *a, ssize_t alen,
			     const char *b, ssize_t blen, const char *c,
			     ssize_t clen)
{
	const char *p, *nl, *end = a + alen;

	for (p = a; p < end; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if (has_line(b, blen, p, nl - p + 1) &&
		    !has_line(c, clen, p, nl - p + 1)) {
			printf("%s: a line of both whole reads is missing: %.*s\n",
			       what, (int)(nl - p), p);
			return false;
		}
	}
	return true;
}

/*
 * do_consistent() for a file of one record per task: its content changes
 * whenever a task starts or exits, so the reads cannot be compared whole.
 * Every read must be whole lines in PID order, and every line of two whole
 * reads, one before and one after, must be in the 1-byte and 7-byte reads.
 */
static int do_consistent_live(const char *path)
{
	static char first[1 << 20], last[1 << 20], bytes[1 << 20];
	static const size_t chunks[] = { 1, 7 };
	ssize_t flen, llen, blen;
	char what[32];
	size_t i;

	flen = read_path(path, first, sizeof(first), sizeof(first));
	for (i = 0; i < 2; i++) {
		if (flen < 0)
			break;
		blen = read_path(path, bytes, sizeof(bytes), chunks[i]);
		llen = read_path(path, last, sizeof(last), sizeof(last));
		if (blen < 0 || llen < 0) {
			flen = blen < 0 ? blen : llen;
			break;
		}
		snprintf(what, sizeof(what), "%zu-byte reads", chunks[i]);
		if (!ordered_lines("one read", first, flen) ||
		    !ordered_lines(what, bytes, blen) ||
		    !has_common_lines(what, first, flen, last, llen, bytes,
				      blen))
			return 1;
	}
	if (flen == -2) {
		printf("larger than 1 MiB, or data past the end\n");
		return 1;
	}
	if (flen < 0)
		return report(-1);
	printf("OK\n");
	return 0;
}

static int do_seekdir(const char *path, const char *offset)
{
	long long want = strtoll(offset, NULL, 0);
	char buf[4096];
	long n, entries = 0;
	int fd;

	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || lseek(fd, want, SEEK_SET) != want)
		return report(-1);
	while ((n = getdents64(fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n; entries++)
			off += ((struct dirent64 *)(buf + off))->d_reclen;
	}
	if (n < 0)
		return report(-1);
	printf("OK %ld\n", entries);
	close(fd);
	return 0;
}

static int do_inodes(const char *path)
{
	struct dirent *de;
	struct stat st;
	DIR *d;

	d = opendir(path);
	if (!d)
		return report(-1);
	while ((errno = 0, de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			return report(-1);
		printf("%s %llu %llu\n", de->d_name,
		       (unsigned long long)de->d_ino,
		       (unsigned long long)st.st_ino);
	}
	if (errno)
		return report(-1);
	closedir(d);
	return 0;
}

/* A getdents64(2) buffer that holds one entry of a namespacefs directory. */
#define ONE_ENTRY	40
#define MAX_ENTRIES	4096

/* Read one entry from @fd: its name into @name, its d_off; 0 at the end. */
static int read_one(int fd, char *name, size_t size, long long *d_off)
{
	char buf[ONE_ENTRY] __attribute__((aligned(8)));
	long n = getdents64(fd, buf, sizeof(buf));

	if (n <= 0)
		return n;
	memcpy(d_off, buf + offsetof(struct dirent64, d_off), sizeof(*d_off));
	snprintf(name, size, "%.*s", (int)(n - offsetof(struct dirent64, d_name)),
		 buf + offsetof(struct dirent64, d_name));
	return 1;
}

static int do_dir_resume(const char *path)
{
	static char names[MAX_ENTRIES][64];
	static long long offs[MAX_ENTRIES];
	char name[64];
	long long off;
	int fd, fd2, i, j, n = 0, ret;

	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fd2 = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fd2 < 0)
		return report(-1);
	while (n < MAX_ENTRIES &&
	       (ret = read_one(fd, names[n], sizeof(names[n]), &offs[n])) > 0)
		n++;
	if (ret < 0)
		return report(-1);
	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(names[i], names[j])) {
				printf("TWICE %s\n", names[i]);
				return 1;
			}
	for (i = 0; i < n; i++) {
		if (lseek(fd2, offs[i], SEEK_SET) != offs[i])
			return report(-1);
		ret = read_one(fd2, name, sizeof(name), &off);
		if (ret < 0)
			return report(-1);
		if (i + 1 < n ? ret == 0 || strcmp(name, names[i + 1]) :
				ret != 0) {
			printf("AFTER %s: %s, not %s\n", names[i],
			       ret ? name : "(end)",
			       i + 1 < n ? names[i + 1] : "(end)");
			return 1;
		}
	}
	printf("OK %d\n", n);
	close(fd);
	close(fd2);
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
	if (!strcmp(op, "reconfigure") && argc == 5)
		return report(reconfigure(argv[2], argv[3], argv[4]));
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
	if (!strcmp(op, "consistent"))
		return do_consistent(argv[2]);
	if (!strcmp(op, "consistent-live"))
		return do_consistent_live(argv[2]);
	if (!strcmp(op, "dir-resume"))
		return do_dir_resume(argv[2]);
	if (!strcmp(op, "inodes"))
		return do_inodes(argv[2]);
	if (argc >= 4) {
		if (!strcmp(op, "seekdir"))
			return do_seekdir(argv[2], argv[3]);
		if (!strcmp(op, "rename"))
			return report(rename(argv[2], argv[3]));
		if (!strcmp(op, "link"))
			return report(link(argv[2], argv[3]));
		if (!strcmp(op, "symlink"))
			return report(symlink(argv[2], argv[3]));
	}
	return usage();
}
