# namespacefs: kernel source + series + config -> bzImage; tools + tests +
# rootfs -> initramfs; QEMU -> TAP. `make help` lists the targets.
#
# The work is done by the scripts in tools/pipeline/ (tools/README.md says
# what each folder of tools/ holds) and guest-rootfs/; each phase does
# nothing when its inputs did not change.

SHELL := /bin/bash
.DEFAULT_GOAL := help
.NOTPARALLEL:
MAKEFLAGS += --no-print-directory

P := tools/pipeline

# Command-line settings are handed to the scripts through the environment,
# unexpanded ($(value ...)) and single-quoted, so that CMD='echo $$HOME'
# reaches the guest as written.
quote = '$(subst ','\'',$(1))'
guest_env = NSFS_TESTS=$(call quote,$(value TESTS)) \
	NSFS_CMD=$(call quote,$(value CMD)) \
	NSFS_BATS_ARGS=$(call quote,$(value BATS_ARGS)) \
	NSFS_TIMEOUT=$(call quote,$(TIMEOUT)) \
	NSFS_KVM=$(call quote,$(KVM))

check_kernel = $(or $(KERNEL),debug)

# host_tests NAME,SCRIPT: run a host-side suite with a bound on its time,
# its log in build/NAME-tests.log.
host_tests = timeout -k 10 900 $(2) >build/$(1)-tests.log 2>&1 && \
	echo "==> host tests of $(1): $$(tail -n 1 build/$(1)-tests.log) (log: build/$(1)-tests.log)" || \
	{ tail -n 30 build/$(1)-tests.log; echo "==> host tests of $(1) failed or timed out: see build/$(1)-tests.log"; exit 1; }
run_kernel = $(or $(KERNEL),lean)
run_mode = $(if $(value CMD),cmd,run)

.PHONY: help check run bench check-series series deps tree kernel tools initramfs lint install apply-series clean distclean

help:
	@echo 'Targets:'
	@echo '  make check       build everything that changed, boot the debug kernel, run the bats suite'
	@echo '  make run         build the lean kernel and boot it to a shell, namespacefs mounted'
	@echo '  make bench       benchmarks on the lean kernel and the same kernel unpatched (build/bench/)'
	@echo '  make check-series  build and boot the kernel after each patch, with each namespace type off, and the KCSAN kernel under stress (slow)'
	@echo '  make series      write the commits of build/linux since base to series/'
	@echo '  make lint        checkpatch --strict, kernel-doc -Wall and a W=1 C=2 (sparse) build of the series'
	@echo '  make deps        install the Debian packages that are missing (apt-get)'
	@echo '  make tree        extract the kernel into build/linux and apply series/'
	@echo '  make kernel      configure and build the kernel (KERNEL=debug by default)'
	@echo '  make tools       build lsnamespaces and the guest'"'"'s test programs (tools/guest/) into build/tools/'
	@echo '  make initramfs   build the guest root file system, build/initramfs.cpio.gz'
	@echo '  make install     install lsnamespaces and its man page (PREFIX=/usr/local, DESTDIR)'
	@echo '  make apply-series KTREE=DIR  apply series/ to your own 6.12 tree (APPLY_ARGS="--commit --config")'
	@echo '  make clean       remove the build output but keep the kernel tree build/linux'
	@echo '  make distclean   remove build/, the kernel tree included'
	@echo 'Settings:'
	@echo '  TESTS="PATH ..." make check: run these bats files and directories instead of the suite'
	@echo '  BATS_ARGS="..."  make check: more bats options, e.g. BATS_ARGS="--filter uts"'
	@echo "  CMD='...'        make run: run this command in the guest, print its output, exit with its status"
	@echo '  KERNEL=debug|lean|unpatched|kcsan  the kernel to build and boot (check: debug, run: lean)'
	@echo '  TIMEOUT=SECONDS  kill a check or CMD run after this long (3600)'
	@echo '  KVM=1            use -accel kvm instead of tcg'
	@echo '  FORCE=1          make distclean: remove build/linux even if it holds work not in series/'
	@echo 'Exit status of the guest run, which make reports as "Error N" (make itself exits 2):'
	@echo '  1 a test failed, no test ran, or the guest ended early (CMD: the command'"'"'s status)'
	@echo '  2 the guest timed out;  3 the console shows a kernel splat (see build/run/console.log)'

deps:
	@$(P)/deps.sh

tree: deps
	@$(P)/prepare-tree.sh

kernel: tree
	@$(P)/build-kernel.sh $(check_kernel)

tools:
	@$(P)/deps.sh --tools
	@$(P)/build-tools.sh

initramfs: tree tools
	@guest-rootfs/build.sh

lint: deps
	@$(P)/prepare-tree.sh
	@$(P)/lint.sh

check: deps
	@$(P)/prepare-tree.sh
	@$(P)/build-kernel.sh $(check_kernel)
	@$(P)/lint.sh
	@$(P)/build-tools.sh
	@$(call host_tests,lsnamespaces,tools/lsnamespaces/tests/run.sh)
	@$(call host_tests,pipeline,tools/pipeline/tests/run.sh)
	@$(P)/build-selftests.sh
	@guest-rootfs/build.sh
	@$(guest_env) $(P)/guest-run.sh check $(check_kernel)

run: deps
	@$(P)/prepare-tree.sh
	@$(P)/build-kernel.sh $(run_kernel)
	@$(P)/build-tools.sh
	@guest-rootfs/build.sh
	@$(guest_env) $(P)/guest-run.sh $(run_mode) $(run_kernel)

bench:
	@$(P)/deps.sh gnuplot-nox
	@$(P)/prepare-tree.sh
	@tools/bench/bench.sh

check-series: deps
	@$(P)/prepare-tree.sh
	@$(P)/check-series.sh

series:
	@$(P)/series.sh

# The administrator's tool on a real machine: it needs no namespacefs
# (--proc), only libsmartcols and libmount.
PREFIX ?= /usr/local
install:
	@pkg-config --exists smartcols mount || \
		{ echo 'make install: needs libsmartcols and libmount (Debian: apt-get install libsmartcols-dev libmount-dev pkg-config gcc)'; exit 1; }
	@$(P)/build-tools.sh
	install -D -m 0755 build/tools/host/lsnamespaces $(DESTDIR)$(PREFIX)/bin/lsnamespaces
	install -D -m 0644 tools/lsnamespaces/lsnamespaces.8 $(DESTDIR)$(PREFIX)/share/man/man8/lsnamespaces.8

# The series onto a kernel tree of your own, for a real machine
# (docs/real-machines.md).
apply-series:
	@test -n "$(KTREE)" || { echo 'make apply-series: give KTREE=DIR, a Linux 6.12.y tree (APPLY_ARGS="--commit --config" to commit and configure)'; exit 1; }
	@tools/install/apply-series.sh $(APPLY_ARGS) $(call quote,$(KTREE))

clean:
	@$(P)/clean.sh

distclean:
	@$(P)/clean.sh --all
