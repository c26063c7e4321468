/*****************************************************************************
 * window.cuh: the per-macroblock prologue of every search kernel
 *****************************************************************************/

#ifndef CUDA_ME_WINDOW_CUH
#define CUDA_ME_WINDOW_CUH

#include "me_spec.h"
#include "kernels.h"

/* Macroblock mb (raster index) of launch a: the result is its search
 * window (me_spec.h), around a.centre[mb] when the launch has centres, else
 * around (0,0); *mb_x and *mb_y (if not NULL) get its position. */
static __device__ __forceinline__ cme_window_t cme_launch_window( const cme_launch_t &a, const int mb,
                                                                  int *mb_x, int *mb_y )
{
    /* unsigned: no sign fix-ups (ALU instructions, which wait behind
     * the other blocks' SADs: results/kernel_steps.md) */
    const int y = (int)((unsigned)mb / (unsigned)a.i_mb_width), x = mb - y * a.i_mb_width;
    if( mb_x )
        *mb_x = x;
    if( mb_y )
        *mb_y = y;
    return cme_get_window( x, y, a.i_mb_width, a.i_mb_height, a.i_range, a.i_mv_range, a.i_mv_range_thread,
                           a.centre ? a.centre[2*mb] : 0, a.centre ? a.centre[2*mb+1] : 0 );
}

#endif
