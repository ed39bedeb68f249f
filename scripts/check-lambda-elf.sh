#!/usr/bin/env bash
# Checks that an ELF executable can start on Lambda's provided.al2023 runtime, whatever machine
# built it (the auditwheel idea, for our one binary):
#
#   scripts/check-lambda-elf.sh BINARY        exit 0 and one line "… ok for provided.al2023", or
#                                             exit 1 naming each symbol@version or library too new
#   scripts/check-lambda-elf.sh --self-test   proves the check fails where it must (needs cc)
#
# provided.al2023 (Amazon Linux 2023) has glibc 2.34 and gcc 11's libstdc++ and libgcc_s. A binary
# linked on a newer system (Debian 12 has glibc 2.36) can ask the loader for a newer version of a
# symbol (hypotf@GLIBC_2.35) and then fails at every cold start with "version `GLIBC_2.35' not
# found", before any of our code runs. So the binary may need:
#   - no library but glibc's own and libstdc++ / libgcc_s, and the matching program interpreter;
#   - no symbol version newer than GLIBC_2.34, GLIBCXX_3.4.29, CXXABI_1.3.13 or GCC_11 (gcc 11);
#   - nothing for another machine than x86_64 or aarch64 (Lambda's two), read from the ELF header.
# A statically linked binary needs none of these and passes. Only binutils is used: readelf -h/-l/-d
# for the header, interpreter and DT_NEEDED; objdump -T for the symbols and their versions; and
# readelf -V for versions required with no symbol (e.g. GLIBC_ABI_DT_RELR).
set -euo pipefail

readonly GLIBC_MAX=2.34 GLIBCXX_MAX=3.4.29 CXXABI_MAX=1.3.13 GCC_MAX=11.99
readonly ALLOWED_LIBRARIES=(libc.so.6 libm.so.6 libpthread.so.0 libdl.so.2 librt.so.1 libutil.so.1
    ld-linux-x86-64.so.2 ld-linux-aarch64.so.1 libstdc++.so.6 libgcc_s.so.1)

usage() {
    echo "usage: $0 BINARY | --self-test" >&2
    exit 2
}

# Whether version A ≤ version B (dotted numbers; sort -V orders 2.2.5 < 2.17 < 2.34 correctly).
version_le() {
    [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -1)" = "$1" ]
}

# Prints why VERSION (GLIBC_2.35, GLIBCXX_3.4.30, GLIBC_PRIVATE, …) is too new for AL2023, or nothing.
too_new() {
    local version=$1
    case $version in
        GLIBC_[0-9]*)
            version_le "${version#GLIBC_}" "$GLIBC_MAX" || echo "provided.al2023's glibc is $GLIBC_MAX" ;;
        GLIBCXX_[0-9]*)
            version_le "${version#GLIBCXX_}" "$GLIBCXX_MAX" ||
                echo "provided.al2023's libstdc++ (gcc 11) stops at GLIBCXX_$GLIBCXX_MAX" ;;
        CXXABI_TM_1 | CXXABI_FLOAT128) ;; # both in gcc 11's libstdc++
        CXXABI_[0-9]*)
            version_le "${version#CXXABI_}" "$CXXABI_MAX" ||
                echo "provided.al2023's libstdc++ (gcc 11) stops at CXXABI_$CXXABI_MAX" ;;
        GCC_[0-9]*)
            version_le "${version#GCC_}" "$GCC_MAX" || echo "provided.al2023's libgcc_s is gcc 11's" ;;
        *) echo "no library of provided.al2023 defines it" ;; # GLIBC_PRIVATE, GLIBC_ABI_DT_RELR, …
    esac
}

check() {
    local binary=$1 name header machine arch interpreter expected_interpreter
    name=$(basename "$binary")
    [ -f "$binary" ] || { echo "error: $binary: no such file" >&2; return 2; }
    header=$(readelf -h "$binary" 2>/dev/null) || { echo "error: $binary: not an ELF file" >&2; return 1; }
    machine=$(sed -n 's/^ *Machine: *//p' <<<"$header")
    case $machine in
        *X86-64*) arch=x86_64 expected_interpreter=/lib64/ld-linux-x86-64.so.2 ;;
        *AArch64*) arch=aarch64 expected_interpreter=/lib/ld-linux-aarch64.so.1 ;;
        *)
            echo "$name: FAIL: built for $machine; Lambda runs x86_64 and arm64 (aarch64) only" >&2
            return 1
            ;;
    esac
    grep -q 'Class: *ELF64' <<<"$header" || { echo "$name: FAIL: not a 64-bit ELF file" >&2; return 1; }

    local problems=() library
    interpreter=$(readelf -l "$binary" | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
    if [ -n "$interpreter" ] && [ "$interpreter" != "$expected_interpreter" ]; then
        problems+=("program interpreter $interpreter (provided.al2023's $arch loader is $expected_interpreter)")
    fi

    local needed
    needed=$(readelf -d "$binary" | sed -n 's/.*(NEEDED) *Shared library: \[\(.*\)\]$/\1/p')
    for library in $needed; do
        case " ${ALLOWED_LIBRARIES[*]} " in
            *" $library "*) ;;
            *) problems+=("library $library (not on provided.al2023, which has glibc's, libstdc++.so.6 and libgcc_s.so.1)") ;;
        esac
    done

    # Which library each required version is asked of (readelf -V, "File: libm.so.6" then "Name: GLIBC_2.35").
    local -A from=()
    if [ -n "$needed" ]; then
        while read -r library version; do
            from[$version]="${from[$version]:+${from[$version]},}$library"
        done < <(readelf -V -W "$binary" | awk '/File:/ { for (i = 1; i < NF; i++) if ($i == "File:") file = $(i + 1) }
                                                /  Name:/ { for (i = 1; i < NF; i++) if ($i == "Name:") print file, $(i + 1) }')
    fi

    # objdump -T: "0000… DF *UND* 0000… (GLIBC_2.35) hypotf" (the parentheses only on some versions of
    # binutils). Undefined symbols are what the binary asks of its libraries.
    local symbols version symbol reason family
    local -A newest=()
    if [ -n "$needed" ]; then
        symbols=$(objdump -T "$binary" 2>/dev/null) ||
            { echo "error: objdump -T cannot read $binary (a binutils for $arch is needed)" >&2; return 2; }
    else
        symbols=""
    fi
    local -A seen=()
    while read -r version symbol; do
        [ -n "$version" ] || continue
        seen[$version]=1
        reason=$(too_new "$version")
        if [ -n "$reason" ]; then
            problems+=("$symbol@$version${from[$version]:+ from ${from[$version]}} ($reason)")
        elif [[ $version =~ ^(GLIBC|GLIBCXX|CXXABI|GCC)_([0-9.]+)$ ]]; then
            family=${BASH_REMATCH[1]}
            if [ -z "${newest[$family]:-}" ] || ! version_le "${BASH_REMATCH[2]}" "${newest[$family]#"${family}"_}"; then
                newest[$family]=$version
            fi
        fi
    done < <(awk '$0 ~ /\*UND\*/ && NF >= 2 {
                 version = $(NF - 1); gsub(/[()]/, "", version)
                 if (version ~ /^[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9._]+$/) print version, $NF
             }' <<<"$symbols" | sort -u)

    # The loader checks every version the binary lists as needed, even one no symbol uses.
    for version in "${!from[@]}"; do
        [ -n "${seen[$version]:-}" ] && continue
        reason=$(too_new "$version")
        if [ -n "$reason" ]; then problems+=("version $version required from ${from[$version]} ($reason)"); fi
    done

    if [ ${#problems[@]} -gt 0 ]; then
        echo "$name: FAIL: $arch binary needs what provided.al2023 lacks; it would not start on Lambda:" >&2
        printf '  %s\n' "${problems[@]}" >&2
        return 1
    fi
    if [ -z "$needed" ]; then
        echo "$name: $arch, statically linked: ok for provided.al2023"
        return 0
    fi
    local newest_list=()
    for family in GLIBC GLIBCXX CXXABI GCC; do
        [ -n "${newest[$family]:-}" ] && newest_list+=("${newest[$family]}")
    done
    echo "$name: $arch, needs glibc ≤ $GLIBC_MAX (newest versions: ${newest_list[*]:-none}; libraries: $(echo $needed)): ok for provided.al2023"
}

# Builds small binaries that are known to be too new or known to be fine, and checks that the
# check says so: each case can fail, and a broken check makes --self-test exit 1.
self_test() {
    command -v cc >/dev/null 2>&1 || { echo "error: --self-test needs a C compiler (cc)" >&2; return 2; }
    local work failures=0 output
    work=$(mktemp -d)
    trap 'rm -rf "$work"' RETURN

    expect() { # expect pass|fail BINARY [TEXT…]: the check's verdict, and what its message names
        local verdict=$1 binary=$2 status=0 text
        shift 2
        output=$(check "$binary" 2>&1) || status=$?
        if { [ "$verdict" = pass ] && [ $status -ne 0 ]; } || { [ "$verdict" = fail ] && [ $status -ne 1 ]; }; then
            echo "self-test: FAIL: expected $(basename "$binary") to $verdict (exit $status):" >&2
            echo "$output" | sed 's/^/  /' >&2
            failures=$((failures + 1))
            return
        fi
        for text in "$@"; do
            if ! grep -qF -- "$text" <<<"$output"; then
                echo "self-test: FAIL: the message for $(basename "$binary") does not name $text:" >&2
                echo "$output" | sed 's/^/  /' >&2
                failures=$((failures + 1))
            fi
        done
        echo "$output" | sed 's/^/self-test: /'
    }

    cat >"$work/old.c" <<'C'
#include <stdio.h>
int main(void) { puts("hello"); return 0; }
C
    cc -o "$work/old-symbols" "$work/old.c"
    if objdump -T "$work/old-symbols" | grep -q 'GLIBC_2\.3[5-9]\|GLIBC_2\.[4-9][0-9]'; then
        echo "self-test: note: this C library marks even puts() newer than $GLIBC_MAX; skipping the pass case" >&2
    else
        expect pass "$work/old-symbols" "ok for provided.al2023"
    fi

    # hypotf calls the new hypotf@GLIBC_2.35 on any glibc ≥ 2.35 (as on Debian 12, and as in our zip
    # before the compat shim): the real case, when the host's libm has it.
    cat >"$work/hypotf.c" <<'C'
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) { printf("%g\n", hypotf(strtof(argc > 1 ? argv[1] : "3", 0), 4.0f)); return 0; }
C
    cc -O2 -o "$work/hypotf-host" "$work/hypotf.c" -lm
    if objdump -T "$work/hypotf-host" | grep -q 'GLIBC_2\.35.*hypotf'; then
        expect fail "$work/hypotf-host" "hypotf@GLIBC_2.35"
    else
        echo "self-test: note: this libm's hypotf is older than GLIBC_2.35; the stub libm below stands for it"
    fi

    # The same program against stubs that carry the versions of newer systems, whatever this host
    # has: a libm.so.6 with hypotf@GLIBC_2.35, a libstdc++.so.6 at gcc 12's GLIBCXX_3.4.30, and a
    # library Lambda does not have. Nothing runs them; only their ELF headers are read.
    mkdir -p "$work/stub"
    printf 'GLIBC_2.35 { global: hypotf; local: *; };\n' >"$work/stub/libm.map"
    printf 'float hypotf(float x, float y) { return x + y; }\n' >"$work/stub/libm.c"
    cc -shared -fPIC -Wl,-soname,libm.so.6 -Wl,--version-script="$work/stub/libm.map" \
        -o "$work/stub/libm.so.6" "$work/stub/libm.c" -nostdlib
    cc -O2 -o "$work/hypotf-stub" "$work/hypotf.c" "$work/stub/libm.so.6"
    expect fail "$work/hypotf-stub" "hypotf@GLIBC_2.35" "glibc is $GLIBC_MAX"

    printf 'GLIBCXX_3.4.30 { global: inkra_new_in_gcc12; local: *; };\n' >"$work/stub/libstdcxx.map"
    printf 'int inkra_new_in_gcc12(void) { return 12; }\n' >"$work/stub/libstdcxx.c"
    cc -shared -fPIC -Wl,-soname,libstdc++.so.6 -Wl,--version-script="$work/stub/libstdcxx.map" \
        -o "$work/stub/libstdc++.so.6" "$work/stub/libstdcxx.c" -nostdlib
    printf 'int inkra_elsewhere(void) { return 1; }\n' >"$work/stub/libelsewhere.c"
    cc -shared -fPIC -Wl,-soname,libelsewhere.so.1 -o "$work/stub/libelsewhere.so.1" "$work/stub/libelsewhere.c" -nostdlib
    cat >"$work/cxx.c" <<'C'
int inkra_new_in_gcc12(void);
int inkra_elsewhere(void);
int main(void) { return inkra_new_in_gcc12() + inkra_elsewhere(); }
C
    cc -o "$work/cxx-stub" "$work/cxx.c" "$work/stub/libstdc++.so.6" "$work/stub/libelsewhere.so.1"
    expect fail "$work/cxx-stub" "inkra_new_in_gcc12@GLIBCXX_3.4.30" "library libelsewhere.so.1"

    # The architecture comes from the ELF header: the same stub, for arm64 (Graviton), where a
    # clang and lld that target aarch64 are at hand (Swift's toolchain has both). The loader's
    # oldest aarch64 version, GLIBC_2.17, passes; GLIBC_2.35 does not.
    if clang --target=aarch64-linux-gnu -fuse-ld=lld -nostdlib -shared -o "$work/probe.so" -x c /dev/null 2>/dev/null; then
        printf 'float hypotf(float, float);\nint main(void) { return (int)hypotf(3.0f, 4.0f); }\n' >"$work/arm64.c"
        local version
        for version in 2.35 2.17; do
            mkdir -p "$work/arm64-$version"
            printf 'GLIBC_%s { global: hypotf; local: *; };\n' "$version" >"$work/arm64-$version/libm.map"
            clang --target=aarch64-linux-gnu -fuse-ld=lld -nostdlib -shared -fPIC -Wl,-soname,libm.so.6 \
                -Wl,--version-script="$work/arm64-$version/libm.map" -o "$work/arm64-$version/libm.so.6" "$work/stub/libm.c"
            clang --target=aarch64-linux-gnu -fuse-ld=lld -nostdlib -Wl,-e,main \
                -Wl,--dynamic-linker=/lib/ld-linux-aarch64.so.1 -o "$work/arm64-hypotf-$version" "$work/arm64.c" \
                "$work/arm64-$version/libm.so.6"
        done
        expect fail "$work/arm64-hypotf-2.35" "aarch64 binary" "hypotf@GLIBC_2.35"
        expect pass "$work/arm64-hypotf-2.17" "aarch64, needs glibc"
    else
        echo "self-test: note: no clang with lld for aarch64 here; the arm64 cases are skipped"
    fi

    # A static binary needs nothing of the image (skipped where libc.a is not installed).
    if cc -static -o "$work/static" "$work/old.c" 2>/dev/null; then
        expect pass "$work/static" "statically linked"
    fi

    if [ $failures -gt 0 ]; then
        echo "self-test: $failures failure(s): scripts/check-lambda-elf.sh cannot be trusted" >&2
        return 1
    fi
    echo "self-test: ok (the check fails on binaries too new for provided.al2023 and names what is too new)"
}

[ $# -eq 1 ] || usage
case $1 in
    --self-test) self_test ;;
    -*) usage ;;
    *) check "$1" ;;
esac
