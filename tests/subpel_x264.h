/*****************************************************************************
 * subpel_x264.h: x264's own C functions, for test_subpel.c
 *****************************************************************************
 * subpel_x264.c is compiled with x264's headers and config (BIT_DEPTH 8)
 * and linked with the patched build's libx264.a, so these are x264's
 * functions themselves (x264_8_mc_init, x264_8_pixel_init with cpu = 0: the
 * C versions; x264_8_frame_filter, x264_8_frame_expand_border_filtered), not
 * copies.  Plain types only: test_subpel.c does not see x264's headers.
 *****************************************************************************/

#ifndef CUDA_ME_SUBPEL_X264_H
#define CUDA_ME_SUBPEL_X264_H

#include <stdint.h>

/* Fills the C function tables (call once). */
void x264ref_init( void );

/* x264's half-pel planes of the w x h plane src (w, h multiples of 16; src
 * at (0,0) with a replicated border of at least 32), as x264 makes them for
 * a reference frame: x264_frame_filter + x264_frame_expand_border_filtered,
 * in one call for the whole frame (b_rows = 0) or macroblock row by row as
 * fdec_filter_row calls them (b_rows = 1).  dst[0..2] = H, V, C at (0,0)
 * with a border of 32 (x264's PADH, PADV), stride i_dst_stride.  Returns 0,
 * or -1 if out of memory. */
int x264ref_hpel_planes( const uint8_t *src, intptr_t i_src_stride, int w, int h,
                         uint8_t *const dst[3], intptr_t i_dst_stride, int b_rows );

/* pixf.satd[i_pixel] and pixf.sad[i_pixel] (C). */
int x264ref_satd( int i_pixel, const uint8_t *a, intptr_t i_a, const uint8_t *b, intptr_t i_b );
int x264ref_sad( int i_pixel, const uint8_t *a, intptr_t i_a, const uint8_t *b, intptr_t i_b );

/* mc.get_ref (C, no weighting) of a w x h block at quarter-pel (mvx, mvy):
 * plane[0..3] = F, H, V, C at the block's position; returns the pointer
 * and stride get_ref returns (dst or into a plane). */
const uint8_t *x264ref_get_ref( uint8_t *dst, intptr_t *i_dst_stride, uint8_t *const plane[4], intptr_t i_stride,
                                int mvx, int mvy, int w, int h );
/* mc.mc_luma (C, no weighting) into dst. */
void x264ref_mc_luma( uint8_t *dst, intptr_t i_dst_stride, uint8_t *const plane[4], intptr_t i_stride,
                      int mvx, int mvy, int w, int h );

#endif
