# Convenience entry points; the real build is meson + ninja in $(BUILD).
BUILD ?= build
SANITIZE_BUILD ?= build-asan

.PHONY: all deps test-deps demo check check-fast clean format

all: deps
	@test -f $(BUILD)/build.ninja || meson setup $(BUILD) >/dev/null
	ninja -C $(BUILD)

deps:
	@scripts/install-deps.sh

test-deps:
	@scripts/install-deps.sh --test

demo: all
	@scripts/demo.sh $(BUILD)/src/cli/cordon

# Every suite against the normal build and an AddressSanitizer+UBSan build, one summary line.
check: test-deps
	@test -f $(BUILD)/build.ninja || meson setup $(BUILD) >/dev/null
	@ninja -C $(BUILD) >/dev/null
	@test -f $(SANITIZE_BUILD)/build.ninja || meson setup $(SANITIZE_BUILD) -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
	@ninja -C $(SANITIZE_BUILD) >/dev/null
	@tests/run-all.sh $(BUILD) $(SANITIZE_BUILD)

check-fast: test-deps
	@test -f $(BUILD)/build.ninja || meson setup $(BUILD) >/dev/null
	@ninja -C $(BUILD) >/dev/null
	@tests/run-all.sh $(BUILD)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(SANITIZE_BUILD)
