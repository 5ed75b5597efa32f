/*
 * The two parts that scimultigpu puts around its coders (not elements of
 * their own in the registry):
 *
 *  GstSciDeal     an in-place filter that passes the buffers whose count
 *                 since the start is `way` modulo `ways` and drops the
 *                 others: behind a tee, branch k of N gets frames k, k + N,
 *                 k + 2N, ...
 *  GstSciCollate  an aggregator with a sink pad a branch that outputs
 *                 the branches' buffers in turn, so the frames leave in
 *                 their input order (each coder gives one output frame an
 *                 input frame); the src caps are branch 0's.
 */
#ifndef __GST_SCI_MULTIGPU_PARTS_H__
#define __GST_SCI_MULTIGPU_PARTS_H__

#include <gst/base/gstaggregator.h>
#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS
#define GST_TYPE_SCI_DEAL (gst_sci_deal_get_type ())
G_DECLARE_FINAL_TYPE (GstSciDeal, gst_sci_deal, GST, SCI_DEAL,
    GstBaseTransform);

#define GST_TYPE_SCI_COLLATE (gst_sci_collate_get_type ())
G_DECLARE_FINAL_TYPE (GstSciCollate, gst_sci_collate, GST, SCI_COLLATE,
    GstAggregator);

G_END_DECLS
#endif /* __GST_SCI_MULTIGPU_PARTS_H__ */
