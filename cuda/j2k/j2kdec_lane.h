/*
 * One frame's decoder inside sci_cuda_j2kdec (cuda/j2k/j2kdec.h): a lane
 * parses a codestream, runs its tier-2 and builds its tables on the host,
 * and queues its decode on its own CUDA stream (j2kdec.cu).  The decoder
 * has a lane a frame in flight and runs each lane's host work on a thread
 * of its own (j2kdec_lanes.cu), so that the host work of the frames in
 * flight runs at once as their device work does.  A lane is used by one
 * thread at a time.
 */
#ifndef SCI_CUDA_J2KDEC_LANE_H
#define SCI_CUDA_J2KDEC_LANE_H

#include <cuda_runtime.h>

#include "j2kdec.h"
#include "codec/common/parallel.h"

struct jd_lane;

/* What sci_cuda_j2kdec_tune and _tune_ht chose, as at the frame's submit,
 * and how many other frames were in flight then. */
struct jd_tuning {
    int ebcot_host;
    int ht_sym;
    int split;
    int others;
};

/* What the public getters read after a lane's call. */
struct jd_lane_report {
    sci_cuda_j2kdec_path_t path;   /* of the last submit */
    float stage_ms[5];             /* of the last finish */
    float host_ms[4];              /* of the last device-path submit */
    unsigned phases;               /* of the last submit: 1, or 2 when
                                    * the blocks went in two launches */
    unsigned warnings;             /* of the last finish */
    char warning[256];
    char err[512];                 /* of the last failing call */
};

/* The HT VLC tables on the device, which the decoder's lanes share
 * (cudaFree frees them). */
int jd_vlc_table_new(uint16_t **out);

/* pool: the decoder's, which its lanes share (sci_pool_for runs a region
 * on the calling thread while another lane holds the pool); lut: the
 * decoder's VLC tables. */
int jd_lane_create(jd_lane **out, sci_pool *pool, const uint16_t *lut);
/* Waits for the lane's frame. */
void jd_lane_destroy(jd_lane *d);
/* sci_cuda_j2kdec_parse at prm's reduce and layers; data is read until
 * the submit that follows returns. */
int jd_lane_parse(jd_lane *d, const uint8_t *data, size_t len,
                  const sci_j2k_decode_params *prm, sci_j2k_info *info,
                  sci_j2k_comp_info *comp, unsigned ncomp);
/* On the caller's thread, before the submit: the frame will start after
 * the work queued on `stream` so far.  Waits for the lane's last frame. */
int jd_lane_after(jd_lane *d, cudaStream_t stream);
/* Queues the parsed frame's decode into planes (on any thread), once a
 * parse. */
int jd_lane_submit(jd_lane *d, const sci_cuda_j2kdec_plane *planes,
                   const jd_tuning *tu);
/* Waits for the frame of a submit that returned 0. */
int jd_lane_finish(jd_lane *d);
/* With no frame in flight: stage events on or off. */
int jd_lane_profile(jd_lane *d, int on);
const jd_lane_report *jd_lane_report_of(const jd_lane *d);

#endif
