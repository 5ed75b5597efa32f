/* seismicdec's CUDA path: gathers decoded by the kernels in batches. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstseismicdeccuda.h"

#if HAVE_CUDA
#include <cuda_runtime_api.h>

GST_DEBUG_CATEGORY_EXTERN (gst_seismic_dec_debug);
#define GST_CAT_DEFAULT gst_seismic_dec_debug

gint
gst_seismic_dec_cuda_new_state (gpointer * state)
{
  return sci_cuda_seis_create ((sci_cuda_seis **) state);
}

void
gst_seismic_dec_release_cuda (GstSeismicDec * self)
{
  gst_sci_out_pool_clear (&self->out);
  gst_sci_filter_cuda_state_close (GST_SCI_FILTER (self),
      (gpointer *) & self->cuda_dec, (GDestroyNotify) sci_cuda_seis_destroy);
}

/* An output buffer of `size` bytes: device memory (`device`) or
 * page-locked host memory.  NULL posts an error. */
static GstBuffer *
acquire_output (GstSeismicDec * self, gboolean device, gsize size)
{
  GstCaps *caps = gst_seismic_dec_gather_caps (self->traces, self->samples,
      self->sample_interval, device);
  GstBuffer *buf = gst_sci_out_pool_acquire (&self->out, GST_ELEMENT (self),
      GST_SCI_FILTER (self)->backend.cuda.context, caps, size, device);

  gst_caps_unref (caps);
  return buf;
}

GstFlowReturn
gst_seismic_dec_decode_batch_cuda (GstSeismicDec * self, guint n,
    const guint8 ** frames, const sci_seis_info * info, GstBuffer ** outs,
    gint * status, const gchar ** what, gint * err)
{
  GstSciFilter *base = GST_SCI_FILTER (self);
  GstSciCuda *cuda = &base->backend.cuda;
  gboolean device = base->backend.out_cuda_memory;
  gsize size = (gsize) info[0].p.traces * info[0].p.samples * sizeof (gfloat);
  GstMapFlags flags = GST_MAP_WRITE | (device ? GST_MAP_CUDA : 0);
  GstMapInfo *maps = g_new0 (GstMapInfo, n);
  gfloat **dst = g_new0 (gfloat *, n);
  GstFlowReturn ret = GST_FLOW_OK;
  gint rc = 0;
  guint i, mapped = 0;

  *what = NULL;
  *err = 0;
  for (i = 0; i < n; i++) {
    outs[i] = acquire_output (self, device, size);
    if (!outs[i] || !gst_buffer_map (outs[i], &maps[i], flags)) {
      if (outs[i])
        GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
            ("Cannot map output buffer"), (NULL));
      ret = GST_FLOW_ERROR;
      break;
    }
    mapped++;
  }
  if (ret == GST_FLOW_OK && gst_sci_cuda_push (cuda)) {
    gfloat *stage = device ? NULL : gst_sci_cuda_staging (cuda, 0, n * size,
        err);

    if (!device && !stage) {
      *what = "device staging allocation";
    } else {
      /* 1: not set by the decoder (a call it refused as a whole) */
      for (i = 0; i < n; i++) {
        dst[i] = device ? (gfloat *) maps[i].data :
            stage + i * (size / sizeof (gfloat));
        status[i] = 1;
      }
      rc = sci_cuda_seis_decode (self->cuda_dec, n, frames, info, dst, NULL,
          status, cuda->stream);
      for (i = 0; i < n && rc <= 0; i++)
        if (status[i] == 1)
          status[i] = rc < 0 ? rc : SCI_SEIS_E_ARG;
      if (rc > 0) {
        *what = "seismic decoding";
        *err = rc;
      } else if (!device) {
        for (i = 0; i < n && !*err; i++)
          if (status[i] == 0)
            *err = gst_sci_cuda_copy (cuda, maps[i].data, dst[i], size);
        if (!*err)
          *err = gst_sci_cuda_sync (cuda);
        if (*err)
          *what = "copy of the gathers to the host";
      }
    }
    if (*what)
      cudaGetLastError ();      /* clear what is not sticky */
    gst_sci_cuda_pop ();
  } else if (ret == GST_FLOW_OK) {
    *what = "context push";
  }
  for (i = 0; i < mapped; i++)
    gst_buffer_unmap (outs[i], &maps[i]);
  if (ret == GST_FLOW_OK && *what)
    ret = GST_SEISMIC_DEC_CUDA_FAILED;
  for (i = 0; i < n; i++)
    if (outs[i] && (ret != GST_FLOW_OK || status[i] != 0))
      gst_clear_buffer (&outs[i]);
  g_free (maps);
  g_free (dst);
  return ret;
}
#endif
