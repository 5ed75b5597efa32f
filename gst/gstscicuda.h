/*
 * CUDA state of one element instance: the GstCudaContext it shares with the
 * pipeline (nvcodec's cudaupload/cudadownload included), its own CUDA
 * stream, and device staging memory for data that enters or leaves through
 * system memory.  Only built with the CUDA backend.
 */
#ifndef __GST_SCI_CUDA_H__
#define __GST_SCI_CUDA_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#ifndef GST_USE_UNSTABLE_API
#define GST_USE_UNSTABLE_API
#endif
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cuda/gstcudabufferpool.h>

G_BEGIN_DECLS
#define GST_SCI_CUDA_STAGING_SLOTS 8
    typedef struct
{
  GstCudaContext *context;
  gpointer stream;              /* cudaStream_t, NULL until opened */
  gpointer staging[GST_SCI_CUDA_STAGING_SLOTS];
  gsize staging_size[GST_SCI_CUDA_STAGING_SLOTS];
  /* frames in pageable memory go to the device through page-locked
   * bounce buffers, a staging slot each, filled by several threads */
  gpointer bounce[GST_SCI_CUDA_STAGING_SLOTS];
  gsize bounce_size[GST_SCI_CUDA_STAGING_SLOTS];
  gpointer bounce_free[GST_SCI_CUDA_STAGING_SLOTS];     /* cudaEvent_t */
  gboolean bounce_refused;      /* page-locked memory was short: not again */
  struct sci_pool *copiers;
} GstSciCuda;

/* Creates this instance's stream on the context (which must be set);
 * returns a cudaError_t (0 = success). */
gint gst_sci_cuda_open_stream (GstSciCuda * cuda);
/* Frees stream and staging, drops the context. */
void gst_sci_cuda_close (GstSciCuda * cuda);

gboolean gst_sci_cuda_push (GstSciCuda * cuda);
void gst_sci_cuda_pop (void);

/* Device memory of at least `size` bytes in staging slot `slot`, grown
 * only when a larger size is asked for; NULL on failure (*err is set).
 * Call with the context pushed. */
gpointer gst_sci_cuda_staging (GstSciCuda * cuda, guint slot, gsize size,
    gint * err);

/* Asynchronous on the instance's stream; cudaError_t returned. */
gint gst_sci_cuda_copy (GstSciCuda * cuda, gpointer dst, gconstpointer src,
    gsize size);
/* The same on `stream` (a cudaStream_t of the context). */
gint gst_sci_cuda_copy_on (gpointer stream, gpointer dst, gconstpointer src,
    gsize size);
gint gst_sci_cuda_copy_2d (GstSciCuda * cuda, gpointer dst, gsize dst_pitch,
    gconstpointer src, gsize src_pitch, gsize width, gsize height);
gint gst_sci_cuda_sync (GstSciCuda * cuda);
const gchar *gst_sci_cuda_error_name (gint err);

/* Stages a mapped host frame in device staging slot `slot`: *dev becomes a
 * copy of *host whose plane addresses point into device memory with the
 * same strides (never unmap it).  Uploads the samples when `upload`: a
 * large frame in pageable memory is first copied by several threads into
 * the slot's page-locked bounce buffer (CUDA would stage it on one), and
 * the host may reuse the frame when this returns.  Call with the context
 * pushed; returns a cudaError_t. */
gint gst_sci_cuda_stage_frame (GstSciCuda * cuda, const GstVideoFrame * host,
    guint slot, gboolean upload, GstVideoFrame * dev);
/* The same with the upload on `stream` (a cudaStream_t of the context). */
gint gst_sci_cuda_stage_frame_on (GstSciCuda * cuda, gpointer stream,
    const GstVideoFrame * host, guint slot, gboolean upload,
    GstVideoFrame * dev);
/* Queues the copy of a staged frame's samples back into the host frame. */
gint gst_sci_cuda_unstage_frame (GstSciCuda * cuda, const GstVideoFrame * dev,
    GstVideoFrame * host);

/* TRUE when every memory of `buf` is GstCudaMemory of this context, so a
 * GST_MAP_CUDA map hands device addresses our kernels may use. */
gboolean gst_sci_cuda_buffer_is_device (GstSciCuda * cuda, GstBuffer * buf);

/* TRUE when every memory of `buf` is GstCudaMemory of another context
 * that this one reaches as a peer (GStreamer enables peer access between
 * its contexts where the devices allow it): a GST_MAP_CUDA map hands
 * device addresses of the other device, which our copies
 * (cudaMemcpyDefault) read device to device, without the host. */
gboolean gst_sci_cuda_buffer_is_peer (GstSciCuda * cuda, GstBuffer * buf);

/* Maps a buffer of one GstCudaMemory as a frame of device addresses laid
 * out as the memory itself says (its pitch and plane offsets), whatever
 * video meta the buffer carries or lacks; memory that records another
 * format (a carrier for frames GStreamer 1.22 makes no GstCudaMemory
 * for) as its video meta, or else `info`, says.  FALSE when it cannot. */
gboolean gst_sci_cuda_map_device_frame (GstVideoFrame * frame,
    const GstVideoInfo * info, GstBuffer * buf, GstMapFlags flags);

/* TRUE when `features` has memory:CUDAMemory. */
gboolean gst_sci_caps_features_is_cuda (GstCapsFeatures * features);

/*
 * A pool of device buffers for data that is not video (wavelet
 * coefficients, and later cubes, gray frames, traces).  GstCudaMemory of
 * GStreamer 1.22 only allocates some video formats, so each buffer is
 * GstCudaMemory of an RGBA carrier 1024 pixels (4096 bytes) wide, whose
 * rows are therefore contiguous, trimmed to the configured size.  Configure
 * with gst_buffer_pool_config_set_params (caps may be any, size = payload).
 */
GstBufferPool *gst_sci_cuda_blob_pool_new (GstCudaContext * context);

/*
 * An allocator of page-locked (pinned) host memory, allocated portable
 * with cudaHostAlloc on `context`, for host buffers that the device copies
 * into or out of: those copies then run at full link speed.  Each memory
 * holds a reference to the context and frees itself with it pushed, from
 * whatever thread drops it last.  Where no pinned memory can be had it
 * hands out ordinary system memory (and says so in the debug log).
 */
GstAllocator *gst_sci_cuda_host_allocator_new (GstCudaContext * context);

/*
 * A decoder's output buffers: all of one size, in CUDA memory of a context
 * (the blob pool) or in page-locked host memory (the host allocator), the
 * pool made again when the size or the kind changes.
 */
typedef struct
{
  GstBufferPool *pool;
  gsize size;
  gboolean device;
  GstAllocator *host_allocator;
} GstSciOutPool;

/* A buffer of `size` bytes, in device memory when `device`; the pool is
 * configured with `caps`.  NULL, with an error posted on `element`, when
 * the pool or the buffer cannot be had. */
GstBuffer *gst_sci_out_pool_acquire (GstSciOutPool * p, GstElement * element,
    GstCudaContext * context, GstCaps * caps, gsize size, gboolean device);

/* Drops the pool and the allocator (with the context still alive). */
void gst_sci_out_pool_clear (GstSciOutPool * p);

G_END_DECLS
#endif
