#!/usr/bin/env bash
# Attack: switch the persona to turn off address space randomisation (ADDR_NO_RANDOMIZE) for
# what runs next. The seccomp filter allows only PER_LINUX and the query 0xffffffff.
# Control: with the layers off the persona changes (for the probe alone).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/sysprobe.sh"

checks() {
        denied personality-set EPERM OK
        expect "personality(0xffffffff), the query: OK inside" OK -- personality-query
        expect "personality(PER_LINUX): OK inside" OK -- personality-linux
}
seccomp_main 4 checks
