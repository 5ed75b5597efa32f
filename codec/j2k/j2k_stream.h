/*
 * The JPEG 2000 codestream layer (ITU-T T.800 | ISO/IEC 15444-1 Annex A,
 * with the additions of T.814 | ISO/IEC 15444-15): markers and marker
 * segments parsed into plain structures, every field range-checked
 * against the standard, and the JP2 / JPH file boxes around a codestream.
 *
 * Parsing is in three steps, so that a decoder holds the coding
 * parameters of one tile at a time however many tiles there are:
 *   1. sci_j2k_cs_parse: the main header (SIZ, CAP, COD, COC, QCD, QCC,
 *      RGN, POC, PPM, TLM, PLM, CRG, COM, CPF, PRF) and a scan of every
 *      tile-part (SOT: where its header and its data are);
 *   2. sci_j2k_cs_tile_params: the coding parameters of one tile, the main
 *      header's defaults overridden by the markers of the tile's first
 *      tile-part header (A.6.1's precedence: tile COC > tile COD > main COC
 *      > main COD, and likewise for quantization), and its POC;
 *   3. the tile's packet data (and PPM/PPT packet headers) gathered in
 *      tile-part order.
 *
 * Errors carry the byte offset (from the start of the input given to
 * sci_j2k_cs_parse, a JP2 file included) of the marker or field at fault.
 * Part 2 extensions (the markers DCO, VMS, DFS, ADS, MCT, MCC, NLT, MCO,
 * CBD, ATK, and Part 2 values of COD's fields) are refused as unsupported,
 * naming the marker.  Unknown markers with a length field are skipped with
 * a warning.
 */
#ifndef SCI_CODEC_J2K_STREAM_H
#define SCI_CODEC_J2K_STREAM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Markers (Table A.2; CAP and CPF from T.814, PRF from T.800 Amd.) */
enum {
    J2K_SOC = 0xFF4F, J2K_CAP = 0xFF50, J2K_SIZ = 0xFF51, J2K_COD = 0xFF52,
    J2K_COC = 0xFF53, J2K_TLM = 0xFF55, J2K_PRF = 0xFF56, J2K_PLM = 0xFF57,
    J2K_PLT = 0xFF58, J2K_CPF = 0xFF59, J2K_QCD = 0xFF5C, J2K_QCC = 0xFF5D,
    J2K_RGN = 0xFF5E, J2K_POC = 0xFF5F, J2K_PPM = 0xFF60, J2K_PPT = 0xFF61,
    J2K_CRG = 0xFF63, J2K_COM = 0xFF64, J2K_SOT = 0xFF90, J2K_SOP = 0xFF91,
    J2K_EPH = 0xFF92, J2K_SOD = 0xFF93, J2K_EOC = 0xFFD9,
};

#define SCI_J2K_MAX_COMPONENTS 16384
#define SCI_J2K_MAX_LEVELS 32
#define SCI_J2K_MAX_RES (SCI_J2K_MAX_LEVELS + 1)
/* Quantization entries: one per subband, 3 * N_L + 1. */
#define SCI_J2K_MAX_STEPS (3 * SCI_J2K_MAX_LEVELS + 1)
#define SCI_J2K_MAX_POC 256

/* Code-block style bits (Table A.19, and T.814 Table A.4 for 0x40/0x80). */
#define SCI_J2K_CB_BYPASS 0x01
#define SCI_J2K_CB_RESET 0x02
#define SCI_J2K_CB_TERMALL 0x04
#define SCI_J2K_CB_VCAUSAL 0x08
#define SCI_J2K_CB_PTERM 0x10
#define SCI_J2K_CB_SEGSYM 0x20
#define SCI_J2K_CB_HT 0x40     /* HT code-blocks (Part 15) */
#define SCI_J2K_CB_MIXED 0x80  /* with 0x40: HT and Part 1 blocks mixed */

/* Result codes. */
enum {
    SCI_J2K_OK = 0,
    SCI_J2K_EARG = -1,        /* invalid call */
    SCI_J2K_ECORRUPT = -2,    /* the codestream breaks the standard */
    SCI_J2K_EUNSUPPORTED = -3, /* valid, but not decoded (Part 2, ...) */
    SCI_J2K_ENOMEM = -4,
    SCI_J2K_ETRUNCATED = -5,  /* ends before its main header or first tile */
};

/* Where errors and warnings go.  msg holds the first error; warnings are
 * counted, the first one kept, and each of the first SCI_J2K_MAX_WARNINGS
 * given to warn_fn if set (then one saying that more follow). */
#define SCI_J2K_MAX_WARNINGS 100
typedef struct {
    int code;
    size_t offset;
    char msg[256];
    unsigned warnings;
    char warning[256];
    void (*warn_fn)(void *user, size_t offset, const char *msg);
    void *warn_user;
} sci_j2k_status;

/* Records an error (the first one sticks); returns code. */
int sci_j2k_fail(sci_j2k_status *st, int code, size_t offset,
                 const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 4, 5)))
#endif
    ;
void sci_j2k_warn(sci_j2k_status *st, size_t offset, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

typedef struct {
    uint8_t depth;     /* 1..38 bits (Ssiz) */
    uint8_t is_signed;
    uint8_t dx, dy;    /* XRsiz, YRsiz: 1..255 */
} sci_j2k_siz_comp;

typedef struct {
    uint16_t rsiz;
    uint32_t xsiz, ysiz, xosiz, yosiz;     /* the image area on the canvas */
    uint32_t xtsiz, ytsiz, xtosiz, ytosiz; /* the tile grid */
    uint16_t csiz;
    uint32_t tiles_x, tiles_y;             /* derived: the grid's size */
    sci_j2k_siz_comp *comp;                /* csiz entries */
} sci_j2k_siz;

/* SPcod / SPcoc and Scod's precinct bit: how one component is coded. */
typedef struct {
    uint8_t levels;       /* N_L: 0..32 */
    uint8_t xcb, ycb;     /* code-block size exponents: 2..10, sum <= 12 */
    uint8_t cb_style;     /* SCI_J2K_CB_* */
    uint8_t reversible;   /* 1: 5/3 filter, 0: 9/7 */
    uint8_t precincts;    /* user precincts given (else 2^15) */
    uint8_t ppx[SCI_J2K_MAX_RES], ppy[SCI_J2K_MAX_RES];
} sci_j2k_coc;

/* Sqcd / SPqcd: the quantization of one component. */
typedef struct {
    uint8_t style;    /* 0 none (reversible), 1 scalar derived, 2 expounded */
    uint8_t guard;    /* guard bits: 0..7 */
    uint8_t n;        /* entries in step[] */
    /* epsilon << 11 | mu (style 0: mu = 0) */
    uint16_t step[SCI_J2K_MAX_STEPS];
} sci_j2k_qcd;

typedef struct {
    uint8_t rs, re;     /* resolutions [rs, re), re <= 33 */
    uint16_t cs, ce;    /* components [cs, ce) */
    uint16_t lye;       /* layers [0, lye) */
    uint8_t prog;       /* progression order, 0..4 */
} sci_j2k_poc;

/* The progression orders (Table A.16). */
enum { SCI_J2K_PROG_LRCP, SCI_J2K_PROG_RLCP, SCI_J2K_PROG_RPCL,
       SCI_J2K_PROG_PCRL, SCI_J2K_PROG_CPRL };

/* Coding parameters in effect for a tile (or the main header's). */
typedef struct {
    uint8_t prog;        /* SGcod progression order */
    uint16_t layers;     /* SGcod layers: 1..65535 */
    uint8_t mct;         /* SGcod: 1 = RCT/ICT on components 0..2 */
    uint8_t sop, eph;    /* Scod: SOP / EPH markers may / shall be used */
    uint16_t csiz;
    sci_j2k_coc *coc;    /* csiz entries */
    sci_j2k_qcd *qcd;    /* csiz entries */
    uint8_t *roi;        /* csiz entries: RGN maxshift s (0: none) */
    uint8_t *coc_prio, *qcd_prio;  /* A.6.1 precedence of each entry */
    unsigned npoc;
    sci_j2k_poc poc[SCI_J2K_MAX_POC];
    int have_cod, have_qcd;
} sci_j2k_tcp;

/* One tile-part as the scan found it: byte offsets into the input. */
typedef struct {
    uint16_t tile;
    uint8_t tpsot, tnsot;
    size_t sot;            /* offset of its SOT marker */
    size_t hdr, hdr_end;   /* its header's marker segments */
    size_t data, data_end; /* its packet data (after SOD) */
    size_t ppm, ppm_len;   /* its packet headers within the PPM data */
    int32_t next;          /* the tile's next tile-part, -1: none */
} sci_j2k_tilepart;

typedef enum {
    SCI_J2K_COLOUR_UNKNOWN = 0, /* raw codestream, or colr not given */
    SCI_J2K_COLOUR_SRGB,
    SCI_J2K_COLOUR_GREY,
    SCI_J2K_COLOUR_SYCC,
    SCI_J2K_COLOUR_ICC,         /* an ICC profile (colr method 2 or 3) */
    SCI_J2K_COLOUR_OTHER,       /* another enumerated space */
} sci_j2k_colour;

/* What the JP2 / JPH boxes said (file == 0: a raw codestream). */
typedef struct {
    int file;                  /* 1: JP2 or JPH boxes around it */
    int jph;                   /* the ftyp brand is 'jph ' */
    uint32_t width, height;    /* ihdr */
    uint16_t nc;
    uint8_t bpc;               /* ihdr BPC (255: bpcc box) */
    sci_j2k_colour colour;
    uint32_t enumcs;           /* colr EnumCS when given */
    int has_palette;           /* pclr box (refused by the decoder) */
    int has_cdef;
} sci_j2k_jp2;

typedef struct {
    const uint8_t *buf;    /* the whole input */
    size_t len;
    size_t cs, cs_end;     /* the codestream within it (SOC ...) */
    sci_j2k_jp2 jp2;
    sci_j2k_siz siz;
    uint32_t pcap;         /* CAP: Pcap (0: no CAP marker) */
    uint16_t ccap15;       /* CAP: Ccap^15 (Part 15) */
    sci_j2k_tcp main;      /* main header defaults */
    /* PPM: the concatenated Ippm data of the main header (owned) */
    uint8_t *ppm;
    size_t ppm_len;
    int have_ppm;
    /* tile-parts in codestream order; first tile-part of each tile */
    sci_j2k_tilepart *tp;
    size_t ntp;
    int32_t *tile_first;   /* tiles_x * tiles_y entries, -1: none */
    size_t main_end;       /* offset of the first SOT */
    int eoc;               /* an EOC marker ended it */
    int truncated;         /* the input ends inside a tile-part */
} sci_j2k_cs;

/* Parses the boxes (if any), the main header and every SOT of data[0..len).
 * data must stay valid while cs is used.  On error cs is still freeable. */
int sci_j2k_cs_parse(sci_j2k_cs *cs, const uint8_t *data, size_t len,
                     sci_j2k_status *st);
void sci_j2k_cs_free(sci_j2k_cs *cs);

/* Number of tiles. */
static inline uint32_t sci_j2k_cs_tiles(const sci_j2k_cs *cs) {
    return cs->siz.tiles_x * cs->siz.tiles_y;
}

/* Fills tcp (sci_j2k_tcp_init'ed) with tile t's coding parameters: a copy
 * of the main header's, overridden by the markers of the tile's first
 * tile-part header; POCs of every tile-part header accumulate.  PPT data of
 * its tile-parts (in Zppt order, tile-part by tile-part) is appended to
 * *ppt (malloc'ed, *ppt_len bytes; NULL when none). */
int sci_j2k_cs_tile_params(const sci_j2k_cs *cs, uint32_t t, sci_j2k_tcp *tcp,
                           uint8_t **ppt, size_t *ppt_len, int *have_ppt,
                           sci_j2k_status *st);

/* The packet lengths of tile t's PLT marker segments (A.7.3), tile-part by
 * tile-part in the order they appear: *len (malloc'ed, *n entries), or
 * NULL and 0 when the tile has none or they cannot be read (a length of
 * more than 32 bits, one left unfinished).  Only a hint for tier-2, which
 * checks them against the packets.  Returns 0, or SCI_J2K_ENOMEM. */
int sci_j2k_cs_tile_plt(const sci_j2k_cs *cs, uint32_t t, uint32_t **len,
                        size_t *n);

int sci_j2k_tcp_init(sci_j2k_tcp *tcp, uint16_t csiz);
void sci_j2k_tcp_free(sci_j2k_tcp *tcp);
int sci_j2k_tcp_copy(sci_j2k_tcp *dst, const sci_j2k_tcp *src);

/* Canvas geometry of tile t (B.3): its area on the reference grid. */
void sci_j2k_tile_rect(const sci_j2k_siz *s, uint32_t t, uint32_t *x0,
                       uint32_t *y0, uint32_t *x1, uint32_t *y1);

static inline uint32_t sci_j2k_ceil_div(uint32_t a, uint32_t b) {
    return (uint32_t)(((uint64_t)a + b - 1) / b);
}
static inline uint32_t sci_j2k_ceil_pow2(uint32_t a, unsigned e) {
    if (e >= 32)
        return a > 0;
    return (uint32_t)(((uint64_t)a + ((uint64_t)1 << e) - 1) >> e);
}

/* Name of a marker ("COD", "MCT (Part 2)", ...), or NULL when unknown. */
const char *sci_j2k_marker_name(unsigned marker);

#ifdef __cplusplus
}
#endif
#endif
