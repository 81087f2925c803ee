# SPDX-License-Identifier: MIT
# btkit: one non-recursive Makefile for the library, tools, tests, man pages.

CC ?= cc
CFLAGS ?= -O2 -g
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
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

TOOLS := btcapture btcat btdiff btlat btmerge btreplay btsize btslice btsync

LIB_SRC := $(sort $(wildcard lib/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(B)/%.o)
LIBA := $(B)/libbtkit.a
COMMON_OBJ := $(B)/tools/common.o
TOOL_BIN := $(TOOLS:%=$(B)/bin/%)
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
HELPER_SRC := $(sort $(wildcard tests/helpers/*.c))
HELPER_BIN := $(HELPER_SRC:tests/helpers/%.c=$(B)/tests/%)
BENCH_BIN := $(B)/bench/btgen
MAN_PAGES := $(sort $(wildcard man/*.[0-9]))

# Objects built through pattern rules are kept (no rebuild on every make).
.SECONDARY:

.PHONY: all check unit install uninstall deps demo bench fuzz lint-man clean
all: $(TOOL_BIN) $(UNIT_BIN) $(HELPER_BIN) $(BENCH_BIN)

$(B)/%.o: %.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

$(LIBA): $(LIB_OBJ)
	@mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# btreplay and btcapture link liburing/pthreads; the others only libcsv/zlib.
$(B)/bin/%: $(B)/tools/%.o $(COMMON_OBJ) $(LIBA)
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS) $(if $(filter btreplay btcapture,$*),$(URING_LIBS))

$(B)/tests/test_%: $(B)/tests/unit/test_%.o $(LIBA)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lcmocka $(LIBS) $(URING_LIBS)

$(B)/tests/%: $(B)/tests/helpers/%.o $(LIBA)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

$(BENCH_BIN): $(B)/bench/btgen.o $(LIBA)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

check: all
	$(Q)B=$(B) UPDATE=$(UPDATE) tests/run.sh

lint-man:
	$(Q)mandoc -Tlint -Wwarning $(MAN_PAGES)

install: $(TOOL_BIN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7
	install -m 755 $(TOOL_BIN) $(DESTDIR)$(BINDIR)/
	for m in $(MAN_PAGES); do \
		s=$${m##*.}; install -m 644 $$m $(DESTDIR)$(MANDIR)/man$$s/; done

uninstall:
	rm -f $(TOOLS:%=$(DESTDIR)$(BINDIR)/%)
	for m in $(notdir $(MAN_PAGES)); do \
		rm -f $(DESTDIR)$(MANDIR)/man$${m##*.}/$$m; done

DEB_PKGS := build-essential libcsv-dev zlib1g-dev libcmocka-dev liburing-dev \
	blktrace fio mandoc clang libclang-rt-14-dev time util-linux e2fsprogs \
	kmod perl
deps:
	$(Q)tests/deps.sh $(DEB_PKGS)

demo: deps all
	$(Q)B=$(B) tests/demo.sh

bench: all
	$(Q)B=$(B) bench/run.sh

FUZZ_SECONDS ?= 60
fuzz:
	$(Q)FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz/run.sh

clean:
	rm -rf build build-san build-fuzz

-include $(shell find $(B) -name '*.d' 2>/dev/null)
