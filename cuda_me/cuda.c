/*****************************************************************************
 * cuda.c: the CUDA backend's host side: device, streams, buffers, errors
 *****************************************************************************
 * Work flow of one encoder.  put_frame and submit only queue a command for
 * the backend's worker thread, so the caller (x264's lookahead) pays nothing
 * for copies and launches; the worker does, in order:
 *   upload: the caller's luma plane is copied into one of CME_STAGES pinned
 *           staging buffers, then to a device frame on the upload stream,
 *           padded, and at ranges up to CME_XPLANE_RANGE_MAX its 4-byte
 *           plane made (the search copies its windows from it: kernels.h);
 *           an event marks the frame uploaded.  The caller's plane must
 *           stay valid until done() or flush(), which wait for this copy.
 *   search: on the next of CME_STREAMS job streams: wait for both frames'
 *           events, search (kernels 1+2 and 3), copy the results into the
 *           job's pinned buffer, record an event.  With i_subme, between
 *           the two: make the sub-pel jobs from the results and refine them
 *           (subpel_cuda.cu) on the same stream, results copied too; and
 *           every upload also makes the frame's half-pel planes.
 *   get:    waits until the worker has launched the job, then for its event
 *           (the first caller; others wait on the library's condition
 *           variable).
 *   done:   recycles the job; frames are recycled once released, done and
 *           no longer named by a job, so nothing is freed while the GPU may
 *           still read it.
 * Device and pinned buffers come from free lists that only grow until the
 * number of frames in flight is reached: no allocation per frame after that.
 * Every CUDA call goes through CME_CUDA(), which logs the call and the error
 * and returns CUDA_ME_EDEVICE (or CUDA_ME_ENOMEM); the first error is sticky.
 *****************************************************************************/

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#if HAVE_CUDA

#include <dlfcn.h>
#include <unistd.h>
#include <cuda_runtime_api.h>

#include "device_pick.h"

#include "kernels.h"

/* The GPU architectures this build has kernels for (configure passes the
 * real list). */
#ifndef CUDA_ME_ARCHS
#define CUDA_ME_ARCHS "sm_90"
#endif
/* The oldest compute capability the kernels can be built for
 * (__reduce_min_sync). */
#define CME_MIN_MAJOR 8

#define CME_STREAMS 2
#define CME_STAGES  3
/* The events x264's threads wait on (a job's results, a staging buffer,
 * the lookahead's searches): the waiting thread sleeps instead of
 * spinning.  By default CUDA spins when a process has fewer contexts than
 * cores, and with 16 frame threads on 16 cores a spinning waiter takes a
 * core that another frame's thread could use (or, with one thread per
 * encode, the lookahead of one encode spins on a core another encode
 * needs).  A job's wait is milliseconds long; the wake-up latency is
 * microseconds. */
#define CME_WAIT_EVENT cudaEventBlockingSync
#define CME_MAX_GPUS 64           /* GPUs CUDA_ME_DEVICE_AUTO looks at */

typedef struct cme_cmd_t
{
    int b_search;                 /* 0: upload a frame, 1: launch a job */
    void *obj;                    /* cme_frame_t or cme_job_t */
    struct cme_cmd_t *next;
} cme_cmd_t;

#define LR_SLOTS 24     /* lowres frames kept on the device */
#define LR_EVENTS 64
#define LR_STAGES 12    /* pinned staging buffers of the lowres planes' copies */

typedef struct cme_cuda_t
{
    int i_device;
    /* lowres_search (one caller at a time): its stream, and its buffers
     * with their sizes in bytes (grown as needed, kept) */
    cudaStream_t lr_stream;
    uint8_t *lr_planes;           /* LR_SLOTS frames: F, H, V, C with their border */
    /* level 1: F inside, 2: all four; pin: the launch being put together reads it */
    struct { int64_t id; int level; int64_t used, pin; } lr_slot[LR_SLOTS];
    int lr_w, lr_h;               /* the slots' lowres size (another: all emptied) */
    int64_t lr_clock, lr_launch;
    cudaEvent_t lr_ev[LR_EVENTS]; /* lr_ev[t % LR_EVENTS]: recorded after the copies of ticket t */
    int64_t lr_ticket;
    int16_t (*lr_mvs)[2];
    int *lr_costs;
    uint16_t *lr_cost;
    const uint16_t *lr_cost_src;  /* the x264 table lr_cost holds (x264's tables stay put), or NULL */
    size_t lr_cost_n;             /* its length (a longer one: a new buffer) */
    int *lr_sync;
    /* A copy from pageable memory first waits for its stream, which would
     * hold the lookahead until every earlier search has run: the planes go
     * through pinned staging instead, each buffer free again once its
     * event has passed. */
    uint8_t *lr_stage[LR_STAGES];
    cudaEvent_t lr_stage_ev[LR_STAGES];
    int lr_stage_used[LR_STAGES];
    size_t lr_stage_bytes;        /* of each buffer */
    int lr_stage_next;
    size_t lr_planes_bytes, lr_mvs_bytes, lr_costs_bytes, lr_cost_bytes, lr_sync_bytes;
    cudaEvent_t t0;               /* recorded at init: the origin of spans */
    pthread_mutex_t busy_lock;    /* busy (taken before h->lock) */
    cme_busy_t busy;              /* the device's work, ms since t0 */
    pthread_t worker;
    int b_worker;
    pthread_mutex_t qlock;        /* the queue, and the states below */
    pthread_cond_t qcv;
    cme_cmd_t *head, *tail;
    int b_exit;
    cudaStream_t up_stream;
    cudaStream_t stream[CME_STREAMS];
    int i_next_stream;
    uint64_t *d_scratch[CME_STREAMS];
    cuda_me_result_t *d_out[CME_STREAMS];
    int16_t *d_centre[CME_STREAMS];     /* the job's centres, copied per job */
    int16_t *d_centre2[CME_STREAMS];    /* two candidates: pass 2's centres (cme_cuda_search_pass2) */
    uint16_t *d_cost[CME_STREAMS];      /* the job's MV costs, copied per job */
    uint16_t *d_mv_cost;
    cme_subpel_job_t *d_sjob[CME_STREAMS];      /* i_subme: the pair's sub-pel jobs, then their order[] */
    cme_subpel_result_t *d_sub[CME_STREAMS];    /* i_subme: their results */
    uint16_t *d_subpel_cost;                    /* i_subme: open's sub-pel cost tables */
    uint8_t *h_stage[CME_STAGES];
    cudaEvent_t stage_start[CME_STAGES], stage_end[CME_STAGES];
    int b_stage_used[CME_STAGES];
    int i_next_stage;
    int i_pitch;                  /* device frames, bytes */
    size_t frame_bytes;           /* one padded device frame */
    int b_xplane;                 /* frames have their 4-byte plane (CME_XPLANE_RANGE_MAX) */
    size_t scratch_bytes, out_bytes, centre_bytes, cost_bytes;
    size_t sub_bytes, sjob_bytes;               /* i_subme, else 0 */
} cme_cuda_t;

typedef struct cme_cuda_frame_t
{
    uint8_t *d_alloc;
    uint8_t *d_plane;             /* pixel (0,0) */
    uint8_t *d_hpel[3];           /* i_subme: H, V, C at (0,0), one pitch (CME_HPEL_PAD == CME_PAD) */
    uint32_t *d_xplane;           /* b_xplane: its 4-byte plane at (0,0) (kernels.h, cme_cuda_xplane), else NULL */
    cudaEvent_t uploaded;
    const uint8_t *src;           /* the caller's plane, until copied */
    intptr_t i_src_stride;
    int i_copied;                 /* 0: queued, 1: copied, -1: failed */
    cme_cmd_t cmd;
} cme_cuda_frame_t;

typedef struct cme_cuda_job_t
{
    cudaEvent_t start, searched, refined, copied;   /* refined: i_subme only */
    int b_counted;
    int i_launched;               /* 0: queued, 1: launched, -1: failed */
    cme_cmd_t cmd;
} cme_cuda_job_t;

/* ---------------------------------------------------------------- checks */

static int cuda_check( cuda_me_t *h, cudaError_t e, const char *call )
{
    if( e == cudaSuccess )
        return 0;
    cme_log( h, CUDA_ME_LOG_ERROR, "%s failed -> %s: %s\n", call, cudaGetErrorName( e ), cudaGetErrorString( e ) );
    return e == cudaErrorMemoryAllocation ? CUDA_ME_ENOMEM : CUDA_ME_EDEVICE;
}

/* Runs the call unless fault injection says it fails; logs and maps errors. */
#define CME_CUDA( kind, x ) \
    cuda_check( h, (kind) >= 0 && cme_fault( h, (kind) ) \
                   ? ((kind) == CME_FAULT_ALLOC ? cudaErrorMemoryAllocation : cudaErrorLaunchFailure) \
                   : (x), #x )
#define NOFAULT (-1)

static int device_account( cuda_me_t *h, int64_t bytes )
{
    pthread_mutex_lock( &h->lock );
    h->stats.i_device_bytes += bytes;
    if( h->stats.i_device_bytes > h->stats.i_device_bytes_peak )
        h->stats.i_device_bytes_peak = h->stats.i_device_bytes;
    pthread_mutex_unlock( &h->lock );
    return 0;
}

static int host_account( cuda_me_t *h, int64_t bytes )
{
    pthread_mutex_lock( &h->lock );
    h->stats.i_host_bytes += bytes;
    pthread_mutex_unlock( &h->lock );
    return 0;
}

static void add_ms( cuda_me_t *h, double *acc, cudaEvent_t a, cudaEvent_t b )
{
    float ms = 0;
    if( cudaEventElapsedTime( &ms, a, b ) == cudaSuccess )
    {
        pthread_mutex_lock( &h->lock );
        *acc += ms;
        pthread_mutex_unlock( &h->lock );
    }
}

/* Work from event a to event b (both complete) kept the device busy.  Its
 * place is the float ms since t0, its length exact. */
static void add_busy( cuda_me_t *h, cudaEvent_t a, cudaEvent_t b )
{
    cme_cuda_t *g = h->gpu;
    float pos = 0, len = 0;
    if( cudaEventElapsedTime( &pos, g->t0, a ) != cudaSuccess || cudaEventElapsedTime( &len, a, b ) != cudaSuccess )
    {
        cudaGetLastError();
        return;
    }
    pthread_mutex_lock( &g->busy_lock );
    cme_busy_add( &g->busy, pos, (double)pos + len );
    pthread_mutex_unlock( &g->busy_lock );
}

static void cu_stats_sync( cuda_me_t *h )
{
    cme_cuda_t *g = h->gpu;
    if( !g )
        return;
    pthread_mutex_lock( &g->busy_lock );
    double busy = cme_busy_total( &g->busy );
    pthread_mutex_lock( &h->lock );
    h->stats.f_busy_ms = busy;
    pthread_mutex_unlock( &h->lock );
    pthread_mutex_unlock( &g->busy_lock );
}

int cme_cuda_device_count( void )
{
    int n = 0;
    return cudaGetDeviceCount( &n ) == cudaSuccess ? n : 0;
}

/* ---------------------------------------------------------------- worker */

static void enqueue( cme_cuda_t *g, cme_cmd_t *c )
{
    pthread_mutex_lock( &g->qlock );
    c->next = NULL;
    if( g->tail )
        g->tail->next = c;
    else
        g->head = c;
    g->tail = c;
    pthread_cond_broadcast( &g->qcv );
    pthread_mutex_unlock( &g->qlock );
}

static int upload( cuda_me_t *h, cme_frame_t *f );
static int launch( cuda_me_t *h, cme_job_t *j );

/* Runs the commands in order.  After an error it still marks every command
 * done (as failed), so that nobody waits for ever. */
static void *worker( void *arg )
{
    cuda_me_t *h = arg;
    cme_cuda_t *g = h->gpu;
    cudaSetDevice( g->i_device );
    pthread_mutex_lock( &g->qlock );
    for( ;; )
    {
        while( !g->head && !g->b_exit )
            pthread_cond_wait( &g->qcv, &g->qlock );
        cme_cmd_t *c = g->head;
        if( !c )
            break;
        pthread_mutex_unlock( &g->qlock );
        const int error = cme_error_get( h );
        int ret = error ? error : c->b_search ? launch( h, c->obj ) : upload( h, c->obj );
        if( ret < 0 )
            cme_set_error( h, ret );
        pthread_mutex_lock( &g->qlock );
        if( c->b_search )
            ((cme_cuda_job_t*)((cme_job_t*)c->obj)->gpu)->i_launched = ret < 0 ? -1 : 1;
        else
            ((cme_cuda_frame_t*)((cme_frame_t*)c->obj)->gpu)->i_copied = ret < 0 ? -1 : 1;
        g->head = c->next;
        if( !g->head )
            g->tail = NULL;
        pthread_cond_broadcast( &g->qcv );
    }
    pthread_mutex_unlock( &g->qlock );
    return NULL;
}

/* ---------------------------------------------------------------- backend */

static void cu_uninit( cuda_me_t *h );

/* "X.Y" of a CUDA version number (1000*major + 10*minor). */
#define CME_VER( v ) (v) / 1000, (v) % 1000 / 10

/* Whether CUDA can be used here: a driver, recent enough, and devices.  If
 * not, says why in words a user can act on and returns CUDA_ME_ENODEV.
 * *n gets the number of devices. */
static int cu_probe( cuda_me_t *h, int *n )
{
    *n = 0;
    if( cme_fault( h, CME_FAULT_DEVICE ) )
    {
        cme_log( h, CUDA_ME_LOG_ERROR, "no CUDA device found (injected fault)\n" );
        return CUDA_ME_ENODEV;
    }
    /* The runtime loads the driver library itself, but only reports "driver
     * version insufficient" when it is missing: look first. */
    void *libcuda = dlopen( "libcuda.so.1", RTLD_LAZY | RTLD_LOCAL );
    if( !libcuda )
    {
        cme_log( h, CUDA_ME_LOG_ERROR, "no NVIDIA driver found (libcuda.so.1 cannot be loaded); "
                 "install the NVIDIA driver, or use --gpu-me-backend c\n" );
        return CUDA_ME_ENODEV;
    }
    dlclose( libcuda );
    int driver = 0;
    cudaDriverGetVersion( &driver );
    cudaError_t e = cudaGetDeviceCount( n );
    cudaGetLastError();
    /* An older driver of the same major version may run the build (CUDA's
     * minor version compatibility): it is only refused when CUDA says so. */
    if( e == cudaErrorInsufficientDriver || (e != cudaSuccess && driver < CUDART_VERSION) )
    {
        cme_log( h, CUDA_ME_LOG_ERROR, "the NVIDIA driver supports CUDA %d.%d, this build needs CUDA %d.%d or newer: "
                 "update the driver\n", CME_VER( driver ), CME_VER( CUDART_VERSION ) );
        return CUDA_ME_ENODEV;
    }
    if( e == cudaErrorNoDevice || (e == cudaSuccess && *n <= 0) )
    {
        cme_log( h, CUDA_ME_LOG_ERROR, "no CUDA device found (NVIDIA driver supports CUDA %d.%d)\n", CME_VER( driver ) );
        return CUDA_ME_ENODEV;
    }
    if( e != cudaSuccess )
    {
        cme_log( h, CUDA_ME_LOG_ERROR, "CUDA cannot be initialised: %s: %s (NVIDIA driver supports CUDA %d.%d)\n",
                 cudaGetErrorName( e ), cudaGetErrorString( e ), CME_VER( driver ) );
        return CUDA_ME_ENODEV;
    }
    if( driver < CUDART_VERSION )
        cme_log( h, CUDA_ME_LOG_DEBUG, "the NVIDIA driver supports CUDA %d.%d, this build was made with CUDA %d.%d\n",
                 CME_VER( driver ), CME_VER( CUDART_VERSION ) );
    if( h->param.i_device >= *n )
    {
        cme_log( h, CUDA_ME_LOG_ERROR, "CUDA device %d does not exist (%d device%s: 0..%d)\n",
                 h->param.i_device, *n, *n > 1 ? "s" : "", *n - 1 );
        return CUDA_ME_ENODEV;
    }
    return 0;
}

/* "12", or "?" when not known (-1). */
static const char *load_str( char buf[12], int v )
{
    if( v < 0 )
        return "?";
    snprintf( buf, 12, "%d", v );
    return buf;
}

/* One GPU's load in words: "0 processes, 3% busy, 79 GiB free". */
static void load_words( char buf[64], const cme_device_load_t *l )
{
    char a[12], b[12], c[12];
    snprintf( buf, 64, "%s process%s, %s%% busy, %s GiB free", load_str( a, l->i_processes ),
              l->i_processes == 1 ? "" : "es", load_str( b, l->i_util ),
              load_str( c, l->i_free < 0 ? -1 : (int)(l->i_free >> 30) ) );
}

/* CUDA_ME_DEVICE_AUTO: the ordinal of the least-loaded GPU that can run the
 * kernels (compute capability 8.0 or newer), by cme_device_rank() on NVML's
 * loads, each pick of the last CME_PICK_RECENT_MS counted as one more
 * process (device_pick.h: encodes that start together spread out).  Without
 * NVML (not installed, or it fails), the usable GPUs are shared out by
 * process id: getpid() % their number.  Without a usable GPU,
 * device 0 (whose open then says why it cannot be used).  why gets the
 * reason in a few words (for stats.device). */
static int cu_pick( cuda_me_t *h, int n, char *why, size_t why_size )
{
    int usable[CME_MAX_GPUS], nu = 0;
    for( int i = 0; i < n && nu < CME_MAX_GPUS; i++ )
    {
        int major = 0;
        if( cudaDeviceGetAttribute( &major, cudaDevAttrComputeCapabilityMajor, i ) == cudaSuccess &&
            major >= CME_MIN_MAJOR )
            usable[nu++] = i;
    }
    cudaGetLastError();
    if( nu <= 1 )
    {
        snprintf( why, why_size, "auto: %s", nu ? "the only usable GPU" : "no GPU of compute capability 8.0+" );
        return nu ? usable[0] : 0;
    }

    cme_nvml_gpu_t gpu[CME_MAX_GPUS];
    char nvml_why[64] = "";
    const int ng = cme_nvml_query( gpu, CME_MAX_GPUS, nvml_why, sizeof(nvml_why) );
    cme_device_load_t load[CME_MAX_GPUS];
    const char *bus_id[CME_MAX_GPUS] = { NULL };   /* NVML's bus id of load[i] */
    int known = 0;
    for( int i = 0; i < nu; i++ )
        load[i] = (cme_device_load_t){ .i_ordinal = usable[i], .i_processes = -1, .i_util = -1, .i_free = -1 };
    for( int k = 0; k < ng; k++ )
    {
        /* NVML numbers every GPU of the machine; CUDA only those it may use
         * (CUDA_VISIBLE_DEVICES), in its own order: the PCI address maps one
         * to the other.  Its numbers must agree with CUDA's, else the two
         * libraries disagree about the GPU (or about nvmlPciInfo_t). */
        int ord = -1, dom = -1, bus = -1, dev = -1;
        if( cudaDeviceGetByPCIBusId( &ord, gpu[k].bus_id ) != cudaSuccess )
            continue;
        cudaDeviceGetAttribute( &dom, cudaDevAttrPciDomainId, ord );
        cudaDeviceGetAttribute( &bus, cudaDevAttrPciBusId, ord );
        cudaDeviceGetAttribute( &dev, cudaDevAttrPciDeviceId, ord );
        if( (unsigned)dom != gpu[k].i_domain || (unsigned)bus != gpu[k].i_bus || (unsigned)dev != gpu[k].i_device )
        {
            cme_log( h, CUDA_ME_LOG_DEBUG, "device pick: NVML's GPU %s is CUDA device %d at %x:%x:%x: ignored\n",
                     gpu[k].bus_id, ord, dom, bus, dev );
            continue;
        }
        for( int i = 0; i < nu; i++ )
            if( load[i].i_ordinal == ord )
            {
                load[i] = gpu[k].load;
                load[i].i_ordinal = ord;
                bus_id[i] = gpu[k].bus_id;
                known++;
            }
    }
    cudaGetLastError();
    if( !known )
    {
        const int i = (int)(getpid() % nu);
        cme_log( h, CUDA_ME_LOG_DEBUG, "device pick: no GPU loads (%s): device %d, by process id %d, of %d usable\n",
                 ng < 0 ? nvml_why : "NVML knows no CUDA device", usable[i], (int)getpid(), nu );
        snprintf( why, why_size, "auto: loads unknown, by process id" );
        return usable[i];
    }
    /* picks of the last CME_PICK_RECENT_MS (encodes started together) count
     * as processes: read, rank and record under the file's lock */
    char path[256];
    const char *picks_path = cme_picks_path( path, sizeof(path) );
    const int fd = picks_path ? cme_picks_lock( picks_path ) : -1;
    const int64_t now = cme_picks_now();
    cme_pick_t recent[CME_PICKS_MAX];
    const int nrecent = fd >= 0 ? cme_picks_read( fd, recent, now ) : 0;
    int pending[CME_MAX_GPUS] = { 0 };
    for( int i = 0; i < nu; i++ )
        for( int j = 0; bus_id[i] && j < nrecent; j++ )
            if( !strcmp( recent[j].bus_id, bus_id[i] ) )
                pending[i]++;
    char words[64];
    for( int i = 0; i < nu; i++ )
    {
        if( load[i].i_processes >= 0 )
            load[i].i_processes += pending[i];
        load_words( words, &load[i] );
        cme_log( h, CUDA_ME_LOG_DEBUG, "device pick: device %d: %s (%d of them picked it in the last %d ms)\n",
                 load[i].i_ordinal, words, pending[i], CME_PICK_RECENT_MS );
    }
    const int best = cme_device_rank( load, nu );
    if( fd >= 0 )
        cme_picks_write_close( fd, recent, nrecent, bus_id[best] ? bus_id[best] : "", now );
    else if( picks_path )
        cme_log( h, CUDA_ME_LOG_DEBUG, "device pick: %s cannot be used: picks not recorded\n", picks_path );
    load_words( words, &load[best] );
    snprintf( why, why_size, "auto: %s", words );
    return load[best].i_ordinal;
}

/* The device cannot run this build's kernels. */
static int cu_unsupported( cuda_me_t *h, const struct cudaDeviceProp *prop )
{
    cme_log( h, CUDA_ME_LOG_ERROR, "GPU %s has compute capability %d.%d; this build has kernels for %s "
             "(needs %d.0 or newer)\n", prop->name, prop->major, prop->minor, CUDA_ME_ARCHS, CME_MIN_MAJOR );
    return CUDA_ME_ENODEV;
}

/* Scratch of a search at range: enough for every frame-thread limit a job
 * may give (the geometry, so the scratch, is not monotonic in the window
 * height).  0: no geometry. */
static size_t scratch_size( cuda_me_t *h, int range )
{
    const int mvrt_max = h->param.i_mv_range_thread > 0 ? h->param.i_mv_range_thread : 4*h->param.i_range + 64;
    size_t most = cme_cuda_scratch_size( h->i_mb_width, h->i_mb_height, range, h->param.i_mv_range,
                                         h->param.i_mv_range_thread, h->i_parts );
    for( int t = 8; t <= mvrt_max && most; t++ )
    {
        size_t s = cme_cuda_scratch_size( h->i_mb_width, h->i_mb_height, range, h->param.i_mv_range, t, h->i_parts );
        most = !s ? 0 : s > most ? s : most;
    }
    return most;
}

static int cu_init( cuda_me_t *h )
{
    int ret, n = 0;
    if( h->param.i_device < CUDA_ME_DEVICE_AUTO )
    {
        cme_log( h, CUDA_ME_LOG_ERROR, "CUDA device %d: not a device ordinal (0 or more) nor CUDA_ME_DEVICE_AUTO (-1)\n",
                 h->param.i_device );
        return CUDA_ME_EINVAL;
    }
    const double t_start = cme_time_ms();
    if( (ret = cu_probe( h, &n )) < 0 )
        return ret;
    const double t_probe = cme_time_ms();
    char why[72] = "";
    const int device = h->param.i_device == CUDA_ME_DEVICE_AUTO ? cu_pick( h, n, why, sizeof(why) ) : h->param.i_device;
    cme_cuda_t *g = calloc( 1, sizeof(*g) );
    if( !g )
        return CUDA_ME_ENOMEM;
    h->gpu = g;
    g->i_device = device;
    pthread_mutex_init( &g->qlock, NULL );
    pthread_cond_init( &g->qcv, NULL );
    pthread_mutex_init( &g->busy_lock, NULL );

    struct cudaDeviceProp prop;
    if( (ret = CME_CUDA( NOFAULT, cudaSetDevice( g->i_device ) )) < 0 ||
        (ret = CME_CUDA( NOFAULT, cudaGetDeviceProperties( &prop, g->i_device ) )) < 0 )
        goto fail;
    /* Every wait the runtime makes for this process sleeps, not only the
     * events' (CME_WAIT_EVENT): a copy from x264's pageable lowres planes
     * first waits for its stream, and by default that wait spins.  With
     * 16 one-thread encodes sharing a GPU each such wait took a core from
     * another encode.  Only how a thread waits changes, never a result;
     * a failure (a context made elsewhere with other flags) is harmless. */
    cudaSetDeviceFlags( cudaDeviceScheduleBlockingSync );
    cudaGetLastError();
    const double t_context = cme_time_ms();
    int driver = 0, runtime = 0;
    cudaDriverGetVersion( &driver );
    cudaRuntimeGetVersion( &runtime );
    snprintf( h->stats.device, sizeof(h->stats.device), "%.48s (sm_%d%d, device %d of %d%s%s; driver %d.%d, runtime %d.%d)",
              prop.name, prop.major, prop.minor, g->i_device, n, why[0] ? ", " : "", why,
              CME_VER( driver ), CME_VER( runtime ) );
    if( prop.major < CME_MIN_MAJOR )
    {
        ret = cu_unsupported( h, &prop );
        goto fail;
    }
    cudaError_t e = cme_cuda_prepare();
    cudaGetLastError();
    if( e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction )
    {
        ret = cu_unsupported( h, &prop );
        goto fail;
    }
    if( e == cudaErrorUnsupportedPtxVersion )
    {
        cme_log( h, CUDA_ME_LOG_ERROR, "the NVIDIA driver supports CUDA %d.%d, too old to compile this build's kernels "
                 "(CUDA %d.%d) for GPU %s (compute capability %d.%d): update the driver\n",
                 CME_VER( driver ), CME_VER( CUDART_VERSION ), prop.name, prop.major, prop.minor );
        ret = CUDA_ME_ENODEV;
        goto fail;
    }
    if( e != cudaSuccess )
    {
        cme_log( h, CUDA_ME_LOG_ERROR, "GPU %s cannot run the kernels: %s: %s\n", prop.name,
                 cudaGetErrorName( e ), cudaGetErrorString( e ) );
        ret = CUDA_ME_ENODEV;
        goto fail;
    }

    const double t_kernels = cme_time_ms();
    const int w = h->param.i_width, hgt = h->param.i_height;
    g->i_pitch = (w + 2*CME_PAD + 127) & ~127;
    g->frame_bytes = (size_t)g->i_pitch * (hgt + 2*CME_PAD);
    /* the 4-byte planes where the search copies its windows from them
     * (kernels.h): 4 bytes a pixel for -3.4% at +-16 and -10% at +-8.  Not
     * for pass 2 of two candidates alone (+-16 from range 28 on): -0.7% of
     * the pair's time at +-32, nothing at +-64 (H200, 1080p).
     * From sm_90 on at every range: the windows of the fixed-stride
     * variants are then one tensor copy from it (cme_launch_t.i_xrows) */
    g->b_xplane = h->param.i_range <= CME_XPLANE_RANGE_MAX || prop.major >= CME_XPLANE_TMA_MAJOR;
    /* enough for pass 1, and for pass 2 (two candidates: cme_pass2_range(),
     * the same scratch after pass 1 on the same stream) */
    g->scratch_bytes = scratch_size( h, h->param.i_range );
    if( h->i_cands == 2 )
    {
        size_t s2 = scratch_size( h, cme_pass2_range( h->param.i_range ) );
        g->scratch_bytes = !s2 ? 0 : s2 > g->scratch_bytes ? s2 : g->scratch_bytes;
    }
    g->out_bytes = (size_t)h->i_mb_count * h->i_cands * h->i_parts * sizeof(cuda_me_result_t);
    g->centre_bytes = (size_t)h->i_mb_count * 2 * sizeof(int16_t);
    g->cost_bytes = (4*h->param.i_range + 1) * sizeof(uint16_t);
    g->sub_bytes = h->i_sub_count * sizeof(cme_subpel_result_t);
    /* the jobs, grouped by partition size, then where each one's result goes */
    g->sjob_bytes = h->i_sub_count * (sizeof(cme_subpel_job_t) + sizeof(int));
    if( !g->scratch_bytes )
    {
        cme_log( h, CUDA_ME_LOG_ERROR, "no kernel geometry for range %d\n", h->param.i_range );
        ret = CUDA_ME_EINVAL;
        goto fail;
    }

    if( (ret = CME_CUDA( NOFAULT, cudaStreamCreateWithFlags( &g->up_stream, cudaStreamNonBlocking ) )) < 0 ||
        (ret = CME_CUDA( NOFAULT, cudaEventCreate( &g->t0 ) )) < 0 ||
        (ret = CME_CUDA( NOFAULT, cudaEventRecord( g->t0, g->up_stream ) )) < 0 )
        goto fail;
    for( int i = 0; i < CME_STREAMS; i++ )
    {
        if( (ret = CME_CUDA( NOFAULT, cudaStreamCreateWithFlags( &g->stream[i], cudaStreamNonBlocking ) )) < 0 ||
            (ret = CME_CUDA( CME_FAULT_ALLOC, cudaMalloc( (void**)&g->d_scratch[i], g->scratch_bytes ) )) < 0 ||
            (ret = CME_CUDA( CME_FAULT_ALLOC, cudaMalloc( (void**)&g->d_out[i], g->out_bytes ) )) < 0 ||
            (ret = CME_CUDA( CME_FAULT_ALLOC, cudaMalloc( (void**)&g->d_centre[i], g->centre_bytes ) )) < 0 ||
            (ret = CME_CUDA( CME_FAULT_ALLOC, cudaMalloc( (void**)&g->d_cost[i], g->cost_bytes ) )) < 0 ||
            (h->i_cands == 2 &&
             (ret = CME_CUDA( CME_FAULT_ALLOC, cudaMalloc( (void**)&g->d_centre2[i], g->centre_bytes ) )) < 0) ||
            (h->param.i_subme &&
             ((ret = CME_CUDA( CME_FAULT_ALLOC, cudaMalloc( (void**)&g->d_sjob[i], g->sjob_bytes ) )) < 0 ||
              (ret = CME_CUDA( CME_FAULT_ALLOC, cudaMalloc( (void**)&g->d_sub[i], g->sub_bytes ) )) < 0)) )
            goto fail;
        device_account( h, g->scratch_bytes + g->out_bytes + g->centre_bytes * (h->i_cands == 2 ? 2 : 1) +
                           g->cost_bytes + g->sjob_bytes + g->sub_bytes );
    }
    for( int i = 0; i < CME_STAGES; i++ )
    {
        if( (ret = CME_CUDA( CME_FAULT_ALLOC, cudaHostAlloc( (void**)&g->h_stage[i], (size_t)w * hgt, cudaHostAllocDefault ) )) < 0 ||
            (ret = CME_CUDA( NOFAULT, cudaEventCreate( &g->stage_start[i] ) )) < 0 ||
            (ret = CME_CUDA( NOFAULT, cudaEventCreateWithFlags( &g->stage_end[i], CME_WAIT_EVENT ) )) < 0 )
            goto fail;
        host_account( h, (int64_t)w * hgt );
    }
    if( h->mv_cost )
    {
        size_t size = (4*h->param.i_range + 1) * sizeof(uint16_t);
        if( (ret = CME_CUDA( CME_FAULT_ALLOC, cudaMalloc( (void**)&g->d_mv_cost, size ) )) < 0 ||
            (ret = CME_CUDA( CME_FAULT_COPY, cudaMemcpy( g->d_mv_cost, h->mv_cost, size, cudaMemcpyHostToDevice ) )) < 0 )
            goto fail;
        device_account( h, size );
    }
    if( h->param.i_subme )
    {
        size_t size = (size_t)h->param.i_subpel_costs * h->i_subpel_cost_size * sizeof(uint16_t);
        if( (ret = CME_CUDA( CME_FAULT_ALLOC, cudaMalloc( (void**)&g->d_subpel_cost, size ) )) < 0 ||
            (ret = CME_CUDA( CME_FAULT_COPY, cudaMemcpy( g->d_subpel_cost, h->subpel_cost, size,
                                                         cudaMemcpyHostToDevice ) )) < 0 )
            goto fail;
        device_account( h, size );
    }
    if( pthread_create( &g->worker, NULL, worker, h ) )
    {
        cme_log( h, CUDA_ME_LOG_ERROR, "cannot start the worker thread\n" );
        ret = CUDA_ME_ENOMEM;
        goto fail;
    }
    g->b_worker = 1;
    cme_log( h, CUDA_ME_LOG_DEBUG, "using %s\n", h->stats.device );
    /* where a slow start goes (the driver's start-up is most of it) */
    const double t_end = cme_time_ms();
    cme_log( h, CUDA_ME_LOG_DEBUG, "open %.1f ms: driver %.1f (cuInit), context %.1f, kernels %.1f, memory %.1f\n",
             t_end - t_start, t_probe - t_start, t_context - t_probe, t_kernels - t_context, t_end - t_kernels );
    return 0;

fail:
    cu_uninit( h );
    return ret;
}

static void cu_uninit( cuda_me_t *h )
{
    cme_cuda_t *g = h->gpu;
    if( !g )
        return;
    if( g->b_worker )
    {
        pthread_mutex_lock( &g->qlock );
        g->b_exit = 1;
        pthread_cond_broadcast( &g->qcv );
        pthread_mutex_unlock( &g->qlock );
        pthread_join( g->worker, NULL );
    }
    cudaSetDevice( g->i_device );
    for( int i = 0; i < CME_STAGES; i++ )
    {
        if( g->b_stage_used[i] && cudaEventSynchronize( g->stage_end[i] ) == cudaSuccess )
        {
            add_ms( h, &h->stats.f_upload_ms, g->stage_start[i], g->stage_end[i] );
            add_busy( h, g->stage_start[i], g->stage_end[i] );
        }
        if( g->h_stage[i] )
            cudaFreeHost( g->h_stage[i] );
        if( g->stage_start[i] )
            cudaEventDestroy( g->stage_start[i] );
        if( g->stage_end[i] )
            cudaEventDestroy( g->stage_end[i] );
    }
    for( int i = 0; i < CME_STREAMS; i++ )
    {
        if( g->stream[i] )
        {
            cudaStreamSynchronize( g->stream[i] );
            cudaStreamDestroy( g->stream[i] );
        }
        cudaFree( g->d_scratch[i] );
        cudaFree( g->d_out[i] );
        cudaFree( g->d_centre[i] );
        cudaFree( g->d_centre2[i] );
        cudaFree( g->d_cost[i] );
        cudaFree( g->d_sjob[i] );
        cudaFree( g->d_sub[i] );
    }
    if( g->up_stream )
    {
        cudaStreamSynchronize( g->up_stream );
        cudaStreamDestroy( g->up_stream );
    }
    cudaFree( g->d_mv_cost );
    cudaFree( g->d_subpel_cost );
    if( g->lr_stream )
    {
        cudaStreamSynchronize( g->lr_stream );
        cudaStreamDestroy( g->lr_stream );
    }
    for( int i = 0; i < LR_STAGES; i++ )
    {
        if( g->lr_stage[i] )
            cudaFreeHost( g->lr_stage[i] );
        if( g->lr_stage_ev[i] )
            cudaEventDestroy( g->lr_stage_ev[i] );
    }
    cudaFree( g->lr_planes );
    cudaFree( g->lr_mvs );
    cudaFree( g->lr_costs );
    cudaFree( g->lr_cost );
    cudaFree( g->lr_sync );
    for( int i = 0; i < LR_EVENTS; i++ )
        if( g->lr_ev[i] )
            cudaEventDestroy( g->lr_ev[i] );
    cudaGetLastError();
    pthread_mutex_destroy( &g->qlock );
    cu_stats_sync( h );
    if( g->t0 )
        cudaEventDestroy( g->t0 );
    pthread_mutex_destroy( &g->busy_lock );
    pthread_cond_destroy( &g->qcv );
    free( g );
    h->gpu = NULL;
    pthread_mutex_lock( &h->lock );
    h->stats.i_device_bytes = 0;
    h->stats.i_host_bytes = 0;
    pthread_mutex_unlock( &h->lock );
}

/* A device frame: F, with i_subme H, V, C after it (one pitch), then,
 * where a search uses it (b_xplane), F's 4-byte plane (4 bytes per byte
 * of F). */
static size_t frame_alloc_bytes( cuda_me_t *h )
{
    const cme_cuda_t *g = h->gpu;
    return g->frame_bytes * ((h->param.i_subme ? 4 : 1) + (g->b_xplane ? 4 : 0));
}

static int cu_frame_alloc( cuda_me_t *h, cme_frame_t *f )
{
    cme_cuda_t *g = h->gpu;
    int ret;
    cme_cuda_frame_t *cf = calloc( 1, sizeof(*cf) );
    if( !cf )
        return CUDA_ME_ENOMEM;
    f->gpu = cf;
    if( (ret = CME_CUDA( NOFAULT, cudaSetDevice( g->i_device ) )) < 0 ||
        (ret = CME_CUDA( CME_FAULT_ALLOC, cudaMalloc( (void**)&cf->d_alloc, frame_alloc_bytes( h ) ) )) < 0 ||
        (ret = CME_CUDA( NOFAULT, cudaEventCreateWithFlags( &cf->uploaded, cudaEventDisableTiming ) )) < 0 )
        return ret;   /* frame_free cleans up */
    cf->d_plane = cf->d_alloc + (size_t)CME_PAD * g->i_pitch + CME_PAD;
    for( int i = 0; i < 3; i++ )
        cf->d_hpel[i] = h->param.i_subme ? cf->d_plane + (i + 1) * g->frame_bytes : NULL;
    if( g->b_xplane )
        cf->d_xplane = (uint32_t*)(cf->d_alloc + (h->param.i_subme ? 4 : 1) * g->frame_bytes) + (cf->d_plane - cf->d_alloc);
    device_account( h, frame_alloc_bytes( h ) );
    return 0;
}

static void cu_frame_free( cuda_me_t *h, cme_frame_t *f )
{
    cme_cuda_frame_t *cf = f->gpu;
    if( !cf )
        return;
    if( h->gpu )
        cudaSetDevice( ((cme_cuda_t*)h->gpu)->i_device );
    if( cf->d_alloc )
    {
        cudaFree( cf->d_alloc );
        if( h->gpu )
            device_account( h, -(int64_t)frame_alloc_bytes( h ) );
    }
    if( cf->uploaded )
        cudaEventDestroy( cf->uploaded );
    free( cf );
    f->gpu = NULL;
}

/* Worker: the caller's plane into pinned staging, then to the device. */
static int upload( cuda_me_t *h, cme_frame_t *f )
{
    cme_cuda_t *g = h->gpu;
    cme_cuda_frame_t *cf = f->gpu;
    const uint8_t *luma = cf->src;
    const intptr_t i_stride = cf->i_src_stride;
    const int w = h->param.i_width, hgt = h->param.i_height;
    const int s = g->i_next_stage;
    int ret;
    g->i_next_stage = (s + 1) % CME_STAGES;

    if( (ret = CME_CUDA( NOFAULT, cudaSetDevice( g->i_device ) )) < 0 )
        return ret;
    /* The staging buffer is free once its previous upload has finished. */
    if( g->b_stage_used[s] )
    {
        if( (ret = CME_CUDA( NOFAULT, cudaEventSynchronize( g->stage_end[s] ) )) < 0 )
            return ret;
        add_ms( h, &h->stats.f_upload_ms, g->stage_start[s], g->stage_end[s] );
        add_busy( h, g->stage_start[s], g->stage_end[s] );
    }
    uint8_t *st = g->h_stage[s];
    for( int y = 0; y < hgt; y++ )
        memcpy( st + (size_t)y * w, luma + y * i_stride, w );
    g->b_stage_used[s] = 0;
    if( (ret = CME_CUDA( NOFAULT, cudaEventRecord( g->stage_start[s], g->up_stream ) )) < 0 ||
        (ret = CME_CUDA( CME_FAULT_COPY, cudaMemcpy2DAsync( cf->d_plane, g->i_pitch, st, w, w, hgt,
                                                            cudaMemcpyHostToDevice, g->up_stream ) )) < 0 ||
        (ret = CME_CUDA( CME_FAULT_LAUNCH, cme_cuda_pad( cf->d_plane, g->i_pitch, w, hgt, g->up_stream ) )) < 0 ||
        (g->b_xplane &&
         (ret = CME_CUDA( CME_FAULT_LAUNCH, cme_cuda_xplane( cf->d_alloc, g->frame_bytes, cf->d_xplane - (cf->d_plane - cf->d_alloc),
                                                             g->up_stream ) )) < 0) ||
        (h->param.i_subme &&
         (ret = CME_CUDA( CME_FAULT_LAUNCH, cme_cuda_hpel_planes( cf->d_plane, g->i_pitch, w, hgt, cf->d_hpel,
                                                                  g->i_pitch, g->up_stream ) )) < 0) ||
        (ret = CME_CUDA( NOFAULT, cudaEventRecord( g->stage_end[s], g->up_stream ) )) < 0 ||
        (ret = CME_CUDA( NOFAULT, cudaEventRecord( cf->uploaded, g->up_stream ) )) < 0 )
        return ret;
    g->b_stage_used[s] = 1;   /* both events recorded: its time can be read */
    return 0;
}

static int cu_frame_put( cuda_me_t *h, cme_frame_t *f, const uint8_t *luma, intptr_t i_stride )
{
    cme_cuda_t *g = h->gpu;
    cme_cuda_frame_t *cf = f->gpu;
    cf->src = luma;
    cf->i_src_stride = i_stride;
    cf->i_copied = 0;
    cf->cmd.b_search = 0;
    cf->cmd.obj = f;
    enqueue( g, &cf->cmd );
    return 0;
}

/* The caller's plane of f has been read (or will never be). */
static void cu_frame_sync( cuda_me_t *h, cme_frame_t *f )
{
    cme_cuda_t *g = h->gpu;
    cme_cuda_frame_t *cf = f->gpu;
    pthread_mutex_lock( &g->qlock );
    while( !cf->i_copied )
        pthread_cond_wait( &g->qcv, &g->qlock );
    pthread_mutex_unlock( &g->qlock );
}

/* Every queued command has run. */
static void cu_flush( cuda_me_t *h )
{
    cme_cuda_t *g = h->gpu;
    pthread_mutex_lock( &g->qlock );
    while( g->head )
        pthread_cond_wait( &g->qcv, &g->qlock );
    pthread_mutex_unlock( &g->qlock );
}

static int cu_job_submit( cuda_me_t *h, cme_job_t *j )
{
    cme_cuda_t *g = h->gpu;
    cme_cuda_job_t *cj = j->gpu;
    cj->i_launched = 0;
    cj->b_counted = 0;
    cj->cmd.b_search = 1;
    cj->cmd.obj = j;
    enqueue( g, &cj->cmd );
    return 0;
}

/* A job's pinned buffer: results, sub-pel results (i_subme), centres, MV costs. */
static size_t job_host_bytes( const cme_cuda_t *g )
{
    return g->out_bytes + g->sub_bytes + g->centre_bytes + g->cost_bytes;
}

static int cu_job_alloc( cuda_me_t *h, cme_job_t *j )
{
    cme_cuda_t *g = h->gpu;
    int ret;
    cme_cuda_job_t *cj = calloc( 1, sizeof(*cj) );
    if( !cj )
        return CUDA_ME_ENOMEM;
    j->gpu = cj;
    if( (ret = CME_CUDA( NOFAULT, cudaSetDevice( g->i_device ) )) < 0 ||
        (ret = CME_CUDA( CME_FAULT_ALLOC, cudaHostAlloc( (void**)&j->res, job_host_bytes( g ), cudaHostAllocDefault ) )) < 0 ||
        (ret = CME_CUDA( NOFAULT, cudaEventCreate( &cj->start ) )) < 0 ||
        (ret = CME_CUDA( NOFAULT, cudaEventCreate( &cj->searched ) )) < 0 ||
        (ret = CME_CUDA( NOFAULT, cudaEventCreate( &cj->refined ) )) < 0 ||
        (ret = CME_CUDA( NOFAULT, cudaEventCreateWithFlags( &cj->copied, CME_WAIT_EVENT ) )) < 0 )
        return ret;   /* job_free cleans up */
    j->sub = g->sub_bytes ? (cme_subpel_result_t*)((uint8_t*)j->res + g->out_bytes) : NULL;
    j->centre = (int16_t*)((uint8_t*)j->res + g->out_bytes + g->sub_bytes);
    j->mv_cost = (uint16_t*)((uint8_t*)j->centre + g->centre_bytes);
    host_account( h, job_host_bytes( g ) );
    return 0;
}

static void cu_job_free( cuda_me_t *h, cme_job_t *j )
{
    cme_cuda_job_t *cj = j->gpu;
    if( h->gpu )
        cudaSetDevice( ((cme_cuda_t*)h->gpu)->i_device );
    if( j->res )
        cudaFreeHost( j->res );
    j->res = NULL;
    if( cj )
    {
        if( cj->start )
            cudaEventDestroy( cj->start );
        if( cj->searched )
            cudaEventDestroy( cj->searched );
        if( cj->refined )
            cudaEventDestroy( cj->refined );
        if( cj->copied )
            cudaEventDestroy( cj->copied );
        free( cj );
    }
    j->gpu = NULL;
}

/* Worker, i_subme: after the search l of job j on stream i, its sub-pel
 * jobs and their refinement; records j's refined event. */
static int subpel( cuda_me_t *h, cme_job_t *j, const cme_launch_t *l, int i )
{
    cme_cuda_t *g = h->gpu;
    cme_cuda_job_t *cj = j->gpu;
    cudaStream_t st = g->stream[i];
    const cme_cuda_frame_t *ref = j->ref->gpu;
    int ret;
    cme_subpel_jobs_launch_t sj;
    sj.cur = l->cur;
    sj.ref = l->ref;
    sj.i_pitch = g->i_pitch;
    sj.i_mb_width = h->i_mb_width;
    sj.i_mb_height = h->i_mb_height;
    sj.i_range = h->param.i_range;
    sj.i_mv_range = h->param.i_mv_range;
    sj.i_mv_range_thread = j->i_mv_range_thread;
    sj.i_parts = h->i_parts;
    sj.i_cands = h->i_cands;
    sj.i_sub_first = h->i_sub_first;
    sj.i_sub_parts = h->i_sub_parts;
    sj.centre = l->centre;
    sj.centre2 = h->i_cands == 2 ? g->d_centre2[i] : NULL;
    sj.res = l->out;
    sj.cost_mv = g->d_subpel_cost;
    sj.i_cost_mv = j->i_subpel_cost * h->i_subpel_cost_size + 8*h->param.i_mv_range;
    sj.i_subme = h->param.i_subme;
    sj.b_fpel_satd = h->param.b_fpel_satd;
    sj.job = g->d_sjob[i];
    sj.order = (int*)(g->d_sjob[i] + h->i_sub_count);
    cme_subpel_launch_t sl;
    sl.cur = l->cur;
    sl.i_cur_pitch = g->i_pitch;
    sl.plane[0] = l->ref;
    for( int k = 0; k < 3; k++ )
        sl.plane[k+1] = ref->d_hpel[k];
    sl.i_pitch = g->i_pitch;
    sl.cost_mv = g->d_subpel_cost;
    sl.job = g->d_sjob[i];
    sl.out = g->d_sub[i];
    sl.order = sj.order;
    sl.n = (int)h->i_sub_count;
    if( (ret = CME_CUDA( CME_FAULT_LAUNCH, cme_cuda_subpel_jobs( &sj, st ) )) < 0 ||
        (ret = CME_CUDA( CME_FAULT_LAUNCH, cme_cuda_refine_subpel( &sl, st ) )) < 0 ||
        (ret = CME_CUDA( NOFAULT, cudaEventRecord( cj->refined, st ) )) < 0 )
        return ret;
    return 0;
}

/* Worker: the search of one job, asynchronously on the next job stream. */
static int launch( cuda_me_t *h, cme_job_t *j )
{
    cme_cuda_t *g = h->gpu;
    cme_cuda_job_t *cj = j->gpu;
    const int i = g->i_next_stream;
    cudaStream_t st = g->stream[i];
    int ret;
    g->i_next_stream = (i + 1) % CME_STREAMS;

    cme_launch_t l;
    l.cur = ((cme_cuda_frame_t*)j->cur->gpu)->d_plane;
    l.ref = ((cme_cuda_frame_t*)j->ref->gpu)->d_plane;
    l.xref = ((cme_cuda_frame_t*)j->ref->gpu)->d_xplane;
    l.i_pitch = g->i_pitch;
    l.i_mb_width = h->i_mb_width;
    l.i_mb_height = h->i_mb_height;
    l.i_range = h->param.i_range;
    l.i_mv_range = h->param.i_mv_range;
    l.i_mv_range_thread = j->i_mv_range_thread;
    l.i_parts = h->i_parts;
    l.mv_cost = j->b_cost ? g->d_cost[i] : g->d_mv_cost;
    l.centre = j->b_centre ? g->d_centre[i] : NULL;
    l.blk_keys = g->d_scratch[i];
    l.out = g->d_out[i];
    l.i_out_stride = h->i_cands * h->i_parts;
    l.i_variant = -1;
    l.i_xrows = l.xref ? h->param.i_height + 2*CME_PAD : 0;   /* the plane's allocation (cu_frame_alloc) */

    if( (ret = CME_CUDA( NOFAULT, cudaSetDevice( g->i_device ) )) < 0 ||
        (ret = CME_CUDA( NOFAULT, cudaStreamWaitEvent( st, ((cme_cuda_frame_t*)j->cur->gpu)->uploaded, 0 ) )) < 0 ||
        (ret = CME_CUDA( NOFAULT, cudaStreamWaitEvent( st, ((cme_cuda_frame_t*)j->ref->gpu)->uploaded, 0 ) )) < 0 ||
        (ret = CME_CUDA( NOFAULT, cudaEventRecord( cj->start, st ) )) < 0 ||
        (j->b_centre &&
         (ret = CME_CUDA( CME_FAULT_COPY, cudaMemcpyAsync( g->d_centre[i], j->centre, g->centre_bytes,
                                                           cudaMemcpyHostToDevice, st ) )) < 0) ||
        (j->b_cost &&
         (ret = CME_CUDA( CME_FAULT_COPY, cudaMemcpyAsync( g->d_cost[i], j->mv_cost, g->cost_bytes,
                                                           cudaMemcpyHostToDevice, st ) )) < 0) ||
        (ret = CME_CUDA( CME_FAULT_LAUNCH, cme_cuda_search( &l, st ) )) < 0 ||
        (h->i_cands == 2 &&
         (ret = CME_CUDA( CME_FAULT_LAUNCH, cme_cuda_search_pass2( &l, g->d_centre2[i], st ) )) < 0) ||
        (ret = CME_CUDA( NOFAULT, cudaEventRecord( cj->searched, st ) )) < 0 ||
        (j->b_subpel && (ret = subpel( h, j, &l, i )) < 0) ||
        (ret = CME_CUDA( CME_FAULT_COPY, cudaMemcpyAsync( j->res, l.out, g->out_bytes, cudaMemcpyDeviceToHost, st ) )) < 0 ||
        (j->b_subpel &&
         (ret = CME_CUDA( CME_FAULT_COPY, cudaMemcpyAsync( j->sub, g->d_sub[i], g->sub_bytes, cudaMemcpyDeviceToHost,
                                                           st ) )) < 0) ||
        (ret = CME_CUDA( NOFAULT, cudaEventRecord( cj->copied, st ) )) < 0 )
        return ret;
#ifdef CUDA_ME_DEBUG_SYNC
    if( (ret = CME_CUDA( NOFAULT, cudaStreamSynchronize( st ) )) < 0 )
        return ret;
#endif
    return 0;
}

/* Waits for the job and books its times, once. */
static int job_wait( cuda_me_t *h, cme_job_t *j )
{
    cme_cuda_t *g = h->gpu;
    cme_cuda_job_t *cj = j->gpu;
    int ret;
    pthread_mutex_lock( &g->qlock );
    while( !cj->i_launched )
        pthread_cond_wait( &g->qcv, &g->qlock );
    int launched = cj->i_launched;
    pthread_mutex_unlock( &g->qlock );
    if( launched < 0 )
    {
        const int error = cme_error_get( h );
        return error ? error : CUDA_ME_EDEVICE;
    }
    if( (ret = CME_CUDA( NOFAULT, cudaSetDevice( g->i_device ) )) < 0 ||
        (ret = CME_CUDA( NOFAULT, cudaEventSynchronize( cj->copied ) )) < 0 )
        return ret;
    if( !cj->b_counted )
    {
        cj->b_counted = 1;
        add_ms( h, &h->stats.f_search_ms, cj->start, cj->searched );
        if( j->b_subpel )
        {
            add_ms( h, &h->stats.f_subpel_ms, cj->searched, cj->refined );
            add_ms( h, &h->stats.f_download_ms, cj->refined, cj->copied );
            pthread_mutex_lock( &h->lock );
            h->stats.i_subpel_parts += (int64_t)h->i_sub_count;
            pthread_mutex_unlock( &h->lock );
        }
        else
            add_ms( h, &h->stats.f_download_ms, cj->searched, cj->copied );
        add_busy( h, cj->start, cj->copied );
    }
    return 0;
}

static int cu_job_finish( cuda_me_t *h, cme_job_t *j )
{
    return job_wait( h, j );
}

static void cu_job_retire( cuda_me_t *h, cme_job_t *j )
{
    int ret = job_wait( h, j );
    if( ret < 0 )
        cme_set_error( h, ret );
}

/* lowres_search's stream, at the device's greatest priority: the lookahead
 * waits for its searches before it can decide frame types, so their blocks
 * go before those of the encoding's searches queued on the job streams
 * (at --preset veryslow up to a minigop's 16 references of 1080p pairs,
 * ~2.5 ms each, are queued when the lookahead asks for a pair that was not
 * queued ahead). */
static int lr_stream_create( cuda_me_t *h, cme_cuda_t *g )
{
    int least, greatest;
    int ret = CME_CUDA( NOFAULT, cudaDeviceGetStreamPriorityRange( &least, &greatest ) );
    if( ret < 0 )
        return ret;
    return CME_CUDA( NOFAULT, cudaStreamCreateWithPriority( &g->lr_stream, cudaStreamNonBlocking, greatest ) );
}

/* lowres_search's buffer *p grown to at least need bytes (kept for the
 * next pair; counted in the device memory stats). */
static int lr_grow( cuda_me_t *h, void **p, size_t *have, size_t need )
{
    if( *have >= need )
        return 0;
    cudaFree( *p );
    *p = NULL;
    device_account( h, -(int64_t)*have );
    *have = 0;
    int ret = CME_CUDA( CME_FAULT_ALLOC, cudaMalloc( p, need ) );
    if( ret < 0 )
        return ret;
    *have = need;
    return device_account( h, (int64_t)need );
}

/* The staging buffers grown to bytes each (the largest plane of a
 * lowres_search call, so that they are made once): every buffer anew, each
 * once its copy has run. */
static int lr_stage_grow( cuda_me_t *h, size_t bytes )
{
    cme_cuda_t *g = h->gpu;
    int ret;
    if( bytes <= g->lr_stage_bytes )
        return 0;
    for( int i = 0; i < LR_STAGES; i++ )
    {
        if( g->lr_stage_used[i] && (ret = CME_CUDA( NOFAULT, cudaEventSynchronize( g->lr_stage_ev[i] ) )) < 0 )
            return ret;
        g->lr_stage_used[i] = 0;
        cudaFreeHost( g->lr_stage[i] );
        g->lr_stage[i] = NULL;
    }
    g->lr_stage_bytes = 0;
    for( int i = 0; i < LR_STAGES; i++ )
        if( (ret = CME_CUDA( CME_FAULT_ALLOC, cudaHostAlloc( (void**)&g->lr_stage[i], bytes, cudaHostAllocDefault ) )) < 0 )
            return ret;
    g->lr_stage_bytes = bytes;
    return 0;
}

/* A plane of w x hgt bytes (pitch i_src, at most lr_stage_bytes) up to dst
 * (pitch i_dst) on the lowres stream, through the next staging buffer:
 * waits only if that buffer's previous copy has not run yet. */
static int lr_up( cuda_me_t *h, uint8_t *dst, size_t i_dst, const uint8_t *src, intptr_t i_src, int w, int hgt )
{
    cme_cuda_t *g = h->gpu;
    const int s = g->lr_stage_next;
    int ret;
    g->lr_stage_next = (s + 1) % LR_STAGES;
    if( g->lr_stage_used[s] && (ret = CME_CUDA( NOFAULT, cudaEventSynchronize( g->lr_stage_ev[s] ) )) < 0 )
        return ret;
    g->lr_stage_used[s] = 0;
    if( !g->lr_stage_ev[s] &&
        (ret = CME_CUDA( NOFAULT, cudaEventCreateWithFlags( &g->lr_stage_ev[s], cudaEventDisableTiming | CME_WAIT_EVENT ) )) < 0 )
        return ret;
    uint8_t *st = g->lr_stage[s];
    for( int y = 0; y < hgt; y++ )
        memcpy( st + (size_t)y * w, src + y * i_src, w );
    if( (ret = CME_CUDA( CME_FAULT_COPY, cudaMemcpy2DAsync( dst, i_dst, st, w, w, hgt, cudaMemcpyHostToDevice,
                                                            g->lr_stream ) )) < 0 ||
        (ret = CME_CUDA( NOFAULT, cudaEventRecord( g->lr_stage_ev[s], g->lr_stream ) )) < 0 )
        return ret;
    g->lr_stage_used[s] = 1;
    return 0;
}

/* The slot of frame id for lowres (the least recently used one not pinned
 * if it is not there, or if id is 0): -1 if every slot is pinned. */
static int lr_slot( cme_cuda_t *g, int64_t id )
{
    int k = -1;
    for( int i = 0; i < LR_SLOTS; i++ )
        if( id && g->lr_slot[i].id == id )
            k = i;
    if( k < 0 )
    {
        for( int i = 0; i < LR_SLOTS; i++ )
            if( g->lr_slot[i].pin != g->lr_launch && (k < 0 || g->lr_slot[i].used < g->lr_slot[k].used) )
                k = i;
        if( k < 0 )
            return -1;
        g->lr_slot[k].id = id;
        g->lr_slot[k].level = 0;
    }
    g->lr_slot[k].used = ++g->lr_clock;
    g->lr_slot[k].pin = g->lr_launch;
    return k;
}

/* The launch l, queued: its pairs' arrays up from the host buffers hm, hc
 * before it, down after it; then its slots are free to go. */
static int lr_launch( cuda_me_t *h, cme_lowres_launch_t *l, int16_t (*const *hm)[2], int *const *hc, size_t mb )
{
    cme_cuda_t *g = h->gpu;
    const cudaStream_t st = g->lr_stream;
    int ret;
    if( !l->i_pairs )
        return 0;
    for( int k = 0; k < l->i_pairs; k++ )
        if( (ret = CME_CUDA( CME_FAULT_COPY, cudaMemcpyAsync( l->pair[k].mvs, hm[k], mb * sizeof(**hm), cudaMemcpyHostToDevice, st ) )) < 0 ||
            (ret = CME_CUDA( CME_FAULT_COPY, cudaMemcpyAsync( l->pair[k].costs, hc[k], mb * sizeof(int), cudaMemcpyHostToDevice, st ) )) < 0 )
            return ret;
    if( (ret = CME_CUDA( CME_FAULT_LAUNCH, cme_cuda_lowres( l, st ) )) < 0 )
        return ret;
    for( int k = 0; k < l->i_pairs; k++ )
        if( (ret = CME_CUDA( CME_FAULT_COPY, cudaMemcpyAsync( hm[k], l->pair[k].mvs, mb * sizeof(**hm), cudaMemcpyDeviceToHost, st ) )) < 0 ||
            (ret = CME_CUDA( CME_FAULT_COPY, cudaMemcpyAsync( hc[k], l->pair[k].costs, mb * sizeof(int), cudaMemcpyDeviceToHost, st ) )) < 0 )
            return ret;
    g->lr_launch++;   /* unpins the slots */
    return 0;
}

/* The lookahead's searches of n pairs (lowres_spec.h), queued on one
 * stream: each frame's planes up unless a slot has them (the last
 * LR_SLOTS frames, by id: a frame goes up once, F alone while it is only
 * searched, all four once it is a reference), the MV costs up, then
 * launches of up to CME_LOWRES_BATCH pairs whose frames fit in the slots
 * (every pair of a launch runs at once), each pair's arrays up before and
 * down after it, and an event: the ticket. */
static int cu_lowres_queue( cuda_me_t *h, const cme_lowres_param_t *p, const cuda_me_lowres_job_t *const *jobs,
                            int n, int16_t (*const *mvs)[2], int *const *costs, int64_t *ticket )
{
    cme_cuda_t *g = h->gpu;
    const int w = 8 * p->i_mb_width, hgt = 8 * p->i_mb_height;
    const int pw = w + 2 * CME_LOWRES_PAD, ph = hgt + 2 * CME_LOWRES_PAD;
    const size_t plane_bytes = (size_t)pw * ph, pad_off = (size_t)CME_LOWRES_PAD * pw + CME_LOWRES_PAD;
    const size_t mb = (size_t)p->i_mb_width * p->i_mb_height;
    /* |d| stays within 4 * i_mv_range plus the search's overshoot; x264's
     * table holds +-4*4*2048 */
    const int half = p->i_mv_range * 4 + 64 < 4 * 4 * 2048 ? p->i_mv_range * 4 + 64 : 4 * 4 * 2048;
    const size_t cost_n = 2 * (size_t)half + 1;
    int ret;
    if( !g->lr_launch )
        g->lr_launch = 1;   /* slot pins of 0: none */
    if( w != g->lr_w || hgt != g->lr_h )
    {
        memset( g->lr_slot, 0, sizeof(g->lr_slot) );
        g->lr_w = w;
        g->lr_h = hgt;
    }
    if( (ret = CME_CUDA( NOFAULT, cudaSetDevice( g->i_device ) )) < 0 ||
        (!g->lr_stream && (ret = lr_stream_create( h, g )) < 0) ||
        (ret = lr_grow( h, (void **)&g->lr_planes, &g->lr_planes_bytes, LR_SLOTS * 4 * plane_bytes )) < 0 ||
        (ret = lr_grow( h, (void **)&g->lr_mvs, &g->lr_mvs_bytes, CME_LOWRES_BATCH * mb * sizeof(**mvs) )) < 0 ||
        (ret = lr_grow( h, (void **)&g->lr_costs, &g->lr_costs_bytes, CME_LOWRES_BATCH * mb * sizeof(int) )) < 0 ||
        (ret = lr_grow( h, (void **)&g->lr_cost, &g->lr_cost_bytes, cost_n * sizeof(uint16_t) )) < 0 ||
        (ret = lr_grow( h, (void **)&g->lr_sync, &g->lr_sync_bytes, cme_cuda_lowres_sync_bytes( p, CME_LOWRES_BATCH ) )) < 0 ||
        (ret = lr_stage_grow( h, plane_bytes )) < 0 )
    {
        memset( g->lr_slot, 0, sizeof(g->lr_slot) );   /* a buffer may be new */
        g->lr_cost_src = NULL;
        return ret;
    }
    const cudaStream_t st = g->lr_stream;
    /* x264's MV cost table of this QP: up once (pageable, so its copy
     * waits for the stream; x264 keeps each QP's table in place) */
    if( g->lr_cost_src != p->p_cost_mv - half || g->lr_cost_n != cost_n )
    {
        g->lr_cost_src = NULL;
        if( (ret = CME_CUDA( CME_FAULT_COPY, cudaMemcpyAsync( g->lr_cost, p->p_cost_mv - half, cost_n * sizeof(uint16_t),
                                                              cudaMemcpyHostToDevice, st ) )) < 0 )
            return ret;
        g->lr_cost_src = p->p_cost_mv - half;
        g->lr_cost_n = cost_n;
    }
    cme_lowres_launch_t l;
    memset( &l, 0, sizeof(l) );
    l.p = *p;
    l.p.p_cost_mv = g->lr_cost + half;
    l.i_stride = pw;
    l.sync = g->lr_sync;
    int16_t (*hm[CME_LOWRES_BATCH])[2];
    int *hc[CME_LOWRES_BATCH];
    for( int k = 0; k < n; k++ )
    {
        const cuda_me_lowres_job_t *j = jobs[k];
        int kf = lr_slot( g, j->i_fenc_id ), kr = kf < 0 ? -1 : lr_slot( g, j->i_ref_id );
        if( kf < 0 || kr < 0 || l.i_pairs == CME_LOWRES_BATCH )
        {
            /* the slots are full of this launch's frames: run it first
             * (LR_SLOTS >= 2, so the pair then fits) */
            if( (ret = lr_launch( h, &l, hm, hc, mb )) < 0 )
                return ret;
            l.i_pairs = 0;
            kf = lr_slot( g, j->i_fenc_id );
            kr = lr_slot( g, j->i_ref_id );
        }
        uint8_t *const sf = g->lr_planes + kf * 4 * plane_bytes, *const sr = g->lr_planes + kr * 4 * plane_bytes;
        /* a slot is marked filled once its copies are queued; after a
         * failure here the handle's error is sticky and no search follows */
        if( !g->lr_slot[kf].level )
        {
            if( (ret = lr_up( h, sf + pad_off, pw, j->fenc, j->i_fenc_stride, w, hgt )) < 0 )
                return ret;
            g->lr_slot[kf].level = 1;
        }
        if( g->lr_slot[kr].level < 2 )
        {
            for( int i = 0; i < 4; i++ )
                if( (ret = lr_up( h, sr + i * plane_bytes, pw, j->ref[i] - CME_LOWRES_PAD * j->i_stride - CME_LOWRES_PAD,
                                  j->i_stride, pw, ph )) < 0 )
                    return ret;
            g->lr_slot[kr].level = 2;
        }
        cme_lowres_pair_t *q = &l.pair[l.i_pairs];
        q->fenc = sf + pad_off;
        for( int i = 0; i < 4; i++ )
            q->ref[i] = sr + i * plane_bytes + pad_off;
        q->mvs = g->lr_mvs + l.i_pairs * mb;
        q->costs = g->lr_costs + l.i_pairs * mb;
        hm[l.i_pairs] = mvs[k];
        hc[l.i_pairs++] = costs[k];
    }
    if( l.i_pairs && (ret = lr_launch( h, &l, hm, hc, mb )) < 0 )
        return ret;
    const int64_t t = ++g->lr_ticket;
    cudaEvent_t *ev = &g->lr_ev[t % LR_EVENTS];
    if( (!*ev && (ret = CME_CUDA( NOFAULT, cudaEventCreateWithFlags( ev, cudaEventDisableTiming | CME_WAIT_EVENT ) )) < 0) ||
        (ret = CME_CUDA( NOFAULT, cudaEventRecord( *ev, st ) )) < 0 )
        return ret;
    *ticket = t;
    return 0;
}

/* Until ticket's searches (and every earlier one: one stream) have run.
 * Its event may since be recorded again, for a later ticket: waiting for
 * that one is waiting a little longer. */
static int cu_lowres_wait( cuda_me_t *h, int64_t ticket )
{
    cme_cuda_t *g = h->gpu;
    if( ticket < 1 || ticket > g->lr_ticket )
        return 0;
    return CME_CUDA( NOFAULT, cudaEventSynchronize( g->lr_ev[ticket % LR_EVENTS] ) );
}

/* lowres' host buffers: pinned, so that the copies are asynchronous. */
static void *cu_lowres_alloc( cuda_me_t *h, size_t bytes )
{
    void *p = NULL;
    if( CME_CUDA( CME_FAULT_ALLOC, cudaMallocHost( &p, bytes ) ) < 0 )
        return NULL;
    return p;
}

static void cu_lowres_free( cuda_me_t *h, void *p )
{
    (void)h;
    if( p )
        cudaFreeHost( p );
}

const cme_backend_t cme_backend_cuda =
{
    .name        = "CUDA",
    .init        = cu_init,
    .uninit      = cu_uninit,
    .frame_alloc = cu_frame_alloc,
    .frame_free  = cu_frame_free,
    .frame_put   = cu_frame_put,
    .job_alloc   = cu_job_alloc,
    .job_free    = cu_job_free,
    .job_submit  = cu_job_submit,
    .job_finish  = cu_job_finish,
    .job_retire  = cu_job_retire,
    .stats_sync  = cu_stats_sync,
    .frame_sync  = cu_frame_sync,
    .flush       = cu_flush,
    .lowres_queue = cu_lowres_queue,
    .lowres_wait = cu_lowres_wait,
    .lowres_alloc = cu_lowres_alloc,
    .lowres_free = cu_lowres_free,
};

int cuda_me_have_cuda( void )
{
    return 1;
}

#else /* !HAVE_CUDA */

static int nocuda_init( cuda_me_t *h )
{
    cme_log( h, CUDA_ME_LOG_ERROR, "no usable CUDA device: this build has no CUDA backend\n" );
    return CUDA_ME_ENOTBUILT;
}

static void nocuda_void( cuda_me_t *h ) { (void)h; }

const cme_backend_t cme_backend_cuda =
{
    .name   = "CUDA (not built)",
    .init   = nocuda_init,
    .uninit = nocuda_void,
};

int cme_cuda_device_count( void )
{
    return 0;
}

int cuda_me_have_cuda( void )
{
    return 0;
}

#endif
