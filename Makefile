# kvmprof top-level build.
#
#   make          build every program (lib, kvmprof, guestfs-mount, tests)
#   make check    install what is missing, build, run every test suite
#   make unit     the same for the unit tests only
#   make demo     install what is missing, build, run the main job on a default
#   make check SANITIZE=1   unit tests under ASan + UBSan
#   make install  kvmprof, guestfs-mount, their unit, man pages, completion,
#                 examples (PREFIX=/usr/local, DESTDIR); make uninstall
#
# Slow artifacts (kernel build, libguestfs appliance, Debian kernel packages,
# disk images) are cached outside the repository in $(KVMPROF_CACHE), keyed by
# their inputs; nothing depends on the cache being warm.

KVMPROF_CACHE ?= /var/cache/kvmprof
# V=1 shows full commands.
ifeq ($(V),1)
Q =
say = @true
else
Q = @
say = @printf '  %-6s %s\n'
endif
export KVMPROF_CACHE

# The release: VERSION is its one source. version.c alone is built with it,
# for kvmprof --version, guestfs-mount --version and the perf.data VERSION
# feature record writes; the Debian package checks its changelog against it.
VERSION := $(shell cat VERSION)
VERSION_DEF = -DKP_VERSION='"$(VERSION)"'

CC      ?= cc
CLANG   ?= clang
SANITIZE ?= 0

ifeq ($(SANITIZE),1)
BUILD   ?= build-san
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
else
BUILD   ?= build
SANFLAGS =
endif

# liblzma, libbz2 and liblzo2 are loaded on first use (lib/ksym/codecs.h):
# the programs do not link them. Unit tests that make such streams do.
PKGS_LINKED := libelf zlib libzstd liblz4 fuse3 libguestfs libselinux
PKGS       := $(PKGS_LINKED) liblzma
PKG_CFLAGS  = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS    = $(shell pkg-config --libs $(PKGS_LINKED) 2>/dev/null) -liberty
CODEC_LIBS  = -llzma -lbz2 -llzo2

WARN    = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	  -Wno-unused-parameter
CFLAGS ?= -O2 -g
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 $(WARN) $(CPPFLAGS) $(CFLAGS) \
	     $(SANFLAGS) -Ilib -Iprof $(PKG_CFLAGS) -MMD -MP
LDFLAGS_ALL = $(SANFLAGS) $(LDFLAGS)

LIB_SRC   := $(sort $(wildcard lib/*/*.c))
PROF_SRC  := $(sort $(wildcard prof/*.c))
MOUNT_SRC := $(sort $(wildcard guestfs-mount/*.c))
UNIT_SRC  := $(sort $(wildcard tests/unit/test_*.c))
FUZZ_SRC  := $(sort $(wildcard tests/fuzz/fuzz_*.c))
BENCH_SRC := $(sort $(wildcard bench/bench_*.c))

LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o)
PROF_OBJ  := $(PROF_SRC:%.c=$(BUILD)/%.o)
# Not $(BUILD)/guestfs-mount/: that path is the daemon's binary.
MOUNT_OBJ := $(MOUNT_SRC:guestfs-mount/%.c=$(BUILD)/mount-obj/%.o)
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%) $(BUILD)/tests/test_kallsyms_words
FUZZ_BIN  := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)

LIBKVMPROF := $(BUILD)/libkvmprof.a
KVMPROF    := $(BUILD)/kvmprof
GUESTFS_MOUNT := $(BUILD)/guestfs-mount

PROGRAMS := $(KVMPROF) $(if $(MOUNT_SRC),$(GUESTFS_MOUNT))

# The tiny purpose-built guest for the QEMU harness: a VMM and its payload.
TINYVM := $(BUILD)/tinyvm/tinyvmm $(BUILD)/tinyvm/payload.elf $(BUILD)/tinyvm/payload.map \
	  $(BUILD)/guestctx/guestctx-check $(BUILD)/guestctx/kvm-guest-regs

.PHONY: all deps check unit integration fuzz demo bench clean kernel appliance \
	format policy programs install uninstall FORCE
.DEFAULT_GOAL := all

all: programs $(UNIT_BIN) $(BENCH_BIN) $(TINYVM)

# What make install installs, and nothing the tests alone need.
programs: $(PROGRAMS) $(BUILD)/guestfs-mount.service

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(say) CC $<
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/mount-obj/%.o: guestfs-mount/%.c
	@mkdir -p $(dir $@)
	$(say) CC $<
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# Only version.o is built with the release, so a new one rebuilds one file.
$(BUILD)/lib/base/version.o: ALL_CFLAGS += $(VERSION_DEF)
$(BUILD)/lib/base/version.o: VERSION

$(LIBKVMPROF): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(say) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^

$(KVMPROF): $(PROF_OBJ) $(LIBKVMPROF)
	$(say) LD $@
	$(Q)$(CC) -o $@ $(PROF_OBJ) $(LIBKVMPROF) $(LDFLAGS_ALL) $(PKG_LIBS)

$(GUESTFS_MOUNT): $(MOUNT_OBJ) $(LIBKVMPROF)
	$(say) LD $@
	$(Q)$(CC) -o $@ $(MOUNT_OBJ) $(LIBKVMPROF) $(LDFLAGS_ALL) $(PKG_LIBS)

$(BUILD)/tests/%: tests/unit/%.c $(LIBKVMPROF)
	@mkdir -p $(dir $@)
	$(say) TEST $@
	$(Q)$(CC) $(ALL_CFLAGS) -Wno-missing-prototypes -o $@ $< $(LIBKVMPROF) \
		$(LDFLAGS_ALL) $(PKG_LIBS) $(CODEC_LIBS) -lcmocka

# The kallsyms parser's word-at-a-time path, which machines without SSE2
# take: test_kallsyms again, against the parser built without it.
$(BUILD)/tests/kallsyms_words.o: lib/ksym/kallsyms.c
	@mkdir -p $(dir $@)
	$(say) CC $@
	$(Q)$(CC) $(ALL_CFLAGS) -U__SSE2__ -c -o $@ $<
$(BUILD)/tests/test_kallsyms_words: tests/unit/test_kallsyms.c $(BUILD)/tests/kallsyms_words.o \
				    $(LIBKVMPROF)
	$(say) TEST $@
	$(Q)$(CC) $(ALL_CFLAGS) -Wno-missing-prototypes -o $@ $< $(BUILD)/tests/kallsyms_words.o \
		$(LIBKVMPROF) $(LDFLAGS_ALL) $(PKG_LIBS) $(CODEC_LIBS) -lcmocka

# Unit tests of the profiler's own parts link its objects, all but main().
PROF_LIB_OBJ := $(filter-out $(BUILD)/prof/main.o,$(PROF_OBJ))
PROF_TESTS := $(BUILD)/tests/test_session $(BUILD)/tests/test_report_escapes \
	      $(BUILD)/tests/test_reboot $(BUILD)/tests/test_top $(BUILD)/tests/test_stat \
	      $(BUILD)/tests/test_perfdata_limits $(BUILD)/tests/test_exits \
	      $(BUILD)/tests/test_export $(BUILD)/tests/test_diff \
	      $(BUILD)/tests/test_callchain $(BUILD)/tests/test_output \
	      $(BUILD)/tests/test_guest_rows $(BUILD)/tests/test_sample_classes \
	      $(BUILD)/tests/test_hist_sort
$(PROF_TESTS): $(BUILD)/tests/%: tests/unit/%.c $(PROF_LIB_OBJ) $(LIBKVMPROF)
	@mkdir -p $(dir $@)
	$(say) TEST $@
	$(Q)$(CC) $(ALL_CFLAGS) -Wno-missing-prototypes -o $@ $< $(PROF_LIB_OBJ) $(LIBKVMPROF) \
		$(LDFLAGS_ALL) $(PKG_LIBS) $(CODEC_LIBS) -lcmocka

# Unit tests of the daemon's parts link its objects, all but main(): no FUSE
# mount and no appliance is needed to run them.
MOUNT_LIB_OBJ := $(filter-out $(BUILD)/mount-obj/main.o,$(MOUNT_OBJ))
$(BUILD)/tests/test_gm_%: tests/unit/test_gm_%.c $(MOUNT_LIB_OBJ) $(LIBKVMPROF)
	@mkdir -p $(dir $@)
	$(say) TEST $@
	$(Q)$(CC) $(ALL_CFLAGS) -Iguestfs-mount -Wno-missing-prototypes -o $@ $< $(MOUNT_LIB_OBJ) \
		$(LIBKVMPROF) $(LDFLAGS_ALL) $(PKG_LIBS) $(CODEC_LIBS) -lcmocka

$(BUILD)/bench/%: bench/%.c $(LIBKVMPROF)
	@mkdir -p $(dir $@)
	$(say) BENCH $@
	$(Q)$(CC) $(ALL_CFLAGS) -Wno-missing-prototypes -o $@ $< $(LIBKVMPROF) $(LDFLAGS_ALL) \
		$(PKG_LIBS)

$(BUILD)/tinyvm/tinyvmm: tests/qemu/tinyvm/tinyvmm.c
	@mkdir -p $(dir $@)
	$(say) CC $@
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) -o $@ $<

# Checks the kernel series' per-sample guest context inside L1.
$(BUILD)/guestctx/guestctx-check: tests/qemu/guestctx/guestctx-check.c
	@mkdir -p $(dir $@)
	$(say) CC $@
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) -o $@ $<

# Reads a running guest's registers through lib/kvmdebugfs inside L1.
$(BUILD)/guestctx/kvm-guest-regs: tests/qemu/guestctx/kvm-guest-regs.c $(LIBKVMPROF)
	@mkdir -p $(dir $@)
	$(say) CC $@
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(LIBKVMPROF) $(LDFLAGS_ALL) $(PKG_LIBS)

$(BUILD)/tinyvm/payload.elf: tests/qemu/tinyvm/payload.S tests/qemu/tinyvm/payload.lds
	@mkdir -p $(dir $@)
	$(say) AS $@
	$(Q)$(CC) -c -o $(BUILD)/tinyvm/payload.o $<
	$(Q)ld -T tests/qemu/tinyvm/payload.lds -o $@ $(BUILD)/tinyvm/payload.o

# The payload's System.map: its symbols at their (unrelocated) addresses.
$(BUILD)/tinyvm/payload.map: $(BUILD)/tinyvm/payload.elf
	$(Q)nm -n $< | grep -v ' [aA] ' >$@

# libFuzzer targets: clang. The library is built once for fuzzing (coverage
# and sanitizers, no libFuzzer main) into its own archive, which every target
# links: compiling the library again for each target took five minutes.
FUZZ_CFLAGS = -std=c11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -g -O1 -Ilib $(VERSION_DEF) \
	      $(PKG_CFLAGS) -Wall -Wextra -Werror -Wno-unused-parameter
FUZZ_SAN   = -fsanitize=address,undefined
FUZZ_LIB_SRC := $(LIB_SRC) guestfs-mount/grub.c guestfs-mount/bls.c
FUZZ_OBJ   := $(FUZZ_LIB_SRC:%.c=$(BUILD)/fuzz-obj/%.o)
FUZZ_LIB   := $(BUILD)/libkvmprof-fuzz.a

$(BUILD)/fuzz-obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(say) FUZZCC $<
	$(Q)$(CLANG) $(FUZZ_CFLAGS) $(FUZZ_SAN),fuzzer-no-link -MMD -MP -c -o $@ $<

$(BUILD)/fuzz-obj/lib/base/version.o: VERSION

$(FUZZ_LIB): $(FUZZ_OBJ)
	$(say) AR $@
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/fuzz/%: tests/fuzz/%.c $(FUZZ_LIB)
	@mkdir -p $(dir $@)
	$(say) FUZZ $@
	$(Q)$(CLANG) $(FUZZ_CFLAGS) $(FUZZ_SAN),fuzzer -Iguestfs-mount -MMD -MP -o $@ $< \
		$(FUZZ_LIB) $(PKG_LIBS)

fuzz: $(FUZZ_BIN)

# Dependencies: Debian packages, then the fixed libguestfs appliance.
deps:
	@scripts/deps.sh

appliance: deps
	@scripts/appliance.sh

kernel: deps
	@kernel/build.sh

# The set-up targets build with every core unless make was given -j itself.
NPROC := $(shell nproc 2>/dev/null || echo 1)
SUBMAKE = $(MAKE) --no-print-directory $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(NPROC))

# Slow inputs of the tests are prepared first (each is a no-op when cached):
# the libguestfs appliance, Debian kernel packages, the project's kernel.
check: deps
	@$(SUBMAKE) all fuzz
	@scripts/appliance.sh
	@scripts/fetch-debian-kernels.sh
	@kernel/build.sh
	@tests/run-tests.sh $(BUILD)

# The unit tests need some of the same inputs (README.md, "Test inputs"): the
# tools scripts/deps.sh installs, and Debian's and the project's kernels that
# tests/unit/test_kimage_real.c decodes. Prepared here so that a fresh machine fails
# no test for want of them; each step is a no-op when its result is cached.
unit: deps
	@$(SUBMAKE) all
	@scripts/fetch-debian-kernels.sh
	@kernel/build.sh
	@tests/run-tests.sh --unit-only $(BUILD)

demo: deps
	@$(SUBMAKE) all
	@scripts/demo.sh $(BUILD)

# The benchmarks' slow inputs, as for check: each is a no-op when cached.
bench: deps
	@$(SUBMAKE) all
	@scripts/appliance.sh
	@scripts/fetch-debian-kernels.sh
	@kernel/build.sh
	@bench/run.sh $(BUILD)

policy:
	@$(MAKE) --no-print-directory -C policy

# Every C source and header, as tests/integration/24-format.sh checks them.
format:
	find lib prof guestfs-mount bench tests -name '*.[ch]' -exec clang-format -i {} +

clean:
	rm -rf build build-san
	@$(MAKE) --no-print-directory -C policy clean

# --- install --------------------------------------------------------------------
#
#   make install [PREFIX=/usr/local] [DESTDIR=]     make uninstall (the same)
#
# The programs' built-in paths (/etc/kvmprof, /var/lib/guests, the cache) do
# not move with PREFIX: they are in lib/guest/layout.h.
PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
# guestfs-mount is a daemon only root runs.
SBINDIR     ?= $(PREFIX)/sbin
MANDIR      ?= $(PREFIX)/share/man
DOCDIR      ?= $(PREFIX)/share/doc/kvmprof
EXAMPLEDIR  ?= $(DOCDIR)/examples
SELINUXDIR  ?= $(PREFIX)/share/selinux/packages
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
SYSCONFDIR  ?= /etc
# systemd's own folder for /usr (Debian 12: /lib/systemd/system); else the
# prefix's, which systemd reads for /usr/local.
ifeq ($(PREFIX),/usr)
UNITDIR ?= $(or $(shell pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null),/lib/systemd/system)
else
UNITDIR ?= $(PREFIX)/lib/systemd/system
endif

# Every page in man/ is built and installed: a new command's page is one file.
MAN_PAGES   := $(sort $(wildcard man/*.[1-8]))
COMPLETIONS := completion/kvmprof completion/guestfs-mount
EXAMPLES    := guestfs-mount/guests.conf policy/access.conf
DOCS        := README.md ARCHITECTURE.md SECURITY.md
# Installed into $(SYSCONFDIR)/kvmprof only when absent: never over an
# administrator's file. guests.conf is not: the example's guests are not
# this host's, and the unit starts only once a guests.conf exists.
CONFS       := policy/access.conf
SELINUX_PP  := policy/kvmprof.pp

man_dest = $(MANDIR)/man$(patsubst .%,%,$(suffix $(1)))/$(notdir $(1))
# Every file install may write (the SELinux module when it was built).
INSTALLED = $(BINDIR)/kvmprof $(SBINDIR)/guestfs-mount $(UNITDIR)/guestfs-mount.service \
	    $(foreach p,$(MAN_PAGES),$(call man_dest,$(p))) \
	    $(addprefix $(BASHCOMPDIR)/,$(notdir $(COMPLETIONS))) \
	    $(addprefix $(EXAMPLEDIR)/,$(notdir $(EXAMPLES))) \
	    $(addprefix $(DOCDIR)/,$(DOCS) README.guestfs-mount.md README.policy.md) \
	    $(SELINUXDIR)/kvmprof.pp

# The paths generated files name, rewritten only when they change: building
# for one PREFIX and installing for another regenerates the unit.
$(BUILD)/install-paths: FORCE
	@mkdir -p $(dir $@)
	@echo 'SBINDIR=$(SBINDIR)' >$@.new
	@cmp -s $@.new $@ && rm -f $@.new || mv -f $@.new $@

# The unit as shipped names /usr/sbin/guestfs-mount; this one names SBINDIR.
$(BUILD)/guestfs-mount.service: guestfs-mount/guestfs-mount.service $(BUILD)/install-paths
	$(say) GEN $@
	$(Q)sed 's|/usr/sbin/guestfs-mount|$(SBINDIR)/guestfs-mount|g' $< >$@

install: programs
	install -D -m 0755 $(KVMPROF) $(DESTDIR)$(BINDIR)/kvmprof
	install -D -m 0755 $(GUESTFS_MOUNT) $(DESTDIR)$(SBINDIR)/guestfs-mount
	install -D -m 0644 $(BUILD)/guestfs-mount.service \
		$(DESTDIR)$(UNITDIR)/guestfs-mount.service
	set -e; for p in $(MAN_PAGES); do \
		install -D -m 0644 $$p $(DESTDIR)$(MANDIR)/man$${p##*.}/$${p##*/}; done
	set -e; for f in $(COMPLETIONS); do \
		install -D -m 0644 $$f $(DESTDIR)$(BASHCOMPDIR)/$${f##*/}; done
	set -e; for f in $(EXAMPLES); do \
		install -D -m 0644 $$f $(DESTDIR)$(EXAMPLEDIR)/$${f##*/}; done
	set -e; for f in $(DOCS); do install -D -m 0644 $$f $(DESTDIR)$(DOCDIR)/$$f; done
	install -D -m 0644 guestfs-mount/README.md $(DESTDIR)$(DOCDIR)/README.guestfs-mount.md
	install -D -m 0644 policy/README.md $(DESTDIR)$(DOCDIR)/README.policy.md
	if [ -f $(SELINUX_PP) ]; then \
		install -D -m 0644 $(SELINUX_PP) $(DESTDIR)$(SELINUXDIR)/kvmprof.pp; fi
	set -e; for f in $(CONFS); do t=$(DESTDIR)$(SYSCONFDIR)/kvmprof/$${f##*/}; \
		[ -e $$t ] || install -D -m 0644 $$f $$t; done

# Removes what install wrote; a configuration file only while it is still the
# one shipped, and folders of kvmprof's own only when they are empty.
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	for f in $(CONFS); do t=$(DESTDIR)$(SYSCONFDIR)/kvmprof/$${f##*/}; \
		! cmp -s $$f $$t || rm -f $$t; done
	for d in $(EXAMPLEDIR) $(DOCDIR) $(SYSCONFDIR)/kvmprof; do \
		[ ! -d $(DESTDIR)$$d ] || rmdir --ignore-fail-on-non-empty $(DESTDIR)$$d; done

FORCE:

-include $(LIB_OBJ:.o=.d) $(PROF_OBJ:.o=.d) $(MOUNT_OBJ:.o=.d) $(UNIT_BIN:=.d) $(BENCH_BIN:=.d) \
	 $(FUZZ_OBJ:.o=.d) $(FUZZ_BIN:=.d) $(BUILD)/tests/kallsyms_words.d
