/*
 * Warp operations of the decoder's block kernels (ht_dec_warp.cuh,
 * t1_dec.cuh), also built for the host (SCI_J2KDEC_EMU, or a host
 * compiler: the lanes are the coroutines of cuda/common/warp_emu.h).
 */
#ifndef SCI_CUDA_DEC_WARP_CUH
#define SCI_CUDA_DEC_WARP_CUH

#include <stdint.h>

#if !defined(__CUDACC__) || defined(SCI_J2KDEC_EMU)
#include "cuda/common/warp_emu.h"
#endif

namespace sci_dw {

#if defined(__CUDACC__) && !defined(SCI_J2KDEC_EMU)
#define SCI_DW __device__ __forceinline__
#define SCI_DW_FULL 0xffffffffu
SCI_DW uint32_t w_shfl(uint32_t v, int src) { return __shfl_sync(SCI_DW_FULL, v, src); }
SCI_DW uint32_t w_up(uint32_t v, int d) { return __shfl_up_sync(SCI_DW_FULL, v, d); }
SCI_DW uint32_t w_xor(uint32_t v, int m) { return __shfl_xor_sync(SCI_DW_FULL, v, m); }
SCI_DW uint32_t w_ballot(int p) { return __ballot_sync(SCI_DW_FULL, p); }
SCI_DW void w_sync(void) { __syncwarp(); }
SCI_DW void w_or(uint32_t *a, uint32_t v) { atomicOr(a, v); }
SCI_DW unsigned w_popc(uint32_t v) { return (unsigned)__popc(v); }
#else
#define SCI_DW static inline
SCI_DW uint32_t w_shfl(uint32_t v, int src) {
    return (uint32_t)warp_emu_xchg(v, (unsigned)src);
}
SCI_DW uint32_t w_up(uint32_t v, int d) {
    int l = (int)warp_emu_lane();
    return (uint32_t)warp_emu_xchg(v, (unsigned)(l >= d ? l - d : l));
}
SCI_DW uint32_t w_xor(uint32_t v, int m) {
    return (uint32_t)warp_emu_xchg(v, warp_emu_lane() ^ (unsigned)m);
}
SCI_DW uint32_t w_ballot(int p) { return warp_emu_ballot(p); }
SCI_DW void w_sync(void) { warp_emu_sync(); }
SCI_DW void w_or(uint32_t *a, uint32_t v) { *a |= v; }
SCI_DW unsigned w_popc(uint32_t v) { return (unsigned)__builtin_popcount(v); }
#endif

/* inclusive prefix sum over the warp */
SCI_DW uint32_t w_scan(uint32_t v, unsigned lane) {
    for (int d = 1; d < 32; d <<= 1) {
        uint32_t t = w_up(v, d);
        if ((int)lane >= d)
            v += t;
    }
    return v;
}

} /* namespace sci_dw */

#endif
