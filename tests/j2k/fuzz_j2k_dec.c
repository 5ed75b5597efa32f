/*
 * Fuzz target of the JPEG 2000 decoder (codec/j2k/j2k_dec.h): the codestream
 * and box parser and the whole decode (tier-2, EBCOT and HT blocks, inverse
 * DWT, colour transform).
 *
 * As a libFuzzer target (LLVMFuzzerTestOneInput), built with clang and
 * -DSCI_FUZZ_LIBFUZZER from this file and the codec/j2k sources (the
 * commands are in docs/fuzzing.md; a corpus: --write-seeds DIR below,
 * plus tests/j2k/data/streams).  Each
 * input is parsed; when its image is small enough (at most 2^14 samples
 * over all components on the canvas; 2^22 in the replay) it is decoded in
 * full, and once more
 * at the reduction and number of layers its last byte picks; and its
 * tiles' tier-2 runs twice in refs mode, once split at a resolution
 * (sci_j2k_dec_set_split), which must find the same blocks and warnings.
 *
 * Without -DSCI_FUZZ_LIBFUZZER, main replays a fixed number of random
 * mutations (bit and byte changes, interesting 16- and 32-bit values in
 * marker segments, truncations, insertions, deletions, copies of a run of
 * bytes) of valid codestreams: our encoder's (HT and Part 1 code-blocks,
 * every code-block style, layers, progressions, subsampling, JPH) and, with
 * --data DIR, the small conformance codestreams of DIR/streams.  It checks
 * that every seed decodes, that every result is one of the documented
 * codes with a message naming a byte offset, and that decoding is
 * deterministic: the test 'fuzz-j2k-dec' of suite codec.
 *   --iterations N, --seed S, --data DIR, --write-seeds DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/common/parallel.h"
#include "codec/j2k/j2k_dec.h"

/* libFuzzer: smaller images, more executions a second (the parser, tier-2
 * and both block decoders see the same code paths at 2^14 samples; an
 * input of more is parsed only) */
#ifdef SCI_FUZZ_LIBFUZZER
#define FUZZ_MAX_SAMPLES (1u << 14)
#else
#define FUZZ_MAX_SAMPLES (1u << 22)
#endif
#define FUZZ_MAX_BYTES (1u << 22)

/* tiles whose tier-2 ran in parallel, and that were split, over all
 * decodes */
static unsigned long fuzz_parallel_tiles, fuzz_split_tiles;

/* Decodes one input, on pool's threads (NULL: on this one); returns the
 * result (1: parsed only, too large).  *sum gets a checksum of the samples
 * decoded (for determinism). */
static int
fuzz_decode (const uint8_t * data, size_t size, sci_pool * pool,
    unsigned reduce, unsigned layers, uint64_t * sum, char *msg,
    size_t msg_len)
{
  sci_j2k_dec *d = sci_j2k_dec_new ();
  sci_j2k_dec_set_pool (d, pool);
  sci_j2k_info info;
  *sum = 0;
  int r = sci_j2k_dec_parse (d, data, size, &info);
  if (r == 0) {
    uint64_t total = 0;
    for (unsigned c = 0; c < info.components; c++) {
      sci_j2k_comp_info ci;
      sci_j2k_dec_comp_info (d, c, 0, &ci);
      total += (uint64_t) ci.w * ci.h;
    }
    if (total > FUZZ_MAX_SAMPLES || (uint64_t) info.width * info.height >
        FUZZ_MAX_SAMPLES) {
      r = 1;
    } else {
      if (reduce > info.levels)
        reduce = info.levels;
      sci_j2k_plane *pl = calloc (info.components, sizeof *pl);
      for (unsigned c = 0; c < info.components; c++) {
        sci_j2k_comp_info ci;
        sci_j2k_dec_comp_info (d, c, reduce, &ci);
        pl[c].data = calloc ((size_t) ci.w * ci.h + 1, 2);
        pl[c].stride = ci.w ? ci.w : 1;
        pl[c].bytes = ci.depth <= 8 && (c & 1) ? 1 : 2;
      }
      sci_j2k_decode_params p = { reduce, layers };
      r = sci_j2k_dec_decode (d, &p, pl);
      for (unsigned c = 0; c < info.components; c++) {
        sci_j2k_comp_info ci;
        sci_j2k_dec_comp_info (d, c, reduce, &ci);
        size_t n = (size_t) ci.w * ci.h * pl[c].bytes;
        for (size_t i = 0; r == 0 && i < n; i++)
          *sum = *sum * 1099511628211ull + ((uint8_t *) pl[c].data)[i];
        free (pl[c].data);
      }
      free (pl);
    }
  }
  if (msg)
    snprintf (msg, msg_len, "%s", sci_j2k_dec_error (d));
  fuzz_parallel_tiles += sci_j2k_dec_t2_parallel (d);
  sci_j2k_dec_free (d);
  return r;
}

/* ---- the split: the same blocks in two parts -------------------------- */

/* A sum of the blocks' hashes, their order aside. */
static uint64_t
blocks_hash (const sci_j2k_tile_blocks * tb, const uint8_t * data)
{
  uint64_t all = 0;
  for (size_t i = 0; i < tb->nblocks; i++) {
    const sci_j2k_block *b = &tb->blocks[i];
    uint64_t h = 1469598103934665603ull;
    uint64_t f[] = { b->band, b->x0, b->y0, b->len, b->passes, b->zbp,
      b->nseg, b->cup, b->lcup, b->lref, b->src
    };
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++)
      h = (h ^ f[k]) * 1099511628211ull;
    for (uint32_t k = 0; k < b->nseg; k++)
      h = (h ^ tb->seg_end[b->first_seg + k] ^
          (uint64_t) tb->seg_pass[b->first_seg + k] << 32) * 1099511628211ull;
    for (uint32_t r = tb->ref_first[i]; r < tb->ref_first[i + 1]; r++)
      for (uint32_t k = 0; k < tb->refs[r].len; k++)
        h = (h ^ data[tb->refs[r].src + k]) * 1099511628211ull;
    all += h;
  }
  return all;
}

typedef struct
{
  const uint8_t *data;
  size_t size;
  uint64_t hash;
  int take;
} fuzz_split_ctx;

static int
fuzz_split_fn (void *user, const sci_j2k_tile_blocks * part,
    const sci_j2k_split_rest * rest)
{
  fuzz_split_ctx *x = user;
  if (rest->bytes > x->size)
    abort ();
  if (!part)
    return x->take;
  fuzz_split_tiles++;
  if (x->take)
    x->hash += blocks_hash (part, x->data);
  return x->take;
}

/* Tier-2 of every tile (at most 64) on this thread, and split at
 * resolution res on pool's threads: the same results, warnings and
 * blocks, or abort. */
static void
fuzz_split (const uint8_t * data, size_t size, sci_pool * pool, unsigned res,
    int take, unsigned reduce)
{
  sci_j2k_dec *a = sci_j2k_dec_new (), *b = sci_j2k_dec_new ();
  sci_j2k_dec_set_pool (b, pool);
  sci_j2k_info info;
  if (sci_j2k_dec_parse (a, data, size, &info) == 0 &&
      sci_j2k_dec_parse (b, data, size, &info) == 0 &&
      (uint64_t) info.width * info.height <= FUZZ_MAX_SAMPLES &&
      info.tiles_x * info.tiles_y <= 64) {
    sci_j2k_dec_set_refs (a, 1);
    sci_j2k_dec_set_refs (b, 1);
    fuzz_split_ctx x = { data, size, 0, take };
    sci_j2k_dec_set_split (b, res, fuzz_split_fn, &x);
    sci_j2k_decode_params p = { reduce < info.levels ? reduce : info.levels,
      0
    };
    uint64_t ha = 0;
    for (unsigned t = 0; t < info.tiles_x * info.tiles_y; t++) {
      sci_j2k_tile_blocks ta, tb;
      int ra = sci_j2k_dec_tile_blocks (a, t, &p, &ta);
      int rb = sci_j2k_dec_tile_blocks (b, t, &p, &tb);
      if (ra != rb || sci_j2k_dec_warnings (a) != sci_j2k_dec_warnings (b))
        abort ();
      if (ra)
        break;
      ha += blocks_hash (&ta, data);
      x.hash += blocks_hash (&tb, data);
    }
    if (ha != x.hash)
      abort ();
  }
  fuzz_parallel_tiles += sci_j2k_dec_t2_parallel (b);
  sci_j2k_dec_free (a);
  sci_j2k_dec_free (b);
}

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);
int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  /* the first decode on two threads: tier-2 of streams with PLT then
   * runs precinct by precinct */
  static sci_pool *pool;
  uint64_t sum;
  if (size > FUZZ_MAX_BYTES)
    return 0;
  if (!pool)
    pool = sci_pool_new (2);
  fuzz_decode (data, size, pool, 0, 0, &sum, NULL, 0);
  if (size) {
    unsigned b = data[size - 1];
    fuzz_decode (data, size, NULL, b & 3, (b >> 2) & 7, &sum, NULL, 0);
    fuzz_split (data, size, pool, 1 + ((b >> 5) & 3), (b >> 4) & 1, b & 3);
  }
  return 0;
}

#ifndef SCI_FUZZ_LIBFUZZER
#include <dirent.h>
#include <math.h>

#include "codec/j2k/htj2k.h"
#include "codec/j2k/wavelet_frame.h"
#include "j2kdec_util.h"
#include "tests/common/testutil.h"

typedef struct
{
  uint8_t *bytes;
  size_t len;
  char name[64];
} seed;

/* A codestream of our encoder: a w x h image of nc components. */
static int
make_seed (seed * s, unsigned w, unsigned h, unsigned nc, unsigned depth,
    unsigned dx, sci_j2k_coder coder, unsigned style, unsigned layers,
    sci_j2k_progression prog, sci_dwt_filter filter, int jph, int plt)
{
  sci_wt_geometry g;
  memset (&g, 0, sizeof g);
  g.width = w;
  g.height = h;
  g.components = nc;
  g.depth = depth;
  for (unsigned c = 0; c < nc; c++) {
    g.dx[c] = c ? dx : 1;
    g.dy[c] = 1;
  }
  g.filter = filter;
  g.levels = 3;
  g.ct = nc == 3 && dx == 1 ? (filter == SCI_DWT_53 ? SCI_CT_RCT :
      SCI_CT_ICT) : SCI_CT_NONE;
  if (sci_wt_geometry_check (&g))
    return -1;
  sci_htj2k_params p;
  sci_htj2k_params_default (&p);
  p.coder = coder;
  p.cb_w_log2 = 4;
  p.cb_h_log2 = 3;
  p.progression = prog;
  p.layers = layers;
  p.cb_style = style;
  p.jph = jph;
  p.plt = plt;
  p.qstep = 1.0 / 64;
  return j2kt_encode_seed (&g, &p, rng, &s->bytes, &s->len);
}

static const uint32_t interesting[] = { 0, 1, 2, 0x7F, 0x80, 0xFF, 0x100,
  0x7FFF, 0x8000, 0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000u, 0xFFFFFFFFu, 32,
  33, 38, 64, 255
};

static void
mutate (uint8_t * b, size_t *len, size_t cap)
{
  unsigned muts = 1 + (unsigned) (rng () % 3);
  for (unsigned k = 0; k < muts && *len > 0; k++) {
    size_t n = *len, pos = (size_t) (rng () % n);
    /* most mutations where the headers are */
    if (rng () % 2)
      pos = (size_t) (rng () % (n < 400 ? n : 400));
    switch (rng () % 9) {
      case 0:
        b[pos] ^= (uint8_t) (1u << (rng () % 8));
        break;
      case 1:
        b[pos] = (uint8_t) rng ();
        break;
      case 2:{
        uint32_t v = interesting[rng () % (sizeof interesting /
                sizeof interesting[0])];
        if (pos + 2 <= n) {
          b[pos] = (uint8_t) (v >> 8);
          b[pos + 1] = (uint8_t) v;
        }
        break;
      }
      case 3:{
        uint32_t v = interesting[rng () % (sizeof interesting /
                sizeof interesting[0])];
        if (pos + 4 <= n)
          for (int i = 0; i < 4; i++)
            b[pos + i] = (uint8_t) (v >> (24 - 8 * i));
        break;
      }
      case 4:
        *len = pos;
        break;
      case 5:
        if (n + 1 < cap) {
          memmove (b + pos + 1, b + pos, n - pos);
          b[pos] = (uint8_t) rng ();
          (*len)++;
        }
        break;
      case 6:
        memmove (b + pos, b + pos + 1, n - pos - 1);
        (*len)--;
        break;
      case 7:{                 /* a run copied elsewhere */
        size_t from = (size_t) (rng () % n), run = 1 + rng () % 32;
        if (from + run <= n && pos + run <= n)
          memmove (b + pos, b + from, run);
        break;
      }
      case 8:                  /* a marker's second byte */
        if (pos + 1 < n && b[pos] == 0xFF)
          b[pos + 1] = (uint8_t) (0x30 + rng () % 0xD0);
        else if (pos + 1 < n) {
          b[pos] = 0xFF;
          b[pos + 1] = (uint8_t) (0x4F + rng () % 0x50);
        }
        break;
    }
  }
}

static int
known_code (int r)
{
  return r == 0 || r == 1 || r == SCI_J2K_ECORRUPT ||
      r == SCI_J2K_EUNSUPPORTED || r == SCI_J2K_ETRUNCATED || r == SCI_J2K_EARG;
}

int
main (int argc, char **argv)
{
  unsigned iterations = 3000;
  const char *seed_dir = NULL, *data = NULL;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp (argv[i], "--iterations"))
      iterations = (unsigned) strtoul (argv[i + 1], NULL, 0);
    else if (!strcmp (argv[i], "--seed"))
      rng_state = strtoull (argv[i + 1], NULL, 0);
    else if (!strcmp (argv[i], "--write-seeds"))
      seed_dir = argv[i + 1];
    else if (!strcmp (argv[i], "--data"))
      data = argv[i + 1];
  }
  uint64_t start = rng_state;
  seed seeds[64];
  unsigned ns = 0;
  struct
  {
    unsigned w, h, nc, depth, dx;
    sci_j2k_coder coder;
    unsigned style, layers;
    sci_j2k_progression prog;
    sci_dwt_filter filter;
    int jph, plt;
  } k[] = {
    {40, 30, 1, 8, 1, SCI_J2K_CODER_HT, 0, 1, SCI_J2K_LRCP, SCI_DWT_53, 0, 0},
    {33, 21, 3, 10, 1, SCI_J2K_CODER_HT, 0, 1, SCI_J2K_RPCL, SCI_DWT_97, 0, 0},
    {29, 17, 3, 8, 2, SCI_J2K_CODER_HT, 0, 1, SCI_J2K_CPRL, SCI_DWT_53, 0, 0},
    {24, 24, 3, 8, 1, SCI_J2K_CODER_HT, 0, 1, SCI_J2K_PCRL, SCI_DWT_53, 1, 0},
    {40, 30, 1, 8, 1, SCI_J2K_CODER_PART1, 0, 3, SCI_J2K_LRCP, SCI_DWT_53, 0, 0},
    {31, 19, 3, 12, 1, SCI_J2K_CODER_PART1, 0x3F, 4, SCI_J2K_RLCP,
        SCI_DWT_53, 0, 0},
    {27, 23, 1, 16, 1, SCI_J2K_CODER_PART1, 0x01, 2, SCI_J2K_RPCL,
        SCI_DWT_53, 0, 0},
    {27, 23, 1, 8, 1, SCI_J2K_CODER_PART1, 0x04, 2, SCI_J2K_PCRL, SCI_DWT_97,
        0, 0},
    {21, 25, 3, 9, 2, SCI_J2K_CODER_PART1, 0x12, 2, SCI_J2K_CPRL, SCI_DWT_53,
        0, 0},
    {37, 11, 3, 8, 1, SCI_J2K_CODER_PART1, 0x28, 3, SCI_J2K_LRCP, SCI_DWT_97,
        0, 0},
    /* with PLT: tier-2 in parallel where the lengths hold */
    {45, 29, 3, 10, 1, SCI_J2K_CODER_HT, 0, 1, SCI_J2K_RPCL, SCI_DWT_53, 0,
        1},
    {35, 27, 3, 8, 1, SCI_J2K_CODER_PART1, 0x04, 3, SCI_J2K_LRCP,
        SCI_DWT_53, 0, 1},
    {29, 21, 3, 8, 2, SCI_J2K_CODER_PART1, 0, 2, SCI_J2K_PCRL, SCI_DWT_97, 0,
        1},
  };
  rng_state = 7;
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
    if (make_seed (&seeds[ns], k[i].w, k[i].h, k[i].nc, k[i].depth, k[i].dx,
            k[i].coder, k[i].style, k[i].layers, k[i].prog, k[i].filter,
            k[i].jph, k[i].plt) == 0) {
      snprintf (seeds[ns].name, sizeof seeds[ns].name, "ours%zu%s", i,
          k[i].jph ? ".jph" : ".j2c");
      ns++;
    } else {
      printf ("seed %zu not made\n", i);
      check (0, "a seed codestream of our encoder");
    }
  }
  if (data) {
    char dir[1024];
    snprintf (dir, sizeof dir, "%s/streams", data);
    DIR *dp = opendir (dir);
    struct dirent *de;
    char *names[256];
    unsigned nn = 0;
    while (dp && (de = readdir (dp)) && nn < 256)
      if (de->d_name[0] != '.')
        names[nn++] = strdup (de->d_name);
    if (dp)
      closedir (dp);
    /* in name order, so the replay does not depend on the directory */
    for (unsigned i = 0; i < nn; i++)
      for (unsigned j = i + 1; j < nn; j++)
        if (strcmp (names[j], names[i]) < 0) {
          char *t = names[i];
          names[i] = names[j];
          names[j] = t;
        }
    for (unsigned i = 0; i < nn; i++) {
      char path[1400];
      snprintf (path, sizeof path, "%s/%s", dir, names[i]);
      size_t len;
      uint8_t *b = j2kt_slurp (path, &len);
      if (b && len <= 20000 && ns < 64) {
        seeds[ns].bytes = b;
        seeds[ns].len = len;
        snprintf (seeds[ns].name, sizeof seeds[ns].name, "%s", names[i]);
        ns++;
      } else {
        free (b);
      }
      free (names[i]);
    }
  }
  for (unsigned i = 0; seed_dir && i < ns; i++) {
    char path[1200];
    snprintf (path, sizeof path, "%s/%s", seed_dir, seeds[i].name);
    j2kt_write_file (path, seeds[i].bytes, seeds[i].len);
  }
  char msg[300];
  for (unsigned i = 0; i < ns; i++) {
    uint64_t sum;
    int r = fuzz_decode (seeds[i].bytes, seeds[i].len, NULL, 0, 0, &sum, msg,
        sizeof msg);
    char what[400];
    snprintf (what, sizeof what, "seed %s decodes (%d %s)", seeds[i].name, r,
        msg);
    check (r == 0 || (r == SCI_J2K_EUNSUPPORTED &&
            !strncmp (seeds[i].name, "part2", 5)), what);
  }
  rng_state = start;
  static uint8_t buf[1 << 16];
  unsigned results[8] = { 0 };
  sci_pool *pool = sci_pool_new (2);
  for (unsigned it = 0; it < iterations; it++) {
    const seed *s = &seeds[rng () % ns];
    size_t len = s->len < sizeof buf ? s->len : sizeof buf;
    memcpy (buf, s->bytes, len);
    mutate (buf, &len, sizeof buf);
    unsigned reduce = (unsigned) (rng () % 3), layers = (unsigned) (rng () % 3);
    uint64_t a, b;
    int r1 = fuzz_decode (buf, len, NULL, reduce, layers, &a, msg,
        sizeof msg);
    int r2 = fuzz_decode (buf, len, pool, reduce, layers, &b, NULL, 0);
    fuzz_split (buf, len, pool, 1 + (unsigned) (rng () % 4),
        (int) (rng () & 1), reduce);
    char what[400];
    snprintf (what, sizeof what, "iteration %u (%s): result %d is "
        "documented, the same on 1 and 2 threads, names an offset (%s)", it,
        s->name, r1, msg);
    check (known_code (r1) && r1 == r2 && a == b && (r1 >= 0 ||
            strstr (msg, "(at byte ")), what);
    results[r1 < 0 ? -r1 : r1 == 0 ? 0 : 6]++;
  }
  printf ("%u mutated codestreams: %u decoded, %u corrupt, %u unsupported, "
      "%u truncated, %u argument, %u too large\n", iterations, results[0],
      results[2], results[3], results[5], results[1], results[6]);
  printf ("tiles whose tier-2 ran in parallel (PLT): %lu\n",
      fuzz_parallel_tiles);
  check (iterations == 0 || fuzz_parallel_tiles > 0,
      "the mutations reach tier-2 in parallel");
  printf ("tiles split by resolution: %lu\n", fuzz_split_tiles);
  check (iterations == 0 || fuzz_split_tiles > 0,
      "the mutations reach the split");
  printf ("%u passed, %u failed\n", check_passed, check_failed);
  sci_pool_free (pool);
  for (unsigned i = 0; i < ns; i++)
    free (seeds[i].bytes);
  return check_failed ? 1 : 0;
}
#endif
