#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstscicuda.h"

#include <string.h>

#include <cuda_runtime_api.h>
#include "codec/common/parallel.h"
#include "cuda/error.h"

GST_DEBUG_CATEGORY_STATIC (gst_sci_cuda_debug);
#define GST_CAT_DEFAULT gst_sci_cuda_debug

static void
init_debug (void)
{
  static gsize done = 0;
  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (gst_sci_cuda_debug, "scicuda", 0,
        "CUDA state shared by the scicodec elements");
    g_once_init_leave (&done, 1);
  }
}

gint
gst_sci_cuda_open_stream (GstSciCuda * cuda)
{
  cudaStream_t stream = NULL;
  cudaError_t err;

  init_debug ();
  g_return_val_if_fail (cuda->context != NULL, cudaErrorInvalidValue);
  if (cuda->stream)
    return cudaSuccess;
  if (!gst_cuda_context_push (cuda->context))
    return cudaErrorDeviceUninitialized;
  /* Non-blocking: our work must not serialise against the legacy default
   * stream that other elements of the pipeline may use. */
  err = cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking);
  gst_cuda_context_pop (NULL);
  if (err != cudaSuccess) {
    /* Clear the sticky runtime error so a later CPU fallback starts clean. */
    cudaGetLastError ();
    return err;
  }
  cuda->stream = stream;
  return cudaSuccess;
}

void
gst_sci_cuda_close (GstSciCuda * cuda)
{
  guint i;

  if (cuda->context && gst_cuda_context_push (cuda->context)) {
    if (cuda->stream) {
      cudaStreamSynchronize ((cudaStream_t) cuda->stream);
      cudaStreamDestroy ((cudaStream_t) cuda->stream);
    }
    for (i = 0; i < GST_SCI_CUDA_STAGING_SLOTS; i++) {
      if (cuda->staging[i])
        cudaFree (cuda->staging[i]);
      if (cuda->bounce_free[i])
        cudaEventDestroy ((cudaEvent_t) cuda->bounce_free[i]);
      if (cuda->bounce[i])
        cudaFreeHost (cuda->bounce[i]);
    }
    gst_cuda_context_pop (NULL);
  }
  for (i = 0; i < GST_SCI_CUDA_STAGING_SLOTS; i++) {
    cuda->staging[i] = NULL;
    cuda->staging_size[i] = 0;
    cuda->bounce[i] = NULL;
    cuda->bounce_size[i] = 0;
    cuda->bounce_free[i] = NULL;
  }
  sci_pool_free (cuda->copiers);
  cuda->copiers = NULL;
  cuda->bounce_refused = FALSE;
  cuda->stream = NULL;
  gst_clear_object (&cuda->context);
}

gboolean
gst_sci_cuda_push (GstSciCuda * cuda)
{
  return cuda->context && gst_cuda_context_push (cuda->context);
}

void
gst_sci_cuda_pop (void)
{
  gst_cuda_context_pop (NULL);
}

gpointer
gst_sci_cuda_staging (GstSciCuda * cuda, guint slot, gsize size, gint * err)
{
  void *mem = NULL;
  cudaError_t e;

  g_return_val_if_fail (slot < GST_SCI_CUDA_STAGING_SLOTS, NULL);
  *err = cudaSuccess;
  if (cuda->staging[slot] && cuda->staging_size[slot] >= size)
    return cuda->staging[slot];
  if (cuda->staging[slot]) {
    /* Pending work may still read the old block. */
    cudaStreamSynchronize ((cudaStream_t) cuda->stream);
    cudaFree (cuda->staging[slot]);
    cuda->staging[slot] = NULL;
    cuda->staging_size[slot] = 0;
  }
  e = cudaMalloc (&mem, MAX (size, 1));
  if (e != cudaSuccess) {
    cudaGetLastError ();
    *err = e;
    return NULL;
  }
  GST_DEBUG ("staging slot %u: %" G_GSIZE_FORMAT " bytes", slot, size);
  cuda->staging[slot] = mem;
  cuda->staging_size[slot] = size;
  return mem;
}

gint
gst_sci_cuda_copy (GstSciCuda * cuda, gpointer dst, gconstpointer src,
    gsize size)
{
  return gst_sci_cuda_copy_on (cuda->stream, dst, src, size);
}

gint
gst_sci_cuda_copy_on (gpointer stream, gpointer dst, gconstpointer src,
    gsize size)
{
  return cudaMemcpyAsync (dst, src, size, cudaMemcpyDefault,
      (cudaStream_t) stream);
}

static gint
copy_2d_on (gpointer stream, gpointer dst, gsize dst_pitch,
    gconstpointer src, gsize src_pitch, gsize width, gsize height)
{
  return cudaMemcpy2DAsync (dst, dst_pitch, src, src_pitch, width, height,
      cudaMemcpyDefault, (cudaStream_t) stream);
}

gint
gst_sci_cuda_copy_2d (GstSciCuda * cuda, gpointer dst, gsize dst_pitch,
    gconstpointer src, gsize src_pitch, gsize width, gsize height)
{
  return copy_2d_on (cuda->stream, dst, dst_pitch, src, src_pitch, width,
      height);
}

gint
gst_sci_cuda_sync (GstSciCuda * cuda)
{
  return cudaStreamSynchronize ((cudaStream_t) cuda->stream);
}

const gchar *
gst_sci_cuda_error_name (gint err)
{
  /* the kernels' calls also return the codecs' negative codes */
  return sci_cuda_error_string (err);
}

/* First component stored in plane p: its width, height and pixel stride
 * give the bytes and rows that the plane's samples span. */
static guint
plane_first_comp (const GstVideoFrame * frame, guint p)
{
  guint c;

  for (c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS (frame); c++) {
    if (GST_VIDEO_FRAME_COMP_PLANE (frame, c) == p)
      return c;
  }
  return 0;
}

static void
plane_extent (const GstVideoFrame * frame, guint p, gsize * row_bytes,
    gsize * rows)
{
  guint c = plane_first_comp (frame, p);

  *row_bytes = (gsize) GST_VIDEO_FRAME_COMP_WIDTH (frame, c) *
      GST_VIDEO_FRAME_COMP_PSTRIDE (frame, c);
  *rows = GST_VIDEO_FRAME_COMP_HEIGHT (frame, c);
}

gint
gst_sci_cuda_stage_frame (GstSciCuda * cuda, const GstVideoFrame * host,
    guint slot, gboolean upload, GstVideoFrame * dev)
{
  return gst_sci_cuda_stage_frame_on (cuda, cuda->stream, host, slot, upload,
      dev);
}

/* CUDA copies pageable memory through its own page-locked buffers, on
 * one thread: about 8 GB/s, which bounds a 4K 4:4:4 coder at some 150
 * frames/s a device and two devices at less than twice that.  Frames from
 * this size up are copied into a page-locked bounce buffer by several
 * threads instead, and cross to the device at the bus's rate.  On a 2x
 * H200 host, ebcotcm lossless from pageable 4K frames went 223 -> 262 ->
 * 269 frames/s on one device with 4, 8 and 12 threads (417 -> 461 -> 488
 * on two), so up to 12, leaving half the CPUs (beyond two) to the coders;
 * SCI_CUDA_BOUNCE_THREADS, where the environment sets it, overrides. */
#define BOUNCE_MIN_BYTES (4u << 20)
#define BOUNCE_THREADS 12

static guint
bounce_threads (void)
{
  const gchar *v = g_getenv ("SCI_CUDA_BOUNCE_THREADS");
  guint64 n = v ? g_ascii_strtoull (v, NULL, 10) : 0;

  if (n == 0)
    n = MIN (BOUNCE_THREADS, MAX (2, sci_pool_cpus () / 2));
  return MIN (n, sci_pool_cpus ());
}

static gboolean
host_is_pageable (gconstpointer p)
{
  struct cudaPointerAttributes a;

  if (cudaPointerGetAttributes (&a, p) != cudaSuccess) {
    cudaGetLastError ();        /* older runtimes fail on pageable memory */
    return TRUE;
  }
  return a.type == cudaMemoryTypeUnregistered;
}

/* The rows of every plane of a frame, numbered across the planes, copied
 * into the layout of its staging (the frame's strides, planes at
 * offsets[]). */
typedef struct
{
  const GstVideoFrame *host;
  guint8 *dst;
  const gsize *offsets;
  gsize first_row[GST_VIDEO_MAX_PLANES + 1];
} BounceJob;

static void
bounce_rows (void *ctx, size_t begin, size_t end, unsigned worker)
{
  const BounceJob *job = ctx;
  guint p;

  (void) worker;
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (job->host); p++) {
    gsize stride = GST_VIDEO_FRAME_PLANE_STRIDE (job->host, p);
    gsize row_bytes, rows, r, lo, hi;

    plane_extent (job->host, p, &row_bytes, &rows);
    lo = MAX (begin, job->first_row[p]);
    hi = MIN (end, job->first_row[p + 1]);
    for (r = lo; r < hi; r++) {
      gsize row = r - job->first_row[p];
      memcpy (job->dst + job->offsets[p] + row * stride,
          (const guint8 *) job->host->data[p] + row * stride, row_bytes);
    }
  }
}

/* Slot's bounce buffer of at least `total` bytes, its event and the
 * copier threads, made when first needed.  FALSE when one cannot be had
 * (page-locked memory is short, or more than SCI_CUDA_BOUNCE_MAX bytes,
 * where the environment sets it, would be needed): the frames then go
 * through CUDA's own staging, slower but the same, without asking again
 * until the instance is closed. */
static gboolean
bounce_ready (GstSciCuda * cuda, guint slot, gsize total)
{
  cudaError_t e;

  if (cuda->bounce_refused)
    return FALSE;
  if (cuda->bounce_size[slot] < total) {
    const gchar *max = g_getenv ("SCI_CUDA_BOUNCE_MAX");

    if (cuda->bounce[slot]) {
      /* its last copy may still be reading it */
      cudaEventSynchronize ((cudaEvent_t) cuda->bounce_free[slot]);
      cudaFreeHost (cuda->bounce[slot]);
      cuda->bounce[slot] = NULL;
      cuda->bounce_size[slot] = 0;
    }
    if (max && total > g_ascii_strtoull (max, NULL, 10))
      e = cudaErrorMemoryAllocation;
    else
      e = cudaHostAlloc (&cuda->bounce[slot], total, cudaHostAllocDefault);
    if (e != cudaSuccess) {
      cudaGetLastError ();
      cuda->bounce[slot] = NULL;
      GST_WARNING ("no page-locked bounce buffer of %" G_GSIZE_FORMAT
          " bytes (%s): CUDA stages the frames", total, cudaGetErrorName (e));
      cuda->bounce_refused = TRUE;
      return FALSE;
    }
    cuda->bounce_size[slot] = total;
    GST_DEBUG ("bounce slot %u: %" G_GSIZE_FORMAT " page-locked bytes", slot,
        total);
  }
  if (!cuda->bounce_free[slot]) {
    cudaEvent_t ev;
    if (cudaEventCreateWithFlags (&ev, cudaEventDisableTiming)) {
      cudaGetLastError ();
      return FALSE;
    }
    cuda->bounce_free[slot] = ev;
  }
  if (!cuda->copiers)
    cuda->copiers = sci_pool_new (bounce_threads ());
  return cuda->copiers != NULL;
}

/* The upload of a pageable frame through slot's bounce buffer (ready):
 * one copy to the device of `total` bytes laid out as the staging is. */
static gint
upload_bounced (GstSciCuda * cuda, gpointer stream, const GstVideoFrame * host,
    guint slot, const gsize * offsets, gsize total, gpointer base)
{
  BounceJob job = { host, cuda->bounce[slot], offsets, {0} };
  cudaError_t e;
  guint p;

  /* the copy that last read it */
  if ((e = cudaEventSynchronize ((cudaEvent_t) cuda->bounce_free[slot])))
    return e;
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (host); p++) {
    gsize row_bytes, rows;
    plane_extent (host, p, &row_bytes, &rows);
    job.first_row[p + 1] = job.first_row[p] + rows;
  }
  sci_pool_for (cuda->copiers, job.first_row[GST_VIDEO_FRAME_N_PLANES (host)],
      0, bounce_rows, &job);
  if ((e = cudaMemcpyAsync (base, cuda->bounce[slot], total,
              cudaMemcpyHostToDevice, (cudaStream_t) stream)))
    return e;
  return cudaEventRecord ((cudaEvent_t) cuda->bounce_free[slot],
      (cudaStream_t) stream);
}

gint
gst_sci_cuda_stage_frame_on (GstSciCuda * cuda, gpointer stream,
    const GstVideoFrame * host, guint slot, gboolean upload,
    GstVideoFrame * dev)
{
  gsize offsets[GST_VIDEO_MAX_PLANES];
  gsize total = 0, row_bytes, rows;
  guint8 *base;
  guint p;
  gint err;

  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (host); p++) {
    plane_extent (host, p, &row_bytes, &rows);
    offsets[p] = total;
    total += (gsize) GST_VIDEO_FRAME_PLANE_STRIDE (host, p) * rows;
  }
  base = gst_sci_cuda_staging (cuda, slot, total, &err);
  if (!base)
    return err;
  *dev = *host;
  if (upload && total >= BOUNCE_MIN_BYTES && host_is_pageable (host->data[0])
      && bounce_ready (cuda, slot, total)) {
    for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (host); p++)
      dev->data[p] = base + offsets[p];
    return upload_bounced (cuda, stream, host, slot, offsets, total, base);
  }
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (host); p++) {
    gsize stride = GST_VIDEO_FRAME_PLANE_STRIDE (host, p);

    dev->data[p] = base + offsets[p];
    if (!upload)
      continue;
    plane_extent (host, p, &row_bytes, &rows);
    err = copy_2d_on (stream, dev->data[p], stride, host->data[p], stride,
        row_bytes, rows);
    if (err)
      return err;
  }
  return 0;
}

gint
gst_sci_cuda_unstage_frame (GstSciCuda * cuda, const GstVideoFrame * dev,
    GstVideoFrame * host)
{
  gsize row_bytes, rows;
  guint p;
  gint err;

  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (host); p++) {
    plane_extent (host, p, &row_bytes, &rows);
    err = gst_sci_cuda_copy_2d (cuda, host->data[p],
        GST_VIDEO_FRAME_PLANE_STRIDE (host, p), dev->data[p],
        GST_VIDEO_FRAME_PLANE_STRIDE (dev, p), row_bytes, rows);
    if (err)
      return err;
  }
  return 0;
}

/* Whether every memory of buf is GstCudaMemory of our context (peer
 * FALSE), or of another context ours reaches as a peer (peer TRUE). */
static gboolean
buffer_in_contexts (GstSciCuda * cuda, GstBuffer * buf, gboolean peer)
{
  guint i, n = gst_buffer_n_memory (buf);

  if (!cuda->context || n == 0)
    return FALSE;
  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buf, i);
    GstCudaContext *ctx;

    if (!gst_is_cuda_memory (mem))
      return FALSE;
    ctx = GST_CUDA_MEMORY_CAST (mem)->context;
    if (!(peer ? ctx != cuda->context
            && gst_cuda_context_can_access_peer (cuda->context, ctx)
            : ctx == cuda->context))
      return FALSE;
  }
  return TRUE;
}

gboolean
gst_sci_cuda_buffer_is_device (GstSciCuda * cuda, GstBuffer * buf)
{
  return buffer_in_contexts (cuda, buf, FALSE);
}

gboolean
gst_sci_cuda_buffer_is_peer (GstSciCuda * cuda, GstBuffer * buf)
{
  return buffer_in_contexts (cuda, buf, TRUE);
}

gboolean
gst_sci_cuda_map_device_frame (GstVideoFrame * frame,
    const GstVideoInfo * info, GstBuffer * buf, GstMapFlags flags)
{
  const GstVideoInfo *layout;
  guint8 *base;
  guint p;

  if (gst_buffer_n_memory (buf) != 1
      || !gst_is_cuda_memory (gst_buffer_peek_memory (buf, 0)))
    return FALSE;
  layout = &GST_CUDA_MEMORY_CAST (gst_buffer_peek_memory (buf, 0))->info;
  /* Memory that records another format carries frames of a format
   * GStreamer 1.22 makes no GstCudaMemory for (our decoders' carrier
   * memory): those are laid out as the video meta, or else `info`, says. */
  if (GST_VIDEO_INFO_FORMAT (layout) != GST_VIDEO_INFO_FORMAT (info)
      || GST_VIDEO_INFO_N_PLANES (layout) != GST_VIDEO_INFO_N_PLANES (info))
    return gst_video_frame_map (frame, info, buf, flags | GST_MAP_CUDA);
  if (!gst_video_frame_map (frame, info, buf, flags | GST_MAP_CUDA))
    return FALSE;
  /* Plane 0 starts the memory, with or without a video meta. */
  base = (guint8 *) frame->map[0].data;
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    if (frame->info.stride[p] != layout->stride[p])
      GST_DEBUG ("plane %u: stride %d from the memory, %d from the buffer",
          p, layout->stride[p], frame->info.stride[p]);
    frame->data[p] = base + layout->offset[p];
    frame->info.stride[p] = layout->stride[p];
    frame->info.offset[p] = layout->offset[p];
  }
  return TRUE;
}

gboolean
gst_sci_caps_features_is_cuda (GstCapsFeatures * features)
{
  return features && !gst_caps_features_is_any (features)
      && gst_caps_features_contains (features,
      GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
}

/* ---- device pool for non-video data ---- */

#define BLOB_CARRIER_WIDTH 1024
#define BLOB_ROW_BYTES (BLOB_CARRIER_WIDTH * 4)

typedef struct
{
  GstBufferPool parent;
  GstCudaContext *context;
  GstCudaAllocator *allocator;
  GstVideoInfo carrier;
  gsize size;
} GstSciCudaBlobPool;

typedef struct
{
  GstBufferPoolClass parent_class;
} GstSciCudaBlobPoolClass;

static GType gst_sci_cuda_blob_pool_get_type (void);
G_DEFINE_TYPE (GstSciCudaBlobPool, gst_sci_cuda_blob_pool,
    GST_TYPE_BUFFER_POOL);

static gboolean
blob_pool_set_config (GstBufferPool * pool, GstStructure * config)
{
  GstSciCudaBlobPool *self = (GstSciCudaBlobPool *) pool;
  GstCaps *caps = NULL;
  guint size, min, max;
  guint rows;

  if (!gst_buffer_pool_config_get_params (config, &caps, &size, &min, &max)
      || size == 0) {
    GST_WARNING_OBJECT (pool, "invalid config");
    return FALSE;
  }
  rows = (size + BLOB_ROW_BYTES - 1) / BLOB_ROW_BYTES;
  if (!gst_video_info_set_format (&self->carrier, GST_VIDEO_FORMAT_RGBA,
          BLOB_CARRIER_WIDTH, rows))
    return FALSE;
  self->size = size;
  return GST_BUFFER_POOL_CLASS (gst_sci_cuda_blob_pool_parent_class)->set_config
      (pool, config);
}

static GstFlowReturn
blob_pool_alloc_buffer (GstBufferPool * pool, GstBuffer ** buffer,
    GstBufferPoolAcquireParams * params)
{
  GstSciCudaBlobPool *self = (GstSciCudaBlobPool *) pool;
  GstMemory *mem;
  GstBuffer *buf;

  mem = gst_cuda_allocator_alloc (self->allocator, self->context,
      &self->carrier);
  if (!mem) {
    GST_ERROR_OBJECT (pool, "cannot allocate %" G_GSIZE_FORMAT
        " bytes of device memory", self->size);
    return GST_FLOW_ERROR;
  }
  /* A pitched allocation wider than the carrier row would leave gaps
   * between rows and break the flat layout that the payload needs. */
  if ((gsize) GST_VIDEO_INFO_PLANE_STRIDE (&GST_CUDA_MEMORY_CAST (mem)->info,
          0) != BLOB_ROW_BYTES) {
    GST_ERROR_OBJECT (pool, "device pitch %d, expected %d",
        GST_VIDEO_INFO_PLANE_STRIDE (&GST_CUDA_MEMORY_CAST (mem)->info, 0),
        BLOB_ROW_BYTES);
    gst_memory_unref (mem);
    return GST_FLOW_ERROR;
  }
  /* The payload's size on the memory itself, before a buffer holds it:
   * CUDA memory cannot be shared, so resizing the buffer instead would
   * replace it by a copy of the whole carrier, whose size (whole rows) a
   * host mapping then reports.  GStreamer 1.22 sizes the host staging of
   * a GstCudaMemory by the memory's size at its first host mapping but
   * copies whole rows into it, so a host mapping of the trimmed memory
   * would fail (and fall back to that carrier-sized copy): one host
   * mapping before the trim makes the staging whole rows, once a pooled
   * buffer (a copy of the carrier, unused). */
  if (self->size < mem->size) {
    GstMapInfo staging;

    if (!gst_memory_map (mem, &staging, GST_MAP_READ)) {
      GST_ERROR_OBJECT (pool, "cannot map the device memory on the host");
      gst_memory_unref (mem);
      return GST_FLOW_ERROR;
    }
    gst_memory_unmap (mem, &staging);
    gst_memory_resize (mem, 0, self->size);
  }
  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, mem);
  *buffer = buf;
  return GST_FLOW_OK;
}

static void
blob_pool_finalize (GObject * object)
{
  GstSciCudaBlobPool *self = (GstSciCudaBlobPool *) object;

  gst_clear_object (&self->context);
  gst_clear_object (&self->allocator);
  G_OBJECT_CLASS (gst_sci_cuda_blob_pool_parent_class)->finalize (object);
}

static void
gst_sci_cuda_blob_pool_class_init (GstSciCudaBlobPoolClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS (klass);

  gobject_class->finalize = blob_pool_finalize;
  pool_class->set_config = blob_pool_set_config;
  pool_class->alloc_buffer = blob_pool_alloc_buffer;
}

static void
gst_sci_cuda_blob_pool_init (GstSciCudaBlobPool * self)
{
}

GstBufferPool *
gst_sci_cuda_blob_pool_new (GstCudaContext * context)
{
  GstSciCudaBlobPool *self;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), NULL);
  init_debug ();
  gst_cuda_memory_init_once ();
  self = g_object_new (gst_sci_cuda_blob_pool_get_type (), NULL);
  gst_object_ref_sink (self);
  self->context = gst_object_ref (context);
  /* 1.22 takes no NULL for the default allocator */
  self->allocator = (GstCudaAllocator *)
      gst_allocator_find (GST_CUDA_MEMORY_TYPE_NAME);
  if (!self->allocator) {
    gst_object_unref (self);
    return NULL;
  }
  return GST_BUFFER_POOL (self);
}

/* ---- page-locked host memory ---- */

/* Blocks kept for reuse when their memory is freed: cudaHostAlloc and
 * cudaFreeHost of a large block take milliseconds (cudaFreeHost also
 * waits for the device), and a buffer pool frees and allocates again
 * every buffer that comes back with its memory shared or replaced, as an
 * RTP payloader's packets share a coded frame's (a 62 MB block a 4K frame
 * cost htj2kenc about 20 ms). */
#define HOST_CACHE_BLOCKS 4

typedef struct
{
  GstCudaContext *context;
  gpointer data;
  gsize size;
  GstAllocator *owner;          /* while in use: the allocator, for its cache */
} HostBlock;

typedef struct
{
  GstAllocator parent;
  GstCudaContext *context;
  GMutex lock;
  HostBlock *cache[HOST_CACHE_BLOCKS];
} GstSciCudaHostAllocator;

typedef struct
{
  GstAllocatorClass parent_class;
} GstSciCudaHostAllocatorClass;

static GType gst_sci_cuda_host_allocator_get_type (void);
G_DEFINE_TYPE (GstSciCudaHostAllocator, gst_sci_cuda_host_allocator,
    GST_TYPE_ALLOCATOR);

static void
host_block_release (HostBlock * b)
{
  if (gst_cuda_context_push (b->context)) {
    cudaFreeHost (b->data);
    gst_cuda_context_pop (NULL);
  } else {
    GST_ERROR ("cannot push the CUDA context: %p of pinned memory leaks",
        b->data);
  }
  gst_object_unref (b->context);
  g_free (b);
}

/* A block's memory was freed: into its allocator's cache if there is
 * room, else back to CUDA. */
static void
host_block_free (gpointer user_data)
{
  HostBlock *b = user_data;
  GstSciCudaHostAllocator *self = (GstSciCudaHostAllocator *) b->owner;
  gboolean kept = FALSE;

  g_mutex_lock (&self->lock);
  for (guint i = 0; i < HOST_CACHE_BLOCKS && !kept; i++)
    if (!self->cache[i]) {
      self->cache[i] = b;
      kept = TRUE;
    }
  g_mutex_unlock (&self->lock);
  b->owner = NULL;
  if (!kept)
    host_block_release (b);
  /* may finalize the allocator, which releases its cache */
  gst_object_unref (self);
}

/* A cached block of `size` bytes, or NULL. */
static HostBlock *
host_cache_take (GstSciCudaHostAllocator * self, gsize size)
{
  HostBlock *b = NULL;

  g_mutex_lock (&self->lock);
  for (guint i = 0; i < HOST_CACHE_BLOCKS && !b; i++)
    if (self->cache[i] && self->cache[i]->size == size) {
      b = self->cache[i];
      self->cache[i] = NULL;
    }
  g_mutex_unlock (&self->lock);
  return b;
}

/* The memory is GstMemory of the system allocator wrapping the pinned
 * block (gst_memory_new_wrapped): maps, shares and copies as any. */
static GstMemory *
host_allocator_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  GstSciCudaHostAllocator *self = (GstSciCudaHostAllocator *) allocator;
  gsize maxsize = MAX (size + params->prefix + params->padding, 1);
  HostBlock *b = host_cache_take (self, maxsize);

  if (!b) {
    void *data = NULL;
    cudaError_t err = cudaErrorDeviceUninitialized;

    /* cudaHostAlloc aligns to pages, more than any params->align */
    if (gst_cuda_context_push (self->context)) {
      err = cudaHostAlloc (&data, maxsize, cudaHostAllocPortable);
      if (err != cudaSuccess)
        cudaGetLastError ();
      gst_cuda_context_pop (NULL);
    }
    if (err != cudaSuccess) {
      GST_WARNING_OBJECT (self, "no %" G_GSIZE_FORMAT " bytes of pinned "
          "memory (%s): pageable memory instead", maxsize,
          cudaGetErrorString (err));
      return gst_allocator_alloc (NULL, size, params);
    }
    b = g_new (HostBlock, 1);
    b->context = gst_object_ref (self->context);
    b->data = data;
    b->size = maxsize;
  }
  b->owner = gst_object_ref (allocator);
  return gst_memory_new_wrapped (params->flags, b->data, maxsize,
      params->prefix, size, b, host_block_free);
}

static void
host_allocator_free (GstAllocator * allocator, GstMemory * memory)
{
  /* never called: the memory belongs to the system allocator */
  g_warn_if_reached ();
}

static void
host_allocator_finalize (GObject * object)
{
  GstSciCudaHostAllocator *self = (GstSciCudaHostAllocator *) object;

  for (guint i = 0; i < HOST_CACHE_BLOCKS; i++)
    if (self->cache[i])
      host_block_release (self->cache[i]);
  g_mutex_clear (&self->lock);
  gst_clear_object (&self->context);
  G_OBJECT_CLASS (gst_sci_cuda_host_allocator_parent_class)->finalize (object);
}

static void
gst_sci_cuda_host_allocator_class_init (GstSciCudaHostAllocatorClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS (klass);

  gobject_class->finalize = host_allocator_finalize;
  allocator_class->alloc = host_allocator_alloc;
  allocator_class->free = host_allocator_free;
}

static void
gst_sci_cuda_host_allocator_init (GstSciCudaHostAllocator * self)
{
  g_mutex_init (&self->lock);
  GST_OBJECT_FLAG_SET (self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

GstAllocator *
gst_sci_cuda_host_allocator_new (GstCudaContext * context)
{
  GstSciCudaHostAllocator *self;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), NULL);
  init_debug ();
  self = g_object_new (gst_sci_cuda_host_allocator_get_type (), NULL);
  gst_object_ref_sink (self);
  self->context = gst_object_ref (context);
  return GST_ALLOCATOR (self);
}

/* ---- decoders' output pools ---- */

static void
out_pool_drop (GstSciOutPool * p)
{
  if (p->pool) {
    gst_buffer_pool_set_active (p->pool, FALSE);
    gst_clear_object (&p->pool);
  }
  p->size = 0;
}

void
gst_sci_out_pool_clear (GstSciOutPool * p)
{
  out_pool_drop (p);
  gst_clear_object (&p->host_allocator);
}

GstBuffer *
gst_sci_out_pool_acquire (GstSciOutPool * p, GstElement * element,
    GstCudaContext * context, GstCaps * caps, gsize size, gboolean device)
{
  GstBuffer *buf = NULL;

  if (p->pool && (p->size != size || p->device != device))
    out_pool_drop (p);
  if (!p->pool) {
    GstBufferPool *pool;
    GstStructure *config;
    gboolean ok = size <= G_MAXUINT;

    if (device) {
      pool = gst_sci_cuda_blob_pool_new (context);
    } else {
      if (!p->host_allocator)
        p->host_allocator = gst_sci_cuda_host_allocator_new (context);
      pool = gst_buffer_pool_new ();
    }
    ok = ok && pool != NULL;
    if (ok) {
      config = gst_buffer_pool_get_config (pool);
      gst_buffer_pool_config_set_params (config, caps, (guint) size, 0, 0);
      if (!device)
        gst_buffer_pool_config_set_allocator (config, p->host_allocator, NULL);
      ok = gst_buffer_pool_set_config (pool, config)
          && gst_buffer_pool_set_active (pool, TRUE);
    }
    if (!ok) {
      GST_ELEMENT_ERROR (element, RESOURCE, NO_SPACE_LEFT,
          ("Cannot set up a pool of %" G_GSIZE_FORMAT "-byte %s output "
              "buffers", size, device ? "CUDA" : "page-locked"), (NULL));
      if (pool)
        gst_object_unref (pool);
      return NULL;
    }
    p->pool = pool;
    p->size = size;
    p->device = device;
  }
  if (gst_buffer_pool_acquire_buffer (p->pool, &buf, NULL) != GST_FLOW_OK) {
    GST_ELEMENT_ERROR (element, RESOURCE, NO_SPACE_LEFT,
        ("Cannot allocate a %" G_GSIZE_FORMAT "-byte %s output buffer", size,
            device ? "CUDA" : "page-locked"), (NULL));
    return NULL;
  }
  return buf;
}
