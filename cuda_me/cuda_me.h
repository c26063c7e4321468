/*****************************************************************************
 * cuda_me.h: full-search integer motion estimation on the GPU, for x264
 *****************************************************************************
 * Public API.  Plain C99: no CUDA types, no x264 headers.
 *
 * The library searches, for every 16x16 macroblock of a "current" frame, every
 * integer position of a window in a "reference" frame and returns, for each of
 * the 41 H.264 partitions of the macroblock, the best motion vector and its
 * cost.  The search is defined exactly (see me_spec.h and README.md):
 *
 *   window   centre +- range (centre: (0,0) or given per macroblock), moved
 *            inside x264's static MV limits and its frame-thread limit
 *   pixels   outside the frame are the nearest edge pixel (x264's padding)
 *   cost     integer SAD of the partition + the cost of (dx,dy) - centre
 *   ties     the first position in raster order (smallest dy, then dx) wins
 *   pass 2   optionally (i_cands = 2) a second candidate per partition: the
 *            same search, +-16, centred on the median of the left, top and
 *            top-right macroblocks' pass-1 16x16 vectors (see i_cands)
 *   sub-pel  optionally (i_subme 2..11) every candidate of every partition
 *            refined to quarter-pel as x264's refine_subpel does
 *            (subpel_spec.h; see i_subme and get_subpel)
 *   lowres   separately, x264's lookahead search of one half-resolution
 *            frame pair, bit for bit as x264 does it (lowres_spec.h; see
 *            lowres_search)
 *
 * Two backends compute it: the C reference (always available) and CUDA.  Both
 * give bit-identical results, so an encoder that uses them produces
 * byte-identical bitstreams whichever backend ran.
 *
 * Threading: put_frame, submit and release_frame are called by one producer
 * thread; get, done, error and stats may be called from any thread.
 *****************************************************************************/

#ifndef CUDA_ME_CUDA_ME_H
#define CUDA_ME_CUDA_ME_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUDA_ME_API_VERSION 11

/* Partitions of one macroblock, in the order results are stored.
 * 4x4 blocks are numbered as x264 does: idx = 4*i8x8 + i4x4, where both
 * 8x8 and 4x4 go left-right then top-bottom inside their parent. */
#define CUDA_ME_NPART       41  /* all partitions (x264 --partitions p4x4) */
#define CUDA_ME_NPART_8x8    9  /* 16x16, 16x8, 8x16 and 8x8 only */
#define CUDA_ME_PART_16x16   0  /* 1 */
#define CUDA_ME_PART_16x8    1  /* 2: top, bottom */
#define CUDA_ME_PART_8x16    3  /* 2: left, right */
#define CUDA_ME_PART_8x8     5  /* 4: + i8x8 */
#define CUDA_ME_PART_8x4     9  /* 8: + 2*i8x8 + (0 top, 1 bottom) */
#define CUDA_ME_PART_4x8    17  /* 8: + 2*i8x8 + (0 left, 1 right) */
#define CUDA_ME_PART_4x4    25  /* 16: + 4*i8x8 + i4x4 */

#define CUDA_ME_RANGE_MIN    4
#define CUDA_ME_RANGE_MAX  128
#define CUDA_ME_MIN_SIZE    16  /* smallest width and height, in pixels */
#define CUDA_ME_MAX_SIZE 16384  /* largest width and height, in pixels */

/* cuda_me_param_t.i_device: the least-loaded GPU (see there). */
#define CUDA_ME_DEVICE_AUTO (-1)

enum cuda_me_backend
{
    CUDA_ME_BACKEND_AUTO = 0,   /* CUDA */
    CUDA_ME_BACKEND_CUDA = 1,
    CUDA_ME_BACKEND_C    = 2,   /* the C reference */
};

/* Log levels: the same numbers as X264_LOG_*. */
enum cuda_me_log_level
{
    CUDA_ME_LOG_ERROR   = 0,
    CUDA_ME_LOG_WARNING = 1,
    CUDA_ME_LOG_INFO    = 2,
    CUDA_ME_LOG_DEBUG   = 3,
};

/* Error codes (negative return values). */
enum cuda_me_error
{
    CUDA_ME_OK        =  0,
    CUDA_ME_EINVAL    = -1,  /* bad parameter or call sequence */
    CUDA_ME_ENOMEM    = -2,  /* host or device allocation failed */
    CUDA_ME_ENODEV    = -3,  /* no usable CUDA driver or device */
    CUDA_ME_EDEVICE   = -4,  /* a CUDA call failed */
    CUDA_ME_ENOTBUILT = -5,  /* backend not compiled in */
};

/* Best vector of one partition.  mv is full-pel and relative to the
 * macroblock (not to the partition); cost = SAD + mv_cost[2*range + mvx - cx]
 * + mv_cost[2*range + mvy - cy], (cx, cy) the centre clipped to the limits. */
typedef struct cuda_me_result_t
{
    int16_t  mv[2];
    uint32_t cost;
} cuda_me_result_t;

/* Sub-pel refinement of one candidate of one partition (i_subme 2..11),
 * the library's cme_subpel_result_t (subpel_spec.h) under its public name,
 * the same layout.  Vectors are quarter-pel and relative to the macroblock
 * (as x264's m->mv); costs are SATD (the fpel compare with b_fpel_satd,
 * see there) + MV cost from the sub-pel cost table around the predictor
 * (see subpel_cost). */
typedef struct cuda_me_subpel_result_t
{
    int16_t mv[2];          /* the refined vector (x264's m->mv after refine_subpel) */
    int32_t cost;           /* its cost (m->cost) */
    int16_t mv_hpel[2];     /* after the half-pel stage and its SATD re-score */
    int32_t cost_hpel;      /* (what x264 compares with *p_halfpel_thresh) */
} cuda_me_subpel_result_t;

#define CUDA_ME_SUBME_MAX        11  /* x264's --subme 2..11 */
#define CUDA_ME_SUBPEL_COSTS_MAX 64  /* sub-pel cost tables at open */

typedef struct cuda_me_param_t
{
    int i_width;        /* luma width in pixels, multiple of 16 */
    int i_height;       /* luma height in pixels, multiple of 16 */
    int i_range;        /* search range R: window (0,0) +- R, full-pel, 4..128 */
    int i_mv_range;     /* x264's param.analyse.i_mv_range, >= 32: static MV limits */
    /* x264's param.analyse.i_mv_range_thread after validation when it runs
     * more than one frame thread (>= 8: no vector points more than that
     * many pixels below its macroblock), else 0: no limit.  1..7 and
     * negative values are rejected. */
    int i_mv_range_thread;
    int i_parts;        /* CUDA_ME_NPART_8x8 or CUDA_ME_NPART partitions per macroblock */
    /* Candidates per partition: 0 or 1: one (the search above); 2: also a
     * second pass.  Results per macroblock: i_cands * i_parts, first the
     * i_parts winners of pass 1, then (i_cands 2) the i_parts of pass 2.
     * Pass 2 of macroblock (x, y) (me_spec.h, cme_pass2_centre): its window
     * centre is the component-wise median of pass 1's 16x16 vectors of
     * (x-1, y), (x, y-1) and (x+1, y-1), or (x-1, y-1) for the last one in
     * the last column; with fewer of them in the frame the first there is,
     * in that order (left in the top row, top in the left column); at
     * (0, 0) pass 1's clipped centre.  Clipped as any centre, range
     * 16 from i_range 32 on, below that i_range / 2 but at least
     * min(8, i_range) (cme_pass2_range), the same limits (the job's
     * frame-thread limit too) and ties.  MV cost: the same table (the
     * job's or open's), centred on the pass-2 centre: cost = SAD +
     * mv_cost[2*i_range + mvx - cx2] + mv_cost[2*i_range + mvy - cy2],
     * (cx2, cy2) the clipped pass-2 centre (|mv - c2| <= 32). */
    int i_cands;
    /* Cost of a full-pel vector component at distance d from the window
     * centre, d in [-2*i_range, 2*i_range]: mv_cost[2*i_range + d] (copied at
     * open; jobs may give their own).  NULL: pure SAD. */
    const uint16_t *mv_cost;
    int i_backend;      /* enum cuda_me_backend */
    /* CUDA device ordinal (0: the first; a zeroed struct asks for it), or
     * CUDA_ME_DEVICE_AUTO: at open, the least-loaded GPU that can run the
     * kernels (compute capability 8.0+): fewest compute processes, then
     * lowest utilisation, then most free memory, then lowest ordinal, as the
     * NVIDIA driver's NVML library (libnvidia-ml.so.1, loaded at run time)
     * reports them.  Without NVML, getpid() % the number of usable GPUs.
     * stats.device names the GPU chosen and why.  Results never depend on
     * the GPU.  Ignored by the C backend. */
    int i_device;
    /* Sub-pel refinement (API 6).  0 [default]: integer vectors only, and
     * everything below is ignored.  2..11: x264's --subme: after the
     * integer search (both passes with i_cands 2), every candidate of every
     * partition is refined as x264's refine_subpel( h, m, hpel, qpel, NULL,
     * 0 ) does at that subme (subpel_spec.h: half-pel diamond on the fpel
     * compare, SATD re-score, quarter-pel diamond on SATD; luma only, no
     * chroma ME, no weighting, no RD), on half-pel planes each put frame
     * gets.  One job per (macroblock, candidate, partition):
     *   start  4 * the integer vector; its cost the fpel compare (SAD, or
     *          SATD with b_fpel_satd) of the partition there + MV cost
     *   mvp    the candidate's window centre in quarter-pel (4 * (cx, cy):
     *          pass 1's centre, or pass 2's, clipped to the limits, where
     *          the integer search's MV cost was centred; x264's own m->mvp
     *          is known only in analyse, and x264 re-costs what it uses)
     *   limits x264's static ones (mb_analyse_init) in quarter-pel:
     *          x in [max(4*(-16*mb_x - 24), -4*i_mv_range),
     *                min(4*(16*(mb_width - mb_x - 1) + 24), 4*i_mv_range - 1)],
     *          y the same with mb_y, its maximum also at most
     *          4 * the job's frame-thread limit when there is one
     *   cost   the job's sub-pel cost table (subpel_cost, i_subpel_cost)
     * Every candidate is refined, also where pass 2 found pass 1's vector
     * (its predictor, so its result, may differ).  x264's subme 1 and RD
     * refinement (subme >= 8's qpel RD) are not offered.  Memory: 3 more
     * planes per frame (1080p: 3 x 2.3 MB, on the device for CUDA) and 16
     * bytes of results per (macroblock, candidate, partition) per pair in
     * flight (1080p, 41 partitions, 2 candidates: 10.7 MB, pinned for
     * CUDA), plus the jobs (32 bytes each) per CUDA stream. */
    int i_subme;
    int b_fpel_satd;    /* i_subme: the fpel compare is SATD (x264's --me tesa), else SAD */
    /* i_subme: the MV cost tables of sub-pel refinement (copied at open):
     * i_subpel_costs tables one after the other, 16*i_mv_range + 1 entries
     * each; entry 8*i_mv_range + d of a table is the cost of a vector
     * component d quarter-pels from the predictor, |d| <= 8*i_mv_range.
     * That is x264's h->cost_mv[qp] (encoder/analyse.c init_costs, which
     * spans exactly +-8*i_mv_range): the glue copies h->cost_mv[qp] -
     * 8*i_mv_range for the QPs it expects (e.g. one per slice type, as it
     * makes mv_cost today); for the record
     *   cost_mv[qp][d] = min( (int)(lambda * l(|d|) + .5f), 65535 ),
     *   lambda = x264_lambda_tab[qp], l(0) = 0.718, l(i) = 2*log2(i+1) + 1.718.
     * Each job picks one (cuda_me_job_t.i_subpel_cost). */
    const uint16_t *subpel_cost;
    int i_subpel_costs; /* i_subme: 1..CUDA_ME_SUBPEL_COSTS_MAX */
    /* i_subme (API 7): the partitions refined, i_subpel_parts of them from
     * i_subpel_first (API 8) in the order above (0 and 1: 16x16 only;
     * CUDA_ME_PART_8x8 and 4: the four 8x8s; 0 and CUDA_ME_NPART_8x8: 16x16
     * down to 8x8); i_subpel_parts 0 [default]: from i_subpel_first [0] to
     * i_parts.  get_subpel()'s results are then [mb][cands][i_subpel_parts],
     * entry k refining partition i_subpel_first + k: refinements nobody
     * reads cost nothing (41 partitions refined are 4.6x the work of 9, and
     * 9 are 4x the pixels of the four 8x8s). */
    int i_subpel_parts;
    int i_subpel_first;
    /* Log callback, may be NULL (then messages go to stderr). */
    void (*pf_log)( void *opaque, int i_level, const char *fmt, va_list ap );
    void *p_log_opaque;
} cuda_me_param_t;

typedef struct cuda_me_stats_t
{
    int     i_backend;          /* backend that ran: CUDA_ME_BACKEND_CUDA or _C */
    char    device[128];        /* device or backend name */
    int64_t i_frames;           /* frames put */
    int64_t i_jobs;             /* pairs submitted */
    int64_t i_jobs_got;         /* pairs whose results were read by get() */
    int64_t i_get_waits;        /* get() calls that had to wait */
    double  f_search_ms;        /* time spent in the integer search (GPU kernels, or C) */
    double  f_upload_ms;        /* host-to-device copies of frames */
    double  f_download_ms;      /* device-to-host copies of results */
    /* Time the GPU worked for this context: the union of the intervals of
     * uploads, searches and downloads (work overlapping on its streams
     * counts once; the sum of the three above does not).  C backend: the
     * search time (with i_subme, plus f_subpel_ms). */
    double  f_busy_ms;
    double  f_wait_ms;          /* time callers of get() spent blocked */
    int64_t i_device_bytes;     /* device memory held now */
    int64_t i_device_bytes_peak;
    int64_t i_host_bytes;       /* host (pinned) memory held now */
    /* i_subme: time spent in sub-pel refinement (GPU: making the jobs and
     * refining them, from the end of the integer search to the end of the
     * refinement; C: the same), and partitions refined (jobs x macroblocks
     * x i_cands x i_parts).  The half-pel planes count as uploads. */
    double  f_subpel_ms;
    int64_t i_subpel_parts;
    /* lowres_search: frame pairs searched, and the time they took (the
     * call's wall time: uploads, kernel, downloads; C: the search) */
    int64_t i_lowres_pairs;
    double  f_lowres_ms;
    /* lowres_prefetch (API 10): pairs queued, and of lowres_search's pairs
     * those it found queued (the rest it searched then) */
    int64_t i_lowres_queued, i_lowres_hits;
} cuda_me_stats_t;

/* The lookahead's lowres search of one frame pair (API 9): x264's own
 * search (slicetype_mb_cost with do_search, x264_me_search_ref with hex
 * and subme 4, lowres_spec.h), for every 8x8 block of the half-resolution
 * frame in x264's reverse raster order per lookahead slice.  Independent
 * of open()'s frames, sizes and range. */
typedef struct cuda_me_lowres_job_t
{
    int i_mb_width;             /* 8x8 blocks per row (x264's h->mb.i_mb_width), 1..2048 */
    int i_mb_height;            /* rows, 1..2048 */
    int i_me_range;             /* the lookahead's range (i_me_range_la, else --merange), 4..1024 */
    int i_mv_range;             /* param.analyse.i_mv_range, 32..8192 */
    int i_lambda;               /* the lookahead's lambda (a->i_lambda), 0..65535 */
    int i_slices;               /* param.i_lookahead_threads, 1..i_mb_height */
    int b_edges;                /* x264's do_edges: the outer ring of blocks is searched too */
    /* a->p_cost_mv: the cost of a component d quarter-pels from the
     * predictor at p_cost_mv[d], for |d| <= 8 * i_mv_range */
    const uint16_t *p_cost_mv;
    const uint8_t *fenc;        /* lowres plane of the frame searched, pixel (0,0) */
    intptr_t i_fenc_stride;
    /* the reference's lowres planes F, H, V, C (x264's lowres[0..3]), pixel
     * (0,0), one stride, each with x264's replicated border of 32 pixels */
    const uint8_t *ref[4];
    intptr_t i_stride;
    /* API 10: the frames' identities, 0 if unknown.  A backend may keep a
     * frame's planes from one pair to the next (the CUDA backend keeps the
     * last 24 frames on the device, LR_SLOTS in cuda.c): a non-zero id
     * must name one content of the planes for the whole life of the handle
     * (x264: its frame number plus one), fenc's plane the F of ref[] of
     * the same id. */
    int64_t i_fenc_id, i_ref_id;
} cuda_me_lowres_job_t;

/* Optional per-search parameters (copied by submit). */
typedef struct cuda_me_job_t
{
    const int16_t *centre;      /* [mb_y][mb_x][2]: full-pel window centres; NULL: (0,0) */
    const uint16_t *mv_cost;    /* 4*i_range+1 entries as in cuda_me_param_t; NULL: open()'s */
    /* The frame-thread MV limit of this search (x264 may choose it per
     * frame), as cuda_me_param_t.i_mv_range_thread: 0 open()'s; else >= 8,
     * and at most open()'s when that is not 0.  Smaller: fewer rows below
     * the macroblock searched. */
    int i_mv_range_thread;
    /* i_subme: the sub-pel cost table of this search, 0..i_subpel_costs-1
     * (cuda_me_param_t.subpel_cost); ignored without i_subme. */
    int i_subpel_cost;
    /* API 11, i_subme: 1 if nobody will read this pair's sub-pel results
     * (x264 refines them itself, or not at all): the pair is searched at
     * full pel only and get_subpel() returns NULL for it.  0 [default]:
     * refined as open() says. */
    int b_no_subpel;
} cuda_me_job_t;

typedef struct cuda_me_t cuda_me_t;

/* The hook table.  Every member is always set. */
typedef struct cuda_me_function_t
{
    /* NULL on failure, after logging why.  *err (if not NULL) gets the code. */
    cuda_me_t *(*open)( const cuda_me_param_t *param, int *err );
    /* Waits for work in flight, frees everything. */
    void (*close)( cuda_me_t *h );
    /* Takes the luma plane (i_width x i_height, i_stride bytes per row) of a
     * new frame.  The CUDA backend copies it on its own thread: the plane
     * must stay unchanged until done(i_frame) or flush() returns.  Errors may
     * also show later, in error() and as NULL from get(). */
    int  (*put_frame)( cuda_me_t *h, int i_frame, const uint8_t *luma, intptr_t i_stride );
    /* Searches i_cur against i_ref, asynchronously.  Both must have been put.
     * job may be NULL.  Returns 0, or 1 if a frame is unknown or the pair was
     * already submitted (nothing done), CUDA_ME_EINVAL if job's values are
     * out of range (nothing done), or < 0 (an error, also from error()). */
    int  (*submit)( cuda_me_t *h, int i_cur, int i_ref, const cuda_me_job_t *job );
    /* No new job will name i_frame as a reference (call once per frame). */
    void (*release_frame)( cuda_me_t *h, int i_frame );
    /* Results of a submitted pair: [mb_y][mb_x][cands][i_parts], cands 1 or
     * 2 (i_cands).  Blocks until they
     * are ready.  NULL if the pair was never submitted or an error occurred.
     * Valid until done(i_cur); may be called many times from many threads. */
    const cuda_me_result_t *(*get)( cuda_me_t *h, int i_cur, int i_ref );
    /* i_cur is finished: frees its results. */
    void (*done)( cuda_me_t *h, int i_cur );
    /* Sticky error: 0, or the first error code. */
    int  (*error)( cuda_me_t *h );
    void (*stats)( cuda_me_t *h, cuda_me_stats_t *s );
    /* Waits until every frame put has been read: their planes may go. */
    void (*flush)( cuda_me_t *h );
    /* i_subme: the sub-pel results of a submitted pair, laid out as get()'s
     * but with i_subpel_parts partitions: [mb_y][mb_x][cands][i_subpel_parts],
     * entry k refining get()'s result of the same macroblock and candidate
     * for partition i_subpel_first + k (its vector times 4 is the start).
     * Blocks as get() does; NULL where get() is, always without i_subme,
     * and for a pair submitted with b_no_subpel.  Valid until done(i_cur). */
    const cuda_me_subpel_result_t *(*get_subpel)( cuda_me_t *h, int i_cur, int i_ref );
    /* The lookahead's search of one pair (cuda_me_lowres_job_t), now:
     * returns when mvs and costs hold the results.  mvs and costs are
     * x264's arrays of the pair (fenc->lowres_mvs[l][d-1],
     * lowres_mv_costs[l][d-1]; i_mb_width per row): the entries of the
     * blocks searched are written, the others read where x264 reads them
     * (neighbours outside the searched area, without b_edges).  One caller
     * at a time; may run while other threads call get().  Returns 0,
     * CUDA_ME_EINVAL (nothing done; not sticky), CUDA_ME_ENOTBUILT (no such
     * search in this backend), or < 0: an error, then sticky. */
    int (*lowres_search)( cuda_me_t *h, const cuda_me_lowres_job_t *job, int16_t (*mvs)[2], int *costs );
    /* API 10: queues the searches of n pairs for later lowres_search calls
     * of the same pairs (by i_fenc_id and i_ref_id, both non-zero, and the
     * same values), which then only wait for them and copy the results: a
     * caller that knows which pairs it will ask for takes the search off
     * its own path, and the GPU runs the pairs of one call at once.
     * mvs[k], costs[k]: the arrays job k's lowres_search will be given, as
     * they are now and will be then outside the searched area (the search
     * reads those entries; lowres_search writes only the searched ones).
     * A pair already queued is skipped; at most CUDA_ME_LOWRES_QUEUE wait,
     * the oldest forgotten first (each holds its two arrays in pinned host
     * memory: 8 bytes per block, 64 KiB for a 1080p pair).  Same caller
     * rule as lowres_search.
     * Returns the number of pairs queued, CUDA_ME_EINVAL (nothing done; not
     * sticky), CUDA_ME_ENOTBUILT, or < 0: an error, then sticky. */
    int (*lowres_prefetch)( cuda_me_t *h, const cuda_me_lowres_job_t *jobs, int n,
                            const int16_t (*const *mvs)[2], const int *const *costs );
} cuda_me_function_t;

/* x264's lookahead at --b-adapt 2 (presets slower, veryslow) holds ~47
 * frames at 16 threads and may ask for up to 2 * bframes + 1 pairs of each
 * as it comes in: at 128, 49% of the pairs veryslow asked for had been
 * forgotten (street 1080p, H200) */
#define CUDA_ME_LOWRES_QUEUE 512

/* Fills *pf.  Returns 0, or < 0 if api_version is not CUDA_ME_API_VERSION. */
int cuda_me_init( int api_version, cuda_me_function_t *pf );

/* Name of a backend, of an error code. */
const char *cuda_me_backend_name( int i_backend );
const char *cuda_me_strerror( int err );

/* Whether the CUDA backend was compiled in (1) or not (0). */
int cuda_me_have_cuda( void );

#ifdef __cplusplus
}
#endif

#endif
