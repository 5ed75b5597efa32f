/*
 * The text header of an ENVI cube (`name.hdr`): the fields a reader of
 * the cube needs, parsed with a reason for every refusal.  Apart from
 * envisrc, so that tests/envi/fuzz_envi_header.c can feed it anything.
 */
#ifndef __GST_ENVI_HEADER_H__
#define __GST_ENVI_HEADER_H__

#include <glib.h>

/* The order of the values of a cube (application/x-hyperspectral's
 * `interleave`); AS_STORED: the order of the file. */
typedef enum
{
  GST_ENVI_INTERLEAVE_BIP,
  GST_ENVI_INTERLEAVE_BIL,
  GST_ENVI_INTERLEAVE_BSQ,
  GST_ENVI_INTERLEAVE_AS_STORED,
} GstEnviInterleave;

typedef struct
{
  gint64 samples, lines, bands;
  gint64 offset;                /* header offset */
  gint64 data_type;
  gint64 byte_order;
  GstEnviInterleave interleave;
} GstEnviHeader;

/* Parses the NUL-terminated text of an ENVI header: FALSE with `*why`
 * (to be freed) when it is not one or lacks what a cube needs.  Sizes and
 * types are as the header says them: checking them against what a reader
 * supports is the reader's. */
gboolean gst_envi_header_parse (const gchar * text, GstEnviHeader * h,
    gchar ** why);

/* The name of an ENVI data type, for messages. */
const gchar *gst_envi_data_type_name (gint64 t);

#endif
