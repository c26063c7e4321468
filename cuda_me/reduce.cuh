/*****************************************************************************
 * reduce.cuh: step 3 of the search, shared by the mainline and dev kernels
 *****************************************************************************/

#ifndef CUDA_ME_REDUCE_CUH
#define CUDA_ME_REDUCE_CUH

#include "me_spec.h"
#include "kernels.h"
#include "window.cuh"

/* Partition p's best key of macroblock mb (window w) decoded into (mv, cost)
 * at out[mb * i_out_stride + p]. */
template<int NP>
static __device__ __forceinline__ void cme_store_key( const cme_launch_t &a, const cme_window_t &w, const int mb,
                                                      const int p, const uint64_t key )
{
    const uint32_t wx = w.x_max - w.x_min + 1;
    const uint32_t raster = (uint32_t)key;
    const int dx = w.x_min + (int)(raster % wx), dy = w.y_min + (int)(raster / wx);
    uint2 v;
    v.x = (uint32_t)(uint16_t)dx | (uint32_t)(uint16_t)dy << 16;
    v.y = (uint32_t)(key >> 32);
    ((uint2*)a.out)[(size_t)mb * (a.i_out_stride ? a.i_out_stride : NP) + p] = v;
}

/* blk_keys[mb][nb][NP]: each block's best key (cost << 32 | raster index in
 * the window) per partition.  One thread per (macroblock, partition): the
 * minimum over the blocks, decoded into (mv, cost), at out[mb *
 * i_out_stride + partition].  Launch: 256 threads,
 * (mb_count * NP + 255) / 256 blocks. */
template<int NP>
static __global__ void reduce_kernel( const cme_launch_t a, const int nb )
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int mb_count = a.i_mb_width * a.i_mb_height;
    if( i >= mb_count * NP )
        return;
    const int mb = i / NP, p = i - mb * NP;
    const uint64_t *bk = a.blk_keys + (size_t)mb * nb * NP + p;
    uint64_t key = CME_KEY_NONE;
    for( int b = 0; b < nb; b++ )
        key = min( key, bk[b * NP] );
    cme_store_key<NP>( a, cme_launch_window( a, mb, NULL, NULL ), mb, p, key );
}

#endif
