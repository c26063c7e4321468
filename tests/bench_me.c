/*****************************************************************************
 * bench_me.c: kernel benchmark of the GPU full search (not a test)
 *****************************************************************************
 * Per frame size (QCIF .. 2160p) and range (16, 32, 64, 128), one reference,
 * all 41 partitions with MV cost: ms per frame of each kernel and in total,
 * kernel-only and with transfers (upload of the frame, padding, search,
 * download of the results), for every variant of the search kernel (the
 * library's and dev/'s, cme_dev_search()) and the paper's unfused ones; the pixel absolute differences per second achieved against
 * the vabsdiff4 peak measured on the same GPU.  Timing with CUDA events:
 * 3 warm-up runs, then the median of up to 25 runs.
 *
 *   bench_me [-o file.csv] [-q] [-s SIZE] [-r RANGE] [-v VARIANT] [-t MV_RANGE_THREAD] [-g NT,U] [-k N] [-C PCT] [-x] [-X] [-n] [-b] [-P N] [-T FILE] | -l
 *     -q: fewer sizes and runs (-s: any size); -s/-r: one size (QCIF, CIF,
 *     720p, 1080p, 2160p, or WxH in multiples of 16)/range; -v: one variant of
 *     the search kernel only (no paper kernels); -t: x264's frame-thread
 *     MV limit (default 0: none); -g: NT threads per block and U runs per
 *     thread instead of the library's choice (cme_cuda_geom_force; a
 *     geometry the keys or shared memory cannot hold fails); -k: stream-K
 *     variants' launches in N blocks (cme_dev_sk_force; 0: none, -1: as
 *     many as the device holds at once, the default); -C: the
 *     kernels' preferred shared-memory carveout, PCT percent of the
 *     largest (cme_dev_carveout; the library leaves it to the driver); -x: the
 *     windows from the reference plane itself, without its 4-byte plane
 *     (cme_launch_t.xref NULL; the library makes one where its range is
 *     up to CME_XPLANE_RANGE_MAX, and from sm_90 on at every range); -X: the
 *     4-byte plane without its rows (cme_launch_t.i_xrows 0: no tensor
 *     copies of the windows, the same binary otherwise); -n: the kernel-only
 *     runs without the events between the steps (the call as the library
 *     makes it, cme_cuda_search(); measured: "total" the same either
 *     way), the steps' lines then 0; -b: each
 *     kernel-only run (and the two candidates' pair) queued behind an
 *     untimed launch of the same search,
 *     so that its events time the GPU's work and not the host's launch
 *     latency (on an idle stream the first event is stamped before the
 *     host has submitted the kernel: 5-6 us); the
 *     launch's cost in a stream of launches, as the encoder makes them
 *     for its references; -P N: also N searches queued over the
 *     library's two job streams in turn (cuda.c's CME_STREAMS), each with
 *     its own scratch and results, behind an untimed search: the span over
 *     N, "streamed", what a search costs the encoder when its searches
 *     queue (a launch's drain then overlaps the next one's first blocks,
 *     as the library's streams let them); -T FILE:
 *     after the timed runs, one more launch
 *     (behind an untimed one) whose blocks stamp their start and end
 *     (cme_dev_trace(): global timer, SM clock, SM; builds with
 *     -DCME_TRACE=1 only, see configure) into FILE, binary,
 *     CME_TRACE_WORDS uint64 a block (tests/tools/trace_blocks.py reads
 *     it; the last configuration run writes it: use with -s, -r, -v);
 *     -l: list the
 *     variants and exit.  The default variant of each range is
 *     marked '*'; "with xfers" is timed for it.
 * At the end, one table per frame size: total kernel ms per frame (median)
 * of every variant (rows) at every range (columns), and % of the peak.
 *   e.g. bench_me -s 1080p      every variant at +-16, 32, 64, 128
 *
 * Frame content does not change the work (no data-dependent branches), so
 * the frames are random.
 *
 *   bench_me -S [-s SIZE] [-p 9|41] [-c clip.y4m] [-q] [-o file.csv]
 *     the sub-pel kernels instead (subpel_cuda.cu), default at
 *     1080p: the half-pel planes of a frame, and the refinement of the
 *     integer winners of every macroblock (9 or 41 partitions) at --subme
 *     2, 5, 7, 9, kernel only and with transfers (bench_subpel()).  Their
 *     work depends on the content: -c takes frames 0 and 1 of a clip.
 *****************************************************************************/

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "internal.h"
#include "kernels.h"
#include "me_cuda_dev.h"
#include "test_util.h"

#define CHECK( x ) do { cudaError_t e_ = (x); if( e_ != cudaSuccess ) { \
    fprintf( stderr, "%s failed: %s\n", #x, cudaGetErrorString( e_ ) ); exit( 1 ); } } while( 0 )

static int cmp_float( const void *a, const void *b )
{
    float x = *(const float*)a, y = *(const float*)b;
    return x < y ? -1 : x > y;
}

typedef struct { float med, min; } stat_t;

static stat_t stat_of( float *v, int n )
{
    qsort( v, n, sizeof(float), cmp_float );
    stat_t s = { v[n/2], v[0] };
    return s;
}

static double window_absdiffs( int mb_w, int mb_h, int range, int mv_range, int mv_range_thread )
{
    double n = 0;
    for( int y = 0; y < mb_h; y++ )
        for( int x = 0; x < mb_w; x++ )
        {
            cme_window_t w = cme_get_window( x, y, mb_w, mb_h, range, mv_range, mv_range_thread, 0, 0 );
            n += (double)(w.x_max - w.x_min + 1) * (w.y_max - w.y_min + 1) * 256;
        }
    return n;
}

/* ---------------------------------------------------------------- sub-pel */

static int pixel_of( int pw, int ph )
{
    return pw == 16 ? (ph == 16 ? CME_PIXEL_16x16 : CME_PIXEL_16x8)
         : pw == 8 ? (ph == 16 ? CME_PIXEL_8x16 : ph == 8 ? CME_PIXEL_8x8 : CME_PIXEL_8x4)
         : ph == 8 ? CME_PIXEL_4x8 : CME_PIXEL_4x4;
}

static int cmp_job_size( const void *a, const void *b )
{
    const cme_subpel_job_t *x = a, *y = b;
    /* by size, then in raster order of the partitions */
    return x->i_pixel != y->i_pixel ? x->i_pixel - y->i_pixel : x->y != y->y ? x->y - y->y : x->x - y->x;
}

#define SUBPEL_COST_SPAN 4096   /* quarter-pels: vectors stay within +-(16+2)*4 of the predictor */

/* -S: the sub-pel kernels (subpel_cuda.cu) on one frame pair of w x h:
 * the half-pel planes of the reference, and the refinement of the integer
 * search's winners (mainline kernel, +-16, x264's cost at QP 26) of every
 * macroblock: the 9 partitions of the 8x8 set (or all 41), predictor the
 * window centre (0,0), x264's limits at --mvrange 512, at --subme 2, 5, 7
 * and 9 (one of each of x264's iteration counts: hpel/qpel 1/0, 1/2, 2/2,
 * 4/10), jobs grouped by size and in macroblock order.  Kernel-only
 * medians, and refinement with transfers (jobs up, results down).  Random
 * frames (cur = ref moved by whole pixels, plus noise: the integer vector
 * is nearly always right, little to refine) unless clip (frames 0 and 1). */
static void bench_subpel( const char *size_name, int w, int h, const char *clip, int parts, int quick, FILE *csv,
                          cudaStream_t st, cudaEvent_t ev[5] )
{
    tframe_t ref, cur;
    if( clip )
    {
        if( tframe_read_y4m( &ref, clip, 0 ) || tframe_read_y4m( &cur, clip, 1 ) )
        {
            fprintf( stderr, "bench_me: cannot read 2 frames of %s\n", clip );
            exit( 1 );
        }
        w = ref.w;
        h = ref.h;
    }
    else
    {
        uint32_t rng = 4321;
        if( tframe_alloc( &ref, w, h ) || tframe_alloc( &cur, w, h ) )
            exit( 1 );
        tframe_fill( &ref, PAT_RANDOM, &rng, NULL, 0, 0 );
        tframe_fill( &cur, PAT_SHIFTED, &rng, &ref, 3, -2 );
    }
    const int mb_w = w / 16, mb_h = h / 16, range = 16, mv_range = 512;
    const int runs = quick ? 8 : 25;

    /* device frames (CME_PAD borders, as the library's), the planes */
    const int pitch = (w + 2*CME_PAD + 127) & ~127;
    const size_t plane = (size_t)pitch * (h + 2*CME_PAD);
    uint8_t *d_buf[5], *d_p[5];   /* cur, F, H, V, C */
    for( int i = 0; i < 5; i++ )
    {
        CHECK( cudaMalloc( (void**)&d_buf[i], plane ) );
        d_p[i] = d_buf[i] + CME_PAD * pitch + CME_PAD;
    }
    CHECK( cudaMemcpy2D( d_buf[0], pitch, cur.buf, cur.stride, w + 2*CME_PAD, h + 2*CME_PAD, cudaMemcpyHostToDevice ) );
    CHECK( cudaMemcpy2D( d_buf[1], pitch, ref.buf, ref.stride, w + 2*CME_PAD, h + 2*CME_PAD, cudaMemcpyHostToDevice ) );

    float t[32];
    for( int r = -3; r < runs; r++ )
    {
        CHECK( cudaEventRecord( ev[0], st ) );
        CHECK( cme_cuda_hpel_planes( d_p[1], pitch, w, h, d_p + 2, pitch, st ) );
        CHECK( cudaEventRecord( ev[1], st ) );
        CHECK( cudaEventSynchronize( ev[1] ) );
        if( r >= 0 )
            CHECK( cudaEventElapsedTime( &t[r], ev[0], ev[1] ) );
    }
    stat_t s = stat_of( t, runs );
    printf( "# sub-pel kernels, %s %dx%d%s%s\n", size_name, w, h, clip ? ", " : ", random frames", clip ? clip : "" );
    printf( "%-6s %-28s %10s %10s %10s\n", "size", "kernel", "ms/frame", "min", "ns/item" );
    printf( "%-6s %-28s %10.4f %10.4f %10.3f\n", size_name, "hpel_planes", s.med, s.min,
            s.med * 1e6 / ((double)(w + 2*CME_HPEL_PAD) * (h + 2*CME_HPEL_PAD)) );
    if( csv )
        fprintf( csv, "%s,%d,%d,,,,hpel_planes,%.5f,%.5f,,,\n", size_name, w, h, s.med, s.min );

    /* the integer winners */
    uint16_t mv_cost[MV_COST_SIZE];
    test_mv_cost_qp( mv_cost, range, 26 );
    uint16_t *d_cost;
    CHECK( cudaMalloc( (void**)&d_cost, sizeof(mv_cost) ) );
    CHECK( cudaMemcpy( d_cost, mv_cost, sizeof(mv_cost), cudaMemcpyHostToDevice ) );
    const size_t scratch = cme_cuda_scratch_size( mb_w, mb_h, range, mv_range, 0, CUDA_ME_NPART );
    uint64_t *d_scratch;
    cuda_me_result_t *d_res, *res = malloc( sizeof(*res) * mb_w * mb_h * CUDA_ME_NPART );
    CHECK( cudaMalloc( (void**)&d_scratch, scratch ) );
    CHECK( cudaMalloc( (void**)&d_res, sizeof(*res) * mb_w * mb_h * CUDA_ME_NPART ) );
    cme_launch_t l = { .cur = d_p[0], .ref = d_p[1], .i_pitch = pitch, .i_mb_width = mb_w, .i_mb_height = mb_h,
                       .i_range = range, .i_mv_range = mv_range, .i_mv_range_thread = 0, .i_parts = CUDA_ME_NPART,
                       .mv_cost = d_cost, .centre = NULL, .blk_keys = d_scratch, .out = d_res, .i_variant = -1 };
    CHECK( cme_cuda_search( &l, st ) );
    CHECK( cudaMemcpyAsync( res, d_res, sizeof(*res) * mb_w * mb_h * CUDA_ME_NPART, cudaMemcpyDeviceToHost, st ) );
    CHECK( cudaStreamSynchronize( st ) );

    /* x264's quarter-pel cost table at QP 26 */
    uint16_t *costs = malloc( (2*SUBPEL_COST_SPAN + 1) * sizeof(uint16_t) ), *d_costs;
    test_cost_mv_qpel( costs + SUBPEL_COST_SPAN, SUBPEL_COST_SPAN, 26 );
    CHECK( cudaMalloc( (void**)&d_costs, (2*SUBPEL_COST_SPAN + 1) * sizeof(uint16_t) ) );
    CHECK( cudaMemcpy( d_costs, costs, (2*SUBPEL_COST_SPAN + 1) * sizeof(uint16_t), cudaMemcpyHostToDevice ) );

    const int n = mb_w * mb_h * parts;
    cme_subpel_job_t *job = malloc( sizeof(*job) * n ), *d_job;
    cme_subpel_result_t *out, *d_out;
    CHECK( cudaHostAlloc( (void**)&out, sizeof(*out) * n, cudaHostAllocDefault ) );
    CHECK( cudaMalloc( (void**)&d_job, sizeof(*job) * n ) );
    CHECK( cudaMalloc( (void**)&d_out, sizeof(*out) * n ) );
    cme_subpel_job_t *h_job;
    CHECK( cudaHostAlloc( (void**)&h_job, sizeof(*job) * n, cudaHostAllocDefault ) );
    uint8_t *hv[3];
    tframe_t hp[3];
    for( int i = 0; i < 3; i++ )
    {
        if( tframe_alloc( &hp[i], w, h ) )
            exit( 1 );
        hv[i] = hp[i].p;
    }
    cme_hpel_planes_c( ref.p, ref.stride, w, h, hv, hp[0].stride );
    static const int submes[] = { 2, 5, 7, 9 };
    for( unsigned si = 0; si < sizeof(submes)/sizeof(*submes); si++ )
        for( int grouped = 1; grouped >= 0; grouped-- )
        {
            int k = 0;
            for( int y = 0; y < mb_h; y++ )
                for( int x = 0; x < mb_w; x++ )
                    for( int p = 0; p < parts; p++ )
                    {
                        const cuda_me_result_t *r = res + (y * mb_w + x) * CUDA_ME_NPART + p;
                        int px, py, pw, ph;
                        test_part_rect( p, &px, &py, &pw, &ph );
                        cme_subpel_job_t *j = &job[k++];
                        memset( j, 0, sizeof(*j) );
                        j->x = (int16_t)(16*x + px);
                        j->y = (int16_t)(16*y + py);
                        j->i_pixel = (uint8_t)pixel_of( pw, ph );
                        j->i_subme = (uint8_t)submes[si];
                        j->mv[0] = (int16_t)(4 * r->mv[0]);
                        j->mv[1] = (int16_t)(4 * r->mv[1]);
                        j->mv_min[0] = (int16_t)cme_imax( 4*(-16*x - 24), -4*mv_range );
                        j->mv_max[0] = (int16_t)cme_imin( 4*(16*(mb_w - x - 1) + 24), 4*mv_range - 1 );
                        j->mv_min[1] = (int16_t)cme_imax( 4*(-16*y - 24), -4*mv_range );
                        j->mv_max[1] = (int16_t)cme_imin( 4*(16*(mb_h - y - 1) + 24), 4*mv_range - 1 );
                        j->i_cost_mv = SUBPEL_COST_SPAN;
                        /* x264's m->cost: SAD + MV cost of the start, quarter-pel table */
                        const cme_subpel_param_t prm = cme_subpel_job_param( j, costs );
                        const intptr_t o = (intptr_t)j->y * ref.stride + j->x;
                        const uint8_t *const pl[4] = { ref.p + o, hv[0] + o, hv[1] + o, hv[2] + o };
                        j->cost = cme_subpel_cmp( cur.p + j->y * cur.stride + j->x, cur.stride, pl, ref.stride,
                                                  j->i_pixel, 0, j->mv[0], j->mv[1] ) + cme_subpel_mv_cost( &prm, j->mv[0], j->mv[1] );
                    }
            if( grouped )
                qsort( job, n, sizeof(*job), cmp_job_size );
            memcpy( h_job, job, sizeof(*job) * n );
            CHECK( cudaMemcpy( d_job, job, sizeof(*job) * n, cudaMemcpyHostToDevice ) );
            cme_subpel_launch_t sl = { .cur = d_p[0], .i_cur_pitch = pitch, .plane = { d_p[1], d_p[2], d_p[3], d_p[4] },
                                       .i_pitch = pitch, .cost_mv = d_costs, .job = d_job, .out = d_out, .n = n };
            float tk[32], tx[32];
            for( int r = -3; r < runs; r++ )
            {
                CHECK( cudaEventRecord( ev[0], st ) );
                CHECK( cme_cuda_refine_subpel( &sl, st ) );
                CHECK( cudaEventRecord( ev[1], st ) );
                CHECK( cudaMemcpyAsync( d_job, h_job, sizeof(*job) * n, cudaMemcpyHostToDevice, st ) );
                CHECK( cme_cuda_refine_subpel( &sl, st ) );
                CHECK( cudaMemcpyAsync( out, d_out, sizeof(*out) * n, cudaMemcpyDeviceToHost, st ) );
                CHECK( cudaEventRecord( ev[2], st ) );
                CHECK( cudaEventSynchronize( ev[2] ) );
                if( r >= 0 )
                {
                    CHECK( cudaEventElapsedTime( &tk[r], ev[0], ev[1] ) );
                    CHECK( cudaEventElapsedTime( &tx[r], ev[1], ev[2] ) );
                }
            }
            int moved = 0;
            for( int i = 0; i < n; i++ )
                moved += out[i].mv[0] != job[i].mv[0] || out[i].mv[1] != job[i].mv[1];
            char kname[64];
            snprintf( kname, sizeof(kname), "refine %dp subme %d %s", parts, submes[si], grouped ? "grouped" : "mb-order" );
            stat_t sk = stat_of( tk, runs ), sx = stat_of( tx, runs );
            printf( "%-6s %-28s %10.4f %10.4f %10.3f   (%d partitions, %.0f%% moved)\n", size_name, kname, sk.med, sk.min,
                    sk.med * 1e6 / n, n, 100.0 * moved / n );
            printf( "%-6s %-28s %10.4f %10.4f\n", size_name, "  with xfers", sx.med, sx.min );
            if( csv )
            {
                fprintf( csv, "%s,%d,%d,,%d,,%s,%.5f,%.5f,,,\n", size_name, w, h, parts, kname, sk.med, sk.min );
                fprintf( csv, "%s,%d,%d,,%d,,%s+transfers,%.5f,%.5f,,,\n", size_name, w, h, parts, kname, sx.med, sx.min );
            }
            fflush( stdout );
        }
    for( int i = 0; i < 5; i++ )
        cudaFree( d_buf[i] );
    for( int i = 0; i < 3; i++ )
        tframe_free( &hp[i] );
    cudaFree( d_cost );
    cudaFree( d_costs );
    cudaFree( d_scratch );
    cudaFree( d_res );
    cudaFree( d_job );
    cudaFree( d_out );
    cudaFreeHost( out );
    cudaFreeHost( h_job );
    free( res );
    free( job );
    free( costs );
    tframe_free( &ref );
    tframe_free( &cur );
}

int main( int argc, char **argv )
{
    const char *csv_path = NULL, *only_size = NULL, *trace_path = NULL;
    const char *clip = NULL;
    int nomarks = 0, behind = 0, quick = 0, only_range = 0, only_variant = -1, mv_range_thread = 0, subpel = 0, subpel_parts = CUDA_ME_NPART_8x8;
    int xplane = 1, xrows = 1, carveout = -1, pipe = 0;
    for( int i = 1; i < argc; i++ )
    {
        if( !strcmp( argv[i], "-o" ) && i + 1 < argc )
            csv_path = argv[++i];
        else if( !strcmp( argv[i], "-q" ) )
            quick = 1;
        else if( !strcmp( argv[i], "-s" ) && i + 1 < argc )
            only_size = argv[++i];
        else if( !strcmp( argv[i], "-r" ) && i + 1 < argc )
            only_range = atoi( argv[++i] );
        else if( !strcmp( argv[i], "-v" ) && i + 1 < argc )
            only_variant = atoi( argv[++i] );
        else if( !strcmp( argv[i], "-l" ) )
        {
            /* the variants, one a line: number, name (tests/ncu_kernel.sh) */
            for( int v = 0; v < cme_dev_variant_count(); v++ )
                printf( "%d %s\n", v, cme_dev_variant_name( v ) );
            return 0;
        }
        else if( !strcmp( argv[i], "-t" ) && i + 1 < argc )
            mv_range_thread = atoi( argv[++i] );
        else if( !strcmp( argv[i], "-g" ) && i + 1 < argc )
        {
            int nt = 0, u = 0;
            if( sscanf( argv[++i], "%d,%d", &nt, &u ) != 2 || nt <= 0 || nt > 128 || nt % 32 || u <= 0 )
            {
                fprintf( stderr, "bench_me: -g NT,U: threads a multiple of 32 up to 128, runs per thread >= 1\n" );
                return 2;
            }
            cme_cuda_geom_force( nt, u );
        }
        else if( !strcmp( argv[i], "-k" ) && i + 1 < argc )
        {
            const int n = atoi( argv[++i] );   /* stream-K launches' blocks (cme_dev_sk_force) */
            if( n < -1 )
            {
                fprintf( stderr, "bench_me: -k N: stream-K blocks, 0: none, -1: the device's\n" );
                return 2;
            }
            cme_dev_sk_force( n );
        }
        else if( !strcmp( argv[i], "-C" ) && i + 1 < argc )
            carveout = atoi( argv[++i] );   /* the kernels' preferred shared-memory carveout, % */
        else if( !strcmp( argv[i], "-x" ) )
            xplane = 0;   /* windows from the plane itself (cme_launch_t.xref NULL) */
        else if( !strcmp( argv[i], "-n" ) )
            nomarks = 1;   /* no events between the steps (cme_cuda_search()'s call) */
        else if( !strcmp( argv[i], "-T" ) && i + 1 < argc )
            trace_path = argv[++i];   /* the blocks' times of one more launch (cme_dev_trace) */
        else if( !strcmp( argv[i], "-P" ) && i + 1 < argc )
        {
            pipe = atoi( argv[++i] );   /* N searches over two streams, per search */
            if( pipe < 2 || pipe > 1000 )
            {
                fprintf( stderr, "bench_me: -P N: 2 to 1000 searches\n" );
                return 2;
            }
        }
        else if( !strcmp( argv[i], "-b" ) )
            behind = 1;   /* each timed launch queued behind an untimed one */
        else if( !strcmp( argv[i], "-X" ) )
            xrows = 0;    /* no tensor copies (cme_launch_t.i_xrows 0) */
        else if( !strcmp( argv[i], "-S" ) )
            subpel = 1;
        else if( !strcmp( argv[i], "-p" ) && i + 1 < argc )
            subpel_parts = atoi( argv[++i] );
        else if( !strcmp( argv[i], "-c" ) && i + 1 < argc )
            clip = argv[++i];
        else
        {
            fprintf( stderr, "usage: %s [-o file.csv] [-q] [-s QCIF|CIF|720p|1080p|2160p|WxH] [-r range] [-v variant] "
                     "[-t mv_range_thread] [-g threads,runs] [-k sk_blocks] [-C carveout_pct] [-x] [-X] [-n] [-b] [-P N] [-T trace.bin] | -l\n"
                     "       %s -S [-s SIZE] [-p 9|41] [-c clip.y4m] [-q] [-o file.csv]\n", argv[0], argv[0] );
            return 2;
        }
    }
    if( only_range < 0 || only_range > CUDA_ME_RANGE_MAX )
    {
        fprintf( stderr, "bench_me: range %d: 1..%d\n", only_range, CUDA_ME_RANGE_MAX );
        return 2;
    }
    if( only_variant >= 0 && cme_dev_variant_info( only_variant, NULL, NULL ) < 0 )
    {
        fprintf( stderr, "bench_me: no kernel variant %d\n", only_variant );
        return 2;
    }
    if( subpel_parts != CUDA_ME_NPART && subpel_parts != CUDA_ME_NPART_8x8 )
    {
        fprintf( stderr, "bench_me: -p takes 9 or 41\n" );
        return 2;
    }
    if( mv_range_thread < 0 || (mv_range_thread > 0 && mv_range_thread < 8) )
    {
        fprintf( stderr, "bench_me: mv_range_thread must be 0 or >= 8\n" );
        return 2;
    }
    /* the last entry: -s WxH (multiples of 16), measured alone */
    static struct { const char *name; int w, h; } sizes[] = {
        { "QCIF", 176, 144 }, { "CIF", 352, 288 }, { "720p", 1280, 720 }, { "1080p", 1920, 1088 }, { "2160p", 3840, 2160 },
        { "WxH", 0, 0 } };
    enum { NSIZES = sizeof(sizes)/sizeof(*sizes) };
    {
        int cw, ch;
        char tail;
        if( only_size && sscanf( only_size, "%dx%d%c", &cw, &ch, &tail ) == 2 )
        {
            if( cw < 16 || ch < 16 || cw > 8192 || ch > 8192 || (cw | ch) & 15 )
            {
                fprintf( stderr, "bench_me: -s WxH takes multiples of 16 from 16 to 8192\n" );
                return 2;
            }
            sizes[NSIZES-1].name = only_size;
            sizes[NSIZES-1].w = cw;
            sizes[NSIZES-1].h = ch;
        }
        int known = !only_size;
        for( int i = 0; !known && i < NSIZES; i++ )
            known = sizes[i].w && !strcmp( only_size, sizes[i].name );
        if( !known )
        {
            fprintf( stderr, "bench_me: -s takes QCIF, CIF, 720p, 1080p, 2160p or WxH, not %s\n", only_size );
            return 2;
        }
    }
    int ndev = 0;
    if( cudaGetDeviceCount( &ndev ) != cudaSuccess || !ndev )
    {
        fprintf( stderr, "bench_me: no CUDA device\n" );
        return 1;
    }
    struct cudaDeviceProp prop;
    CHECK( cudaGetDeviceProperties( &prop, 0 ) );
    int drv = 0, rt = 0;
    cudaDriverGetVersion( &drv );
    cudaRuntimeGetVersion( &rt );
    const char *commit = getenv( "CUDA_ME_COMMIT" );
    printf( "# bench_me: %s, sm_%d%d, %d SMs, driver %d.%d, runtime %d.%d, commit %s, mv_range_thread %d\n", prop.name,
            prop.major, prop.minor, prop.multiProcessorCount, drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10,
            commit ? commit : "unknown", mv_range_thread );

    cudaStream_t st;
    CHECK( cudaStreamCreate( &st ) );
    CHECK( cme_cuda_prepare() );   /* the kernels' shared-memory limit, as cuda_me opens the device */
    CHECK( cme_dev_prepare() );    /* and dev/'s */
    if( carveout != -1 )
        CHECK( cme_dev_carveout( carveout ) );
    cudaEvent_t ev[5];
    for( int i = 0; i < 5; i++ )
        CHECK( cudaEventCreate( &ev[i] ) );
    /* -P: the library's two job streams (cuda.c) and their end marks */
    cudaStream_t pst[2] = { 0, 0 };
    cudaEvent_t pev[2];
    for( int i = 0; pipe && i < 2; i++ )
    {
        CHECK( cudaStreamCreateWithFlags( &pst[i], cudaStreamNonBlocking ) );
        CHECK( cudaEventCreateWithFlags( &pev[i], cudaEventDisableTiming ) );
    }

    /* peak */
    uint32_t *d_sink;
    CHECK( cudaMalloc( (void**)&d_sink, 64 ) );
    double peak = 0;
    for( int r = 0; r < 6; r++ )
    {
        double n;
        CHECK( cudaEventRecord( ev[0], st ) );
        CHECK( cme_dev_peak_absdiff( prop.multiProcessorCount * 16, st, d_sink, &n ) );
        CHECK( cudaEventRecord( ev[1], st ) );
        CHECK( cudaEventSynchronize( ev[1] ) );
        float ms;
        CHECK( cudaEventElapsedTime( &ms, ev[0], ev[1] ) );
        if( r >= 1 && n / (ms * 1e-3) > peak )
            peak = n / (ms * 1e-3);
    }
    printf( "# peak: %.2f T pixel-absdiffs/s (register-only vabsdiff4 loop)\n", peak * 1e-12 );

    FILE *csv = csv_path ? fopen( csv_path, "w" ) : NULL;
    if( csv_path && !csv )
    {
        perror( csv_path );
        return 1;
    }
    if( csv )
    {
        fprintf( csv, "# %s sm_%d%d driver %d.%d runtime %d.%d commit %s peak_tabs %.3f mv_range_thread %d\n", prop.name,
                 prop.major, prop.minor, drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10, commit ? commit : "unknown",
                 peak * 1e-12, mv_range_thread );
        fprintf( csv, "size,width,height,range,parts,variant,kernel,ms_median,ms_min,absdiffs,tabs_per_s,pct_of_peak\n" );
    }

    if( subpel )
    {
        int si = 3;   /* 1080p unless -s */
        for( unsigned i = 0; only_size && i < NSIZES; i++ )
            if( !strcmp( only_size, sizes[i].name ) )
                si = i;
        bench_subpel( clip ? "clip" : sizes[si].name, sizes[si].w, sizes[si].h, clip, subpel_parts, quick, csv, st, ev );
        if( csv )
            fclose( csv );
        return 0;
    }
    /* the ranges of the summary, or -r's range alone (any of 1..128) */
    int ranges[4] = { 16, 32, 64, 128 };
    const int nranges = only_range ? 1 : 4;
    if( only_range )
        ranges[0] = only_range;
    const int parts = CUDA_ME_NPART, mv_range = 512;
    /* summary: total ms per frame [size][range][variant], 0: not run */
    enum { MAX_VAR = 32 };
    static float summ[NSIZES][4][MAX_VAR + 1], summ_pct[NSIZES][4][MAX_VAR + 1];
    uint16_t mv_cost[MV_COST_SIZE];

    printf( "%-6s %5s %-14s %-12s %10s %10s %10s %8s\n", "size", "range", "variant", "kernel", "ms/frame", "min", "T abs/s", "%peak" );
    for( unsigned si = 0; si < NSIZES; si++ )
    {
        if( (quick && !only_size && (si == 0 || si == 4)) || (only_size && strcmp( only_size, sizes[si].name )) || !sizes[si].w )
            continue;
        const int w = sizes[si].w, h = sizes[si].h, mb_w = w / 16, mb_h = h / 16;
        const int pitch = (w + 2*CME_PAD + 127) & ~127;
        const size_t plane = (size_t)pitch * (h + 2*CME_PAD);
        uint8_t *d_cur, *d_ref, *h_frame;
        CHECK( cudaMalloc( (void**)&d_cur, plane ) );
        CHECK( cudaMalloc( (void**)&d_ref, plane ) );
        CHECK( cudaHostAlloc( (void**)&h_frame, (size_t)w * h, cudaHostAllocDefault ) );
        uint32_t rng = 12345;
        for( size_t i = 0; i < (size_t)w * h; i++ )
            h_frame[i] = (uint8_t)test_rand( &rng );
        uint8_t *pc = d_cur + CME_PAD * pitch + CME_PAD, *pr = d_ref + CME_PAD * pitch + CME_PAD;
        CHECK( cudaMemcpy2D( pr, pitch, h_frame, w, w, h, cudaMemcpyHostToDevice ) );
        CHECK( cme_cuda_pad( pr, pitch, w, h, st ) );
        /* the reference's 4-byte plane, as the library makes it at upload (-x: none) */
        uint32_t *d_xref = NULL;
        if( xplane )
        {
            CHECK( cudaMalloc( (void**)&d_xref, 4 * plane ) );
            CHECK( cme_cuda_xplane( d_ref, plane, d_xref, st ) );
        }
        const uint32_t *xr = d_xref ? d_xref + (pr - d_ref) : NULL;
        size_t out_bytes = (size_t)mb_w * mb_h * parts * sizeof(cuda_me_result_t);
        cuda_me_result_t *d_out, *h_out, *d_out2;
        int16_t *d_centre2;
        CHECK( cudaMalloc( (void**)&d_out, out_bytes ) );
        CHECK( cudaMalloc( (void**)&d_out2, 2 * out_bytes ) );
        CHECK( cudaMalloc( (void**)&d_centre2, (size_t)mb_w * mb_h * 2 * sizeof(int16_t) ) );
        CHECK( cudaHostAlloc( (void**)&h_out, out_bytes, cudaHostAllocDefault ) );

        for( int ri = 0; ri < nranges; ri++ )
        {
            const int range = ranges[ri];
            test_mv_cost( mv_cost, range );
            uint16_t *d_cost;
            CHECK( cudaMalloc( (void**)&d_cost, sizeof(mv_cost) ) );
            CHECK( cudaMemcpy( d_cost, mv_cost, sizeof(mv_cost), cudaMemcpyHostToDevice ) );
            const double absdiffs = window_absdiffs( mb_w, mb_h, range, mv_range, mv_range_thread );

            const int nvar = cme_dev_variant_count();
            const int vdef = cme_cuda_variant_default( range );
            for( int vi = 0; vi <= nvar; vi++ )
            {
                const int paper = vi == nvar;
                if( only_variant >= 0 && (paper || vi != only_variant) )
                    continue;
                size_t scratch = paper ? cme_dev_paper_scratch_size( mb_w, mb_h, range, mv_range, mv_range_thread, parts )
                                       : cme_dev_scratch_size( mb_w, mb_h, range, mv_range, mv_range_thread, parts );
                if( !paper )   /* two candidates: pass 2 reuses the scratch */
                {
                    size_t s2 = cme_dev_scratch_size( mb_w, mb_h, cme_pass2_range( range ), mv_range, mv_range_thread, parts );
                    scratch = s2 > scratch ? s2 : scratch;
                }
                if( paper && scratch > ((size_t)8 << 30) )
                {
                    printf( "%-6s %5d %-14s (skipped: needs %.1f GiB of scratch)\n", sizes[si].name, range, "paper", scratch / 1073741824. );
                    continue;
                }
                uint64_t *d_scratch;
                CHECK( cudaMalloc( (void**)&d_scratch, scratch ) );
                cme_launch_t l = { .cur = pc, .ref = pr, .xref = xr, .i_pitch = pitch, .i_mb_width = mb_w, .i_mb_height = mb_h,
                                   .i_range = range, .i_mv_range = mv_range, .i_mv_range_thread = mv_range_thread,
                                   .i_parts = parts, .mv_cost = d_cost,
                                   .centre = NULL, .blk_keys = d_scratch, .out = d_out, .i_variant = paper ? -1 : vi,
                                   .i_xrows = xr && xrows ? (int)(plane / pitch) : 0 };
                const int nk = paper ? 3 : 2;
                static const char *knames[2][3] = { { "1+2 search", "3 reduce" }, { "1 sad", "2 merge", "3 reduce" } };
                const int runs = quick ? 8 : 25;
                float t[4][32], tt[32], t2[32], tp[32];
                /* the library's path (cme_cuda_search()), timed for its
                 * default variant only */
                const int xfers = !paper && vi == vdef;
                cme_launch_t lib = l;
                lib.i_variant = -1;
                for( int r = -3; r < runs; r++ )
                {
                    /* kernel only; -b: behind an untimed launch of the same */
                    if( behind )
                        CHECK( paper ? cme_dev_search_paper( &l, st, NULL ) : cme_dev_search( &l, st ) );
                    CHECK( cudaEventRecord( ev[0], st ) );
                    cudaEvent_t *marks = nomarks ? NULL : ev + 1;
                    CHECK( paper ? cme_dev_search_paper( &l, st, marks ) : cme_dev_search_marked( &l, st, marks ) );
                    CHECK( cudaEventRecord( ev[nk], st ) );
                    CHECK( cudaEventSynchronize( ev[nk] ) );
                    if( xfers )
                    {
                        /* with transfers: a new frame up, padded, searched, results down */
                        CHECK( cudaEventRecord( ev[3], st ) );
                        CHECK( cudaMemcpy2DAsync( pc, pitch, h_frame, w, w, h, cudaMemcpyHostToDevice, st ) );
                        CHECK( cme_cuda_pad( pc, pitch, w, h, st ) );
                        CHECK( cme_cuda_search( &lib, st ) );
                        CHECK( cudaMemcpyAsync( h_out, d_out, out_bytes, cudaMemcpyDeviceToHost, st ) );
                        CHECK( cudaEventRecord( ev[4], st ) );
                        CHECK( cudaEventSynchronize( ev[4] ) );
                        if( r >= 0 )
                            CHECK( cudaEventElapsedTime( &tt[r], ev[3], ev[4] ) );
                        /* two candidates per partition (cuda_me.h i_cands 2):
                         * pass 1, then pass 2 around the neighbours' median */
                        cme_launch_t l2 = lib;   /* as the library runs it: pass 2 with its range's default */
                        l2.out = d_out2;
                        l2.i_out_stride = 2 * parts;
                        if( behind )   /* -b: behind an untimed single search, as the ratio's denominator */
                            CHECK( cme_cuda_search( &lib, st ) );
                        CHECK( cudaEventRecord( ev[3], st ) );
                        CHECK( cme_cuda_search( &l2, st ) );
                        CHECK( cme_cuda_search_pass2( &l2, d_centre2, st ) );
                        CHECK( cudaEventRecord( ev[4], st ) );
                        CHECK( cudaEventSynchronize( ev[4] ) );
                        if( r >= 0 )
                            CHECK( cudaEventElapsedTime( &t2[r], ev[3], ev[4] ) );
                    }
                    if( r < 0 )
                        continue;
                    for( int k = 0; k < nk; k++ )
                        if( nomarks )
                            t[k][r] = 0;
                        else
                            CHECK( cudaEventElapsedTime( &t[k][r], ev[k], ev[k+1] ) );
                    CHECK( cudaEventElapsedTime( &t[3][r], ev[0], ev[nk] ) );

                }
                if( pipe && !paper )
                {
                    /* -P N: N searches queued over the library's job streams
                     * (cuda.c: CME_STREAMS = 2, a job on each in turn), each
                     * stream its own scratch and results as there, behind an
                     * untimed search; per search: the span / N */
                    uint64_t *d_scr2;
                    cuda_me_result_t *d_outp;
                    CHECK( cudaMalloc( (void**)&d_scr2, scratch ) );
                    CHECK( cudaMalloc( (void**)&d_outp, out_bytes ) );
                    cme_launch_t lp[2] = { l, l };
                    lp[1].blk_keys = d_scr2;
                    lp[1].out = d_outp;
                    for( int r = -3; r < runs; r++ )
                    {
                        CHECK( cme_dev_search( &l, st ) );
                        CHECK( cudaEventRecord( ev[0], st ) );
                        for( int s = 0; s < 2; s++ )
                            CHECK( cudaStreamWaitEvent( pst[s], ev[0], 0 ) );
                        for( int j = 0; j < pipe; j++ )
                            CHECK( cme_dev_search( &lp[j & 1], pst[j & 1] ) );
                        for( int s = 0; s < 2; s++ )
                        {
                            CHECK( cudaEventRecord( pev[s], pst[s] ) );
                            CHECK( cudaStreamWaitEvent( st, pev[s], 0 ) );
                        }
                        CHECK( cudaEventRecord( ev[1], st ) );
                        CHECK( cudaEventSynchronize( ev[1] ) );
                        if( r >= 0 )
                        {
                            CHECK( cudaEventElapsedTime( &tp[r], ev[0], ev[1] ) );
                            tp[r] /= pipe;
                        }
                    }
                    CHECK( cudaFree( d_scr2 ) );
                    CHECK( cudaFree( d_outp ) );
                }
                if( trace_path && !paper )
                {
                    /* the blocks' stamps of one launch behind an untimed one */
                    const int nblk = cme_dev_search_blocks( &l ) * mb_w * mb_h;
                    const size_t tr_bytes = (size_t)nblk * CME_TRACE_WORDS * sizeof(uint64_t);
                    uint64_t *d_tr, *h_tr = malloc( tr_bytes );
                    if( !h_tr )
                    {
                        fprintf( stderr, "bench_me: out of memory for %d blocks' stamps\n", nblk );
                        exit( 1 );
                    }
                    CHECK( cudaMalloc( (void**)&d_tr, tr_bytes ) );
                    CHECK( cudaMemset( d_tr, 0, tr_bytes ) );
                    CHECK( cme_dev_search( &l, st ) );
                    const cudaError_t te = cme_dev_trace( d_tr );
                    if( te == cudaErrorNotSupported )
                    {
                        fprintf( stderr, "bench_me: -T needs the kernels built with -DCME_TRACE=1 "
                                 "(./configure --extra-nvccflags=-DCME_TRACE=1)\n" );
                        exit( 2 );
                    }
                    CHECK( te );
                    CHECK( cme_dev_search( &l, st ) );
                    CHECK( cudaStreamSynchronize( st ) );
                    CHECK( cme_dev_trace( NULL ) );
                    CHECK( cudaMemcpy( h_tr, d_tr, tr_bytes, cudaMemcpyDeviceToHost ) );
                    FILE *f = fopen( trace_path, "wb" );
                    if( !f || fwrite( h_tr, sizeof(uint64_t) * CME_TRACE_WORDS, nblk, f ) != (size_t)nblk || fclose( f ) )
                    {
                        fprintf( stderr, "bench_me: cannot write %s\n", trace_path );
                        exit( 1 );
                    }
                    printf( "%-6s %5d v%d: %d blocks' stamps in %s\n", sizes[si].name, range, vi, nblk, trace_path );
                    free( h_tr );
                    CHECK( cudaFree( d_tr ) );
                }
                char vname[32];
                if( paper )
                    snprintf( vname, sizeof(vname), "paper" );
                else
                    snprintf( vname, sizeof(vname), "v%d:%s%s", vi, cme_dev_variant_name( vi ), vi == vdef ? "*" : "" );
                for( int k = 0; k <= nk; k++ )
                {
                    int idx = k < nk ? k : 3;
                    const char *kn = k < nk ? knames[paper][k] : "total";
                    stat_t s = stat_of( t[idx], runs );
                    double rate = absdiffs / (s.med * 1e-3);
                    if( k == nk && vi <= MAX_VAR )
                    {
                        summ[si][ri][vi] = s.med;
                        summ_pct[si][ri][vi] = 100. * rate / peak;
                    }
                    printf( "%-6s %5d %-14s %-12s %10.4f %10.4f %10.2f %8.1f\n", sizes[si].name, range, vname, kn, s.med, s.min,
                            k == nk ? rate * 1e-12 : 0., k == nk ? 100. * rate / peak : 0. );
                    if( csv )
                        fprintf( csv, "%s,%d,%d,%d,%d,%s,%s,%.5f,%.5f,%.0f,%.4f,%.2f\n", sizes[si].name, w, h, range, parts, vname, kn,
                                 s.med, s.min, absdiffs, k == nk ? rate * 1e-12 : 0., k == nk ? 100. * rate / peak : 0. );
                }
                if( !paper )
                {
                    int gt = 0, gu = 0;
                    const int gnb = cme_dev_search_geometry( &l, &gt, &gu );
                    const int skn = cme_dev_search_sk( &l, NULL );
                    printf( "%-6s %5d %-14s %-12s %4d x %2d, %d block%s a macroblock", sizes[si].name, range, vname, "geometry",
                            gt, gu, gnb, gnb == 1 ? "" : "s" );
                    if( skn )
                        printf( ", stream-K in %d blocks", skn );
                    printf( "\n" );
                }
                if( pipe && !paper )
                {
                    stat_t s = stat_of( tp, runs );
                    printf( "%-6s %5d %-14s %-12s %10.4f %10.4f %10.2f %8.1f\n", sizes[si].name, range, vname, "streamed",
                            s.med, s.min, absdiffs / (s.med * 1e-3) * 1e-12, 100. * absdiffs / (s.med * 1e-3) / peak );
                    if( csv )
                        fprintf( csv, "%s,%d,%d,%d,%d,%s,%s,%.5f,%.5f,%.0f,%.4f,%.2f\n", sizes[si].name, w, h, range, parts, vname,
                                 "streamed", s.med, s.min, absdiffs, absdiffs / (s.med * 1e-3) * 1e-12,
                                 100. * absdiffs / (s.med * 1e-3) / peak );
                }
                if( xfers )
                {
                    stat_t s = stat_of( tt, runs );
                    printf( "%-6s %5d %-14s %-12s %10.4f %10.4f\n", sizes[si].name, range, vname, "with xfers", s.med, s.min );
                    if( csv )
                        fprintf( csv, "%s,%d,%d,%d,%d,%s,%s,%.5f,%.5f,%.0f,,\n", sizes[si].name, w, h, range, parts, vname,
                                 "total+transfers", s.med, s.min, absdiffs );
                    s = stat_of( t2, runs );
                    printf( "%-6s %5d %-14s %-12s %10.4f %10.4f %10.2fx\n", sizes[si].name, range, vname, "2 cands", s.med, s.min,
                            s.med / summ[si][ri][vi] );
                    if( csv )
                        fprintf( csv, "%s,%d,%d,%d,%d,%s,%s,%.5f,%.5f,%.0f,,\n", sizes[si].name, w, h, range, parts, vname,
                                 "two candidates", s.med, s.min, absdiffs );
                }
                cudaFree( d_scratch );
            }
            cudaFree( d_cost );
            fflush( stdout );
        }
        cudaFree( d_cur );
        cudaFree( d_ref );
        cudaFree( d_xref );
        cudaFree( d_out );
        cudaFree( d_out2 );
        cudaFree( d_centre2 );
        cudaFreeHost( h_out );
        cudaFreeHost( h_frame );
    }
    const int nvar = cme_dev_variant_count();
    for( unsigned si = 0; si < NSIZES; si++ )
    {
        int any = 0;
        for( int ri = 0; ri < 4; ri++ )
            for( int vi = 0; vi <= nvar && vi <= MAX_VAR; vi++ )
                any |= summ[si][ri][vi] > 0;
        if( !any )
            continue;
        printf( "\n# %s: total kernel ms per frame (median), %% of peak\n%-16s", sizes[si].name, "variant" );
        for( int ri = 0; ri < nranges; ri++ )
            printf( "   +-%-3d     %%pk", ranges[ri] );
        printf( "\n" );
        for( int vi = 0; vi <= nvar && vi <= MAX_VAR; vi++ )
        {
            char vname[32];
            if( vi == nvar )
                snprintf( vname, sizeof(vname), "paper" );
            else
                snprintf( vname, sizeof(vname), "v%d:%s", vi, cme_dev_variant_name( vi ) );
            printf( "%-16s", vname );
            for( int ri = 0; ri < nranges; ri++ )
                if( summ[si][ri][vi] > 0 )
                    printf( " %8.4f %6.1f", summ[si][ri][vi], summ_pct[si][ri][vi] );
                else
                    printf( " %8s %6s", "-", "-" );
            printf( "\n" );
        }
    }
    if( csv )
        fclose( csv );
    return 0;
}
