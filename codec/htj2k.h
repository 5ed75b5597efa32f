/*
 * High-Throughput JPEG 2000 encoder (ITU-T T.814 | ISO/IEC 15444-15) on
 * top of the wavelet stage: quantization, the HT cleanup block coder, tier-2
 * packets and the codestream markers, for one image (one tile) per call.
 *
 * Input is the coefficient buffer of wavelet_frame.h (the output of
 * sci_wt_forward or of the CUDA DWT): 5/3 int32 coefficients are coded
 * without quantization (reversible, lossless), 9/7 float coefficients are
 * quantized with a dead-zone scalar quantizer whose steps derive from one
 * base step `qstep` exactly as `ojph_compress -qstep` does: the step is
 * relative to the full sample range (2^depth) and each subband's step is
 * qstep divided by the L2 norm of that subband's synthesis basis function,
 * so every subband adds the same noise power per coefficient in the image.
 *
 * Output is a raw codestream (.j2c: SOC ... EOC) or the JPH file format
 * (.jph, ISO/IEC 15444-15 Annex D boxes around the codestream).
 */
#ifndef SCI_CODEC_HTJ2K_H
#define SCI_CODEC_HTJ2K_H

#include <stddef.h>
#include <stdint.h>

#include "wavelet_frame.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The values of COD's progression order byte (ISO/IEC 15444-1 Table A.16). */
typedef enum {
    SCI_J2K_LRCP = 0,
    SCI_J2K_RLCP = 1,
    SCI_J2K_RPCL = 2,
    SCI_J2K_PCRL = 3,
    SCI_J2K_CPRL = 4,
} sci_j2k_progression;

typedef struct {
    double qstep;        /* 9/7 only: base step, (0, 2]; 1/256 by default */
    unsigned cb_w_log2;  /* code-block width 2^cb_w_log2: 2..10 */
    unsigned cb_h_log2;  /* code-block height; cb_w_log2 + cb_h_log2 <= 12 */
    sci_j2k_progression progression;
    double bitrate;      /* 9/7 only: target bits per pixel, 0 = off */
    int jph;             /* nonzero: wrap the codestream in a JPH file */
} sci_htj2k_params;

void sci_htj2k_params_default(sci_htj2k_params *p);

/* NULL when the geometry (sci_wt_geometry_check) and the parameters can be
 * coded, else why not (a static string). */
const char *sci_htj2k_check(const sci_wt_geometry *g, const sci_htj2k_params *p);

typedef struct sci_htj2k_enc sci_htj2k_enc;

/* NULL on an invalid configuration (see sci_htj2k_check) or no memory.
 * All memory the encoder needs is taken here: encoding a frame allocates
 * nothing. */
sci_htj2k_enc *sci_htj2k_enc_new(const sci_wt_geometry *g,
                                 const sci_htj2k_params *p);
void sci_htj2k_enc_free(sci_htj2k_enc *e);

/* An upper bound on the bytes one frame can take. */
size_t sci_htj2k_max_bytes(const sci_htj2k_enc *e);

/* Encodes one frame of coefficients (layout of wavelet_frame.h).  Returns
 * the bytes written to out, or 0 when cap is too small (never when cap >=
 * sci_htj2k_max_bytes).  With a bitrate target, the step actually used is
 * reported through sci_htj2k_last_qstep. */
size_t sci_htj2k_encode(sci_htj2k_enc *e, const void *coeffs, uint8_t *out,
                        size_t cap);
double sci_htj2k_last_qstep(const sci_htj2k_enc *e);

#ifdef __cplusplus
}
#endif
#endif
