// SPDX-License-Identifier: GPL-2.0-only
/*
 * The portable disk model, compiled unchanged into hddsim.ko: the emulated
 * disk and the predictor run the same code (see dm-hddsim.c).
 */
#include "../../dm-eagerwrite/core/ew_disk.c"
