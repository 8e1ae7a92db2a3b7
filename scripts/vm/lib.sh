# shellcheck shell=bash
# Helpers shared by scripts/mkinitramfs and scripts/vm-run (sourced, host
# side): copying a binary with its shared libraries, or a module with its
# dependencies, into an initramfs staging tree that mirrors the host's
# merged-/usr layout (/bin, /sbin, /lib, /lib64 are symlinks into /usr).

# vm_skeleton ROOT: the directory layout every archive is unpacked onto.
vm_skeleton() {
	local root=$1 d
	for d in usr/bin usr/sbin usr/lib usr/lib64 etc proc sys dev tmp run \
			root mnt ew; do
		mkdir -p "$root/$d"
	done
	for d in bin sbin lib lib64; do
		[ -L "$root/$d" ] || ln -s "usr/$d" "$root/$d"
	done
}

# vm_libs BINARY...: the shared libraries (and loader) the binaries need,
# one absolute host path per line; nothing for static binaries.
vm_libs() {
	local b
	for b in "$@"; do
		ldd "$b" 2>/dev/null | awk '
			$2 == "=>" && $3 ~ /^\// { print $3 }
			$1 ~ /^\// { print $1 }'
	done | sort -u
}

# vm_copy ROOT SRC [DEST]: copy one file (following symlinks) to ROOT/DEST
# (default: the same path as on the host).
vm_copy() {
	local root=$1 src=$2 dest=${3:-$2}
	mkdir -p "$root/$(dirname "$dest")"
	cp -L --preserve=mode "$src" "$root/$dest"
}

# vm_copy_bin ROOT SRC [DEST]: a binary and every library it links.
vm_copy_bin() {
	local root=$1 src=$2 dest=${3:-$2} lib
	vm_copy "$root" "$src" "$dest" || return 1
	for lib in $(vm_libs "$src"); do
		[ -e "$root$lib" ] || vm_copy "$root" "$lib" || return 1
	done
}

# vm_module_files KVER NAME...: the .ko files (host paths) of the modules
# and of everything they depend on, soft dependencies included, in load
# order.  Built-in modules print nothing; an unknown name is reported on
# stderr and makes the function fail after printing the others.  The
# modules are looked up under $VM_MODROOT/lib/modules/KVER (default /:
# the host's; the debug kernel's are under build/debug-kernel/out/modroot).
vm_module_files() {
	local kver=$1 m out rc=0 root_opt=()
	shift
	# Not "-d /": modprobe would print "//lib/modules/...".
	[ "${VM_MODROOT:-/}" = / ] || root_opt=(-d "$VM_MODROOT")
	for m in "$@"; do
		if ! out=$(modprobe "${root_opt[@]}" -S "$kver" --show-depends "$m" 2>&1); then
			echo "vm: module $m not found for $kver: $out" >&2
			rc=1
			continue
		fi
		printf '%s\n' "$out" | awk '$1 == "insmod" { print $2 }'
	done
	return "$rc"
}

# vm_stat_lines PATH...: one line per file saying which version of it we
# saw (size and mtime), for input hashes; cheaper than hashing contents.
vm_stat_lines() {
	local f
	for f in "$@"; do
		stat -L -c '%n %s %Y' "$f" 2>/dev/null || echo "$f missing"
	done
}

# vm_vmlinux VMLINUZ DIR: prints the path of the uncompressed ELF kernel
# inside a bzImage, extracted once into DIR (cached by the bzImage's size
# and mtime); fails when it cannot be extracted or has no PVH entry.
vm_vmlinux() {
	local img=$1 dir=$2 out key pos tmp
	out=$dir/vmlinux-$(basename "$img" | sed 's/^vmlinuz-//')
	key=$(stat -L -c '%s %Y' "$img") || return 1
	if [ -s "$out" ] && [ "$(cat "$out.key" 2>/dev/null)" = "$key" ]; then
		echo "$out"
		return 0
	fi
	command -v xz >/dev/null || return 1
	pos=$(LC_ALL=C grep -aobP '\xfd7zXZ\x00' "$img" | head -n 1 | cut -d: -f1)
	[ -n "$pos" ] || return 1
	tmp=$out.tmp.$$
	tail -c +$((pos + 1)) "$img" | xz -dcq >"$tmp" 2>/dev/null
	if [ "$(head -c 4 "$tmp" | od -An -c | tr -d ' ')" != '177ELF' ] ||
			! readelf -n "$tmp" 2>/dev/null | grep -q 'Xen.*0x00000012'; then
		rm -f "$tmp"
		return 1
	fi
	mv -f "$tmp" "$out" && echo "$key" >"$out.key" && echo "$out"
}

# vm_sync_tree SRC DST: copies the kernel sources under SRC (*.c, *.h,
# Kbuild, Kconfig, Makefile, .kunitconfig; not the *.mod.c of a build) to
# DST, touching only files whose content differs so that a kernel build in
# DST stays incremental, and deletes the sources gone from SRC (build
# outputs in DST are left alone).  scripts/kunit, scripts/debug-kernel.
vm_sync_src_list() {
	(cd "$1" && find . -type f \( -name '*.c' -o -name '*.h' \
		-o -name Kbuild -o -name Kconfig -o -name Makefile \
		-o -name .kunitconfig \) ! -name '*.mod.c' | sort)
}
vm_sync_tree() {
	local src=$1 dst=$2 f list
	list=$(vm_sync_src_list "$src") || return 1
	mkdir -p "$dst" || return 1
	while IFS= read -r f; do
		[ -n "$f" ] || continue
		if ! cmp -s "$src/$f" "$dst/$f"; then
			mkdir -p "$(dirname "$dst/$f")" &&
				cp "$src/$f" "$dst/$f" || return 1
		fi
	done <<<"$list"
	vm_sync_src_list "$dst" | while IFS= read -r f; do
		grep -qxF -- "$f" <<<"$list" || rm -f "$dst/$f"
	done
	find "$dst" -mindepth 1 -type d -empty -delete
}
