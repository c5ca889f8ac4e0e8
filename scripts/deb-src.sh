# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Source packages through apt (sourced after lib.sh, not run): the .dsc
# names "apt-get source" would fetch, and a deb-src entry for the suite
# when apt has none (the same archive URI as the machine's Debian entry).
# Used by cross-libs.sh, fdo-programs.sh, profile-rt.sh and capstone.sh;
# also their build steps' logging (run_logged).

DEB_SUITE=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")

# deb_src_dscs PKG...: the .dsc names of PKG/$DEB_SUITE (PKG a source or a
# binary package name), sorted, blank-separated; read from the local
# package lists, no download.
deb_src_dscs() {
	local p args=()
	for p in "$@"; do args+=("$p/$DEB_SUITE"); done
	{ apt-get source --print-uris -qq "${args[@]}" 2>/dev/null || :; } |
		awk '$2 ~ /\.dsc$/ { print $2 }' | LC_ALL=C sort | xargs
}

# deb_src_need N PKG...: prints deb_src_dscs PKG..., after adding a deb-src
# entry if apt knows fewer than N of them; dies when it still does.
deb_src_need() {
	local n=$1 d
	shift
	d=$(deb_src_dscs "$@")
	if [ "$(wc -w <<<"$d")" != "$n" ]; then
		deb_src_add
		d=$(deb_src_dscs "$@")
	fi
	[ "$(wc -w <<<"$d")" = "$n" ] || die "no source packages $* in $DEB_SUITE (got: ${d:-none})"
	echo "$d"
}

# run_logged LOG DIR CMD...: CMD in DIR, its output appended to LOG (a
# source package's build log); on failure the log's tail and a stop.
run_logged() {
	local log=$1 dir=$2
	shift 2
	(cd "$dir" && "$@") >>"$log" 2>&1 ||
		{ tail -30 "$log" >&2; die "failed: $* (log: $log)"; }
}

# deb_archive_uri: the Debian archive URI of the machine's own Debian
# entry in /etc/apt (http://deb.debian.org/debian or a mirror).
deb_archive_uri() {
	local uri
	uri=$(grep -rhs '^URIs:.*debian/\?$' /etc/apt/sources.list.d/*.sources | head -1 | awk '{print $2}')
	[ -n "$uri" ] || uri=$(grep -hs "^deb .*debian/\? $DEB_SUITE " /etc/apt/sources.list | head -1 | awk '{print $2}')
	[ -n "$uri" ] || die "cannot find the Debian archive URI in /etc/apt sources"
	echo "${uri%/}"
}

deb_src_add() {
	local f=/etc/apt/sources.list.d/ntrace-src.sources uri sudo=
	[ "$(id -u)" = 0 ] || { command -v sudo >/dev/null || die "not root and no sudo: cannot add $f"; sudo=sudo; }
	uri=$(deb_archive_uri) || exit 1
	log "adding deb-src $uri $DEB_SUITE ($f)"
	printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
		"$uri" "$DEB_SUITE" | $sudo tee "$f" >/dev/null
	$sudo apt-get update -qq >&2 || die "apt-get update failed"
}
