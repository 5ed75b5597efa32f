/*
 * HT cleanup encoding of one code-block by one warp (included by
 * cuda/j2k/htj2k.cu, which provides ht_params, ht_blk, ht_qp, sample(),
 * exponent() and the MEL/VLC writers used at the end).
 *
 * Everything about a quad follows from the samples and from the line-pair
 * above: significance, exponents, context, exponent predictor, codeword,
 * MagSgn bit counts.  So a line-pair is coded 32 quads at a time, a quad a
 * lane, and only the packing is serial in nature:
 *   - each lane appends its MagSgn bits, and each even lane its quad pair's
 *     VLC bits (codewords, then U-VLC), to unstuffed bit buffers in shared
 *     memory at offsets from a warp prefix sum;
 *   - the unstuffed bits become stuffed bytes 32 at a time: every lane
 *     takes a byte as if no stuffing came before it, a ballot finds the
 *     first byte that stuffing changes (MagSgn: a byte after 0xFF holds 7
 *     bits; VLC: after a byte above 0x8F, seven ones take a stuffed 0), the
 *     bytes before it are final, and the loop goes on from there.  Stuffing
 *     is rare, so a loop round settles up to 32 bytes;
 *   - MEL, an adaptive run-length state machine over few events, runs on
 *     lane 0 from the events the pairs left in shared memory.
 * The bytes are those of codec/j2k/ht_block.c exactly.
 */

#define HTW_MS_WORDS 136  /* 32 quads x 4 x 31 bits, plus carry */
#define HTW_VLC_WORDS 28  /* 16 pairs x 46 bits, plus carry */
#define HTW_MAX_W 1024

typedef struct {
    uint32_t ms[HTW_MS_WORDS + 1];
    uint32_t vlc[HTW_VLC_WORDS + 1];
    uint8_t ea[2][HTW_MAX_W + 4]; /* bottom-row exponents, index x + 1 */
    uint32_t ev[4];               /* MEL events of a chunk, in order */
} htw_smem;

#if defined(__CUDACC__) && !defined(SCI_HT_EMU)
#define HTW_FULL 0xffffffffu
HT_D uint32_t w_shfl(uint32_t v, int src) { return __shfl_sync(HTW_FULL, v, src); }
HT_D uint32_t w_up(uint32_t v, int d) { return __shfl_up_sync(HTW_FULL, v, d); }
HT_D uint32_t w_down(uint32_t v, int d) { return __shfl_down_sync(HTW_FULL, v, d); }
HT_D uint32_t w_ballot(int p) { return __ballot_sync(HTW_FULL, p); }
HT_D void w_sync(void) { __syncwarp(); }
HT_D void w_or(uint32_t *a, uint32_t v) { atomicOr(a, v); }
HT_D int w_ffs(uint32_t m) { return __ffs((int)m); }
HT_D int w_ctz64(uint64_t v) { return __ffsll((long long)v) - 1; }
HT_D int w_popc(uint32_t m) { return __popc(m); }
#else
/* Emulation (tests/j2k/htj2k_emu.cpp): the lanes are coroutines that meet at
 * every warp operation (cuda/common/warp_emu.h). */
static inline uint32_t w_shfl(uint32_t v, int src) {
    return (uint32_t)warp_emu_xchg(v, (unsigned)src);
}
static inline uint32_t w_up(uint32_t v, int d) {
    int l = (int)warp_emu_lane();
    return (uint32_t)warp_emu_xchg(v, (unsigned)(l >= d ? l - d : l));
}
static inline uint32_t w_down(uint32_t v, int d) {
    int l = (int)warp_emu_lane();
    return (uint32_t)warp_emu_xchg(v, (unsigned)(l + d < 32 ? l + d : l));
}
static inline uint32_t w_ballot(int p) { return warp_emu_ballot(p); }
static inline void w_sync(void) { warp_emu_sync(); }
static inline void w_or(uint32_t *a, uint32_t v) { *a |= v; }
static inline int w_ffs(uint32_t m) { return __builtin_ffs((int)m); }
static inline int w_ctz64(uint64_t v) { return __builtin_ctzll(v); }
static inline int w_popc(uint32_t m) { return __builtin_popcount(m); }
#endif

/* Up to 32 bits at bit offset `at` (buffers have a spare word). */
HT_D uint32_t w_get(const uint32_t *b, uint32_t at, unsigned n) {
    uint32_t w = at >> 5, s = at & 31;
    uint64_t v = ((uint64_t)b[w + 1] << 32 | b[w]) >> s;
    return (uint32_t)v & (n >= 32 ? 0xffffffffu : (1u << n) - 1);
}

/* ORs n <= 32 bits into a zeroed buffer at bit offset `at`. */
HT_D void w_put(uint32_t *b, uint32_t at, uint32_t v, unsigned n) {
    if (!n)
        return;
    if (n < 32)
        v &= (1u << n) - 1;
    uint32_t w = at >> 5, s = at & 31;
    w_or(&b[w], v << s);
    if (s && s + n > 32)
        w_or(&b[w + 1], v >> (32 - s));
}

/* z events of 0 for the MEL coder, as z calls of mel_event(m, 0). */
HT_D void mel_zeros(mel_w &m, uint32_t z) {
    while (z) {
        uint32_t need = m.threshold - m.run;
        if (z < need) {
            m.run += z;
            return;
        }
        z -= need;
        mel_bit(m, 1);
        m.run = 0;
        if (m.k < 12)
            m.k++;
        m.threshold = 1u << mel_exp(m.k);
    }
}

/* Inclusive warp prefix sum. */
HT_D uint32_t w_scan(uint32_t v, unsigned lane) {
    for (int d = 1; d < 32; d <<= 1) {
        uint32_t t = w_up(v, d);
        if ((int)lane >= d)
            v += t;
    }
    return v;
}

/* Keeps the bits from *rd on at the buffer's start and clears the rest
 * (the words up to *wr: beyond, they are clear already). */
HT_D void w_rebase(uint32_t *b, uint32_t *rd, uint32_t *wr, unsigned lane) {
    uint32_t base = *rd >> 5, last = (*wr >> 5) + 1;
    uint32_t w0 = b[base], w1 = b[base + 1];
    w_sync();
    for (unsigned k = lane; k <= last; k += 32)
        b[k] = 0;
    w_sync();
    if (lane == 0) {
        b[0] = w0;
        b[1] = w1;
    }
    w_sync();
    *rd -= base << 5;
    *wr -= base << 5;
}

typedef struct {
    uint32_t rd, wr; /* unstuffed bits consumed / written */
    uint32_t pos;    /* bytes out */
    uint32_t room;   /* MagSgn: bits of the next byte (8, or 7 after 0xFF) */
    uint32_t prev;   /* VLC: the last byte out */
    uint32_t cap;
    int overflow;
} htw_stream;

/* MagSgn: unstuffed bits to bytes, forwards from out. */
HT_D void w_ms_bytes(htw_stream &s, const uint32_t *b, uint8_t *out,
                     unsigned lane) {
    for (;;) {
        uint32_t start = lane ? s.rd + s.room + 8 * (lane - 1) : s.rd;
        unsigned nb = lane ? 8 : s.room;
        int valid = start + nb <= s.wr;
        uint32_t v = valid ? w_get(b, start, nb) : 0;
        uint32_t vm = w_ballot(valid), fm = w_ballot(valid && v == 0xFF);
        if (!vm)
            return;
        int nv = w_popc(vm), f = fm ? w_ffs(fm) - 1 : 32;
        int n = f < nv ? f + 1 : nv;
        if ((int)lane < n) {
            if (s.pos + lane < s.cap)
                out[s.pos + lane] = (uint8_t)v;
        }
        if (s.pos + n > s.cap)
            s.overflow = 1;
        s.rd += s.room + 8 * (n - 1);
        s.pos += n;
        s.room = f < nv ? 7 : 8;
        if (f >= nv && nv < 32)
            return;
    }
}

/* VLC: unstuffed bits to bytes, backwards from end. */
HT_D void w_vlc_bytes(htw_stream &s, const uint32_t *b, uint8_t *end,
                      unsigned lane) {
    for (;;) {
        uint32_t start = s.rd + 8 * lane;
        int valid = start + 8 <= s.wr;
        uint32_t v = valid ? w_get(b, start, 8) : 0;
        uint32_t prev = w_up(v, 1);
        if (lane == 0)
            prev = s.prev;
        int stuff = valid && prev > 0x8F && (v & 0x7F) == 0x7F;
        uint32_t vm = w_ballot(valid), sm = w_ballot(stuff);
        if (!vm)
            return;
        int nv = w_popc(vm), f = sm ? w_ffs(sm) - 1 : 32;
        int n = f < nv ? f + 1 : nv;
        if ((int)lane == f)
            v &= 0x7F; /* seven ones and the stuffed 0 */
        if ((int)lane < n && s.pos + lane < s.cap)
            end[-1 - (int)(s.pos + lane)] = (uint8_t)v;
        if (s.pos + n > s.cap)
            s.overflow = 1;
        s.prev = w_shfl(v, n - 1);
        s.rd += f < nv ? 8 * f + 7 : 8 * nv;
        s.pos += n;
        if (f >= nv && nv < 32)
            return;
    }
}

/* The four samples of quad q of line-pair qy, as sign-magnitude words. */
template <bool IRREV>
HT_D void w_quad(const ht_params &p, const ht_blk &b, const ht_qp &q,
                 unsigned qx, unsigned qy, uint32_t s[4], int &bad) {
    unsigned x = 2 * qx, y = 2 * qy;
    size_t r0 = b.base + (size_t)y * b.stride + x;
    int has1 = y + 1 < b.h, hasr = x + 1 < b.w;
    s[0] = sample<IRREV>(p.coeffs, r0, q, bad);
    s[1] = has1 ? sample<IRREV>(p.coeffs, r0 + b.stride, q, bad) : 0;
    s[2] = hasr ? sample<IRREV>(p.coeffs, r0 + 1, q, bad) : 0;
    s[3] = has1 && hasr ? sample<IRREV>(p.coeffs, r0 + b.stride + 1, q, bad) : 0;
}

/* Appends the low n bits of v to a 64-bit chunk. */
HT_D void w_cat(uint64_t &c, unsigned &len, uint32_t v, unsigned n) {
    if (n) {
        c |= (uint64_t)(v & ((1u << n) - 1)) << len;
        len += n;
    }
}

HT_D void w_cat_uvlc(uint64_t &c, unsigned &len, unsigned u0, unsigned u1) {
    sci_ht_uvlc c0 = sci_ht_uvlc_code(u0), c1 = sci_ht_uvlc_code(u1);
    w_cat(c, len, c0.pre, c0.pre_len);
    w_cat(c, len, c1.pre, c1.pre_len);
    w_cat(c, len, c0.suf, c0.suf_len);
    w_cat(c, len, c1.suf, c1.suf_len);
    w_cat(c, len, c0.ext, c0.ext_len);
    w_cat(c, len, c1.ext, c1.ext_len);
}

/* Codes block i; returns its length (0: all zero, -1: cannot be coded). */
template <bool IRREV>
HT_D int w_code_block(const ht_params &p, unsigned i, unsigned lane,
                      htw_smem *sm) {
    const ht_blk b = p.blk[i];
    const ht_qp q = p.qp[i];
    int bad = 0, any = 0;
    /* an all-zero block is left out; the range check of 5/3 samples
     * happens as they are coded */
    for (uint32_t y = 0; y < b.h; y++) {
        for (uint32_t x = lane; x < b.w; x += 32)
            any |= sample<IRREV>(p.coeffs, b.base + (size_t)y * b.stride + x,
                                 q, bad) != 0;
        if (w_ballot(any))
            break;
    }
    if (w_ballot(bad))
        return -1;
    if (!w_ballot(any))
        return 0;
    if (b.w > HTW_MAX_W)
        return -1;

    uint8_t *slot = p.arena + b.slot;
    uint8_t *tail = slot + b.ms_cap, *end = tail + b.tail;
    for (unsigned k = lane; k <= HTW_MS_WORDS; k += 32)
        sm->ms[k] = 0;
    for (unsigned k = lane; k <= HTW_VLC_WORDS; k += 32)
        sm->vlc[k] = 0;
    for (unsigned k = lane; k < b.w + 4; k += 32)
        sm->ea[0][k] = sm->ea[1][k] = 0;
    if (lane == 0) {
        sm->vlc[0] = 0xF; /* the low nibble that Scup will take */
        end[-1] = 0xFF;
    }
    w_sync();
    htw_stream ms = {0, 0, 0, 8, 0, b.ms_cap, 0};
    htw_stream vl = {0, 4, 1, 0, 0xFF, b.tail, 0};
    mel_w mel = {tail, 0, b.tail, 0, 8, 0, 0, 1, 0};

    const unsigned qw = (b.w + 1) / 2, qh = (b.h + 1) / 2;
    for (unsigned qy = 0; qy < qh; qy++) {
        const uint16_t *lut = p.lut + (qy ? 2048 : 0);
        const uint8_t *ea = sm->ea[qy & 1];   /* the line-pair above */
        uint8_t *eb = sm->ea[(qy & 1) ^ 1];   /* this one, for the next */
        uint32_t carry_rho = 0;
        for (unsigned c0 = 0; c0 < qw; c0 += 32) {
            unsigned qx = c0 + lane;
            int active = qx < qw;
            uint32_t s[4] = {0, 0, 0, 0};
            if (active)
                w_quad<IRREV>(p, b, q, qx, qy, s, bad);
            unsigned rho = 0, emax = 0, e[4];
            for (unsigned n = 0; n < 4; n++) {
                e[n] = exponent(s[n]);
                rho |= (unsigned)(e[n] != 0) << n;
                emax = e[n] > emax ? e[n] : emax;
            }
            unsigned left = w_up(rho, 1);
            if (lane == 0)
                left = carry_rho;
            unsigned x0 = 2 * qx, cq, kappa = 1;
            if (qy == 0) {
                cq = ((left & 1) | ((left >> 1) & 1)) | ((left >> 2) & 1) << 1 |
                     ((left >> 3) & 1) << 2;
            } else {
                unsigned a0 = active ? ea[x0] : 0, a1 = active ? ea[x0 + 1] : 0;
                unsigned a2 = active ? ea[x0 + 2] : 0, a3 = active ? ea[x0 + 3] : 0;
                cq = (unsigned)(a0 || a1) | (((left >> 2) | (left >> 3)) & 1) << 1 |
                     (unsigned)(a2 || a3) << 2;
                if (rho & (rho - 1)) {
                    unsigned m = a0 > a1 ? a0 : a1;
                    m = a2 > m ? a2 : m;
                    m = a3 > m ? a3 : m;
                    kappa = m > 2 ? m - 1 : 1;
                }
            }
            unsigned uqb = emax > kappa ? emax : kappa, u = uqb - kappa;
            unsigned emb = 0;
            if (u > 0)
                for (unsigned n = 0; n < 4; n++)
                    emb |= (unsigned)(e[n] == emax && (rho >> n & 1)) << n;
            int coded = active && (cq != 0 || rho != 0);
            unsigned entry = coded ? HT_LDG(lut + ((cq << 8) | (rho << 4) | emb)) : 0;

            /* MagSgn bits of the quad, in sample order */
            unsigned mb[4], mtot = 0;
            for (unsigned n = 0; n < 4; n++) {
                mb[n] = coded && (rho >> n & 1) ? uqb - ((entry >> n) & 1) : 0;
                mtot += mb[n];
            }

            /* the pair's VLC bits and MEL events, on its even lane */
            unsigned rho1 = w_down(rho, 1), cq1 = w_down(cq, 1);
            unsigned u1 = w_down(u, 1), entry1 = w_down(entry, 1);
            int has1 = qx + 1 < qw;
            uint64_t chunk = 0;
            unsigned clen = 0, evn = 0, evb = 0;
            if (!(lane & 1) && active) {
                if (!has1)
                    rho1 = cq1 = u1 = entry1 = 0;
                if (coded)
                    w_cat(chunk, clen, entry >> 8, (entry >> 4) & 15);
                if (has1 && (cq1 != 0 || rho1 != 0))
                    w_cat(chunk, clen, entry1 >> 8, (entry1 >> 4) & 15);
                if (cq == 0)
                    evb |= (unsigned)(rho != 0) << evn++;
                if (has1 && cq1 == 0)
                    evb |= (unsigned)(rho1 != 0) << evn++;
                if (qy == 0 && u > 0 && u1 > 0) {
                    int both = u > 2 && u1 > 2;
                    evb |= (unsigned)both << evn++;
                    if (both) {
                        w_cat_uvlc(chunk, clen, u - 2, u1 - 2);
                    } else if (u > 2) {
                        sci_ht_uvlc c = sci_ht_uvlc_code(u);
                        w_cat(chunk, clen, c.pre, c.pre_len);
                        w_cat(chunk, clen, u1 - 1, 1);
                        w_cat(chunk, clen, c.suf, c.suf_len);
                        w_cat(chunk, clen, c.ext, c.ext_len);
                    } else {
                        w_cat_uvlc(chunk, clen, u, u1);
                    }
                } else {
                    w_cat_uvlc(chunk, clen, u, u1);
                }
            }

            /* bits into the unstuffed buffers, events into the chunk's
             * event mask: one scan of the three counts packed (MagSgn at
             * most 3968 bits, VLC 608, events 48 a chunk) */
            uint32_t packed = mtot | clen << 12 | evn << 22;
            uint32_t incl = w_scan(packed, lane), all = w_shfl(incl, 31);
            uint32_t excl = incl - packed;
            uint32_t mo = excl & 0xFFF, vo = (excl >> 12) & 0x3FF, eo = excl >> 22;
            uint32_t mall = all & 0xFFF, vall = (all >> 12) & 0x3FF;
            uint32_t eall = all >> 22;
            if (lane < 2)
                sm->ev[lane] = 0;
            w_sync();
            if (evn)
                w_put(sm->ev, eo, evb, evn);
            uint32_t at = ms.wr + mo;
            for (unsigned n = 0; n < 4; n++) {
                uint32_t v = 2 * ((s[n] & ~HT_SIGN) - 1) + (s[n] >> 31);
                w_put(sm->ms, at, v, mb[n]);
                at += mb[n];
            }
            at = vl.wr + vo;
            w_put(sm->vlc, at, (uint32_t)chunk, clen < 32 ? clen : 32);
            if (clen > 32)
                w_put(sm->vlc, at + 32, (uint32_t)(chunk >> 32), clen - 32);
            ms.wr += mall;
            vl.wr += vall;
            if (active) {
                eb[x0 + 1] = (uint8_t)e[1];
                if (x0 + 1 < b.w)
                    eb[x0 + 2] = (uint8_t)e[3];
            }
            w_sync();

            if (lane == 0) {
                /* runs of 0 events at once, then each 1 */
                uint64_t ev = (uint64_t)sm->ev[1] << 32 | sm->ev[0];
                for (uint32_t k = 0; k < eall;) {
                    uint64_t rest = ev >> k;
                    uint32_t z = rest ? (uint32_t)w_ctz64(rest) : eall - k;
                    if (z > eall - k)
                        z = eall - k;
                    mel_zeros(mel, z);
                    k += z;
                    if (k < eall) {
                        mel_event(mel, 1);
                        k++;
                    }
                }
            }
            w_ms_bytes(ms, sm->ms, slot, lane);
            w_vlc_bytes(vl, sm->vlc, end, lane);
            w_rebase(sm->ms, &ms.rd, &ms.wr, lane);
            w_rebase(sm->vlc, &vl.rd, &vl.wr, lane);
            carry_rho = w_shfl(rho, 31);
        }
        /* this line-pair's exponents are read by the next; the row after
         * it starts clean */
        for (unsigned k = lane; k < b.w + 4; k += 32)
            sm->ea[qy & 1][k] = 0;
        w_sync();
    }
    if (w_ballot(bad))
        return -1;

    int len = 0;
    if (lane == 0) {
        /* the bits still pending become the writers' partial bytes */
        vlc_w v;
        v.end = end;
        v.cap = b.tail;
        v.pos = vl.pos;
        v.overflow = vl.overflow;
        uint32_t r = vl.wr - vl.rd, t = w_get(sm->vlc, vl.rd, r);
        if (vl.prev > 0x8F && r == 7 && t == 0x7F) {
            vlc_put_byte(v, t);
            r = 0;
            t = 0;
        }
        v.tmp = t;
        v.used = r;
        v.after_8f = 0;
        ms_w m;
        m.buf = slot;
        m.cap = b.ms_cap;
        m.pos = ms.pos;
        m.overflow = ms.overflow;
        m.used = ms.wr - ms.rd;
        m.tmp = w_get(sm->ms, ms.rd, m.used);
        m.room = ms.room;
        mel_vlc_finish(mel, v);
        ms_finish(m);
        uint32_t scup = mel.pos + v.pos;
        if (m.overflow || mel.overflow || v.overflow || scup > HT_MAX_SCUP ||
            scup > b.tail) {
            len = -1;
        } else {
            len = (int)(m.pos + scup);
            /* where MEL and VLC are now, for the move below */
            sm->ev[0] = m.pos;
            sm->ev[1] = mel.pos;
            sm->ev[2] = v.pos;
        }
    }
    len = (int)w_shfl((uint32_t)len, 0);
    if (len <= 0)
        return len;
    w_sync();
    /* MEL and VLC down behind MagSgn: read a round, then write it, as the
     * ranges may overlap */
    uint32_t msn = sm->ev[0], meln = sm->ev[1], vlcn = sm->ev[2];
    const uint8_t *src[2] = {tail, end - vlcn};
    uint32_t dst = msn;
    for (int part = 0; part < 2; part++) {
        uint32_t n = part ? vlcn : meln;
        for (uint32_t k = 0; k < n; k += 32) {
            uint8_t c = k + lane < n ? src[part][k + lane] : 0;
            w_sync();
            if (k + lane < n)
                slot[dst + k + lane] = c;
            w_sync();
        }
        dst += n;
    }
    w_sync();
    if (lane == 0) {
        uint32_t scup = meln + vlcn;
        slot[len - 1] = (uint8_t)(scup >> 4);
        slot[len - 2] = (uint8_t)((slot[len - 2] & 0xF0) | (scup & 0xF));
    }
    return len;
}
