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
