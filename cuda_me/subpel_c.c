/*****************************************************************************
 * subpel_c.c: the C reference of sub-pel refinement
 *****************************************************************************
 * The half-pel planes of a frame and the refinement of partitions, exactly
 * as subpel_spec.h defines them (which is x264's refine_subpel, see there).
 * Written for clarity: every plane pixel from its formula, every candidate
 * from cme_qpel_sample.  The CUDA kernels (subpel_cuda.cu) are tested against
 * these (tests/checkasm_me.c): both call the same subpel_spec.h functions.
 *****************************************************************************/

#include "internal.h"
#include "subpel_spec.h"

void cme_hpel_planes_c( const uint8_t *src, intptr_t i_src_stride, int w, int h,
                        uint8_t *const dst[3], intptr_t i_dst_stride )
{
    for( int p = 0; p < 3; p++ )
        for( int y = -CME_HPEL_PAD; y < h + CME_HPEL_PAD; y++ )
        {
            uint8_t *d = dst[p] + y * i_dst_stride;
            for( int x = -CME_HPEL_PAD; x < w + CME_HPEL_PAD; x++ )
                d[x] = cme_hpel_sample( src, i_src_stride, w, h, p + 1, x, y );
        }
}

void cme_refine_subpel_c( const uint8_t *fenc, intptr_t i_fenc_stride, const uint8_t *const plane[4],
                          intptr_t i_stride, const cme_subpel_param_t *p, int mvx, int mvy, int cost,
                          cme_subpel_result_t *r )
{
    cme_refine_subpel( fenc, i_fenc_stride, plane, i_stride, p, mvx, mvy, cost, r );
}

void cme_refine_subpel_batch_c( const uint8_t *cur, intptr_t i_cur_stride, const uint8_t *const plane[4],
                                intptr_t i_stride, const uint16_t *cost_mv, const cme_subpel_job_t *job, int n,
                                cme_subpel_result_t *out )
{
    for( int i = 0; i < n; i++ )
        cme_refine_subpel_job( cur, i_cur_stride, plane, i_stride, cost_mv, &job[i], &out[i] );
}
