# Convenience entry points; the real build is meson + ninja in $(BUILD).
BUILD ?= build
SANITIZE_BUILD ?= build-asan

.PHONY: all deps test-deps demo check check-asan clean format

all: deps
	@test -f $(BUILD)/build.ninja || meson setup $(BUILD) >/dev/null
	ninja -C $(BUILD)

deps:
	@scripts/install-deps.sh

test-deps:
	@scripts/install-deps.sh --test

demo: all
	@scripts/demo.sh $(BUILD)/src/cli/cordon

check: test-deps
	@test -f $(BUILD)/build.ninja || meson setup $(BUILD) >/dev/null
	@ninja -C $(BUILD) >/dev/null
	@tests/run-all.sh $(BUILD)

check-asan: test-deps
	@test -f $(SANITIZE_BUILD)/build.ninja || meson setup $(SANITIZE_BUILD) -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
	@ninja -C $(SANITIZE_BUILD) >/dev/null
	@ASAN_OPTIONS=detect_leaks=0 tests/run-all.sh $(SANITIZE_BUILD)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(SANITIZE_BUILD)
