/*
 * The JPEG 2000 encoder's bytes (codec/j2k/htj2k.h) against a table of the
 * codestreams it made before the codestream layer was shared with the
 * decoder (issue 21): the same input and settings must give the same
 * bytes.  Each case makes an image here (integer arithmetic only, seeded
 * by the case: gradients, rectangles, hashed noise, flat regions and
 * sparse dots, so that bands have both coded and all-zero code-blocks),
 * runs it through sci_wt_forward and sci_htj2k_encode, and compares the
 * MD5 of the codestream, its length, sci_htj2k_max_bytes and the step
 * rate control settled on with the table's line.  The matrix crosses both
 * block coders and filters with the five progressions, code-block sizes,
 * Part 1 styles and layers, bitrate targets, sizes from 1x1, 1 to 4
 * components, subsampled chroma, depths 1 to 16, 0 to 32 levels, qstep and
 * JPH, then adds cases drawn from all of it.
 *
 * Each case is also coded the way the CUDA backends drive the encoder:
 * blocks quantized through sci_htj2k_block_quantize and coded by the
 * public block coders, the codestream written by sci_htj2k_write,
 * sci_htj2k_write_frame (bodies copied into its spans),
 * sci_htj2k_search_rate or sci_j2k_part1_write; each must equal the
 * encoder's own bytes.  A cap one byte short must give 0.
 *
 * Each case is coded once more with PLT segments (params plt): their
 * lengths must tile the tile-part's data to its EOC, the backends' route
 * must give the same bytes, a cap one byte short 0, and without a bitrate
 * target the stream with its PLT segments taken out must be the table's
 * stream (with one, Part 1 must still meet the target where it did
 * without PLT).  The table's streams themselves have no PLT.
 *
 *   test-codec-j2k-bytes --table FILE    compare (FILE: j2k_bytes.md5)
 *   test-codec-j2k-bytes --print         print the table
 *
 * The table was printed by this program built from main at 2dd0d97 (the
 * encoder before the refactor), on x86-64 Debian 12 (GCC 12, glibc 2.36):
 * the 9/7 transform and the synthesis norms are single and double
 * precision floating point, computed in a fixed order without FMA
 * contraction, so another architecture's libm could change 9/7 lines.
 */
#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/j2k/ht_block.h"
#include "codec/j2k/htj2k.h"
#include "codec/j2k/t1.h"
#include "codec/j2k/wavelet_frame.h"
#include "tests/common/testutil.h"
#include "j2kplt.h"

typedef struct {
    uint32_t w, h;
    unsigned comps, depth, sub; /* sub: 444, 422, 420, 410 (4:1:0) */
    int irrev, part1, content;
    unsigned levels, cbw, cbh, prog, layers, style;
    double bitrate, qstep;
    int jph, threads;
    uint64_t seed;
} tcase;

static const char *prog_name[] = {"LRCP", "RLCP", "RPCL", "PCRL", "CPRL"};
static const char *content_name[] = {"nat", "flat", "half", "dots", "noise"};

static void label(const tcase *t, char *b, size_t n) {
    snprintf(b, n,
             "%s %s %ux%u c%u d%u s%u %s L%u cb%ux%u %s ly%u st%02x br%g q%g%s%s",
             t->part1 ? "p1" : "ht", t->irrev ? "97" : "53", t->w, t->h,
             t->comps, t->depth, t->sub, content_name[t->content], t->levels,
             1u << t->cbw, 1u << t->cbh, prog_name[t->prog], t->layers,
             t->style, t->bitrate, t->qstep, t->jph ? " jph" : "",
             t->threads ? " mt" : "");
}

/* ---- images ------------------------------------------------------------- */

static uint32_t hash32(uint64_t v) {
    v ^= v >> 33;
    v *= 0xff51afd7ed558ccdull;
    v ^= v >> 33;
    v *= 0xc4ceb9fe1a85ec53ull;
    v ^= v >> 33;
    return (uint32_t)v;
}

/* Component c's samples, w x h, values below 2^depth. */
static void make_plane(const tcase *t, unsigned c, uint32_t w, uint32_t h,
                       uint32_t *s) {
    uint32_t maxv = (1u << t->depth) - 1;
    uint64_t seed = t->seed * 1315423911u + c * 2654435761u;
    uint32_t r0 = hash32(seed), r1 = hash32(seed + 1), r2 = hash32(seed + 2);
    /* a rectangle and a slope, in 1/1024 of the range */
    uint32_t rx0 = r0 % (w + 1), ry0 = (r0 >> 16) % (h + 1);
    uint32_t rx1 = rx0 + r1 % (w + 1), ry1 = ry0 + (r1 >> 16) % (h + 1);
    int gx = (int)(r2 % 64) - 32, gy = (int)((r2 >> 8) % 64) - 32;
    unsigned noise = 2 + (r2 >> 16) % 40;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            int64_t v;
            uint32_t hz = hash32(seed ^ ((uint64_t)y << 32 | x));
            switch (t->content) {
            case 1: /* flat */
                v = 300;
                break;
            case 2: /* left half flat, right half textured */
                if (x < w / 2) {
                    v = 700;
                    break;
                }
                /* fall through */
            case 0: /* natural */
                v = 512 + gx * (int64_t)x * 12 / (w + 1) +
                    gy * (int64_t)y * 12 / (h + 1);
                if (x >= rx0 && x < rx1 && y >= ry0 && y < ry1)
                    v += 180;
                v += ((x * 7 + y * 3) % 23) * 3;
                v += (int64_t)(hz % (2 * noise + 1)) - noise;
                break;
            case 3: /* sparse dots on flat ground */
                v = (hz % 97) == 0 ? 900 : 100;
                break;
            default: /* full-range noise */
                v = hz % 1024;
                break;
            }
            v = v < 0 ? 0 : v > 1023 ? 1023 : v;
            /* to the depth: 10 bits scaled up or down */
            uint32_t u = t->depth >= 10 ? (uint32_t)v << (t->depth - 10) :
                         (uint32_t)v >> (10 - t->depth);
            if (t->content == 4 && t->depth > 10)
                u |= hz >> (32 - (t->depth - 10));
            s[(size_t)y * w + x] = u > maxv ? maxv : u;
        }
}

static void geometry(const tcase *t, sci_wt_geometry *g) {
    memset(g, 0, sizeof *g);
    g->width = t->w;
    g->height = t->h;
    g->components = t->comps;
    g->depth = t->depth;
    for (unsigned c = 0; c < t->comps; c++) {
        int chroma = c > 0 && c < 3 && t->comps >= 3;
        g->dx[c] = chroma && t->sub != 444 ? (t->sub == 410 ? 4 : 2) : 1;
        g->dy[c] = chroma && (t->sub == 420 || t->sub == 410) ? 2 : 1;
    }
    g->filter = t->irrev ? SCI_DWT_97 : SCI_DWT_53;
    g->levels = t->levels;
    g->ct = t->comps >= 3 && t->sub == 444 ?
            (t->irrev ? SCI_CT_ICT : SCI_CT_RCT) : SCI_CT_NONE;
}

static void params(const tcase *t, sci_htj2k_params *p) {
    sci_htj2k_params_default(p);
    p->coder = t->part1 ? SCI_J2K_CODER_PART1 : SCI_J2K_CODER_HT;
    p->qstep = t->qstep;
    p->cb_w_log2 = t->cbw;
    p->cb_h_log2 = t->cbh;
    p->progression = (sci_j2k_progression)t->prog;
    p->bitrate = t->bitrate;
    p->layers = t->layers;
    p->cb_style = t->style;
    p->jph = t->jph;
}

/* The coefficients of case t (NULL when the geometry is refused). */
static void *coefficients(const tcase *t, const sci_wt_geometry *g) {
    unsigned bps = sci_wt_sample_bytes(g);
    sci_wt_plane pl[SCI_WT_MAX_COMPONENTS];
    uint8_t *planes[SCI_WT_MAX_COMPONENTS] = {0};
    void *coeffs = malloc(sci_wt_coeff_count(g) * 4);
    int ok = coeffs != NULL;
    for (unsigned c = 0; ok && c < g->components; c++) {
        uint32_t w = sci_wt_comp_width(g, c), h = sci_wt_comp_height(g, c);
        uint32_t *s = malloc((size_t)w * h * sizeof *s);
        planes[c] = malloc((size_t)w * h * bps);
        if (!s || !planes[c]) {
            free(s);
            ok = 0;
            break;
        }
        make_plane(t, c, w, h, s);
        for (size_t i = 0; i < (size_t)w * h; i++) {
            planes[c][i * bps] = (uint8_t)s[i];
            if (bps == 2)
                planes[c][i * bps + 1] = (uint8_t)(s[i] >> 8);
        }
        free(s);
        pl[c].data = planes[c];
        pl[c].row_stride = (ptrdiff_t)w * bps;
        pl[c].pixel_stride = bps;
    }
    if (ok && sci_wt_forward(NULL, g, pl, coeffs) != 0)
        ok = 0;
    for (unsigned c = 0; c < SCI_WT_MAX_COMPONENTS; c++)
        free(planes[c]);
    if (!ok) {
        free(coeffs);
        return NULL;
    }
    return coeffs;
}

/* ---- the CUDA backends' way through the encoder ---------------------- */

typedef struct {
    sci_htj2k_enc *e;
    const void *coeffs;
    uint8_t *bytes;
    size_t *off;
    int failed;
} ext_ht;

/* Codes every block with the public HT block coder at the encoder's
 * current steps, as cuda/j2k/htj2k.cu does on the device. */
static long ext_ht_code(void *ctx, long *len) {
    ext_ht *x = ctx;
    size_t n = sci_htj2k_block_count(x->e), at = 0;
    uint32_t sm[4096];
    for (size_t i = 0; i < n; i++) {
        sci_htj2k_block_info bi;
        sci_htj2k_block_get(x->e, i, &bi);
        x->off[i] = at;
        if (sci_htj2k_block_quantize(x->e, i, x->coeffs, sm) < 0)
            return -1;
        len[i] = sci_ht_encode_block(sci_htj2k_tables(x->e), sm, bi.w, bi.h,
                                     bi.w, x->bytes + at, bi.max_bytes);
        if (len[i] < 0)
            return -1;
        at += bi.max_bytes;
    }
    return 0;
}

/* The codestream of the external route, or NULL. */
static uint8_t *external(const tcase *t, sci_htj2k_enc *e, const void *coeffs,
                         size_t cap, size_t *len, size_t *len_frame) {
    size_t n = sci_htj2k_block_count(e), total = 0;
    *len = *len_frame = 0;
    for (size_t i = 0; i < n; i++) {
        sci_htj2k_block_info bi;
        sci_htj2k_block_get(e, i, &bi);
        total += bi.max_bytes;
    }
    uint8_t *bytes = malloc(total ? total : 1);
    size_t *off = calloc(n ? n : 1, sizeof *off);
    long *blen = calloc(n ? n : 1, sizeof *blen);
    uint8_t *out = malloc(cap), *out2 = malloc(cap);
    sci_htj2k_span *spans =
        malloc((sci_htj2k_packet_count(e) + 1) * sizeof *spans);
    int ok = bytes && off && blen && out && out2 && spans;
    if (ok && !t->part1) {
        ext_ht x = {e, coeffs, bytes, off, 0};
        if (t->irrev && t->bitrate > 0)
            ok = sci_htj2k_search_rate(e, ext_ht_code, &x) == 0;
        else
            ok = ext_ht_code(&x, blen) == 0;
        if (ok && t->irrev && t->bitrate > 0) {
            /* search_rate left the lengths in the encoder; code again at
             * the chosen step for our own copy */
            ok = ext_ht_code(&x, blen) == 0;
        }
        if (ok)
            *len = sci_htj2k_write(e, blen, bytes, off, out, cap);
        size_t ns = 0;
        if (ok)
            *len_frame = sci_htj2k_write_frame(e, blen, out2, cap, spans, &ns);
        for (size_t s = 0; ok && s < ns; s++) {
            uint8_t *d = out2 + spans[s].dst;
            size_t sum = 0;
            for (size_t k = spans[s].first; k < spans[s].first + spans[s].count;
                 k++)
                if (blen[k] > 0) {
                    memcpy(d, bytes + off[k], (size_t)blen[k]);
                    d += blen[k];
                    sum += (size_t)blen[k];
                }
            if (sum != spans[s].bytes)
                ok = 0;
        }
        if (ok && (*len != *len_frame || memcmp(out, out2, *len)))
            ok = 0;
    } else if (ok) {
        sci_t1_coder *coder = malloc(sizeof *coder);
        sci_t1_result *res = malloc((n ? n : 1) * sizeof *res);
        sci_j2k_block_passes *blk = calloc(n ? n : 1, sizeof *blk);
        uint32_t sm[4096];
        size_t at = 0;
        ok = coder && res && blk;
        for (size_t i = 0; ok && i < n; i++) {
            sci_htj2k_block_info bi;
            sci_t1_params tp;
            sci_htj2k_block_get(e, i, &bi);
            sci_htj2k_t1_params(e, i, &tp);
            off[i] = at;
            if (sci_htj2k_block_quantize(e, i, coeffs, sm) < 0 ||
                sci_t1_encode(coder, &tp, sm, bi.w, bytes + at, bi.max_bytes,
                              &res[i]) < 0)
                ok = 0;
            else
                sci_j2k_block_passes_from(&blk[i], &res[i]);
            at += bi.max_bytes;
        }
        if (ok)
            *len = sci_j2k_part1_write(e, blk, bytes, off, out, cap);
        *len_frame = *len;
        free(coder);
        free(res);
        free(blk);
    }
    free(bytes);
    free(off);
    free(blen);
    free(out2);
    free(spans);
    if (!ok || !*len) {
        free(out);
        return NULL;
    }
    return out;
}

/* ---- one case ------------------------------------------------------------ */

typedef struct {
    char md5[33];
    size_t len, max;
    double qstep;
    int external_ok, short_ok;
} result;

/* 0, or -1 when the encoder refused or failed (reported in the table as
 * such, which is a result too). */
static int run_case(const tcase *t, result *r) {
    sci_wt_geometry g;
    sci_htj2k_params p;
    geometry(t, &g);
    params(t, &p);
    memset(r, 0, sizeof *r);
    strcpy(r->md5, "-");
    if (sci_htj2k_check(&g, &p))
        return -1;
    void *coeffs = coefficients(t, &g);
    sci_pool *pool = t->threads ? test_pool() : NULL;
    sci_htj2k_enc *e = coeffs ? sci_htj2k_enc_new(&g, &p, pool) : NULL;
    uint8_t *out = NULL, *ext = NULL;
    int ret = -1;
    if (!e)
        goto done;
    r->max = sci_htj2k_max_bytes(e);
    out = malloc(r->max);
    if (!out)
        goto done;
    r->len = sci_htj2k_encode(e, coeffs, out, r->max);
    if (!r->len)
        goto done;
    r->qstep = sci_htj2k_last_qstep(e);
    gchar *sum = g_compute_checksum_for_data(G_CHECKSUM_MD5, out, r->len);
    snprintf(r->md5, sizeof r->md5, "%s", sum);
    g_free(sum);
    /* one byte short: nothing */
    uint8_t *small = malloc(r->len);
    r->short_ok = small && sci_htj2k_encode(e, coeffs, small, r->len - 1) == 0;
    free(small);
    /* the external route from a fresh encoder (rate control starts from
     * the same state) */
    sci_htj2k_enc *e2 = sci_htj2k_enc_new(&g, &p, pool);
    size_t l1 = 0, l2 = 0;
    ext = e2 ? external(t, e2, coeffs, r->max, &l1, &l2) : NULL;
    r->external_ok = ext && l1 == r->len && l2 == r->len &&
                     !memcmp(ext, out, r->len) &&
                     sci_htj2k_last_qstep(e2) == r->qstep;
    sci_htj2k_enc_free(e2);
    ret = 0;
done:
    sci_htj2k_enc_free(e);
    free(coeffs);
    free(out);
    free(ext);
    return ret;
}

/* ---- PLT ------------------------------------------------------------------ */

/* Case t coded without and with PLT (see the top); the checks are named
 * after `line`. */
static void check_plt(const tcase *t, const char *line) {
    sci_wt_geometry g;
    sci_htj2k_params p;
    char what[1200];
    geometry(t, &g);
    params(t, &p);
    if (sci_htj2k_check(&g, &p))
        return;
    p.plt = 1;
    if (sci_htj2k_check(&g, &p)) {
        /* PLT's bytes can only push a bitrate below the headers */
        snprintf(what, sizeof what, "%.600s: plt refused only for a bitrate",
                 line);
        check(t->bitrate > 0, what);
        return;
    }
    void *coeffs = coefficients(t, &g);
    sci_pool *pool = t->threads ? test_pool() : NULL;
    sci_htj2k_params p0 = p;
    p0.plt = 0;
    sci_htj2k_enc *e = coeffs ? sci_htj2k_enc_new(&g, &p, pool) : NULL;
    sci_htj2k_enc *e0 = coeffs ? sci_htj2k_enc_new(&g, &p0, pool) : NULL;
    sci_htj2k_enc *e2 = coeffs ? sci_htj2k_enc_new(&g, &p, pool) : NULL;
    snprintf(what, sizeof what, "%.600s: plt: encoders made", line);
    check(e && e0 && e2, what);
    if (!e || !e0 || !e2)
        goto done;
    size_t max = sci_htj2k_max_bytes(e), max0 = sci_htj2k_max_bytes(e0);
    uint8_t *out = malloc(max), *out0 = malloc(max0);
    size_t len = out ? sci_htj2k_encode(e, coeffs, out, max) : 0;
    size_t len0 = out0 ? sci_htj2k_encode(e0, coeffs, out0, max0) : 0;
    snprintf(what, sizeof what, "%.600s: plt: codes (%zu bytes, %zu without)",
             line, len, len0);
    check(len && len0, what);
    if (!len || !len0)
        goto free_out;
    j2kt_plt pt, pt0;
    const char *why = "", *why0 = "";
    int r = j2kt_plt_parse(out, len, &pt, &why);
    int r0 = j2kt_plt_parse(out0, len0, &pt0, &why0);
    size_t want = sci_htj2k_packet_count(e) * t->layers;
    snprintf(what, sizeof what, "%.600s: plt: %zu packet lengths in %u "
             "segments tile the tile-part to its EOC (%s; %zu packets)", line,
             pt.n, pt.segs, r ? why : "ok", want);
    check(r == 0 && pt.segs >= 1 && pt.n == want, what);
    snprintf(what, sizeof what, "%.600s: without plt no PLT (%s)", line,
             r0 ? why0 : "ok");
    check(r0 == 0 && pt0.segs == 0, what);
    /* the backends' route and a short cap */
    size_t l1 = 0, l2 = 0;
    uint8_t *ext = external(t, e2, coeffs, max, &l1, &l2);
    snprintf(what, sizeof what, "%.600s: plt: the backends' route gives the same "
             "bytes", line);
    check(ext && l1 == len && l2 == len && !memcmp(ext, out, len), what);
    free(ext);
    uint8_t *small = malloc(len);
    snprintf(what, sizeof what, "%.600s: plt: a cap one byte short gives 0", line);
    check(small && sci_htj2k_encode(e, coeffs, small, len - 1) == 0, what);
    free(small);
    if (r == 0 && t->bitrate <= 0) {
        size_t m = 0;
        uint8_t *s = j2kt_plt_strip(out, len, &pt, &m);
        snprintf(what, sizeof what, "%.600s: plt: without its PLT segments the "
                 "stream is the one without plt (%zu bytes, %zu)", line, m,
                 len0);
        check(s && m == len0 && !memcmp(s, out0, m), what);
        free(s);
    } else if (t->part1) {
        double target = t->bitrate * (double)t->w * t->h / 8;
        snprintf(what, sizeof what, "%.600s: plt: %zu bytes meet the target of "
                 "%.0f as %zu bytes without plt do", line, len, target, len0);
        check((double)len0 > target || (double)len <= target, what);
    }
    j2kt_plt_free(&pt);
    j2kt_plt_free(&pt0);
free_out:
    free(out);
    free(out0);
done:
    sci_htj2k_enc_free(e);
    sci_htj2k_enc_free(e0);
    sci_htj2k_enc_free(e2);
    free(coeffs);
}

/* ---- the matrix ----------------------------------------------------------- */

static tcase *cases;
static size_t ncases, cases_cap;

static void add(tcase t) {
    if (ncases == cases_cap) {
        cases_cap = cases_cap ? 2 * cases_cap : 256;
        cases = realloc(cases, cases_cap * sizeof *cases);
        if (!cases)
            exit(2);
    }
    t.seed = ncases + 1;
    cases[ncases++] = t;
}

static tcase base(void) {
    tcase t;
    memset(&t, 0, sizeof t);
    t.w = 96, t.h = 80, t.comps = 1, t.depth = 8, t.sub = 444;
    t.levels = 3, t.cbw = 5, t.cbh = 5, t.prog = SCI_J2K_RPCL;
    t.layers = 1, t.qstep = 1.0 / 256;
    return t;
}

static void build_matrix(void) {
    /* coder x filter x progression, 3 components, with layers for Part 1 */
    for (int part1 = 0; part1 < 2; part1++)
        for (int irrev = 0; irrev < 2; irrev++)
            for (unsigned prog = 0; prog < 5; prog++) {
                tcase t = base();
                t.part1 = part1, t.irrev = irrev, t.prog = prog;
                t.comps = 3, t.w = 77, t.h = 61;
                t.layers = part1 ? 1 + prog : 1;
                t.content = prog % 3 == 2 ? 2 : 0;
                add(t);
            }
    /* sizes, from a single sample */
    static const uint32_t sizes[][2] = {{1, 1}, {2, 3}, {5, 1}, {1, 7},
                                        {17, 9}, {64, 64}, {65, 33},
                                        {131, 77}, {33, 260}, {260, 12}};
    for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int part1 = 0; part1 < 2; part1++) {
            tcase t = base();
            t.w = sizes[i][0], t.h = sizes[i][1];
            t.part1 = part1, t.irrev = i % 2;
            t.levels = i % 6;
            t.content = i % 5;
            add(t);
        }
    /* formats: components, subsampling, depth */
    static const unsigned fmts[][3] = {
        {1, 1, 444}, {1, 12, 444}, {1, 16, 444}, {3, 8, 444}, {3, 10, 422},
        {3, 8, 420}, {3, 12, 410}, {4, 8, 444}, {4, 16, 420}, {2, 9, 444},
        {3, 2, 444}, {4, 1, 422}};
    for (unsigned i = 0; i < sizeof fmts / sizeof fmts[0]; i++)
        for (int k = 0; k < 4; k++) {
            tcase t = base();
            t.comps = fmts[i][0], t.depth = fmts[i][1], t.sub = fmts[i][2];
            t.part1 = k / 2, t.irrev = k % 2;
            t.w = 70 + 3 * i, t.h = 45 + i;
            t.content = (i + k) % 5;
            t.prog = (i + k) % 5;
            add(t);
        }
    /* levels, to beyond what the image has */
    static const unsigned levels[] = {0, 1, 2, 4, 5, 6, 8, 12, 32};
    for (unsigned i = 0; i < sizeof levels / sizeof levels[0]; i++)
        for (int k = 0; k < 4; k++) {
            tcase t = base();
            t.levels = levels[i];
            t.part1 = k / 2, t.irrev = k % 2;
            t.w = 64 + 7 * i, t.h = 64 - 3 * i;
            t.comps = i % 3 == 0 ? 3 : 1;
            add(t);
        }
    /* code-block sizes */
    static const unsigned cbs[][2] = {{2, 2}, {3, 5}, {4, 4}, {6, 6}, {2, 10},
                                      {10, 2}, {6, 4}, {5, 7}};
    for (unsigned i = 0; i < sizeof cbs / sizeof cbs[0]; i++)
        for (int k = 0; k < 4; k++) {
            tcase t = base();
            t.cbw = cbs[i][0], t.cbh = cbs[i][1];
            t.part1 = k / 2, t.irrev = k % 2;
            t.w = 150, t.h = 90;
            t.content = k == 1 ? 3 : i % 2 ? 2 : 0;
            t.threads = i % 2;
            add(t);
        }
    /* Part 1 styles, with and without layers */
    static const unsigned styles[] = {
        0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x05, 0x11, 0x3F, 0x2A, 0x1C};
    for (unsigned i = 0; i < sizeof styles / sizeof styles[0]; i++)
        for (int k = 0; k < 2; k++) {
            tcase t = base();
            t.part1 = 1, t.irrev = (int)((i + k) % 2);
            t.style = styles[i];
            t.layers = k ? 4 : 1;
            t.comps = 3;
            t.prog = i % 5;
            t.content = i % 3 == 0 ? 2 : 0;
            add(t);
        }
    /* Part 1 layers and bitrates */
    static const unsigned layers[] = {1, 2, 3, 7, 16, 64};
    for (unsigned i = 0; i < sizeof layers / sizeof layers[0]; i++)
        for (int k = 0; k < 4; k++) {
            tcase t = base();
            t.part1 = 1, t.irrev = k % 2;
            t.layers = layers[i];
            t.bitrate = k / 2 ? 0.0 : (i % 3 == 0 ? 0.5 : i % 3 == 1 ? 2 : 6);
            t.comps = i % 2 ? 3 : 1;
            t.w = 120, t.h = 100;
            t.prog = (i + k) % 5;
            t.threads = k == 3;
            add(t);
        }
    /* HT bitrate targets (9/7), a few steps, JPH */
    static const double rates[] = {0.3, 1.0, 2.5, 6.0};
    for (unsigned i = 0; i < sizeof rates / sizeof rates[0]; i++)
        for (int k = 0; k < 2; k++) {
            tcase t = base();
            t.irrev = 1, t.bitrate = rates[i];
            t.comps = k ? 3 : 1;
            t.w = 128, t.h = 96;
            t.jph = k && i % 2;
            add(t);
        }
    static const double steps[] = {1e-9, 1.0 / 4096, 1.0 / 64, 0.25, 2.0};
    for (unsigned i = 0; i < sizeof steps / sizeof steps[0]; i++)
        for (int part1 = 0; part1 < 2; part1++) {
            tcase t = base();
            t.irrev = 1, t.part1 = part1, t.qstep = steps[i];
            t.comps = 3;
            t.depth = i % 2 ? 12 : 8;
            add(t);
        }
    for (unsigned i = 0; i < 6; i++) {
        tcase t = base();
        t.jph = 1;
        t.irrev = i % 2;
        t.comps = i < 2 ? 1 : i < 4 ? 3 : 4;
        t.sub = i == 3 ? 420 : 444;
        add(t);
    }
    /* drawn from all of it */
    rng_state = 21;
    for (unsigned i = 0; i < 120; i++) {
        tcase t = base();
        t.part1 = (int)(rng() % 2);
        t.irrev = (int)(rng() % 2);
        t.w = 1 + (uint32_t)(rng() % 180);
        t.h = 1 + (uint32_t)(rng() % 140);
        t.comps = 1 + (unsigned)(rng() % 4);
        t.depth = 1 + (unsigned)(rng() % 16);
        static const unsigned subs[] = {444, 422, 420, 410};
        t.sub = subs[rng() % 4];
        t.content = (int)(rng() % 5);
        t.levels = (unsigned)(rng() % 8);
        t.cbw = 2 + (unsigned)(rng() % 7);
        t.cbh = 2 + (unsigned)(rng() % 7);
        if (t.cbw + t.cbh > 12)
            t.cbh = 12 - t.cbw;
        t.prog = (unsigned)(rng() % 5);
        if (t.part1) {
            t.layers = 1 + (unsigned)(rng() % 6);
            t.style = (unsigned)(rng() % 64);
            t.bitrate = rng() % 3 ? 0 : 0.25 + (double)(rng() % 16) / 4;
        } else if (t.irrev && rng() % 3 == 0) {
            t.bitrate = 0.5 + (double)(rng() % 12) / 4;
        }
        if (t.irrev)
            t.qstep = 1.0 / (double)(1u << (rng() % 14));
        t.jph = !t.part1 && rng() % 5 == 0;
        t.threads = (int)(rng() % 2);
        add(t);
    }
    /* Part 1 rate allocation over thousands of code-blocks, whose hulls,
     * truncation sums and packet counts run on the pool's threads, and
     * (the first, over 65536 hull slopes) the slopes' sort */
    for (int k = 0; k < 3; k++) {
        tcase t = base();
        t.part1 = 1, t.irrev = k < 2;
        t.comps = 3, t.w = k ? 640 : 1280, t.h = k ? 360 : 720;
        t.levels = 5, t.cbw = 4, t.cbh = 4;
        t.layers = k ? 3 : 1;
        t.bitrate = k == 1 ? 2.0 : 1.0;
        t.prog = k;
        t.threads = 1;
        add(t);
    }
}

/* ---- table ---------------------------------------------------------------- */

static void format_line(const tcase *t, const result *r, int refused,
                        char *b, size_t n) {
    char lab[160];
    label(t, lab, sizeof lab);
    if (refused)
        snprintf(b, n, "%s|refused", lab);
    else
        snprintf(b, n, "%s|%s|%zu|%zu|%.17g", lab, r->md5, r->len, r->max,
                 r->qstep);
}

int main(int argc, char **argv) {
    const char *table = NULL;
    int print = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--table") && i + 1 < argc)
            table = argv[++i];
        else if (!strcmp(argv[i], "--print"))
            print = 1;
    }
    if (!print && !table) {
        fprintf(stderr, "usage: %s --table FILE | --print\n", argv[0]);
        return 2;
    }
    build_matrix();
    FILE *f = NULL;
    if (!print) {
        f = fopen(table, "r");
        if (!f) {
            perror(table);
            return 2;
        }
    }
    unsigned same = 0, differ = 0, refused = 0;
    for (size_t i = 0; i < ncases; i++) {
        result r;
        int bad = run_case(&cases[i], &r);
        char line[512], want[512];
        format_line(&cases[i], &r, bad, line, sizeof line);
        refused += bad != 0;
        if (print) {
            printf("%s\n", line);
            continue;
        }
        if (!fgets(want, sizeof want, f))
            want[0] = 0;
        want[strcspn(want, "\n")] = 0;
        char what[1200];
        snprintf(what, sizeof what, "case %zu: %s (table: %s)", i + 1, line,
                 want);
        int eq = !strcmp(line, want);
        same += eq;
        differ += !eq;
        check(eq, what);
        if (!bad) {
            snprintf(what, sizeof what, "case %zu: %s: the backends' route "
                     "gives the same bytes", i + 1, line);
            check(r.external_ok, what);
            snprintf(what, sizeof what, "case %zu: %s: a cap one byte short "
                     "gives 0", i + 1, line);
            check(r.short_ok, what);
            snprintf(what, sizeof what, "case %zu: %s", i + 1, line);
            check_plt(&cases[i], what);
        }
    }
    if (f) {
        char extra[512];
        check(!fgets(extra, sizeof extra, f), "the table has no more lines "
              "than the matrix has cases");
        fclose(f);
        printf("%zu cases (%u refused by sci_htj2k_check as the table says): "
               "%u the same, %u differ\n", ncases, refused, same, differ);
        printf("%u passed, %u failed\n", check_passed, check_failed);
    }
    free(cases);
    return check_failed ? 1 : 0;
}
