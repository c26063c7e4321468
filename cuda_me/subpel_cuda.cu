/*****************************************************************************
 * subpel_cuda.cu: sub-pel refinement's kernels (issue 12, step 2)
 *****************************************************************************
 * The CUDA side of subpel_spec.h, bit for bit what subpel_c.c computes:
 * both call the specification's CME_SPEC functions (__host__ __device__
 * under nvcc), so the formulas, the candidate order and the tie rules exist
 * once.  Tested against C in tests/checkasm_me.c (needs a GPU), timed by
 * bench_me -S.  Not yet used by the library's API (kernels.h sketches it).
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
 *   diverge: callers should group jobs by partition size.  A warp per
 *   partition (lanes = pixels, shuffles for the Hadamards) is the obvious
 *   next version, to be measured against this one.
 *
 * Launchers (kernels.h) take a stream, never synchronise, and return the
 * launch error.
 *****************************************************************************/

#include <stdint.h>

#include "subpel_spec.h"
#include "kernels.h"

#define HPEL_BX 32
#define HPEL_BY 8
#define REFINE_THREADS 128
#define REFINE_MINB      4   /* blocks per SM: <= 128 registers a thread; ptxas then
                              * keeps everything in registers (110 on sm_90; fewer
                              * bounds gave it 96 and spills) */

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
    a.out[i] = r;
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
