/*****************************************************************************
 * lowres_cuda.cu: the lookahead's lowres search on the GPU (issue 12)
 *****************************************************************************
 * The CUDA side of lowres_spec.h, bit for bit what lowres_c.c computes:
 * the same cme_lowres_block() (__host__ __device__), run by a warp per
 * 8x8 block (cme_lowres_cmp spreads each SAD and SATD over the lanes).
 *
 * x264 searches the blocks of a slice in reverse raster order, and a
 * block's predictor comes from the blocks right (x+1, y), below (x, y+1),
 * below-left and below-right: all of them come earlier in the wavefront
 * t = (x1 - x) + 2 * (y1 - y), and no block of one diagonal needs another
 * of it.  So one thread block (LOWRES_WARPS warps) walks the diagonals of
 * every slice at once, each warp taking blocks of the current diagonal in
 * turn, __syncthreads() between diagonals (the vectors go through global
 * memory, visible to the block after the barrier).  1080p: 120 x 68
 * blocks, 255 diagonals of at most 60 blocks.  Tested against C in
 * tests/checkasm_me.c (needs a GPU).
 *****************************************************************************/

#include <cuda_runtime.h>

#include "kernels.h"
#include "lowres_spec.h"

#define LOWRES_WARPS 32

__global__ void __launch_bounds__( LOWRES_WARPS * 32 ) lowres_kernel( cme_lowres_launch_t l )
{
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const uint8_t *const ref[4] = { l.ref[0], l.ref[1], l.ref[2], l.ref[3] };
    int steps = 0;
    for( int s = 0; s < l.p.i_slices; s++ )
    {
        const cme_lowres_span_t sp = cme_lowres_span( &l.p, s );
        if( sp.x1 >= sp.x0 && sp.y1 >= sp.y0 )
            steps = max( steps, sp.x1 - sp.x0 + 2 * (sp.y1 - sp.y0) + 1 );
    }
    for( int t = 0; t < steps; t++ )
    {
        int i = 0;
        for( int s = 0; s < l.p.i_slices; s++ )
        {
            const cme_lowres_span_t sp = cme_lowres_span( &l.p, s );
            const int k0 = max( 0, (t - (sp.x1 - sp.x0) + 1) >> 1 ), k1 = min( t >> 1, sp.y1 - sp.y0 );
            for( int k = k0; k <= k1; k++, i++ )
            {
                if( i % LOWRES_WARPS != warp )
                    continue;
                const int x = sp.x1 - (t - 2 * k), y = sp.y1 - k;
                int16_t mv[2];
                int cost;
                cme_lowres_block( &l.p, l.fenc, l.i_fenc_stride, ref, l.i_stride, (const int16_t (*)[2])l.mvs,
                                  x, y, sp.y_end, mv, &cost );
                if( !lane )
                {
                    const int j = y * l.p.i_mb_width + x;
                    l.mvs[j][0] = mv[0];
                    l.mvs[j][1] = mv[1];
                    l.costs[j] = cost;
                }
            }
        }
        __syncthreads();
    }
}

extern "C" cudaError_t cme_cuda_lowres( const cme_lowres_launch_t *l, cudaStream_t stream )
{
    if( !l || !l->fenc || !l->ref[0] || !l->ref[1] || !l->ref[2] || !l->ref[3] || !l->mvs || !l->costs ||
        !l->p.p_cost_mv || l->p.i_slices < 1 )
        return cudaErrorInvalidValue;
    lowres_kernel<<<1, LOWRES_WARPS * 32, 0, stream>>>( *l );
    return cudaGetLastError();
}
