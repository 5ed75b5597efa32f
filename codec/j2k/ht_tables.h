/*
 * Code tables of the HT cleanup pass (ITU-T T.814 | ISO/IEC 15444-15,
 * Annex C): the CxtVLC rows as the standard lists them, the encoder's
 * lookup derived from them, and the U-VLC code of the exponent offsets.
 */
#ifndef SCI_CODEC_HT_TABLES_H
#define SCI_CODEC_HT_TABLES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint8_t cq, rho, u_off, e_k, e_1, cwd, len;
} sci_ht_vlc_row;

extern const sci_ht_vlc_row sci_ht_vlc_table0[];
extern const unsigned sci_ht_vlc_table0_rows;
extern const sci_ht_vlc_row sci_ht_vlc_table1[];
extern const unsigned sci_ht_vlc_table1_rows;

/*
 * Encoder lookup, indexed by (c_q << 8) | (rho << 4) | emb, where emb marks
 * the significant samples whose exponent equals the quad's maximum (zero
 * when u_q = 0).  An entry packs the chosen codeword as
 * (cwd << 8) | (len << 4) | e_k; 0 where no codeword is needed or valid.
 */
typedef struct {
    uint16_t vlc[2][2048]; /* [0]: first line-pair, [1]: the others */
} sci_ht_enc_tables;

/* Builds the lookup.  Returns 0, or -1 if some reachable (c_q, rho, emb)
 * has no row (a defective table). */
int sci_ht_enc_tables_init(sci_ht_enc_tables *t);

/* Shared with cuda/j2k/htj2k.cu: the same code on the device. */
#ifdef __CUDACC__
#define SCI_HT_HD __host__ __device__
#else
#define SCI_HT_HD
#endif

/*
 * U-VLC codeword of an exponent offset u (1..74, Table C.? of T.814):
 * prefix, suffix and extension, each emitted least significant bit first,
 * in the order the caller interleaves them.
 */
typedef struct {
    uint8_t pre, pre_len, suf, suf_len, ext, ext_len;
} sci_ht_uvlc;

static inline SCI_HT_HD sci_ht_uvlc sci_ht_uvlc_code(unsigned u) {
    sci_ht_uvlc c = {0, 0, 0, 0, 0, 0};
    if (u == 0)
        return c;
    if (u == 1) {
        c.pre = 1, c.pre_len = 1;
    } else if (u == 2) {
        c.pre = 2, c.pre_len = 2;
    } else if (u <= 4) {
        c.pre = 4, c.pre_len = 3, c.suf = (uint8_t)(u - 3), c.suf_len = 1;
    } else if (u <= 32) {
        c.pre_len = 3, c.suf = (uint8_t)(u - 5), c.suf_len = 5;
    } else {
        c.pre_len = 3, c.suf = (uint8_t)(28 + (u - 33) % 4), c.suf_len = 5;
        c.ext = (uint8_t)((u - 33) / 4), c.ext_len = 4;
    }
    return c;
}

#ifdef __cplusplus
}
#endif
#endif
