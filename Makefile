# SPDX-License-Identifier: MIT
# btkit: one non-recursive Makefile for the library, tools, tests, man pages.

CC ?= cc
CFLAGS ?= -O2 -g
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
MANDIR ?= $(PREFIX)/share/man
DESTDIR ?=

override CFLAGS += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wformat=2 \
	-Wmissing-prototypes -Iinclude -MMD -MP
ifeq ($(WERROR),1)
override CFLAGS += -Werror
endif

# Sanitised builds live apart so objects never mix.
ifeq ($(SANITIZE),1)
B := build-san
override CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined
override LDFLAGS += -fsanitize=address,undefined
else
B := build
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif

LIBS := -lcsv -lz
URING_LIBS := -luring -lpthread
# What the shared library itself links (replay and capture use io_uring).
SO_LIBS := $(LIBS) $(URING_LIBS)

TOOLS := btcapture btcat btdiff btlat btmerge btplot btreplay btsize btslice btsync

LIB_SRC := $(sort $(wildcard lib/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(B)/%.o)
LIBA := $(B)/libbtkit.a
# The shared library's objects are position-independent and kept apart, so
# the static library and the tools keep their non-PIC code.
PIC_OBJ := $(LIB_SRC:%.c=$(B)/pic/%.o)
SO_MAJOR := 0
SO_VERSION := $(shell sed -n 's/^\#define BT_VERSION "\(.*\)"/\1/p' include/btkit.h)
SONAME := libbtkit.so.$(SO_MAJOR)
LIBSO := $(B)/libbtkit.so.$(SO_VERSION)
# Generated from include/btkit.h: exactly its functions are exported.
LIBMAP := $(B)/btkit.map
COMMON_OBJ := $(B)/tools/common.o
TOOL_BIN := $(TOOLS:%=$(B)/bin/%)
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
HELPER_SRC := $(sort $(wildcard tests/helpers/*.c))
HELPER_BIN := $(HELPER_SRC:tests/helpers/%.c=$(B)/tests/%)
EXAMPLE_SRC := $(sort $(wildcard examples/*.c))
EXAMPLE_BIN := $(EXAMPLE_SRC:examples/%.c=$(B)/examples/%)
BENCH_BIN := $(B)/bench/btgen $(B)/bench/btread
MAN_PAGES := $(sort $(wildcard man/*.[0-9]))

# Objects built through pattern rules are kept (no rebuild on every make).
.SECONDARY:

.PHONY: all check unit install uninstall deps demo pictures bench fuzz lint-man clean
# The library and the tools only: tests (cmocka), helpers, examples and the
# bench generator are built by the targets that run them.
all: $(TOOL_BIN) $(LIBA) $(B)/libbtkit.so

$(B)/%.o: %.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(B)/pic/%.o: %.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC [PIC] $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -c -o $@ $<

# bt_tracker_feed() tests the common actions by a chain of compares, most
# frequent first, which GCC would turn back into a jump table whose
# indirect jump mispredicts on interleaved streams (bench/PROFILE.md).
$(B)/lib/track.o $(B)/pic/lib/track.o: CFLAGS += -fno-jump-tables

$(LIBA): $(LIB_OBJ)
	@mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(LIBMAP): include/btkit.h lib/btkit.map.awk
	@mkdir -p $(@D)
	$(Q)awk -f lib/btkit.map.awk include/btkit.h >$@.tmp && mv $@.tmp $@

$(LIBSO): $(PIC_OBJ) $(LIBMAP)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(SONAME) \
		-Wl,--version-script=$(LIBMAP) -Wl,--no-undefined \
		-o $@ $(PIC_OBJ) $(SO_LIBS) $(LDLIBS)

# The links a dynamic linker (soname) and a linker (-lbtkit) look for.
$(B)/$(SONAME): $(LIBSO)
	$(Q)ln -sf $(notdir $<) $@
$(B)/libbtkit.so: $(B)/$(SONAME)
	$(Q)ln -sf $(notdir $<) $@

# btreplay and btcapture link liburing/pthreads; the others only libcsv/zlib.
$(B)/bin/%: $(B)/tools/%.o $(COMMON_OBJ) $(LIBA)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS) $(if $(filter btreplay btcapture,$*),$(URING_LIBS)) $(LDLIBS)

# Tests and helpers link the tools' plumbing as the tools do.
$(B)/tests/test_%: $(B)/tests/unit/test_%.o $(COMMON_OBJ) $(LIBA)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lcmocka $(LIBS) $(URING_LIBS) $(LDLIBS)

$(B)/tests/%: $(B)/tests/helpers/%.o $(COMMON_OBJ) $(LIBA)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS) $(LDLIBS)

# Examples are programs on the shared library, as a user would build them;
# the run path finds the build tree's copy.
$(B)/examples/%: examples/%.c $(B)/libbtkit.so
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< -L$(B) -lbtkit \
		-Wl,-rpath,$(CURDIR)/$(B) $(LDLIBS)

$(BENCH_BIN): $(B)/bench/%: $(B)/bench/%.o $(LIBA)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS) $(LDLIBS)

check: all $(UNIT_BIN) $(HELPER_BIN) $(EXAMPLE_BIN) $(BENCH_BIN)
	$(Q)B=$(B) UPDATE=$(UPDATE) tests/run.sh

# The cmocka unit tests alone.
unit: $(UNIT_BIN)
	$(Q)B=$(B) ONLY='^unit/' tests/run.sh

lint-man:
	$(Q)mandoc -Tlint -Wwarning $(MAN_PAGES)

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) \
		$(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 \
		$(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7
	install -m 755 $(TOOL_BIN) $(DESTDIR)$(BINDIR)/
	install -m 644 include/btkit.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(LIBA) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(LIBSO) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(LIBSO)) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libbtkit.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(SO_VERSION)|' \
		-e 's|@LIBS@|$(SO_LIBS)|' btkit.pc.in \
		>$(DESTDIR)$(PKGCONFIGDIR)/btkit.pc
	for m in $(MAN_PAGES); do \
		s=$${m##*.}; install -m 644 $$m $(DESTDIR)$(MANDIR)/man$$s/; done

uninstall:
	rm -f $(TOOLS:%=$(DESTDIR)$(BINDIR)/%)
	rm -f $(DESTDIR)$(INCLUDEDIR)/btkit.h $(DESTDIR)$(LIBDIR)/libbtkit.a \
		$(DESTDIR)$(LIBDIR)/$(notdir $(LIBSO)) \
		$(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libbtkit.so \
		$(DESTDIR)$(PKGCONFIGDIR)/btkit.pc
	for m in $(notdir $(MAN_PAGES)); do \
		rm -f $(DESTDIR)$(MANDIR)/man$${m##*.}/$$m; done

DEB_PKGS := build-essential libcsv-dev zlib1g-dev libcmocka-dev liburing-dev \
	blktrace fio mandoc clang libclang-rt-14-dev time util-linux e2fsprogs \
	kmod perl pkg-config librsvg2-bin libxml2-utils python3 chromium
deps:
	$(Q)tests/deps.sh $(DEB_PKGS)

demo: deps all
	$(Q)B=$(B) tests/demo.sh

# The pictures sample-traces/README.md shows, one per btplot kind.
pictures: all
	$(Q)B=$(B) tests/pictures.sh

bench: all $(BENCH_BIN)
	$(Q)B=$(B) bench/run.sh

FUZZ_SECONDS ?= 60
fuzz:
	$(Q)FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz/run.sh

clean:
	rm -rf build build-san build-fuzz

-include $(shell find $(B) -name '*.d' 2>/dev/null)
