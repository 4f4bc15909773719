# Convenience entry points; the real build is meson + ninja in $(BUILD).
BUILD ?= build
SANITIZE_BUILD ?= build-asan

.PHONY: all deps test-deps demo install check check-fast clean format

all: deps
	@test -f $(BUILD)/build.ninja || meson setup $(BUILD) >/dev/null
	ninja -C $(BUILD)

deps:
	@scripts/install-deps.sh

test-deps:
	@scripts/install-deps.sh --test

# The binary, libcordon with its headers and libcordon.pc, the man pages, the bash completion
# and the AppArmor profile (put into /etc/apparmor.d and loaded only where AppArmor restricts
# user namespaces: data/apparmor/install-profile.sh). DESTDIR=/staging stages it instead; the
# prefix is the build's (meson configure $(BUILD) -Dprefix=...).
install: all
	@rm -f $(BUILD)/meson-logs/apparmor-install.txt
	meson install -C $(BUILD) --no-rebuild $(if $(DESTDIR),--destdir "$(DESTDIR)")
	@cat $(BUILD)/meson-logs/apparmor-install.txt 2>/dev/null || true

demo: all
	@scripts/demo.sh $(BUILD)/src/cli/cordon

# Every suite against the normal build and an AddressSanitizer+UBSan build, one summary line.
# The sanitizer build is only configured here: run-all.sh builds it while the normal build's
# suites run.
# (-Dtests=enabled: a build dir configured by 'make demo' before Criterion was installed must
# not quietly lose its unit tests.)
check: test-deps
	@$(call setup,$(BUILD),,-Dwerror=true)
	@ninja -C $(BUILD) >/dev/null
	@$(call setup,$(SANITIZE_BUILD),,-Db_sanitize=address$(comma)undefined -Db_lundef=false)
	@tests/run-all.sh $(BUILD) $(SANITIZE_BUILD)

check-fast: test-deps
	@$(call setup,$(BUILD),,-Dwerror=true)
	@ninja -C $(BUILD) >/dev/null
	@tests/run-all.sh $(BUILD)

# (a comma inside a $(call) argument would split it: UBSan was lost that way once)
comma := ,
# setup DIR, OPTIONS, BOTH: configure DIR with the tests enabled (and the BOTH options), whether
# new or configured before; OPTIONS only for a new one. The normal build is the gcc build at the
# default optimisation with -Werror: tests/run-all.sh counts it as that warnings check.
setup = if test -f $(1)/build.ninja; then meson configure $(1) -Dtests=enabled $(3) >/dev/null; \
	else meson setup $(1) -Dtests=enabled $(2) $(3) >/dev/null; fi

format:
	clang-format -i $$(git ls-files '*.c' '*.cc' '*.h')

clean:
	rm -rf $(BUILD) $(SANITIZE_BUILD)
