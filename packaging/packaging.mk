# Packages: `make rpm`, `make deb` (small config), KCONFIG=debian for
# Debian's full config.  Included by the top-level Makefile, whose BUILD,
# KSRC, TARBALL, KCONFIG, JOBS and FRAGMENT it uses.  Packages land in
# $(PKGOUT)/rpm and $(PKGOUT)/deb, and are rebuilt only when an input
# changes (packaging/build-package.sh keeps the stamp).
#
# Keys: MODSECKEY=... MODPUBKEY=... on the command line or in the
# environment, or neither for an ephemeral key made by the kernel build;
# MODPUBKEY_EXTRA=... with either, for further public keys the kernel
# trusts (a DKMS key).
# Signing off the build host: MODPUBKEY=... MODSIGN_PKG_MANIFEST=FILE (the
# unsigned build), then also MODSIGN_PKG_SIGNATURES=DIR (the signed build);
# see packaging/README.md.

PKGOUT ?= $(VBUILD)/packages/$(KCONFIG)

pkg-env = TOP=$(CURDIR) TARBALL=$(TARBALL) KVER=$(KVER) KCONFIG=$(KCONFIG) JOBS=$(JOBS) \
	FRAGMENT=$(FRAGMENT) KSRC=$(KSRC) \
	$(if $(MODSECKEY),MODSECKEY=$(MODSECKEY)) $(if $(MODPUBKEY),MODPUBKEY=$(MODPUBKEY)) \
	$(if $(MODPUBKEY_EXTRA),MODPUBKEY_EXTRA="$(MODPUBKEY_EXTRA)") \
	$(if $(MODSIGN_PKG_MANIFEST),MODSIGN_PKG_MANIFEST=$(MODSIGN_PKG_MANIFEST)) \
	$(if $(MODSIGN_PKG_SIGNATURES),MODSIGN_PKG_SIGNATURES=$(MODSIGN_PKG_SIGNATURES))

.PHONY: rpm deb packages

# rpmbuild starts from the tarball and kbuild-patches/$(KVER) itself.
rpm: deps
	$(pkg-env) packaging/build-package.sh rpm $(PKGOUT)/rpm

# dpkg-buildpackage builds from the source package it makes first: the
# tarball and kbuild-patches/$(KVER) as debian/patches.
deb: deps
	$(pkg-env) packaging/build-package.sh deb $(PKGOUT)/deb

packages: rpm deb
