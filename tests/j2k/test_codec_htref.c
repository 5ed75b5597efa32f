/*
 * HT refinement passes in the encoder (sci_htj2k_params refinement,
 * codec/j2k/htj2k.h): codestreams whose blocks are a cleanup pass at
 * bit-plane 1 and the SigProp (and MagRef) pass of plane 0.
 *
 *   - refusals: lossless (5/3) and Part 1 with refinement, unknown modes,
 *     the block API (other backends' blocks are cleanup-only);
 *   - the passes are there: our decoder's tier-2 reports blocks of 2
 *     (sigprop) or 3 (all) passes, no more than the mode allows;
 *   - three decoders agree: ojph_expand, opj_decompress and our
 *     sci_j2k_dec decode every stream (gray and 3 components, 8 to 16
 *     bits, with and without ICT, odd sizes, code-blocks from 4x1024 to
 *     64x64, the vertically causal style) within 1 of each other, their
 *     PSNRs within 0.01 dB (each tool is skipped only where it is not
 *     installed);
 *   - quality: against the source, all passes give a PSNR no higher than
 *     the cleanup-only stream at the same steps plus 0.05 dB, and no lower
 *     than the bound below; SigProp alone lies between the stream cut to
 *     its cleanup passes and all passes.  The bound: refinement decodes
 *     exactly what the cleanup-only stream decodes except at samples of
 *     quantisation index 1 that SigProp skips, each of which costs at
 *     most (2 Delta_b)^2 in the coefficient domain, norm_b^2 (its band's
 *     synthesis gain) in the image; so SSE_ref <= SSE_cleanup + 1.25 *
 *     sum over all index-1 samples of 4 Delta_b^2 norm_b^2 (all index-1
 *     samples, an upper bound on the skipped ones; 1.25 for the cross
 *     terms of the non-orthogonal 9/7 and rounding);
 *   - rate control: with a bitrate target, refinement truncation lands at
 *     or below the target and closer to it than the step search alone.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec/j2k/htj2k.h"
#include "codec/j2k/j2k_dec.h"
#include "codec/j2k/j2k_quant.h"
#include "tests/common/testutil.h"
#include "tests/j2k/j2kdec_util.h"

static char workdir[] = "/tmp/test-htref-XXXXXX";

typedef struct
{
  const char *name;
  unsigned w, h, nc, depth;
  sci_colour_transform ct;
  unsigned levels, cbw, cbh;
  unsigned style;               /* SCI_T1_VCAUSAL or 0 */
  double qstep;                 /* in units of 2^-depth */
  double bitrate;               /* 0: qstep */
} ref_case;

static int
have_tool (const char *name)
{
  char cmd[256];
  snprintf (cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", name);
  return system (cmd) == 0;
}

/* Seeded content: a smooth gradient, a few edges, texture and noise,
 * different in each component, over the component's whole range. */
static void
make_image (const ref_case * k, uint64_t seed, j2kt_image * im)
{
  memset (im, 0, sizeof *im);
  rng_state = seed;
  im->nc = k->nc;
  double top = (double) ((1u << k->depth) - 1);
  for (unsigned c = 0; c < k->nc; c++) {
    im->w[c] = k->w, im->h[c] = k->h, im->depth[c] = k->depth;
    im->s[c] = malloc ((size_t) k->w * k->h * sizeof (int32_t));
    double fx = 3.0 + c, fy = 2.0 + 0.5 * c;
    for (unsigned y = 0; y < k->h; y++)
      for (unsigned x = 0; x < k->w; x++) {
        double u = (double) x / k->w, v = (double) y / k->h;
        double s = 0.45 + 0.25 * sin (fx * u + fy * v) +
            0.1 * ((x / 9 + y / 7 + c) % 2) +
            0.05 * sin (0.9 * x) * cos (1.3 * y) +
            0.02 * ((double) (rng () % 1000) / 1000.0 - 0.5);
        s = s < 0 ? 0 : s > 1 ? 1 : s;
        im->s[c][(size_t) y * k->w + x] = (int32_t) lround (s * top);
      }
  }
}

static void
geometry (const ref_case * k, sci_wt_geometry * g)
{
  memset (g, 0, sizeof *g);
  g->width = k->w, g->height = k->h;
  g->components = k->nc, g->depth = k->depth;
  for (unsigned c = 0; c < k->nc; c++)
    g->dx[c] = g->dy[c] = 1;
  g->filter = SCI_DWT_97;
  g->levels = k->levels;
  g->ct = k->ct;
}

static void
params (const ref_case * k, sci_htj2k_refinement ref, sci_htj2k_params * p)
{
  sci_htj2k_params_default (p);
  p->cb_w_log2 = k->cbw, p->cb_h_log2 = k->cbh;
  p->qstep = k->qstep / (double) (1u << k->depth);
  p->bitrate = k->bitrate;
  p->refinement = ref;
  p->cb_style = ref ? k->style : 0;
}

/* The codestream (malloc'ed) of the coefficients; *qstep gets the step used. */
static uint8_t *
encode (const sci_wt_geometry * g, const sci_htj2k_params * p,
    const void *coeffs, size_t *len, double *qstep)
{
  sci_htj2k_enc *e = sci_htj2k_enc_new (g, p, test_pool ());
  if (!e)
    return NULL;
  size_t cap = sci_htj2k_max_bytes (e);
  uint8_t *out = malloc (cap);
  *len = sci_htj2k_encode (e, coeffs, out, cap);
  if (qstep)
    *qstep = sci_htj2k_last_qstep (e);
  sci_htj2k_enc_free (e);
  if (!*len) {
    free (out);
    return NULL;
  }
  return out;
}

/* Blocks of the stream by their pass count (our decoder's tier-2). */
static int
pass_counts (const uint8_t * cs, size_t len, unsigned n[4])
{
  memset (n, 0, 4 * sizeof *n);
  sci_j2k_dec *d = sci_j2k_dec_new ();
  sci_j2k_info info;
  sci_j2k_tile_blocks tb;
  sci_j2k_decode_params dp = { 0, 0 };
  int r = sci_j2k_dec_parse (d, cs, len, &info);
  if (!r)
    r = sci_j2k_dec_tile_blocks (d, 0, &dp, &tb);
  if (!r)
    for (size_t i = 0; i < tb.nblocks; i++)
      n[tb.blocks[i].passes > 3 ? 0 : tb.blocks[i].passes]++;
  sci_j2k_dec_free (d);
  return r;
}

/* Bound of the header: 4 Delta_b^2 norm_b^2 summed over index-1 samples. */
static double
index1_cost (const sci_wt_geometry * g, const sci_htj2k_params * p,
    const void *coeffs, double qstep)
{
  sci_htj2k_params q = *p;
  q.refinement = SCI_HTJ2K_REF_NONE;
  q.bitrate = 0;
  q.cb_style = 0;
  q.qstep = qstep;
  sci_htj2k_enc *e = sci_htj2k_enc_new (g, &q, NULL);
  if (!e)
    return NAN;
  static uint32_t sm[4096];
  double cost = 0;
  for (size_t i = 0; i < sci_htj2k_block_count (e); i++) {
    sci_htj2k_block_info bi;
    sci_htj2k_block_get (e, i, &bi);
    sci_htj2k_block_quantize (e, i, coeffs, sm);
    size_t n1 = 0;
    for (size_t j = 0; j < (size_t) bi.w * bi.h; j++)
      n1 += (sm[j] & 0x7FFFFFFFu) == 1;
    if (!n1)
      continue;
    /* the block's level from where it lies in the Mallat plane */
    uint32_t cw = sci_wt_comp_width (g, bi.comp), ch =
        sci_wt_comp_height (g, bi.comp);
    unsigned level = g->levels;
    if (bi.band != 0)
      for (unsigned d = 1; d <= g->levels; d++) {
        uint32_t lw = (cw + (1u << d) - 1) >> d, lh = (ch + (1u << d) - 1) >> d;
        uint32_t pw = (cw + (1u << (d - 1)) - 1) >> (d - 1);
        uint32_t ph = (ch + (1u << (d - 1)) - 1) >> (d - 1);
        int in = bi.band == 1 ? bi.x0 >= lw && bi.x0 < pw && bi.y0 < lh :
            bi.band == 2 ? bi.y0 >= lh && bi.y0 < ph && bi.x0 < lw :
            bi.x0 >= lw && bi.x0 < pw && bi.y0 >= lh && bi.y0 < ph;
        if (in) {
          level = d;
          break;
        }
      }
    double step = 1.0 / sci_htj2k_block_inv_step (e, i);
    double norm = sci_j2k_band_norm (SCI_DWT_97, level, bi.band);
    /* ICT: a component's error reaches up to three of RGB (Table G.2's
     * inverse columns: at most 1 + 1.772^2 in squares) */
    double ct = g->ct == SCI_CT_ICT ? (bi.comp == 0 ? 3.0 : 1 + 1.772 * 1.772 +
        1.402 * 1.402) : 1.0;
    cost += (double) n1 *4 * step * step * norm * norm * ct;
  }
  sci_htj2k_enc_free (e);
  return cost;
}

/* ---- the external decoders --------------------------------------------- */

/* ojph_expand's output: .pgm (gray), .ppm (ICT), .yuv (planar, 16-bit
 * little-endian above 8 bits); PNM above 8 bits is big-endian. */
static int
decode_ojph (const char *cs_path, const ref_case * k, j2kt_image * im)
{
  char out[512], log[512];
  const char *ext = k->nc == 1 ? "pgm" : k->ct == SCI_CT_ICT ? "ppm" : "yuv";
  snprintf (out, sizeof out, "%s/ojph.%s", workdir, ext);
  snprintf (log, sizeof log, "%s/ojph.log", workdir);
  remove (out);
  memset (im, 0, sizeof *im);
  if (j2kt_run (log, 60, "ojph_expand -i %s -o %s", cs_path, out) != 0)
    return -1;
  size_t n;
  uint8_t *d = j2kt_slurp (out, &n);
  if (!d)
    return -1;
  unsigned bps = k->depth > 8 ? 2 : 1, w = k->w, h = k->h, maxv = 0;
  size_t pos = 0, npx = (size_t) w * h;
  int pnm = strcmp (ext, "yuv") != 0;
  if (pnm) {
    unsigned pw, ph;
    if (j2kt_pnm_header (d, n, &pw, &ph, &maxv, &pos) || pw != w || ph != h) {
      free (d);
      return -1;
    }
    bps = maxv > 255 ? 2 : 1;
  }
  if (n < pos + npx * k->nc * bps) {
    free (d);
    return -1;
  }
  im->nc = k->nc;
  for (unsigned c = 0; c < k->nc; c++) {
    im->w[c] = w, im->h[c] = h, im->depth[c] = k->depth;
    im->s[c] = malloc (npx * sizeof (int32_t));
    for (size_t i = 0; i < npx; i++) {
      /* PNM interleaves; .yuv is planar */
      size_t at = pnm ? pos + (i * k->nc + c) * bps : (c * npx + i) * bps;
      im->s[c][i] = bps == 1 ? d[at] : pnm ? d[at] << 8 | d[at + 1]
          : d[at] | d[at + 1] << 8;
    }
  }
  free (d);
  return 0;
}

static double
psnr_of (const j2kt_image * a, const j2kt_image * b)
{
  return j2kt_psnr (a, b);
}

/* ---- cases --------------------------------------------------------------- */

static const ref_case cases[] = {
  {"gray8 97x61 64x64", 97, 61, 1, 8, SCI_CT_NONE, 3, 6, 6, 0, 1.0, 0},
  {"gray12 130x77 32x32 vcausal", 130, 77, 1, 12, SCI_CT_NONE, 4, 5, 5,
      SCI_T1_VCAUSAL, 24.0, 0},
  {"gray16 45x37 4x1024", 45, 37, 1, 16, SCI_CT_NONE, 2, 2, 10, 0, 300.0, 0},
  {"gray9 17x129 8x8 vcausal", 17, 129, 1, 9, SCI_CT_NONE, 5, 3, 3,
      SCI_T1_VCAUSAL, 3.0, 0},
  {"rgb10 ICT 64x48 16x64 vcausal", 64, 48, 3, 10, SCI_CT_ICT, 3, 4, 6,
      SCI_T1_VCAUSAL, 2.0, 0},
  {"3x8 no-ct 53x41 32x16", 53, 41, 3, 8, SCI_CT_NONE, 3, 5, 4, 0, 1.5, 0},
  {"3x16 no-ct 40x33 64x64", 40, 33, 3, 16, SCI_CT_NONE, 2, 6, 6, 0, 400.0, 0},
};

static void
run_case (const ref_case * k, int have_ojph, int have_opj)
{
  sci_wt_geometry g;
  geometry (k, &g);
  j2kt_image src;
  make_image (k, 1000 + (uint64_t) (k - cases), &src);
  void *coeffs = j2kt_forward (&g, &src);
  char msg[512];
  snprintf (msg, sizeof msg, "%s: forward transform", k->name);
  check (coeffs != NULL, msg);
  if (!coeffs) {
    j2kt_image_free (&src);
    return;
  }
  double psnr[3] = { 0 };       /* none, sigprop, all */
  for (int ref = 0; ref <= SCI_HTJ2K_REF_ALL; ref++) {
    sci_htj2k_params p;
    params (k, (sci_htj2k_refinement) ref, &p);
    const char *why = sci_htj2k_check (&g, &p);
    snprintf (msg, sizeof msg, "%s refinement %d: accepted (%s)", k->name, ref,
        why ? why : "");
    check (why == NULL, msg);
    size_t len = 0;
    double q;
    uint8_t *cs = encode (&g, &p, coeffs, &len, &q);
    snprintf (msg, sizeof msg, "%s refinement %d: encoded", k->name, ref);
    check (cs != NULL, msg);
    if (!cs)
      continue;
    unsigned np[4];
    int r = pass_counts (cs, len, np);
    unsigned most = ref == 2 ? 3 : ref == 1 ? 2 : 1;
    snprintf (msg, sizeof msg, "%s refinement %d: blocks of 1/2/3 passes "
        "%u/%u/%u (tier-2 %d)", k->name, ref, np[1], np[2], np[3], r);
    check (r == 0 && np[0] == 0 && np[most] > 0 &&
        (most == 3 || np[3] == 0) && (most >= 2 || np[2] == 0), msg);
    j2kt_image ours, opj, ojph;
    unsigned warn = 0;
    char err[256] = "";
    r = j2kt_decode_ours (cs, len, 0, 0, &ours, &warn, err, sizeof err);
    snprintf (msg, sizeof msg, "%s refinement %d: our decoder (%d, %u "
        "warnings %s)", k->name, ref, r, warn, err);
    check (r == 0 && warn == 0, msg);
    psnr[ref] = r == 0 ? psnr_of (&src, &ours) : 0;
    char path[512];
    snprintf (path, sizeof path, "%s/s.j2c", workdir);
    j2kt_write_file (path, cs, len);
    const j2kt_image *others[2] = { NULL, NULL };
    if (have_opj) {
      int ok = j2kt_decode_opj (workdir, path, k->nc, 0, 0, 0, &opj) == 0;
      snprintf (msg, sizeof msg, "%s refinement %d: opj_decompress decodes it",
          k->name, ref);
      check (ok, msg);
      if (ok)
        others[0] = &opj;
    }
    if (have_ojph) {
      int ok = decode_ojph (path, k, &ojph) == 0;
      snprintf (msg, sizeof msg, "%s refinement %d: ojph_expand decodes it",
          k->name, ref);
      check (ok, msg);
      if (ok)
        others[1] = &ojph;
    }
    for (int t = 0; t < 2; t++) {
      if (!others[t] || r != 0)
        continue;
      long peak = j2kt_peak_diff (&ours, others[t], -1, NULL);
      double pd = fabs (psnr_of (&src, others[t]) - psnr[ref]);
      snprintf (msg, sizeof msg, "%s refinement %d: %s within 1 of ours "
          "(peak %ld), PSNR within 0.01 dB (%.4f)", k->name, ref,
          t ? "ojph_expand" : "opj_decompress", peak, pd);
      check (peak >= 0 && peak <= 1 && pd <= 0.01, msg);
    }
    printf ("  %-32s %-7s %7zu bytes  PSNR %.3f dB  blocks 1/2/3 passes "
        "%u/%u/%u\n", k->name, ref == 0 ? "none" : ref == 1 ? "sigprop" : "all",
        len, psnr[ref], np[1], np[2], np[3]);
    if (ref == SCI_HTJ2K_REF_ALL && psnr[0] > 0) {
      double cost = index1_cost (&g, &p, coeffs, q);
      double npx = 0, peak2 = 0;
      for (unsigned c = 0; c < k->nc; c++)
        npx += (double) src.w[c] * src.h[c];
      peak2 = pow (2.0, k->depth) - 1;
      peak2 *= peak2;
      double mse0 = peak2 / pow (10, psnr[0] / 10);
      double floor_db = 10 * log10 (peak2 / (mse0 + 1.25 * cost / npx));
      snprintf (msg, sizeof msg, "%s: PSNR all passes %.3f in [bound %.3f, "
          "cleanup-only %.3f + 0.05]; SigProp alone %.3f <= it",
          k->name, psnr[2], floor_db, psnr[0], psnr[1]);
      check (psnr[2] >= floor_db && psnr[2] <= psnr[0] + 0.05 &&
          psnr[1] <= psnr[2] + 0.01, msg);
    }
    j2kt_image_free (&ours);
    if (others[0])
      j2kt_image_free (&opj);
    if (others[1])
      j2kt_image_free (&ojph);
    free (cs);
  }
  free (coeffs);
  j2kt_image_free (&src);
}

/* ---- refusals ------------------------------------------------------------ */

static void
test_refusals (void)
{
  sci_wt_geometry g;
  ref_case k = { "r", 64, 64, 1, 8, SCI_CT_NONE, 3, 6, 6, 0, 1.0, 0 };
  geometry (&k, &g);
  sci_htj2k_params p;
  params (&k, SCI_HTJ2K_REF_ALL, &p);
  g.filter = SCI_DWT_53;
  const char *why = sci_htj2k_check (&g, &p);
  check (why
      && strstr (why, "lossless"),
      "5/3 (lossless) with refinement refused, " "the message says why");
  check (sci_htj2k_enc_new (&g, &p, NULL) == NULL,
      "5/3 with refinement: no encoder");
  g.filter = SCI_DWT_97;
  p.coder = SCI_J2K_CODER_PART1;
  check (sci_htj2k_check (&g, &p) != NULL, "Part 1 with refinement refused");
  p.coder = SCI_J2K_CODER_HT;
  p.refinement = (sci_htj2k_refinement) 3;
  check (sci_htj2k_check (&g, &p) != NULL, "unknown refinement mode refused");
  p.refinement = SCI_HTJ2K_REF_NONE;
  p.cb_style = SCI_T1_VCAUSAL;
  check (sci_htj2k_check (&g, &p) != NULL,
      "HT vcausal without refinement refused");
  p.refinement = SCI_HTJ2K_REF_SIGPROP;
  p.cb_style = SCI_T1_BYPASS;
  check (sci_htj2k_check (&g, &p) != NULL, "HT with other styles refused");
  p.cb_style = SCI_T1_VCAUSAL;
  check (sci_htj2k_check (&g, &p) == NULL,
      "HT vcausal with refinement accepted");

  /* the block API codes cleanup-only blocks: refused with refinement */
  p.bitrate = 1.0;
  sci_htj2k_enc *e = sci_htj2k_enc_new (&g, &p, NULL);
  check (e != NULL, "refinement encoder made");
  if (e) {
    size_t nb = sci_htj2k_block_count (e);
    long *len = calloc (nb, sizeof (long));
    uint8_t out[4096];
    check (sci_htj2k_write (e, len, out, NULL, out, sizeof out) == 0,
        "refinement: sci_htj2k_write of outside blocks refused");
    check (sci_htj2k_search_rate (e, NULL, NULL) == -1,
        "refinement: sci_htj2k_search_rate with outside blocks refused");
    free (len);
    sci_htj2k_enc_free (e);
  }
}

/* ---- rate control --------------------------------------------------------- */

static void
test_rate (void)
{
  ref_case k = { "rate gray12 256x192", 256, 192, 1, 12, SCI_CT_NONE, 5, 6, 6,
    0, 1.0, 0
  };
  sci_wt_geometry g;
  geometry (&k, &g);
  j2kt_image src;
  make_image (&k, 77, &src);
  void *coeffs = j2kt_forward (&g, &src);
  static const double rates[] = { 0.5, 1.0, 2.0, 3.0 };
  double worst_off[3] = { 0, 0, 0 };
  for (size_t ri = 0; ri < sizeof rates / sizeof *rates; ri++) {
    double target = rates[ri] * k.w * k.h / 8;
    for (int ref = 0; ref <= 2; ref++) {
      k.bitrate = rates[ri];
      sci_htj2k_params p;
      params (&k, (sci_htj2k_refinement) ref, &p);
      size_t len = 0;
      double q;
      uint8_t *cs = encode (&g, &p, coeffs, &len, &q);
      char msg[256];
      snprintf (msg, sizeof msg, "rate %.1f refinement %d: encoded", rates[ri],
          ref);
      check (cs != NULL, msg);
      if (!cs)
        continue;
      j2kt_image ours;
      unsigned warn;
      int r = j2kt_decode_ours (cs, len, 0, 0, &ours, &warn, NULL, 0);
      double ps = r == 0 ? psnr_of (&src, &ours) : 0;
      double off = (double) len / target - 1;
      printf ("  rate %.1f bpp %-7s: %zu bytes (%.2f bpp, %+.2f %%), "
          "PSNR %.3f dB, qstep %.3g\n", rates[ri],
          ref == 0 ? "none" : ref == 1 ? "sigprop" : "all", len,
          8.0 * len / (k.w * k.h), 100 * off, ps, q);
      if (fabs (off) > worst_off[ref])
        worst_off[ref] = fabs (off);
      if (ref) {
        snprintf (msg, sizeof msg, "rate %.1f refinement %d: %zu bytes at "
            "or below the target %.0f and within 1.5 %%", rates[ri],
            ref, len, target);
        check (r == 0 && len <= (size_t) ceil (target) && off > -0.015, msg);
      }
      if (r == 0)
        j2kt_image_free (&ours);
      free (cs);
    }
  }
  printf ("  rate: worst distance from the target: none %.2f %%, sigprop "
      "%.2f %%, all %.2f %%\n", 100 * worst_off[0], 100 * worst_off[1],
      100 * worst_off[2]);
  free (coeffs);
  j2kt_image_free (&src);
}

int
main (void)
{
  if (!mkdtemp (workdir)) {
    perror ("mkdtemp");
    return 1;
  }
  test_refusals ();
  int have_ojph = have_tool ("ojph_expand"), have_opj =
      have_tool ("opj_decompress");
  if (!have_ojph)
    printf ("SKIP ojph_expand is not installed (openjph-tools)\n");
  if (!have_opj)
    printf ("SKIP opj_decompress is not installed (libopenjp2-tools)\n");
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    run_case (&cases[i], have_ojph, have_opj);
  test_rate ();
  char cmd[600];
  snprintf (cmd, sizeof cmd, "rm -rf %s", workdir);
  if (system (cmd) != 0)
    printf ("could not remove %s\n", workdir);
  printf ("%u passed, %u failed\n", check_passed, check_failed);
  if (check_failed)
    return 1;
  return have_ojph && have_opj ? 0 : 77;
}
