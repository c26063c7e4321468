/*****************************************************************************
 * me_cuda_paper.cu: the paper's three kernels, unfused (dev version)
 *****************************************************************************
 * The paper: 章剑 (Zhang Jian), 仰枫帆 (Yang Fengfan),
 *   "一种基于异构系统的H.264/AVC运动估计算法" (an H.264/AVC motion
 *   estimation algorithm on a heterogeneous system), 电子科技 (Electronic
 *   Science and Technology), 2012.
 *
 * Kept apart from the mainline kernel (../me_cuda.cu) as the reference point
 * of its fusions: the benchmark times both, the tests check both against the
 * C reference.  Not linked into libcuda_me.a.
 *
 * paper_sad_kernel:   grid (macroblocks, chunks of 128 positions), 128
 *   threads; thread = one position of the window in raster order.  The block
 *   loads the macroblock and the window rows its 128 positions need into
 *   shared memory, each thread computes the 16 4x4 SADs of its position and
 *   writes them to global memory (uint16).
 * paper_merge_kernel: same grid; thread = position: reads its 16 SADs, merges
 *   them into the partitions, adds the MV cost, and the block reduces 128
 *   keys to 1 per partition with the classic tree: at each step the first N
 *   threads compare with the thread N away.
 * reduce_kernel (../reduce.cuh): across the chunks of a macroblock.
 *****************************************************************************/

#include <stdint.h>

#include "me_spec.h"
#include "kernels.h"
#include "me_cuda_dev.h"
#include "reduce.cuh"
#include "window.cuh"

#define PT 128   /* positions (threads) per block */

typedef struct paper_geom_t
{
    int max_pos;     /* positions of the largest window */
    int nb;          /* chunks per macroblock */
    size_t smem;     /* kernel 1 window bytes */
} paper_geom_t;

static __global__ void __launch_bounds__( PT )
paper_sad_kernel( const cme_launch_t a, const paper_geom_t g, uint16_t *__restrict__ sads )
{
    extern __shared__ uint8_t s_win[];
    __shared__ uint8_t s_cur[16*16];
    const int t = threadIdx.x, mb = blockIdx.x;
    int mb_x, mb_y;
    const cme_window_t w = cme_launch_window( a, mb, &mb_x, &mb_y );
    const int wx = w.x_max - w.x_min + 1, wy = w.y_max - w.y_min + 1;
    const int p0 = blockIdx.y * PT;
    if( p0 >= wx * wy )
        return;
    const int p1 = cme_imin( p0 + PT, wx * wy );
    const int row0 = p0 / wx, rows = (p1 - 1) / wx - row0 + 16, cols = wx + 15;

    for( int i = t; i < 256; i += PT )
        s_cur[i] = a.cur[(16*mb_y + (i >> 4)) * a.i_pitch + 16*mb_x + (i & 15)];
    const uint8_t *src = a.ref + (16*mb_y + w.y_min + row0) * a.i_pitch + 16*mb_x + w.x_min;
    for( int i = t; i < rows * cols; i += PT )
        s_win[i] = src[(i / cols) * a.i_pitch + i % cols];
    __syncthreads();

    const int p = p0 + t;
    if( p >= p1 )
        return;
    const int dy = p / wx, dx = p - dy * wx;
    uint16_t *out = sads + ((size_t)mb * g.max_pos + p) * 16;
    for( int k = 0; k < 16; k++ )
    {
        const int bx = cme_blk4_x( k ), by = cme_blk4_y( k );
        uint32_t s = 0;
        for( int y = 0; y < 4; y++ )
            for( int x = 0; x < 4; x++ )
                s += abs( (int)s_cur[(by + y) * 16 + bx + x] - (int)s_win[(dy - row0 + by + y) * cols + dx + bx + x] );
        out[k] = (uint16_t)s;
    }
}

template<int NP>
static __global__ void __launch_bounds__( PT )
paper_merge_kernel( const cme_launch_t a, const paper_geom_t g, const uint16_t *__restrict__ sads )
{
    __shared__ uint64_t s_key[NP][PT];
    const int t = threadIdx.x, mb = blockIdx.x;
    const cme_window_t w = cme_launch_window( a, mb, NULL, NULL );
    const int wx = w.x_max - w.x_min + 1, wy = w.y_max - w.y_min + 1;
    const int p = blockIdx.y * PT + t;
    uint64_t *bk = a.blk_keys + ((size_t)mb * g.nb + blockIdx.y) * NP;

    if( p < wx * wy )
    {
        const int dy = p / wx, dx = p - dy * wx;
        const uint16_t *in = sads + ((size_t)mb * g.max_pos + p) * 16;
        uint32_t s[16], cost[CUDA_ME_NPART];
        for( int k = 0; k < 16; k++ )
            s[k] = in[k];
        const uint32_t mvc = cme_mv_cost( a.mv_cost, a.i_range, &w, w.x_min + dx, w.y_min + dy );
        cme_merge( s, mvc, cost );
        for( int q = 0; q < NP; q++ )
            s_key[q][t] = cme_key( cost[q], p );
    }
    else
        for( int q = 0; q < NP; q++ )
            s_key[q][t] = CME_KEY_NONE;
    __syncthreads();
    for( int n = PT / 2; n > 0; n >>= 1 )
    {
        if( t < n )
            for( int q = 0; q < NP; q++ )
                s_key[q][t] = min( s_key[q][t], s_key[q][t + n] );
        __syncthreads();
    }
    for( int q = t; q < NP; q += PT )
        bk[q] = s_key[q][0];
}

static paper_geom_t paper_geom( int mb_w, int mb_h, int range, int mv_range, int mv_range_thread )
{
    paper_geom_t g = { 0, 0, 0 };
    for( int x = 0; x < mb_w; x++ )
        for( int y = 0; y < mb_h; y++ )
        {
            /* same size for any centre */
            cme_window_t w = cme_get_window( x, y, mb_w, mb_h, range, mv_range, mv_range_thread, 0, 0 );
            int wx = w.x_max - w.x_min + 1, wy = w.y_max - w.y_min + 1;
            g.max_pos = cme_imax( g.max_pos, wx * wy );
            size_t smem = (size_t)((PT - 1) / wx + 2 + 16) * (wx + 15);
            g.smem = smem > g.smem ? smem : g.smem;
        }
    g.nb = (g.max_pos + PT - 1) / PT;
    return g;
}

static size_t keys_bytes( const paper_geom_t *g, int mb_count, int np )
{
    return ((size_t)mb_count * g->nb * np * sizeof(uint64_t) + 255) & ~(size_t)255;
}

extern "C" size_t cme_dev_paper_scratch_size( int mb_w, int mb_h, int range, int mv_range, int mv_range_thread,
                                               int np )
{
    paper_geom_t g = paper_geom( mb_w, mb_h, range, mv_range, mv_range_thread );
    return keys_bytes( &g, mb_w * mb_h, np ) + (size_t)mb_w * mb_h * g.max_pos * 16 * sizeof(uint16_t);
}

extern "C" cudaError_t cme_dev_search_paper( const cme_launch_t *l, cudaStream_t stream, cudaEvent_t *marks )
{
    paper_geom_t g = paper_geom( l->i_mb_width, l->i_mb_height, l->i_range, l->i_mv_range, l->i_mv_range_thread );
    const int mb_count = l->i_mb_width * l->i_mb_height;
    uint16_t *sads = (uint16_t*)((uint8_t*)l->blk_keys + keys_bytes( &g, mb_count, l->i_parts ));
    const dim3 grid( mb_count, g.nb );
    const int n3 = mb_count * l->i_parts;
    paper_sad_kernel<<<grid, PT, g.smem, stream>>>( *l, g, sads );
    if( marks )
        cudaEventRecord( marks[0], stream );
    if( l->i_parts == CUDA_ME_NPART )
    {
        paper_merge_kernel<CUDA_ME_NPART><<<grid, PT, 0, stream>>>( *l, g, sads );
        if( marks )
            cudaEventRecord( marks[1], stream );
        reduce_kernel<CUDA_ME_NPART><<<(n3 + 255) / 256, 256, 0, stream>>>( *l, g.nb );
    }
    else
    {
        paper_merge_kernel<CUDA_ME_NPART_8x8><<<grid, PT, 0, stream>>>( *l, g, sads );
        if( marks )
            cudaEventRecord( marks[1], stream );
        reduce_kernel<CUDA_ME_NPART_8x8><<<(n3 + 255) / 256, 256, 0, stream>>>( *l, g.nb );
    }
    return cudaGetLastError();
}

/* The instruction peak the benchmark compares against: 8 independent
 * chains of vabsdiff4 accumulations, 32 per iteration, operands in registers. */
static __global__ void peak_kernel( uint32_t *sink, int iters )
{
    uint32_t a = threadIdx.x * 0x01010101u, b = blockIdx.x * 0x00FF00FFu;
    uint32_t acc[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    for( int i = 0; i < iters; i++ )
    {
#pragma unroll
        for( int r = 0; r < 4; r++ )
#pragma unroll
            for( int k = 0; k < 8; k++ )
                asm volatile( "vabsdiff4.u32.u32.u32.add %0, %1, %2, %0;" : "+r"(acc[k]) : "r"(a + k), "r"(b) );
    }
    uint32_t s = 0;
    for( int k = 0; k < 8; k++ )
        s += acc[k];
    if( s == 0x12345678u )
        sink[0] = s;
}

extern "C" cudaError_t cme_dev_peak_absdiff( int n_blocks, cudaStream_t stream, uint32_t *d_sink, double *absdiffs )
{
    const int iters = 1024;
    peak_kernel<<<n_blocks, 256, 0, stream>>>( d_sink, iters );
    *absdiffs = (double)n_blocks * 256 * iters * 32 * 4;
    return cudaGetLastError();
}
