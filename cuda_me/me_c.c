/*****************************************************************************
 * me_c.c: the C reference backend: the specification of the GPU search
 *****************************************************************************
 * cme_search_c() is the definition the CUDA kernels are tested against: for
 * each macroblock, every position of its window (me_spec.h) in raster order, 16
 * 4x4 SADs, merged into 41 partition costs, strict '<' so that the first
 * position of equal cost wins; with two candidates, a second pass of the
 * same after the first, in windows centred on the median of pass 1's
 * neighbouring 16x16 vectors (me_spec.h, cme_pass2_centre).  It is written for clarity first; the loops
 * are plain enough for the compiler to vectorise the 4x4 SADs.
 *****************************************************************************/

#include <stdlib.h>
#include <string.h>

#include "internal.h"

void cme_copy_padded( uint8_t *dst, intptr_t i_dst_stride, const uint8_t *src, intptr_t i_src_stride,
                      int w, int h )
{
    for( int y = 0; y < h; y++ )
    {
        uint8_t *d = dst + y * i_dst_stride;
        memcpy( d, src + y * i_src_stride, w );
        memset( d - CME_PAD, d[0], CME_PAD );
        memset( d + w, d[w-1], CME_PAD );
    }
    for( int y = 1; y <= CME_PAD; y++ )
    {
        memcpy( dst - y * i_dst_stride - CME_PAD, dst - CME_PAD, w + 2*CME_PAD );
        memcpy( dst + (h - 1 + y) * i_dst_stride - CME_PAD, dst + (h - 1) * i_dst_stride - CME_PAD, w + 2*CME_PAD );
    }
}

static inline uint32_t sad_4x4( const uint8_t *a, intptr_t sa, const uint8_t *b, intptr_t sb )
{
    uint32_t sum = 0;
    for( int y = 0; y < 4; y++, a += sa, b += sb )
        for( int x = 0; x < 4; x++ )
            sum += abs( a[x] - b[x] );
    return sum;
}

/* The pass-2 centre of macroblock (mb_x, mb_y) from pass 1's results
 * (stride per macroblock) and its centres (me_spec.h, cme_pass2_centre). */
static void pass2_centre( const cuda_me_result_t *pass1, int i_stride, int mb_x, int mb_y, int i_mb_width,
                          int i_mb_height, int i_range, int i_mv_range, int i_mv_range_thread,
                          const int16_t *centre, int c[2] )
{
    const int mb = mb_y * i_mb_width + mb_x;
    cme_window_t w = cme_get_window( mb_x, mb_y, i_mb_width, i_mb_height, i_range, i_mv_range, i_mv_range_thread,
                                     centre ? centre[2*mb] : 0, centre ? centre[2*mb+1] : 0 );
    int nb[3], v[3][2];
    const int n = cme_pass2_neighbours( mb_x, mb_y, i_mb_width, nb );
    for( int k = 0; k < n; k++ )
    {
        v[k][0] = pass1[(size_t)nb[k] * i_stride + CUDA_ME_PART_16x16].mv[0];
        v[k][1] = pass1[(size_t)nb[k] * i_stride + CUDA_ME_PART_16x16].mv[1];
    }
    cme_pass2_centre( n, (const int (*)[2])v, w.cx, w.cy, c );
}

void cme_search_c( const uint8_t *cur, intptr_t i_cur_stride,
                   const uint8_t *ref, intptr_t i_ref_stride,
                   int i_mb_width, int i_mb_height, int i_range, int i_mv_range, int i_mv_range_thread,
                   const uint16_t *mv_cost, const int16_t *centre, int i_parts, int i_cands,
                   cuda_me_result_t *out )
{
    const int npass = i_cands == 2 ? 2 : 1, stride = npass * i_parts;
    /* pass 2 (after all of pass 1): centres from pass 1's 16x16 vectors,
     * +-16, the cost table centred there */
    for( int pass = 0; pass < npass; pass++ )
    {
        const int range = pass ? cme_pass2_range( i_range ) : i_range;
        const uint16_t *cost = pass ? cme_pass2_cost( mv_cost, i_range ) : mv_cost;
        for( int mb_y = 0; mb_y < i_mb_height; mb_y++ )
            for( int mb_x = 0; mb_x < i_mb_width; mb_x++ )
            {
                const int16_t *c1 = centre ? centre + 2 * (mb_y * i_mb_width + mb_x) : NULL;
                int c[2] = { c1 ? c1[0] : 0, c1 ? c1[1] : 0 };
                if( pass )
                    pass2_centre( out, stride, mb_x, mb_y, i_mb_width, i_mb_height, i_range, i_mv_range,
                                  i_mv_range_thread, centre, c );
                cme_window_t w = cme_get_window( mb_x, mb_y, i_mb_width, i_mb_height, range, i_mv_range,
                                                 i_mv_range_thread, c[0], c[1] );
                const uint8_t *mb = cur + 16*mb_y * i_cur_stride + 16*mb_x;
                uint32_t best[CME_MAX_PARTS];
                int16_t  best_mv[CME_MAX_PARTS][2];
                for( int p = 0; p < i_parts; p++ )
                    best[p] = UINT32_MAX;

                for( int dy = w.y_min; dy <= w.y_max; dy++ )
                    for( int dx = w.x_min; dx <= w.x_max; dx++ )
                    {
                        const uint8_t *r = ref + (16*mb_y + dy) * i_ref_stride + 16*mb_x + dx;
                        uint32_t s[16], costs[CME_MAX_PARTS];
                        for( int i = 0; i < 16; i++ )
                        {
                            int ox = cme_blk4_x( i ), oy = cme_blk4_y( i );
                            s[i] = sad_4x4( mb + oy * i_cur_stride + ox, i_cur_stride,
                                            r + oy * i_ref_stride + ox, i_ref_stride );
                        }
                        uint32_t mvc = cme_mv_cost( cost, range, &w, dx, dy );
                        cme_merge( s, mvc, costs );
                        for( int p = 0; p < i_parts; p++ )
                            if( costs[p] < best[p] )
                            {
                                best[p] = costs[p];
                                best_mv[p][0] = dx;
                                best_mv[p][1] = dy;
                            }
                    }

                cuda_me_result_t *o = out + (size_t)(mb_y * i_mb_width + mb_x) * stride + pass * i_parts;
                for( int p = 0; p < i_parts; p++ )
                {
                    o[p].mv[0] = best_mv[p][0];
                    o[p].mv[1] = best_mv[p][1];
                    o[p].cost = best[p];
                }
            }
    }
}

void cme_subpel_jobs_c( const uint8_t *cur, intptr_t i_cur_stride, const uint8_t *ref, intptr_t i_ref_stride,
                        int i_mb_width, int i_mb_height, int i_range, int i_mv_range, int i_mv_range_thread,
                        const int16_t *centre, const cuda_me_result_t *res, int i_parts, int i_cands,
                        int i_sub_first, int i_sub_parts, const uint16_t *cost_mv, int i_cost_mv, int i_subme,
                        int b_fpel_satd, cme_subpel_job_t *job )
{
    const int npass = i_cands == 2 ? 2 : 1, stride = npass * i_parts;
    for( int mb_y = 0; mb_y < i_mb_height; mb_y++ )
        for( int mb_x = 0; mb_x < i_mb_width; mb_x++ )
            for( int pass = 0; pass < npass; pass++ )
            {
                /* the candidate's predictor: its window's clipped centre */
                const int mb = mb_y * i_mb_width + mb_x;
                int c[2] = { centre ? centre[2*mb] : 0, centre ? centre[2*mb+1] : 0 };
                if( pass )
                    pass2_centre( res, stride, mb_x, mb_y, i_mb_width, i_mb_height, i_range, i_mv_range,
                                  i_mv_range_thread, centre, c );
                const cme_window_t w = cme_get_window( mb_x, mb_y, i_mb_width, i_mb_height,
                                                       pass ? cme_pass2_range( i_range ) : i_range, i_mv_range,
                                                       i_mv_range_thread, c[0], c[1] );
                const size_t o = (size_t)mb * stride + pass * i_parts;
                const size_t oj = ((size_t)mb * npass + pass) * i_sub_parts;
                for( int k = 0; k < i_sub_parts; k++ )
                {
                    const int p = i_sub_first + k;
                    job[oj + k] = cme_subpel_make_job( cur, i_cur_stride, ref, i_ref_stride, mb_x, mb_y, i_mb_width,
                                                      i_mb_height, i_mv_range, i_mv_range_thread, p, res[o + p].mv[0],
                                                      res[o + p].mv[1], w.cx, w.cy, cost_mv, i_cost_mv, i_subme,
                                                      b_fpel_satd );
                }
            }
}

/* ---------------------------------------------------------------- backend */

static int c_init( cuda_me_t *h )
{
    (void)h;
    return 0;
}

static void c_uninit( cuda_me_t *h )
{
    (void)h;
}

static int c_frame_alloc( cuda_me_t *h, cme_frame_t *f )
{
    f->i_stride = (h->param.i_width + 2*CME_PAD + 63) & ~63;
    /* i_subme: F, H, V, C, one stride (CME_HPEL_PAD == CME_PAD) */
    const size_t plane = f->i_stride * (h->param.i_height + 2*CME_PAD);
    size_t size = plane * (h->param.i_subme ? 4 : 1);
    if( cme_fault( h, CME_FAULT_ALLOC ) || !(f->p_alloc = malloc( size )) )
    {
        cme_log( h, CUDA_ME_LOG_ERROR, "cannot allocate %zu bytes for a frame\n", size );
        return CUDA_ME_ENOMEM;
    }
    f->plane = (uint8_t*)f->p_alloc + CME_PAD * f->i_stride + CME_PAD;
    for( int i = 0; i < 3; i++ )
        f->hpel[i] = h->param.i_subme ? f->plane + (i + 1) * plane : NULL;
    pthread_mutex_lock( &h->lock );
    h->stats.i_host_bytes += size;
    pthread_mutex_unlock( &h->lock );
    return 0;
}

static void c_frame_free( cuda_me_t *h, cme_frame_t *f )
{
    (void)h;
    free( f->p_alloc );
    f->p_alloc = NULL;
}

static int c_frame_put( cuda_me_t *h, cme_frame_t *f, const uint8_t *luma, intptr_t i_stride )
{
    if( cme_fault( h, CME_FAULT_COPY ) )
    {
        cme_log( h, CUDA_ME_LOG_ERROR, "frame copy failed (injected)\n" );
        return CUDA_ME_EDEVICE;
    }
    cme_copy_padded( f->plane, f->i_stride, luma, i_stride, h->param.i_width, h->param.i_height );
    if( h->param.i_subme )
        cme_hpel_planes_c( f->plane, f->i_stride, h->param.i_width, h->param.i_height, f->hpel, f->i_stride );
    return 0;
}

static int c_job_alloc( cuda_me_t *h, cme_job_t *j )
{
    /* results, then (i_subme) sub-pel results and jobs, centres, costs */
    const size_t n = (size_t)h->i_mb_count * h->i_cands * h->i_parts, n_sub = h->param.i_subme ? n : 0;
    size_t size = n * sizeof(cuda_me_result_t) + n_sub * (sizeof(cme_subpel_result_t) + sizeof(cme_subpel_job_t))
                + (size_t)h->i_mb_count * 2 * sizeof(int16_t) + (4*h->param.i_range + 1) * sizeof(uint16_t);
    if( cme_fault( h, CME_FAULT_ALLOC ) || !(j->res = malloc( size )) )
    {
        cme_log( h, CUDA_ME_LOG_ERROR, "cannot allocate %zu bytes for results\n", size );
        return CUDA_ME_ENOMEM;
    }
    j->sub = n_sub ? (cme_subpel_result_t*)(j->res + n) : NULL;
    j->sub_job = n_sub ? (cme_subpel_job_t*)((cme_subpel_result_t*)(j->res + n) + n_sub) : NULL;
    j->centre = (int16_t*)((uint8_t*)(j->res + n) + n_sub * (sizeof(cme_subpel_result_t) + sizeof(cme_subpel_job_t)));
    j->mv_cost = (uint16_t*)(j->centre + (size_t)h->i_mb_count * 2);
    pthread_mutex_lock( &h->lock );
    h->stats.i_host_bytes += size;
    pthread_mutex_unlock( &h->lock );
    return 0;
}

static void c_job_free( cuda_me_t *h, cme_job_t *j )
{
    (void)h;
    free( j->res );
    j->res = NULL;
}

static int c_job_submit( cuda_me_t *h, cme_job_t *j )
{
    /* The search runs in the first get(): consumers search in parallel, and
     * pairs nobody asks for cost nothing. */
    (void)h; (void)j;
    return 0;
}

static int c_job_finish( cuda_me_t *h, cme_job_t *j )
{
    if( cme_fault( h, CME_FAULT_LAUNCH ) )
    {
        cme_log( h, CUDA_ME_LOG_ERROR, "search failed (injected)\n" );
        return CUDA_ME_EDEVICE;
    }
    double t0 = cme_time_ms();
    cme_search_c( j->cur->plane, j->cur->i_stride, j->ref->plane, j->ref->i_stride,
                  h->i_mb_width, h->i_mb_height, h->param.i_range, h->param.i_mv_range, j->i_mv_range_thread,
                  j->b_cost ? j->mv_cost : h->mv_cost, j->b_centre ? j->centre : NULL, h->i_parts, h->i_cands, j->res );
    double t1 = cme_time_ms(), t2 = t1;
    if( j->b_subpel )
    {
        const int16_t *centre = j->b_centre ? j->centre : NULL;
        const uint8_t *const plane[4] = { j->ref->plane, j->ref->hpel[0], j->ref->hpel[1], j->ref->hpel[2] };
        const int i_cost_mv = j->i_subpel_cost * h->i_subpel_cost_size + 8*h->param.i_mv_range;
        cme_subpel_jobs_c( j->cur->plane, j->cur->i_stride, j->ref->plane, j->ref->i_stride, h->i_mb_width,
                           h->i_mb_height, h->param.i_range, h->param.i_mv_range, j->i_mv_range_thread, centre,
                           j->res, h->i_parts, h->i_cands, h->i_sub_first, h->i_sub_parts, h->subpel_cost, i_cost_mv,
                           h->param.i_subme, h->param.b_fpel_satd, j->sub_job );
        cme_refine_subpel_batch_c( j->cur->plane, j->cur->i_stride, plane, j->ref->i_stride, h->subpel_cost,
                                   j->sub_job, (int)h->i_sub_count, j->sub );
        t2 = cme_time_ms();
    }
    pthread_mutex_lock( &h->lock );
    h->stats.f_search_ms += t1 - t0;
    h->stats.f_busy_ms += t2 - t0;
    if( j->b_subpel )
    {
        h->stats.f_subpel_ms += t2 - t1;
        h->stats.i_subpel_parts += (int64_t)h->i_sub_count;
    }
    pthread_mutex_unlock( &h->lock );
    return 0;
}

static void c_job_retire( cuda_me_t *h, cme_job_t *j )
{
    (void)h; (void)j;
}

static int c_lowres( cuda_me_t *h, const cme_lowres_param_t *p, const cuda_me_lowres_job_t *job,
                     int16_t (*mvs)[2], int *costs )
{
    if( cme_fault( h, CME_FAULT_LAUNCH ) )
    {
        cme_log( h, CUDA_ME_LOG_ERROR, "lookahead search failed (injected)\n" );
        return CUDA_ME_EDEVICE;
    }
    cme_lowres_frame_c( p, job->fenc, job->i_fenc_stride, job->ref, job->i_stride, mvs, costs );
    return 0;
}

/* lowres_queue: the searches, now (the results are there when it returns). */
static int c_lowres_queue( cuda_me_t *h, const cme_lowres_param_t *p, const cuda_me_lowres_job_t *const *jobs,
                           int n, int16_t (*const *mvs)[2], int *const *costs, int64_t *ticket )
{
    for( int k = 0; k < n; k++ )
    {
        int ret = c_lowres( h, p, jobs[k], mvs[k], costs[k] );
        if( ret < 0 )
            return ret;
    }
    *ticket = 1;
    return 0;
}

static int c_lowres_wait( cuda_me_t *h, int64_t ticket )
{
    (void)h;
    (void)ticket;
    return 0;
}

static void *c_lowres_alloc( cuda_me_t *h, size_t bytes )
{
    (void)h;
    return malloc( bytes );
}

static void c_lowres_free( cuda_me_t *h, void *p )
{
    (void)h;
    free( p );
}

const cme_backend_t cme_backend_c =
{
    .name        = "C reference",
    .init        = c_init,
    .uninit      = c_uninit,
    .frame_alloc = c_frame_alloc,
    .frame_free  = c_frame_free,
    .frame_put   = c_frame_put,
    .job_alloc   = c_job_alloc,
    .job_free    = c_job_free,
    .job_submit  = c_job_submit,
    .job_finish  = c_job_finish,
    .job_retire  = c_job_retire,
    .lowres_queue = c_lowres_queue,
    .lowres_wait = c_lowres_wait,
    .lowres_alloc = c_lowres_alloc,
    .lowres_free = c_lowres_free,
};
