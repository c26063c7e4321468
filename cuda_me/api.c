/*****************************************************************************
 * api.c: the hook table: frames, jobs and their lifetimes, for both backends
 *****************************************************************************/

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* cuda_me_subpel_result_t is cme_subpel_result_t under its public name */
#define CME_SAME_FIELD( f ) (offsetof(cuda_me_subpel_result_t, f) == offsetof(cme_subpel_result_t, f))
typedef char cme_subpel_result_layout[(sizeof(cuda_me_subpel_result_t) == sizeof(cme_subpel_result_t) &&
                                       CME_SAME_FIELD( mv ) && CME_SAME_FIELD( cost ) &&
                                       CME_SAME_FIELD( mv_hpel ) && CME_SAME_FIELD( cost_hpel )) ? 1 : -1];

const char *cuda_me_backend_name( int i_backend )
{
    switch( i_backend )
    {
        case CUDA_ME_BACKEND_AUTO: return "auto";
        case CUDA_ME_BACKEND_CUDA: return "cuda";
        case CUDA_ME_BACKEND_C:    return "c";
        default:                   return "unknown";
    }
}

const char *cuda_me_strerror( int err )
{
    switch( err )
    {
        case CUDA_ME_OK:        return "no error";
        case CUDA_ME_EINVAL:    return "invalid parameter";
        case CUDA_ME_ENOMEM:    return "out of memory";
        case CUDA_ME_ENODEV:    return "no usable CUDA device";
        case CUDA_ME_EDEVICE:   return "CUDA error";
        case CUDA_ME_ENOTBUILT: return "CUDA backend not compiled in";
        default:                return "unknown error";
    }
}

/* ---------------------------------------------------------------- lookup */

static cme_frame_t *frame_find( cuda_me_t *h, int i_frame )
{
    for( cme_frame_t *f = h->frames; f; f = f->next )
        if( f->i_frame == i_frame )
            return f;
    return NULL;
}

static cme_job_t *job_find( cuda_me_t *h, int i_cur, int i_ref )
{
    for( cme_job_t *j = h->jobs; j; j = j->next )
        if( j->i_cur == i_cur && j->i_ref == i_ref )
            return j;
    return NULL;
}

/* Moves f to the free list once nothing can use it any more.  Lock held. */
static void frame_maybe_free( cuda_me_t *h, cme_frame_t *f )
{
    if( !f->b_released || !f->b_done || f->i_refs )
        return;
    for( cme_frame_t **p = &h->frames; *p; p = &(*p)->next )
        if( *p == f )
        {
            *p = f->next;
            f->next = h->free_frames;
            h->free_frames = f;
            return;
        }
}

/* ---------------------------------------------------------------- hooks */

static void cme_close( cuda_me_t *h );

static cuda_me_t *cme_open( const cuda_me_param_t *param, int *err )
{
    int ret = CUDA_ME_EINVAL;
    cuda_me_t *h = calloc( 1, sizeof(*h) );
    if( !h )
    {
        if( err )
            *err = CUDA_ME_ENOMEM;
        return NULL;
    }
    h->param = *param;
    pthread_mutex_init( &h->lock, NULL );
    pthread_cond_init( &h->cv, NULL );
    cme_fault_parse( h );

    if( param->i_width < CUDA_ME_MIN_SIZE || param->i_height < CUDA_ME_MIN_SIZE ||
        param->i_width > CUDA_ME_MAX_SIZE || param->i_height > CUDA_ME_MAX_SIZE ||
        (param->i_width & 15) || (param->i_height & 15) )
    {
        cme_log( h, CUDA_ME_LOG_ERROR, "frame size %dx%d not supported (multiples of 16 from %d to %d)\n",
                 param->i_width, param->i_height, CUDA_ME_MIN_SIZE, CUDA_ME_MAX_SIZE );
        goto fail;
    }
    if( param->i_range < CUDA_ME_RANGE_MIN || param->i_range > CUDA_ME_RANGE_MAX )
    {
        cme_log( h, CUDA_ME_LOG_ERROR, "search range %d not supported (%d..%d)\n",
                 param->i_range, CUDA_ME_RANGE_MIN, CUDA_ME_RANGE_MAX );
        goto fail;
    }
    if( param->i_mv_range < 32 )
    {
        cme_log( h, CUDA_ME_LOG_ERROR, "mv_range %d below x264's minimum of 32\n", param->i_mv_range );
        goto fail;
    }
    if( param->i_mv_range_thread < 0 || (param->i_mv_range_thread > 0 && param->i_mv_range_thread < 8) )
    {
        cme_log( h, CUDA_ME_LOG_ERROR, "mv_range_thread %d not supported (0: no limit, or x264's value, >= 8)\n",
                 param->i_mv_range_thread );
        goto fail;
    }
    if( param->i_parts != CUDA_ME_NPART && param->i_parts != CUDA_ME_NPART_8x8 )
    {
        cme_log( h, CUDA_ME_LOG_ERROR, "i_parts must be %d or %d\n", CUDA_ME_NPART_8x8, CUDA_ME_NPART );
        goto fail;
    }
    if( param->i_cands < 0 || param->i_cands > 2 )
    {
        cme_log( h, CUDA_ME_LOG_ERROR, "i_cands must be 0, 1 or 2\n" );
        goto fail;
    }
    if( param->i_subme && (param->i_subme < 2 || param->i_subme > CUDA_ME_SUBME_MAX) )
    {
        cme_log( h, CUDA_ME_LOG_ERROR, "i_subme %d not supported (0: integer vectors only, or x264's --subme 2..%d)\n",
                 param->i_subme, CUDA_ME_SUBME_MAX );
        goto fail;
    }
    if( param->i_subme && (!param->subpel_cost || param->i_subpel_costs < 1 ||
                           param->i_subpel_costs > CUDA_ME_SUBPEL_COSTS_MAX) )
    {
        cme_log( h, CUDA_ME_LOG_ERROR, "i_subme %d needs sub-pel MV cost tables: subpel_cost %s, i_subpel_costs %d "
                 "(1..%d)\n", param->i_subme, param->subpel_cost ? "set" : "NULL", param->i_subpel_costs,
                 CUDA_ME_SUBPEL_COSTS_MAX );
        goto fail;
    }
    if( param->i_subme && (param->i_subpel_first < 0 || param->i_subpel_first >= param->i_parts ||
                           param->i_subpel_parts < 0 ||
                           param->i_subpel_parts > param->i_parts - param->i_subpel_first) )
    {
        cme_log( h, CUDA_ME_LOG_ERROR, "i_subpel_first %d, i_subpel_parts %d not supported (first 0..i_parts-1, "
                 "parts 0: to the last, or 1..i_parts - first; i_parts %d)\n",
                 param->i_subpel_first, param->i_subpel_parts, param->i_parts );
        goto fail;
    }
    if( param->i_subme && (param->b_fpel_satd < 0 || param->b_fpel_satd > 1) )
    {
        cme_log( h, CUDA_ME_LOG_ERROR, "b_fpel_satd must be 0 or 1\n" );
        goto fail;
    }
    h->i_mb_width = param->i_width / 16;
    h->i_mb_height = param->i_height / 16;
    h->i_mb_count = h->i_mb_width * h->i_mb_height;
    h->i_parts = param->i_parts;
    h->i_cands = param->i_cands == 2 ? 2 : 1;
    if( param->mv_cost )
    {
        h->mv_cost = malloc( (4*param->i_range + 1) * sizeof(uint16_t) );
        if( !h->mv_cost || cme_fault( h, CME_FAULT_ALLOC ) )
        {
            ret = CUDA_ME_ENOMEM;
            goto fail;
        }
        memcpy( h->mv_cost, param->mv_cost, (4*param->i_range + 1) * sizeof(uint16_t) );
    }
    h->param.mv_cost = h->mv_cost;
    if( param->i_subme )
    {
        h->i_subpel_cost_size = 16*param->i_mv_range + 1;
        const size_t n = (size_t)param->i_subpel_costs * h->i_subpel_cost_size;
        h->subpel_cost = malloc( n * sizeof(uint16_t) );
        if( !h->subpel_cost || cme_fault( h, CME_FAULT_ALLOC ) )
        {
            ret = CUDA_ME_ENOMEM;
            goto fail;
        }
        memcpy( h->subpel_cost, param->subpel_cost, n * sizeof(uint16_t) );
        h->i_sub_first = param->i_subpel_first;
        h->i_sub_parts = param->i_subpel_parts ? param->i_subpel_parts : h->i_parts - h->i_sub_first;
        h->i_sub_count = (size_t)h->i_mb_count * h->i_cands * h->i_sub_parts;
    }
    else
    {
        /* integer only: the sub-pel fields mean nothing */
        h->param.b_fpel_satd = 0;
        h->param.i_subpel_costs = 0;
        h->param.i_subpel_parts = 0;
        h->param.i_subpel_first = 0;
    }
    h->param.subpel_cost = h->subpel_cost;

    switch( param->i_backend )
    {
        case CUDA_ME_BACKEND_AUTO:
        case CUDA_ME_BACKEND_CUDA:
            h->i_backend = CUDA_ME_BACKEND_CUDA;
            h->be = &cme_backend_cuda;
            break;
        case CUDA_ME_BACKEND_C:
            h->i_backend = CUDA_ME_BACKEND_C;
            h->be = &cme_backend_c;
            break;
        default:
            cme_log( h, CUDA_ME_LOG_ERROR, "unknown backend %d\n", param->i_backend );
            goto fail;
    }
    h->stats.i_backend = h->i_backend;
    snprintf( h->stats.device, sizeof(h->stats.device), "%s", h->be->name );
    ret = h->be->init( h );
    if( ret < 0 )
    {
        h->be = NULL;
        goto fail;
    }
    if( err )
        *err = 0;
    return h;

fail:
    if( err )
        *err = ret;
    cme_close( h );
    return NULL;
}

static int cme_put_frame( cuda_me_t *h, int i_frame, const uint8_t *luma, intptr_t i_stride )
{
    const int error = cme_error_get( h );
    if( error )
        return error;
    pthread_mutex_lock( &h->lock );
    if( frame_find( h, i_frame ) )
    {
        pthread_mutex_unlock( &h->lock );
        cme_log( h, CUDA_ME_LOG_ERROR, "frame %d put twice\n", i_frame );
        return CUDA_ME_EINVAL;
    }
    cme_frame_t *f = h->free_frames;
    if( f )
        h->free_frames = f->next;
    pthread_mutex_unlock( &h->lock );

    if( !f )
    {
        f = calloc( 1, sizeof(*f) );
        if( !f )
            return cme_set_error( h, CUDA_ME_ENOMEM );
        int ret = h->be->frame_alloc( h, f );
        if( ret < 0 )
        {
            h->be->frame_free( h, f );
            free( f );
            return cme_set_error( h, ret );
        }
    }
    f->i_frame = i_frame;
    f->b_released = f->b_done = 0;
    f->i_refs = 0;
    int ret = h->be->frame_put( h, f, luma, i_stride );

    pthread_mutex_lock( &h->lock );
    if( ret < 0 )
    {
        f->next = h->free_frames;
        h->free_frames = f;
    }
    else
    {
        f->next = h->frames;
        h->frames = f;
        h->stats.i_frames++;
    }
    pthread_mutex_unlock( &h->lock );
    return ret < 0 ? cme_set_error( h, ret ) : 0;
}

static int cme_submit( cuda_me_t *h, int i_cur, int i_ref, const cuda_me_job_t *jp )
{
    const int error = cme_error_get( h );
    if( error )
        return error;
    const int mvrt = jp ? jp->i_mv_range_thread : 0;
    if( mvrt < 0 || (mvrt > 0 && mvrt < 8) || (mvrt > 0 && h->param.i_mv_range_thread > 0 && mvrt > h->param.i_mv_range_thread) )
    {
        cme_log( h, CUDA_ME_LOG_ERROR, "job mv_range_thread %d not supported (0: open's, else 8..%d)\n",
                 mvrt, h->param.i_mv_range_thread > 0 ? h->param.i_mv_range_thread : 65535 );
        return CUDA_ME_EINVAL;   /* nothing done; not sticky */
    }
    const int i_subpel_cost = jp && h->param.i_subme ? jp->i_subpel_cost : 0;
    if( i_subpel_cost < 0 || (i_subpel_cost && i_subpel_cost >= h->param.i_subpel_costs) )
    {
        cme_log( h, CUDA_ME_LOG_ERROR, "job i_subpel_cost %d not supported (0..%d: open's tables)\n",
                 i_subpel_cost, h->param.i_subpel_costs - 1 );
        return CUDA_ME_EINVAL;   /* nothing done; not sticky */
    }
    const int b_no_subpel = jp ? jp->b_no_subpel : 0;
    if( b_no_subpel != 0 && b_no_subpel != 1 )
    {
        cme_log( h, CUDA_ME_LOG_ERROR, "job b_no_subpel %d not supported (0 or 1)\n", b_no_subpel );
        return CUDA_ME_EINVAL;   /* nothing done; not sticky */
    }
    pthread_mutex_lock( &h->lock );
    cme_frame_t *cur = frame_find( h, i_cur );
    cme_frame_t *ref = frame_find( h, i_ref );
    if( !cur || !ref || cur->b_done || i_cur == i_ref )
    {
        pthread_mutex_unlock( &h->lock );
        return 1;
    }
    if( job_find( h, i_cur, i_ref ) )
    {
        pthread_mutex_unlock( &h->lock );
        return 1;
    }
    cme_job_t *j = h->free_jobs;
    if( j )
        h->free_jobs = j->next;
    ref->i_refs++;
    pthread_mutex_unlock( &h->lock );

    int ret = 0;
    if( !j )
    {
        j = calloc( 1, sizeof(*j) );
        ret = !j ? CUDA_ME_ENOMEM : h->be->job_alloc( h, j );
        if( ret < 0 )
        {
            if( j )
                h->be->job_free( h, j );
            free( j );
            j = NULL;
        }
    }
    if( j )
    {
        j->i_cur = i_cur;
        j->i_ref = i_ref;
        j->cur = cur;
        j->ref = ref;
        j->i_state = CME_JOB_PENDING;
        j->b_got = 0;
        j->b_centre = jp && jp->centre;
        j->b_cost = jp && jp->mv_cost;
        j->i_mv_range_thread = mvrt ? mvrt : h->param.i_mv_range_thread;
        j->i_subpel_cost = i_subpel_cost;
        j->b_subpel = h->param.i_subme && !b_no_subpel;
        if( j->b_centre )
            memcpy( j->centre, jp->centre, (size_t)h->i_mb_count * 2 * sizeof(int16_t) );
        if( j->b_cost )
            memcpy( j->mv_cost, jp->mv_cost, (4*h->param.i_range + 1) * sizeof(uint16_t) );
        ret = h->be->job_submit( h, j );
    }

    pthread_mutex_lock( &h->lock );
    if( ret < 0 )
    {
        ref->i_refs--;
        if( j )
        {
            j->next = h->free_jobs;
            h->free_jobs = j;
        }
    }
    else
    {
        j->next = h->jobs;
        h->jobs = j;
        h->stats.i_jobs++;
    }
    pthread_mutex_unlock( &h->lock );
    return ret < 0 ? cme_set_error( h, ret ) : 0;
}

static void cme_release_frame( cuda_me_t *h, int i_frame )
{
    pthread_mutex_lock( &h->lock );
    cme_frame_t *f = frame_find( h, i_frame );
    if( f )
    {
        f->b_released = 1;
        frame_maybe_free( h, f );
    }
    pthread_mutex_unlock( &h->lock );
}

/* The results of a pair (get), or its sub-pel results (b_sub). */
static const void *get_results( cuda_me_t *h, int i_cur, int i_ref, int b_sub )
{
    pthread_mutex_lock( &h->lock );
    cme_job_t *j = job_find( h, i_cur, i_ref );
    if( !j || cme_error_get( h ) )
    {
        pthread_mutex_unlock( &h->lock );
        return NULL;
    }
    if( j->i_state == CME_JOB_PENDING )
    {
        j->i_state = CME_JOB_RUNNING;
        pthread_mutex_unlock( &h->lock );
        double t0 = cme_time_ms();
        int ret = h->be->job_finish( h, j );
        double t1 = cme_time_ms();
        pthread_mutex_lock( &h->lock );
        j->i_state = ret < 0 ? CME_JOB_FAILED : CME_JOB_DONE;
        h->stats.f_wait_ms += t1 - t0;
        h->stats.i_get_waits++;
        if( ret < 0 )
            cme_error_put( h, ret );
        pthread_cond_broadcast( &h->cv );
    }
    else if( j->i_state == CME_JOB_RUNNING )
    {
        double t0 = cme_time_ms();
        while( j->i_state == CME_JOB_RUNNING )
            pthread_cond_wait( &h->cv, &h->lock );
        h->stats.f_wait_ms += cme_time_ms() - t0;
        h->stats.i_get_waits++;
    }
    const void *res = NULL;
    if( j->i_state == CME_JOB_DONE && !cme_error_get( h ) )
    {
        res = !b_sub ? (const void*)j->res : j->b_subpel ? (const void*)j->sub : NULL;
        if( !j->b_got )
            h->stats.i_jobs_got++;
        j->b_got = 1;
    }
    pthread_mutex_unlock( &h->lock );
    return res;
}

static const cuda_me_result_t *cme_get( cuda_me_t *h, int i_cur, int i_ref )
{
    return get_results( h, i_cur, i_ref, 0 );
}

static const cuda_me_subpel_result_t *cme_get_subpel( cuda_me_t *h, int i_cur, int i_ref )
{
    if( !h->param.i_subme )
        return NULL;
    return get_results( h, i_cur, i_ref, 1 );
}

static void job_recycle( cuda_me_t *h, cme_job_t *j )
{
    /* Lock not held: the job is no longer on h->jobs. */
    if( !j->b_got )
        cme_log( h, CUDA_ME_LOG_DEBUG, "frame %d was searched in frame %d, but nobody asked\n", j->i_cur, j->i_ref );
    if( j->i_state == CME_JOB_PENDING )
        h->be->job_retire( h, j );
    pthread_mutex_lock( &h->lock );
    j->ref->i_refs--;
    frame_maybe_free( h, j->ref );
    j->cur = j->ref = NULL;
    j->next = h->free_jobs;
    h->free_jobs = j;
    pthread_mutex_unlock( &h->lock );
}

static void cme_flush( cuda_me_t *h )
{
    if( h->be && h->be->flush )
        h->be->flush( h );
}

static void cme_done( cuda_me_t *h, int i_cur )
{
    cme_job_t *mine = NULL;
    pthread_mutex_lock( &h->lock );
    cme_frame_t *cur = frame_find( h, i_cur );
    pthread_mutex_unlock( &h->lock );
    /* the caller may reuse its plane once we return */
    if( cur && h->be->frame_sync )
        h->be->frame_sync( h, cur );
    pthread_mutex_lock( &h->lock );
    for( cme_job_t **p = &h->jobs; *p; )
    {
        cme_job_t *j = *p;
        if( j->i_cur == i_cur )
        {
            *p = j->next;
            j->next = mine;
            mine = j;
        }
        else
            p = &j->next;
    }
    pthread_mutex_unlock( &h->lock );

    while( mine )
    {
        cme_job_t *next = mine->next;
        job_recycle( h, mine );
        mine = next;
    }

    pthread_mutex_lock( &h->lock );
    cme_frame_t *f = frame_find( h, i_cur );
    if( f )
    {
        f->b_done = 1;
        frame_maybe_free( h, f );
    }
    pthread_mutex_unlock( &h->lock );
}

/* A lowres job's values, checked: 0, or CUDA_ME_EINVAL. */
static int lowres_check( const cuda_me_lowres_job_t *job, cme_lowres_param_t *p )
{
    if( !job || !job->p_cost_mv || !job->fenc || !job->ref[0] || !job->ref[1] ||
        !job->ref[2] || !job->ref[3] || job->i_mb_width < 1 || job->i_mb_width > 2048 || job->i_mb_height < 1 ||
        job->i_mb_height > 2048 || job->i_me_range < 4 || job->i_me_range > 1024 || job->i_mv_range < 32 ||
        job->i_mv_range > 8192 || job->i_lambda < 0 || job->i_lambda > 65535 || job->i_slices < 1 ||
        job->i_slices > job->i_mb_height || job->i_fenc_stride < 8 * job->i_mb_width ||
        job->i_stride < 8 * job->i_mb_width + 2 * CME_LOWRES_PAD || job->i_fenc_id < 0 || job->i_ref_id < 0 ||
        (job->i_fenc_id && job->i_fenc_id == job->i_ref_id) )
        return CUDA_ME_EINVAL;
    const cme_lowres_param_t q = { job->i_mb_width, job->i_mb_height, job->i_me_range, job->i_mv_range,
                                   job->i_lambda, job->i_slices, !!job->b_edges, job->p_cost_mv };
    *p = q;
    return 0;
}

static int lowres_same( const cme_lowres_param_t *a, const cme_lowres_param_t *b )
{
    return a->i_mb_width == b->i_mb_width && a->i_mb_height == b->i_mb_height && a->i_me_range == b->i_me_range &&
           a->i_mv_range == b->i_mv_range && a->i_lambda == b->i_lambda && a->i_slices == b->i_slices &&
           a->b_edges == b->b_edges && a->p_cost_mv == b->p_cost_mv;
}

static cme_lowres_entry_t *lowres_find( cuda_me_t *h, int64_t fenc_id, int64_t ref_id )
{
    if( !fenc_id || !ref_id )
        return NULL;
    for( int i = 0; i < CUDA_ME_LOWRES_QUEUE; i++ )
        if( h->lr_entry[i].i_fenc_id == fenc_id && h->lr_entry[i].i_ref_id == ref_id )
            return &h->lr_entry[i];
    return NULL;
}

/* The lookahead's search of one pair (lowres_spec.h): checked; then the
 * queued search of the pair if lowres_prefetch made one (waited for, its
 * searched blocks copied), else the backend's, now. */
static int cme_lowres_search( cuda_me_t *h, const cuda_me_lowres_job_t *job, int16_t (*mvs)[2], int *costs )
{
    cme_lowres_param_t p;
    if( !h || !mvs || !costs || lowres_check( job, &p ) )
        return CUDA_ME_EINVAL;   /* nothing done; not sticky */
    if( !h->be->lowres_queue )
        return CUDA_ME_ENOTBUILT;
    int err = cme_error_get( h );
    if( err )
        return err;
    const double t0 = cme_time_ms();
    cme_lowres_entry_t *e = lowres_find( h, job->i_fenc_id, job->i_ref_id );
    int hit = 0;
    if( e )   /* waited for even if made for other values: its buffers are free then */
    {
        err = h->be->lowres_wait( h, e->i_ticket );
        hit = lowres_same( &e->p, &p );
    }
    if( hit && err >= 0 )
    {
        for( int s = 0; s < p.i_slices; s++ )
        {
            const cme_lowres_span_t sp = cme_lowres_span( &p, s );
            for( int y = sp.y0; y <= sp.y1 && sp.x1 >= sp.x0; y++ )
            {
                const size_t i = (size_t)y * p.i_mb_width + sp.x0, k = sp.x1 - sp.x0 + 1;
                memcpy( mvs + i, e->mvs + i, k * sizeof(*mvs) );
                memcpy( costs + i, e->costs + i, k * sizeof(int) );
            }
        }
    }
    else if( err >= 0 )
    {
        int64_t t;   /* searched now, into the caller's arrays */
        err = h->be->lowres_queue( h, &p, &job, 1, &mvs, &costs, &t );
        if( err >= 0 )
            err = h->be->lowres_wait( h, t );
    }
    if( e )
        e->i_fenc_id = e->i_ref_id = 0;   /* taken, or made for other values */
    const double t1 = cme_time_ms();
    pthread_mutex_lock( &h->lock );
    if( err < 0 )
        cme_error_put( h, err );
    else
    {
        h->stats.i_lowres_pairs++;
        h->stats.i_lowres_hits += hit;
        h->stats.f_lowres_ms += t1 - t0;
    }
    pthread_mutex_unlock( &h->lock );
    return err < 0 ? err : 0;
}

/* Queues searches for later lowres_search calls (see cuda_me.h): a free
 * entry per pair not queued yet (the oldest one reused when none is, after
 * its search ran), the caller's arrays copied into it, then the backend's
 * queue, one call for all. */
static int cme_lowres_prefetch( cuda_me_t *h, const cuda_me_lowres_job_t *jobs, int n,
                                const int16_t (*const *mvs)[2], const int *const *costs )
{
    cme_lowres_param_t p, q;
    if( !h || !jobs || !mvs || !costs || n < 0 || n > CUDA_ME_LOWRES_QUEUE )
        return CUDA_ME_EINVAL;
    for( int k = 0; k < n; k++ )
        if( !mvs[k] || !costs[k] || lowres_check( &jobs[k], k ? &q : &p ) || !jobs[k].i_fenc_id ||
            !jobs[k].i_ref_id || (k && !lowres_same( &p, &q )) )
            return CUDA_ME_EINVAL;
    if( !h->be->lowres_queue )
        return CUDA_ME_ENOTBUILT;
    int err = cme_error_get( h );
    if( err || !n )
        return err;
    const size_t mb = (size_t)p.i_mb_width * p.i_mb_height;
    const cuda_me_lowres_job_t *qj[CUDA_ME_LOWRES_QUEUE];
    int16_t (*qm[CUDA_ME_LOWRES_QUEUE])[2];
    int *qc[CUDA_ME_LOWRES_QUEUE];
    cme_lowres_entry_t *qe[CUDA_ME_LOWRES_QUEUE];
    int m = 0;
    for( int k = 0; k < n && err >= 0; k++ )
    {
        if( lowres_find( h, jobs[k].i_fenc_id, jobs[k].i_ref_id ) )
            continue;
        cme_lowres_entry_t *e = NULL;
        for( int i = 0; i < CUDA_ME_LOWRES_QUEUE; i++ )
        {
            cme_lowres_entry_t *c = &h->lr_entry[i];
            if( c->i_ticket >= 0 && (!e || (!c->i_fenc_id && e->i_fenc_id) ||
                                     (!c->i_fenc_id == !e->i_fenc_id && c->i_age < e->i_age)) )
                e = c;
        }
        if( e->i_fenc_id && (err = h->be->lowres_wait( h, e->i_ticket )) < 0 )
            break;
        e->i_fenc_id = e->i_ref_id = 0;
        if( e->i_mb != mb )
        {
            h->be->lowres_free( h, e->mvs );
            h->be->lowres_free( h, e->costs );
            e->i_mb = 0;
            e->mvs = h->be->lowres_alloc( h, mb * sizeof(*e->mvs) );
            e->costs = h->be->lowres_alloc( h, mb * sizeof(int) );
            if( !e->mvs || !e->costs )
            {
                err = CUDA_ME_ENOMEM;
                break;
            }
            e->i_mb = mb;
        }
        memcpy( e->mvs, mvs[k], mb * sizeof(*e->mvs) );
        memcpy( e->costs, costs[k], mb * sizeof(int) );
        e->p = p;
        e->i_age = ++h->i_lr_age;
        e->i_ticket = -1;   /* taken by this call (tickets are >= 0) */
        qj[m] = &jobs[k];
        qm[m] = e->mvs;
        qc[m] = e->costs;
        qe[m++] = e;
    }
    int64_t ticket = 0;
    if( err >= 0 && m )
        err = h->be->lowres_queue( h, &p, qj, m, qm, qc, &ticket );
    pthread_mutex_lock( &h->lock );
    if( err < 0 )
        cme_error_put( h, err );
    else
        h->stats.i_lowres_queued += m;
    pthread_mutex_unlock( &h->lock );
    if( err < 0 )
    {
        for( int j = 0; j < m; j++ )
            qe[j]->i_ticket = 0;
        return err;
    }
    for( int j = 0; j < m; j++ )
    {
        qe[j]->i_fenc_id = qj[j]->i_fenc_id;
        qe[j]->i_ref_id = qj[j]->i_ref_id;
        qe[j]->i_ticket = ticket;
    }
    if( m )
        h->i_lr_ticket = ticket;
    return m;
}

static int cme_error( cuda_me_t *h )
{
    return cme_error_get( h );
}

static void cme_stats( cuda_me_t *h, cuda_me_stats_t *s )
{
    if( h->be->stats_sync )
        h->be->stats_sync( h );
    pthread_mutex_lock( &h->lock );
    *s = h->stats;
    pthread_mutex_unlock( &h->lock );
}

static void cme_close( cuda_me_t *h )
{
    if( !h )
        return;
    cme_flush( h );
    /* Retire every job (waits for the device), then free all slots. */
    while( h->jobs )
    {
        cme_job_t *j = h->jobs;
        h->jobs = j->next;
        job_recycle( h, j );
    }
    for( int pass = 0; pass < 2; pass++ )
    {
        cme_frame_t *f = pass ? h->free_frames : h->frames;
        while( f )
        {
            cme_frame_t *next = f->next;
            if( h->be )
                h->be->frame_free( h, f );
            free( f );
            f = next;
        }
    }
    while( h->free_jobs )
    {
        cme_job_t *j = h->free_jobs;
        h->free_jobs = j->next;
        if( h->be )
            h->be->job_free( h, j );
        free( j );
    }
    if( h->be && h->be->lowres_queue )
    {
        if( h->i_lr_ticket )
            h->be->lowres_wait( h, h->i_lr_ticket );
        for( int i = 0; i < CUDA_ME_LOWRES_QUEUE; i++ )
        {
            h->be->lowres_free( h, h->lr_entry[i].mvs );
            h->be->lowres_free( h, h->lr_entry[i].costs );
        }
    }
    if( h->be )
        h->be->uninit( h );
    free( h->mv_cost );
    free( h->subpel_cost );
    pthread_mutex_destroy( &h->lock );
    pthread_cond_destroy( &h->cv );
    free( h );
}

int cuda_me_init( int api_version, cuda_me_function_t *pf )
{
    if( api_version != CUDA_ME_API_VERSION )
        return CUDA_ME_EINVAL;
    pf->open          = cme_open;
    pf->close         = cme_close;
    pf->put_frame     = cme_put_frame;
    pf->submit        = cme_submit;
    pf->release_frame = cme_release_frame;
    pf->get           = cme_get;
    pf->done          = cme_done;
    pf->error         = cme_error;
    pf->stats         = cme_stats;
    pf->flush         = cme_flush;
    pf->get_subpel    = cme_get_subpel;
    pf->lowres_search = cme_lowres_search;
    pf->lowres_prefetch = cme_lowres_prefetch;
    return 0;
}
