/*
 * A warp emulated on one host thread, for the emulated builds of the CUDA
 * kernels that use warp operations (cuda/j2k/t1.cu with SCI_T1_EMU,
 * cuda/j2k/htj2k.cu with SCI_HT_EMU, cuda/dpcm/dpcm.cu with SCI_DPCM_EMU;
 * tests/common/warp_emu.cpp): 32 lanes as
 * coroutines, each running up to its next warp operation, values crossing
 * through a table.  The kernels' own shuffles, ballots and syncs are thin
 * wrappers over these.
 */
#ifndef SCI_CUDA_WARP_EMU_H
#define SCI_CUDA_WARP_EMU_H

#include <functional>
#include <stdint.h>

/* Runs body(lane) for lanes 0..31 until all have returned. */
void warp_emu_run(const std::function<void(unsigned)> &body);
/* The lane running now. */
unsigned warp_emu_lane(void);
/* __syncwarp: every lane reaches it before any goes on. */
void warp_emu_sync(void);
/* Every lane offers v and gets what lane `src` offered (a shuffle). */
unsigned long long warp_emu_xchg(unsigned long long v, unsigned src);
/* __ballot_sync over all 32 lanes. */
uint32_t warp_emu_ballot(int p);
/* Every lane offers v and gets what all 32 lanes offered, lane l's in
 * all[l] (for the reductions and matches that read the whole warp). */
void warp_emu_gather(unsigned long long v, unsigned long long all[32]);

#endif
