# SPDX-License-Identifier: GPL-2.0
#
# sbd - build against a kernel's headers (Kbuild does the real work).
#
#   make                   build sbd.ko for the running kernel
#   make KDIR=/path        build against other headers
#   make clean
#   make install           install into /lib/modules/RELEASE/extra, run depmod,
#                          and make install-explore
#                          (INSTALL_MOD_PATH=/staging/root honoured)
#   make install-explore   sbd-explore (with its helpers sbd-statehash and
#                          sbd-import) into SBINDIR, its workloads into
#                          EXPLORE_SHARE/workloads
#                          (PREFIX/sbin and PREFIX/share/sbd/explore, PREFIX
#                          /usr/local by default); no kernel headers needed
#   make uninstall         remove it all again, run depmod
#   make uninstall-explore remove what install-explore installed
#   make lint              checkpatch, sparse and W=1 on all kernels (as root)
#   make demo              boot a VM and show sbd at work (as root)
#   make test              run the whole test suite in VMs (as root)

KDIR ?= /lib/modules/$(shell uname -r)/build

# Without headers kbuild would stop with a bare "No such file or
# directory"; say what is missing instead, but only for the targets that
# run kbuild in KDIR (lint, demo and test bring their own kernels, and
# clean needs none).
ifneq ($(filter all modules install,$(or $(MAKECMDGOALS),all)),)
ifeq ($(wildcard $(KDIR)/Makefile),)
ifeq ($(origin KDIR),file)
$(error sbd: no kernel headers at $(KDIR): install linux-headers-$(shell uname -r) (Debian/Ubuntu) or kernel-devel (Fedora), or pass KDIR=/path/to/headers)
else
$(error sbd: no kernel headers at $(KDIR): KDIR= must name a kernel build tree, one with a Makefile)
endif
endif
endif

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) $@

# What a build leaves here, as kbuild's own "clean" removes it; done
# without kbuild, so that it works with no headers installed (after
# they were removed, or on a machine that never had them).
CLEAN_FILES := *.o .*.o *.ko *.ko.* *.mod *.mod.c *.symtypes *.dwo *.su \
	*.lst *.gcno .*.cmd .*.d .*.tmp Module.symvers Module.markers \
	modules.order modules.nsdeps compile_commands.json sbd-statehash sbd-import

clean:
	rm -rf .tmp_versions .thinlto-cache $(CLEAN_FILES)

# The release KDIR's kernel reports (uname -r), which need not be the
# running one.  Debian's include/config/kernel.release says "6.1.192"
# where the modules live in 6.1.0-NN-amd64: read UTS_RELEASE instead.
KVER ?= $(shell awk -F'"' '/UTS_RELEASE/ { print $$2 }' \
	$(KDIR)/include/generated/utsrelease.h 2>/dev/null || uname -r)
# kbuild runs in KDIR: hand it an absolute staging root.
DESTROOT := $(if $(INSTALL_MOD_PATH),$(abspath $(INSTALL_MOD_PATH)),/)
MODDIR := $(patsubst //%,/%,$(DESTROOT)/lib/modules/$(KVER))

# Distribution kernels sign modules at install (CONFIG_MODULE_SIG_ALL)
# with a key only their build machines hold; without it kbuild prints SSL
# errors and installs the module unsigned anyway.  Skip the attempt when
# the key is absent; with your own kernel's key, sbd is signed as usual.
SIGKEY := $(shell sed -n 's/^CONFIG_MODULE_SIG_KEY="\(.*\)"/\1/p' $(KDIR)/.config 2>/dev/null)
NOSIGN := $(if $(filter pkcs11:%,$(SIGKEY))$(wildcard $(KDIR)/$(SIGKEY) $(SIGKEY)),,CONFIG_MODULE_SIG_ALL=)

# The crash explorer, its state hasher and its built-in workloads go
# next to the module, when this is a clone (a release tarball of the
# module alone has none of them).  The installed sbd-explore is told
# where its workloads are (the line EXPLORE_SHARE=, without the staging
# root).
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
EXPLORE_SHARE ?= $(PREFIX)/share/sbd/explore
EXPLORE_DIR := $(patsubst //%,/%,$(DESTROOT)$(SBINDIR))
EXPLORE_LIB := $(patsubst //%,/%,$(DESTROOT)$(EXPLORE_SHARE))
EXPLORE := $(wildcard explore/sbd-explore)
# Its helpers, one C file each: sbd-statehash, sbd-import.
EXPLORE_PROGS := $(patsubst explore/%.c,%,$(wildcard explore/*.c))
WORKLOADS := $(wildcard explore/workloads/README explore/workloads/*.sh)

install: modules install-explore
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_DIR=extra $(NOSIGN) \
		$(if $(INSTALL_MOD_PATH),INSTALL_MOD_PATH=$(DESTROOT)) modules_install
	depmod -b $(DESTROOT) $(KVER)

install-explore:
ifneq ($(EXPLORE),)
	install -d $(EXPLORE_DIR) $(EXPLORE_LIB)/workloads
	sed 's|^EXPLORE_SHARE=.*|EXPLORE_SHARE=$(EXPLORE_SHARE)|' $(EXPLORE) > $(EXPLORE_DIR)/sbd-explore
	chmod 0755 $(EXPLORE_DIR)/sbd-explore
	install -m 0644 $(WORKLOADS) $(EXPLORE_LIB)/workloads/
endif
	for p in $(EXPLORE_PROGS); do \
		$(CC) -O2 -Wall -o $$p explore/$$p.c && \
		install -D -m 0755 $$p $(EXPLORE_DIR)/$$p || exit 1; \
	done

uninstall: uninstall-explore
	rm -f $(foreach s,.ko .ko.xz .ko.gz .ko.zst,$(MODDIR)/extra/sbd$(s))
	depmod -b $(DESTROOT) $(KVER)

uninstall-explore:
	rm -f $(EXPLORE_DIR)/sbd-explore $(addprefix $(EXPLORE_DIR)/,$(EXPLORE_PROGS)) \
		$(addprefix $(EXPLORE_LIB)/workloads/,$(notdir $(WORKLOADS)))
	rmdir $(EXPLORE_LIB)/workloads $(EXPLORE_LIB) $(dir $(EXPLORE_LIB)) 2>/dev/null || true

lint:
	scripts/lint.sh

demo:
	scripts/demo.sh

test:
	scripts/run-tests.sh

.PHONY: all modules clean install install-explore uninstall uninstall-explore lint demo test
