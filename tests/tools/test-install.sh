#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Installing like an out-of-tree module (issue 17, item 2), on the host
# and without touching it: make install into a DESTDIR (module under
# updates/, tools, man pages that render), DKMS building the module in a
# private tree, and `make` asking only for the build dependencies.
# shellcheck source=tests/tools/lib.sh
. "$(dirname "$0")/lib.sh"

kver=$("$top/scripts/kver" --build) || { nok "scripts/kver --build finds headers"; exit 1; }
dest=$tmp/dest

# --- make install DESTDIR ----------------------------------------------------
if make -s -C "$top" install DESTDIR="$dest" PREFIX=/usr >"$tmp/install.log" 2>&1; then
	ok "make install DESTDIR=... PREFIX=/usr"
else
	nok "make install DESTDIR=... PREFIX=/usr" "$(tail -n 5 "$tmp/install.log")"
fi
ko=$dest/lib/modules/$kver/updates/dm-eagerwrite/dm-eagerwrite.ko
if [ -f "$ko" ] && [ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$kver" ]; then
	ok "the module is installed under /lib/modules/$kver/updates, built for $kver"
else
	nok "the module is installed under /lib/modules/$kver/updates" "$(find "$dest" -name '*.ko')"
fi
for t in ewctl ewprobe ewsim; do
	if [ -x "$dest/usr/sbin/$t" ] && "$dest/usr/sbin/$t" --help >/dev/null 2>&1; then
		ok "$t installed in /usr/sbin and runs (--help)"
	else
		nok "$t installed in /usr/sbin and runs (--help)"
	fi
done
for m in man8/ewctl.8 man8/ewprobe.8 man1/ewsim.1 man7/dm-eagerwrite.7; do
	f=$dest/usr/share/man/$m
	name=$(basename "$m"); name=${name%.*}
	# A page must render, with no message from groff but the layout
	# notes of wide or tall tables at 80 columns (tbl's "will not fit
	# on one page" too: man renders one continuous page), and its NAME
	# line must name it.
	if [ -f "$f" ] && MANWIDTH=80 man -l "$f" >"$tmp/man.txt" 2>"$tmp/man.err" &&
			! grep -vE 'cannot adjust line|character above first line discarded|table text block will not fit on one page' \
				"$tmp/man.err" | grep -q . &&
			grep -A1 '^NAME' "$tmp/man.txt" | grep -q "^ *$name - "; then
		ok "man page $m renders, NAME: $name - ..."
	else
		nok "man page $m renders, NAME: $name - ..." "$(head -n 3 "$tmp/man.err" 2>/dev/null)"
	fi
done
unit=$dest/etc/systemd/system/eagerwrite-assemble.service
if [ -f "$unit" ] && grep -q '^ExecStart=/usr/sbin/ewctl assemble --scan$' "$unit" &&
		[ -f "$dest/usr/share/doc/dm-eagerwrite/eagerwrite.conf.example" ]; then
	ok "the assembly unit (ExecStart=/usr/sbin/ewctl assemble --scan) and eagerwrite.conf.example"
else
	nok "the assembly unit and eagerwrite.conf.example are installed" "$(grep ExecStart "$unit" 2>&1)"
fi
# systemd-analyze checks the unit's syntax and that ExecStart exists: point
# it at the staged ewctl.
if ! command -v systemd-analyze >/dev/null; then
	nok "systemd-analyze is installed (scripts/install-deps test)"
else
	sed "s|/usr/sbin/ewctl|$dest/usr/sbin/ewctl|" "$unit" >"$tmp/eagerwrite-assemble.service"
	if systemd-analyze verify --man=no "$tmp/eagerwrite-assemble.service" >"$tmp/sa.log" 2>&1; then
		ok "systemd-analyze verify: the unit is valid"
	else
		nok "systemd-analyze verify: the unit is valid" "$(head -n 3 "$tmp/sa.log")"
	fi
fi
# The recalibration unit, a template: installed with the sbin path, and
# valid as an instance (systemd-analyze verify names it; a warning, such
# as a value systemd ignores, fails it too).
cunit=$dest/etc/systemd/system/eagerwrite-calibrate@.service
if [ -f "$cunit" ] &&
		grep -q '^ExecStart=/usr/sbin/ewctl calibrate --array %I --every 120 ' "$cunit"; then
	ok "the recalibration unit (ExecStart=/usr/sbin/ewctl calibrate --array %I ...)"
else
	nok "the recalibration unit is installed" "$(grep ExecStart "$cunit" 2>&1)"
fi
if command -v systemd-analyze >/dev/null; then
	sed "s|/usr/sbin/ewctl|$dest/usr/sbin/ewctl|" "$cunit" \
		>"$tmp/eagerwrite-calibrate@vol0.service"
	if systemd-analyze verify --man=no "$tmp/eagerwrite-calibrate@vol0.service" \
			>"$tmp/sa.log" 2>&1 && ! [ -s "$tmp/sa.log" ]; then
		ok "systemd-analyze verify: eagerwrite-calibrate@vol0 is valid, no warning"
	else
		nok "systemd-analyze verify: eagerwrite-calibrate@vol0 is valid, no warning" \
			"$(head -n 3 "$tmp/sa.log")"
	fi
fi
make -s -C "$top" uninstall DESTDIR="$dest" PREFIX=/usr >/dev/null 2>&1
left=$(find "$dest" -type f | head -n 3)
if [ -z "$left" ]; then
	ok "make uninstall removes every file make install put there"
else
	nok "make uninstall removes every file make install put there" "$left"
fi

# --- DKMS --------------------------------------------------------------------
# A private source and dkms tree: the host's /usr/src and /var/lib/dkms
# stay as they are.
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
tver=$(sed -n 's/.*\.version = {\([0-9]*\), \([0-9]*\), \([0-9]*\)}.*/\1.\2.\3/p' \
	"$top"/dm-eagerwrite/dm-eagerwrite-target.c)
if [ -n "$ver" ] && [ "$ver" = "$tver" ]; then
	ok "dkms.conf's PACKAGE_VERSION ($ver) is the target's version"
else
	nok "dkms.conf's PACKAGE_VERSION ($ver) is the target's version ($tver)"
fi
src=$tmp/dkms-src/dm-eagerwrite-$ver
mkdir -p "$src" "$tmp/dkms-tree"
(cd "$top" && git ls-files -z -co --exclude-standard Kbuild dkms.conf dm-eagerwrite | xargs -0 cp --parents -t "$src")
if ! command -v dkms >/dev/null; then
	nok "dkms is installed (scripts/install-deps test)"
elif dkms build --sourcetree "$tmp/dkms-src" --dkmstree "$tmp/dkms-tree" \
		"dm-eagerwrite/$ver" -k "$kver" >"$tmp/dkms.log" 2>&1 &&
		dko=$(find "$tmp/dkms-tree" -path "*/$kver/*" -name dm-eagerwrite.ko) &&
		[ -n "$dko" ] &&
		[ "$(modinfo -F vermagic "$dko" | cut -d' ' -f1)" = "$kver" ]; then
	ok "dkms build dm-eagerwrite/$ver -k $kver (from the tree's files)"
else
	nok "dkms build dm-eagerwrite/$ver -k $kver" "$(tail -n 5 "$tmp/dkms.log")" \
		"$(cat "$tmp/dkms-tree/dm-eagerwrite/$ver/build/make.log" 2>/dev/null | tail -n 5)"
fi

# --- make needs only the build dependencies ----------------------------------
for goal in all module userspace install; do
	deps=$(make -n -C "$top" "$goal" 2>/dev/null | grep -o 'scripts/install-deps[^;&|]*' | sort -u)
	if [ "$(printf '%s\n' "$deps" | sed 's/ *$//' | sort -u)" = "scripts/install-deps build" ]; then
		ok "make $goal installs only build dependencies"
	else
		nok "make $goal installs only build dependencies" "$deps"
	fi
done
exit "$failed"
