/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ew_kunit_util.h - what several KUnit suites share: the small disk.
 *
 * Two surfaces, rotation 6 ms, phase 0.  Zone 0: 10 cylinders of 100
 * sectors a track (track skew 10, cylinder skew 20); zone 1: 10 cylinders
 * of 60 (skews 5 and 7).  Seek: 1 ms for one cylinder, 1.5 ms + 0.1 ms *
 * sqrt(d) below 9 cylinders, 2 ms + 0.05 ms * d from 9.  Head switch
 * 0.5 ms, write settle 0.2 ms, controller overhead 0.1 ms.  Small enough
 * to work every expected value out by hand.
 */
#ifndef EW_KUNIT_UTIL_H
#define EW_KUNIT_UTIL_H

#include "../core/ew_disk.h"

static inline void ew_small_params(struct ew_disk_params *p)
{
	memset(p, 0, sizeof(*p));
	p->rotation_ns = 6000000;
	p->phase_ns = 0;
	p->heads = 2;
	p->nr_zones = 2;
	p->zones[0] = (struct ew_zone){ .cylinders = 10, .spt = 100,
					.track_skew = 10, .cyl_skew = 20 };
	p->zones[1] = (struct ew_zone){ .cylinders = 10, .spt = 60,
					.track_skew = 5, .cyl_skew = 7 };
	p->single_cyl_ns = 1000000;
	p->seek_a_ns = 1500000;
	p->seek_b_ns = 100000;
	p->seek_boundary = 9;
	p->seek_c_ns = 2000000;
	p->seek_e_ns = 50000;
	p->head_switch_ns = 500000;
	p->write_settle_ns = 200000;
	p->overhead_ns = 100000;
}

#endif /* EW_KUNIT_UTIL_H */
