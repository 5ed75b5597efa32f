#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstscibackend.h"

GType
gst_sci_backend_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_SCI_BACKEND_AUTO,
        "CUDA when a usable device is present, else the CPU", "auto"},
    {GST_SCI_BACKEND_CUDA, "CUDA kernels (error when no device is usable)",
        "cuda"},
    {GST_SCI_BACKEND_CPU, "The C reference on the CPU", "cpu"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstSciBackend", values);
    g_once_init_leave (&type, t);
  }
  return type;
}
