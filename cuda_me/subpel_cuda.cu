/*****************************************************************************
 * subpel_cuda.cu: sub-pel refinement's kernels
 *****************************************************************************
 * The CUDA side of subpel_spec.h, bit for bit what subpel_c.c computes:
 * both call the specification's CME_SPEC functions (__host__ __device__
 * under nvcc), so the formulas, the candidate order and the tie rules exist
 * once.  Tested against C in tests/checkasm_me.c (needs a GPU), timed by
 * bench_me -S.  Used by the library with cuda_me_param_t.i_subme (cuda.c),
 * which x264's glue sets with --gpu-me-subpel (patches/0020).
 *
 * hpel_kernel: the half-pel planes H, V, C of a padded luma plane.
 *   One thread per output pixel (x, y) of [-CME_HPEL_PAD, w+CME_HPEL_PAD) x
 *   [-CME_HPEL_PAD, h+CME_HPEL_PAD), writing its H, V and C bytes:
 *   cme_hpel_sample() of each, straight from the source plane (6, 6 and 36
 *   reads through the read-only cache; the six vertical sums shared by V and
 *   C are one computation for the compiler).  Block HPEL_BX x HPEL_BY, a warp
 *   per 32 pixels of a row.  No shared-memory tiling yet: correctness
 *   first, bench_me -S measures it.
 *
 * refine_kernel: the refinement of a batch of partitions (cme_subpel_job_t).
 *   One thread per partition, REFINE_THREADS per block: cme_refine_subpel_job()
 *   as is (half-pel diamond, SATD re-score, quarter-pel diamond; every
 *   candidate's pixels from cme_qpel_sample, 4x4 Hadamards in registers).
 *   Threads of a warp that refine different sizes or iterate differently
 *   diverge, so the library's jobs come grouped by partition size (x264,
 *   slow 1080p, --gpu-me-subpel 10: 2.69 against 3.67 ms per pair mixed).
 *   A warp per
 *   partition (lanes = pixels, shuffles for the Hadamards) is the obvious
 *   next version, to be measured against this one.
 *
 * jobs_kernel: the refinement's jobs of a searched pair (subpel_jobs.h).
 *   One thread per (macroblock, candidate, partition refined),
 *   SUBPEL_JOBS_THREADS per block: the candidate's window centre (pass 1:
 *   the job's centre; pass 2: pass2_kernel's), clipped by cme_get_window,
 *   then cme_subpel_make_job (one fpel compare of the partition at its
 *   integer vector).  Jobs come out grouped by partition size (a warp of
 *   refine_kernel then refines one size); order[] maps each back to the
 *   results' [mb][cand][part].
 *
 * Launchers (kernels.h) take a stream, never synchronise, and return the
 * launch error.
 *****************************************************************************/

#include <stdint.h>

#include "subpel_spec.h"
#include "kernels.h"
#include "subpel_jobs.h"

#define HPEL_BX 32
#define HPEL_BY 8
#define REFINE_THREADS 128
#define REFINE_MINB      4   /* blocks per SM: <= 128 registers a thread; ptxas then
                              * keeps everything in registers (110 on sm_90; fewer
                              * bounds gave it 96 and spills) */

#define SUBPEL_JOBS_THREADS 128

#define DIV_UP( a, b ) (((a) + (b) - 1) / (b))

/* src: pixel (0,0), replicated border >= 11 (reads: 6 left, 7 right, 10
 * up, 11 down of the frame, subpel_spec.h).  dst_*: pixel (0,0), room for
 * CME_HPEL_PAD around. */
__global__ void __launch_bounds__( HPEL_BX * HPEL_BY )
hpel_kernel( const uint8_t *__restrict__ src, const int src_pitch, const int w, const int h,
             uint8_t *__restrict__ dst_h, uint8_t *__restrict__ dst_v, uint8_t *__restrict__ dst_c, const int pitch )
{
    const int x = blockIdx.x * HPEL_BX + threadIdx.x - CME_HPEL_PAD;
    const int y = blockIdx.y * HPEL_BY + threadIdx.y - CME_HPEL_PAD;
    if( x >= w + CME_HPEL_PAD || y >= h + CME_HPEL_PAD )
        return;
    const intptr_t o = (intptr_t)y * pitch + x;
    dst_h[o] = cme_hpel_sample( src, src_pitch, w, h, 1, x, y );
    dst_v[o] = cme_hpel_sample( src, src_pitch, w, h, 2, x, y );
    dst_c[o] = cme_hpel_sample( src, src_pitch, w, h, 3, x, y );
}

__global__ void __launch_bounds__( REFINE_THREADS, REFINE_MINB )
refine_kernel( const cme_subpel_launch_t a )
{
    const int i = blockIdx.x * REFINE_THREADS + threadIdx.x;
    if( i >= a.n )
        return;
    const cme_subpel_job_t j = a.job[i];
    const uint8_t *const plane[4] = { a.plane[0], a.plane[1], a.plane[2], a.plane[3] };
    cme_subpel_result_t r;
    cme_refine_subpel_job( a.cur, a.i_cur_pitch, plane, a.i_pitch, a.cost_mv, &j, &r );
    a.out[a.order ? a.order[i] : i] = r;
}

/* The sizes of cuda_me.h's partitions, in order: 16x16 (p 0), 16x8 (1-2),
 * 8x16 (3-4), 8x8 (5-8), 8x4 (9-16), 4x8 (17-24), 4x4 (25-40); size s
 * begins at partition size_first[s]. */
__constant__ int size_first[8] = { 0, 1, 3, 5, 9, 17, 25, 41 };

__global__ void __launch_bounds__( SUBPEL_JOBS_THREADS )
jobs_kernel( const cme_subpel_jobs_launch_t a )
{
    const int i = blockIdx.x * SUBPEL_JOBS_THREADS + threadIdx.x;
    const int mbc = a.i_mb_width * a.i_mb_height * a.i_cands;
    if( i >= mbc * a.i_sub_parts )
        return;
    /* size s holds mbc * (its partitions among those refined, from lo)
     * jobs, [mb][cand][k] */
    const int end = a.i_sub_first + a.i_sub_parts;
    int s = 0, base = 0, cnt, lo;
    for( ;; s++ )
    {
        lo = cme_imax( size_first[s], a.i_sub_first );
        cnt = cme_imax( cme_imin( size_first[s+1], end ) - lo, 0 );
        if( i < base + mbc * cnt )
            break;
        base += mbc * cnt;
    }
    const int j = i - base, t = j / cnt;   /* t: mb * i_cands + cand */
    const int p = lo + j - t * cnt, mb = t / a.i_cands, cand = t - mb * a.i_cands;
    a.order[i] = t * a.i_sub_parts + p - a.i_sub_first;
    const int mb_y = mb / a.i_mb_width, mb_x = mb - mb_y * a.i_mb_width;
    const int16_t *c = cand ? a.centre2 : a.centre;
    const cme_window_t w = cme_get_window( mb_x, mb_y, a.i_mb_width, a.i_mb_height,
                                           cand ? cme_pass2_range( a.i_range ) : a.i_range, a.i_mv_range,
                                           a.i_mv_range_thread, c ? c[2*mb] : 0, c ? c[2*mb+1] : 0 );
    const cuda_me_result_t r = a.res[t * a.i_parts + p];
    a.job[i] = cme_subpel_make_job( a.cur, a.i_pitch, a.ref, a.i_pitch, mb_x, mb_y, a.i_mb_width, a.i_mb_height,
                                    a.i_mv_range, a.i_mv_range_thread, p, r.mv[0], r.mv[1], w.cx, w.cy, a.cost_mv,
                                    a.i_cost_mv, a.i_subme, a.b_fpel_satd );
}

/* ---------------------------------------------------------------- host */

extern "C" cudaError_t cme_cuda_hpel_planes( const uint8_t *src, int i_src_pitch, int w, int h, uint8_t *const dst[3],
                                             int i_dst_pitch, cudaStream_t stream )
{
    if( !src || !dst || !dst[0] || !dst[1] || !dst[2] || w <= 0 || h <= 0 ||
        i_dst_pitch < w + 2*CME_HPEL_PAD || i_src_pitch < w )
        return cudaErrorInvalidValue;
    const dim3 block( HPEL_BX, HPEL_BY );
    const dim3 grid( DIV_UP( w + 2*CME_HPEL_PAD, HPEL_BX ), DIV_UP( h + 2*CME_HPEL_PAD, HPEL_BY ) );
    hpel_kernel<<<grid, block, 0, stream>>>( src, i_src_pitch, w, h, dst[0], dst[1], dst[2], i_dst_pitch );
    return cudaGetLastError();
}

extern "C" cudaError_t cme_cuda_refine_subpel( const cme_subpel_launch_t *l, cudaStream_t stream )
{
    if( !l || l->n < 0 )
        return cudaErrorInvalidValue;
    if( !l->n )
        return cudaSuccess;
    if( !l->cur || !l->plane[0] || !l->plane[1] || !l->plane[2] || !l->plane[3] || !l->cost_mv || !l->job || !l->out )
        return cudaErrorInvalidValue;
    refine_kernel<<<DIV_UP( l->n, REFINE_THREADS ), REFINE_THREADS, 0, stream>>>( *l );
    return cudaGetLastError();
}

extern "C" cudaError_t cme_cuda_subpel_jobs( const cme_subpel_jobs_launch_t *l, cudaStream_t stream )
{
    if( !l || l->i_mb_width <= 0 || l->i_mb_height <= 0 || l->i_parts <= 0 || l->i_cands < 1 || l->i_cands > 2 ||
        l->i_sub_first < 0 || l->i_sub_parts < 1 || l->i_sub_first + l->i_sub_parts > l->i_parts ||
        !l->cur || !l->ref || !l->res || !l->cost_mv || !l->job || !l->order || (l->i_cands == 2 && !l->centre2) )
        return cudaErrorInvalidValue;
    const int n = l->i_mb_width * l->i_mb_height * l->i_cands * l->i_sub_parts;
    jobs_kernel<<<DIV_UP( n, SUBPEL_JOBS_THREADS ), SUBPEL_JOBS_THREADS, 0, stream>>>( *l );
    return cudaGetLastError();
}
