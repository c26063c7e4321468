/*****************************************************************************
 * lowres_cuda.cu: the lookahead's lowres search on the GPU
 *****************************************************************************
 * The CUDA side of lowres_spec.h, bit for bit what lowres_c.c computes:
 * the same cme_lowres_neighbours() and cme_lowres_block()
 * (__host__ __device__), a warp per block (cme_lowres_costs spreads the
 * SADs and SATDs over the lanes, two vectors at a time).
 *
 * x264 searches the blocks of a slice in reverse raster order, and a
 * block's predictor comes from the blocks right (x+1, y), below (x, y+1),
 * below-left and below-right.  So a warp takes one block row and walks it
 * from the right, and before block x it waits until the row below (if this
 * launch searches it) is done down to x-1: a row runs two blocks behind
 * the one below it, and the rows of all slices run at once, on as many SMs
 * as there are rows / LOWRES_WARPS.  The rows wait on each other through a
 * counter per row in global memory (release after the row's vector is
 * written, acquire before the neighbours are read; the vectors are read
 * past L1).  A thread block takes its rows by a ticket (atomicAdd), in the
 * order bottom row of every slice (and of every pair of the launch) first:
 * a row only waits on a row of an earlier ticket, whose thread block is
 * running or done, so the wait always ends, however many blocks the GPU
 * holds at once.  1080p: 68 rows of 120 blocks (one slice: 2 * 68 + 120
 * block times end to end), as many pairs as lowres_prefetch gives at once.
 * Tested against C in tests/checkasm_me.c (needs a GPU).
 *****************************************************************************/

#include <cuda_runtime.h>

#include "kernels.h"
#include "lowres_spec.h"

#define LOWRES_WARPS 4

static __device__ __forceinline__ int ld_acquire( const int *p )
{
    int v;
    asm volatile( "ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory" );
    return v;
}

static __device__ __forceinline__ void st_release( int *p, int v )
{
    asm volatile( "st.release.gpu.global.b32 [%0], %1;" :: "l"(p), "r"(v) : "memory" );
}

/* Rows a launch searches per slice, at most (the workers per slice). */
static __host__ __device__ int lowres_rows( const cme_lowres_param_t *p )
{
    int rows = 0;
    for( int s = 0; s < p->i_slices; s++ )
    {
        const cme_lowres_span_t sp = cme_lowres_span( p, s );
        if( sp.x1 >= sp.x0 && sp.y1 - sp.y0 + 1 > rows )
            rows = sp.y1 - sp.y0 + 1;
    }
    return rows;
}

__global__ void __launch_bounds__( LOWRES_WARPS * 32 ) lowres_kernel( cme_lowres_launch_t l )
{
    __shared__ int ticket;
    if( !threadIdx.x )
        ticket = atomicAdd( l.sync, 1 );
    __syncthreads();
    /* worker w: pair w % i_pairs, its row k of slice s (the k-th from the
     * bottom) from w / i_pairs */
    const int lane = threadIdx.x & 31, worker = ticket * LOWRES_WARPS + (threadIdx.x >> 5);
    const int pair = worker % l.i_pairs, local = worker / l.i_pairs;
    const int s = local % l.p.i_slices;
    const cme_lowres_span_t sp = cme_lowres_span( &l.p, s );
    const int y = sp.y1 - local / l.p.i_slices;
    if( sp.x1 < sp.x0 || y < sp.y0 )
        return;
    const cme_lowres_pair_t *pp = &l.pair[pair];
    int *const done = l.sync + 1 + pair * l.p.i_mb_height;   /* blocks done per row, from the right */
    const int row_n = sp.x1 - sp.x0 + 1;
    int have = y < sp.y1 ? 0 : row_n;
    const uint8_t *const ref[4] = { pp->ref[0], pp->ref[1], pp->ref[2], pp->ref[3] };
    const uint8_t *const fenc = pp->fenc;
    int16_t (*const mvs)[2] = pp->mvs;
    int *const costs = pp->costs;
    for( int x = sp.x1, i = 1; x >= sp.x0; x--, i++ )
    {
        /* the row below done down to x-1 (or all of it) */
        const int need = i + 1 < row_n ? i + 1 : row_n;
        while( have < need )
            have = ld_acquire( done + y + 1 );
        int mvc[4][2];
        const int n = cme_lowres_neighbours( &l.p, (const int16_t (*)[2])mvs, x, y, sp.y_end, mvc );
        int16_t mv[2];
        int cost;
        cme_lowres_block( &l.p, fenc, l.i_stride, ref, l.i_stride, (const int (*)[2])mvc, n, x, y, mv, &cost );
        if( !lane )
        {
            const int j = y * l.p.i_mb_width + x;
            mvs[j][0] = mv[0];
            mvs[j][1] = mv[1];
            costs[j] = cost;
            st_release( done + y, i );
        }
        __syncwarp();
    }
}

extern "C" size_t cme_cuda_lowres_sync_bytes( const cme_lowres_param_t *p, int i_pairs )
{
    return (1 + (size_t)i_pairs * p->i_mb_height) * sizeof(int);
}

extern "C" cudaError_t cme_cuda_lowres( const cme_lowres_launch_t *l, cudaStream_t stream )
{
    if( !l || !l->sync || !l->p.p_cost_mv || l->p.i_slices < 1 || l->i_pairs < 1 || l->i_pairs > CME_LOWRES_BATCH )
        return cudaErrorInvalidValue;
    for( int k = 0; k < l->i_pairs; k++ )
        if( !l->pair[k].fenc || !l->pair[k].ref[0] || !l->pair[k].ref[1] || !l->pair[k].ref[2] || !l->pair[k].ref[3] ||
            !l->pair[k].mvs || !l->pair[k].costs )
            return cudaErrorInvalidValue;
    const int workers = lowres_rows( &l->p ) * l->p.i_slices * l->i_pairs;
    if( !workers )
        return cudaSuccess;
    cudaError_t err = cudaMemsetAsync( l->sync, 0, cme_cuda_lowres_sync_bytes( &l->p, l->i_pairs ), stream );
    if( err != cudaSuccess )
        return err;
    lowres_kernel<<<(workers + LOWRES_WARPS - 1) / LOWRES_WARPS, LOWRES_WARPS * 32, 0, stream>>>( *l );
    return cudaGetLastError();
}
