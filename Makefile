# SPDX-License-Identifier: GPL-2.0
# iolayers: thin wrapper around kbuild and the scripts/ entry points.
#
#   make            build iolayers.ko against KDIR and the reader
#   make check      every test: static checks, reader tests, VM tests on the
#                   stock Debian 6.1 and 6.12 kernels and the debug kernel, KUnit
#   make check-quick  the developer's loop: static checks, the reader's tests
#                   and one boot of 6.1 with the core VM tests
#   make demo       fio's 4 KiB and 128 MiB random reads in a VM: summary, one MISS
#                   read through all five layers, the reader's views, an SVG
#   make bench      overhead against the bpftrace twin and the empty-handler
#                   floor, in one VM boot per kernel
#   make profile    where a cached 4 KiB read's added instructions go, per
#                   kernel function, and the module's self-accounting, in a VM
#   make ab BASE=REV  this tree's module against REV's on cached 4 KiB reads,
#                   in one VM boot
#   make icount     the guest instruction counter (tools/icount: a QEMU
#                   plugin and its guest helper, used by make bench)
#   make install    modules_install into KDIR's tree, the reader into PREFIX/bin
#   make deb        the Debian packages iolayers (reader, man page) and
#                   iolayers-dkms (module sources for DKMS) into dist/, lintian clean
#   make dkms-install  the module's sources into /usr/src/iolayers-VERSION and
#                   dkms add, build and install there (every kernel with headers,
#                   and each new one); make dkms-uninstall takes it out again
#   make clean
#
# KDIR defaults to the running kernel's build tree; where there is none (as on
# hosts without module support), to Debian's 6.1 headers fetched into the
# cache by scripts/fetch-kernel.

KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
	  $(shell $(CURDIR)/scripts/fetch-kernel 6.1)/kdir)
V ?= 0

all: module reader

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) V=$(V) modules

reader:
	$(MAKE) -C userspace V=$(V)

icount:
	$(MAKE) -C tools/icount

check:
	scripts/check

check-quick:
	scripts/check --quick

demo:
	scripts/demo

bench:
	scripts/bench-overhead

profile:
	scripts/profile

ab:
	scripts/ab "$(BASE)"

PREFIX ?= /usr/local
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$$/\1/p' $(CURDIR)/dkms.conf)
DKMS_SRC ?= $(DESTDIR)/usr/src/iolayers-$(VERSION)

install: all
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install
	install -D -m 0755 userspace/iolayers $(DESTDIR)$(PREFIX)/bin/iolayers
	-rst2man Documentation/iolayers.rst >userspace/iolayers.8 && \
		install -D -m 0644 userspace/iolayers.8 $(DESTDIR)$(PREFIX)/share/man/man8/iolayers.8

# What DKMS builds from: Kbuild, dkms.conf and the module's sources, no objects.
dkms-source:
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	cp -R Kbuild dkms.conf module include kunit $(DKMS_SRC)/
	find $(DKMS_SRC) \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \
		-o -name '.*.cmd' -o -name '*.a' \) -delete

# The Debian packages iolayers and iolayers-dkms, into dist/ (scripts/build-deb:
# dpkg-buildpackage and lintian in a bookworm root).
deb:
	scripts/build-deb

dkms-install: dkms-source
	dkms add -m iolayers -v $(VERSION)
	dkms build -m iolayers -v $(VERSION)
	dkms install -m iolayers -v $(VERSION)

dkms-uninstall:
	-dkms remove -m iolayers -v $(VERSION) --all
	rm -rf $(DKMS_SRC)

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null
	$(MAKE) -C userspace clean
	$(MAKE) -C tools/icount clean

.PHONY: all module reader icount check check-quick demo bench profile ab install deb dkms-source dkms-install \
	dkms-uninstall clean
