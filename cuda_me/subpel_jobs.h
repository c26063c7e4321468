/*****************************************************************************
 * subpel_jobs.h: the sub-pel jobs of a searched frame pair
 *****************************************************************************
 * With cuda_me_param_t.i_subme, each candidate of each partition becomes
 * one cme_subpel_job_t (subpel_spec.h), made by both backends from the
 * integer search's results with cme_subpel_make_job (C: me_c.c; CUDA:
 * subpel_cuda.cu's jobs_kernel).  Jobs and results are in the order of the
 * integer results: [mb][cand][part].  Kept apart from me_spec.h, which the
 * x264 glue's experiments include standalone.
 *****************************************************************************/

#ifndef CUDA_ME_SUBPEL_JOBS_H
#define CUDA_ME_SUBPEL_JOBS_H

#include "me_spec.h"
#include "subpel_spec.h"

/* Partition p (cuda_me.h's order) of a macroblock: its x264 size
 * (CME_PIXEL_*) and top-left pixel inside the macroblock. */
CME_SPEC int cme_part_pixel( int p )
{
    return p == 0 ? CME_PIXEL_16x16 : p < 3 ? CME_PIXEL_16x8 : p < 5 ? CME_PIXEL_8x16 : p < 9 ? CME_PIXEL_8x8
         : p < 17 ? CME_PIXEL_8x4 : p < 25 ? CME_PIXEL_4x8 : CME_PIXEL_4x4;
}
CME_SPEC int cme_part_x( int p )
{
    return p < 3 ? 0 : p < 5 ? 8*(p - 3) : p < 9 ? 8*((p - 5) & 1)
         : p < 17 ? 8*(((p - 9) >> 1) & 1)
         : p < 25 ? 8*(((p - 17) >> 1) & 1) + 4*((p - 17) & 1)
         : 8*(((p - 25) >> 2) & 1) + 4*((p - 25) & 1);
}
CME_SPEC int cme_part_y( int p )
{
    return p == 0 ? 0 : p < 3 ? 8*(p - 1) : p < 5 ? 0 : p < 9 ? 8*((p - 5) >> 1)
         : p < 17 ? 8*((p - 9) >> 2) + 4*((p - 9) & 1)
         : p < 25 ? 8*((p - 17) >> 2)
         : 8*((p - 25) >> 3) + 4*(((p - 25) >> 1) & 1);
}

/* Job of partition p of macroblock (mb_x, mb_y), candidate of integer
 * vector (mvx, mvy) found in a window whose clipped centre is (cx, cy)
 * (cme_window_t cx, cy of that candidate's pass).  cur and ref point at
 * pixel (0,0) of the current and reference planes (F, padded); the start
 * cost is the partition's fpel compare at the integer vector (from F
 * alone) + the MV cost from cost_mv + i_cost_mv (the centre of the job's
 * table, cuda_me.h's subpel_cost) with predictor 4*(cx, cy).  Limits:
 * x264's static ones in quarter-pel (cuda_me.h, i_subme), with the
 * frame-thread limit mv_range_thread (0: none). */
CME_SPEC cme_subpel_job_t cme_subpel_make_job( const uint8_t *cur, intptr_t i_cur_stride, const uint8_t *ref,
                                               intptr_t i_ref_stride, int mb_x, int mb_y, int mb_w, int mb_h,
                                               int mv_range, int mv_range_thread, int p, int mvx, int mvy,
                                               int cx, int cy, const uint16_t *cost_mv, int i_cost_mv,
                                               int i_subme, int b_fpel_satd )
{
    cme_subpel_job_t j;
    const int x = 16*mb_x + cme_part_x( p ), y = 16*mb_y + cme_part_y( p ), i_pixel = cme_part_pixel( p );
    j.x = (int16_t)x;
    j.y = (int16_t)y;
    j.mv[0] = (int16_t)(4*mvx);
    j.mv[1] = (int16_t)(4*mvy);
    j.mvp[0] = (int16_t)(4*cx);
    j.mvp[1] = (int16_t)(4*cy);
    j.mv_min[0] = (int16_t)cme_imax( 4*(-16*mb_x - 24), -4*mv_range );
    j.mv_max[0] = (int16_t)cme_imin( 4*(16*(mb_w - mb_x - 1) + 24), 4*mv_range - 1 );
    j.mv_min[1] = (int16_t)cme_imax( 4*(-16*mb_y - 24), -4*mv_range );
    int ymax = cme_imin( 4*(16*(mb_h - mb_y - 1) + 24), 4*mv_range - 1 );
    if( mv_range_thread > 0 )
        ymax = cme_imin( ymax, 4*mv_range_thread );
    j.mv_max[1] = (int16_t)ymax;
    j.i_cost_mv = i_cost_mv;
    j.i_pixel = (uint8_t)i_pixel;
    j.i_subme = (uint8_t)i_subme;
    j.b_fpel_satd = (uint8_t)(b_fpel_satd ? 1 : 0);
    j.reserved = 0;
    /* the fpel compare at an integer vector reads F only (quarter-pel
     * position 0 of cme_qpel_sample) */
    const intptr_t o = (intptr_t)y * i_ref_stride + x;
    const uint8_t *const f[4] = { ref + o, ref + o, ref + o, ref + o };
    const cme_subpel_param_t sp = cme_subpel_job_param( &j, cost_mv );
    j.cost = cme_subpel_cmp( cur + (intptr_t)y * i_cur_stride + x, i_cur_stride, f, i_ref_stride, i_pixel,
                             j.b_fpel_satd, j.mv[0], j.mv[1] )
           + cme_subpel_mv_cost( &sp, j.mv[0], j.mv[1] );
    return j;
}

#endif
