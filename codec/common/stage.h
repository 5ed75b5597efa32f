/*
 * Filling page-locked staging that a GPU is about to read.
 *
 * Lines that a plain memcpy leaves dirty in this CPU's caches make the
 * device's copy snoop them: on the H200 host a 5 MB upload took 0.19-0.21
 * ms after a plain copy into its buffer and 0.10 ms after streaming
 * stores.  That holds for a few MB that the device reads at once; the
 * elements' 53 MB pageable frames, whose lines leave the caches anyway,
 * went slower with it (docs/benchmarks.md, "Decoding from host frames,
 * later on 2026-11-29").
 */
#ifndef SCI_CODEC_COMMON_STAGE_H
#define SCI_CODEC_COMMON_STAGE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* memcpy(dst, src, n), the bulk of it with non-temporal stores where the
 * CPU has them (SSE2), then a store fence, so that another thread may
 * start the device's copy once this returns to it. */
void sci_stage_copy(void *dst, const void *src, size_t n);

#ifdef __cplusplus
}
#endif

#endif
