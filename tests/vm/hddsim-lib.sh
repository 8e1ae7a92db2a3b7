# shellcheck shell=bash
# Helpers for guest scripts on tests/hddsim disks (sourced by bash
# scripts: scripts/vm/bench-*.sh, tests/hddsim/guest-*.sh).
#
# Reproducible to the cell (issue 14): hddsim draws a disk's platter
# phase at random unless its table gives phase_ns, so a script that
# measures time gives every disk a phase derived from one seed, the seed
# it prints; the fio jobs take the same seed (randseed, which also seeds
# fio's Poisson arrivals).  Under --icount (Documentation/testing.rst,
# "Exact time") the same seed then gives the same figures.

# hddsim_phase SEED INDEX ROTATION_NS: disk INDEX's phase_ns for SEED, in
# [0, ROTATION_NS): splitmix64 of (SEED, INDEX), in bash's 64-bit
# wrapping arithmetic (">>" is arithmetic, hence the masks).
hddsim_phase() {
	local z=$(( ($1 << 20) + $2 + 0x9e3779b97f4a7c15 ))

	z=$(( (z ^ ((z >> 30) & 0x3ffffffff)) * 0xbf58476d1ce4e5b9 ))
	z=$(( (z ^ ((z >> 27) & 0x1fffffffff)) * 0x94d049bb133111eb ))
	z=$(( z ^ ((z >> 31) & 0x1ffffffff) ))
	echo $(( (z & 0x7fffffffffffffff) % $3 ))
}

# hddsim_exact_time: true when the guest runs in exact time (vm-run
# --icount), where the guest's own path costs microseconds and a
# measurement can be held to the model within a few percent.  Not on the
# project's debug kernel (scripts/debug-kernel, release *-ewdebug):
# KASAN, lockdep and KFENCE add guest instructions to every request, so
# its path is measured like plain TCG's (the noise disk, 20%).
hddsim_exact_time() {
	[ -n "${EW_ICOUNT:-}" ] || return 1
	case $(uname -r) in *-ewdebug) return 1 ;; esac
}

# hddsim_disks COUNT RAMDISKS MIB SEED ROTATION_NS: brd with RAMDISKS ram
# disks of MIB each, tests/hddsim's module, and hdd0..hdd(COUNT-1), each
# an hddsim disk over ramI turning at ROTATION_NS with the phase
# hddsim_phase gives it for SEED (kept in HDD_PHASE[I], for the
# predictor's disk_param or a calibration's error).  The ram disks past
# COUNT are the caller's (a metadata device, a spare).  Says why on
# stderr and returns 1 when a step fails.
HDD_PHASE=()
hddsim_disks() {
	local count=$1 ramdisks=$2 mib=$3 seed=$4 rot=$5 i

	modprobe brd rd_nr="$ramdisks" rd_size=$((mib * 1024)) max_part=0 ||
		{ echo "hddsim_disks: no brd" >&2; return 1; }
	insmod /ew/modules/hddsim.ko ||
		{ echo "hddsim_disks: no hddsim.ko (make -C tests/hddsim)" >&2; return 1; }
	for ((i = 0; i < count; i++)); do
		HDD_PHASE[i]=$(hddsim_phase "$seed" "$i" "$rot")
		dmsetup create "hdd$i" --table "0 $((mib * 2048)) hddsim /dev/ram$i 4 rotation_ns $rot phase_ns ${HDD_PHASE[i]}" ||
			{ echo "hddsim_disks: hdd$i not created" >&2; return 1; }
	done
}
