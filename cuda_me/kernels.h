/*****************************************************************************
 * kernels.h: launchers of the library's CUDA kernels (me_cuda.cu,
 * subpel_cuda.cu, lowres_cuda.cu), callable from C
 *****************************************************************************/

#ifndef CUDA_ME_KERNELS_H
#define CUDA_ME_KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "cuda_me.h"
#include "subpel_spec.h"
#include "subpel_jobs.h"
#include "lowres_spec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One frame-pair search.  Planes point at pixel (0,0) and have CME_PAD
 * replicated pixels on every side; pitch in bytes, a multiple of 16. */
typedef struct cme_launch_t
{
    const uint8_t *cur, *ref;
    const uint32_t *xref;           /* device, or NULL: ref's 4-byte plane (cme_cuda_xplane) at
                                     * pixel (0,0), word i_pitch * y + x = the 4 pixels of ref
                                     * from (x, y) on; the search copies its window from it */
    int i_pitch;
    int i_mb_width, i_mb_height;
    int i_range, i_mv_range;
    int i_mv_range_thread;          /* x264's frame-thread limit, 0: none (me_spec.h) */
    int i_parts;                    /* 9 or 41 */
    const uint16_t *mv_cost;        /* device, 4*range+1 entries, or NULL */
    const int16_t *centre;          /* device, [mb][2] window centres, or NULL: (0,0) */
    uint64_t *blk_keys;             /* device scratch, cme_cuda_scratch_size() bytes */
    cuda_me_result_t *out;          /* device, mb_count * i_out_stride (see there) */
    int i_out_stride;               /* results per macroblock in out, 0: i_parts; 2*i_parts
                                     * for two candidates (cuda_me_param_t.i_cands) */
    int i_variant;                  /* search kernel variant, -1: the default for i_range
                                     * (cme_cuda_variant_default); else a variant's number:
                                     * the library runs its own (the defaults), dev/ every one;
                                     * the paper kernels ignore it */
    int i_xrows;                    /* 0, or the rows of xref's whole allocation (CME_PAD above
                                     * pixel (0,0), CME_PAD columns left of it): then, on sm_90
                                     * and later, the variants with a fixed row stride up to 256
                                     * words copy their window from xref as one tensor copy
                                     * (TMA), at any range */
} cme_launch_t;

/* A plane's 4-byte plane: x[i] = bytes i..i+3 of alloc (little-endian; 0
 * past the end) for i < bytes, x of 4 * bytes.  For cme_launch_t.xref:
 * made from a padded plane's whole allocation, x + (ref - alloc) is its
 * pixel (0,0).  alloc 4-byte aligned, x 16-byte aligned, bytes a multiple
 * of 4. */
cudaError_t cme_cuda_xplane( const uint8_t *alloc, size_t bytes, uint32_t *x, cudaStream_t stream );

/* The widest range whose searches take their windows from the 4-byte plane
 * when the launch has one; wider windows load from ref itself.  H200,
 * 1080p, default variants, kernel time with it against without: +-8 -10%,
 * +-16 -3.4%, but +-32 +1.1%, +-64 +1.9%, +-128 +1.5% (their blocks
 * compute long enough to hide the old loads, and the 4-byte plane is 4
 * times the bytes from L2). */
#define CME_XPLANE_RANGE_MAX 16
/* From this compute capability on, the library makes the 4-byte plane at
 * every range and launches with its rows (cme_launch_t.i_xrows): the
 * windows of +-32's and +-64's default variants are then tensor copies. */
#define CME_XPLANE_TMA_MAJOR 9

/* Scratch bytes the library's launch with these dimensions needs (the
 * default variant of i_range, or of cme_cuda_geom_force()'s geometry);
 * 0: no geometry.  dev/'s variants may need more (cme_dev_scratch_size). */
size_t cme_cuda_scratch_size( int i_mb_width, int i_mb_height, int i_range, int i_mv_range,
                              int i_mv_range_thread, int i_parts );

/* Kernels 1+2 (fused) and 3.  Returns the launch error, if any
 * (cudaErrorInvalidValue: no such variant in the library, or no geometry). */
cudaError_t cme_cuda_search( const cme_launch_t *l, cudaStream_t stream );

/* Pass 2 of two candidates (cuda_me.h, i_cands; me_spec.h, cme_pass2_centre),
 * after cme_cuda_search( l ) on the same stream: pass2_kernel makes the
 * centres from pass 1's 16x16 vectors in l->out into centre2 (device,
 * [mb][2]), then the same search at range cme_pass2_range( l->i_range )
 * around them, with l's MV cost table re-centred (cme_pass2_cost), writes
 * l->out + i_parts (l->i_out_stride must be 2 * i_parts).  Needs the
 * scratch of a search at that range (cme_cuda_scratch_size). */
cudaError_t cme_cuda_search_pass2( const cme_launch_t *l, int16_t *centre2, cudaStream_t stream );

/* The search kernel variant the library runs at range i_range
 * (CUDA_ME_RANGE_MIN..CUDA_ME_RANGE_MAX), by number (me_cuda.cu: why each). */
int cme_cuda_variant_default( int i_range );

/* Thread blocks per macroblock of the library's search with l's geometry
 * (0: no such search).  With 1, search_kernel stores the results itself and
 * leaves blk_keys alone; otherwise it fills blk_keys[mb][block][partition]
 * and reduce_kernel makes the results. */
int cme_cuda_search_blocks( const cme_launch_t *l );

/* For the tests and the benchmark: every later search uses nt threads per
 * block and u runs per thread (nt a multiple of 32 up to 128, u >= 1)
 * instead of the host's choice; nt = 0 restores the choice.  A forced
 * geometry that the keys cannot hold fails the search
 * (cudaErrorInvalidValue) as any impossible geometry.  Not thread-safe: a
 * test's switch, not the library's. */
void cme_cuda_geom_force( int nt, int u );

/* Replicates the edges of a w x h plane CME_PAD pixels outwards. */
cudaError_t cme_cuda_pad( uint8_t *plane, int i_pitch, int w, int h, cudaStream_t stream );

/* Whether this device can run the search kernels (an image for its
 * architecture is present); sets up their shared-memory limits. */
cudaError_t cme_cuda_prepare( void );

/* ---- sub-pel refinement (subpel_cuda.cu)
 *
 * Used by the library when cuda_me_param_t.i_subme is set (cuda_me.h says
 * what is computed): every uploaded frame also gets its H, V, C planes
 * (cme_cuda_hpel_planes right after the pad, on the upload stream: 3 more
 * padded planes per frame, 1080p: 3 x 2.3 MB); after the integer search
 * (and pass 2) of a pair, on its stream, cme_cuda_subpel_jobs makes one
 * cme_subpel_job_t per (macroblock, candidate, partition) from the
 * search's results (subpel_jobs.h), then cme_cuda_refine_subpel refines
 * them; the results go to the host with the integer ones.  No host round
 * trip.  Not yet used by x264's glue.
 */

/* The half-pel planes (subpel_spec.h: H, V, C, each with its border of
 * CME_HPEL_PAD) of the w x h plane src (pixel (0,0), replicated border of at
 * least 11 pixels: the library's frames have CME_PAD), into dst[0..2]
 * (pixel (0,0), each with room for the border), one pitch for the three;
 * what cme_hpel_planes_c writes, byte for byte. */
cudaError_t cme_cuda_hpel_planes( const uint8_t *src, int i_src_pitch, int w, int h, uint8_t *const dst[3],
                                  int i_dst_pitch, cudaStream_t stream );

/* n partitions of one frame pair, refined as cme_refine_subpel_batch_c
 * (subpel_c.c) does.  Every pointer is device memory. */
typedef struct cme_subpel_launch_t
{
    const uint8_t *cur;             /* the current frame (fenc), pixel (0,0) */
    int i_cur_pitch;                /* bytes */
    const uint8_t *plane[4];        /* the reference's F, H, V, C at (0,0), CME_HPEL_PAD
                                     * (CME_PAD for F) pixels of border */
    int i_pitch;                    /* of the four planes, bytes */
    const uint16_t *cost_mv;        /* MV cost tables: job i's p_cost_mv is cost_mv + job[i].i_cost_mv */
    const cme_subpel_job_t *job;    /* n jobs (the kernel trusts them: vectors within the limits
                                     * and borders as x264's are, subpel_spec.h) */
    cme_subpel_result_t *out;       /* n results */
    const int *order;               /* NULL: job i's result is out[i]; else out[order[i]] */
    int n;
} cme_subpel_launch_t;

cudaError_t cme_cuda_refine_subpel( const cme_subpel_launch_t *l, cudaStream_t stream );

/* The sub-pel jobs of a searched pair, as cme_subpel_jobs_c (me_c.c) makes
 * them: job[(mb * i_cands + cand) * i_parts + part], from the search's
 * results (device, the same layout) and the windows' centres.  Every
 * pointer is device memory. */
typedef struct cme_subpel_jobs_launch_t
{
    const uint8_t *cur, *ref;       /* F planes at (0,0), CME_PAD border */
    int i_pitch;                    /* of both, bytes */
    int i_mb_width, i_mb_height;
    int i_range, i_mv_range;
    int i_mv_range_thread;          /* the job's frame-thread limit, 0: none */
    int i_parts, i_cands;
    int i_sub_first, i_sub_parts;   /* jobs for i_sub_parts partitions from i_sub_first (at most i_parts) */
    const int16_t *centre;          /* pass 1's centres [mb][2], or NULL: (0,0) */
    const int16_t *centre2;         /* i_cands 2: pass 2's (cme_cuda_search_pass2's centre2) */
    const cuda_me_result_t *res;    /* [mb][i_cands][i_parts] */
    const uint16_t *cost_mv;        /* the cost tables (the refinement's cost_mv) */
    int i_cost_mv;                  /* the centre of this pair's table in cost_mv */
    int i_subme, b_fpel_satd;
    /* out: the jobs grouped by partition size, [size][mb][cand][k] (the k-th
     * partition of that size among those refined), so that a warp of
     * refine_kernel refines one size; order[i] is job i's place in the
     * results' [mb][i_cands][i_sub_parts] */
    cme_subpel_job_t *job;
    int *order;
} cme_subpel_jobs_launch_t;

cudaError_t cme_cuda_subpel_jobs( const cme_subpel_jobs_launch_t *l, cudaStream_t stream );

/* The lookahead's search of i_pairs pairs of one p (lowres_spec.h), a warp
 * per block row: every pointer device memory (p.p_cost_mv too, the centre
 * of its table); fenc and ref[0..3] at pixel (0,0), the planes with
 * CME_LOWRES_PAD of border, all with stride i_stride; mvs and costs x264's
 * arrays' copies (entries outside the searched area read, not written);
 * sync: the rows' counters, cme_cuda_lowres_sync_bytes (cleared by the
 * launch). */
#define CME_LOWRES_BATCH 32
typedef struct cme_lowres_pair_t
{
    const uint8_t *fenc;
    const uint8_t *ref[4];
    int16_t (*mvs)[2];
    int *costs;
} cme_lowres_pair_t;

typedef struct cme_lowres_launch_t
{
    cme_lowres_param_t p;
    intptr_t i_stride;
    int i_pairs;            /* 1..CME_LOWRES_BATCH */
    int *sync;
    cme_lowres_pair_t pair[CME_LOWRES_BATCH];
} cme_lowres_launch_t;

size_t cme_cuda_lowres_sync_bytes( const cme_lowres_param_t *p, int i_pairs );
cudaError_t cme_cuda_lowres( const cme_lowres_launch_t *l, cudaStream_t stream );

#ifdef __cplusplus
}
#endif

#endif
