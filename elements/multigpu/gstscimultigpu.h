/*
 * scimultigpu: one stream over several GPUs.  A bin around N copies of
 * one of the plugin's coders (`coder`), one a device of `cuda-device-ids`:
 * the frames are dealt to the copies in turn and leave in their input
 * order (gstscimultigpuparts.h).
 */
#ifndef __GST_SCI_MULTIGPU_H__
#define __GST_SCI_MULTIGPU_H__

#include <gst/gst.h>

G_BEGIN_DECLS
#define GST_TYPE_SCI_MULTIGPU (gst_sci_multigpu_get_type ())
G_DECLARE_FINAL_TYPE (GstSciMultiGpu, gst_sci_multigpu, GST, SCI_MULTIGPU,
    GstBin);

GST_ELEMENT_REGISTER_DECLARE (scimultigpu);

G_END_DECLS
#endif /* __GST_SCI_MULTIGPU_H__ */
