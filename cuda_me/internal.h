/*****************************************************************************
 * internal.h: private structures of the cuda_me library
 *****************************************************************************/

#ifndef CUDA_ME_INTERNAL_H
#define CUDA_ME_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "cuda_me.h"
#include "me_spec.h"
#include "subpel_spec.h"
#include "subpel_jobs.h"
#include "lowres_spec.h"

#define CME_MAX_PARTS CUDA_ME_NPART

/* A source frame known to the library.  Slots are recycled through a free
 * list, so their buffers are allocated once and reused. */
typedef struct cme_frame_t
{
    int i_frame;
    int b_released;          /* no new job will name it as reference */
    int b_done;              /* done() was called with it as current frame */
    int i_refs;              /* live jobs that name it as reference */
    uint8_t *plane;          /* C backend: pixel (0,0) of a CME_PAD-bordered copy */
    uint8_t *hpel[3];        /* C backend, i_subme: its H, V, C planes (pixel (0,0), i_stride) */
    intptr_t i_stride;
    void *p_alloc;           /* C backend: the allocation behind plane */
    void *gpu;               /* CUDA backend: struct cme_cuda_frame_t */
    struct cme_frame_t *next;
} cme_frame_t;

enum cme_job_state
{
    CME_JOB_PENDING = 0,     /* submitted; results not known to be ready */
    CME_JOB_RUNNING,         /* a get() is computing or waiting for them */
    CME_JOB_DONE,
    CME_JOB_FAILED,
};

typedef struct cme_job_t
{
    int i_cur, i_ref;
    cme_frame_t *cur, *ref;
    int i_state;
    int b_got;               /* results were read at least once */
    cuda_me_result_t *res;   /* [mb][i_cands][i_parts] */
    cme_subpel_result_t *sub;        /* i_subme: the same layout, sub-pel */
    cme_subpel_job_t *sub_job;       /* C backend, i_subme: the jobs (scratch) */
    int i_subpel_cost;       /* the job's sub-pel cost table (cuda_me_job_t) */
    int b_subpel;            /* i_subme and not the job's b_no_subpel: refined */
    int16_t *centre;         /* [mb][2], valid if b_centre */
    uint16_t *mv_cost;       /* 4*range+1, valid if b_cost */
    int b_centre, b_cost;
    int i_mv_range_thread;   /* the job's frame-thread limit (cuda_me_job_t), 0: none */
    void *gpu;               /* CUDA backend: struct cme_cuda_job_t */
    struct cme_job_t *next;
} cme_job_t;

typedef struct cme_backend_t
{
    const char *name;
    int  (*init)( cuda_me_t *h );
    void (*uninit)( cuda_me_t *h );
    /* Buffers of a new frame or job slot (res, centre, mv_cost); called when
     * no free slot exists. */
    int  (*frame_alloc)( cuda_me_t *h, cme_frame_t *f );
    void (*frame_free)( cuda_me_t *h, cme_frame_t *f );
    int  (*frame_put)( cuda_me_t *h, cme_frame_t *f, const uint8_t *luma, intptr_t i_stride );
    int  (*job_alloc)( cuda_me_t *h, cme_job_t *j );
    void (*job_free)( cuda_me_t *h, cme_job_t *j );
    /* Starts the search (may do nothing: then job_finish computes). */
    int  (*job_submit)( cuda_me_t *h, cme_job_t *j );
    /* Blocks until j->res holds the results. */
    int  (*job_finish)( cuda_me_t *h, cme_job_t *j );
    /* j is about to be recycled: wait for any work still reading its buffers. */
    void (*job_retire)( cuda_me_t *h, cme_job_t *j );
    /* Optional: wait until the caller's plane of f has been read; until
     * everything queued has run. */
    void (*frame_sync)( cuda_me_t *h, cme_frame_t *f );
    void (*flush)( cuda_me_t *h );
    /* Optional: bring h->stats up to date (called without h->lock). */
    void (*stats_sync)( cuda_me_t *h );
    /* Optional: the lookahead's searches of n pairs (lowres_spec.h) with one
     * p (the jobs' values, checked), queued: search k reads and writes
     * mvs[k], costs[k] (which must stay until it ran: lowres_alloc's
     * buffers, or the caller's when it waits at once); *ticket for
     * lowres_wait, which returns once the searches of that ticket and every
     * earlier one have run. */
    int  (*lowres_queue)( cuda_me_t *h, const cme_lowres_param_t *p, const cuda_me_lowres_job_t *const *jobs,
                          int n, int16_t (*const *mvs)[2], int *const *costs, int64_t *ticket );
    int  (*lowres_wait)( cuda_me_t *h, int64_t ticket );
    void *(*lowres_alloc)( cuda_me_t *h, size_t bytes );
    void (*lowres_free)( cuda_me_t *h, void *p );
} cme_backend_t;

enum cme_fault_kind
{
    CME_FAULT_ALLOC = 0,     /* host or device allocation */
    CME_FAULT_LAUNCH,        /* kernel launch (CUDA) / search (C) */
    CME_FAULT_COPY,          /* a copy between host and device (CUDA) / frame copy (C) */
    CME_FAULT_DEVICE,        /* device open */
    CME_FAULT_KINDS
};

/* A pair lowres_prefetch queued, until lowres_search takes it. */
typedef struct cme_lowres_entry_t
{
    int64_t i_fenc_id, i_ref_id;   /* 0: free */
    cme_lowres_param_t p;
    int16_t (*mvs)[2];             /* the caller's arrays in, the results out (lowres_alloc) */
    int *costs;
    size_t i_mb;                   /* blocks the buffers hold */
    int64_t i_ticket;              /* the backend's, for lowres_wait (-1: being filled by lowres_prefetch) */
    int64_t i_age;
} cme_lowres_entry_t;

struct cuda_me_t
{
    cuda_me_param_t param;
    uint16_t *mv_cost;       /* own copy, 4*range+1 entries, or NULL */
    int i_mb_width, i_mb_height, i_mb_count;
    int i_parts;
    int i_cands;             /* 1 or 2: results per macroblock are i_cands * i_parts */
    uint16_t *subpel_cost;   /* i_subme: own copy, i_subpel_costs tables of i_subpel_cost_size */
    int i_subpel_cost_size;  /* 16*i_mv_range + 1 */
    int i_sub_first;         /* i_subme: the first partition refined (param.i_subpel_first) */
    int i_sub_parts;         /* i_subme: partitions refined from i_sub_first (param.i_subpel_parts, 0: to i_parts) */
    size_t i_sub_count;      /* sub-pel results per pair: mb_count * i_cands * i_sub_parts */
    int i_backend;           /* CUDA_ME_BACKEND_CUDA or _C after open */
    const cme_backend_t *be;
    void *gpu;               /* CUDA backend state */

    pthread_mutex_t lock;
    pthread_cond_t  cv;
    cme_frame_t *frames, *free_frames;
    cme_job_t   *jobs, *free_jobs;
    int i_error;             /* sticky; written under lock, read anywhere: only
                              * through cme_error_get() / cme_error_put() */

    int64_t fault_at[CME_FAULT_KINDS];   /* 1-based index of the op to fail, 0 = never */
    int64_t fault_count[CME_FAULT_KINDS];

    cuda_me_stats_t stats;

    /* lowres_prefetch / lowres_search (one caller at a time) */
    cme_lowres_entry_t lr_entry[CUDA_ME_LOWRES_QUEUE];
    int64_t i_lr_age, i_lr_ticket;
};

/* ---- common.c: shared by the hook table (api.c) and both backends */

void cme_log( cuda_me_t *h, int i_level, const char *fmt, ... )
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The sticky error, read without the lock (acquire: what the failing thread
 * did before recording it is visible). */
static inline int cme_error_get( cuda_me_t *h )
{
    return __atomic_load_n( &h->i_error, __ATOMIC_ACQUIRE );
}

/* Records err if no error was recorded before.  Lock held. */
static inline void cme_error_put( cuda_me_t *h, int err )
{
    if( !__atomic_load_n( &h->i_error, __ATOMIC_RELAXED ) )
        __atomic_store_n( &h->i_error, err, __ATOMIC_RELEASE );
}

/* Records the first error (takes the lock); returns err. */
int cme_set_error( cuda_me_t *h, int err );

/* Fault injection (environment CUDA_ME_FAULT="alloc:N,launch:N,copy:N,device:N"):
 * cme_fault_parse reads it into h at open; cme_fault returns 1 if this
 * operation, the Nth of its kind, must fail. */
void cme_fault_parse( cuda_me_t *h );
int cme_fault( cuda_me_t *h, int kind );

double cme_time_ms( void );

/* The union of intervals of device work that arrive out of order (they
 * are booked when someone waits for them, on several threads): kept until
 * CME_BUSY_LAG later ones have come, then folded in start order.  Exact
 * when no interval comes more than CME_BUSY_LAG after one that starts
 * later (x264 waits for about frame threads x references of them). */
#define CME_BUSY_LAG 512
typedef struct cme_busy_t
{
    struct { double a, b; } span[2*CME_BUSY_LAG];
    int n;
    double end;          /* end of the union folded so far */
    double total;        /* its length */
} cme_busy_t;
void   cme_busy_add( cme_busy_t *b, double start, double end );
double cme_busy_total( cme_busy_t *b );   /* folds every interval kept */

/* The C reference search of one frame pair.  cur and ref point at pixel (0,0)
 * of planes with at least 18 replicated pixels on every side (CME_PAD are
 * stored).  i_mv_range_thread: x264's frame-thread limit, 0: none (me_spec.h).
 * i_cands 2: also pass 2 (cuda_me.h); out is [mb][i_cands][i_parts]. */
void cme_search_c( const uint8_t *cur, intptr_t i_cur_stride,
                   const uint8_t *ref, intptr_t i_ref_stride,
                   int i_mb_width, int i_mb_height, int i_range, int i_mv_range, int i_mv_range_thread,
                   const uint16_t *mv_cost, const int16_t *centre, int i_parts, int i_cands,
                   cuda_me_result_t *out );

/* subpel_c.c: the half-pel planes H, V, C (dst[0..2], at (0,0), a
 * CME_HPEL_PAD border written too) of the w x h plane src (at (0,0), with a
 * replicated border of at least 11 pixels), subpel_spec.h's rule. */
void cme_hpel_planes_c( const uint8_t *src, intptr_t i_src_stride, int w, int h,
                        uint8_t *const dst[3], intptr_t i_dst_stride );
/* subpel_c.c: one partition's sub-pel refinement (cme_refine_subpel). */
void cme_refine_subpel_c( const uint8_t *fenc, intptr_t i_fenc_stride, const uint8_t *const plane[4],
                          intptr_t i_stride, const cme_subpel_param_t *p, int mvx, int mvy, int cost,
                          cme_subpel_result_t *r );
/* subpel_c.c: n partitions of one frame pair (cme_refine_subpel_job): the
 * reference of the CUDA kernel cme_cuda_refine_subpel (kernels.h). */
void cme_refine_subpel_batch_c( const uint8_t *cur, intptr_t i_cur_stride, const uint8_t *const plane[4],
                                intptr_t i_stride, const uint16_t *cost_mv, const cme_subpel_job_t *job, int n,
                                cme_subpel_result_t *out );

/* The sub-pel jobs of one searched pair (subpel_jobs.h) from cme_search_c's
 * results res (same arguments), into job[mb][i_cands][i_sub_parts] for the
 * i_sub_parts partitions from i_sub_first (i_sub_first + i_sub_parts <=
 * i_parts): table cost_mv + i_cost_mv (its centre) for all. */
void cme_subpel_jobs_c( const uint8_t *cur, intptr_t i_cur_stride, const uint8_t *ref, intptr_t i_ref_stride,
                        int i_mb_width, int i_mb_height, int i_range, int i_mv_range, int i_mv_range_thread,
                        const int16_t *centre, const cuda_me_result_t *res, int i_parts, int i_cands,
                        int i_sub_first, int i_sub_parts, const uint16_t *cost_mv, int i_cost_mv, int i_subme,
                        int b_fpel_satd, cme_subpel_job_t *job );

/* lowres_c.c: the lookahead's search of one pair (lowres_spec.h), the
 * reference of the CUDA kernel: entries of the blocks searched written. */
void cme_lowres_frame_c( const cme_lowres_param_t *p, const uint8_t *fenc, intptr_t i_fenc_stride,
                         const uint8_t *const ref[4], intptr_t i_stride, int16_t (*mvs)[2], int *costs );

/* Copies a w x h plane into dst (pixel (0,0), stride) and replicates its
 * edges CME_PAD pixels outwards. */
void cme_copy_padded( uint8_t *dst, intptr_t i_dst_stride, const uint8_t *src, intptr_t i_src_stride,
                      int w, int h );

extern const cme_backend_t cme_backend_c;
extern const cme_backend_t cme_backend_cuda;

/* CUDA backend helpers for tests and the benchmark (cuda.c). */
int cme_cuda_device_count( void );

#endif
