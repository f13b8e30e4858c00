# SPDX-License-Identifier: GPL-2.0
#
# sbd - build against a kernel's headers (Kbuild does the real work).
#
#   make                   build sbd.ko for the running kernel
#   make KDIR=/path        build against other headers
#   make clean
#   make demo              boot a VM and show sbd at work (as root)
#   make test              run the whole test suite in VMs (as root)

KDIR ?= /lib/modules/$(shell uname -r)/build

all: modules

modules clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) $@

demo:
	scripts/demo.sh

test:
	scripts/run-tests.sh

.PHONY: all modules clean demo test
