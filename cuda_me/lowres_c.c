/*****************************************************************************
 * lowres_c.c: the C reference of the lookahead's lowres search
 *****************************************************************************
 * One frame pair, exactly as lowres_spec.h defines it (which is x264's
 * slicetype_mb_cost search, see there): every slice in x264's reverse
 * raster order, each block from cme_lowres_block.  The CUDA kernel
 * (lowres_cuda.cu) runs the same function, a warp per block row, and is tested
 * against this one (tests/checkasm_me.c); the x264 glue is tested against
 * x264's own search (tests/e2e.sh: --gpu-me-lookahead on and off encode
 * the same bytes).
 *****************************************************************************/

#include "internal.h"
#include "lowres_spec.h"

void cme_lowres_frame_c( const cme_lowres_param_t *p, const uint8_t *fenc, intptr_t i_fenc_stride,
                         const uint8_t *const ref[4], intptr_t i_stride, int16_t (*mvs)[2], int *costs )
{
    for( int s = 0; s < p->i_slices; s++ )
    {
        const cme_lowres_span_t sp = cme_lowres_span( p, s );
        for( int y = sp.y1; y >= sp.y0; y-- )
            for( int x = sp.x1; x >= sp.x0; x-- )
            {
                const int i = y * p->i_mb_width + x;
                int mvc[4][2];
                const int n = cme_lowres_neighbours( p, (const int16_t (*)[2])mvs, x, y, sp.y_end, mvc );
                cme_lowres_block( p, fenc, i_fenc_stride, ref, i_stride, (const int (*)[2])mvc, n, x, y,
                                  mvs[i], &costs[i] );
            }
    }
}
