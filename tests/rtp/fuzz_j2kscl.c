/*
 * Fuzz target of the RFC 9828 codestream repair and payload header
 * (codec/rtp/j2kscl.h), which rtpj2kscldepay runs on what the network
 * delivers.
 *
 * An input is: byte 0, the number of holes (mod 8); byte 1, bit 0: the
 * tail is missing; then 4 bytes a hole (offset and length, 16 bits each,
 * big-endian, taken modulo the codestream's length); then the codestream.
 * Each input is repaired (counted, then written, which must agree), the
 * result must be empty or a codestream from SOC to EOC no longer than the
 * count, and must decode with sci_j2k_dec to a documented result; without
 * holes and with the tail present, the repair is the identity.  The first
 * 8 bytes also go through the header reader and writer, which must agree.
 *
 * As a libFuzzer target (LLVMFuzzerTestOneInput), built with clang and
 * -DSCI_FUZZ_LIBFUZZER from this file, codec/rtp/j2kscl.c and the
 * codec/j2k sources (docs/fuzzing.md; --write-seeds DIR gives a corpus).
 * Without it, main replays random holes and mutations of our encoder's
 * codestreams (HT and Part 1, with and without PLT, one and three
 * layers): the test 'fuzz-j2kscl' of suite codec.
 *   --iterations N, --seed S, --write-seeds DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/j2k/htj2k.h"
#include "codec/j2k/j2k_dec.h"
#include "codec/j2k/wavelet_frame.h"
#include "codec/rtp/j2kscl.h"

#define MAX_HOLES 8
#define FUZZ_MAX_SAMPLES (1u << 16)

static int
known_code (int r)
{
  return r == SCI_J2K_OK || r == SCI_J2K_ECORRUPT ||
      r == SCI_J2K_EUNSUPPORTED || r == SCI_J2K_ETRUNCATED || r == SCI_J2K_EARG;
}

/* Parses and (when small) decodes; returns the result, and in *warned
 * (may be NULL) whether the decoder worked around damage. */
static int
decode (const uint8_t * data, size_t size, int *warned)
{
  sci_j2k_dec *d = sci_j2k_dec_new ();
  sci_j2k_info info;
  int r = sci_j2k_dec_parse (d, data, size, &info);
  if (r == SCI_J2K_OK && (uint64_t) info.width * info.height *
      info.components <= FUZZ_MAX_SAMPLES) {
    sci_j2k_plane pl[SCI_WT_MAX_COMPONENTS];
    void *buf[SCI_WT_MAX_COMPONENTS] = { 0 };
    for (unsigned c = 0; c < info.components; c++) {
      sci_j2k_comp_info ci;
      sci_j2k_dec_comp_info (d, c, 0, &ci);
      buf[c] = malloc ((size_t) ci.w * ci.h * 2 + 1);
      pl[c].data = buf[c];
      pl[c].stride = ci.w;
      pl[c].bytes = 2;
    }
    sci_j2k_decode_params p = { 0, 0 };
    r = sci_j2k_dec_decode (d, &p, pl);
    for (unsigned c = 0; c < info.components; c++)
      free (buf[c]);
  }
  if (warned)
    *warned = sci_j2k_dec_warnings (d) != 0;
  sci_j2k_dec_free (d);
  return r;
}

/* 0, or a message naming what went wrong. */
static const char *
check_one (const uint8_t * data, size_t size)
{
  sci_j2kscl_hdr h, r;
  uint8_t b[SCI_J2KSCL_HDR_LEN];
  if (sci_j2kscl_hdr_read (data, size, &h) == 0) {
    sci_j2kscl_hdr_write (&h, b);
    if (memcmp (b, data, 4) || (h.mh && (b[4] & 0xE1) != (data[4] & 0xE1)) ||
        memcmp (b + 5, data + 5, 3) || sci_j2kscl_hdr_read (b, 8, &r) ||
        memcmp (&h, &r, sizeof h))
      return "the header reader and writer disagree";
  }
  if (size < 2)
    return NULL;
  unsigned nh = data[0] % MAX_HOLES;
  int tail = data[1] & 1;
  size_t at = 2 + 4 * (size_t) nh;
  if (at > size)
    return NULL;
  const uint8_t *cs = data + at;
  size_t len = size - at;
  sci_j2kscl_hole holes[MAX_HOLES];
  size_t n = 0, end = 0;
  for (unsigned i = 0; i < nh && len; i++) {
    const uint8_t *p = data + 2 + 4 * i;
    size_t off = ((size_t) p[0] << 8 | p[1]) % len;
    size_t l = ((size_t) p[2] << 8 | p[3]) % len + 1;
    /* sorted and disjoint, inside the codestream */
    if (off < end)
      off = end;
    if (off >= len)
      break;
    if (l > len - off)
      l = len - off;
    holes[n].off = off;
    holes[n++].len = l;
    end = off + l;
  }
  sci_j2kscl_repair_info info;
  size_t need = sci_j2kscl_repair (cs, len, tail, holes, n, NULL, 0, &info);
  uint8_t *out = malloc (need + 1);
  size_t got = sci_j2kscl_repair (cs, len, tail, holes, n, out, need, &info);
  const char *bad = NULL;
  if (got != need)
    bad = "counting and writing disagree";
  else if (got && (got < 4 || out[0] != 0xFF || out[1] != 0x4F ||
          out[got - 2] != 0xFF || out[got - 1] != 0xD9))
    bad = "the repair is not a codestream from SOC to EOC";
  else if (got && !known_code (decode (out, got, NULL)))
    bad = "the repair decodes to an undocumented result";
  else if (!n && !tail) {
    /* a codestream that decodes cleanly, whole: kept as it is up to its
     * EOC (bytes after EOC are not the codestream's, and a decoder does
     * not read them either) */
    int warned = 1;
    if (decode (cs, len, &warned) == SCI_J2K_OK && !warned &&
        (!got || got > len || memcmp (out, cs, got) || info.truncated ||
            info.packets_emptied))
      bad = "nothing was lost, yet the repair changed the codestream";
  }
  free (out);
  return bad;
}

#ifdef SCI_FUZZ_LIBFUZZER
int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);
int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  const char *bad = check_one (data, size);
  if (bad) {
    fprintf (stderr, "%s\n", bad);
    abort ();
  }
  return 0;
}
#else
#include "tests/common/testutil.h"
#include "tests/j2k/j2kdec_util.h"

typedef struct
{
  uint8_t *bytes;
  size_t len;
} seed;

/* A w x h image of nc components coded by our encoder. */
static int
make_seed (seed * s, unsigned w, unsigned h, unsigned nc, sci_j2k_coder coder,
    unsigned layers, sci_j2k_progression prog, int plt)
{
  sci_wt_geometry g;
  memset (&g, 0, sizeof g);
  g.width = w;
  g.height = h;
  g.components = nc;
  g.depth = 8;
  for (unsigned c = 0; c < nc; c++)
    g.dx[c] = g.dy[c] = 1;
  g.filter = SCI_DWT_53;
  g.levels = 3;
  g.ct = nc == 3 ? SCI_CT_RCT : SCI_CT_NONE;
  if (sci_wt_geometry_check (&g))
    return -1;
  sci_htj2k_params p;
  sci_htj2k_params_default (&p);
  p.coder = coder;
  p.cb_w_log2 = 4;
  p.cb_h_log2 = 4;
  p.progression = prog;
  p.layers = layers;
  p.plt = plt;
  p.qstep = 1.0 / 64;
  return j2kt_encode_seed (&g, &p, rng, &s->bytes, &s->len);
}

/* An input: holes as the header says, then the codestream, mutated. */
static uint8_t *
make_input (const seed * s, size_t *len)
{
  unsigned nh = rng () % MAX_HOLES;
  size_t n = 2 + 4 * (size_t) nh + s->len;
  uint8_t *in = malloc (n + 16);
  in[0] = (uint8_t) nh;
  in[1] = (uint8_t) (rng () % 3 == 0);
  for (unsigned i = 0; i < nh; i++) {
    uint32_t off = rng () % s->len, l = rng () % 4 ? rng () % 64 : rng () %
        s->len;
    uint8_t *p = in + 2 + 4 * i;
    p[0] = (uint8_t) (off >> 8);
    p[1] = (uint8_t) off;
    p[2] = (uint8_t) (l >> 8);
    p[3] = (uint8_t) l;
  }
  memcpy (in + 2 + 4 * nh, s->bytes, s->len);
  unsigned muts = rng () % 4 == 0 ? 1 + rng () % 4 : 0;
  for (unsigned m = 0; m < muts; m++) {
    size_t k = 2 + 4 * (size_t) nh + rng () % s->len;
    switch (rng () % 3) {
      case 0:
        in[k] ^= (uint8_t) (1u << (rng () % 8));
        break;
      case 1:
        in[k] = (uint8_t) rng ();
        break;
      default:
        n = k + 1;              /* truncated */
        break;
    }
  }
  *len = n;
  return in;
}

int
main (int argc, char **argv)
{
  unsigned iterations = 20000;
  const char *seed_dir = NULL;
  rng_state = 0x5eed5c1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp (argv[i], "--iterations"))
      iterations = (unsigned) strtoul (argv[i + 1], NULL, 0);
    else if (!strcmp (argv[i], "--seed"))
      rng_state = strtoull (argv[i + 1], NULL, 0);
    else if (!strcmp (argv[i], "--write-seeds"))
      seed_dir = argv[i + 1];
  }
  uint64_t start = rng_state;
  static const struct
  {
    unsigned w, h, nc;
    sci_j2k_coder coder;
    unsigned layers;
    sci_j2k_progression prog;
    int plt;
  } k[] = {
    {37, 29, 3, SCI_J2K_CODER_HT, 1, SCI_J2K_RPCL, 1},
    {64, 48, 1, SCI_J2K_CODER_HT, 1, SCI_J2K_CPRL, 1},
    {37, 29, 3, SCI_J2K_CODER_HT, 1, SCI_J2K_LRCP, 0},
    {40, 33, 3, SCI_J2K_CODER_PART1, 1, SCI_J2K_PCRL, 1},
    {40, 33, 1, SCI_J2K_CODER_PART1, 3, SCI_J2K_LRCP, 1},
    {23, 51, 3, SCI_J2K_CODER_PART1, 2, SCI_J2K_RLCP, 0},
  };
  seed seeds[sizeof k / sizeof k[0]];
  unsigned ns = 0;
  for (unsigned i = 0; i < sizeof k / sizeof k[0]; i++)
    if (make_seed (&seeds[ns], k[i].w, k[i].h, k[i].nc, k[i].coder,
            k[i].layers, k[i].prog, k[i].plt) == 0)
      ns++;
    else {
      fprintf (stderr, "seed %u: the encoder failed\n", i);
      return 1;
    }
  if (seed_dir) {
    for (unsigned i = 0; i < ns; i++) {
      char path[4096];
      snprintf (path, sizeof path, "%s/seed-%u", seed_dir, i);
      FILE *f = fopen (path, "wb");
      uint8_t hdr[2] = { 0, 0 };
      if (!f || fwrite (hdr, 1, 2, f) != 2 ||
          fwrite (seeds[i].bytes, 1, seeds[i].len, f) != seeds[i].len) {
        fprintf (stderr, "cannot write %s\n", path);
        return 1;
      }
      fclose (f);
    }
  }
  unsigned repaired = 0, identity = 0;
  for (unsigned i = 0; i < ns; i++) {
    /* every seed whole: the identity; then with bytes after its EOC (a
     * libFuzzer finding: those are dropped, the codestream kept) */
    for (unsigned junk = 0; junk <= 40; junk += 40) {
      uint8_t *in = malloc (seeds[i].len + 2 + junk);
      in[0] = in[1] = 0;
      memcpy (in + 2, seeds[i].bytes, seeds[i].len);
      for (unsigned b = 0; b < junk; b++)
        in[2 + seeds[i].len + b] = (uint8_t) (b % 3 ? 0xFF : rng ());
      const char *bad = check_one (in, seeds[i].len + 2 + junk);
      free (in);
      if (bad) {
        fprintf (stderr, "seed %u, %u bytes after EOC: %s\n", i, junk, bad);
        return 1;
      }
      identity++;
    }
  }
  for (unsigned it = 0; it < iterations; it++) {
    size_t len;
    uint8_t *in = make_input (&seeds[rng () % ns], &len);
    const char *bad = check_one (in, len);
    if (bad) {
      fprintf (stderr, "iteration %u (--seed %llu): %s\n", it,
          (unsigned long long) start, bad);
      free (in);
      return 1;
    }
    repaired += in[0] != 0;
    free (in);
  }
  for (unsigned i = 0; i < ns; i++)
    free (seeds[i].bytes);
  printf ("%u seeds whole, %u inputs (%u with holes): all repairs "
      "well-formed and decodable\n", identity, iterations, repaired);
  return 0;
}
#endif
