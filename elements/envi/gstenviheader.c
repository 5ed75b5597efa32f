/*
 * ENVI header parsing (see gstenviheader.h).
 */
#include <errno.h>
#include <string.h>

#include "gstenviheader.h"

const gchar *
gst_envi_data_type_name (gint64 t)
{
  switch (t) {
    case 1:
      return "uint8";
    case 2:
      return "int16";
    case 3:
      return "int32";
    case 4:
      return "float32";
    case 5:
      return "float64";
    case 6:
      return "complex float32";
    case 9:
      return "complex float64";
    case 12:
      return "uint16";
    case 13:
      return "uint32";
    case 14:
      return "int64";
    case 15:
      return "uint64";
    default:
      return "unknown";
  }
}

/* A key as compared: lower case, runs of blanks made one space. */
static gchar *
normalize_key (const gchar * s, gsize len)
{
  GString *k = g_string_new (NULL);
  gsize i;

  for (i = 0; i < len; i++) {
    gchar c = s[i];

    if (g_ascii_isspace (c)) {
      if (k->len && k->str[k->len - 1] != ' ')
        g_string_append_c (k, ' ');
    } else {
      g_string_append_c (k, g_ascii_tolower (c));
    }
  }
  if (k->len && k->str[k->len - 1] == ' ')
    g_string_truncate (k, k->len - 1);
  return g_string_free (k, FALSE);
}

/* An integer value (optionally in braces already removed); FALSE with
 * `*why` if it is not one. */
static gboolean
header_int (const gchar * key, const gchar * value, gint64 * out, gchar ** why)
{
  gchar *end;
  gint64 v;

  errno = 0;
  v = g_ascii_strtoll (value, &end, 10);
  while (g_ascii_isspace (*end))
    end++;
  if (end == value || *end != '\0' || errno == ERANGE) {
    *why = g_strdup_printf ("the header's \"%s\" is \"%s\": not an integer",
        key, value);
    return FALSE;
  }
  *out = v;
  return TRUE;
}

gboolean
gst_envi_header_parse (const gchar * text, GstEnviHeader * h, gchar ** why)
{
  const gchar *p = text;
  gboolean have_samples = FALSE, have_lines = FALSE, have_bands = FALSE,
      have_type = FALSE;

  h->offset = 0;
  h->byte_order = 0;
  /* GDAL's default where the header says nothing */
  h->interleave = GST_ENVI_INTERLEAVE_BSQ;

  if (g_str_has_prefix (p, "\xef\xbb\xbf"))
    p += 3;
  if (!g_str_has_prefix (p, "ENVI")) {
    *why = g_strdup ("the header does not begin with \"ENVI\": not an ENVI "
        "header");
    return FALSE;
  }
  p = strchr (p, '\n');
  while (p && *p) {
    const gchar *line = p + 1, *eol, *eq, *v, *vend;
    gchar *key, *value;
    gboolean ok = TRUE;

    eol = strchr (line, '\n');
    if (!eol)
      eol = line + strlen (line);
    p = eol;
    eq = memchr (line, '=', eol - line);
    if (!eq)
      continue;
    v = eq + 1;
    while (v < eol && g_ascii_isspace (*v))
      v++;
    if (*v == '{') {
      /* a list or a text, possibly over several lines */
      v++;
      vend = strchr (v, '}');
      if (!vend) {
        key = normalize_key (line, eq - line);
        *why = g_strdup_printf ("the header's \"%s\" opens a { that is never "
            "closed", key);
        g_free (key);
        return FALSE;
      }
      eol = strchr (vend, '\n');
      p = eol ? eol : vend + strlen (vend);
    } else {
      vend = eol;
    }
    key = normalize_key (line, eq - line);
    value = g_strstrip (g_strndup (v, vend - v));

    if (!strcmp (key, "samples")) {
      ok = have_samples = header_int (key, value, &h->samples, why);
    } else if (!strcmp (key, "lines")) {
      ok = have_lines = header_int (key, value, &h->lines, why);
    } else if (!strcmp (key, "bands")) {
      ok = have_bands = header_int (key, value, &h->bands, why);
    } else if (!strcmp (key, "data type")) {
      ok = have_type = header_int (key, value, &h->data_type, why);
    } else if (!strcmp (key, "header offset")) {
      ok = header_int (key, value, &h->offset, why);
      if (ok && h->offset < 0) {
        *why = g_strdup_printf ("the header says header offset = %"
            G_GINT64_FORMAT, h->offset);
        ok = FALSE;
      }
    } else if (!strcmp (key, "byte order")) {
      ok = header_int (key, value, &h->byte_order, why);
      if (ok && h->byte_order != 0 && h->byte_order != 1) {
        *why = g_strdup_printf ("the header says byte order = %"
            G_GINT64_FORMAT ": 0 (little-endian) or 1 (big-endian) expected",
            h->byte_order);
        ok = FALSE;
      }
    } else if (!strcmp (key, "interleave")) {
      if (!g_ascii_strcasecmp (value, "bip"))
        h->interleave = GST_ENVI_INTERLEAVE_BIP;
      else if (!g_ascii_strcasecmp (value, "bil"))
        h->interleave = GST_ENVI_INTERLEAVE_BIL;
      else if (!g_ascii_strcasecmp (value, "bsq"))
        h->interleave = GST_ENVI_INTERLEAVE_BSQ;
      else {
        *why = g_strdup_printf ("the header says interleave = \"%s\": bip, "
            "bil or bsq expected", value);
        ok = FALSE;
      }
    }
    g_free (key);
    g_free (value);
    if (!ok)
      return FALSE;
  }
  if (!have_samples || !have_lines || !have_bands || !have_type) {
    *why = g_strdup_printf ("the header has no \"%s\"", !have_samples ?
        "samples" : !have_lines ? "lines" : !have_bands ? "bands" :
        "data type");
    return FALSE;
  }
  return TRUE;
}
