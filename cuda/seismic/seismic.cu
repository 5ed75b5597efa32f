/*
 * The seismic decoder on the GPU (cuda/seismic/seismic.h).
 *
 * Host, per batch, in one region of the pool: each frame's code table
 * (versions 4 and 5: as the frame has it; 2 and 3: the lengths, which
 * the host decompresses) and its packages are copied into page-locked
 * staging with streaming stores; one copy a chunk of frames takes
 * descriptors, tables and packages to the device.
 *
 * Device: a thread a segment reads a version 4 or 5 frame's code lengths
 * (codec/seismic/table_core.h); blocks build each frame's canonical
 * tables from its lengths, a block a segment of the alphabet, as
 * codec/seismic/huffman.c does; the index of each package's first symbol
 * is the running sum of the counts in the packages' top bits (a block's
 * sum, then a scan over a frame's blocks, where a frame whose counts do
 * not add up to its gather is refused); a lane unpacks a package
 * (table-driven, the lookup table in shared memory) and its warp writes
 * the 32 packages' coefficients dequantized, consecutive lanes at
 * consecutive indices; then each level of the inverse DWT is one launch
 * over the whole batch, a block a tile: the rows its columns need
 * inverted into shared memory, then its columns, a thread per output pair
 * computing what the reference's lifting steps compute for it (an even
 * sample, then the odd one from its two even neighbours).
 *
 * A batch goes to the device in chunks of frames, so that the host stages
 * a chunk while the device uploads and decodes the ones before.
 *
 * Built with SCI_SEIS_EMU, the kernels become host loops over the same
 * per-thread functions, for the emulated parity test (tests/seismic/seismic_emu.cpp).
 */
#include <cuda_runtime.h>

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "seismic.h"
#include "codec/j2k/dwt.h"
#include "codec/seismic/huffman.h"
#include "codec/seismic/huffman_core.h"
#include "codec/common/parallel.h"
#include "codec/common/stage.h"
#include "codec/seismic/seismic_core.h"
#include "codec/seismic/table_core.h"
#include "cuda/common/devbuf.cuh"
#include "cuda/common/launch.cuh"

#ifdef SCI_SEIS_EMU
#define DK static inline
#define DM inline /* member functions */
#define HDK static inline
#else
#define DK __device__ __forceinline__
#define DM __device__ __forceinline__
#define HDK __host__ __device__ __forceinline__ /* the planner's too */
#endif

#define LUT_ENTRIES (1u << SCI_HUFF_LOOKUP_BITS)
#define LIMITS (SCI_HUFF_MAX_LEN + 2)
/* per frame: lookup, first_code, first_index, then the sorted symbols */
#define TABLE_HEAD (LUT_ENTRIES + 2 * LIMITS)
/* A decode block takes 256 packages, 32 a warp, a package a lane (blocks
 * of four times as many, a warp taking four groups of 32 one after
 * another, left the SMs short of warps on a chunk of a batch); in version
 * 6, a block of the frame's firsts. */
#define DEC_WARPS 8
#define DEC_THREADS (DEC_WARPS * 32)
#define PKG_PER_BLOCK DEC_THREADS
static_assert(PKG_PER_BLOCK == SCI_SEIS_BLOCK_PACKAGES,
              "a version 6 decode block is a block of the frame's firsts");
/* A lane's unpacked symbols: an odd stride, so the lanes' slices start in
 * different banks */
#define SLICE (SCI_HUFF_PACKAGE_BITS + 1)
#define DWT_THREADS 256
/* A decode goes in up to MAX_CHUNKS chunks of frames: while the device
 * uploads and decodes one, the host stages the next; a chunk of fewer
 * than CHUNK_PACKAGES packages costs the host less than the pool's start
 * (tens of microseconds), so small batches go in one. */
#define MAX_CHUNKS 4
/* The first chunk a quarter of an even share: the device waits for it
 * alone, and the later ones arrive while it decodes the ones before (64
 * shots at 16 bits: 2-5 % faster than a half or even chunks; see
 * docs/benchmarks.md) */
#define FIRST_CHUNK_DIV 4
#define CHUNK_PACKAGES 131072u
/* timer events of a chunk: upload start and end (on the copy stream),
 * kernels start, package decoding end, DWT end */
#define EVENTS_PER_CHUNK 5
#define RED_THREADS 256

struct seis_frame {
    uint32_t *table;     /* built on the device from len */
    const uint8_t *len;  /* the code lengths, nsym of them; NULL: refused */
    /* versions 4 and 5: the frame's code table, which the device reads
     * into dlen (= len); NULL for older versions, whose lengths the host
     * reads */
    const uint8_t *tab;
    uint32_t tab_len;
    uint8_t *dlen;
    const uint64_t *pkg;
    const uint32_t *firsts; /* version 6: blocks 1.. first values */
    uint32_t npkg;
    uint32_t units; /* what its decode blocks take: packages, or version
                     * 7's slices (units_per_job a block) */
    uint32_t job0, njobs; /* its decode blocks */
    uint32_t w, h, levels; /* levels: those that change anything */
    sci_seis_grid grid;
    unsigned max_len;
    unsigned version; /* from 3, run packages; from 6, zero runs */
    bool zruns;       /* version 6: SCI_SEIS_FLAG_ZRUNS */
    unsigned nsym;    /* the code's alphabet */
    uint32_t nval;    /* the indices, 2^bits */
    float *coef; /* dequantized coefficients (the output when levels = 0) */
    float *tmp;  /* the even levels' outputs (level_out) */
    float *out;
    uint16_t *q;
};

struct block_job {
    uint32_t frame, pkg0;
};

/* What a pool worker keeps for reading the frames' code lengths. */
struct seis_worker {
    sci_seis_dctx *dctx;
    uint8_t *len; /* a frame's code lengths, before staging */
};

struct sci_cuda_seis {
    dbuf stage_host; /* pinned */
    dbuf stage_dev;
    dbuf coef, tmp;
    dbuf status;
    dbuf job_first; /* a decode block's first symbol (its count first) */
    dbuf tables;    /* each frame's, built on the device */
    dbuf lens;      /* versions 4 and 5's code lengths, read on the device */
    /* encoder: descriptors and statistics, transform scratch, indices */
    dbuf enc_dev, enc_host, enc_coef, enc_tmp, enc_q, enc_q_host;
    int timing;
    cudaEvent_t ev[EVENTS_PER_CHUNK * MAX_CHUNKS]; /* a decode's timer */
    /* a decode's uploads, on a stream of their own so that a chunk's
     * upload overlaps the kernels of the one before */
    cudaStream_t copy_stream;
    cudaEvent_t copied[MAX_CHUNKS];
    /* a chunk's descriptors and code tables go up first, on their own, so
     * that its tables are built while its packages are staged and sent */
    cudaEvent_t tables_copied[MAX_CHUNKS];
    /* and its code tables, each chunk's on a stream of its own, so that
     * they are built while the kernels of the chunks before run; and not
     * one after another: a build is a few blocks of long serial walks
     * (lengths_kernel), and on one stream the later chunks' decodes
     * waited for theirs */
    cudaStream_t table_streams[MAX_CHUNKS];
    cudaEvent_t tabled[MAX_CHUNKS];
    /* the odd chunks' kernels, beside the caller's stream's even ones: a
     * chunk's decode blocks fill the multiprocessors that the last blocks
     * of the one before leave idle (a chunk's launch is about one wave) */
    cudaStream_t odd_stream;
    cudaEvent_t odd_start, odd_done;
    /* programmatic dependent launches of the inverse DWT's levels (sm_90
     * and newer) */
    bool pdl;
    sci_cuda_seis_times times;
    sci_pool *pool; /* the host's work on a batch, a frame a call */
    seis_worker *workers;
    unsigned nworkers;
    size_t chunk_packages; /* 0: CHUNK_PACKAGES */
};

static void streams_destroy(cudaStream_t *st, unsigned n) {
    for (unsigned k = 0; k < n; k++)
        cudaStreamDestroy(st[k]);
}

/* n nonblocking streams of the given priority: 0, or an error having made
 * none. */
static int streams_create(cudaStream_t *st, unsigned n, int priority) {
    for (unsigned k = 0; k < n; k++) {
        const cudaError_t e = cudaStreamCreateWithPriority(
            &st[k], cudaStreamNonBlocking, priority);
        if (e != cudaSuccess) {
            cudaGetLastError();
            streams_destroy(st, k);
            return (int)e;
        }
    }
    return 0;
}

/* The first error of synchronizing n streams, all of them waited for. */
static cudaError_t streams_synchronize(cudaStream_t *st, unsigned n) {
    cudaError_t first = cudaSuccess;
    for (unsigned k = 0; k < n; k++) {
        const cudaError_t e = cudaStreamSynchronize(st[k]);
        if (first == cudaSuccess)
            first = e;
    }
    return first;
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

extern "C" int sci_cuda_seis_set_timing(sci_cuda_seis *s, int on) {
    if (on && !s->timing) {
        int e = events_create(s->ev, EVENTS_PER_CHUNK * MAX_CHUNKS);
        if (e)
            return e;
    } else if (!on && s->timing) {
        events_destroy(s->ev, EVENTS_PER_CHUNK * MAX_CHUNKS);
    }
    s->timing = on != 0;
    return 0;
}

extern "C" void sci_cuda_seis_get_times(const sci_cuda_seis *s,
                                        sci_cuda_seis_times *t) {
    *t = s->times;
}

extern "C" void sci_cuda_seis_set_pool(sci_cuda_seis *s, sci_pool *pool) {
    s->pool = pool;
}

extern "C" void sci_cuda_seis_tune_chunks(sci_cuda_seis *s, size_t packages) {
    s->chunk_packages = packages;
}

/* ---- package decoding ---------------------------------------------------- */

/* The symbols a package holds (sci_seis_package_count), 0 past the frame's
 * packages; versions 2 to 5. */
DK uint32_t count_at(const seis_frame &f, uint32_t i) {
    return i < f.npkg ? sci_seis_package_count(f.pkg[i], f.version) : 0;
}

/* sci_huff_unpack on a code package, the same checks in the same order:
 * its symbols into slice (room for SCI_HUFF_PACKAGE_BITS); false when the
 * package is not one an encoder writes.  limits: first_code then
 * first_index, LIMITS each. */
DK bool unpack_codes(const seis_frame &f, const uint32_t *lut,
                     const uint32_t *limits, uint64_t pkg, uint16_t *slice) {
    const unsigned n = (unsigned)(pkg >> SCI_HUFF_PACKAGE_BITS);
    const uint64_t bits = pkg & ((1ull << SCI_HUFF_PACKAGE_BITS) - 1);
    unsigned pos = SCI_HUFF_PACKAGE_BITS;
    if (!n || n > SCI_HUFF_PACKAGE_BITS || !f.max_len)
        return false;
    for (unsigned k = 0; k < n; k++) {
        uint32_t sym;
        if (!sci_huff_next(lut, limits, limits + LIMITS, f.table + TABLE_HEAD,
                           f.max_len, bits, &pos, &sym))
            return false;
        slice[k] = (uint16_t)sym;
    }
    return !(pos && (bits & ((1ull << pos) - 1)));
}

/* A run package's symbol with RUN_FLAG, for the lanes that write it; 0 for
 * a code package. */
#define RUN_FLAG 0x10000u

/* Lane `lane`'s share of writing one package's symbols from index first:
 * every 32nd, so that a warp's stores are consecutive.  run: RUN_FLAG |
 * symbol for a run, else 0 and the symbols are in slice. */
DK void put_run(const seis_frame &f, uint32_t first, uint32_t count,
                uint32_t run, unsigned lane) {
    const uint32_t v = run & 0xFFFFu;
    const float c = sci_seis_dequantize_one(v, &f.grid);
    for (uint32_t k = lane; k < count; k += 32) {
        f.coef[first + k] = c;
        if (f.q)
            f.q[first + k] = (uint16_t)v;
    }
}

DK void put_symbols(const seis_frame &f, const uint16_t *slice, uint32_t first,
                    uint32_t count, uint32_t run, unsigned lane) {
    if (run) {
        put_run(f, first, count, run, lane);
        return;
    }
    for (uint32_t k = lane; k < count; k += 32) {
        const uint32_t v = slice[k];
        f.coef[first + k] = sci_seis_dequantize_one(v, &f.grid);
        if (f.q)
            f.q[first + k] = (uint16_t)v;
    }
}

/* Lane `lane`'s package of a group of 32: its run word (put_symbols), or
 * its codes unpacked into its slice; false when the package is not one an
 * encoder writes. */
DK bool take_package(const seis_frame &f, const uint32_t *lut,
                     const uint32_t *limits, uint64_t pkg, uint32_t count,
                     uint16_t *slice, uint32_t *run) {
    *run = 0;
    if (!count)
        return true; /* past the frame's packages */
    if (sci_seis_package_is_run(pkg, f.version)) {
        const uint32_t v = sci_seis_run_symbol(pkg);
        *run = RUN_FLAG | v;
        return v < f.nval;
    }
    return unpack_codes(f, lut, limits, pkg, slice);
}

/* Version 6, package i of the frame (i < npkg): a run package's index
 * with RUN_FLAG into *run, or a code package's index tokens into slice
 * (sci_seis_unpack_tokens; room for SCI_HUFF_PACKAGE_BITS) and their
 * count into *ntok.  Its values, or 0 when it is not one an encoder
 * writes. */
DK uint32_t take_package6(const seis_frame &f, const uint32_t *lut,
                          const uint32_t *limits, uint32_t i, uint32_t *slice,
                          uint32_t *run, uint32_t *ntok) {
    const uint64_t pkg = f.pkg[i];
    *run = 0;
    *ntok = 0;
    if (sci_seis_package_is_run(pkg, f.version)) {
        const uint32_t v = sci_seis_run_symbol(pkg);
        *run = RUN_FLAG | v;
        return v < f.nval ? sci_seis_package_count(pkg, f.version) : 0;
    }
    const sci_seis_codebook cb = {lut, limits, limits + LIMITS,
                                  f.table + TABLE_HEAD, f.max_len, NULL};
    unsigned nt = 0;
    const uint32_t c = sci_seis_unpack_tokens(&cb, f.nval, pkg, slice, &nt);
    *ntok = nt;
    return c;
}

/* Version 6: whether the frame's code has a zero run (a run class with a
 * code); only then can a code package hold fewer index tokens than
 * values. */
DK bool frame_has_runs(const seis_frame &f) {
    for (uint32_t k = 0; k < SCI_SEIS_ZRUN_CLASSES; k++)
        if (f.len[f.nval + k])
            return true;
    return false;
}

/* Whether a frame's package counts are its values, so that the version 5
 * launches decode it: every version before 6, and a version 6 frame
 * without SCI_SEIS_FLAG_ZRUNS (its packages are version 5's; the count
 * launches check its firsts, the table build that its code has no zero
 * run). */
HDK bool counted_frame(const seis_frame &f) {
    return f.version < 6 || (f.version == 6 && !f.zruns);
}

/* Version 7: code words in slices, a thread a slice (decode7_kernel). */
HDK bool sliced_frame(const seis_frame &f) {
    return f.version >= 7;
}

/* Version 6: value i of a frame with zero runs as the run level, before
 * the packages' index tokens go over it (fill_kernel), so that a zero run
 * costs its warp nothing. */
DK void fill_item(const seis_frame &f, size_t i) {
    const uint32_t level = sci_seis_run_level(&f.grid);
    f.coef[i] = sci_seis_dequantize_one(level, &f.grid);
    if (f.q)
        f.q[i] = (uint16_t)level;
}

/* Version 6: lane `lane`'s share of one package's values from index first:
 * a run package's, every 32nd; a code package's index tokens (slice), at
 * their places (consecutive where the package has no runs). */
DK void put_values6(const seis_frame &f, const uint32_t *slice, uint32_t first,
                    uint32_t count, uint32_t ntok, uint32_t run,
                    unsigned lane) {
    if (run) {
        put_run(f, first, count, run, lane);
        return;
    }
    for (uint32_t k = lane; k < ntok; k += 32) {
        const uint32_t e = slice[k], v = e >> 16;
        f.coef[first + (e & 0xFFFFu)] = sci_seis_dequantize_one(v, &f.grid);
        if (f.q)
            f.q[first + (e & 0xFFFFu)] = (uint16_t)v;
    }
}

/* Version 6: the values [*first, *end) of the block of packages from pkg0,
 * as the frame's firsts say; false when they are not a nonempty range
 * within the gather.  A block whose packages' values add up to it writes
 * only there, so blocks that all add up cover the gather once. */
DK bool block_values(const seis_frame &f, uint32_t pkg0, uint32_t *first,
                     uint32_t *end) {
    const uint32_t b = pkg0 / PKG_PER_BLOCK;
    const uint32_t nb = (f.npkg + PKG_PER_BLOCK - 1) / PKG_PER_BLOCK;
    const uint32_t n = f.w * f.h;
    *first = b ? f.firsts[b - 1] : 0;
    *end = b + 1 < nb ? f.firsts[b] : n;
    return *first < *end && *end <= n;
}

/* Version 7: SLICE_LANES threads decode a slice, each the tokens that
 * start in its region of SLICE_REGION bits (the last region runs to the
 * slice's end; one shorter than SCI_SEIS_LAST_TOKEN_BITS joins the one
 * before, so that the slice's last token starts in the last region).  A
 * thread first walks its region as if a token started at its first bit;
 * then each takes as its start the bit where the walk of the region
 * before stopped, and where that differs, walks again from there (or,
 * mostly, finds it among its first walk's marks: a code read from a wrong
 * bit falls into step within a few tokens), until no start moves: after
 * k rounds the first k + 1 regions are walked from the slice's own token
 * boundaries.  The regions' value counts, scanned, give each its first
 * value; each thread then walks its region once more, writing.  The
 * verdict is the C decoder's (sci_seis_decode_slice): the regions' walks
 * are its walk. */
#define SLICE_LANES 16
#define SLICE_REGION (SCI_SEIS_SLICE_BITS / SLICE_LANES)
#define SLICES_PER_BLOCK (DEC_THREADS / SLICE_LANES)
/* The first walk's token starts a thread keeps: where the walk before its
 * region stops is mostly one of them, and then the walk from there is
 * the rest of the first (its count less the values before that mark). */
#define WALK_MARKS 4

/* Slice s of a version 7 frame: its words, bits, values [first, end)
 * (ok: a nonempty range within the gather, as the frame's firsts say;
 * slices that all pass cover the gather once) and regions. */
struct slice_at {
    const uint8_t *words;
    uint32_t bits, first, end, regions;
    bool ok;
};

DK slice_at slice_of(const seis_frame &f, uint32_t s) {
    const uint32_t ns = f.units;
    const uint32_t n = f.w * f.h;
    slice_at sl;
    sl.words = (const uint8_t *)(f.pkg + (size_t)s * SCI_SEIS_SLICE_WORDS);
    sl.bits = sci_seis_slice_bits(f.npkg, s);
    sl.first = s ? f.firsts[s - 1] : 0;
    sl.end = s + 1 < ns ? f.firsts[s] : n;
    sl.ok = sl.first < sl.end && sl.end <= n;
    sl.regions = (sl.bits + SLICE_REGION - 1) / SLICE_REGION;
    while (sl.regions > 1 &&
           sl.bits - (sl.regions - 1) * SLICE_REGION < SCI_SEIS_LAST_TOKEN_BITS)
        sl.regions--;
    return sl;
}

/* A thread's walk of its region g: from start, the tokens before the
 * region's end, their values and where they stop (the last region's are
 * not counted: no region follows it). */
struct lane_walk {
    uint32_t start, count, next;
    bool ok;
    /* the first walk's marks (none after a walk again) */
    uint32_t mark_pos[WALK_MARKS], mark_at[WALK_MARKS];
};

/* Region g walked from L->start, keeping marks when `marks` is set. */
DK void lane_count(const seis_frame &f, const sci_seis_codebook &cb,
                   const slice_at &sl, unsigned g, lane_walk *L, bool marks) {
    for (unsigned i = 0; i < WALK_MARKS; i++)
        L->mark_pos[i] = 0xFFFFFFFFu;
    if (g + 1 >= sl.regions) {
        L->count = 0;
        L->next = sl.bits;
        L->ok = true;
        return;
    }
    sci_seis_walk w;
    L->ok = sci_seis_slice_tokens_marked(
        &cb, f.nval, &f.grid, sl.words, sl.bits, L->start,
        (g + 1) * SLICE_REGION, 0, 0xFFFFFFFFu, NULL, NULL, 0, &w,
        marks ? WALK_MARKS : 0, L->mark_pos, L->mark_at);
    L->count = w.at;
    L->next = w.pos;
}

/* Region g's start moved to `to`: the first walk's rest where `to` is one
 * of its marks, else a walk again. */
DK void lane_move(const seis_frame &f, const sci_seis_codebook &cb,
                  const slice_at &sl, unsigned g, lane_walk *L, uint32_t to) {
    L->start = to;
    for (unsigned i = 1; i < WALK_MARKS; i++)
        if (L->mark_pos[i] == to) {
            L->count -= L->mark_at[i];
            for (unsigned j = 0; j < WALK_MARKS; j++)
                L->mark_pos[j] = 0xFFFFFFFFu;
            return;
        }
    lane_count(f, cb, sl, g, L, false);
}

/* Region g's values from first_g on, once every start is the slice's own:
 * false where sci_seis_decode_slice refuses the slice (a region before the
 * last that does not decode or reaches the slice's end; the last not
 * ending it exactly, or with a bit set after its last token). */
DK bool lane_write(const seis_frame &f, const sci_seis_codebook &cb,
                   const slice_at &sl, unsigned g, const lane_walk &L,
                   uint32_t first_g) {
    sci_seis_walk w;
    if (g + 1 < sl.regions)
        return L.ok && (uint64_t)first_g + L.count < sl.end &&
               sci_seis_slice_tokens(&cb, f.nval, &f.grid, sl.words, sl.bits,
                                     L.start, (g + 1) * SLICE_REGION, first_g,
                                     sl.end, f.coef, f.q, 0, &w);
    return first_g < sl.end &&
           sci_seis_slice_tokens(&cb, f.nval, &f.grid, sl.words, sl.bits,
                                 L.start, sl.bits, first_g, sl.end, f.coef,
                                 f.q, 0, &w) &&
           w.at == sl.end && w.last + SCI_SEIS_LAST_TOKEN_BITS >= sl.bits &&
           sci_seis_slice_zero(sl.words, w.pos, sl.bits);
}

/* ---- canonical tables from the code lengths ------------------------------ */

/* sci_huff_build_decoder on the device, in two launches of a block a
 * segment of TB_SEG symbols (16 a thread, one 16-byte read; a wide
 * alphabet of 2^16 symbols is 16 segments, where a block a frame left
 * most multiprocessors idle):
 * - tables_kernel<TABLES_COUNT>: each segment's count of each length,
 *   into the frame's table after its sorted symbols; a length beyond any
 *   code refuses the frame.  Segment 0 clears the lookup table (a code
 *   longer than the lookup leaves its entries 0).
 * - tables_kernel<TABLES_PLACE>: each length's first place in the segment
 *   (the counts of the segments before it, then a scan over the threads),
 *   sci_huff_build's checks (a complete prefix code, or one 1-bit code,
 *   and the header's longest code), and the segment's symbols placed into
 *   sorted order and the lookup table as the host's single pass would
 *   place them. */
#define TB_THREADS 256
#define TB_PER_THREAD 16
#define TB_SEG (TB_THREADS * TB_PER_THREAD)
#define TB_LENGTHS (SCI_HUFF_MAX_LEN + 1)

HDK uint32_t tb_segments(uint32_t nsym) {
    return (nsym + TB_SEG - 1) / TB_SEG;
}

/* A frame's table: lookup, first_code, first_index, the sorted symbols (a
 * frame may code more symbols than it has values), then the segments'
 * counts. */
HDK uint32_t sorted_words(uint32_t nsym) {
    return (TABLE_HEAD + nsym + 3) & ~3u;
}

HDK size_t table_words_of(uint32_t nsym) {
    return sorted_words(nsym) + (size_t)tb_segments(nsym) * TB_LENGTHS;
}

struct table_room {
    uint16_t below[TB_LENGTHS][TB_THREADS]; /* a thread's count, then place */
    uint32_t first_code[LIMITS], first_index[LIMITS];
    uint32_t totals[TB_LENGTHS]; /* the frame's, then the segment's */
    uint32_t base[TB_LENGTHS];   /* the segments' before this one */
    int ok;
};

/* Thread t's 16 lengths of segment g, four to a word (0 past the
 * alphabet). */
DK void tb_word(const seis_frame &f, uint32_t g, unsigned t, uint32_t w[4]) {
    const uint32_t s0 = g * TB_SEG + t * TB_PER_THREAD;
    if (s0 + TB_PER_THREAD <= f.nsym) {
        /* the lengths are 16-byte aligned in the staging area */
#ifdef SCI_SEIS_EMU
        memcpy(w, f.len + s0, 16);
#else
        const uint4 v = *(const uint4 *)(f.len + s0);
        w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
#endif
        return;
    }
    w[0] = w[1] = w[2] = w[3] = 0;
    for (uint32_t k = 0; s0 + k < f.nsym && k < TB_PER_THREAD; k++)
        w[k >> 2] |= (uint32_t)f.len[s0 + k] << (8 * (k & 3));
}

DK unsigned tb_len(const uint32_t w[4], unsigned k) {
    return w[k >> 2] >> (8 * (k & 3)) & 255;
}

/* Thread t: its count of each length in segment g; false when a length is
 * beyond any code. */
DK bool tb_count(const seis_frame &f, table_room *r, uint32_t g, unsigned t) {
    bool ok = true;
    for (unsigned l = 0; l < TB_LENGTHS; l++)
        r->below[l][t] = 0;
    uint32_t w[4];
    tb_word(f, g, t, w);
    if (!(w[0] | w[1] | w[2] | w[3]))
        return true; /* symbols the frame does not code */
    for (unsigned k = 0; k < TB_PER_THREAD; k++) {
        const unsigned l = tb_len(w, k);
        if (l > SCI_HUFF_MAX_LEN)
            ok = false;
        else if (l)
            r->below[l][t]++;
    }
    return ok;
}

/* One thread: each length's first code and first place from the frame's
 * totals, and the checks of sci_huff_build, which clear r->ok; segment 0
 * writes them into the table. */
DK void tb_heads(const seis_frame &f, table_room *r, uint32_t g) {
    uint32_t used = 0, max_len = 0;
    for (unsigned l = 1; l <= SCI_HUFF_MAX_LEN; l++)
        if (r->totals[l]) {
            used += r->totals[l];
            max_len = l;
        }
    /* the header's longest code is the table's (the host checks it for
     * the lengths it reads) */
    if (!sci_huff_complete(r->totals, max_len, used) || max_len != f.max_len)
        r->ok = 0;
    /* a version 6 frame that says it has no zero run has none: the
     * version 5 launches that decode it take every token for a value */
    if (f.version >= 6 && !f.zruns && frame_has_runs(f))
        r->ok = 0;
    r->first_code[0] = r->first_index[0] = 0;
    sci_huff_heads(r->totals, max_len, r->first_code, r->first_index);
    if (g)
        return;
    for (unsigned l = 0; l < LIMITS; l++) {
        f.table[LUT_ENTRIES + l] = r->first_code[l];
        f.table[LUT_ENTRIES + LIMITS + l] = r->first_index[l];
    }
}

/* Thread t: its symbols of segment g into sorted order and the lookup
 * table; below[l][t] is its first place among the segment's symbols of
 * length l. */
DK void tb_place(const seis_frame &f, table_room *r, uint32_t g, unsigned t) {
    uint32_t w[4];
    tb_word(f, g, t, w);
    if (!(w[0] | w[1] | w[2] | w[3]))
        return;
    const uint32_t s0 = g * TB_SEG + t * TB_PER_THREAD;
    for (unsigned j = 0; j < TB_PER_THREAD; j++) {
        const unsigned l = tb_len(w, j);
        if (!l)
            continue;
        const uint32_t s = s0 + j;
        const uint32_t k = r->base[l] + r->below[l][t]++;
        const uint32_t code = r->first_code[l] + k;
        f.table[TABLE_HEAD + r->first_index[l] + k] = s;
        if (l <= SCI_HUFF_LOOKUP_BITS) {
            const unsigned sh = SCI_HUFF_LOOKUP_BITS - l;
            for (uint32_t v = code << sh; v < (code + 1) << sh; v++)
                f.table[v] = s << 5 | l;
        }
    }
}

/* Thread t < TB_LENGTHS: the frame's total of length t and the counts of
 * the segments before g, from the count launch. */
DK void tb_sum_segments(const seis_frame &f, table_room *r, uint32_t g,
                        unsigned t) {
    const uint32_t *counts = f.table + sorted_words(f.nsym);
    uint32_t sum = 0, base = 0;
    for (uint32_t k = 0; k < tb_segments(f.nsym); k++) {
        if (k == g)
            base = sum;
        sum += counts[k * TB_LENGTHS + t];
    }
    r->totals[t] = sum;
    r->base[t] = base;
}

/* A lengths block's segments, a thread each: in version 5 (segments of
 * 256), 16 KB of lengths in shared memory. */
#define LEN_SEGS 64
#define LEN_BYTES (LEN_SEGS * 256)
/* The most bits LEN_SEGS segments of 256 take (8 a symbol), in bytes,
 * with room for the word the first starts in and the last ends in. */
#define LEN_STREAM_BYTES (LEN_SEGS * 256 + 8)

/* The bits version 5's head gives segment g (0 for the last, for segments
 * past it, and for version 4, whose head gives the starts themselves);
 * the caller has checked that the table holds the head. */
HDK uint32_t segment_bits(const seis_frame &f, uint32_t g) {
    if (f.version == 4 || g + 1 >= sci_seis_table_segments(f.nsym, f.version))
        return 0;
    return sci_seis_table_field(f.tab, g, f.version);
}

/* Segment g of the frame's table into len, its first symbol's length
 * first (zeroed: table_core.h); `before`: the bits of the segments before
 * it (version 5). */
HDK int read_segment(const seis_frame &f, uint32_t g, uint32_t before,
                     uint32_t bits, uint8_t *len, int zeroed) {
    size_t start = before, end = before + bits;
    if (f.version == 4) {
        const uint32_t segs = sci_seis_table_segments(f.nsym, 4);
        start = g ? sci_seis_table_field(f.tab, g - 1, 4) : 0;
        end = g + 1 < segs ? sci_seis_table_field(f.tab, g, 4) : 0;
    }
    return sci_seis_table_read_segment(f.tab, f.tab_len, f.version, g, f.nsym,
                                       start, end, len, zeroed);
}

#ifdef SCI_SEIS_EMU
/* tb_scan as host loops: each thread's count of each length becomes its
 * first place in the segment; totals, the segment's. */
static void tb_scan_emu(table_room *r) {
    for (unsigned l = 1; l < TB_LENGTHS; l++) {
        uint32_t at = 0;
        for (unsigned t = 0; t < TB_THREADS; t++) {
            const uint16_t c = r->below[l][t];
            r->below[l][t] = (uint16_t)at;
            at += c;
        }
        r->totals[l] = at;
    }
}

/* lengths_kernel's block as host loops, a thread a segment in turn. */
static void lengths_emu(const seis_frame &f, int *status) {
    if (!f.tab)
        return;
    if (f.tab_len <= sci_seis_table_head(f.nsym, f.version)) {
        *status = SCI_SEIS_E_DATA;
        return;
    }
    uint32_t before = 0;
    for (uint32_t g = 0; g < sci_seis_table_segments(f.nsym, f.version);
         g++) {
        const uint32_t bits = segment_bits(f, g);
        if (read_segment(f, g, before, bits,
                         f.dlen + g * sci_seis_table_seg(f.version), 0))
            *status = SCI_SEIS_E_DATA;
        before += bits;
    }
}

/* The two table launches as host loops. */
static void tables_emu(const seis_frame &f, int *status) {
    if (!f.len || *status)
        return;
    static table_room r;
    uint32_t *counts = f.table + sorted_words(f.nsym);
    for (uint32_t g = 0; g < tb_segments(f.nsym); g++) {
        bool ok = true;
        for (unsigned t = 0; t < TB_THREADS; t++)
            ok &= tb_count(f, &r, g, t);
        if (!ok) {
            *status = SCI_SEIS_E_DATA;
            continue;
        }
        tb_scan_emu(&r);
        for (unsigned l = 0; l < TB_LENGTHS; l++)
            counts[g * TB_LENGTHS + l] = l ? r.totals[l] : 0;
        if (g == 0)
            for (unsigned j = 0; j < LUT_ENTRIES; j++)
                f.table[j] = 0;
    }
    if (*status)
        return;
    for (uint32_t g = 0; g < tb_segments(f.nsym); g++) {
        for (unsigned t = 0; t < TB_LENGTHS; t++)
            tb_sum_segments(f, &r, g, t);
        r.ok = 1;
        tb_heads(f, &r, g);
        if (!r.ok) {
            *status = SCI_SEIS_E_DATA;
            return;
        }
        for (unsigned t = 0; t < TB_THREADS; t++)
            tb_count(f, &r, g, t);
        tb_scan_emu(&r);
        for (unsigned t = 0; t < TB_THREADS; t++)
            tb_place(f, &r, g, t);
    }
}

/* count_kernel's block: the symbols of packages [pkg0, pkg0 +
 * PKG_PER_BLOCK), a package of none refusing the frame. */
static uint32_t job_count(const seis_frame &f, uint32_t pkg0, int *status) {
    uint32_t sum = 0;
    if (!counted_frame(f))
        return 0; /* its firsts say */
    for (uint32_t i = pkg0; i < pkg0 + PKG_PER_BLOCK && i < f.npkg; i++) {
        const uint32_t c = count_at(f, i);
        if (!c)
            *status = SCI_SEIS_E_DATA;
        sum += c;
    }
    return sum;
}

/* decode_kernel's block as host loops: its groups of 32 packages in order,
 * each lane's package taken, then each lane's share of every package
 * written. */
static void decode_job_emu(const seis_frame &f, const block_job &job,
                           uint32_t first, int *status) {
    uint16_t slices[32 * SLICE];
    const uint32_t *limits = f.table + LUT_ENTRIES;
    for (unsigned g = 0; g < PKG_PER_BLOCK / 32; g++) {
        uint32_t firsts[32], put[32], run[32];
        for (unsigned l = 0; l < 32; l++) {
            const uint32_t i = job.pkg0 + g * 32 + l;
            const uint32_t cnt = count_at(f, i);
            firsts[l] = first;
            first += cnt;
            put[l] = cnt;
            if (!take_package(f, f.table, limits, i < f.npkg ? f.pkg[i] : 0,
                              cnt, slices + l * SLICE, &run[l])) {
                *status = SCI_SEIS_E_DATA;
                put[l] = 0;
            }
        }
        for (unsigned l = 0; l < 32; l++)
            for (unsigned j = 0; j < 32; j++)
                put_symbols(f, slices + j * SLICE, firsts[j], put[j], run[j],
                            l);
    }
}

/* decode6_kernel's block as host loops: every lane's package taken, the
 * block's values checked against the frame's firsts, then each lane's
 * share of every package written. */
static void decode_job6_emu(const seis_frame &f, const block_job &job,
                            int *status) {
    static thread_local uint32_t slices[PKG_PER_BLOCK * SLICE];
    uint32_t cnt[PKG_PER_BLOCK], run[PKG_PER_BLOCK], nt[PKG_PER_BLOCK];
    const uint32_t *limits = f.table + LUT_ENTRIES;
    uint32_t sum = 0, first, end;
    bool ok = true;
    for (unsigned t = 0; t < PKG_PER_BLOCK; t++) {
        const uint32_t i = job.pkg0 + t;
        cnt[t] = run[t] = nt[t] = 0;
        if (i < f.npkg) {
            cnt[t] = take_package6(f, f.table, limits, i, slices + t * SLICE,
                                   &run[t], &nt[t]);
            ok &= cnt[t] != 0;
        }
        sum += cnt[t];
    }
    if (!ok || !block_values(f, job.pkg0, &first, &end) ||
        sum != end - first) {
        *status = SCI_SEIS_E_DATA;
        return;
    }
    for (unsigned t = 0; t < PKG_PER_BLOCK; t++) {
        for (unsigned l = 0; l < 32; l++)
            put_values6(f, slices + t * SLICE, first, cnt[t], nt[t], run[t],
                        l);
        first += cnt[t];
    }
}

/* decode7_kernel's block as host loops: each slice's regions walked in
 * rounds as the kernel's threads walk them, each round reading the stops
 * of the round before. */
static void decode_job7_emu(const seis_frame &f, const block_job &job,
                            int *status) {
    const uint32_t ns = f.units;
    uint64_t pairs[LUT_ENTRIES];
    sci_seis_pair_entries(f.table, f.nval, pairs, 0, 1);
    const sci_seis_codebook cb = {f.table, f.table + LUT_ENTRIES,
                                  f.table + LUT_ENTRIES + LIMITS,
                                  f.table + TABLE_HEAD, f.max_len, pairs};
    for (uint32_t s = job.pkg0; s < job.pkg0 + SLICES_PER_BLOCK && s < ns;
         s++) {
        const slice_at sl = slice_of(f, s);
        if (!sl.ok) {
            *status = SCI_SEIS_E_DATA;
            continue;
        }
        lane_walk L[SLICE_LANES];
        for (unsigned g = 0; g < sl.regions; g++) {
            L[g].start = g * SLICE_REGION;
            lane_count(f, cb, sl, g, &L[g], true);
        }
        for (unsigned round = 0; round < SLICE_LANES; round++) {
            uint32_t prev[SLICE_LANES];
            bool moved = false;
            for (unsigned g = 0; g < sl.regions; g++)
                prev[g] = L[g].next;
            for (unsigned g = 1; g < sl.regions; g++)
                if (prev[g - 1] != L[g].start) {
                    lane_move(f, cb, sl, g, &L[g], prev[g - 1]);
                    moved = true;
                }
            if (!moved)
                break;
        }
        uint32_t first = sl.first;
        for (unsigned g = 0; g < sl.regions; g++) {
            if (!lane_write(f, cb, sl, g, L[g], first))
                *status = SCI_SEIS_E_DATA;
            first += L[g].count;
        }
    }
}
#endif

/* ---- inverse lifting, a pair of outputs a thread -------------------------- */

/* One 1-D inverse float 5/3 of n samples whose low band s (nl = (n+1)/2
 * values) and high band d are read through get(k) and get(nl + k), as
 * sci_dwt53f_inverse does it: even x[2k] = s[k] + -1/4 (d_left + d_right),
 * then odd x[2k+1] = d[k] + 1/2 (x[2k] + x[2k+2]), neighbours mirrored at
 * the ends.  A signal of one sample passes unchanged. */
template <typename G>
DK float even_out(const G &get, uint32_t n, uint32_t nl, uint32_t k) {
    if (n == 1)
        return get(0);
    float dl = get(nl + (k > 0 ? k - 1 : 0));
    float dr = get(nl + (2 * k + 1 < n ? k : k - 1));
    return get(k) + -0.25f * (dl + dr);
}

template <typename G>
DK float odd_out(const G &get, uint32_t n, uint32_t nl, uint32_t k,
                 float e) {
    float er = 2 * k + 2 < n ? even_out(get, n, nl, k + 1) : e;
    return get(nl + k) + 0.5f * (e + er);
}

/* Output pairs k + p, p < IDWT_PAIRS: the even outputs into e[p] and,
 * where 2 (k + p) + 1 < n, the odd ones into o[p], as even_out and
 * odd_out compute them (pairs from nl on are left alone).  Where all their
 * high neighbours and those of the pair after them are inside the signal
 * (k > 0, 2 (k + IDWT_PAIRS) + 1 < n: all but the pairs at its ends) the
 * same sums are read straight from the bands (get.low, get.high), without
 * the mirror's tests, each pair's right neighbour being the next pair's
 * even output: a thread of the inverse's tiles reads 2 IDWT_PAIRS + 3
 * values for 2 IDWT_PAIRS outputs. */
#define IDWT_PAIRS 2
template <typename G>
DK void pairs_out(const G &get, uint32_t n, uint32_t nl, uint32_t k,
                  float e[IDWT_PAIRS], float o[IDWT_PAIRS]) {
    if (k > 0 && 2 * (k + IDWT_PAIRS) + 1 < n) {
        const float dl = get.high(k - 1);
        float dk = get.high(k);
        float ek = get.low(k) + -0.25f * (dl + dk);
        for (unsigned p = 0; p < IDWT_PAIRS; p++) {
            const float dr = get.high(k + p + 1);
            const float er = get.low(k + p + 1) + -0.25f * (dk + dr);
            e[p] = ek;
            o[p] = dk + 0.5f * (ek + er);
            ek = er;
            dk = dr;
        }
        return;
    }
    for (unsigned p = 0; p < IDWT_PAIRS && k + p < nl; p++) {
        e[p] = even_out(get, n, nl, k + p);
        if (2 * (k + p) + 1 < n)
            o[p] = odd_out(get, n, nl, k + p, e[p]);
    }
}

/* sci_dwt_low_len, for the device too. */
DK uint32_t low_len(uint32_t n, unsigned levels) {
    return (uint32_t)(((uint64_t)n + ((1ull << levels) - 1)) >> levels);
}

/* The region of level l (1-based): low_len(w, l-1) x low_len(h, l-1). */
DK bool level_region(const seis_frame &f, unsigned l, uint32_t *lw,
                     uint32_t *lh) {
    if (l > f.levels)
        return false;
    *lw = low_len(f.w, l - 1);
    *lh = low_len(f.h, l - 1);
    return true;
}

/* A level's inverse in one launch: a block a tile of TILE_H x TILE_W
 * outputs.  It inverts the rows the tile's columns need (low rows k0 ..
 * k0 + TILE_H/2 and high rows k0 - 1 .. k0 + TILE_H/2 of the column
 * transform, k0 the tile's first output pair) into shared memory, then
 * the columns, each output computed as the reference computes it, a
 * thread IDWT_PAIRS output pairs of a row or a column (pairs_out).  Level
 * l writes its output to level_out(l), out at odd levels and tmp at even
 * ones, and reads its low band from level l + 1's: so no block reads what
 * another block of its level writes, and level 1 ends in out. */
#define TILE_W 64
#define TILE_H 32
#define TILE_LOW (TILE_H / 2 + 1)
#define TILE_ROWS (TILE_LOW + TILE_H / 2 + 2)

DK float *level_out(const seis_frame &f, unsigned l) {
    return l & 1 ? f.out : f.tmp;
}

/* Level l's region, and where tile t of it starts: columns from x0, output
 * pairs of the columns from k0. */
struct tile_at {
    uint32_t lw, lh, x0, k0;
};

HDK uint32_t tiles_of(uint32_t lw, uint32_t lh) {
    return ((lw + TILE_W - 1) / TILE_W) * ((lh + TILE_H - 1) / TILE_H);
}

DK bool level_tile(const seis_frame &f, unsigned l, uint32_t t, tile_at *at) {
    if (!level_region(f, l, &at->lw, &at->lh) || t >= tiles_of(at->lw, at->lh))
        return false;
    const uint32_t across = (at->lw + TILE_W - 1) / TILE_W;
    at->x0 = (t % across) * TILE_W;
    at->k0 = (t / across) * (TILE_H / 2);
    return true;
}

/* Row r of the region: the low band of its top rows is the deeper level's
 * output (t), except at the top level; all else is the decoded
 * coefficients (c). */
struct row_src {
    const float *lo, *hi; /* the row's low band, and its high band */
    uint32_t nlw;
    DM row_src(const float *c, const float *t, uint32_t w, uint32_t r,
               uint32_t nlw_, uint32_t nlh, bool top)
        : lo((!top && r < nlh ? t : c) + (size_t)r * w),
          hi(c + (size_t)r * w + nlw_), nlw(nlw_) {}
    DM float low(uint32_t k) const { return lo[k]; }
    DM float high(uint32_t k) const { return hi[k]; }
    DM float operator()(uint32_t x) const {
        return x < nlw ? low(x) : high(x - nlw);
    }
};

/* The first step's item i: output pairs from (i % ROW_ITEMS) IDWT_PAIRS
 * of the tile's columns, in the row that shared row i / ROW_ITEMS
 * holds. */
#define ROW_ITEMS (TILE_W / 2 / IDWT_PAIRS)
DK void tile_rows_item(const seis_frame &f, unsigned l, const tile_at &at,
                       unsigned i, float *sh) {
    const unsigned slot = i / ROW_ITEMS, jj = i % ROW_ITEMS * IDWT_PAIRS;
    const uint32_t nlh = (at.lh + 1) / 2, nlw = (at.lw + 1) / 2;
    uint32_t r;
    if (slot < TILE_LOW) {
        r = at.k0 + slot;
        if (r >= nlh)
            return;
    } else {
        const uint32_t h1 = at.k0 + (slot - TILE_LOW); /* high row + 1 */
        if (h1 == 0 || h1 - 1 >= at.lh - nlh)
            return;
        r = nlh + h1 - 1;
    }
    const uint32_t j = at.x0 / 2 + jj;
    if (j >= nlw)
        return;
    const row_src g(f.coef, level_out(f, l + 1), f.w, r, nlw, nlh,
                    l == f.levels);
    float *row = sh + slot * TILE_W + 2 * jj;
    float e[IDWT_PAIRS], o[IDWT_PAIRS] = {}; /* o: where a pair has one */
    pairs_out(g, at.lw, nlw, j, e, o);
    for (unsigned p = 0; p < IDWT_PAIRS && j + p < nlw; p++) {
        row[2 * p] = e[p];
        if (2 * (j + p) + 1 < at.lw)
            row[2 * p + 1] = o[p];
    }
}

/* Column `c` of the tile's rows in shared memory, by the column
 * transform's index y. */
struct tile_src {
    const float *sh;
    uint32_t k0, nl, c;
    DM float low(uint32_t k) const { return sh[(k - k0) * TILE_W + c]; }
    DM float high(uint32_t k) const {
        return sh[(TILE_LOW + 1 + k - k0) * TILE_W + c];
    }
    DM float operator()(uint32_t y) const {
        return y < nl ? low(y) : high(y - nl);
    }
};

/* The second step's item i: output pairs from (i / TILE_W) IDWT_PAIRS of
 * the tile's column i % TILE_W. */
DK void tile_cols_item(const seis_frame &f, unsigned l, const tile_at &at,
                       unsigned i, const float *sh) {
    const unsigned kk = i / TILE_W * IDWT_PAIRS, cc = i % TILE_W;
    const uint32_t nl = (at.lh + 1) / 2, c = at.x0 + cc, k = at.k0 + kk;
    if (c >= at.lw || k >= nl)
        return;
    const tile_src g = {sh, at.k0, nl, cc};
    float *out = level_out(f, l) + (size_t)(2 * k) * f.w + c;
    float e[IDWT_PAIRS], o[IDWT_PAIRS] = {}; /* o: where a pair has one */
    pairs_out(g, at.lh, nl, k, e, o);
    for (unsigned p = 0; p < IDWT_PAIRS && k + p < nl; p++) {
        out[2 * p * f.w] = e[p];
        if (2 * (k + p) + 1 < at.lh)
            out[(2 * p + 1) * f.w] = o[p];
    }
}

/* ---- encoder: forward lifting, extremes, quantization ---------------------- */

struct enc_stat {
    unsigned min_key, max_key; /* ordered keys of the extremes */
    unsigned long long bad;    /* first non-finite sample, n if none */
    int overflow;              /* a coefficient is not finite */
    sci_seis_grid grid;
};

struct enc_frame {
    const float *in;
    float *coef; /* the transform (the input itself when levels = 0) */
    float *tmp;  /* columns done, rows not yet */
    uint16_t *q;
    uint32_t w, h, levels, bits; /* levels: those that change anything */
    enc_stat *st;
};

/* Float to an unsigned key of the same order (-0 below +0), and back. */
DK unsigned float_key(float f) {
    unsigned u;
    memcpy(&u, &f, 4);
    return u & 0x80000000u ? ~u : u | 0x80000000u;
}

DK float key_float(unsigned k) {
    unsigned u = k & 0x80000000u ? k & 0x7FFFFFFFu : ~k;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* One 1-D forward float 5/3 of n samples read through get(i), as
 * sci_dwt53f_forward does it: odd x[2k+1] += -1/2 (x[2k] + x[2k+2]), then
 * even x[2k] += 1/4 (d_left + d_right), neighbours mirrored. */
template <typename G>
DK float high_out(const G &get, uint32_t n, uint32_t k) {
    uint32_t i = 2 * k + 1;
    float b = get(i + 1 < n ? i + 1 : n - 2);
    return get(i) + -0.5f * (get(i - 1) + b);
}

template <typename G>
DK float low_out(const G &get, uint32_t n, uint32_t k) {
    if (n == 1)
        return get(0);
    uint32_t i = 2 * k;
    /* the odd neighbours, mirrored: x[-1] = x[1], x[n] = x[n-2] */
    float dl = high_out(get, n, k > 0 ? k - 1 : 0);
    float dr = high_out(get, n, i + 1 < n ? k : k - 1);
    return get(i) + 0.25f * (dl + dr);
}

struct plane_src {
    const float *p;
    uint32_t w, fixed;
    bool by_col; /* get(y) reads column `fixed`, else row `fixed` */
    DM float operator()(uint32_t v) const {
        return by_col ? p[(size_t)v * w + fixed] : p[(size_t)fixed * w + v];
    }
};

/* The region of forward level l: low_len(w, l-1) x low_len(h, l-1). */
DK bool enc_region(const enc_frame &f, unsigned l, uint32_t *lw,
                   uint32_t *lh) {
    if (l > f.levels)
        return false;
    *lw = low_len(f.w, l - 1);
    *lh = low_len(f.h, l - 1);
    return true;
}

/* Columns of level l: item i is the pair k of column c; level 1 reads
 * the input, deeper levels the low band in coef; writes tmp. */
DK void fwd_cols_item(const enc_frame &f, unsigned l, size_t i) {
    uint32_t lw, lh;
    if (!enc_region(f, l, &lw, &lh))
        return;
    const uint32_t nl = (lh + 1) / 2;
    if (i >= (size_t)nl * lw)
        return;
    const uint32_t k = (uint32_t)(i / lw), c = (uint32_t)(i % lw);
    plane_src g = {l == 1 ? f.in : f.coef, f.w, c, true};
    f.tmp[(size_t)k * f.w + c] = low_out(g, lh, k);
    if (2 * k + 1 < lh)
        f.tmp[(size_t)(nl + k) * f.w + c] = high_out(g, lh, k);
}

DK void fwd_rows_item(const enc_frame &f, unsigned l, size_t i) {
    uint32_t lw, lh;
    if (!enc_region(f, l, &lw, &lh))
        return;
    const uint32_t nl = (lw + 1) / 2;
    if (i >= (size_t)lh * nl)
        return;
    const uint32_t r = (uint32_t)(i / nl), k = (uint32_t)(i % nl);
    plane_src g = {f.tmp, f.w, r, false};
    float *row = f.coef + (size_t)r * f.w;
    row[k] = low_out(g, lw, k);
    if (2 * k + 1 < lw)
        row[nl + k] = high_out(g, lw, k);
}

DK void grid_item(const enc_frame &f) {
    enc_stat *st = f.st;
    /* +0.0f: a zero extreme is +0, as the reference makes it */
    st->grid = sci_seis_grid_of(key_float(st->min_key) + 0.0f,
                                key_float(st->max_key) + 0.0f, f.bits);
}

DK void quant_item(const enc_frame &f, size_t i) {
    if (i < (size_t)f.w * f.h)
        f.q[i] = (uint16_t)sci_seis_quantize_one(f.coef[i], &f.st->grid,
                                                 (1u << f.bits) - 1);
}

/* ---- kernels ----------------------------------------------------------------- */

#ifndef SCI_SEIS_EMU
DK uint32_t warp_inclusive(uint32_t v, unsigned lane) {
    for (unsigned d = 1; d < 32; d <<= 1) {
        uint32_t o = __shfl_up_sync(0xFFFFFFFFu, v, d);
        if (lane >= d)
            v += o;
    }
    return v;
}

/* The scan of both table launches, a warp a length: each thread's count
 * becomes its first place in the segment; r->totals, the segment's. */
DK void tb_scan(table_room *r, unsigned t) {
    const unsigned lane = t & 31, warp = t >> 5;
    for (unsigned l = 1 + warp; l < TB_LENGTHS; l += TB_THREADS / 32) {
        uint16_t *b = r->below[l];
        const unsigned per = TB_THREADS / 32;
        uint32_t sum = 0;
        for (unsigned k = 0; k < per; k++)
            sum += b[lane * per + k];
        const uint32_t incl = warp_inclusive(sum, lane);
        uint32_t at = incl - sum;
        for (unsigned k = 0; k < per; k++) {
            const uint32_t c = b[lane * per + k];
            b[lane * per + k] = (uint16_t)at;
            at += c;
        }
        if (lane == 31)
            r->totals[l] = incl;
    }
}

/* A thread a segment of a version 4 or 5 frame's code table, LEN_SEGS of
 * them a block: the code lengths, read as codec/seismic/table.c reads
 * them; a table no encoder writes refuses the frame.  Version 5's segment
 * starts are the sums of the lengths its head gives; its code lengths
 * gather in shared memory, zeroed first, so that a run of unused symbols
 * costs a thread one token, not a store a symbol, and leave in 16-byte
 * stores.  Version 4's segments of 4096 write theirs where they go. */
__global__ void __launch_bounds__(LEN_SEGS)
    lengths_kernel(const seis_frame *frames, int *status) {
    __shared__ uint4 lens_sh[LEN_BYTES / 16];
    __shared__ uint32_t stream_sh[LEN_STREAM_BYTES / 4];
    __shared__ uint32_t warp_bits[LEN_SEGS / 32], warp_prior[LEN_SEGS / 32];
    const seis_frame f = frames[blockIdx.x];
    if (!f.tab)
        return;
    const uint32_t segs = sci_seis_table_segments(f.nsym, f.version);
    const uint32_t g0 = blockIdx.y * LEN_SEGS;
    if (g0 >= segs)
        return;
    if (f.tab_len <= sci_seis_table_head(f.nsym, f.version)) {
        if (threadIdx.x == 0 && g0 == 0)
            status[blockIdx.x] = SCI_SEIS_E_DATA;
        return;
    }
    const uint32_t t = threadIdx.x, g = g0 + t, lane = t % 32, warp = t / 32;
    const bool in_shared = f.version != 4;
    /* version 5: symbols [sym0, sym1) */
    const uint32_t sym0 = g0 * sci_seis_table_seg(5);
    const uint32_t sym1 = f.nsym - sym0 < LEN_BYTES ? f.nsym : sym0 + LEN_BYTES;
    if (in_shared)
        for (uint32_t i = t; i < (sym1 - sym0 + 15) / 16; i += LEN_SEGS)
            lens_sh[i] = make_uint4(0, 0, 0, 0);
    uint32_t prior = 0;
    for (uint32_t j = t; j < g0; j += LEN_SEGS)
        prior += segment_bits(f, j);
    const uint32_t bits = segment_bits(f, g);
    uint32_t incl = bits;
    for (unsigned o = 1; o < 32; o <<= 1) {
        const uint32_t v = __shfl_up_sync(0xffffffffu, incl, o);
        if (lane >= o)
            incl += v;
    }
    for (unsigned o = 16; o >= 1; o >>= 1)
        prior += __shfl_xor_sync(0xffffffffu, prior, o);
    if (lane == 31)
        warp_bits[warp] = incl;
    if (lane == 0)
        warp_prior[warp] = prior;
    __syncthreads();
    uint32_t before = incl - bits, block_start = 0, block_bits = 0;
    for (uint32_t w = 0; w < LEN_SEGS / 32; w++) {
        before += (w < warp ? warp_bits[w] : 0) + warp_prior[w];
        block_start += warp_prior[w];
        block_bits += warp_bits[w];
    }
    /* Version 5: the block's part of the stream, copied to shared memory
     * together, where a thread's walk read a word of global memory every
     * few tokens (the kernel 5 % faster at 16 bits; what remains is the
     * densest segment's walk, one token after another) */
    size_t from = 0, have = 0;
    if (in_shared) {
        size_t to;
        sci_seis_table_window(sci_seis_table_head(f.nsym, f.version),
                              f.tab_len, block_start, block_bits,
                              g0 + LEN_SEGS >= segs, &from, &to);
        have = to - from;
        const uint8_t *src = f.tab + from;
        if (have <= LEN_STREAM_BYTES && ((uintptr_t)src & 3) == 0) {
#pragma unroll 4
            for (uint32_t i = t; i < have / 4; i += LEN_SEGS)
                stream_sh[i] = ((const uint32_t *)src)[i];
            for (uint32_t i = have / 4 * 4 + t; i < have; i += LEN_SEGS)
                ((uint8_t *)stream_sh)[i] = src[i];
        } else if (have <= LEN_STREAM_BYTES) {
            for (uint32_t i = t; i < have; i += LEN_SEGS)
                ((uint8_t *)stream_sh)[i] = src[i];
        }
        __syncthreads();
    }
    uint8_t *len = in_shared
                       ? (uint8_t *)lens_sh + (g - g0) * sci_seis_table_seg(5)
                       : f.dlen + (size_t)g * sci_seis_table_seg(4);
    int bad = 0;
    if (g < segs && in_shared && have <= LEN_STREAM_BYTES)
        bad = sci_seis_table_read_segment_in(
            (const uint8_t *)stream_sh, from, have, f.tab_len, f.version, g,
            f.nsym, before, (size_t)before + bits, len, 1);
    else if (g < segs)
        bad = read_segment(f, g, before, bits, len, in_shared);
    if (bad)
        status[blockIdx.x] = SCI_SEIS_E_DATA;
    if (!in_shared)
        return;
    __syncthreads();
    /* dlen is 16-byte aligned, and so is sym0, and each frame's has room
     * for its alphabet rounded up to 16 (the batch's layout): the zeroed
     * bytes past the alphabet go too */
    for (uint32_t i = t; i < (sym1 - sym0 + 15) / 16; i += LEN_SEGS)
        ((uint4 *)(f.dlen + sym0))[i] = lens_sh[i];
}

/* The two table launches, a block a (frame, segment): TABLES_COUNT,
 * the segment's count of each length; TABLES_PLACE, its symbols placed. */
enum { TABLES_COUNT, TABLES_PLACE };

template <int PHASE>
__global__ void __launch_bounds__(TB_THREADS)
    tables_kernel(const seis_frame *frames, int *status) {
    __shared__ table_room r;
    const seis_frame f = frames[blockIdx.x];
    const uint32_t g = blockIdx.y;
    if (!f.len || g >= tb_segments(f.nsym) || status[blockIdx.x])
        return;
    const unsigned t = threadIdx.x;
    if (PHASE == TABLES_COUNT) {
        if (__syncthreads_or(!tb_count(f, &r, g, t))) {
            if (t == 0)
                status[blockIdx.x] = SCI_SEIS_E_DATA;
            return;
        }
        tb_scan(&r, t);
        __syncthreads();
        if (t < TB_LENGTHS)
            f.table[sorted_words(f.nsym) + g * TB_LENGTHS + t] =
                t ? r.totals[t] : 0;
        if (g == 0)
            for (unsigned j = t; j < LUT_ENTRIES; j += TB_THREADS)
                f.table[j] = 0;
        return;
    }
    if (t < TB_LENGTHS)
        tb_sum_segments(f, &r, g, t);
    __syncthreads();
    if (t == 0) {
        r.ok = 1;
        tb_heads(f, &r, g);
    }
    tb_count(f, &r, g, t);
    __syncthreads();
    if (!r.ok) {
        if (t == 0 && g == 0)
            status[blockIdx.x] = SCI_SEIS_E_DATA;
        return;
    }
    tb_scan(&r, t);
    __syncthreads();
    tb_place(f, &r, g, t);
}

/* Each block's symbol count; a package of none (no encoder writes one)
 * refuses its frame. */
__global__ void __launch_bounds__(DEC_THREADS)
    count_kernel(const seis_frame *frames, const block_job *jobs,
                 uint32_t *job_first, int *status) {
    __shared__ uint32_t warp_sum[DEC_WARPS];
    const block_job job = jobs[blockIdx.x];
    const seis_frame f = frames[job.frame];
    if (!counted_frame(f))
        return; /* its firsts say */
    const uint32_t i = job.pkg0 + threadIdx.x;
    uint32_t sum = count_at(f, i);
    if (i < f.npkg && sum == 0)
        status[job.frame] = SCI_SEIS_E_DATA;
    for (unsigned d = 16; d; d >>= 1)
        sum += __shfl_xor_sync(0xFFFFFFFFu, sum, d);
    if ((threadIdx.x & 31) == 0)
        warp_sum[threadIdx.x >> 5] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
        uint32_t t = 0;
        for (unsigned w = 0; w < DEC_WARPS; w++)
            t += warp_sum[w];
        job_first[blockIdx.x] = t;
    }
}

/* A warp a frame: its blocks' counts become the index of each block's
 * first symbol; symbols that do not add up to the gather refuse it, and
 * so does a version 6 frame's first that says otherwise. */
__global__ void offsets_kernel(const seis_frame *frames, unsigned n,
                               uint32_t *job_first, int *status) {
    const unsigned lane = threadIdx.x & 31;
    const unsigned i = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (i >= n)
        return;
    const seis_frame f = frames[i];
    if (!counted_frame(f))
        return;
    uint64_t run = 0;
    bool firsts_ok = true;
    for (uint32_t j0 = 0; j0 < f.njobs; j0 += 32) {
        const uint32_t j = j0 + lane;
        const uint32_t v = j < f.njobs ? job_first[f.job0 + j] : 0;
        const uint32_t incl = warp_inclusive(v, lane);
        if (j < f.njobs) {
            job_first[f.job0 + j] = (uint32_t)(run + incl - v);
            if (f.version >= 6 && j && f.firsts[j - 1] != run + incl - v)
                firsts_ok = false;
        }
        run += __shfl_sync(0xFFFFFFFFu, incl, 31);
    }
    firsts_ok = __all_sync(0xFFFFFFFFu, firsts_ok);
    if (lane == 0 && (run != (uint64_t)f.w * f.h || !firsts_ok))
        status[i] = SCI_SEIS_E_DATA;
}

/* A decode block's start: false when its frame is refused (by its counts or
 * tables, whose lookup may then not be whole, or by another block of the
 * launch), read once so that the block leaves as one; else the frame's
 * lookup table and limits into shared memory (the caller syncs before
 * reading them). */
__device__ __forceinline__ bool decode_start(const seis_frame &f,
                                             const int *status,
                                             uint32_t frame, int *refused,
                                             uint32_t *lut, uint32_t *limits) {
    if (threadIdx.x == 0)
        *refused = status[frame];
    __syncthreads();
    if (*refused)
        return false;
    for (unsigned j = threadIdx.x; j < LUT_ENTRIES; j += DEC_THREADS)
        lut[j] = f.table[j];
    for (unsigned j = threadIdx.x; j < 2 * LIMITS; j += DEC_THREADS)
        limits[j] = f.table[LUT_ENTRIES + j];
    return true;
}

/* A package a lane: code packages unpacked into the lane's slice of shared
 * memory, then the warp writes the 32 packages' symbols one package after
 * another, consecutive lanes at consecutive indices (a lane writing its
 * own package's symbols stored to 32 lines at once). */
__global__ void __launch_bounds__(DEC_THREADS)
    decode_kernel(const seis_frame *frames, const block_job *jobs,
                  const uint32_t *job_first, int *status) {
    __shared__ uint32_t lut[LUT_ENTRIES];
    __shared__ uint32_t limits[2 * LIMITS];
    __shared__ uint16_t slices[DEC_WARPS][32 * SLICE];
    __shared__ uint32_t warp_sum[DEC_WARPS];
    __shared__ int refused;
    const block_job job = jobs[blockIdx.x];
    const seis_frame f = frames[job.frame];
    if (!counted_frame(f))
        return; /* decode6_kernel's */
    if (!decode_start(f, status, job.frame, &refused, lut, limits))
        return;
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t i = job.pkg0 + threadIdx.x;
    const uint64_t pk = i < f.npkg ? f.pkg[i] : 0;
    const uint32_t cnt = i < f.npkg ? sci_seis_package_count(pk, f.version) : 0;
    const uint32_t incl = warp_inclusive(cnt, lane);
    if (lane == 31)
        warp_sum[warp] = incl;
    __syncthreads();
    /* the warps before this one, then the lanes before this one */
    uint32_t first = job_first[blockIdx.x] + incl - cnt;
    for (unsigned w = 0; w < warp; w++)
        first += warp_sum[w];
    uint16_t *slice = slices[warp];
    uint32_t run;
    const bool ok =
        take_package(f, lut, limits, pk, cnt, slice + lane * SLICE, &run);
    /* a refused package writes nothing: its slice may hold fewer symbols
     * than its count says, or none (a count past SCI_HUFF_PACKAGE_BITS) */
    const uint32_t put = ok ? cnt : 0;
    __syncwarp();
    for (unsigned j = 0; j < 32; j++)
        put_symbols(f, slice + j * SLICE, __shfl_sync(0xFFFFFFFFu, first, j),
                    __shfl_sync(0xFFFFFFFFu, put, j),
                    __shfl_sync(0xFFFFFFFFu, run, j), lane);
    if (!ok)
        status[job.frame] = SCI_SEIS_E_DATA;
}

/* Versions 6 and 7: the values of frames with zero runs set to the run
 * level, a block striding over a frame's. */
#define FILL_BLOCKS 64
__global__ void __launch_bounds__(DWT_THREADS)
    fill_kernel(const seis_frame *frames, const int *status) {
    const seis_frame f = frames[blockIdx.y];
    if (!f.zruns || status[blockIdx.y])
        return;
    const size_t n = (size_t)f.w * f.h;
    for (size_t i = (size_t)blockIdx.x * DWT_THREADS + threadIdx.x; i < n;
         i += (size_t)gridDim.x * DWT_THREADS)
        fill_item(f, i);
}

/* Version 6's shared memory: lookup table, limits, the warps' sums and
 * the lanes' token slices (60 KB: past the 48 KB of static shared
 * memory). */
#define DEC6_SHARED \
    ((LUT_ENTRIES + 2 * LIMITS + DEC_WARPS + DEC_WARPS * 32 * SLICE) * 4)

/* Version 6, a block of the frame's firsts: a package a lane, its index
 * tokens into the lane's slice; the block's values scanned and checked
 * against its firsts (a block that does not add up writes nothing); then
 * each warp writes its 32 packages one after another, consecutive lanes
 * at consecutive indices: a run package's values, a code package's index
 * tokens (fill_kernel has put the run level between them). */
__global__ void __launch_bounds__(DEC_THREADS)
    decode6_kernel(const seis_frame *frames, const block_job *jobs,
                   int *status) {
    extern __shared__ uint32_t dec6_sh[];
    __shared__ int refused;
    uint32_t *lut = dec6_sh, *limits = lut + LUT_ENTRIES;
    uint32_t *warp_sum = limits + 2 * LIMITS;
    uint32_t *slices = warp_sum + DEC_WARPS;
    const block_job job = jobs[blockIdx.x];
    const seis_frame f = frames[job.frame];
    if (counted_frame(f) || sliced_frame(f))
        return; /* decode_kernel's, decode7_kernel's */
    if (!decode_start(f, status, job.frame, &refused, lut, limits))
        return;
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t i = job.pkg0 + threadIdx.x;
    uint32_t *slice = slices + warp * 32 * SLICE;
    __syncthreads();
    uint32_t cnt = 0, run = 0, nt = 0;
    bool ok = true;
    if (i < f.npkg) {
        cnt = take_package6(f, lut, limits, i, slice + lane * SLICE, &run,
                            &nt);
        ok = cnt != 0;
    }
    const uint32_t incl = warp_inclusive(cnt, lane);
    if (lane == 31)
        warp_sum[warp] = incl;
    uint32_t first, end;
    const bool range = block_values(f, job.pkg0, &first, &end);
    ok = __syncthreads_and(ok);
    uint32_t before = 0, total = 0;
    for (unsigned w = 0; w < DEC_WARPS; w++) {
        before += w < warp ? warp_sum[w] : 0;
        total += warp_sum[w];
    }
    if (!ok || !range || total != end - first) {
        if (threadIdx.x == 0)
            status[job.frame] = SCI_SEIS_E_DATA;
        return;
    }
    first += before + incl - cnt;
    __syncwarp();
    for (unsigned j = 0; j < 32; j++)
        put_values6(f, slice + j * SLICE, __shfl_sync(0xFFFFFFFFu, first, j),
                    __shfl_sync(0xFFFFFFFFu, cnt, j),
                    __shfl_sync(0xFFFFFFFFu, nt, j),
                    __shfl_sync(0xFFFFFFFFu, run, j), lane);
}

/* Version 7, a block of SLICES_PER_BLOCK slices of a frame, SLICE_LANES
 * threads a slice (slice_of): the regions' walks in rounds until no start
 * moves, their counts scanned, then each region's values written
 * (fill_kernel has put the run level under the runs). */
__global__ void __launch_bounds__(DEC_THREADS)
    decode7_kernel(const seis_frame *frames, const block_job *jobs,
                   int *status) {
    __shared__ uint32_t lut[LUT_ENTRIES];
    __shared__ uint32_t limits[2 * LIMITS];
    __shared__ uint64_t pairs[LUT_ENTRIES];
    __shared__ int refused;
    const block_job job = jobs[blockIdx.x];
    const seis_frame f = frames[job.frame];
    if (!sliced_frame(f))
        return;
    if (!decode_start(f, status, job.frame, &refused, lut, limits))
        return;
    __syncthreads();
    sci_seis_pair_entries(lut, f.nval, pairs, threadIdx.x, DEC_THREADS);
    __syncthreads();
    const sci_seis_codebook cb = {lut, limits, limits + LIMITS,
                                  f.table + TABLE_HEAD, f.max_len, pairs};
    const unsigned g = threadIdx.x % SLICE_LANES;
    const uint32_t s = job.pkg0 + threadIdx.x / SLICE_LANES;
    slice_at sl = {};
    bool mine = false;
    if (s < f.units) {
        sl = slice_of(f, s);
        mine = sl.ok && g < sl.regions;
        if (!sl.ok && g == 0)
            status[job.frame] = SCI_SEIS_E_DATA;
    }
    lane_walk L;
    L.start = g * SLICE_REGION;
    L.count = L.next = 0;
    L.ok = true;
    if (mine)
        lane_count(f, cb, sl, g, &L, true);
    for (unsigned round = 0; round < SLICE_LANES; round++) {
        const uint32_t prev = __shfl_up_sync(0xFFFFFFFFu, L.next, 1,
                                             SLICE_LANES);
        const bool move = mine && g > 0 && prev != L.start;
        if (move)
            lane_move(f, cb, sl, g, &L, prev);
        if (!__any_sync(0xFFFFFFFFu, move))
            break;
    }
    uint32_t incl = mine ? L.count : 0;
    for (unsigned d = 1; d < SLICE_LANES; d <<= 1) {
        const uint32_t v = __shfl_up_sync(0xFFFFFFFFu, incl, d, SLICE_LANES);
        if (g >= d)
            incl += v;
    }
    if (mine && !lane_write(f, cb, sl, g, L, sl.first + incl - L.count))
        status[job.frame] = SCI_SEIS_E_DATA;
}

/* A full multiprocessor of blocks where it holds 2,048 threads (sm_80,
 * sm_90): left to itself the compiler gives the threads 39 registers (six
 * blocks); held to 32 nothing spills and every level is as fast or faster
 * (ncu, H200).  Multiprocessors of fewer threads have registers enough. */
#if __CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 900
#define INVERSE_BLOCKS (2048 / DWT_THREADS)
#else
#define INVERSE_BLOCKS 1
#endif
__global__ void __launch_bounds__(DWT_THREADS, INVERSE_BLOCKS)
    inverse_kernel(const seis_frame *frames, unsigned l) {
    __shared__ float sh[TILE_ROWS * TILE_W];
#if __CUDA_ARCH__ >= 900
    /* launched to start while the grid before it (the decode, or the
     * level below) finishes: nothing is read before that grid is done */
    cudaGridDependencySynchronize();
#endif
    const seis_frame f = frames[blockIdx.y];
    tile_at at;
    if (!level_tile(f, l, blockIdx.x, &at))
        return;
    for (unsigned i = threadIdx.x; i < TILE_ROWS * ROW_ITEMS; i += DWT_THREADS)
        tile_rows_item(f, l, at, i, sh);
    __syncthreads();
    for (unsigned i = threadIdx.x; i < (TILE_H / 2 / IDWT_PAIRS) * TILE_W;
         i += DWT_THREADS)
        tile_cols_item(f, l, at, i, sh);
}


__global__ void __launch_bounds__(RED_THREADS)
    check_kernel(const enc_frame *frames) {
    const enc_frame f = frames[blockIdx.y];
    size_t i = (size_t)blockIdx.x * RED_THREADS + threadIdx.x;
    if (i < (size_t)f.w * f.h && !isfinite(f.in[i]))
        atomicMin(&f.st->bad, (unsigned long long)i);
}

__global__ void __launch_bounds__(DWT_THREADS)
    fwd_cols_kernel(const enc_frame *frames, unsigned l) {
    fwd_cols_item(frames[blockIdx.y], l,
                  (size_t)blockIdx.x * DWT_THREADS + threadIdx.x);
}

__global__ void __launch_bounds__(DWT_THREADS)
    fwd_rows_kernel(const enc_frame *frames, unsigned l) {
    fwd_rows_item(frames[blockIdx.y], l,
                  (size_t)blockIdx.x * DWT_THREADS + threadIdx.x);
}

/* Extremes of each frame's coefficients: a block's, then atomics. */
__global__ void __launch_bounds__(RED_THREADS)
    minmax_kernel(const enc_frame *frames) {
    __shared__ unsigned lo[RED_THREADS], hi[RED_THREADS];
    __shared__ int bad;
    const enc_frame f = frames[blockIdx.y];
    const size_t n = (size_t)f.w * f.h;
    unsigned mn = 0xFFFFFFFFu, mx = 0;
    int ovf = 0;
    if (threadIdx.x == 0)
        bad = 0;
    for (size_t i = (size_t)blockIdx.x * RED_THREADS + threadIdx.x; i < n;
         i += (size_t)gridDim.x * RED_THREADS) {
        float c = f.coef[i];
        unsigned k = float_key(c);
        mn = k < mn ? k : mn;
        mx = k > mx ? k : mx;
        ovf |= !isfinite(c);
    }
    lo[threadIdx.x] = mn;
    hi[threadIdx.x] = mx;
    __syncthreads();
    if (ovf)
        bad = 1;
    for (unsigned w = RED_THREADS / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w) {
            lo[threadIdx.x] = min(lo[threadIdx.x], lo[threadIdx.x + w]);
            hi[threadIdx.x] = max(hi[threadIdx.x], hi[threadIdx.x + w]);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        atomicMin(&f.st->min_key, lo[0]);
        atomicMax(&f.st->max_key, hi[0]);
        if (bad)
            f.st->overflow = 1;
    }
}

__global__ void grid_kernel(const enc_frame *frames, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        grid_item(frames[i]);
}

__global__ void __launch_bounds__(RED_THREADS)
    quant_kernel(const enc_frame *frames) {
    quant_item(frames[blockIdx.y],
               (size_t)blockIdx.x * RED_THREADS + threadIdx.x);
}
#endif

/* ---- host ---------------------------------------------------------------------- */

extern "C" int sci_cuda_seis_create(sci_cuda_seis **out) {
    sci_cuda_seis *s = (sci_cuda_seis *)calloc(1, sizeof *s);
    if (!s)
        return SCI_SEIS_E_NOMEM;
    *out = s;
    return 0;
}

extern "C" void sci_cuda_seis_destroy(sci_cuda_seis *s) {
    if (!s)
        return;
    sci_cuda_seis_set_timing(s, 0);
    if (s->copy_stream) {
        events_destroy(s->copied, MAX_CHUNKS);
        events_destroy(s->tables_copied, MAX_CHUNKS);
        events_destroy(s->tabled, MAX_CHUNKS);
        cudaEventDestroy(s->odd_start);
        cudaEventDestroy(s->odd_done);
        cudaStreamDestroy(s->copy_stream);
        streams_destroy(s->table_streams, MAX_CHUNKS);
        cudaStreamDestroy(s->odd_stream);
    }
    cudaFreeHost(s->stage_host.p);
    cudaFree(s->stage_dev.p);
    cudaFree(s->coef.p);
    cudaFree(s->tmp.p);
    cudaFree(s->status.p);
    cudaFree(s->job_first.p);
    cudaFree(s->tables.p);
    cudaFree(s->lens.p);
    cudaFree(s->enc_dev.p);
    cudaFreeHost(s->enc_host.p);
    cudaFree(s->enc_coef.p);
    cudaFree(s->enc_tmp.p);
    cudaFree(s->enc_q.p);
    cudaFreeHost(s->enc_q_host.p);
    for (unsigned i = 0; i < s->nworkers; i++) {
        sci_seis_dctx_free(s->workers[i].dctx);
        free(s->workers[i].len);
    }
    free(s->workers);
    free(s);
}

static size_t align_up(size_t v, size_t a) {
    return (v + a - 1) / a * a;
}

/* What the host keeps of one frame of a decode. */
struct frame_plan {
    int err;
    size_t pkg_at, len_at; /* in the staging area */
    size_t table_at;       /* in words, in tables */
    size_t coef_at;        /* in floats, in coef and tmp */
    size_t piece0;         /* its packages' first piece in its chunk */
    size_t dlen_at;        /* versions 4 and 5: its lengths in lens */
};

static int cuda_err(cudaError_t e) {
    return e == cudaSuccess ? 0 : (int)e;
}

/* A chunk of a batch in the staging area: descriptors, decode blocks and
 * each frame's code table, then each frame's packages. */
struct chunk_plan {
    unsigned f0, f1; /* its frames */
    /* its descriptors, decode blocks and code tables, then from pkg_at to
     * end its frames' packages, in the staging area */
    size_t desc_at, jobs_at, pkg_at, end;
    size_t job_n;
    unsigned max_levels;
    uint32_t max_tiles[SCI_SEIS_MAX_LEVELS + 1]; /* a level's launch */
    uint32_t max_segments;                       /* the table launches' */
    uint32_t max_nsym; /* the largest alphabet whose table the device reads */
    size_t pieces;                               /* of packages */
    /* frames whose counts are their values, version 6's others, version
     * 7's; frames with zero runs */
    bool counted, firsts, sliced, fill;
};

/* The pool's items of a chunk: each frame's code lengths first (the
 * longer items, so that they start first), then the packages in pieces,
 * so that a chunk of as many frames as threads keeps every thread busy to
 * the end (a frame an item left the chunk waiting on the threads that
 * took two). */
#define STAGE_PIECE (64u << 10)

/* A frame's bytes the device takes as they are: its packages and, in
 * version 6, the firsts after them. */
static size_t package_bytes(const sci_seis_info *in) {
    return in->frame_len - 4 - in->pkg_off;
}

static size_t pieces_of(const sci_seis_info *in) {
    return (package_bytes(in) + STAGE_PIECE - 1) / STAGE_PIECE;
}

/* A frame's units that its decode blocks take (seis_frame.units). */
static uint32_t units_of(const sci_seis_info *in) {
    return in->version >= 7 ? in->blocks : in->packages;
}

/* A decode block's units (packages, slices) in a frame of this version. */
static uint32_t units_per_job(unsigned version) {
    return version >= 7 ? SLICES_PER_BLOCK : PKG_PER_BLOCK;
}

/* A frame's decode blocks. */
static size_t jobs_of(const sci_seis_info *in) {
    return (units_of(in) + units_per_job(in->version) - 1) /
           units_per_job(in->version);
}

/* The host's share of a chunk: its frames' items. */
struct chunk_args {
    sci_cuda_seis *s;
    const uint8_t *const *frames;
    const sci_seis_info *info;
    frame_plan *plan;
    seis_frame *desc; /* the chunk's, in the staging area */
    unsigned nf;
};

/* Frame i's code lengths into the staging area: a version 4 or 5 frame's
 * code table as it is (the device reads it); an older frame's lengths,
 * which the host decompresses, through the worker's buffer (written in
 * place, their lines would be left dirty in this CPU's caches:
 * codec/common/stage.h). */
static void stage_lengths(const chunk_args *a, unsigned i, seis_worker *w) {
    const sci_seis_info *in = &a->info[i];
    frame_plan *pl = &a->plan[i];
    uint8_t *hb = (uint8_t *)a->s->stage_host.p;
    if (in->version >= 4) {
        sci_stage_copy(hb + pl->len_at, a->frames[i] + in->table_off,
                       in->table_len);
        return;
    }
    int err = sci_seis_code_lengths_in(w->dctx, a->frames[i], in, w->len);
    if (err) {
        /* no tables: the device refuses it */
        seis_frame *f = &a->desc[i];
        pl->err = err;
        f->len = NULL;
        f->npkg = 0;
        f->levels = 0;
        return;
    }
    sci_stage_copy(hb + pl->len_at, w->len, (size_t)1 << in->p.bits);
}

/* Piece p of the chunk's packages into the staging area (sci_seis_parse
 * has checked that the frame holds them). */
static void stage_piece(const chunk_args *a, size_t p) {
    /* the frame: the last one whose pieces start at or before p */
    unsigned lo = 0, hi = a->nf - 1;
    while (lo < hi) {
        const unsigned mid = (lo + hi + 1) / 2;
        if (a->plan[mid].piece0 <= p)
            lo = mid;
        else
            hi = mid - 1;
    }
    const sci_seis_info *in = &a->info[lo];
    const size_t off = (p - a->plan[lo].piece0) * STAGE_PIECE;
    const size_t bytes = package_bytes(in) - off;
    /* the frame is little-endian, and so is every CUDA host */
    sci_stage_copy((uint8_t *)a->s->stage_host.p + a->plan[lo].pkg_at + off,
                   a->frames[lo] + in->pkg_off + off,
                   bytes < STAGE_PIECE ? bytes : STAGE_PIECE);
}

/* Chunk c's descriptors and decode blocks into the staging area; *ca, its
 * items for the pool (code lengths and packages). */
static void describe_chunk(sci_cuda_seis *s, chunk_plan *c,
                           const uint8_t *const frames[],
                           const sci_seis_info info[], frame_plan plan[],
                           float *const out[], uint16_t *const q[],
                           chunk_args *ca) {
    uint8_t *hb = (uint8_t *)s->stage_host.p;
    uint8_t *db = (uint8_t *)s->stage_dev.p;
    const unsigned f0 = c->f0, f1 = c->f1;
    block_job *job = (block_job *)(hb + c->jobs_at);
    seis_frame *desc = (seis_frame *)(hb + c->desc_at);
    c->job_n = 0;
    c->max_levels = 0;
    c->max_segments = 0;
    c->counted = c->firsts = c->sliced = c->fill = false;
    memset(c->max_tiles, 0, sizeof c->max_tiles);
    for (unsigned i = f0; i < f1; i++) {
        const sci_seis_info *in = &info[i];
        seis_frame f = {};
        if (in->version >= 4) {
            /* the table as the frame has it; the device reads it */
            f.tab = db + plan[i].len_at;
            f.tab_len = (uint32_t)in->table_len;
            f.dlen = (uint8_t *)s->lens.p + plan[i].dlen_at;
            f.len = f.dlen;
        } else {
            f.len = db + plan[i].len_at;
        }
        f.table = (uint32_t *)s->tables.p + plan[i].table_at;
        f.max_len = in->max_len;
        f.w = in->p.samples;
        f.h = in->p.traces;
        f.levels = sci_dwt_used_levels(f.w, f.h, in->p.levels);
        f.npkg = in->packages;
        f.units = units_of(in);
        f.grid = in->grid;
        f.version = in->version;
        f.nsym = in->nsym;
        f.nval = 1u << in->p.bits;
        if (tb_segments(f.nsym) > c->max_segments)
            c->max_segments = tb_segments(f.nsym);
        f.pkg = (const uint64_t *)(db + plan[i].pkg_at);
        f.firsts = in->version >= 6 ? (const uint32_t *)(f.pkg + f.npkg)
                                    : NULL;
        f.zruns = in->version >= 6 && in->zero_runs;
        if (sliced_frame(f))
            c->sliced = true;
        else if (counted_frame(f))
            c->counted = true;
        else
            c->firsts = true;
        c->fill |= f.zruns;
        f.out = out[i];
        f.coef = f.levels ? (float *)s->coef.p + plan[i].coef_at : out[i];
        f.tmp = (float *)s->tmp.p + plan[i].coef_at;
        f.q = q ? q[i] : NULL;
        if (f.levels > c->max_levels)
            c->max_levels = f.levels;
        f.job0 = (uint32_t)c->job_n;
        for (uint32_t p0 = 0; p0 < f.units; p0 += units_per_job(in->version))
            job[c->job_n++] = {i - f0, p0};
        f.njobs = (uint32_t)(c->job_n - f.job0);
        for (unsigned l = 1; l <= f.levels; l++) {
            const uint32_t t = tiles_of(sci_dwt_low_len(f.w, l - 1),
                                        sci_dwt_low_len(f.h, l - 1));
            if (t > c->max_tiles[l])
                c->max_tiles[l] = t;
        }
        desc[i - f0] = f;
    }
    *ca = {s, frames + f0, info + f0, plan + f0, desc, f1 - f0};
}

/* Chunk c's code lengths (read from the versions 4 and 5 tables) and
 * canonical tables, on ts; dstatus is the chunk's. */
static int launch_tables(sci_cuda_seis *s, const chunk_plan &c, int *dstatus,
                         cudaStream_t ts) {
    const uint8_t *db = (const uint8_t *)s->stage_dev.p;
    const seis_frame *dframes = (const seis_frame *)(db + c.desc_at);
    const unsigned n = c.f1 - c.f0;
#ifdef SCI_SEIS_EMU
    (void)ts;
    for (unsigned i = 0; i < n; i++) {
        lengths_emu(dframes[i], &dstatus[i]);
        tables_emu(dframes[i], &dstatus[i]);
    }
    return 0;
#else
    /* version 5 cuts the most segments */
    const uint32_t len_blocks =
        (sci_seis_table_segments(c.max_nsym, 5) + LEN_SEGS - 1) / LEN_SEGS;
    if (c.max_nsym)
        lengths_kernel<<<dim3(n, len_blocks), LEN_SEGS, 0, ts>>>(dframes,
                                                                  dstatus);
    tables_kernel<TABLES_COUNT>
        <<<dim3(n, c.max_segments), TB_THREADS, 0, ts>>>(dframes, dstatus);
    tables_kernel<TABLES_PLACE>
        <<<dim3(n, c.max_segments), TB_THREADS, 0, ts>>>(dframes, dstatus);
    return cuda_err(cudaGetLastError());
#endif
}

/* The device's work on a staged chunk whose tables are built: its first
 * indices, symbols and inverse DWT, on st; status and job_first are the
 * chunk's. */
static int launch_chunk(sci_cuda_seis *s, const chunk_plan &c,
                        uint32_t *djob_first, int *dstatus, int ev,
                        cudaStream_t st) {
    const uint8_t *db = (const uint8_t *)s->stage_dev.p;
    const seis_frame *dframes = (const seis_frame *)(db + c.desc_at);
    const block_job *djobs = (const block_job *)(db + c.jobs_at);
    const size_t job_n = c.job_n;
    const unsigned n = c.f1 - c.f0, max_levels = c.max_levels;

#ifdef SCI_SEIS_EMU
    (void)st;
    for (size_t b = 0; b < job_n; b++)
        djob_first[b] = job_count(dframes[djobs[b].frame], djobs[b].pkg0,
                                  &dstatus[djobs[b].frame]);
    for (unsigned i = 0; i < n; i++) {
        const seis_frame &f = dframes[i];
        if (!counted_frame(f))
            continue;
        uint64_t run = 0;
        for (uint32_t j = 0; j < f.njobs; j++) {
            const uint32_t c = djob_first[f.job0 + j];
            djob_first[f.job0 + j] = (uint32_t)run;
            if (f.version >= 6 && j && f.firsts[j - 1] != run)
                dstatus[i] = SCI_SEIS_E_DATA;
            run += c;
        }
        if (run != (uint64_t)f.w * f.h)
            dstatus[i] = SCI_SEIS_E_DATA;
    }
    for (unsigned i = 0; i < n; i++)
        if (dframes[i].zruns && !dstatus[i])
            for (size_t k = 0; k < (size_t)dframes[i].w * dframes[i].h; k++)
                fill_item(dframes[i], k);
    for (size_t b = 0; b < job_n; b++) {
        const seis_frame &f = dframes[djobs[b].frame];
        if (dstatus[djobs[b].frame])
            continue;
        if (sliced_frame(f))
            decode_job7_emu(f, djobs[b], &dstatus[djobs[b].frame]);
        else if (!counted_frame(f))
            decode_job6_emu(f, djobs[b], &dstatus[djobs[b].frame]);
        else
            decode_job_emu(f, djobs[b], djob_first[b],
                           &dstatus[djobs[b].frame]);
    }
    events_mark(s->timing, s->ev, ev + 3, st);
    for (unsigned l = max_levels; l >= 1; l--)
        for (unsigned i = 0; i < n; i++)
            for (uint32_t t = 0; t < c.max_tiles[l]; t++) {
                float sh[TILE_ROWS * TILE_W];
                tile_at at;
                if (!level_tile(dframes[i], l, t, &at))
                    continue;
                for (unsigned k = 0; k < TILE_ROWS * ROW_ITEMS; k++)
                    tile_rows_item(dframes[i], l, at, k, sh);
                for (unsigned k = 0; k < (TILE_H / 2 / IDWT_PAIRS) * TILE_W;
                     k++)
                    tile_cols_item(dframes[i], l, at, k, sh);
            }
#else
    if (job_n) {
        if (job_n > 0x7FFFFFFFu)
            return SCI_SEIS_E_ARG;
        if (c.counted) {
            count_kernel<<<(unsigned)job_n, DEC_THREADS, 0, st>>>(
                dframes, djobs, djob_first, dstatus);
            offsets_kernel<<<(n + 3) / 4, 128, 0, st>>>(dframes, n,
                                                         djob_first, dstatus);
            decode_kernel<<<(unsigned)job_n, DEC_THREADS, 0, st>>>(
                dframes, djobs, djob_first, dstatus);
        }
        if (c.fill) {
            if (n > 65535u)
                return SCI_SEIS_E_ARG;
            fill_kernel<<<dim3(FILL_BLOCKS, n), DWT_THREADS, 0, st>>>(
                dframes, dstatus);
        }
        if (c.firsts)
            decode6_kernel<<<(unsigned)job_n, DEC_THREADS, DEC6_SHARED, st>>>(
                dframes, djobs, dstatus);
        if (c.sliced)
            decode7_kernel<<<(unsigned)job_n, DEC_THREADS, 0, st>>>(
                dframes, djobs, dstatus);
    }
    events_mark(s->timing, s->ev, ev + 3, st);
    if (n > 65535u && max_levels)
        return SCI_SEIS_E_ARG;
    for (unsigned l = max_levels; l >= 1; l--) {
        /* a level's blocks may start while the grid before it finishes,
         * each waiting in the kernel */
        if (int err = cuda_err(launch_pdl(
                inverse_kernel, dim3(c.max_tiles[l], n), dim3(DWT_THREADS),
                0, st, s->pdl, (const seis_frame *)dframes, l)))
            return err;
    }
    if (int err = cuda_err(cudaGetLastError()))
        return err;
#endif
    events_mark(s->timing, s->ev, ev + 4, st);
    return 0;
}

/* Chunk k's descriptors and code tables, staged, to the device on the
 * copy stream, and its tables built on its table stream once they are
 * there. */
static int send_tables(sci_cuda_seis *s, const chunk_plan &c, unsigned k) {
    uint8_t *hb = (uint8_t *)s->stage_host.p;
    uint8_t *db = (uint8_t *)s->stage_dev.p;
    const int ev = EVENTS_PER_CHUNK * (int)k;
    cudaStream_t cs = s->copy_stream, ts = s->table_streams[k];
    int err;
    events_mark(s->timing, s->ev, ev, cs);
    if ((err = cuda_err(cudaMemcpyAsync(db + c.desc_at, hb + c.desc_at,
                                        c.pkg_at - c.desc_at,
                                        cudaMemcpyHostToDevice, cs))) ||
        (err = cuda_err(cudaEventRecord(s->tables_copied[k], cs))) ||
        (err = cuda_err(cudaStreamWaitEvent(ts, s->tables_copied[k], 0))))
        return err;
    events_mark(s->timing, s->ev, ev + 2, ts);
    int *status = (int *)s->status.p + c.f0;
    if ((err = cuda_err(cudaMemsetAsync(status, 0,
                                        (c.f1 - c.f0) * sizeof(int), ts))) ||
        (err = launch_tables(s, c, status, ts)))
        return err;
    return cuda_err(cudaEventRecord(s->tabled[k], ts));
}

/* Chunk k's packages, staged, to the device on the copy stream, and the
 * rest of its work once they are there and its tables built: on st (an
 * even chunk) or the odd chunks' stream. */
static int send_packages(sci_cuda_seis *s, const chunk_plan &c, unsigned k,
                         size_t job_at, cudaStream_t st) {
    uint8_t *hb = (uint8_t *)s->stage_host.p;
    uint8_t *db = (uint8_t *)s->stage_dev.p;
    const int ev = EVENTS_PER_CHUNK * (int)k;
    cudaStream_t cs = s->copy_stream;
    int err;
    if (k % 2)
        st = s->odd_stream;
    if ((err = cuda_err(cudaMemcpyAsync(db + c.pkg_at, hb + c.pkg_at,
                                        c.end - c.pkg_at,
                                        cudaMemcpyHostToDevice, cs))) ||
        (err = cuda_err(cudaEventRecord(s->copied[k], cs))))
        return err;
    events_mark(s->timing, s->ev, ev + 1, cs);
    if ((err = cuda_err(cudaStreamWaitEvent(st, s->copied[k], 0))) ||
        (err = cuda_err(cudaStreamWaitEvent(st, s->tabled[k], 0))))
        return err;
    return launch_chunk(s, c, (uint32_t *)s->job_first.p + job_at,
                        (int *)s->status.p + c.f0, ev, st);
}

/* A decode's staging in one pool region: every frame's code lengths, then
 * each chunk's packages in pieces, chunk after chunk; the thread that
 * stages the last of a chunk's tables or of its packages sends them, and
 * what is staged after them, in order.  A region a chunk woke the pool's
 * sleeping threads once a chunk: 90-95 GB/s against 106-108 at 16 bits.
 * Every chunk's tables first: the device builds them while it waits for
 * the first packages, where the later chunks' builds, among the earlier
 * chunks' decodes, had kept their decodes waiting. */
struct batch_run {
    sci_cuda_seis *s;
    const chunk_plan *cp;
    const chunk_args *ca;
    unsigned chunks;
    size_t piece0[MAX_CHUNKS + 1]; /* a chunk's first piece's item */
    /* its tables and its pieces of packages not yet staged (atomic) */
    size_t tables_left[MAX_CHUNKS], pieces_left[MAX_CHUNKS];
    int device;
    cudaStream_t st;
    pthread_mutex_t m; /* guards what follows */
    unsigned tables_sent, sent;
    size_t job_at;
    int err;
};

/* The tables and packages staged and not yet sent, each chunk's tables
 * before its packages, in chunk order, from this thread. */
static void send_ready(batch_run *r) {
    pthread_mutex_lock(&r->m);
    for (;;) {
        const unsigned t = r->tables_sent, k = r->sent;
        const bool tables =
            t < r->chunks &&
            __atomic_load_n(&r->tables_left[t], __ATOMIC_ACQUIRE) == 0;
        const bool packages =
            !tables && k < t &&
            __atomic_load_n(&r->pieces_left[k], __ATOMIC_ACQUIRE) == 0;
        if (r->err || (!tables && !packages))
            break;
        int cur = -1;
        /* the pool's threads did not choose a device */
        if (cudaGetDevice(&cur) != cudaSuccess || cur != r->device)
            r->err = cuda_err(cudaSetDevice(r->device));
        if (tables) {
            if (!r->err)
                r->err = send_tables(r->s, r->cp[t], t);
            r->tables_sent++;
            continue;
        }
        if (!r->err)
            r->err = send_packages(r->s, r->cp[k], k, r->job_at, r->st);
        r->job_at += r->cp[k].job_n;
        r->sent++;
    }
    pthread_mutex_unlock(&r->m);
}

static void stage_items(void *arg, size_t b, size_t e, unsigned worker) {
    batch_run *r = (batch_run *)arg;
    for (size_t i = b; i < e; i++) {
        unsigned k = 0;
        size_t *left;
        if (i < r->piece0[0]) {
            while (i >= r->cp[k].f1)
                k++;
            stage_lengths(&r->ca[k], (unsigned)(i - r->cp[k].f0),
                          &r->s->workers[worker]);
            left = &r->tables_left[k];
        } else {
            while (i >= r->piece0[k + 1])
                k++;
            stage_piece(&r->ca[k], i - r->piece0[k]);
            left = &r->pieces_left[k];
        }
        if (__atomic_sub_fetch(left, 1, __ATOMIC_ACQ_REL) == 0)
            send_ready(r);
    }
}

/* The copy, table and odd chunks' streams and their events, made with the
 * first decode. */
static int ensure_streams(sci_cuda_seis *s) {
    if (s->copy_stream)
        return 0;
    int e;
    cudaStream_t cs, ts[MAX_CHUNKS], os;
    cudaEvent_t start, done;
    if ((e = cuda_err(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking))))
        return e;
    /* the table builds first where decodes wait for SMs: a build's
     * launches are a few blocks, and the decodes of its chunk wait on it */
    int least, greatest;
    if ((e = cuda_err(cudaDeviceGetStreamPriorityRange(&least, &greatest))) ||
        (e = streams_create(ts, MAX_CHUNKS, greatest)))
        goto no_ts;
    if ((e = events_create(s->copied, MAX_CHUNKS)))
        goto no_copied;
    if ((e = events_create(s->tabled, MAX_CHUNKS)))
        goto no_tabled;
    if ((e = events_create(s->tables_copied, MAX_CHUNKS)))
        goto no_tables_copied;
    if ((e = cuda_err(cudaStreamCreateWithFlags(&os, cudaStreamNonBlocking))))
        goto no_os;
    if ((e = cuda_err(
             cudaEventCreateWithFlags(&start, cudaEventDisableTiming))))
        goto no_start;
    if ((e = cuda_err(cudaEventCreateWithFlags(&done, cudaEventDisableTiming))))
        goto no_done;
#ifndef SCI_SEIS_EMU
    int dev, major;
    if ((e = cuda_err(cudaFuncSetAttribute(
             decode6_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
             DEC6_SHARED))) ||
        (e = cuda_err(cudaGetDevice(&dev))) ||
        (e = cuda_err(cudaDeviceGetAttribute(
             &major, cudaDevAttrComputeCapabilityMajor, dev))))
        goto no_attr;
    s->pdl = launch_pdl_supported(major);
#endif
    s->copy_stream = cs;
    for (unsigned k = 0; k < MAX_CHUNKS; k++)
        s->table_streams[k] = ts[k];
    s->odd_stream = os;
    s->odd_start = start;
    s->odd_done = done;
    return 0;
#ifndef SCI_SEIS_EMU
no_attr:
    cudaEventDestroy(done);
#endif
no_done:
    cudaEventDestroy(start);
no_start:
    cudaStreamDestroy(os);
no_os:
    events_destroy(s->tables_copied, MAX_CHUNKS);
no_tables_copied:
    events_destroy(s->tabled, MAX_CHUNKS);
no_tabled:
    events_destroy(s->copied, MAX_CHUNKS);
no_copied:
    streams_destroy(ts, MAX_CHUNKS);
no_ts:
    cudaStreamDestroy(cs);
    return e;
}

/* A worker's scratch for each thread of the pool. */
static int ensure_workers(sci_cuda_seis *s) {
    const unsigned n = s->pool ? sci_pool_threads(s->pool) : 1;
    if (s->nworkers >= n)
        return 0;
    seis_worker *w =
        (seis_worker *)realloc(s->workers, n * sizeof *s->workers);
    if (!w)
        return SCI_SEIS_E_NOMEM;
    s->workers = w;
    for (; s->nworkers < n; s->nworkers++) {
        seis_worker *k = &w[s->nworkers];
        k->dctx = sci_seis_dctx_new();
        k->len = (uint8_t *)malloc((size_t)1 << SCI_SEIS_MAX_BITS);
        if (!k->dctx || !k->len) {
            sci_seis_dctx_free(k->dctx);
            free(k->len);
            return SCI_SEIS_E_NOMEM;
        }
    }
    return 0;
}

extern "C" int sci_cuda_seis_decode(sci_cuda_seis *s, unsigned n,
                                    const uint8_t *const frames[],
                                    const sci_seis_info info[],
                                    float *const out[],
                                    uint16_t *const q[], int status[],
                                    void *stream) {
    cudaStream_t st = (cudaStream_t)stream;
    if (!s || !frames || !info || !out)
        return SCI_SEIS_E_ARG;
    if (n == 0)
        return 0;
    frame_plan *plan = (frame_plan *)calloc(n, sizeof *plan);
    int *stat = (int *)calloc(n, sizeof *stat);
    if (!plan || !stat) {
        free(plan);
        free(stat);
        return SCI_SEIS_E_NOMEM;
    }
    int err = 0;
    memset(&s->times, 0, sizeof s->times);
    size_t packages = 0;
    for (unsigned i = 0; i < n; i++)
        packages += info[i].packages;
    size_t chunks =
        packages / (s->chunk_packages ? s->chunk_packages : CHUNK_PACKAGES);
    chunks = chunks < 1 ? 1 : chunks > MAX_CHUNKS ? MAX_CHUNKS : chunks;
    chunks = chunks < n ? chunks : n;
    /* the first chunk smaller (FIRST_CHUNK_DIV), the others even, none
     * left empty */
    unsigned first = (unsigned)((n + chunks - 1) / chunks), per_chunk = first;
    if (chunks > 1) {
        first = (first + FIRST_CHUNK_DIV - 1) / FIRST_CHUNK_DIV;
        per_chunk = (unsigned)((n - first + chunks - 2) / (chunks - 1));
        chunks = 1 + (n - first + per_chunk - 1) / per_chunk;
    }

    /* The layout: each chunk's place in the staging area, each frame's
     * there and in the tables and coefficients. */
    chunk_plan cp[MAX_CHUNKS] = {};
    size_t stage_bytes = 0, table_words = 0, coefs = 0, jobs = 0, lens = 0;
    for (unsigned k = 0; k < chunks; k++) {
        chunk_plan *c = &cp[k];
        c->f0 = k ? first + (k - 1) * per_chunk : 0;
        c->f1 = k ? (c->f0 + per_chunk < n ? c->f0 + per_chunk : n) : first;
        c->desc_at = stage_bytes;
        c->jobs_at =
            align_up(stage_bytes + (c->f1 - c->f0) * sizeof(seis_frame), 16);
        size_t cj = 0;
        for (unsigned i = c->f0; i < c->f1; i++)
            cj += jobs_of(&info[i]);
        jobs += cj;
        size_t at = align_up(c->jobs_at + cj * sizeof(block_job), 16);
        for (unsigned i = c->f0; i < c->f1; i++) {
            const size_t v = (size_t)info[i].p.traces * info[i].p.samples;
            const size_t nsym = info[i].nsym;
            plan[i].len_at = at;
            if (info[i].version >= 4) {
                at = align_up(at + info[i].table_len, 16);
                plan[i].dlen_at = lens;
                lens += align_up(nsym, 16);
                if (nsym > c->max_nsym)
                    c->max_nsym = (uint32_t)nsym;
            } else {
                at = align_up(at + nsym, 16);
            }
            plan[i].table_at = table_words;
            table_words += table_words_of((uint32_t)nsym);
            plan[i].coef_at = coefs;
            coefs += align_up(v, 64);
        }
        c->pkg_at = at;
        for (unsigned i = c->f0; i < c->f1; i++) {
            plan[i].pkg_at = at;
            plan[i].piece0 = c->pieces;
            c->pieces += pieces_of(&info[i]);
            at = align_up(at + package_bytes(&info[i]), 16);
        }
        c->end = stage_bytes = at;
    }
    if ((err = ensure_workers(s)) || (err = ensure_streams(s)) ||
        (err = grow_mem(&s->stage_host, stage_bytes, 1)) ||
        (err = grow(&s->stage_dev, stage_bytes)) ||
        (err = grow(&s->coef, coefs * 4 + 4)) ||
        (err = grow(&s->tmp, coefs * 4 + 4)) ||
        (err = grow(&s->status, n * sizeof(int))) ||
        (err = grow(&s->job_first, jobs * 4 + 4)) ||
        (err = grow(&s->tables, table_words * 4)) ||
        (err = grow(&s->lens, lens + 16)))
        goto out;

    {
        const double t0 = now_ms();
        chunk_args ca[MAX_CHUNKS];
        batch_run r = {};
        r.s = s;
        r.cp = cp;
        r.ca = ca;
        r.chunks = (unsigned)chunks;
        r.st = st;
        r.piece0[0] = n;
        for (unsigned k = 0; k < chunks; k++) {
            describe_chunk(s, &cp[k], frames, info, plan, out, q, &ca[k]);
            r.tables_left[k] = ca[k].nf;
            r.pieces_left[k] = cp[k].pieces;
            r.piece0[k + 1] = r.piece0[k] + cp[k].pieces;
        }
        /* the odd chunks' kernels follow what the caller queued on st, and
         * st follows them */
        if ((err = cuda_err(cudaGetDevice(&r.device))) ||
            (err = cuda_err(cudaEventRecord(s->odd_start, st))) ||
            (err = cuda_err(
                 cudaStreamWaitEvent(s->odd_stream, s->odd_start, 0))))
            goto out;
        pthread_mutex_init(&r.m, NULL);
        sci_pool_for(s->pool, r.piece0[chunks], 1, stage_items, &r);
        pthread_mutex_destroy(&r.m);
        s->times.host = s->timing ? (float)(now_ms() - t0) : 0;
        if ((err = r.err) ||
            (err = cuda_err(cudaEventRecord(s->odd_done, s->odd_stream))) ||
            (err = cuda_err(cudaStreamWaitEvent(st, s->odd_done, 0))))
            goto out;
        if ((err = cuda_err(cudaMemcpyAsync(stat, s->status.p,
                                            n * sizeof(int),
                                            cudaMemcpyDeviceToHost, st))) ||
            (err = cuda_err(cudaStreamSynchronize(st))))
            goto out;
        for (unsigned c = 0; c < chunks; c++) {
            const int ev = EVENTS_PER_CHUNK * (int)c;
            s->times.upload += events_span(s->timing, s->ev, ev, ev + 1);
            s->times.decode += events_span(s->timing, s->ev, ev + 2, ev + 3);
            s->times.dwt += events_span(s->timing, s->ev, ev + 3, ev + 4);
        }
    }
    for (unsigned i = 0; i < n; i++) {
        int e = plan[i].err ? plan[i].err : stat[i];
        if (status)
            status[i] = e;
        if (e && !err)
            err = e;
    }
out:
    /* a chunk may still read the staging area */
    if (err && s->copy_stream &&
        (cudaStreamSynchronize(s->copy_stream) != cudaSuccess ||
         streams_synchronize(s->table_streams, MAX_CHUNKS) != cudaSuccess ||
         cudaStreamSynchronize(s->odd_stream) != cudaSuccess ||
         cudaStreamSynchronize(st) != cudaSuccess))
        cudaGetLastError();
    free(plan);
    free(stat);
    return err;
}

/* ---- encoder, host side ------------------------------------------------------ */

/* The host's share of a batch encode, a gather a call. */
struct encode_args {
    const sci_seis_params *p;
    const enc_stat *stat;
    const uint16_t *q; /* the indices of every gather, gather i at at[i] */
    const size_t *at;
    const uint8_t *const *meta;
    const size_t *meta_len;
    uint8_t *const *out;
    const size_t *cap;
    size_t *out_len;
    int *status;
    size_t *bad_index;
};

/* Gathers [b, e): refused, or coded and packed. */
static void code_gathers(void *arg, size_t b, size_t e, unsigned) {
    const encode_args *a = (const encode_args *)arg;
    for (size_t i = b; i < e; i++) {
        const sci_seis_params *p = &a->p[i];
        const enc_stat *st = &a->stat[i];
        const size_t v = (size_t)p->traces * p->samples;
        int err;
        if (st->bad < v || st->overflow ||
            !sci_seis_grid_fits(&st->grid, p)) {
            if (a->bad_index)
                a->bad_index[i] = st->bad < v ? (size_t)st->bad : v;
            err = SCI_SEIS_E_VALUE;
        } else {
            err = sci_seis_encode_indices(
                p, a->q + a->at[i], &st->grid, a->meta ? a->meta[i] : NULL,
                a->meta && a->meta_len ? a->meta_len[i] : 0, a->out[i],
                a->cap[i], &a->out_len[i]);
        }
        a->status[i] = err;
    }
}

extern "C" int sci_cuda_seis_encode(sci_cuda_seis *s, unsigned n,
                                    const sci_seis_params p[],
                                    const float *const gathers[],
                                    const uint8_t *const meta[],
                                    const size_t meta_len[],
                                    uint8_t *const out[], const size_t cap[],
                                    size_t out_len[], int status[],
                                    size_t bad_index[], void *stream) {
    cudaStream_t st = (cudaStream_t)stream;
    if (!s || !p || !gathers || !out || !cap || !out_len)
        return SCI_SEIS_E_ARG;
    if (n == 0)
        return 0;
    for (unsigned i = 0; i < n; i++)
        if (sci_seis_params_check(&p[i]) || !gathers[i] || !out[i] ||
            (meta && meta_len && meta_len[i] && !meta[i]))
            return SCI_SEIS_E_ARG;
    if (n > 65535u)
        return SCI_SEIS_E_ARG;
    /* offsets of each gather's values in the scratch planes */
    size_t *at = (size_t *)malloc(n * sizeof *at);
    if (!at)
        return SCI_SEIS_E_NOMEM;
    size_t total = 0, max_n = 0;
    unsigned max_levels = 0;
    uint32_t max_items[2] = {0, 0}; /* columns, rows launches */
    for (unsigned i = 0; i < n; i++) {
        size_t v = (size_t)p[i].traces * p[i].samples;
        at[i] = total;
        total += align_up(v, 64);
        max_n = v > max_n ? v : max_n;
        unsigned lev = sci_dwt_used_levels(p[i].samples, p[i].traces,
                                        p[i].levels);
        max_levels = lev > max_levels ? lev : max_levels;
        uint64_t cols = (uint64_t)((p[i].traces + 1) / 2) * p[i].samples;
        uint64_t rows = (uint64_t)p[i].traces * ((p[i].samples + 1) / 2);
        if (lev && cols > max_items[0])
            max_items[0] = (uint32_t)cols;
        if (lev && rows > max_items[1])
            max_items[1] = (uint32_t)rows;
    }
    const size_t desc_bytes = align_up(n * sizeof(enc_frame), 16);
    const size_t stat_bytes = n * sizeof(enc_stat);
    int err;
    if ((err = grow(&s->enc_dev, desc_bytes + stat_bytes)) ||
        (err = grow_mem(&s->enc_host, desc_bytes + stat_bytes, 1)) ||
        (err = grow(&s->enc_coef, total * 4 + 4)) ||
        (err = grow(&s->enc_tmp, total * 4 + 4)) ||
        (err = grow(&s->enc_q, total * 2 + 2)) ||
        (err = grow_mem(&s->enc_q_host, total * 2 + 2, 1))) {
        free(at);
        return err;
    }
    uint8_t *hb = (uint8_t *)s->enc_host.p, *db = (uint8_t *)s->enc_dev.p;
    enc_frame *desc = (enc_frame *)hb;
    enc_stat *stat = (enc_stat *)(hb + desc_bytes);
    enc_stat *dstat = (enc_stat *)(db + desc_bytes);
    for (unsigned i = 0; i < n; i++) {
        enc_frame *f = &desc[i];
        f->in = gathers[i];
        f->w = p[i].samples;
        f->h = p[i].traces;
        f->bits = p[i].bits;
        f->levels = sci_dwt_used_levels(f->w, f->h, p[i].levels);
        f->coef = f->levels ? (float *)s->enc_coef.p + at[i]
                            : (float *)gathers[i];
        f->tmp = (float *)s->enc_tmp.p + at[i];
        f->q = (uint16_t *)s->enc_q.p + at[i];
        f->st = &dstat[i];
        memset(&stat[i], 0, sizeof stat[i]);
        stat[i].min_key = 0xFFFFFFFFu;
        stat[i].bad = (unsigned long long)f->w * f->h;
    }
    const enc_frame *dframes = (const enc_frame *)db;
    if ((err = cuda_err(cudaMemcpyAsync(db, hb, desc_bytes + stat_bytes,
                                        cudaMemcpyHostToDevice, st))))
        goto out;
#ifdef SCI_SEIS_EMU
    for (unsigned i = 0; i < n; i++)
        for (size_t k = 0; k < (size_t)desc[i].w * desc[i].h; k++)
            if (!isfinite(desc[i].in[k]) && k < dstat[i].bad)
                dstat[i].bad = k;
    for (unsigned l = 1; l <= max_levels; l++) {
        for (unsigned i = 0; i < n; i++)
            for (size_t k = 0; k < max_items[0]; k++)
                fwd_cols_item(dframes[i], l, k);
        for (unsigned i = 0; i < n; i++)
            for (size_t k = 0; k < max_items[1]; k++)
                fwd_rows_item(dframes[i], l, k);
    }
    for (unsigned i = 0; i < n; i++) {
        for (size_t k = 0; k < (size_t)desc[i].w * desc[i].h; k++) {
            float c = dframes[i].coef[k];
            unsigned key = float_key(c);
            dstat[i].min_key = key < dstat[i].min_key ? key : dstat[i].min_key;
            dstat[i].max_key = key > dstat[i].max_key ? key : dstat[i].max_key;
            dstat[i].overflow |= !isfinite(c);
        }
        grid_item(dframes[i]);
        for (size_t k = 0; k < (size_t)desc[i].w * desc[i].h; k++)
            quant_item(dframes[i], k);
    }
#else
    {
        const unsigned red_blocks =
            (unsigned)((max_n + RED_THREADS - 1) / RED_THREADS);
        check_kernel<<<dim3(red_blocks, n), RED_THREADS, 0, st>>>(dframes);
        for (unsigned l = 1; l <= max_levels; l++) {
            dim3 gc((max_items[0] + DWT_THREADS - 1) / DWT_THREADS, n);
            dim3 gr((max_items[1] + DWT_THREADS - 1) / DWT_THREADS, n);
            fwd_cols_kernel<<<gc, DWT_THREADS, 0, st>>>(dframes, l);
            fwd_rows_kernel<<<gr, DWT_THREADS, 0, st>>>(dframes, l);
        }
        /* enough blocks to fill the GPU, each striding over its frame */
        unsigned mm_blocks = red_blocks < 64 ? red_blocks : 64;
        minmax_kernel<<<dim3(mm_blocks, n), RED_THREADS, 0, st>>>(dframes);
        grid_kernel<<<(n + 127) / 128, 128, 0, st>>>(dframes, n);
        quant_kernel<<<dim3(red_blocks, n), RED_THREADS, 0, st>>>(dframes);
        if ((err = cuda_err(cudaGetLastError())))
            goto out;
    }
#endif
    if ((err = cuda_err(cudaMemcpyAsync(stat, dstat, stat_bytes,
                                        cudaMemcpyDeviceToHost, st))) ||
        (err = cuda_err(cudaMemcpyAsync(s->enc_q_host.p, s->enc_q.p,
                                        total * 2, cudaMemcpyDeviceToHost,
                                        st))) ||
        (err = cuda_err(cudaStreamSynchronize(st))))
        goto out;
    /* the code and the packages on the host, a gather a call */
    {
        int *st = (int *)malloc(n * sizeof *st);
        if (!st) {
            err = SCI_SEIS_E_NOMEM;
            goto out;
        }
        encode_args ea = {p, stat, (const uint16_t *)s->enc_q_host.p, at,
                          meta, meta_len, out, cap, out_len, st, bad_index};
        sci_pool_for(s->pool, n, 1, code_gathers, &ea);
        /* the first gather's error, whichever thread met it first */
        for (unsigned i = 0; i < n; i++) {
            if (status)
                status[i] = st[i];
            if (st[i] && !err)
                err = st[i];
        }
        free(st);
    }
out:
    free(at);
    return err;
}
