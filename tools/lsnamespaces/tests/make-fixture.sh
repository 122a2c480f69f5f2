#!/bin/bash
# make-fixture.sh DIR: build in DIR a directory tree that looks like a
# namespacefs mount, for testing nsfs on a machine without namespacefs.
#
# Two "containers": web1 (pid 4026532290, user 4026532300) and db1 (pid
# 4026532295 nested in web1's, user 4026532310 nested in web1's user
# namespace), an empty pid namespace and a mount namespace without processes.
# PIDs start at 5000000, above any pid_max, so that no real process matches.
# Run as root, the files of namespaces owned by the nested user namespaces
# belong to uid 65534, as namespacefs would show them; otherwise everything
# belongs to the caller.
set -euo pipefail

if (($# != 1)); then
	echo "usage: $0 DIR" >&2
	exit 2
fi
root=$1
rm -rf "$root"
mkdir -p "$root"

P=50000
as_root=
if [[ $(id -u) == 0 ]]; then
	as_root=1
fi

# ns DIR ID INUM OWNER-LINK UID PID... : a namespace directory with the
# files every namespace has. OWNER-LINK "-" makes no owner link.
ns() {
	local dir=$root/$1 id=$2 inum=$3 owner=$4 uid=$5 pid
	shift 5
	mkdir -p "$dir"
	echo "$id" >"$dir/id"
	echo "$inum" >"$dir/inum"
	: >"$dir/procs"
	: >"$dir/tasks"
	for pid in "$@"; do
		echo "$P$pid" >>"$dir/procs"
		echo "$P$pid" >>"$dir/tasks"
	done
	[[ $owner == - ]] || ln -s "$owner" "$dir/owner"
	echo "$uid" >"$dir/.uid"
}

# put DIR FILE LINE... : a file of the namespace in DIR, one LINE a line.
put() {
	local dir=$root/$1 file=$2
	shift 2
	printf '%s\n' "$@" >"$dir/$file"
}

# user: the mounter's, web1's and db1's nested in it.
ns user 1 4026531837 - 0 001 002 003
put user uid_map "         0          0 4294967295"
put user gid_map "         0          0 4294967295"
put user projid_map "         0          0 4294967295"
put user creator 0
put user level 0
put user setgroups allow
ns user/4026532300 20 4026532300 - 65534 010 011
put user/4026532300 uid_map "         0      65534          1"
put user/4026532300 gid_map "         0      65534          1"
put user/4026532300 projid_map "         0          0 4294967295"
put user/4026532300 creator 65534
put user/4026532300 level 1
put user/4026532300 setgroups deny
ns user/4026532300/4026532310 21 4026532310 - 65534 020
put user/4026532300/4026532310 uid_map "         0      65534          1" "         1     100000      65536"
put user/4026532300/4026532310 gid_map "         0      65534          1"
put user/4026532300/4026532310 projid_map "         0          0 4294967295"
put user/4026532300/4026532310 creator 65534
put user/4026532300/4026532310 level 2
put user/4026532300/4026532310 setgroups deny

# pid: web1's with db1's nested, and one without processes.
ns pid 2 4026531836 ../user 0 001 002 003
put pid level 0
put pid reaper "${P}001"
ns pid/4026532290 30 4026532290 ../../user/4026532300 65534 010 011
put pid/4026532290 level 1
put pid/4026532290 reaper "${P}010"
ns pid/4026532290/4026532295 31 4026532295 ../../../user/4026532300/4026532310 65534 020
put pid/4026532290/4026532295 level 2
put pid/4026532290/4026532295 reaper "${P}020"
ns pid/4026532299 32 4026532299 ../../user 0
put pid/4026532299 level 1
put pid/4026532299 reaper 0

# uts: the host's, web1's, db1's.
ns uts 3 4026531838 ../user 0 001 002 003
put uts hostname host0
put uts domainname "(none)"
put uts uname "Linux host0 6.12.0 #1 SMP PREEMPT_DYNAMIC x86_64 (none)"
ns uts/4026532301 40 4026532301 ../../user/4026532300 65534 010 011
put uts/4026532301 hostname web1
put uts/4026532301 domainname "(none)"
put uts/4026532301 uname "Linux web1 6.12.0 #1 SMP PREEMPT_DYNAMIC x86_64 (none)"
ns uts/4026532302 41 4026532302 ../../user/4026532300/4026532310 65534 020
put uts/4026532302 hostname db1
put uts/4026532302 domainname example.org
put uts/4026532302 uname "Linux db1 6.12.0 #1 SMP PREEMPT_DYNAMIC x86_64 example.org"

# ipc, mnt, net, cgroup: web1 has its own, db1 shares the host's.
ns ipc 4 4026531839 ../user 0 001 002 003 020
put ipc msg_queues 0
put ipc sem_arrays 1
put ipc shm_segments 2
put ipc mq_queues 0
ns ipc/4026532303 42 4026532303 ../../user/4026532300 65534 010 011
put ipc/4026532303 msg_queues 1
put ipc/4026532303 sem_arrays 0
put ipc/4026532303 shm_segments 0
put ipc/4026532303 mq_queues 3

ns mnt 5 4026531840 ../user 0 001 002 003 020
put mnt mounts 25
put mnt mntns_id 100
ns mnt/4026532304 43 4026532304 ../../user/4026532300 65534 010 011
put mnt/4026532304 mounts 12
put mnt/4026532304 mntns_id 101
ns mnt/4026532305 44 4026532305 ../../user/4026532300 65534
put mnt/4026532305 mounts 1
put mnt/4026532305 mntns_id 102

ns net 6 4026531833 ../user 0 001 002 003 020
put net cookie 1
put net devices "1 lo up" "2 eth0 up" "3 docker0 down"
ns net/4026532306 45 4026532306 ../../user/4026532300 65534 010 011
put net/4026532306 cookie 4097
put net/4026532306 devices "1 lo up" "2 eth0 up"

ns cgroup 7 4026531835 ../user 0 001 002 003 020
put cgroup root /
ns cgroup/4026532307 46 4026532307 ../../user/4026532300 65534 010 011
put cgroup/4026532307 root /machine/web1

# time: db1 runs a day ahead, with boot time a little behind.
ns time 8 4026531834 ../user 0 001 002 003 010 011
put time offsets "monotonic           0         0" "boottime            0         0"
ns time/4026532308 47 4026532308 ../../user/4026532300/4026532310 65534 020
put time/4026532308 offsets "monotonic       86400         0" "boottime           -5 250000000"

# Modes and owners as namespacefs has them.
find "$root" -name .uid | while read -r f; do
	dir=${f%/.uid}
	uid=$(<"$f")
	rm "$f"
	for file in "$dir"/*; do
		[[ -f $file && ! -L $file ]] || continue
		chmod 0440 "$file"
		if [[ $as_root ]]; then
			chown "$uid:$uid" "$file"
		fi
	done
done
find "$root" -type d -exec chmod 0555 {} +
