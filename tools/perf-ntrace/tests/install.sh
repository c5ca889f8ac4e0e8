#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# libntrace as an installed library (TAP): "make install" with PREFIX and
# DESTDIR lays out the static and shared libraries (versioned soname), the
# public headers and libntrace.pc; the shared library exports exactly
# functions the public headers declare; a program built with pkg-config's
# flags links against either library and reports the headers' version.
set -uo pipefail
. "$(dirname "$0")/../../../scripts/lib.sh"
SRC=$NTRACE_SRC BUILD=$NTRACE_BUILD
# the compiler a user of the installed library would use
CC=${CC:-cc}
scratch WORK "$BUILD/install" || exit 1
TAP_PREFIX="install: "

dest=$WORK/dest
if ! make -s -C "$SRC" B="$BUILD" PREFIX=/usr DESTDIR="$dest" install >"$WORK/make.log" 2>&1; then
	not_ok "make install PREFIX=/usr DESTDIR=...: $(tail -3 "$WORK/make.log" | tr '\n' ' ')"
	exit 1
fi
major=$(sed -n 's/^#define NTRACE_VERSION_MAJOR[[:space:]]*//p' "$SRC/include/ntrace/ntrace.h")
minor=$(sed -n 's/^#define NTRACE_VERSION_MINOR[[:space:]]*//p' "$SRC/include/ntrace/ntrace.h")
# the soname's version: MAJOR, MAJOR.MINOR before 1.0
sover=$major
[ "$major" != 0 ] || sover=$major.$minor
lib=$dest/usr/lib
missing=
for f in libntrace.a "libntrace.so.$major.$minor.0" "libntrace.so.$sover" libntrace.so \
	pkgconfig/libntrace.pc; do
	[ -e "$lib/$f" ] || missing+=" $f"
done
for h in "$SRC"/include/ntrace/*.h; do
	cmp -s "$h" "$dest/usr/include/ntrace/${h##*/}" || missing+=" include/ntrace/${h##*/}"
done
if [ -z "$missing" ]; then
	ok "make install: libntrace.a, libntrace.so.$major.$minor.0 with its links, $(ls "$dest/usr/include/ntrace" | wc -l) headers, libntrace.pc under DESTDIR/usr"
else
	not_ok "make install is missing:$missing"
fi

soname=$(readelf -d "$lib/libntrace.so.$major.$minor.0" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" = "libntrace.so.$sover" ]; then
	ok "the shared library's soname is $soname"
else
	not_ok "soname '$soname', want libntrace.so.$sover"
fi

# exports: only functions the public headers declare
nm -D --defined-only "$lib/libntrace.so.$major.$minor.0" |
	awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' | sort >"$WORK/exported"
cat "$SRC"/include/ntrace/*.h | grep -o '\bntrace_[a-z0-9_]*[[:space:]]*(' | tr -d ' (' |
	sort -u >"$WORK/declared"
extra=$(comm -23 "$WORK/exported" "$WORK/declared" | tr '\n' ' ')
if [ -s "$WORK/exported" ] && [ -z "$extra" ]; then
	ok "libntrace.so exports $(wc -l <"$WORK/exported") functions, each declared in a public header"
else
	not_ok "libntrace.so exports functions no public header declares: $extra"
fi

# a user of the installed library, built with pkg-config's flags
cat >"$WORK/user.c" <<'C'
#include <stdio.h>
#include <ntrace/ntrace.h>
#include <ntrace/error.h>

int main(void)
{
	printf("%u %u %s\n", ntrace_version(), NTRACE_VERSION_NUM,
	       ntrace_errstr(0) ? "named" : "unnamed");
	return ntrace_version() != NTRACE_VERSION_NUM;
}
C
export PKG_CONFIG_PATH=$lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$dest
read -r cflags < <(pkg-config --cflags libntrace)
read -r libs < <(pkg-config --libs libntrace)
want="$((major << 16 | minor << 8)) $((major << 16 | minor << 8)) named"
# shellcheck disable=SC2086
if $CC $cflags -o "$WORK/user" "$WORK/user.c" $libs 2>"$WORK/cc.err" &&
   [ "$(LD_LIBRARY_PATH=$lib "$WORK/user")" = "$want" ] &&
   readelf -d "$WORK/user" | grep -q "NEEDED.*libntrace.so.$sover\]"; then
	ok "pkg-config --cflags --libs libntrace ($cflags $libs): a program links the shared library and reports version $major.$minor"
else
	not_ok "a program built with pkg-config's flags: $(head -c 300 "$WORK/cc.err")"
fi
# shellcheck disable=SC2086
if $CC $cflags -o "$WORK/user-static" "$WORK/user.c" "$lib/libntrace.a" 2>"$WORK/cc.err" &&
   [ "$("$WORK/user-static")" = "$want" ]; then
	ok "the same program links the static library"
else
	not_ok "static link: $(head -c 300 "$WORK/cc.err")"
fi
tap_status
