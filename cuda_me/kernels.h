/*****************************************************************************
 * kernels.h: launchers of the CUDA kernels (me_cuda.cu), callable from C
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
    int i_variant;                  /* mainline kernel variant, -1: the default for i_range
                                     * (cme_cuda_variant_default); the paper kernels ignore it */
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
 * +-16 -3.4% (validation24, call 4), but +-32 +1.1%, +-64 +1.9%, +-128
 * +1.5% (call 3: their blocks compute long enough to hide the old loads,
 * and the 4-byte plane is 4 times the bytes from L2). */
#define CME_XPLANE_RANGE_MAX 16
/* From this compute capability on, the library makes the 4-byte plane at
 * every range and launches with its rows (cme_launch_t.i_xrows): the
 * windows of +-32's and +-64's default variants are then tensor copies. */
#define CME_XPLANE_TMA_MAJOR 9

/* Scratch bytes one launch with these dimensions needs. */
size_t cme_cuda_scratch_size( int i_mb_width, int i_mb_height, int i_range, int i_mv_range,
                              int i_mv_range_thread, int i_parts );

/* Kernels 1+2 (fused) and 3.  Returns the launch error, if any.  marks
 * (may be NULL): marks[0] is recorded between the two kernels (benchmark). */
cudaError_t cme_cuda_search( const cme_launch_t *l, cudaStream_t stream );
cudaError_t cme_cuda_search_marked( const cme_launch_t *l, cudaStream_t stream, cudaEvent_t *marks );

/* Pass 2 of two candidates (cuda_me.h, i_cands; me_spec.h, cme_pass2_centre),
 * after cme_cuda_search( l ) on the same stream: pass2_kernel makes the
 * centres from pass 1's 16x16 vectors in l->out into centre2 (device,
 * [mb][2]), then the same search at range cme_pass2_range( l->i_range )
 * around them, with l's MV cost table re-centred (cme_pass2_cost), writes
 * l->out + i_parts (l->i_out_stride must be 2 * i_parts).  Needs the
 * scratch of a search at that range (cme_cuda_scratch_size). */
cudaError_t cme_cuda_search_pass2( const cme_launch_t *l, int16_t *centre2, cudaStream_t stream );

/* Kernel variants of the mainline search (all give the same results):
 * the one used for a range when cme_launch_t.i_variant is -1; and, for the
 * tests and the benchmark, whether variant v exists: returns v, or -1 if it
 * does not (v < 0 or past the last); *k and *minb (if not NULL) get its
 * positions per run and register budget. */
int cme_cuda_variant_default( int i_range );
int cme_cuda_variant_info( int v, int *k, int *minb );
/* Its name, e.g. "K6/4" or "fma-K8/3" (key path, K, blocks), or NULL. */
const char *cme_cuda_variant_name( int v );

/* Thread blocks per macroblock of a search with l's geometry and variant
 * (0: no such search).  With 1, search_kernel stores the results itself and
 * leaves blk_keys alone; otherwise it fills blk_keys[mb][block][partition]
 * and reduce_kernel makes the results. */
int cme_cuda_search_blocks( const cme_launch_t *l );
/* The same, and the blocks' threads and runs per thread (benchmark). */
int cme_cuda_search_geometry( const cme_launch_t *l, int *threads, int *runs_per_thread );

/* For the benchmark (issue 13's geometry sweep): every later search uses
 * nt threads per block and u runs per thread (nt a multiple of 32 up to
 * 128, u >= 1) instead of the host's choice; nt = 0 restores the choice.
 * A forced geometry that the keys cannot hold fails the search
 * (cudaErrorInvalidValue) as any impossible geometry.  Not thread-safe: the
 * benchmark's switch, not the library's. */
void cme_cuda_geom_force( int nt, int u );

/* For the benchmark: every later search_kernel block (not the stream-K
 * ones) stamps CME_TRACE_WORDS words at buf + CME_TRACE_WORDS * (its
 * blockIdx.y * gridDim.x + blockIdx.x): the global timer (ns) and its
 * SM's clock64() at its start, the same at its end (after a barrier), and
 * its SM; buf NULL: no stamps (the default).  Only in builds with
 * -DCME_TRACE=1 (./configure --extra-nvccflags=...; otherwise
 * cudaErrorNotSupported for any buf but NULL).  Not thread-safe. */
#define CME_TRACE_WORDS 5
cudaError_t cme_cuda_trace( uint64_t *buf );

/* Stream-K launches (the SK variants, me_cuda.cu's search_geom_t): the
 * blocks of l's launch, 0 where it is not one (a variant without SK, a
 * macroblock in more than one block, fewer than 2 macroblocks), and in
 * *keys (if not NULL) the scratch keys it may write (its split
 * macroblocks' keys and flags; the rest of blk_keys stays untouched).
 * cme_cuda_sk_force( n ): every later SK launch has n blocks (at most the
 * macroblocks) instead of as many as the device holds at once; 0: no SK
 * launches; -1: the default.  For the tests and the benchmark, not
 * thread-safe. */
int cme_cuda_search_sk( const cme_launch_t *l, size_t *keys );
void cme_cuda_sk_force( int n );

/* For the benchmark: the search kernels' preferred shared-memory carveout,
 * pct percent of the largest (cudaFuncAttributePreferredSharedMemoryCarveout;
 * -1: the driver's choice, as the library leaves it). */
cudaError_t cme_cuda_carveout( int pct );

/* Host-side check of the KEYS_FMA and KEYS_CHAIN merges (no GPU needed): random and extreme
 * 4x4 SADs and MV costs through the kernels' key formation, against
 * cme_merge() (me_spec.h).  Returns the number of wrong or missing keys. */
int cme_cuda_selftest_keys( uint32_t seed );

/* Host-side check of the KEYS_PAIR runs (no GPU needed): for every window
 * width 8..2*CUDA_ME_RANGE_MAX+1, the column pairs cover each column, both
 * columns of a pair lie in the window, and a block's rows (every block of
 * every run count up to 1536 runs) stay under raster_fits()'s bound.
 * Returns the number of violations. */
int cme_cuda_selftest_pairs( void );

/* Host-side check of the one-row runs of HROW() variants (no GPU needed):
 * for every window from 9 x 9 to 257 x 257, the runs as the kernel maps
 * them (run_pos()) cover every position and none outside the window, and
 * no warp holds runs of both kinds.  Returns the number of violations. */
int cme_cuda_selftest_hrow( void );

/* Host-side check of the search geometries (no GPU needed): for frame sizes
 * from 1x1 to 2160p macroblocks, MV limits, every range and variant and the
 * default, the variant a launch runs (a fixed-stride one, or its fallback)
 * has a geometry within the shared-memory limit, and every block's window
 * rows and key tables, computed as the kernel does, fit in it.  Returns the
 * number of violations. */
int cme_cuda_selftest_geom( void );

/* Replicates the edges of a w x h plane CME_PAD pixels outwards. */
cudaError_t cme_cuda_pad( uint8_t *plane, int i_pitch, int w, int h, cudaStream_t stream );

/* Whether this device can run the kernels (an image for its architecture
 * is present); sets up their shared-memory limits. */
cudaError_t cme_cuda_prepare( void );

/* The paper's three unfused kernels (dev/me_cuda_paper.cu), for the
 * benchmark and the tests only; needs cme_cuda_paper_scratch_size() bytes
 * of scratch in l->blk_keys. */
size_t cme_cuda_paper_scratch_size( int i_mb_width, int i_mb_height, int i_range, int i_mv_range,
                                    int i_mv_range_thread, int i_parts );
cudaError_t cme_cuda_search_paper( const cme_launch_t *l, cudaStream_t stream, cudaEvent_t *marks );

/* Benchmark only: a register-only loop of vabsdiff4 over n_blocks x 256
 * threads; *absdiffs gets the number of pixel absolute differences done. */
cudaError_t cme_cuda_peak_absdiff( int n_blocks, cudaStream_t stream, uint32_t *d_sink, double *absdiffs );

/* ---- sub-pel refinement (subpel_cuda.cu; issue 12)
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
