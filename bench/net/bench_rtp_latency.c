/*
 * Glass-to-glass latency of JPEG 2000 over RTP on UDP loopback (issue 23):
 * raw frames handed to a live appsrc in real time are coded, payloaded,
 * sent through the loopback interface, depayloaded and decoded, all in one
 * process, in two pipelines (sender, receiver) joined only by the socket:
 *
 *   appsrc ! ( ENC ) ! ( PAY ) ! udpsink host=127.0.0.1 port=P
 *   udpsrc port=P caps=RTP-CAPS ! ( DEPAY ) ! ( DEC ) ! appsink
 *
 * Each stage is a bin parsed from its own string, so any element (or
 * chain) can stand in for it.  A frame's latency runs from the moment it
 * is pushed into appsrc ("capture") to the moment appsink has it decoded;
 * pad probes on the bins' pads time it on its way: coded frame out of ENC,
 * last RTP packet out of PAY (handed to udpsink), last packet into DEPAY,
 * codestream out of DEPAY.  Frames are told apart by their timestamps:
 * the PTS on the sender side; on the receiver by the RTP timestamp, which
 * the probe on PAY's output maps back to the frame (the packets' PTS are
 * rewritten to the sender's so that DEPAY and DEC hand it on: without a
 * jitterbuffer a depayloader stamps frames with their arrival time).
 *
 * One priming frame goes through first, alone, so that device set-up and
 * negotiation are out of the way; then --warmup frames (not counted) and
 * --frames counted frames, paced at the frame rate from absolute
 * deadlines.  The table gives frames lost (never decoded) and damaged
 * (decoded from fewer packets than were sent), the receiver's sustained
 * rate, latency percentiles and the median time of each stage.  Exit
 * status 1 when a counted frame is lost or damaged or p99 exceeds one
 * frame time (--no-fail: only on a pipeline error), 2 on bad options.
 *
 * On the GPU host, from the top of the tree (our elements are loaded from
 * GST_PLUGIN_PATH_1_0, the RTP ones from GStreamer's good and bad sets):
 *
 *   export GST_PLUGIN_PATH_1_0=$PWD/build-gpu/elements
 *   # 4K 4:4:4 12-bit at 60 frames/s, HTJ2K on CUDA, RFC 5371
 *   build-gpu/bench/net/bench-rtp-latency
 *   # the same, lossless, and at about 1 bit a pixel
 *   bench-rtp-latency --lossless
 *   bench-rtp-latency --bpp 1
 *   # RFC 9828 (sub-codestream latency) once its elements exist
 *   bench-rtp-latency --pay 'rtpj2ksclpay mtu=60000' \
 *       --depay 'rtpj2kscldepay' \
 *       --rtp-caps 'application/x-rtp,media=video,clock-rate=90000,encoding-name=JPEG2000-SCL'
 *
 * On a CPU-only machine, small frames (--backend cpu: the default encoder
 * and decoder on the CPU):
 *
 *   bench-rtp-latency --backend cpu --width 640 --height 360 --fps 30 \
 *       --frames 90 --warmup 10 --mtu 1400
 *
 * The loss count can be checked by dropping frames on the sender,
 * --enc 'htj2kenc backend=cpu ! identity drop-probability=0.05' (or
 * packets, --pay 'rtpj2kpay mtu=1400 ! identity drop-probability=0.01').
 * A depayloader that hands on a frame cut short when the next frame's
 * packets come stamps it with the next frame's timestamp: that frame then
 * counts as lost and the next one as early, and the run fails either way.
 * Per-frame times: --csv FILE.
 *
 * A coded frame leaves in a burst of packets: the receiver asks for a
 * --sock-buf socket buffer (64 MiB), which the kernel caps at
 * net.core.rmem_max unless the process may override it (root); the table
 * gives what was granted, and packets dropped there show as damaged or
 * lost frames (raise it with sysctl -w net.core.rmem_max=67108864).
 *
 * A decoder that keeps frames in flight (j2kdec frames-in-flight=2 on
 * CUDA) holds each frame until the next one comes: a frame time more, and
 * the last frame never leaves (UDP carries no EOS), hence the default
 * frames-in-flight=1.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <time.h>

#include <gio/gio.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include "bench/j2k/htj2k_picture.h"

/* columns the picture pans by from one distinct frame to the next */
#define PAN 16

/* times of a frame on its way, ns of CLOCK_MONOTONIC; 0: not seen */
enum { T_CAP, T_ENC_IN, T_ENC, T_PAY0, T_PAY1, T_RX0, T_RX1, T_DEPAY, T_OUT, NT };

/* where a probe sits */
enum { AT_ENC_IN, AT_ENC, AT_PAY, AT_RX, AT_DEPAY, N_AT };

typedef struct Bench Bench;

typedef struct {
    Bench *b;
    int at;
} Probe;

struct Bench {
    /* options */
    const char *enc, *pay, *depay, *dec, *rtp_caps, *format, *csv;
    int width, height, fps_n, fps_d, frames, warmup, mtu, port, distinct;
    int sock_buf, drain_ms, prime_s, no_fail, own_memory, pooled;

    guint n;          /* frames in all: 1 priming + warm-up + counted */
    GstClockTime period;
    GstBuffer **pics; /* the distinct frames */

    GstElement *sender, *receiver, *appsrc;
    GstBus *sbus, *rbus;
    gint64 rt_offset; /* sender running time - CLOCK_MONOTONIC, ns */

    GMutex lock; /* everything below */
    gint64 (*t)[NT];
    GstClockTime *pts; /* of pushed frames, increasing */
    guint *pkts_sent, *pkts_recv;
    guint64 *coded_bytes;
    GHashTable *by_rtpts; /* RTP timestamp -> frame + 1 */
    guint pushed, decoded, unknown_pkts;
    gint64 last_push, last_out, max_latency;

    Probe probes[N_AT];
    int errors, warnings, sender_eos; /* the main thread's */
    gint stop;                        /* atomic: the pusher gives up */
};

static gint64 now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (gint64)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_until(gint64 ns) {
    struct timespec ts = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
        ;
}

/* ---- the frames -------------------------------------------------------------- */

/* Distinct frames: windows of one wider picture, PAN columns apart (a slow
 * pan), so that every frame codes to a different size and content. */
static int make_frames(Bench *b) {
    GstVideoInfo vi;
    GstVideoFormat f = gst_video_format_from_string(b->format);
    if (f == GST_VIDEO_FORMAT_UNKNOWN ||
        !gst_video_info_set_format(&vi, f, (guint)b->width, (guint)b->height))
        return -1;
    const GstVideoFormatInfo *fi = vi.finfo;
    if (GST_VIDEO_INFO_N_COMPONENTS(&vi) != 3 || GST_VIDEO_FORMAT_INFO_HAS_ALPHA(fi) ||
        (GST_VIDEO_FORMAT_INFO_DEPTH(fi, 0) > 8 && !GST_VIDEO_FORMAT_INFO_IS_LE(fi)))
        return -1;
    uint32_t pw = (uint32_t)b->width + PAN * (uint32_t)(b->distinct - 1);
    uint16_t *pl[3];
    for (int c = 0; c < 3; c++)
        pl[c] = g_malloc((size_t)pw * (size_t)b->height * 2);
    htj2k_picture(pl, pw, (uint32_t)b->height);
    b->pics = g_new0(GstBuffer *, b->distinct);
    for (int k = 0; k < b->distinct; k++) {
        GstVideoFrame vf;
        b->pics[k] = gst_buffer_new_allocate(NULL, GST_VIDEO_INFO_SIZE(&vi), NULL);
        gst_video_frame_map(&vf, &vi, b->pics[k], GST_MAP_WRITE);
        for (int c = 0; c < 3; c++) {
            guint8 *base = GST_VIDEO_FRAME_COMP_DATA(&vf, c);
            int stride = GST_VIDEO_FRAME_COMP_STRIDE(&vf, c);
            int ps = GST_VIDEO_FRAME_COMP_PSTRIDE(&vf, c);
            int cw = GST_VIDEO_FRAME_COMP_WIDTH(&vf, c);
            int ch = GST_VIDEO_FRAME_COMP_HEIGHT(&vf, c);
            int depth = GST_VIDEO_FRAME_COMP_DEPTH(&vf, c);
            int shift = GST_VIDEO_FORMAT_INFO_SHIFT(fi, c);
            int sx = b->width / cw, sy = b->height / ch;
            for (int y = 0; y < ch; y++)
                for (int x = 0; x < cw; x++) {
                    unsigned v = pl[c][(size_t)y * sy * pw + (size_t)x * sx + (size_t)k * PAN];
                    v = depth >= 12 ? v << (depth - 12) : v >> (12 - depth);
                    guint8 *d = base + (size_t)y * stride + (size_t)x * ps;
                    if (depth > 8) {
                        v <<= shift;
                        d[0] = (guint8)v;
                        d[1] = (guint8)(v >> 8);
                    } else {
                        d[0] = (guint8)v;
                    }
                }
        }
        gst_video_frame_unmap(&vf);
    }
    for (int c = 0; c < 3; c++)
        g_free(pl[c]);
    return 0;
}

/* The RTP sampling of RFC 5371 for the raw format: rtpj2kdepay needs it in
 * the receiver's caps, which UDP cannot negotiate. */
static const char *sampling_of(const char *format) {
    const GstVideoFormatInfo *fi =
        gst_video_format_get_info(gst_video_format_from_string(format));
    if (!fi)
        return "YCbCr-4:4:4";
    if (GST_VIDEO_FORMAT_INFO_IS_RGB(fi))
        return "RGB";
    int wsub = GST_VIDEO_FORMAT_INFO_W_SUB(fi, 1), hsub = GST_VIDEO_FORMAT_INFO_H_SUB(fi, 1);
    if (wsub == 1 && hsub == 1)
        return "YCbCr-4:2:0";
    if (wsub == 1)
        return "YCbCr-4:2:2";
    if (wsub == 2)
        return "YCbCr-4:1:1";
    return "YCbCr-4:4:4";
}

/* ---- frames by timestamp -------------------------------------------------- */

/* The frame of a sender PTS (the nearest, within half a frame time, in
 * case an element rounds it), or -1.  Lock held. */
static int frame_of_pts(Bench *b, GstClockTime pts) {
    if (!GST_CLOCK_TIME_IS_VALID(pts) || !b->pushed)
        return -1;
    guint lo = 0, hi = b->pushed; /* first frame with pts >= the PTS */
    while (lo < hi) {
        guint mid = (lo + hi) / 2;
        if (b->pts[mid] < pts)
            lo = mid + 1;
        else
            hi = mid;
    }
    int best = -1;
    GstClockTime bd = b->period / 2 + 1;
    for (guint i = lo > 0 ? lo - 1 : 0; i <= lo && i < b->pushed; i++) {
        GstClockTime d = b->pts[i] > pts ? b->pts[i] - pts : pts - b->pts[i];
        if (d < bd) {
            bd = d;
            best = (int)i;
        }
    }
    return best;
}

/* The RTP timestamp of a packet, read from its fixed header (RFC 3550 5.1)
 * rather than with GstRTPBuffer: that keeps the bench on the libraries
 * the other pipeline benches link. */
static int rtp_timestamp(GstBuffer *buf, guint32 *ts) {
    guint8 h[8];
    if (gst_buffer_extract(buf, 0, h, 8) != 8 || (h[0] >> 6) != 2)
        return -1;
    *ts = (guint32)h[4] << 24 | (guint32)h[5] << 16 | (guint32)h[6] << 8 | h[7];
    return 0;
}

static void stamp_first(gint64 *slot, gint64 t) {
    if (!*slot)
        *slot = t;
}

/* One buffer past a probe (lock held).  *buf may be replaced (AT_RX). */
static void on_buffer(Bench *b, int at, GstBuffer **buf, gint64 t) {
    int i = -1;
    guint32 ts;
    switch (at) {
    case AT_ENC_IN:
        if ((i = frame_of_pts(b, GST_BUFFER_PTS(*buf))) >= 0)
            stamp_first(&b->t[i][T_ENC_IN], t);
        break;
    case AT_ENC:
        if ((i = frame_of_pts(b, GST_BUFFER_PTS(*buf))) >= 0) {
            stamp_first(&b->t[i][T_ENC], t);
            b->coded_bytes[i] += gst_buffer_get_size(*buf);
        }
        break;
    case AT_PAY:
        if (rtp_timestamp(*buf, &ts))
            break;
        i = frame_of_pts(b, GST_BUFFER_PTS(*buf));
        if (i >= 0)
            g_hash_table_insert(b->by_rtpts, GUINT_TO_POINTER(ts), GINT_TO_POINTER(i + 1));
        else
            i = GPOINTER_TO_INT(g_hash_table_lookup(b->by_rtpts, GUINT_TO_POINTER(ts))) - 1;
        if (i >= 0) {
            stamp_first(&b->t[i][T_PAY0], t);
            b->t[i][T_PAY1] = t;
            b->pkts_sent[i]++;
        }
        break;
    case AT_RX:
        if (rtp_timestamp(*buf, &ts))
            break;
        i = GPOINTER_TO_INT(g_hash_table_lookup(b->by_rtpts, GUINT_TO_POINTER(ts))) - 1;
        if (i < 0) {
            b->unknown_pkts++;
            break;
        }
        stamp_first(&b->t[i][T_RX0], t);
        b->t[i][T_RX1] = t;
        b->pkts_recv[i]++;
        *buf = gst_buffer_make_writable(*buf);
        GST_BUFFER_PTS(*buf) = b->pts[i];
        GST_BUFFER_DTS(*buf) = GST_CLOCK_TIME_NONE;
        break;
    case AT_DEPAY:
        if ((i = frame_of_pts(b, GST_BUFFER_PTS(*buf))) >= 0)
            stamp_first(&b->t[i][T_DEPAY], t);
        break;
    }
}

typedef struct {
    Bench *b;
    int at;
    gint64 t;
} ListCtx;

static gboolean on_list_item(GstBuffer **buf, guint idx, gpointer data) {
    ListCtx *c = data;
    on_buffer(c->b, c->at, buf, c->t);
    return TRUE;
}

static GstPadProbeReturn probe_cb(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
    Probe *p = data;
    Bench *b = p->b;
    gint64 t = now_ns();
    g_mutex_lock(&b->lock);
    if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
        GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER(info);
        on_buffer(b, p->at, &buf, t);
        GST_PAD_PROBE_INFO_DATA(info) = buf;
    } else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
        GstBufferList *l = GST_PAD_PROBE_INFO_BUFFER_LIST(info);
        ListCtx c = {b, p->at, t};
        if (p->at == AT_RX)
            l = gst_buffer_list_make_writable(l);
        gst_buffer_list_foreach(l, on_list_item, &c);
        GST_PAD_PROBE_INFO_DATA(info) = l;
    }
    g_mutex_unlock(&b->lock);
    return GST_PAD_PROBE_OK;
}

static GstFlowReturn on_sample(GstAppSink *sink, gpointer data) {
    Bench *b = data;
    gint64 t = now_ns();
    GstSample *s = gst_app_sink_pull_sample(sink);
    if (!s)
        return GST_FLOW_EOS;
    GstBuffer *buf = gst_sample_get_buffer(s);
    g_mutex_lock(&b->lock);
    int i = buf ? frame_of_pts(b, GST_BUFFER_PTS(buf)) : -1;
    if (i >= 0 && !b->t[i][T_OUT]) {
        b->t[i][T_OUT] = t;
        b->decoded++;
        b->last_out = t;
        /* T_CAP is the pusher's, written before the push that led here */
        b->max_latency = MAX(b->max_latency, t - b->t[i][T_CAP]);
    }
    g_mutex_unlock(&b->lock);
    gst_sample_unref(s);
    return GST_FLOW_OK;
}

/* The first pad of a bin in one direction (a ghost pad parse made). */
static GstPad *bin_pad(GstElement *bin, GstPadDirection dir) {
    GstIterator *it = dir == GST_PAD_SRC ? gst_element_iterate_src_pads(bin)
                                         : gst_element_iterate_sink_pads(bin);
    GValue v = G_VALUE_INIT;
    GstPad *pad = NULL;
    if (gst_iterator_next(it, &v) == GST_ITERATOR_OK) {
        pad = gst_object_ref(g_value_get_object(&v));
        g_value_reset(&v);
    }
    gst_iterator_free(it);
    return pad;
}

static int add_probe(Bench *b, GstElement *pipe, const char *bin, GstPadDirection dir,
                     int at) {
    GstElement *e = gst_bin_get_by_name(GST_BIN(pipe), bin);
    GstPad *pad = e ? bin_pad(e, dir) : NULL;
    if (e)
        gst_object_unref(e);
    if (!pad) {
        fprintf(stderr, "no %s pad on bin %s (is its string a chain?)\n",
                dir == GST_PAD_SRC ? "src" : "sink", bin);
        return -1;
    }
    b->probes[at].b = b;
    b->probes[at].at = at;
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST,
                      probe_cb, &b->probes[at], NULL);
    gst_object_unref(pad);
    return 0;
}

/* ---- running ------------------------------------------------------------------ */

static void drain_bus(Bench *b, GstBus *bus, const char *who) {
    GstMessage *m;
    while ((m = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR | GST_MESSAGE_WARNING |
                                              GST_MESSAGE_EOS))) {
        if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_EOS) {
            b->sender_eos |= bus == b->sbus;
        } else {
            GError *err = NULL;
            gchar *dbg = NULL;
            int is_err = GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR;
            if (is_err)
                gst_message_parse_error(m, &err, &dbg);
            else
                gst_message_parse_warning(m, &err, &dbg);
            fprintf(stderr, "%s %s from %s: %s (%s)\n", who, is_err ? "ERROR" : "warning",
                    GST_OBJECT_NAME(GST_MESSAGE_SRC(m)), err->message, dbg ? dbg : "");
            b->errors += is_err;
            b->warnings += !is_err;
            g_clear_error(&err);
            g_free(dbg);
        }
        gst_message_unref(m);
    }
}

static void poll_buses(Bench *b) {
    drain_bus(b, b->sbus, "sender");
    drain_bus(b, b->rbus, "receiver");
}

/* The distinct frames moved into buffers of the pool ENC proposes (an
 * allocation query, as an upstream element makes): with the CUDA backend
 * page-locked memory, which uploads at the bus's speed where pageable
 * memory goes through the driver's bounce buffers.  The copies are made
 * once, before the stream: a capture driver writes into such buffers.
 * Returns whether the pool was used. */
static int frames_into_pool(Bench *b) {
    GstPad *src = gst_element_get_static_pad(b->appsrc, "src");
    GstCaps *caps = gst_pad_get_current_caps(src);
    GstQuery *q = caps ? gst_query_new_allocation(caps, TRUE) : NULL;
    GstBufferPool *pool = NULL;
    int used = 0;
    if (q && gst_pad_peer_query(src, q) && gst_query_get_n_allocation_pools(q) > 0)
        gst_query_parse_nth_allocation_pool(q, 0, &pool, NULL, NULL, NULL);
    if (pool && gst_buffer_pool_set_active(pool, TRUE)) {
        GstVideoInfo vi;
        gst_video_info_from_caps(&vi, caps);
        used = 1;
        for (int k = 0; k < b->distinct && used; k++) {
            GstBuffer *nb = NULL;
            GstVideoFrame from, to;
            if (gst_buffer_pool_acquire_buffer(pool, &nb, NULL) != GST_FLOW_OK) {
                used = 0;
                break;
            }
            gst_video_frame_map(&from, &vi, b->pics[k], GST_MAP_READ);
            gst_video_frame_map(&to, &vi, nb, GST_MAP_WRITE);
            gst_video_frame_copy(&to, &from);
            gst_video_frame_unmap(&to);
            gst_video_frame_unmap(&from);
            gst_buffer_unref(b->pics[k]);
            b->pics[k] = nb; /* back to the pool when the bench frees it */
        }
    }
    if (pool)
        gst_object_unref(pool);
    if (q)
        gst_query_unref(q);
    if (caps)
        gst_caps_unref(caps);
    gst_object_unref(src);
    return used;
}

/* Frame i of the stream: PTS the sender's running time at `when`. */
static void push_frame(Bench *b, guint i, gint64 when) {
    GstBuffer *buf = gst_buffer_copy(b->pics[i % (guint)b->distinct]); /* shares memory */
    GST_BUFFER_PTS(buf) = (GstClockTime)(when + b->rt_offset);
    GST_BUFFER_DURATION(buf) = b->period;
    g_mutex_lock(&b->lock);
    b->pts[i] = GST_BUFFER_PTS(buf);
    b->pushed = i + 1;
    g_mutex_unlock(&b->lock);
    gint64 t = now_ns();
    b->t[i][T_CAP] = t; /* written here only, read downstream of the push */
    gst_app_src_push_buffer(GST_APP_SRC(b->appsrc), buf);
    g_mutex_lock(&b->lock);
    b->last_push = t;
    g_mutex_unlock(&b->lock);
}

/* Frames 1.. at absolute deadlines a frame time apart: a late wake-up
 * delays one frame, not the ones after it. */
static gpointer pusher(gpointer data) {
    Bench *b = data;
    gint64 start = now_ns() + 2000000;
    for (guint i = 1; i < b->n && !g_atomic_int_get(&b->stop); i++) {
        gint64 dl = start + (gint64)gst_util_uint64_scale(i - 1, GST_SECOND * (guint64)b->fps_d,
                                                          (guint64)b->fps_n);
        sleep_until(dl);
        push_frame(b, i, dl);
    }
    return NULL;
}

/* ---- the report ----------------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b) {
    gint64 x = *(const gint64 *)a, y = *(const gint64 *)b;
    return x < y ? -1 : x > y;
}

/* nearest-rank percentile of n sorted values, in ms */
static double pct_ms(const gint64 *v, int n, double q) {
    int k = (int)ceil(q * n) - 1;
    return n ? v[k < 0 ? 0 : k >= n ? n - 1 : k] / 1e6 : NAN;
}

static double median_ms(gint64 *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_i64);
    if (!n)
        return NAN;
    return (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) / 1e6;
}

static void print_machine(void) {
    struct utsname u;
    char gpu[256] = "none found (nvidia-smi)";
    FILE *p = popen("nvidia-smi --query-gpu=name,driver_version --format=csv,noheader "
                    "2>/dev/null", "r");
    if (p) {
        if (fgets(gpu, sizeof gpu, p))
            gpu[strcspn(gpu, "\n")] = 0;
        else
            snprintf(gpu, sizeof gpu, "none found (nvidia-smi)");
        pclose(p);
    }
    uname(&u);
    GDateTime *now = g_date_time_new_now_local();
    gchar *date = g_date_time_format(now, "%Y-%m-%d %H:%M:%S %z");
    gchar *gst = gst_version_string();
    printf("host %s (%s %s %s), %s, GPU: %s, %s, %u CPUs\n", u.nodename, u.sysname,
           u.release, u.machine, date, gpu, gst, g_get_num_processors());
    g_free(gst);
    g_free(date);
    g_date_time_unref(now);
}

/* Every frame (priming and warm-up included) for plots and for looking
 * into outliers: the medians of the table hide which frames were slow. */
static void write_csv(Bench *b) {
    FILE *f = fopen(b->csv, "w");
    if (!f) {
        fprintf(stderr, "cannot write %s\n", b->csv);
        return;
    }
    static const char *col[NT] = {"capture", "enc_in", "enc", "pay_first", "pay_last",
                                  "rx_first", "rx_last", "depay", "decoded"};
    fprintf(f, "frame,counted,capture_s,coded_bytes,packets_sent,packets_received");
    for (int k = T_ENC_IN; k < NT; k++)
        fprintf(f, ",%s_ms", col[k]);
    fprintf(f, "\n");
    for (guint i = 0; i < b->n; i++) {
        gint64 *t = b->t[i];
        fprintf(f, "%u,%d,%.6f,%" G_GUINT64_FORMAT ",%u,%u", i, i > (guint)b->warmup,
                t[T_CAP] ? (t[T_CAP] - b->t[0][T_CAP]) / 1e9 : -1.0, b->coded_bytes[i],
                b->pkts_sent[i], b->pkts_recv[i]);
        for (int k = T_ENC_IN; k < NT; k++)
            fprintf(f, ",%.3f", t[k] && t[T_CAP] ? (t[k] - t[T_CAP]) / 1e6 : -1.0);
        fprintf(f, "\n");
    }
    fclose(f);
}

/* The rows of the stage table: the span from one probe to another. */
static const struct {
    int from, to;
    const char *name;
} stages[] = {
    {T_CAP, T_ENC, "encode (push -> coded frame out of ENC)"},
    {T_CAP, T_ENC_IN, "  of which queued in appsrc (-> into ENC)"},
    {T_ENC_IN, T_ENC, "  of which ENC (-> coded frame out of ENC)"},
    {T_ENC, T_PAY1, "payload + send (-> last RTP packet out of PAY)"},
    {T_PAY1, T_DEPAY, "network + depayload (-> codestream out of DEPAY)"},
    {T_PAY1, T_RX1, "  of which network (-> last packet into DEPAY)"},
    {T_RX1, T_DEPAY, "  of which depayload (-> codestream out of DEPAY)"},
    {T_DEPAY, T_OUT, "decode (-> decoded frame at appsink)"},
};
#define NSTAGES (int)(sizeof stages / sizeof stages[0])

static int report(Bench *b, const char *sdesc, const char *rdesc, int rcvbuf) {
    guint first = 1 + (guint)b->warmup, nc = (guint)b->frames;
    gint64 *lat = g_new(gint64, nc), *st[NSTAGES];
    for (int s = 0; s < NSTAGES; s++)
        st[s] = g_new(gint64, nc);
    int nl = 0, ns = 0, lost = 0, damaged = 0, lost_at[3] = {0, 0, 0};
    guint64 psent = 0, precv = 0, bytes = 0;
    gint64 out0 = 0, out1 = 0, cap0 = 0, cap1 = 0;
    int ncap = 0;
    for (guint i = first; i < b->n; i++) {
        gint64 *t = b->t[i];
        psent += b->pkts_sent[i];
        precv += b->pkts_recv[i];
        bytes += b->coded_bytes[i];
        ncap += t[T_CAP] != 0;
        if (t[T_CAP] && (!cap0 || t[T_CAP] < cap0))
            cap0 = t[T_CAP];
        if (t[T_CAP] > cap1)
            cap1 = t[T_CAP];
        if (!t[T_OUT]) {
            lost++;
            lost_at[!t[T_RX1] ? 0 : !t[T_DEPAY] ? 1 : 2]++;
            continue;
        }
        if (b->pkts_recv[i] < b->pkts_sent[i])
            damaged++;
        lat[nl++] = t[T_OUT] - t[T_CAP];
        if (!out0 || t[T_OUT] < out0)
            out0 = t[T_OUT];
        if (t[T_OUT] > out1)
            out1 = t[T_OUT];
        if (t[T_ENC_IN] && t[T_ENC] && t[T_PAY1] && t[T_RX1] && t[T_DEPAY]) {
            for (int s = 0; s < NSTAGES; s++)
                st[s][ns] = t[stages[s].to] - t[stages[s].from];
            ns++;
        }
    }
    qsort(lat, (size_t)nl, sizeof *lat, cmp_i64);
    double frame_ms = 1e3 * b->fps_d / b->fps_n;
    double p50 = pct_ms(lat, nl, 0.5), p99 = pct_ms(lat, nl, 0.99);
    double fps_rx = nl > 1 ? (nl - 1) * 1e9 / (double)(out1 - out0) : NAN;
    double fps_tx = ncap > 1 ? (ncap - 1) * 1e9 / (double)(cap1 - cap0) : NAN;
    double bpp = nc ? bytes * 8.0 / nc / ((double)b->width * b->height) : 0;

    printf("\n## JPEG 2000 over RTP, UDP loopback: %dx%d %s at %d/%d frames/s, "
           "capture (appsrc push) -> decoded frame (appsink)\n\n",
           b->width, b->height, b->format, b->fps_n, b->fps_d);
    print_machine();
    printf("sender:   %s\nreceiver: %s\n", sdesc, rdesc);
    printf("receive socket buffer %d bytes (the kernel's figure, twice what it "
           "lets queue), asked %d\n", rcvbuf, b->sock_buf);
    printf("frames pushed from %s\n", b->pooled ?
           "the pool ENC proposed (page-locked with the CUDA backend)" :
           "the bench's own pageable memory");
    printf("%d counted frames after 1 priming and %d warm-up frames\n", b->frames,
           b->warmup);
    /* so that samples taken beside the run (scripts/stall-probe.py) line up
     * with the per-frame times of --csv, whose capture_s counts from here */
    printf("priming frame captured at %.6f s of CLOCK_MONOTONIC\n\n", b->t[0][T_CAP] / 1e9);

    printf("| frames sent | received | lost | damaged | packets sent / received | "
           "frames/s sent / received | coded bits/pixel | Mbit/s |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    printf("| %u | %d | %d | %d | %" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT
           " | %.2f / %.2f | %.3f | %.1f |\n",
           nc, nl, lost, damaged, psent, precv, fps_tx, fps_rx, bpp,
           bpp * b->width * b->height * b->fps_n / b->fps_d / 1e6);
    if (lost)
        printf("\nlost: %d with no packet received, %d with packets but no "
               "codestream out of DEPAY, %d never decoded\n",
               lost_at[0], lost_at[1], lost_at[2]);
    if (b->warnings)
        printf("\n%d warnings from the pipelines (above, on stderr)\n", b->warnings);
    if (b->unknown_pkts)
        printf("\n%u packets received whose RTP timestamp no sent frame had\n",
               b->unknown_pkts);

    printf("\n| latency, ms | p50 | p90 | p99 | max | frame time |\n");
    printf("|---|---|---|---|---|---|\n");
    printf("| capture -> decoded | %.3f | %.3f | %.3f | %.3f | %.3f |\n", p50,
           pct_ms(lat, nl, 0.9), p99, nl ? lat[nl - 1] / 1e6 : NAN, frame_ms);

    gint64 *tot = g_new(gint64, nc);
    memcpy(tot, lat, (size_t)nl * sizeof *tot);
    double mtot = median_ms(tot, nl);
    printf("\n| stage (median of %d frames) | ms | share of the median total |\n", ns);
    printf("|---|---|---|\n");
    for (int s = 0; s < NSTAGES; s++) {
        double m = median_ms(st[s], ns);
        printf("| %s | %.3f | %.1f %% |\n", stages[s].name, m, 100 * m / mtot);
    }
    printf("| total (medians of stages need not add up to it) | %.3f | 100 %% |\n", mtot);

    int fail = 0;
    printf("\n");
    if (b->errors) {
        printf("FAIL: %d pipeline errors\n", b->errors);
        fail = 1;
    }
    if (!nl) {
        printf("%s: no counted frame decoded\n", b->no_fail ? "not met (--no-fail)" : "FAIL");
        fail |= !b->no_fail;
    } else if (lost || damaged || p99 > frame_ms) {
        printf("%s: %d lost, %d damaged, p99 %.3f ms %s a frame time (%.3f ms)\n",
               b->no_fail ? "not met (--no-fail)" : "FAIL", lost, damaged, p99,
               p99 > frame_ms ? ">" : "<=", frame_ms);
        fail |= !b->no_fail;
    } else {
        printf("PASS: no frame lost or damaged, p99 within a frame time\n");
    }
    g_free(tot);
    g_free(lat);
    for (int s = 0; s < NSTAGES; s++)
        g_free(st[s]);
    return fail;
}

/* ---- main ---------------------------------------------------------------------- */

static void usage(const char *argv0) {
    printf(
        "usage: %s [options]\n"
        "  --backend B    cuda, cpu or auto: of the default encoder and decoder (cuda)\n"
        "  --enc S        encoder chain (htj2kenc backend=B)\n"
        "  --lossless     append reversible=true to the default encoder\n"
        "  --bpp B        append bitrate=B (bits a pixel, lossy) to the default encoder\n"
        "  --pay S        payloader chain (rtpj2kpay mtu=MTU)\n"
        "  --depay S      depayloader chain (rtpj2kdepay ! jpeg2000parse)\n"
        "  --dec S        decoder chain (j2kdec backend=B frames-in-flight=1: a\n"
        "                 decoder holding frames adds a frame time and keeps the last).\n"
        "                 udpsrc, DEPAY and DEC share a thread: while DEC works packets\n"
        "                 wait in the socket, counted as network; 'queue ! j2kdec ...'\n"
        "                 gives DEC a thread of its own\n"
        "  --rtp-caps S   the receiver's caps (RFC 5371, sampling of --format)\n"
        "  --format F     raw format, 3 components (Y444_12LE)\n"
        "  --width N --height N (3840 x 2160)  --fps N[/D] (60)\n"
        "  --frames N     counted frames (600)   --warmup N  frames not counted (60)\n"
        "  --distinct N   distinct frames, cycled (8)\n"
        "  --own-memory   push frames from the bench's own (pageable) memory, not\n"
        "                 from the pool ENC proposes (page-locked on CUDA), which a\n"
        "                 capture driver would write into\n"
        "  --mtu N        RTP packet size of the default payloader (60000: on loopback,\n"
        "                 whose MTU is 64 KiB, large datagrams keep the packet rate\n"
        "                 sane; 1400 is what a real link with a 1500-byte MTU takes)\n"
        "  --port N       UDP port (5004)\n"
        "  --sock-buf N   socket buffers of udpsink and udpsrc, bytes (67108864; above\n"
        "                 net.core.rmem_max only as root)\n"
        "  --drain-ms N   after the last push, stop when no frame came for N ms or\n"
        "                 twice the slowest frame's latency, whichever is longer (2000)\n"
        "  --prime-s N    wait for the priming frame (60)\n"
        "  --no-fail      exit 0 even when frames are lost or p99 > a frame time\n"
        "  --csv FILE     every frame's times, ms from its capture (-1: not seen)\n",
        argv0);
}

int main(int argc, char **argv) {
    Bench bs, *b = &bs;
    memset(b, 0, sizeof *b);
    b->format = "Y444_12LE";
    b->width = 3840;
    b->height = 2160;
    b->fps_n = 60;
    b->fps_d = 1;
    b->frames = 600;
    b->warmup = 60;
    b->mtu = 60000;
    b->port = 5004;
    b->distinct = 8;
    b->sock_buf = 64 << 20;
    b->drain_ms = 2000;
    b->prime_s = 60;
    const char *enc_extra = "", *backend = "cuda";
    gchar *bpp_extra = NULL;

    gst_init(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define OPT_S(name, dst) else if (!strcmp(a, name) && v) { dst = v; i++; }
#define OPT_I(name, dst) else if (!strcmp(a, name) && v) { dst = atoi(v); i++; }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(argv[0]);
            return 0;
        }
        OPT_S("--enc", b->enc)
        OPT_S("--pay", b->pay)
        OPT_S("--depay", b->depay)
        OPT_S("--dec", b->dec)
        OPT_S("--rtp-caps", b->rtp_caps)
        OPT_S("--format", b->format)
        OPT_S("--csv", b->csv)
        OPT_I("--width", b->width)
        OPT_I("--height", b->height)
        OPT_I("--frames", b->frames)
        OPT_I("--warmup", b->warmup)
        OPT_I("--distinct", b->distinct)
        OPT_I("--mtu", b->mtu)
        OPT_I("--port", b->port)
        OPT_I("--sock-buf", b->sock_buf)
        OPT_I("--drain-ms", b->drain_ms)
        OPT_I("--prime-s", b->prime_s)
        else if (!strcmp(a, "--fps") && v) {
            if (sscanf(v, "%d/%d", &b->fps_n, &b->fps_d) < 2)
                b->fps_d = 1;
            i++;
        } else if (!strcmp(a, "--backend") && v) {
            backend = v;
            i++;
        } else if (!strcmp(a, "--own-memory")) {
            b->own_memory = 1;
        } else if (!strcmp(a, "--lossless")) {
            enc_extra = " reversible=true";
        } else if (!strcmp(a, "--bpp") && v) {
            g_free(bpp_extra);
            bpp_extra = g_strdup_printf(" bitrate=%s", v);
            i++;
        } else if (!strcmp(a, "--no-fail")) {
            b->no_fail = 1;
        } else {
            fprintf(stderr, "unknown option or missing value: %s (--help)\n", a);
            return 2;
        }
#undef OPT_S
#undef OPT_I
    }
    if (b->width <= 0 || b->height <= 0 || b->fps_n <= 0 || b->fps_d <= 0 ||
        b->frames <= 0 || b->warmup < 0 || b->distinct <= 0 || b->mtu <= 0) {
        fprintf(stderr, "bad sizes, rate or counts (--help)\n");
        return 2;
    }
    b->n = 1 + (guint)b->warmup + (guint)b->frames;
    b->period = gst_util_uint64_scale(GST_SECOND, (guint64)b->fps_d, (guint64)b->fps_n);

    gchar *enc = b->enc ? g_strdup(b->enc)
                        : g_strdup_printf("htj2kenc backend=%s%s%s", backend, enc_extra,
                                          bpp_extra ? bpp_extra : "");
    gchar *dec = b->dec ? g_strdup(b->dec)
                        : g_strdup_printf("j2kdec backend=%s frames-in-flight=1", backend);
    gchar *pay = b->pay ? g_strdup(b->pay) : g_strdup_printf("rtpj2kpay mtu=%d", b->mtu);
    gchar *caps = b->rtp_caps ? g_strdup(b->rtp_caps)
                              : g_strdup_printf("application/x-rtp,media=video,"
                                                "clock-rate=90000,encoding-name=JPEG2000,"
                                                "sampling=%s", sampling_of(b->format));
    gchar *sdesc = g_strdup_printf(
        "appsrc name=src is-live=true format=time do-timestamp=false max-bytes=0 "
        "caps=video/x-raw,format=%s,width=%d,height=%d,framerate=%d/%d ! "
        "( name=enc %s ) ! ( name=pay %s ) ! udpsink host=127.0.0.1 port=%d "
        "sync=false async=false buffer-size=%d",
        b->format, b->width, b->height, b->fps_n, b->fps_d, enc, pay, b->port, b->sock_buf);
    gchar *rdesc = g_strdup_printf(
        "udpsrc name=udpsrc port=%d buffer-size=%d mtu=%d caps=\"%s\" ! "
        "( name=depay %s ) ! ( name=dec %s ) ! appsink name=sink sync=false "
        "emit-signals=false max-buffers=4 drop=false enable-last-sample=false",
        b->port, b->sock_buf, b->mtu > 1500 ? b->mtu : 1500, caps,
        b->depay ? b->depay : "rtpj2kdepay ! jpeg2000parse", dec);
    g_free(enc);
    g_free(dec);
    g_free(pay);
    g_free(caps);
    g_free(bpp_extra);

    int rc = 1, rcvbuf = -1;
    GError *err = NULL;
    GstElement *sink = NULL, *udpsrc = NULL;
    GThread *th = NULL;
    g_mutex_init(&b->lock);
    b->t = g_malloc0_n(b->n, sizeof *b->t);
    b->pts = g_new0(GstClockTime, b->n);
    b->pkts_sent = g_new0(guint, b->n);
    b->pkts_recv = g_new0(guint, b->n);
    b->coded_bytes = g_new0(guint64, b->n);
    b->by_rtpts = g_hash_table_new(NULL, NULL);

    if (make_frames(b)) {
        fprintf(stderr, "format %s: need 3 components without alpha, little-endian "
                "above 8 bits\n", b->format);
        rc = 2;
        goto out;
    }
    b->sender = gst_parse_launch(sdesc, &err);
    if (!b->sender || err) {
        fprintf(stderr, "sender: %s\n  %s\n", err ? err->message : "not built", sdesc);
        goto out;
    }
    b->receiver = gst_parse_launch(rdesc, &err);
    if (!b->receiver || err) {
        fprintf(stderr, "receiver: %s\n  %s\n", err ? err->message : "not built", rdesc);
        goto out;
    }
    b->appsrc = gst_bin_get_by_name(GST_BIN(b->sender), "src");
    sink = gst_bin_get_by_name(GST_BIN(b->receiver), "sink");
    udpsrc = gst_bin_get_by_name(GST_BIN(b->receiver), "udpsrc");
    if (add_probe(b, b->sender, "enc", GST_PAD_SINK, AT_ENC_IN) ||
        add_probe(b, b->sender, "enc", GST_PAD_SRC, AT_ENC) ||
        add_probe(b, b->sender, "pay", GST_PAD_SRC, AT_PAY) ||
        add_probe(b, b->receiver, "depay", GST_PAD_SINK, AT_RX) ||
        add_probe(b, b->receiver, "depay", GST_PAD_SRC, AT_DEPAY))
        goto out;
    GstAppSinkCallbacks cb = {0};
    cb.new_sample = on_sample;
    gst_app_sink_set_callbacks(GST_APP_SINK(sink), &cb, b, NULL);
    b->sbus = gst_element_get_bus(b->sender);
    b->rbus = gst_element_get_bus(b->receiver);

    /* the receiver first: its socket must be bound before a packet leaves */
    if (gst_element_set_state(b->receiver, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE ||
        gst_element_set_state(b->sender, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
        poll_buses(b);
        fprintf(stderr, "a pipeline did not start\n");
        goto out;
    }
    gst_element_get_state(b->sender, NULL, NULL, 5 * GST_SECOND);
    {
        GSocket *sock = NULL;
        g_object_get(udpsrc, "used-socket", &sock, NULL);
        if (sock) {
            g_socket_get_option(sock, SOL_SOCKET, SO_RCVBUF, &rcvbuf, NULL);
            g_object_unref(sock);
        }
        GstClock *clock = gst_element_get_clock(b->sender);
        if (!clock) {
            fprintf(stderr, "the sender has no clock\n");
            goto out;
        }
        b->rt_offset = (gint64)(gst_clock_get_time(clock) -
                                gst_element_get_base_time(b->sender)) - now_ns();
        gst_object_unref(clock);
    }

    /* the priming frame, alone: device set-up, negotiation and first-frame
     * costs stay out of the paced stream */
    push_frame(b, 0, now_ns());
    gint64 t0 = now_ns();
    for (;;) {
        poll_buses(b);
        g_mutex_lock(&b->lock);
        int done = b->t[0][T_OUT] != 0, at_depay = b->t[0][T_DEPAY] != 0;
        int sent = b->t[0][T_PAY1] != 0;
        gint64 depay_t = b->t[0][T_DEPAY];
        g_mutex_unlock(&b->lock);
        if (done || b->errors)
            break;
        /* a decoder keeping frames in flight lets it go only with the next */
        if (at_depay && now_ns() - depay_t > 3 * (gint64)GST_SECOND) {
            fprintf(stderr, "the priming frame left DEPAY but not DEC within 3 s: "
                    "does DEC hold frames (frames-in-flight > 1)? going on\n");
            break;
        }
        /* sent but never decoded: lost on the way, which the counted
         * frames will show better than an abort would */
        if (now_ns() - t0 > b->prime_s * (gint64)GST_SECOND) {
            fprintf(stderr, "the priming frame was %s within %d s%s\n",
                    sent ? "sent but not decoded" : "not sent", b->prime_s,
                    sent ? ": going on" : "");
            b->errors += !sent;
            break;
        }
        g_usleep(2000);
    }
    if (b->errors)
        goto stop;
    fprintf(stderr, "primed in %.3f s; pushing %u frames at %d/%d frames/s\n",
            (now_ns() - t0) / 1e9, b->n - 1, b->fps_n, b->fps_d);
    b->pooled = !b->own_memory && frames_into_pool(b);
    fprintf(stderr, "frames pushed from %s\n", b->pooled ?
            "the pool ENC proposed" : "the bench's own memory");

    th = g_thread_new("pusher", pusher, b);
    for (;;) {
        poll_buses(b);
        g_mutex_lock(&b->lock);
        int all_pushed = b->pushed == b->n, all_out = b->decoded == b->n;
        /* frames still coming are late, not lost: the wait runs from the
         * last sign of progress, and is at least twice the slowest frame */
        gint64 last = MAX(b->last_push, b->last_out);
        gint64 wait = MAX(b->drain_ms * (gint64)1000000, 2 * b->max_latency);
        g_mutex_unlock(&b->lock);
        if (b->errors || (all_pushed && (all_out || now_ns() - last > wait)))
            break;
        g_usleep(2000);
    }
    g_atomic_int_set(&b->stop, 1);
    g_thread_join(th);
    th = NULL;

stop:
    /* UDP carries no EOS: the receiver is stopped, the sender drained */
    gst_app_src_end_of_stream(GST_APP_SRC(b->appsrc));
    for (gint64 te = now_ns(); !b->sender_eos && !b->errors &&
                               now_ns() - te < 2 * (gint64)GST_SECOND;) {
        poll_buses(b);
        g_usleep(2000);
    }
    gst_element_set_state(b->receiver, GST_STATE_NULL);
    gst_element_set_state(b->sender, GST_STATE_NULL);
    poll_buses(b);
    rc = report(b, sdesc, rdesc, rcvbuf);
    if (b->csv)
        write_csv(b);

out:
    if (th)
        g_thread_join(th);
    if (b->sbus)
        gst_object_unref(b->sbus);
    if (b->rbus)
        gst_object_unref(b->rbus);
    if (sink)
        gst_object_unref(sink);
    if (udpsrc)
        gst_object_unref(udpsrc);
    if (b->appsrc)
        gst_object_unref(b->appsrc);
    if (b->sender) {
        gst_element_set_state(b->sender, GST_STATE_NULL);
        gst_object_unref(b->sender);
    }
    if (b->receiver) {
        gst_element_set_state(b->receiver, GST_STATE_NULL);
        gst_object_unref(b->receiver);
    }
    g_clear_error(&err);
    for (int k = 0; b->pics && k < b->distinct; k++)
        gst_buffer_unref(b->pics[k]);
    g_free(b->pics);
    g_free(b->t);
    g_free(b->pts);
    g_free(b->pkts_sent);
    g_free(b->pkts_recv);
    g_free(b->coded_bytes);
    g_hash_table_destroy(b->by_rtpts);
    g_mutex_clear(&b->lock);
    g_free(sdesc);
    g_free(rdesc);
    gst_deinit();
    return rc;
}
