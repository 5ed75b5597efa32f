/*
 * A SEG-Y file read as a byte stream, in chunks of any size (segyparse's
 * parsing, apart from the element so that tests/segy/fuzz_segy_stream.c can
 * drive it alone).
 *
 * Push the bytes as they come, say when the stream ends, and take what is
 * ready: gathers exactly as segysrc makes them from the same file (the same
 * buffers, metas and caps, gstsegyformat.c), warnings where segysrc warns,
 * and an error naming the byte offset where the stream is not SEG-Y that
 * can be read, or ends inside the headers or inside a trace.  What comes
 * out depends on the bytes and where the stream ends, never on how the
 * bytes were cut into chunks: every decision waits for the whole traces it
 * needs, or for the end.
 */
#ifndef __GST_SEGY_STREAM_H__
#define __GST_SEGY_STREAM_H__

#include <gst/gst.h>

#include "gstsegyformat.h"

G_BEGIN_DECLS typedef struct _GstSegyStream GstSegyStream;

typedef enum
{
  GST_SEGY_STREAM_NEED_DATA,    /* push more bytes, or finish */
  GST_SEGY_STREAM_GATHER,       /* *gather: the next gather */
  GST_SEGY_STREAM_WARNING,      /* *message: a warning */
  GST_SEGY_STREAM_ERROR,        /* *message: the error; nothing follows */
  GST_SEGY_STREAM_DONE,         /* finished, all was given */
} GstSegyStreamResult;

typedef struct
{
  GQuark domain;                /* GST_STREAM_ERROR, GST_RESOURCE_ERROR */
  gint code;
  gchar *text;                  /* for users */
  gchar *debug;                 /* the reason, with the byte offset */
} GstSegyStreamMessage;

void gst_segy_stream_message_free (GstSegyStreamMessage * m);

/* A parser making gathers of `gather_traces` traces, or of the runs of
 * `key` (as segysrc's properties). */
GstSegyStream *gst_segy_stream_new (guint gather_traces, GstSegyGatherKey key);
void gst_segy_stream_free (GstSegyStream * s);

/* The next bytes of the stream (the buffer is taken). */
void gst_segy_stream_push (GstSegyStream * s, GstBuffer * buf);

/* The stream ends after the bytes pushed. */
void gst_segy_stream_finish (GstSegyStream * s);

/* What is ready: a gather, a warning or the error (the caller owns
 * *gather or *message), NEED_DATA, or DONE once finished and all given. */
GstSegyStreamResult gst_segy_stream_next (GstSegyStream * s,
    GstBuffer ** gather, GstSegyStreamMessage ** message);

/* The caps of a gather of `traces` traces; NULL before the first trace
 * (or the end of a stream of headers only) has decided the interval. */
GstCaps *gst_segy_stream_caps (GstSegyStream * s, guint traces);

/* Bytes pushed so far. */
guint64 gst_segy_stream_bytes (GstSegyStream * s);

G_END_DECLS
#endif
