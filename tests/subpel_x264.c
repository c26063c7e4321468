/*****************************************************************************
 * subpel_x264.c: x264's own C functions, for test_subpel.c (see the header)
 *****************************************************************************
 * Compiled with -I<x264 build> -I<x264 source> -DHIGH_BIT_DEPTH=0
 * -DBIT_DEPTH=8, as x264 compiles its templated files.  The frame and the
 * x264_t handed to x264_frame_filter and x264_frame_expand_border_filtered
 * are zeroed and hold only what those two read: 4:2:0, progressive, no
 * integral image, the C hpel_filter.
 *****************************************************************************/

#include "common/common.h"

#include "subpel_x264.h"

static x264_mc_functions_t mc;
static x264_pixel_function_t pixf;

void x264ref_init( void )
{
    x264_mc_init( 0, &mc, 0 );
    x264_pixel_init( 0, &pixf );
}

int x264ref_hpel_planes( const uint8_t *src, intptr_t i_src_stride, int w, int h,
                         uint8_t *const dst[3], intptr_t i_dst_stride, int b_rows )
{
    if( i_src_stride != i_dst_stride )
        return -1;   /* x264's planes of one frame share a stride */
    x264_t *x = calloc( 1, sizeof(x264_t) );
    x264_frame_t *f = calloc( 1, sizeof(x264_frame_t) );
    int16_t *scratch = malloc( (w + 64) * sizeof(int16_t) * 2 );
    if( !x || !f || !scratch )
    {
        free( x ); free( f ); free( scratch );
        return -1;
    }
    x->mc = mc;
    x->sps->i_chroma_format_idc = CHROMA_420;
    x->param.b_interlaced = 0;
    x->mb.i_mb_width = w / 16;
    x->mb.i_mb_height = h / 16;
    x->scratch_buffer = scratch;
    f->i_plane = 2;
    f->i_stride[0] = i_src_stride;
    f->i_width[0] = w;
    f->i_lines[0] = h;
    f->plane[0] = f->filtered[0][0] = (pixel*)src;
    for( int i = 0; i < 3; i++ )
        f->filtered[0][i+1] = dst[i];
    if( b_rows )
        for( int mb_y = 0; mb_y < h / 16; mb_y++ )
        {
            int b_end = mb_y == h / 16 - 1;
            x264_frame_filter( x, f, mb_y, b_end );
            x264_frame_expand_border_filtered( x, f, mb_y, b_end );
        }
    else
    {
        x264_frame_filter( x, f, 0, 1 );
        x264_frame_expand_border_filtered( x, f, 0, 1 );
    }
    free( scratch );
    free( f );
    free( x );
    return 0;
}

int x264ref_satd( int i_pixel, const uint8_t *a, intptr_t i_a, const uint8_t *b, intptr_t i_b )
{
    return pixf.satd[i_pixel]( (pixel*)a, i_a, (pixel*)b, i_b );
}

int x264ref_sad( int i_pixel, const uint8_t *a, intptr_t i_a, const uint8_t *b, intptr_t i_b )
{
    return pixf.sad[i_pixel]( (pixel*)a, i_a, (pixel*)b, i_b );
}

const uint8_t *x264ref_get_ref( uint8_t *dst, intptr_t *i_dst_stride, uint8_t *const plane[4], intptr_t i_stride,
                                int mvx, int mvy, int w, int h )
{
    x264_weight_t weight = { .weightfn = NULL };
    pixel *src[4] = { plane[0], plane[1], plane[2], plane[3] };
    return mc.get_ref( dst, i_dst_stride, src, i_stride, mvx, mvy, w, h, &weight );
}

void x264ref_mc_luma( uint8_t *dst, intptr_t i_dst_stride, uint8_t *const plane[4], intptr_t i_stride,
                      int mvx, int mvy, int w, int h )
{
    x264_weight_t weight = { .weightfn = NULL };
    pixel *src[4] = { plane[0], plane[1], plane[2], plane[3] };
    mc.mc_luma( dst, i_dst_stride, src, i_stride, mvx, mvy, w, h, &weight );
}
