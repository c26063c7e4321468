/*****************************************************************************
 * checkasm_me.c: the CUDA kernels and backend against the C reference
 *****************************************************************************
 * In the manner of x264's tools/checkasm.c and dav1d's: the same inputs
 * through the C reference and the GPU, compared exactly (cost and MV of
 * every partition, macroblock and reference); every device output sits
 * between canaries that must survive, and must itself be fully written.
 * The library's search (its default variant of each range), every variant
 * of dev/ and the paper's unfused kernels (dev/) are checked, without and
 * with x264's frame-thread MV limit.
 * The sub-pel kernels (subpel_cuda.cu) against subpel_c.c: the
 * half-pel planes byte for byte with their border (and nothing written
 * beyond it) on random, extreme and real frames; the refinement of batches
 * of partitions (all sizes, --subme 2..11, tesa, x264's limits, several
 * cost tables) on C's planes and on the kernel's own.  Their inputs and C
 * results are made and checked (the search must move) without a GPU too.
 * Sub-pel through the API (i_subme: planes at upload, jobs_kernel and the
 * refinement after each search): CUDA == C, integer and sub-pel results.
 *
 * Without a CUDA device every test here says SKIP loudly and passes, unless
 * CUDA_ME_REQUIRE_GPU=1, which turns the skip into a failure.
 *****************************************************************************/

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "test_util.h"

#if HAVE_CUDA
#include <dlfcn.h>
#include <cuda_runtime_api.h>
#include "kernels.h"
#include "me_cuda_dev.h"
#endif

static int have_gpu( const char *test )
{
    if( cme_cuda_device_count() > 0 )
        return 1;
    const char *req = getenv( "CUDA_ME_REQUIRE_GPU" );
    if( req && atoi( req ) )
        ck_abort_msg( "%s: CUDA_ME_REQUIRE_GPU=1 but no usable CUDA device (%s)", test,
                      cuda_me_have_cuda() ? "none found" : "CUDA backend not built" );
    printf( "*** SKIP %s: no usable CUDA device (%s); this test did not run ***\n", test,
            cuda_me_have_cuda() ? "none found" : "CUDA backend not built" );
    fflush( stdout );
    return 0;
}

/* got equals want; a missing (NULL) result is a failure, not a crash. */
static void check_results( const char *what, const cuda_me_result_t *want, const cuda_me_result_t *got,
                           int mb_w, int mb_h, int parts )
{
    ck_assert_msg( want != NULL, "%s: no reference results", what );
    ck_assert_msg( got != NULL, "%s: no results", what );
    ck_assert_msg( !results_compare( what, want, got, mb_w, mb_h, parts, test_seed() ), "%s differs from the reference", what );
}

#if HAVE_CUDA

/* ---------------------------------------------------------------- kernels */

typedef struct
{
    int w, h;
    int pattern;          /* or -1: real clip */
    const char *clip;
    int range, mv_range;
    int cost;             /* MV cost: 0 none, 1 x264's at QP 12 (30 with centres),
                           * 2 x264's at QP 51, 3 the largest a table may hold
                           * (65535 - small random), where costs reach 18 bits */
    int spread;           /* random window centres within +-spread, -1: none */
    int thread;           /* x264's frame-thread MV limit, 0: none */
} gcase_t;

static const gcase_t gcases[] =
{
    {   16,   16, PAT_RANDOM,  NULL,   4, 512, 1, -1,  0 },
    {   16,   16, PAT_RANDOM,  NULL, 128, 512, 1, -1,  0 },
    {   48,   32, PAT_MAXDIFF, NULL,  16, 512, 1, -1,  0 },
    {   64,   48, PAT_FLAT,    NULL,  16, 512, 0, -1,  0 },
    {   64,   48, PAT_FLAT,    NULL,  16, 512, 1, -1,  0 },
    {   64,   48, PAT_GRADIENT,NULL,  33, 512, 1, -1,  0 },
    {   80,   64, PAT_RANDOM,  NULL,  24,  32, 1, -1,  0 },
    {   48,   32, PAT_SHIFTED, NULL,   9, 512, 1, -1,  0 },
    {  176,  144, PAT_SHIFTED, NULL,   4, 512, 1, -1,  0 },
    {  176,  144, PAT_SHIFTED, NULL,   5, 512, 1, -1,  0 },
    {  176,  144, PAT_SHIFTED, NULL,   7, 512, 0, -1,  0 },
    {  176,  144, PAT_SHIFTED, NULL,  16, 512, 1, -1,  0 },
    {  176,  144, PAT_SHIFTED, NULL,  17, 512, 1, -1,  0 },
    {  176,  144, PAT_SHIFTED, NULL,  31, 512, 1, -1,  0 },
    {  176,  144, PAT_SHIFTED, NULL,  32, 512, 1, -1,  0 },
    {  176,  144, PAT_SHIFTED, NULL,  64, 512, 1, -1,  0 },
    {  176,  144, PAT_SHIFTED, NULL, 100, 512, 1, -1,  0 },
    {  176,  144, PAT_SHIFTED, NULL, 128, 512, 1, -1,  0 },
    {  176,  144, PAT_SHIFTED, NULL, 128,  64, 1, -1,  0 },
    {  352,  288, -1, "foreman_cif.y4m",  16, 512, 1, -1,  0 },
    {  352,  288, -1, "foreman_cif.y4m",  32, 512, 1, -1,  0 },
    {  352,  288, -1, "foreman_cif.y4m",  64, 512, 1, -1,  0 },
    { 1920, 1088, -1, "street_1080p.y4m", 32, 512, 1, -1,  0 },
    /* window centres inside, at and beyond the limits */
    {   64,   48, PAT_SHIFTED, NULL,   8, 512, 1, 200,  0 },
    {  176,  144, PAT_SHIFTED, NULL,  16, 512, 1, 40,  0 },
    {  176,  144, PAT_SHIFTED, NULL,  33,  64, 1, 100,  0 },
    {  176,  144, PAT_FLAT,    NULL,  32, 512, 1, 60,  0 },
    {  352,  288, -1, "foreman_cif.y4m",  24, 512, 1, 30,  0 },
    { 1920, 1088, -1, "street_1080p.y4m", 16, 512, 1, 60,  0 },
    /* x264's frame-thread limit on vectors pointing down, with and without
     * centres, at and beyond the range */
    {   64,   48, PAT_RANDOM,  NULL,   8, 512, 1, -1,  8 },
    {  176,  144, PAT_SHIFTED, NULL,  16, 512, 1, -1,  8 },
    {  176,  144, PAT_SHIFTED, NULL,  16, 512, 1, 40, 24 },
    {  176,  144, PAT_SHIFTED, NULL,  32,  64, 1, -1, 40 },
    {  176,  144, PAT_SHIFTED, NULL,  64, 512, 1, 100, 24 },
    {  176,  144, PAT_FLAT,    NULL,  32, 512, 1, 60, 40 },
    {  176,  144, PAT_SHIFTED, NULL, 128, 512, 1, -1, 64 },
    {  176,  144, PAT_SHIFTED, NULL, 128, 512, 1, 200, 8 },
    {  352,  288, -1, "foreman_cif.y4m",  24, 512, 1, 30, 24 },
    {  352,  288, -1, "foreman_cif.y4m", 128, 512, 0, -1,  8 },
    { 1920, 1088, -1, "street_1080p.y4m", 32, 512, 1, 60, 40 },
    /* MV costs at their bounds: the keys' cost field (KEYS_FMA merges) */
    {  176,  144, PAT_SHIFTED, NULL, 128, 512, 2, 100,  0 },
    {  176,  144, PAT_MAXDIFF, NULL,  16, 512, 3, 40,  0 },
    {  176,  144, PAT_FLAT,    NULL,  32, 512, 3, -1,  0 },
};

static int load_case( const gcase_t *c, int idx, tframe_t *cur, tframe_t *ref )
{
    if( c->pattern < 0 )
    {
        char path[512];
        snprintf( path, sizeof(path), "%s/%s", test_data_dir(), c->clip );
        if( tframe_read_y4m( ref, path, 2 ) || tframe_read_y4m( cur, path, 3 ) )
        {
            if( test_require_gpu() )
                ck_abort_msg( "gpu case %d: %s not found (CUDA_ME_REQUIRE_GPU=1: tests/device.sh data decodes it)", idx, path );
            printf( "*** SKIP gpu case %d: %s not found ***\n", idx, path );
            return -1;
        }
        return 0;
    }
    uint32_t rng = test_seed() + 1000 * idx;
    tframe_alloc( ref, c->w, c->h );
    tframe_alloc( cur, c->w, c->h );
    int pat = c->pattern == PAT_SHIFTED ? PAT_RANDOM : c->pattern;
    tframe_fill( ref, pat, &rng, NULL, 0, 0 );
    if( c->pattern == PAT_SHIFTED )
        tframe_fill( cur, PAT_SHIFTED, &rng, ref, (int)(test_rand( &rng ) % 41) - 20, (int)(test_rand( &rng ) % 21) - 10 );
    else
        tframe_fill( cur, pat, &rng, NULL, 0, 0 );
    return 0;
}

#define GUARD 4096   /* canary bytes before and after every device output */

#define CU( x ) do { cudaError_t e_ = (x); ck_assert_msg( e_ == cudaSuccess, "%s: %s", #x, cudaGetErrorString( e_ ) ); } while( 0 )

/* A device output of n bytes between two GUARD byte canaries, all canary
 * before the call. */
static uint8_t *dev_guarded_alloc( size_t n )
{
    uint8_t *d;
    CU( cudaMalloc( (void**)&d, n + 2*GUARD ) );
    CU( cudaMemset( d, CANARY_BYTE, n + 2*GUARD ) );
    return d;
}

/* Its n bytes, copied back (malloc'ed), after checking both canaries. */
static uint8_t *dev_guarded_fetch( const char *what, const char *buf, const uint8_t *d, size_t n )
{
    uint8_t *h = malloc( n + 2*GUARD );
    ck_assert_ptr_nonnull( h );
    CU( cudaMemcpy( h, d, n + 2*GUARD, cudaMemcpyDeviceToHost ) );
    ck_assert_msg( canary_intact( h, GUARD ), "%s: stray write before the %s", what, buf );
    ck_assert_msg( canary_intact( h + GUARD + n, GUARD ), "%s: stray write past the %s", what, buf );
    return h;
}

#define CANARY_KEY (0x0101010101010101ull * CANARY_BYTE)

/* The launch of one search on padded device planes (pixel (0,0) at
 * CME_PAD, CME_PAD) of h rows, with the reference's 4-byte plane d_xref
 * (made from its whole allocation: xplane_of()) and its rows, as the
 * library launches them, its scratch and results after their front
 * canaries; i_out_stride 0: one candidate. */
static cme_launch_t launch_of( uint8_t *d_cur, uint8_t *d_ref, const uint32_t *d_xref, int pitch, int h, int mb_w, int mb_h, int range, int mv_range,
                               int mv_range_thread, int parts, const uint16_t *d_cost, const int16_t *d_centre,
                               uint8_t *d_scratch, uint8_t *d_out, int variant )
{
    cme_launch_t l;
    memset( &l, 0, sizeof(l) );
    l.cur = d_cur + CME_PAD * pitch + CME_PAD;
    l.ref = d_ref + CME_PAD * pitch + CME_PAD;
    l.xref = d_xref + CME_PAD * pitch + CME_PAD;
    l.i_pitch = pitch;
    l.i_mb_width = mb_w;
    l.i_mb_height = mb_h;
    l.i_range = range;
    l.i_mv_range = mv_range;
    l.i_mv_range_thread = mv_range_thread;
    l.i_parts = parts;
    l.mv_cost = d_cost;
    l.centre = d_centre;
    l.blk_keys = (uint64_t*)(d_scratch + GUARD);
    l.out = (cuda_me_result_t*)(d_out + GUARD);
    l.i_variant = variant;
    l.i_xrows = h + 2*CME_PAD;
    return l;
}

/* The reference's 4-byte plane, made as the library makes it at upload. */
static uint32_t *xplane_of( const uint8_t *d_ref, size_t plane )
{
    uint32_t *d_xref;
    CU( cudaMalloc( (void**)&d_xref, 4 * plane ) );
    CU( cme_cuda_xplane( d_ref, plane, d_xref, 0 ) );
    return d_xref;
}

/* One search through the kernel launchers (variant < 0: the library's
 * launch, cme_cuda_search(); else dev/'s, cme_dev_search()), with the reference's 4-byte
 * plane as the library launches them (used up to CME_XPLANE_RANGE_MAX:
 * the cases' wider ranges test the kernels' loads from the plane itself),
 * every output between canaries;
 * after the call: nothing written outside them, every result written, and
 * (mainline kernels) the scratch keys written as [macroblock][block]
 * [partition], with no gap, or none at all where a macroblock is one block. */
static void run_kernels( const char *what, int paper, int variant, const tframe_t *cur, const tframe_t *ref,
                         int range, int mv_range, int mv_range_thread, const uint16_t *mv_cost, const int16_t *centre,
                         int parts, cuda_me_result_t *out )
{
    const int mb_w = cur->w / 16, mb_h = cur->h / 16;
    const size_t count = (size_t)mb_w * mb_h * parts, n = count * sizeof(cuda_me_result_t);
    const int pitch = (cur->w + 2*CME_PAD + 127) & ~127;
    const size_t plane = (size_t)pitch * (cur->h + 2*CME_PAD);
    uint8_t *d_cur, *d_ref;
    uint16_t *d_cost = NULL;
    int16_t *d_centre = NULL;
    const int lib = !paper && variant < 0;
    size_t scratch = paper ? cme_dev_paper_scratch_size( mb_w, mb_h, range, mv_range, mv_range_thread, parts )
                   : lib ? cme_cuda_scratch_size( mb_w, mb_h, range, mv_range, mv_range_thread, parts )
                         : cme_dev_scratch_size( mb_w, mb_h, range, mv_range, mv_range_thread, parts );
    ck_assert_msg( scratch > 0 && scratch % sizeof(uint64_t) == 0, "%s: scratch size %zu", what, scratch );
    CU( cudaMalloc( (void**)&d_cur, plane ) );
    CU( cudaMalloc( (void**)&d_ref, plane ) );
    uint8_t *d_out = dev_guarded_alloc( n );
    uint8_t *d_scratch = dev_guarded_alloc( scratch );
    /* planes with their borders, as the library's pad kernel makes them */
    CU( cudaMemcpy2D( d_cur, pitch, cur->buf, cur->stride, cur->w + 2*CME_PAD, cur->h + 2*CME_PAD, cudaMemcpyHostToDevice ) );
    CU( cudaMemcpy2D( d_ref, pitch, ref->buf, ref->stride, ref->w + 2*CME_PAD, ref->h + 2*CME_PAD, cudaMemcpyHostToDevice ) );
    if( mv_cost )
    {
        CU( cudaMalloc( (void**)&d_cost, (4*range + 1) * sizeof(uint16_t) ) );
        CU( cudaMemcpy( d_cost, mv_cost, (4*range + 1) * sizeof(uint16_t), cudaMemcpyHostToDevice ) );
    }
    if( centre )
    {
        CU( cudaMalloc( (void**)&d_centre, (size_t)mb_w * mb_h * 4 ) );
        CU( cudaMemcpy( d_centre, centre, (size_t)mb_w * mb_h * 4, cudaMemcpyHostToDevice ) );
    }

    uint32_t *d_xref = xplane_of( d_ref, plane );
    const cme_launch_t l = launch_of( d_cur, d_ref, d_xref, pitch, cur->h, mb_w, mb_h, range, mv_range, mv_range_thread, parts,
                                      d_cost, d_centre, d_scratch, d_out, variant );
    CU( paper ? cme_dev_search_paper( &l, 0, NULL ) : lib ? cme_cuda_search( &l, 0 ) : cme_dev_search( &l, 0 ) );
    CU( cudaDeviceSynchronize() );

    uint8_t *h_out = dev_guarded_fetch( what, "results", d_out, n );
    for( size_t i = 0; i < count; i++ )
        ck_assert_msg( !canary_intact( h_out + GUARD + i * sizeof(cuda_me_result_t), sizeof(cuda_me_result_t) ),
                       "%s: result of macroblock %zu partition %zu never written", what, i / parts, i % parts );
    memcpy( out, h_out + GUARD, n );
    free( h_out );
    if( !paper )
    {
        /* the same launch without the plane's rows: the windows by loads,
         * not tensor copies (cme_launch_t.i_xrows, sm_90 on), the same
         * results (both are checked against C by the caller through out) */
        cme_launch_t l0 = l;
        l0.i_xrows = 0;
        CU( cudaMemset( d_out + GUARD, 0, n ) );
        CU( lib ? cme_cuda_search( &l0, 0 ) : cme_dev_search( &l0, 0 ) );
        CU( cudaDeviceSynchronize() );
        h_out = dev_guarded_fetch( what, "results (no tensor copies)", d_out, n );
        for( size_t i = 0; i < count; i++ )
            ck_assert_msg( !memcmp( h_out + GUARD + i * sizeof(cuda_me_result_t), (const uint8_t*)out + i * sizeof(cuda_me_result_t),
                                    sizeof(cuda_me_result_t) ),
                           "%s: macroblock %zu partition %zu: without the plane's rows (no tensor copies) not as with them",
                           what, i / parts, i % parts );
        free( h_out );
    }

    uint8_t *h_scratch = dev_guarded_fetch( what, "scratch", d_scratch, scratch );
    const size_t nkeys = scratch / sizeof(uint64_t), per = (size_t)mb_w * mb_h * parts;
    size_t used = 0;
    for( uint64_t key; used < nkeys; used++ )
    {
        memcpy( &key, h_scratch + GUARD + used * sizeof(uint64_t), sizeof(key) );
        if( key == CANARY_KEY )
            break;
    }
    /* the paper kernels keep their SADs after the keys: only the keys of
     * the first block of every macroblock can be told apart */
    if( paper )
        ck_assert_msg( used >= per, "%s: scratch: only %zu of at least %zu keys written", what, used, per );
    else
    {
        /* a key per macroblock, block and partition; none with one block
         * per macroblock (the search kernel stores the results itself);
         * stream-K launches: their split macroblocks' keys and flags, in
         * the first sk_keys keys (where a boundary splits none, untouched) */
        const int nb = lib ? cme_cuda_search_blocks( &l ) : cme_dev_search_blocks( &l );
        size_t sk_keys = 0;
        const int skn = lib ? 0 : cme_dev_search_sk( &l, &sk_keys );
        const size_t want = nb == 1 ? 0 : (size_t)nb * per;
        if( skn )
        {
            ck_assert_msg( nb == 1 && sk_keys <= nkeys, "%s: scratch: stream-K in %d blocks needs %zu keys, has %zu",
                           what, skn, sk_keys, nkeys );
            used = sk_keys;   /* the canaries from there on */
        }
        else
            ck_assert_msg( nb > 0 && used == want && want <= nkeys, "%s: scratch: %zu keys written, not %zu (%d blocks per macroblock)",
                           what, used, want, nb );
        ck_assert_msg( canary_intact( h_scratch + GUARD + used * sizeof(uint64_t), scratch - used * sizeof(uint64_t) ),
                       "%s: scratch: keys written after key %zu, which was not", what, used );
    }
    free( h_scratch );
    cudaFree( d_cur );
    cudaFree( d_ref );
    cudaFree( d_xref );
    cudaFree( d_out );
    cudaFree( d_scratch );
    cudaFree( d_cost );
    cudaFree( d_centre );
}

/* The set-up both kernel tests share: case ci's name (prefix what), whether
 * it runs (a GPU; small enough under compute-sanitizer), its frames, its MV
 * cost table (mv_cost, MV_COST_SIZE entries; *mvc NULL without costs) and
 * its window centres (free them).  Returns 0 when the case runs. */
static int gcase_setup( const gcase_t *c, int ci, const char *what, char *name, size_t name_size,
                        tframe_t *cur, tframe_t *ref, uint16_t *mv_cost, const uint16_t **mvc, int16_t **centre )
{
    snprintf( name, name_size, "%s, case %d (%dx%d %s range %d mv_range %d mv_range_thread %d%s)", what, ci, c->w, c->h,
              c->clip ? c->clip : "synthetic", c->range, c->mv_range, c->thread, c->spread >= 0 ? ", centres" : "" );
    if( !have_gpu( name ) )
        return -1;
    /* under compute-sanitizer: only the small cases (racecheck: the smallest) */
    const int san = getenv( "CUDA_ME_SANITIZE" ) ? atoi( getenv( "CUDA_ME_SANITIZE" ) ) : 0;
    if( san && (size_t)c->w * c->h * (2*c->range + 1) * (2*c->range + 1) > ((size_t)1 << (san > 1 ? 24 : 30)) )
    {
        printf( "--- %s: too big to run under compute-sanitizer (CUDA_ME_SANITIZE=1)\n", name );
        return -1;
    }
    if( load_case( c, ci, cur, ref ) )
        return -1;
    /* the kernels' shared-memory limit (96 KiB), as the backend sets it when
     * it opens the device: without it, blocks of more than 48 KiB fail */
    CU( cme_cuda_prepare() );
    CU( cme_dev_prepare() );
    test_mv_cost_qp( mv_cost, c->range, c->cost == 2 ? 51 : c->spread > 0 ? 30 : 12 );
    uint32_t mrng = test_seed() + 17 * ci;
    if( c->cost == 3 )
        for( int i = 0; i <= 4*c->range; i++ )
            mv_cost[i] = (uint16_t)(65535 - test_rand( &mrng ) % 4);
    *mvc = c->cost ? mv_cost : NULL;
    uint32_t crng = test_seed() + 31 * ci;
    *centre = test_centres( (cur->w / 16) * (cur->h / 16), c->spread, &crng );
    return 0;
}

/* The cases of 1080p and more run in their own test case (gpu/big): each
 * takes 20-40 s on an H100 host (the C reference and some 90 launches),
 * so that gpu/gpu and gpu/big each fit beside the other parts of
 * tests/device.sh unit. */
#define GCASE_BIG( c ) ((c)->w * (c)->h >= 1920 * 1080)
static int gcase_idx[2][sizeof(gcases)/sizeof(*gcases)], gcase_n[2];

static void gcase_split( void )
{
    gcase_n[0] = gcase_n[1] = 0;
    for( int i = 0; i < (int)(sizeof(gcases)/sizeof(*gcases)); i++ )
    {
        const int big = GCASE_BIG( &gcases[i] );
        gcase_idx[big][gcase_n[big]++] = i;
    }
}

static void kernels_case( const int ci )
{
    const gcase_t *c = &gcases[ci];
    char name[160];
    tframe_t cur, ref;
    uint16_t mv_cost[MV_COST_SIZE];
    const uint16_t *mvc;
    int16_t *centre;
    if( gcase_setup( c, ci, "kernels", name, sizeof(name), &cur, &ref, mv_cost, &mvc, &centre ) )
        return;
    const int mb_w = cur.w / 16, mb_h = cur.h / 16;
    static const int parts[2] = { CUDA_ME_NPART, CUDA_ME_NPART_8x8 };
    for( int pi = 0; pi < 2; pi++ )
    {
        const int np = parts[pi];
        size_t n = (size_t)mb_w * mb_h * np;
        cuda_me_result_t *want = malloc( n * sizeof(*want) ), *got = malloc( n * sizeof(*got) );
        ck_assert( want && got );
        cme_search_c( cur.p, cur.stride, ref.p, ref.stride, mb_w, mb_h, c->range, c->mv_range, c->thread,
                      mvc, centre, np, 1, want );
        /* the library's search (its range's default variant), every
         * variant of dev/ (the library's among them), then the paper's
         * kernels */
        for( int v = -1; ; v++ )
        {
            int k = 0, minb = 0;
            const int paper = v >= cme_dev_variant_count();
            if( !paper )
                cme_dev_variant_info( v < 0 ? cme_cuda_variant_default( c->range ) : v, &k, &minb );
            /* the unfused kernels keep 16 SADs per position in memory: only
             * on frames where that stays small */
            if( paper && (size_t)mb_w * mb_h * (2*c->range + 1) * (2*c->range + 1) > (size_t)400 << 20 >> 5 )
                break;
            char what[256];
            snprintf( what, sizeof(what), "%s, %d parts, %s", name, np,
                      paper ? "paper kernels" : v < 0 ? "library, default variant" : "dev variant" );
            if( !paper )
                snprintf( what + strlen( what ), sizeof(what) - strlen( what ), " %d (K=%d, %d blocks)",
                          v < 0 ? cme_cuda_variant_default( c->range ) : v, k, minb );
            run_kernels( what, paper, paper ? -1 : v, &cur, &ref, c->range, c->mv_range, c->thread, mvc, centre, np, got );
            check_results( what, want, got, mb_w, mb_h, np );
            if( paper )
                break;
            /* stream-K variants: also with few blocks (many split
             * macroblocks, boundaries anywhere in them) and with one block
             * fewer than the macroblocks (on the small frames; the large
             * ones split theirs with the device's blocks) */
            const char *vn = cme_dev_variant_name( v < 0 ? cme_cuda_variant_default( c->range ) : v );
            if( !strncmp( vn, "sk-", 3 ) && !GCASE_BIG( c ) )
            {
                const int nsk[2] = { 3 + ci % 5, mb_w * mb_h - 1 };
                for( int f = 0; f < 2; f++ )
                {
                    char whatf[300];
                    snprintf( whatf, sizeof(whatf), "%s, stream-K in %d blocks", what, nsk[f] );
                    cme_dev_sk_force( nsk[f] );
                    run_kernels( whatf, 0, v, &cur, &ref, c->range, c->mv_range, c->thread, mvc, centre, np, got );
                    cme_dev_sk_force( -1 );
                    check_results( whatf, want, got, mb_w, mb_h, np );
                }
            }
        }
        /* the default variant in geometries the library may not pick: one
         * warp per block (the last partitions' results in a second pass),
         * and few runs per thread (many blocks per macroblock) */
        static const int force[2][2] = { { 32, 3 }, { 64, 1 } };
        for( int f = 0; f < 2; f++ )
        {
            char what[256];
            snprintf( what, sizeof(what), "%s, %d parts, default variant, %d threads x %d runs", name, np,
                      force[f][0], force[f][1] );
            cme_cuda_geom_force( force[f][0], force[f][1] );
            run_kernels( what, 0, -1, &cur, &ref, c->range, c->mv_range, c->thread, mvc, centre, np, got );
            cme_cuda_geom_force( 0, 0 );
            check_results( what, want, got, mb_w, mb_h, np );
        }
        free( want );
        free( got );
    }
    free( centre );
    tframe_free( &cur );
    tframe_free( &ref );
}

START_TEST( test_kernels )
{
    kernels_case( gcase_idx[0][_i] );
}
END_TEST

START_TEST( test_kernels_big )
{
    kernels_case( gcase_idx[1][_i] );
}
END_TEST

/* Two candidates (cuda_me.h, i_cands 2): pass 1, then cme_cuda_search_pass2
 * (pass2_kernel, the search at range 16 with the re-centred costs) into the
 * second half of every macroblock's results, against cme_search_c.  Every
 * output between canaries; the scratch is the larger of the two ranges'. */
static const int pass2_gcases[] = { 0, 2, 4, 6, 7, 9, 11, 12, 15, 18, 19, 21, 22, 24, 25, 27, 28, 30, 31, 33, 34, 38, 40, 41 };

START_TEST( test_kernels_pass2 )
{
    const int ci = pass2_gcases[_i];
    ck_assert( ci < (int)(sizeof(gcases)/sizeof(*gcases)) );
    const gcase_t *c = &gcases[ci];
    char name[160];
    tframe_t cur, ref;
    uint16_t mv_cost[MV_COST_SIZE];
    const uint16_t *mvc;
    int16_t *centre;
    if( gcase_setup( c, ci, "pass 2 kernels", name, sizeof(name), &cur, &ref, mv_cost, &mvc, &centre ) )
        return;
    const int mb_w = cur.w / 16, mb_h = cur.h / 16, mb_count = mb_w * mb_h;
    const int pitch = (cur.w + 2*CME_PAD + 127) & ~127;
    const size_t plane = (size_t)pitch * (cur.h + 2*CME_PAD);
    uint8_t *d_cur, *d_ref;
    uint16_t *d_cost = NULL;
    int16_t *d_centre = NULL;
    CU( cudaMalloc( (void**)&d_cur, plane ) );
    CU( cudaMalloc( (void**)&d_ref, plane ) );
    CU( cudaMemcpy2D( d_cur, pitch, cur.buf, cur.stride, cur.w + 2*CME_PAD, cur.h + 2*CME_PAD, cudaMemcpyHostToDevice ) );
    CU( cudaMemcpy2D( d_ref, pitch, ref.buf, ref.stride, ref.w + 2*CME_PAD, ref.h + 2*CME_PAD, cudaMemcpyHostToDevice ) );
    uint32_t *d_xref = xplane_of( d_ref, plane );
    if( mvc )
    {
        CU( cudaMalloc( (void**)&d_cost, (4*c->range + 1) * sizeof(uint16_t) ) );
        CU( cudaMemcpy( d_cost, mvc, (4*c->range + 1) * sizeof(uint16_t), cudaMemcpyHostToDevice ) );
    }
    if( centre )
    {
        CU( cudaMalloc( (void**)&d_centre, (size_t)mb_count * 4 ) );
        CU( cudaMemcpy( d_centre, centre, (size_t)mb_count * 4, cudaMemcpyHostToDevice ) );
    }
    static const int parts[2] = { CUDA_ME_NPART, CUDA_ME_NPART_8x8 };
    for( int pi = 0; pi < 2; pi++ )
    {
        const int np = parts[pi];
        const size_t count = (size_t)mb_count * 2 * np, n = count * sizeof(cuda_me_result_t);
        size_t s1 = cme_cuda_scratch_size( mb_w, mb_h, c->range, c->mv_range, c->thread, np );
        size_t s2 = cme_cuda_scratch_size( mb_w, mb_h, cme_pass2_range( c->range ), c->mv_range, c->thread, np );
        const size_t scratch = s1 > s2 ? s1 : s2;
        ck_assert_msg( s1 && s2, "%s: scratch sizes %zu, %zu", name, s1, s2 );
        uint8_t *d_out = dev_guarded_alloc( n );
        uint8_t *d_scratch = dev_guarded_alloc( scratch );
        uint8_t *d_centre2 = dev_guarded_alloc( (size_t)mb_count * 4 );
        cme_launch_t l = launch_of( d_cur, d_ref, d_xref, pitch, cur.h, mb_w, mb_h, c->range, c->mv_range, c->thread, np, d_cost,
                                    d_centre, d_scratch, d_out, -1 );
        l.i_out_stride = 2 * np;
        CU( cme_cuda_search( &l, 0 ) );
        CU( cme_cuda_search_pass2( &l, (int16_t*)(d_centre2 + GUARD), 0 ) );
        CU( cudaDeviceSynchronize() );
        char what[220];
        snprintf( what, sizeof(what), "%s, %d parts", name, np );
        uint8_t *h_out = dev_guarded_fetch( what, "results", d_out, n );
        free( dev_guarded_fetch( what, "scratch", d_scratch, scratch ) );
        free( dev_guarded_fetch( what, "pass-2 centres", d_centre2, (size_t)mb_count * 4 ) );
        const cuda_me_result_t *got = (const cuda_me_result_t*)(h_out + GUARD);
        ck_assert_msg( results_unwritten( got, count ) < 0, "%s: result %ld never written", what,
                       results_unwritten( got, count ) );
        cuda_me_result_t *want = malloc( n );
        ck_assert_ptr_nonnull( want );
        cme_search_c( cur.p, cur.stride, ref.p, ref.stride, mb_w, mb_h, c->range, c->mv_range, c->thread,
                      mvc, centre, np, 2, want );
        check_results( what, want, got, mb_w, mb_h, 2 * np );
        free( want );
        free( h_out );
        cudaFree( d_out );
        cudaFree( d_scratch );
        cudaFree( d_centre2 );
    }
    cudaFree( d_cur );
    cudaFree( d_ref );
    cudaFree( d_xref );
    cudaFree( d_cost );
    cudaFree( d_centre );
    free( centre );
    tframe_free( &cur );
    tframe_free( &ref );
}
END_TEST


/* ---------------------------------------------------------------- sub-pel */

/* The sub-pel kernels (subpel_cuda.cu) against the C reference (subpel_c.c,
 * itself tested against x264 in test_subpel.c). */

/* Border of the test's plane buffers: the kernel writes CME_HPEL_PAD, the
 * rest must keep its canary. */
#define SP_BORDER (CME_HPEL_PAD + 32)

typedef struct
{
    int w, h;
    int pattern;          /* or -1: real clip */
    const char *clip;
} spcase_t;

static const spcase_t sp_plane_cases[] =
{
    {   16,   16, PAT_RANDOM,   NULL },
    {   32,   48, PAT_MAXDIFF,  NULL },
    {   64,   16, PAT_FLAT,     NULL },
    {  176,  144, PAT_GRADIENT, NULL },
    {  176,  144, PAT_RANDOM,   NULL },
    {  208,   96, PAT_MAXDIFF,  NULL },
    {  352,  288, -1, "foreman_cif.y4m" },
    { 1920, 1088, -1, "street_1080p.y4m" },
};

/* Frame n of a case: the clip's, or the pattern (seeded by idx). */
static int sp_frame( const spcase_t *c, int idx, int n, tframe_t *f, const tframe_t *ref )
{
    if( c->pattern < 0 )
    {
        char path[512];
        snprintf( path, sizeof(path), "%s/%s", test_data_dir(), c->clip );
        if( tframe_read_y4m( f, path, n ) )
        {
            if( test_require_gpu() )
                ck_abort_msg( "sub-pel case %d: %s not found (CUDA_ME_REQUIRE_GPU=1: tests/device.sh data decodes it)", idx, path );
            printf( "*** SKIP sub-pel case %d: %s not found ***\n", idx, path );
            return -1;
        }
        return 0;
    }
    uint32_t rng = test_seed() + 7919 * idx + n;
    ck_assert( !tframe_alloc( f, c->w, c->h ) );
    if( ref && c->pattern != PAT_FLAT )
        tframe_fill( f, PAT_SHIFTED, &rng, ref, 3 - n, n - 5 );
    else
        tframe_fill( f, c->pattern, &rng, NULL, 0, 0 );
    return 0;
}

/* Host and device buffers of one plane, SP_BORDER pixels around w x h. */
static size_t sp_plane_size( int w, int h, int *pitch )
{
    *pitch = (w + 2*SP_BORDER + 127) & ~127;
    return (size_t)*pitch * (h + 2*SP_BORDER);
}

/* Uploads f (with its CME_PAD border) into a new device buffer of the same
 * layout at pitch; returns the buffer, *p0 its pixel (0,0). */
static uint8_t *sp_upload( const tframe_t *f, int *pitch, uint8_t **p0 )
{
    uint8_t *d;
    *pitch = (f->w + 2*CME_PAD + 127) & ~127;
    CU( cudaMalloc( (void**)&d, (size_t)*pitch * (f->h + 2*CME_PAD) ) );
    CU( cudaMemcpy2D( d, *pitch, f->buf, f->stride, f->w + 2*CME_PAD, f->h + 2*CME_PAD, cudaMemcpyHostToDevice ) );
    *p0 = d + CME_PAD * *pitch + CME_PAD;
    return d;
}

/* The planes of the device frame src (pixel (0,0), src_pitch) through the
 * kernel, compared with cme_hpel_planes_c of f: every byte of buffers with
 * a SP_BORDER border (so what lies beyond CME_HPEL_PAD must stay canary),
 * and guards before and after each. */
static void sp_check_planes( const char *what, const tframe_t *f, const uint8_t *src, int src_pitch,
                             uint8_t *d_keep[3], int *keep_pitch )
{
    int pitch;
    const size_t n = sp_plane_size( f->w, f->h, &pitch );
    uint8_t *want = malloc( 3 * n );
    ck_assert_ptr_nonnull( want );
    memset( want, CANARY_BYTE, 3 * n );
    uint8_t *dst[3], *d_buf[3], *d_dst[3];
    for( int i = 0; i < 3; i++ )
    {
        dst[i] = want + i * n + SP_BORDER * pitch + SP_BORDER;
        d_buf[i] = dev_guarded_alloc( n );
        d_dst[i] = d_buf[i] + GUARD + SP_BORDER * pitch + SP_BORDER;
    }
    cme_hpel_planes_c( f->p, f->stride, f->w, f->h, dst, pitch );
    CU( cme_cuda_hpel_planes( src, src_pitch, f->w, f->h, d_dst, pitch, 0 ) );
    CU( cudaDeviceSynchronize() );
    for( int i = 0; i < 3; i++ )
    {
        char buf[16];
        snprintf( buf, sizeof(buf), "%c plane", "HVC"[i] );
        uint8_t *got = dev_guarded_fetch( what, buf, d_buf[i], n );
        const uint8_t *g = got + GUARD, *w = want + i * n;
        for( size_t k = 0; k < n; k++ )
            if( g[k] != w[k] )
            {
                const int x = (int)(k % pitch) - SP_BORDER, y = (int)(k / pitch) - SP_BORDER;
                const int inside = x >= -CME_HPEL_PAD && x < f->w + CME_HPEL_PAD &&
                                   y >= -CME_HPEL_PAD && y < f->h + CME_HPEL_PAD;
                ck_abort_msg( "%s: %s differs at (%d,%d) (%s): %d, C %d (seed %u)", what, buf, x, y,
                              inside ? "in the plane or its border" : "beyond the border: a stray write",
                              g[k], w[k], test_seed() );
            }
        free( got );
    }
    for( int i = 0; i < 3; i++ )
    {
        if( d_keep )
            d_keep[i] = d_buf[i];
        else
            cudaFree( d_buf[i] );
    }
    if( keep_pitch )
        *keep_pitch = pitch;
    free( want );
}

START_TEST( test_subpel_planes )
{
    const spcase_t *c = &sp_plane_cases[_i];
    char name[128];
    snprintf( name, sizeof(name), "sub-pel planes case %d (%dx%d %s)", _i, c->w, c->h, c->clip ? c->clip : "synthetic" );
    if( !have_gpu( name ) )
        return;
    if( getenv( "CUDA_ME_SANITIZE" ) && atoi( getenv( "CUDA_ME_SANITIZE" ) ) && c->w * c->h > 352 * 288 )
    {
        printf( "--- %s: too big to run under compute-sanitizer (CUDA_ME_SANITIZE=1)\n", name );
        return;
    }
    tframe_t f;
    if( sp_frame( c, _i, 2, &f, NULL ) )
        return;
    int pitch;
    uint8_t *p0, *d = sp_upload( &f, &pitch, &p0 );
    sp_check_planes( name, &f, p0, pitch, NULL, NULL );
    /* the device frame padded by the library's pad kernel, not copied:
     * only the w x h area uploaded, the rest garbage until padded */
    CU( cudaMemset( d, 0x5a, (size_t)pitch * (f.h + 2*CME_PAD) ) );
    CU( cudaMemcpy2D( p0, pitch, f.p, f.stride, f.w, f.h, cudaMemcpyHostToDevice ) );
    CU( cme_cuda_pad( p0, pitch, f.w, f.h, 0 ) );
    char what[160];
    snprintf( what, sizeof(what), "%s, padded on the device", name );
    sp_check_planes( what, &f, p0, pitch, NULL, NULL );
    cudaFree( d );
    tframe_free( &f );
}
END_TEST

/* Refinement: frames, and the vectors the jobs start from. */
typedef struct
{
    int w, h;
    int pattern;          /* or -1: real clip */
    const char *clip;
    int n;                /* jobs */
    int b_sorted;         /* jobs grouped by partition size (as a caller would) */
} sprcase_t;

static const sprcase_t sp_refine_cases[] =
{
    {  80,  64, PAT_RANDOM,   NULL, 3000, 0 },
    {  80,  64, PAT_MAXDIFF,  NULL, 3000, 0 },
    {  80,  64, PAT_GRADIENT, NULL, 3000, 0 },
    {  80,  64, PAT_FLAT,     NULL, 2000, 0 },
    { 176, 144, PAT_RANDOM,   NULL, 6000, 1 },
    { 352, 288, -1, "foreman_cif.y4m", 9000, 0 },
    { 352, 288, -1, "foreman_cif.y4m", 9000, 1 },
};

#define SP_COST_SPAN   8192   /* quarter-pels each side of a table's centre */
#define SP_COST_TABLES 5      /* x264's at QP 18, 26, 36, 51; and near 65535 */

/* n jobs on cur against ref (F of planes), in the manner of test_subpel.c's
 * refine_check: random macroblocks, partitions (all 41, so all 7 sizes at
 * every place), --subme 2..11, --me tesa now and then, x264's limits (with a
 * frame-thread limit now and then), starts from the integer full search,
 * random full-pel or random quarter-pel vectors within the limits,
 * predictors near the start or anywhere, the start cost x264's m->cost (or
 * now and then any), a cost table of SP_COST_TABLES. */
static void sp_jobs_make( const tframe_t *cur, const uint8_t *const plane[4], intptr_t stride, const uint16_t *costs,
                          uint32_t *rng, int n, int b_sorted, cme_subpel_job_t *job )
{
    const int mb_w = cur->w / 16, mb_h = cur->h / 16;
    cuda_me_result_t *fs = malloc( sizeof(*fs) * mb_w * mb_h * CUDA_ME_NPART );
    ck_assert_ptr_nonnull( fs );
    uint16_t fpel_cost[MV_COST_SIZE];
    test_mv_cost_qp( fpel_cost, 8, 26 );
    cme_search_c( cur->p, cur->stride, plane[0], stride, mb_w, mb_h, 8, 512, 0, fpel_cost, NULL, CUDA_ME_NPART, 1, fs );
    for( int k = 0; k < n; k++ )
    {
        cme_subpel_job_t *j = &job[k];
        memset( j, 0, sizeof(*j) );
        const int mb_x = (int)(test_rand( rng ) % mb_w), mb_y = (int)(test_rand( rng ) % mb_h);
        /* a random partition; the first 10 * CME_PIXEL_COUNT jobs cover
         * every size at every subme (below), the rest are drawn freely */
        int part, px, py, pw, ph;
        do
        {
            part = (int)(test_rand( rng ) % CUDA_ME_NPART);
            test_part_rect( part, &px, &py, &pw, &ph );
            j->i_pixel = pw == 16 ? (ph == 16 ? CME_PIXEL_16x16 : CME_PIXEL_16x8)
                       : pw == 8 ? (ph == 16 ? CME_PIXEL_8x16 : ph == 8 ? CME_PIXEL_8x8 : CME_PIXEL_8x4)
                       : ph == 8 ? CME_PIXEL_4x8 : CME_PIXEL_4x4;
        } while( k < 10 * CME_PIXEL_COUNT && j->i_pixel != k / 10 );
        j->x = (int16_t)(16*mb_x + px);
        j->y = (int16_t)(16*mb_y + py);
        j->i_subme = (uint8_t)(2 + k % 10);
        j->b_fpel_satd = (test_rand( rng ) % 5) == 0;
        const int mv_range = (test_rand( rng ) & 3) ? 512 : 32 + (int)(test_rand( rng ) % 32);
        j->mv_min[0] = (int16_t)cme_imax( 4*(-16*mb_x - 24), -4*mv_range );
        j->mv_max[0] = (int16_t)cme_imin( 4*(16*(mb_w - mb_x - 1) + 24), 4*mv_range - 1 );
        j->mv_min[1] = (int16_t)cme_imax( 4*(-16*mb_y - 24), -4*mv_range );
        j->mv_max[1] = (int16_t)cme_imin( 4*(16*(mb_h - mb_y - 1) + 24), 4*mv_range - 1 );
        if( !(test_rand( rng ) & 3) )
            j->mv_max[1] = (int16_t)cme_imin( j->mv_max[1], 4*(8 + (int)(test_rand( rng ) % 24)) );
        const int start = (int)(test_rand( rng ) % 3);
        const int lx[2] = { j->mv_min[0], j->mv_max[0] }, ly[2] = { j->mv_min[1], j->mv_max[1] };
        int mvx, mvy;
        test_subpel_start( start, fs + (mb_y * mb_w + mb_x) * CUDA_ME_NPART + part, lx, ly, rng, &mvx, &mvy );
        j->mv[0] = (int16_t)mvx;
        j->mv[1] = (int16_t)mvy;
        if( test_rand( rng ) & 1 )
        {
            j->mvp[0] = (int16_t)(mvx + (int)(test_rand( rng ) % 17) - 8);
            j->mvp[1] = (int16_t)(mvy + (int)(test_rand( rng ) % 17) - 8);
        }
        else
        {
            j->mvp[0] = (int16_t)(j->mv_min[0] + (int)(test_rand( rng ) % (j->mv_max[0] - j->mv_min[0] + 1)));
            j->mvp[1] = (int16_t)(j->mv_min[1] + (int)(test_rand( rng ) % (j->mv_max[1] - j->mv_min[1] + 1)));
        }
        j->i_cost_mv = (int32_t)((test_rand( rng ) % SP_COST_TABLES) * (2*SP_COST_SPAN + 1) + SP_COST_SPAN);
        /* x264's m->cost at the start: fpelcmp + MV cost; now and then any */
        const cme_subpel_param_t p = cme_subpel_job_param( j, costs );
        const intptr_t o = (intptr_t)j->y * stride + j->x;
        const uint8_t *const pl[4] = { plane[0] + o, plane[1] + o, plane[2] + o, plane[3] + o };
        j->cost = cme_subpel_cmp( cur->p + j->y * cur->stride + j->x, cur->stride, pl, stride, j->i_pixel,
                                  j->b_fpel_satd, mvx, mvy ) + cme_subpel_mv_cost( &p, mvx, mvy );
        if( !(test_rand( rng ) % 8) )
            j->cost = (int32_t)(test_rand( rng ) % 3000);
    }
    if( b_sorted )   /* stable: by size */
    {
        cme_subpel_job_t *tmp = malloc( sizeof(*tmp) * n );
        ck_assert_ptr_nonnull( tmp );
        int m = 0;
        for( int s = 0; s < CME_PIXEL_COUNT; s++ )
            for( int k = 0; k < n; k++ )
                if( job[k].i_pixel == s )
                    tmp[m++] = job[k];
        memcpy( job, tmp, sizeof(*tmp) * n );
        free( tmp );
    }
    free( fs );
}

/* Compares n results; prints the job of the first difference and how many
 * differ (or were never written: the canary). */
static void sp_results_check( const char *what, const cme_subpel_job_t *job, const cme_subpel_result_t *want,
                              const cme_subpel_result_t *got, int n )
{
    int bad = 0, first = -1;
    for( int k = 0; k < n; k++ )
        if( want[k].mv[0] != got[k].mv[0] || want[k].mv[1] != got[k].mv[1] || want[k].cost != got[k].cost ||
            want[k].mv_hpel[0] != got[k].mv_hpel[0] || want[k].mv_hpel[1] != got[k].mv_hpel[1] ||
            want[k].cost_hpel != got[k].cost_hpel )
        {
            if( first < 0 )
                first = k;
            bad++;
        }
    if( first < 0 )
        return;
    const cme_subpel_job_t *j = &job[first];
    const cme_subpel_result_t *a = &got[first], *b = &want[first];
    ck_abort_msg( "%s: %d of %d results differ; first: job %d, %dx%d at (%d,%d), subme %d%s, start (%d,%d) cost %d, "
                  "mvp (%d,%d), limits x %d..%d y %d..%d, table at %d: got (%d,%d) %d [hpel (%d,%d) %d], "
                  "C (%d,%d) %d [hpel (%d,%d) %d]%s (seed %u)",
                  what, bad, n, first, cme_pixel_w( j->i_pixel ), cme_pixel_h( j->i_pixel ), j->x, j->y, j->i_subme,
                  j->b_fpel_satd ? " tesa" : "", j->mv[0], j->mv[1], j->cost, j->mvp[0], j->mvp[1], j->mv_min[0],
                  j->mv_max[0], j->mv_min[1], j->mv_max[1], j->i_cost_mv, a->mv[0], a->mv[1], a->cost, a->mv_hpel[0],
                  a->mv_hpel[1], a->cost_hpel, b->mv[0], b->mv[1], b->cost, b->mv_hpel[0], b->mv_hpel[1], b->cost_hpel,
                  canary_intact( a, sizeof(*a) ) ? " (never written)" : "", test_seed() );
}

START_TEST( test_subpel_refine )
{
    const sprcase_t *c = &sp_refine_cases[_i];
    const spcase_t fc = { c->w, c->h, c->pattern, c->clip };
    char name[128];
    snprintf( name, sizeof(name), "sub-pel refinement case %d (%dx%d %s, %d jobs%s)", _i, c->w, c->h,
              c->clip ? c->clip : "synthetic", c->n, c->b_sorted ? ", grouped by size" : "" );
    /* inputs and the C reference first, GPU or not: the jobs must be legal
     * and make the search move */
    tframe_t f[4], cur;
    memset( f, 0, sizeof(f) );
    if( sp_frame( &fc, _i, 4, &f[0], NULL ) )
        return;
    if( sp_frame( &fc, _i, 6, &cur, &f[0] ) )
    {
        tframe_free( &f[0] );
        return;
    }
    uint8_t *plane[4] = { f[0].p, NULL, NULL, NULL };
    for( int i = 1; i < 4; i++ )
    {
        ck_assert( !tframe_alloc( &f[i], f[0].w, f[0].h ) );
        ck_assert_int_eq( f[i].stride, f[0].stride );
        plane[i] = f[i].p;
    }
    const intptr_t stride = f[0].stride;
    cme_hpel_planes_c( f[0].p, stride, f[0].w, f[0].h, plane + 1, stride );
    const size_t ncost = (size_t)SP_COST_TABLES * (2*SP_COST_SPAN + 1);
    uint16_t *costs = malloc( ncost * sizeof(*costs) );
    ck_assert_ptr_nonnull( costs );
    static const int qps[SP_COST_TABLES - 1] = { 18, 26, 36, 51 };
    for( int t = 0; t < SP_COST_TABLES - 1; t++ )
        test_cost_mv_qpel( costs + t * (2*SP_COST_SPAN + 1) + SP_COST_SPAN, SP_COST_SPAN, qps[t] );
    uint32_t crng = test_seed() + 313 * _i;
    for( size_t i = (SP_COST_TABLES - 1) * (2*SP_COST_SPAN + 1); i < ncost; i++ )
        costs[i] = (uint16_t)(65535 - test_rand( &crng ) % 8);
    cme_subpel_job_t *job = malloc( sizeof(*job) * c->n );
    cme_subpel_result_t *want = malloc( sizeof(*want) * c->n );
    ck_assert( job && want );
    uint32_t rng = test_seed() ^ (0x5b5b + _i);
    sp_jobs_make( &cur, (const uint8_t *const *)plane, stride, costs, &rng, c->n, c->b_sorted, job );
    cme_refine_subpel_batch_c( cur.p, cur.stride, (const uint8_t *const *)plane, stride, costs, job, c->n, want );
    int moved = 0, qpel = 0;
    int seen[CME_PIXEL_COUNT][12] = { { 0 } };
    for( int k = 0; k < c->n; k++ )
    {
        moved += want[k].mv[0] != job[k].mv[0] || want[k].mv[1] != job[k].mv[1];
        qpel += (want[k].mv[0] | want[k].mv[1]) & 1;
        seen[job[k].i_pixel][job[k].i_subme]++;
    }
    for( int s = 0; s < CME_PIXEL_COUNT; s++ )
        for( int m = 2; m < 12; m++ )
            ck_assert_msg( seen[s][m], "%s: no job of size %d at subme %d", name, s, m );
    if( c->pattern != PAT_FLAT )
        ck_assert_msg( moved > c->n / 4 && qpel > c->n / 20, "%s: only %d of %d refinements moved, %d to odd quarter-pels",
                       name, moved, c->n, qpel );

    if( have_gpu( name ) )
    {
        int pitch;
        uint8_t *d_f[4], *d_p[4], *d_cur, *p_cur;
        for( int i = 0; i < 4; i++ )
            d_f[i] = sp_upload( &f[i], &pitch, &d_p[i] );
        int cur_pitch;
        d_cur = sp_upload( &cur, &cur_pitch, &p_cur );
        uint16_t *d_costs;
        cme_subpel_job_t *d_job;
        CU( cudaMalloc( (void**)&d_costs, ncost * sizeof(*costs) ) );
        CU( cudaMemcpy( d_costs, costs, ncost * sizeof(*costs), cudaMemcpyHostToDevice ) );
        CU( cudaMalloc( (void**)&d_job, sizeof(*job) * c->n ) );
        CU( cudaMemcpy( d_job, job, sizeof(*job) * c->n, cudaMemcpyHostToDevice ) );
        const size_t nout = sizeof(cme_subpel_result_t) * c->n;
        /* the C planes, the kernel's own planes of the device frame, then the
         * C planes with the jobs in reverse and order[] putting each result
         * back in its place */
        for( int own = 0; own < 3; own++ )
        {
            char what[200];
            snprintf( what, sizeof(what), "%s, %s", name, own == 1 ? "planes from cme_cuda_hpel_planes"
                      : own ? "C planes, jobs reversed with order[]" : "C planes" );
            cme_subpel_launch_t l;
            memset( &l, 0, sizeof(l) );
            l.cur = p_cur;
            l.i_cur_pitch = cur_pitch;
            uint8_t *d_own[3] = { NULL, NULL, NULL }, *d_fown = NULL;
            cme_subpel_job_t *d_jrev = NULL;
            int *d_order = NULL;
            if( own != 1 )
            {
                for( int i = 0; i < 4; i++ )
                    l.plane[i] = d_p[i];
                l.i_pitch = pitch;
            }
            else
            {
                /* H, V, C with canaries beyond their border (the kernel
                 * must not read there either), F copied to their pitch */
                int own_pitch;
                sp_check_planes( what, &f[0], d_p[0], pitch, d_own, &own_pitch );
                CU( cudaMalloc( (void**)&d_fown, (size_t)own_pitch * (f[0].h + 2*SP_BORDER) ) );
                CU( cudaMemcpy2D( d_fown + (SP_BORDER - CME_PAD) * own_pitch + (SP_BORDER - CME_PAD), own_pitch,
                                  f[0].buf, f[0].stride, f[0].w + 2*CME_PAD, f[0].h + 2*CME_PAD, cudaMemcpyHostToDevice ) );
                l.plane[0] = d_fown + SP_BORDER * own_pitch + SP_BORDER;
                for( int i = 1; i < 4; i++ )
                    l.plane[i] = d_own[i-1] + GUARD + SP_BORDER * own_pitch + SP_BORDER;
                l.i_pitch = own_pitch;
            }
            l.cost_mv = d_costs;
            l.job = d_job;
            if( own == 2 )
            {
                cme_subpel_job_t *rev = malloc( (size_t)c->n * sizeof(*rev) );
                int *order = malloc( (size_t)c->n * sizeof(int) );
                ck_assert( rev && order );
                for( int i = 0; i < c->n; i++ )
                {
                    rev[i] = job[c->n - 1 - i];
                    order[i] = c->n - 1 - i;
                }
                CU( cudaMalloc( (void**)&d_jrev, (size_t)c->n * sizeof(*rev) ) );
                CU( cudaMalloc( (void**)&d_order, (size_t)c->n * sizeof(int) ) );
                CU( cudaMemcpy( d_jrev, rev, (size_t)c->n * sizeof(*rev), cudaMemcpyHostToDevice ) );
                CU( cudaMemcpy( d_order, order, (size_t)c->n * sizeof(int), cudaMemcpyHostToDevice ) );
                free( rev );
                free( order );
                l.job = d_jrev;
                l.order = d_order;
            }
            uint8_t *d_out = dev_guarded_alloc( nout );
            l.out = (cme_subpel_result_t*)(d_out + GUARD);
            l.n = c->n;
            CU( cme_cuda_refine_subpel( &l, 0 ) );
            CU( cudaDeviceSynchronize() );
            uint8_t *h_out = dev_guarded_fetch( what, "results", d_out, nout );
            sp_results_check( what, job, want, (const cme_subpel_result_t*)(h_out + GUARD), c->n );
            free( h_out );
            cudaFree( d_out );
            cudaFree( d_fown );
            cudaFree( d_jrev );
            cudaFree( d_order );
            for( int i = 0; i < 3; i++ )
                cudaFree( d_own[i] );
        }
        /* an empty batch launches nothing and succeeds */
        cme_subpel_launch_t e = { 0 };
        CU( cme_cuda_refine_subpel( &e, 0 ) );
        for( int i = 0; i < 4; i++ )
            cudaFree( d_f[i] );
        cudaFree( d_cur );
        cudaFree( d_costs );
        cudaFree( d_job );
    }
    else
        printf( "--- %s: C reference only: %d of %d refinements moved, %d to odd quarter-pels\n", name, moved, c->n, qpel );
    free( job );
    free( want );
    free( costs );
    for( int i = 0; i < 4; i++ )
        tframe_free( &f[i] );
    tframe_free( &cur );
}
END_TEST

#endif /* HAVE_CUDA */

/* Opens *p on the CUDA backend into h[0] and on the C reference into h[1]. */
static void open_cuda_and_c( const cuda_me_function_t *F, cuda_me_param_t *p, cuda_me_t *h[2], const char *name )
{
    p->i_backend = CUDA_ME_BACKEND_CUDA;
    h[0] = F->open( p, NULL );
    p->i_backend = CUDA_ME_BACKEND_C;
    h[1] = F->open( p, NULL );
    ck_assert_msg( h[0] && h[1], "%s: open failed (CUDA %p, C %p)", name, (void*)h[0], (void*)h[1] );
}

/* ---------------------------------------------------------------- lowres */

/* The lookahead's search (lowres_search, lowres_spec.h) on CUDA and C:
 * the same vectors and costs, every entry of x264's arrays (the stale
 * ones outside the searched area too), from half-resolution planes made
 * of two frames of a real clip (F the 2x2 mean, H, V, C rounded means of
 * neighbours: any bytes do for CUDA == C; that C is x264's own search is
 * tests/e2e.sh's --gpu-me-lookahead A/B), a border of 32 replicated. */
static const struct { const char *clip; int a, b, slices, edges, range; } lr_cases[] =
{
    { "foreman_cif.y4m", 0, 3, 1, 1, 16 }, { "foreman_cif.y4m", 5, 1, 2, 0, 16 },
    { "foreman_cif.y4m", 9, 2, 3, 1, 64 }, { "street_1080p_2.y4m", 1, 0, 1, 0, 64 },
    { "street_1080p_2.y4m", 0, 1, 2, 1, 16 },
};

typedef struct { uint8_t *buf, *p[4]; intptr_t stride; int w, h; } lr_planes_t;

static void lr_make( lr_planes_t *o, const tframe_t *f )
{
    const int w = f->w / 16 * 8, h = f->h / 16 * 8, pad = CME_LOWRES_PAD;
    o->w = w;
    o->h = h;
    o->stride = w + 2 * pad;
    const size_t n = (size_t)o->stride * (h + 2 * pad);
    o->buf = malloc( 4 * n );
    ck_assert( o->buf );
    for( int i = 0; i < 4; i++ )
        o->p[i] = o->buf + i * n + pad * o->stride + pad;
    for( int y = 0; y < h; y++ )
        for( int x = 0; x < w; x++ )
        {
            const uint8_t *s = f->p + 2 * y * f->stride + 2 * x;
            o->p[0][y * o->stride + x] = (uint8_t)((s[0] + s[1] + s[f->stride] + s[f->stride + 1] + 2) >> 2);
        }
    for( int y = 0; y < h; y++ )
        for( int x = 0; x < w; x++ )
        {
            const uint8_t *c = o->p[0] + y * o->stride + x;
            const int r = x + 1 < w ? c[1] : c[0], d = y + 1 < h ? c[o->stride] : c[0];
            const int rd = x + 1 < w && y + 1 < h ? c[o->stride + 1] : d;
            o->p[1][y * o->stride + x] = (uint8_t)((c[0] + r + 1) >> 1);
            o->p[2][y * o->stride + x] = (uint8_t)((c[0] + d + 1) >> 1);
            o->p[3][y * o->stride + x] = (uint8_t)((c[0] + r + d + rd + 2) >> 2);
        }
    for( int i = 0; i < 4; i++ )
        for( int y = -pad; y < h + pad; y++ )
            for( int x = -pad; x < w + pad; x++ )
            {
                const int cx = x < 0 ? 0 : x >= w ? w - 1 : x, cy = y < 0 ? 0 : y >= h ? h - 1 : y;
                o->p[i][y * o->stride + x] = o->p[i][cy * o->stride + cx];
            }
}

/* x264's MV cost table shape at lambda: lambda * (1 + 2 * log2 bits), for
 * +-4*4*2048 quarter-pels; returns the allocation, *centre its middle. */
#define LR_COST_HALF (4 * 4 * 2048)
static uint16_t *lr_cost_table( int lambda )
{
    uint16_t *cost = malloc( (2 * LR_COST_HALF + 1) * sizeof(uint16_t) );
    ck_assert( cost );
    for( int d = -LR_COST_HALF; d <= LR_COST_HALF; d++ )
    {
        int bits = 1, v = d < 0 ? -d : d;
        while( v ) { bits += 2; v >>= 1; }
        cost[d + LR_COST_HALF] = (uint16_t)(lambda * bits);
    }
    return cost;
}

/* open() parameters for the frames of f (the lowres search ignores them). */
static cuda_me_param_t lr_param( const tframe_t *f )
{
    cuda_me_param_t p = { 0 };
    p.i_width = f->w / 16 * 16;
    p.i_height = f->h / 16 * 16;
    p.i_range = 16;
    p.i_mv_range = 512;
    p.i_parts = CUDA_ME_NPART_8x8;
    return p;
}

START_TEST( test_lowres )
{
    char name[128];
    snprintf( name, sizeof(name), "lowres search CUDA == C (%s %d in %d, %d slice%s, edges %d, range %d)",
              lr_cases[_i].clip, lr_cases[_i].a, lr_cases[_i].b, lr_cases[_i].slices, lr_cases[_i].slices > 1 ? "s" : "",
              lr_cases[_i].edges, lr_cases[_i].range );
    if( !have_gpu( name ) )
        return;
    char path[512];
    snprintf( path, sizeof(path), "%s/%s", test_data_dir(), lr_cases[_i].clip );
    tframe_t f[2];
    if( tframe_read_y4m( &f[0], path, lr_cases[_i].a ) || tframe_read_y4m( &f[1], path, lr_cases[_i].b ) )
        ck_abort_msg( "cannot read %s", path );
    lr_planes_t cur, ref;
    lr_make( &cur, &f[0] );
    lr_make( &ref, &f[1] );
    /* x264's table shape at lambdas like the lookahead's (QP 12: 1) */
    const int lambda = 1 + _i % 2, half = LR_COST_HALF;
    uint16_t *cost = lr_cost_table( lambda );
    const int mbw = cur.w / 8, mbh = cur.h / 8, mb = mbw * mbh;
    cuda_me_function_t F;
    cuda_me_init( CUDA_ME_API_VERSION, &F );
    cuda_me_param_t p = lr_param( &f[0] );
    cuda_me_t *h[2];
    open_cuda_and_c( &F, &p, h, name );
    /* frames by id (API 10): cur 1, ref 2; then the other way round, so
     * that the CUDA backend's slot of frame 1 (F only, searched) must take
     * its four planes as a reference */
    const cuda_me_lowres_job_t job = { mbw, mbh, lr_cases[_i].range, 512, lambda, lr_cases[_i].slices, lr_cases[_i].edges,
                                       cost + half, cur.p[0], cur.stride,
                                       { ref.p[0], ref.p[1], ref.p[2], ref.p[3] }, ref.stride, 1, 2 };
    const cuda_me_lowres_job_t back = { mbw, mbh, lr_cases[_i].range, 512, lambda, lr_cases[_i].slices, lr_cases[_i].edges,
                                        cost + half, ref.p[0], ref.stride,
                                        { cur.p[0], cur.p[1], cur.p[2], cur.p[3] }, cur.stride, 2, 1 };
    int16_t (*mvs[3])[2];
    int *costs[3];
    uint32_t rng = test_seed() + 31 * _i;
    for( int k = 0; k < 3; k++ )
    {
        mvs[k] = malloc( mb * sizeof(*mvs[k]) );
        costs[k] = malloc( mb * sizeof(int) );
        ck_assert( mvs[k] && costs[k] );
    }
    for( int i = 0; i < mb; i++ )   /* what the arrays held: stale entries (kept in [2]) */
    {
        rng = rng * 1664525u + 1013904223u;
        mvs[2][i][0] = (int16_t)((int)(rng >> 8 & 127) - 64);
        mvs[2][i][1] = (int16_t)((int)(rng >> 16 & 63) - 32);
        costs[2][i] = (int)(rng >> 4 & 4095);
    }
    double ms_first = 0, ms_kept = 1e9;
    for( int pass = 0; pass < 2; pass++ )
    {
        const cuda_me_lowres_job_t *j = pass ? &back : &job;
        for( int k = 0; k < 2; k++ )
        {
            memcpy( mvs[k], mvs[2], mb * sizeof(*mvs[k]) );
            memcpy( costs[k], costs[2], mb * sizeof(int) );
            cuda_me_stats_t st0, st1;
            F.stats( h[k], &st0 );
            ck_assert_int_eq( F.lowres_search( h[k], j, mvs[k], costs[k] ), 0 );
            F.stats( h[k], &st1 );
            if( !k && !pass )
                ms_first = st1.f_lowres_ms - st0.f_lowres_ms;
        }
        int bad = 0, moved = 0;
        for( int i = 0; i < mb; i++ )
        {
            moved += mvs[1][i][0] || mvs[1][i][1];
            if( mvs[0][i][0] != mvs[1][i][0] || mvs[0][i][1] != mvs[1][i][1] || costs[0][i] != costs[1][i] )
            {
                if( bad++ < 5 )
                    printf( "%s%s: block (%d, %d): CUDA (%d, %d) cost %d, C (%d, %d) cost %d\n", name,
                            pass ? " (reversed)" : "", i % mbw, i / mbw,
                            mvs[0][i][0], mvs[0][i][1], costs[0][i], mvs[1][i][0], mvs[1][i][1], costs[1][i] );
            }
        }
        ck_assert_msg( !bad, "%s%s: %d of %d blocks differ", name, pass ? " (reversed)" : "", bad, mb );
        printf( "--- %s%s: %d blocks equal (%d non-zero vectors)\n", name, pass ? " (reversed)" : "", mb, moved );
    }
    /* lowres_prefetch (API 10): both pairs queued, then asked for: the same
     * as searched at once (pass 1's results are in [0] CUDA, [1] C) */
    {
        int16_t (*pm[2][2])[2];
        int *pc[2][2];
        for( int k = 0; k < 2; k++ )
            for( int j = 0; j < 2; j++ )
            {
                pm[k][j] = malloc( mb * sizeof(*mvs[0]) );
                pc[k][j] = malloc( mb * sizeof(int) );
                ck_assert( pm[k][j] && pc[k][j] );
                memcpy( pm[k][j], mvs[2], mb * sizeof(*mvs[0]) );
                memcpy( pc[k][j], costs[2], mb * sizeof(int) );
            }
        const cuda_me_lowres_job_t two[2] = { job, back };
        const int16_t (*const sm[2])[2] = { (const int16_t (*)[2])mvs[2], (const int16_t (*)[2])mvs[2] };
        const int *const sc[2] = { costs[2], costs[2] };
        for( int k = 0; k < 2; k++ )
        {
            cuda_me_stats_t st;
            ck_assert_int_eq( F.lowres_prefetch( h[k], two, 2, sm, sc ), 2 );
            ck_assert_int_eq( F.lowres_prefetch( h[k], two, 2, sm, sc ), 0 );   /* queued already */
            F.stats( h[k], &st );
            const int64_t hits = st.i_lowres_hits;
            for( int j = 0; j < 2; j++ )
                ck_assert_int_eq( F.lowres_search( h[k], &two[j], pm[k][j], pc[k][j] ), 0 );
            F.stats( h[k], &st );
            ck_assert_int_eq( st.i_lowres_hits, hits + 2 );
        }
        /* [k][1] is pass 1 (reversed): equal to mvs[k]; [0][0] equal to [1][0] */
        ck_assert_msg( !memcmp( pm[0][1], mvs[0], mb * sizeof(*mvs[0]) ) && !memcmp( pc[0][1], costs[0], mb * sizeof(int) ),
                       "%s: queued (CUDA) differs from searched at once", name );
        ck_assert_msg( !memcmp( pm[1][1], mvs[1], mb * sizeof(*mvs[0]) ) && !memcmp( pc[1][1], costs[1], mb * sizeof(int) ),
                       "%s: queued (C) differs from searched at once", name );
        ck_assert_msg( !memcmp( pm[0][0], pm[1][0], mb * sizeof(*mvs[0]) ) && !memcmp( pc[0][0], pc[1][0], mb * sizeof(int) ),
                       "%s: queued CUDA != C", name );
        /* many pairs at once (new ids: planes up again): the time until
         * all are taken, per pair (reported, not checked) */
        enum { NQ = 16 };
        cuda_me_lowres_job_t q[NQ];
        const int16_t (*qm[NQ])[2];
        const int *qc[NQ];
        for( int j = 0; j < NQ; j++ )
        {
            q[j] = j & 1 ? back : job;
            q[j].i_fenc_id = 1000 + 2 * j;
            q[j].i_ref_id = 1001 + 2 * j;
            qm[j] = (const int16_t (*)[2])mvs[2];
            qc[j] = costs[2];
        }
        const double t0 = cme_time_ms();
        ck_assert_int_eq( F.lowres_prefetch( h[0], q, NQ, qm, qc ), NQ );
        int bad = 0;
        for( int j = 0; j < NQ; j++ )
        {
            memcpy( pm[0][0], mvs[2], mb * sizeof(*mvs[0]) );
            ck_assert_int_eq( F.lowres_search( h[0], &q[j], pm[0][0], pc[0][0] ), 0 );
            bad += !!memcmp( pm[0][0], pm[1][j & 1], mb * sizeof(*mvs[0]) ) || !!memcmp( pc[0][0], pc[1][j & 1], mb * sizeof(int) );
        }
        const double t1 = cme_time_ms();
        ck_assert_msg( !bad, "%s: %d of %d pairs queued at once differ", name, bad, NQ );
        printf( "--- %s: CUDA %d pairs queued at once (planes up): %.3f ms per pair\n", name, NQ, (t1 - t0) / NQ );
        for( int k = 0; k < 2; k++ )
            for( int j = 0; j < 2; j++ )
            {
                free( pm[k][j] );
                free( pc[k][j] );
            }
    }
    /* the time of a pair whose planes the backend keeps (the best of 5;
     * reported, not checked) */
    for( int r = 0; r < 5; r++ )
    {
        cuda_me_stats_t st0, st1;
        memcpy( mvs[0], mvs[2], mb * sizeof(*mvs[0]) );
        F.stats( h[0], &st0 );
        ck_assert_int_eq( F.lowres_search( h[0], &job, mvs[0], costs[0] ), 0 );
        F.stats( h[0], &st1 );
        if( st1.f_lowres_ms - st0.f_lowres_ms < ms_kept )
            ms_kept = st1.f_lowres_ms - st0.f_lowres_ms;
    }
    printf( "--- %s: CUDA %.3f ms per pair with uploads, %.3f ms with the planes kept\n", name, ms_first, ms_kept );
    /* bad jobs: nothing done, not sticky */
    cuda_me_lowres_job_t bj = job;
    bj.i_slices = mbh + 1;
    ck_assert_int_eq( F.lowres_search( h[0], &bj, mvs[0], costs[0] ), CUDA_ME_EINVAL );
    bj = job;
    bj.i_ref_id = bj.i_fenc_id;
    ck_assert_int_eq( F.lowres_search( h[0], &bj, mvs[0], costs[0] ), CUDA_ME_EINVAL );
    ck_assert_int_eq( F.error( h[0] ), 0 );
    free( mvs[2] );
    free( costs[2] );
    for( int k = 0; k < 2; k++ )
    {
        F.close( h[k] );
        free( mvs[k] );
        free( costs[k] );
    }
    free( cost );
    free( cur.buf );
    free( ref.buf );
    tframe_free( &f[0] );
    tframe_free( &f[1] );
}
END_TEST

/* lowres_prefetch's bookkeeping, on the C backend (no GPU needed): queued
 * pairs are taken by lowres_search with the results of searching then,
 * only where ids and values match (else searched then); at most
 * CUDA_ME_LOWRES_QUEUE wait, the oldest forgotten; bad calls change
 * nothing. */
START_TEST( test_lowres_queue )
{
    const char *name = "lowres_prefetch (C backend)";
    char path[512];
    snprintf( path, sizeof(path), "%s/foreman_cif.y4m", test_data_dir() );
    tframe_t f[2];
    if( tframe_read_y4m( &f[0], path, 0 ) || tframe_read_y4m( &f[1], path, 3 ) )
        ck_abort_msg( "cannot read %s", path );
    lr_planes_t a, b;
    lr_make( &a, &f[0] );
    lr_make( &b, &f[1] );
    const int half = LR_COST_HALF;
    uint16_t *cost = lr_cost_table( 2 );
    const int mbw = a.w / 8, mbh = a.h / 8, mb = mbw * mbh;
    cuda_me_function_t F;
    cuda_me_init( CUDA_ME_API_VERSION, &F );
    cuda_me_param_t p = lr_param( &f[0] );
    p.i_backend = CUDA_ME_BACKEND_C;
    cuda_me_t *h = F.open( &p, NULL );
    ck_assert_msg( h != NULL, "%s: open failed", name );
    /* jobs[0]: a in b, jobs[1]: b in a; no edges, so the stale entries count */
    cuda_me_lowres_job_t job[2] =
    {
        { mbw, mbh, 16, 512, 2, 2, 0, cost + half, a.p[0], a.stride, { b.p[0], b.p[1], b.p[2], b.p[3] }, b.stride, 1, 2 },
        { mbw, mbh, 16, 512, 2, 2, 0, cost + half, b.p[0], b.stride, { a.p[0], a.p[1], a.p[2], a.p[3] }, a.stride, 2, 1 },
    };
    int16_t (*stale)[2] = malloc( mb * sizeof(*stale) ), (*ref[2])[2], (*out)[2] = malloc( mb * sizeof(*out) );
    int *stale_c = malloc( mb * sizeof(int) ), *ref_c[2], *out_c = malloc( mb * sizeof(int) );
    ck_assert( stale && out && stale_c && out_c );
    uint32_t rng = test_seed();
    for( int i = 0; i < mb; i++ )
    {
        rng = rng * 1664525u + 1013904223u;
        stale[i][0] = (int16_t)((int)(rng >> 8 & 127) - 64);
        stale[i][1] = (int16_t)((int)(rng >> 16 & 63) - 32);
        stale_c[i] = (int)(rng >> 4 & 4095);
    }
    /* the reference: each searched at once (ids 0: nothing kept) */
    for( int k = 0; k < 2; k++ )
    {
        ref[k] = malloc( mb * sizeof(*ref[k]) );
        ref_c[k] = malloc( mb * sizeof(int) );
        ck_assert( ref[k] && ref_c[k] );
        memcpy( ref[k], stale, mb * sizeof(*stale) );
        memcpy( ref_c[k], stale_c, mb * sizeof(int) );
        cuda_me_lowres_job_t j = job[k];
        j.i_fenc_id = j.i_ref_id = 0;
        ck_assert_int_eq( F.lowres_search( h, &j, ref[k], ref_c[k] ), 0 );
    }
    const int16_t (*sm[CUDA_ME_LOWRES_QUEUE+1])[2];
    const int *sc[CUDA_ME_LOWRES_QUEUE+1];
    cuda_me_lowres_job_t q[CUDA_ME_LOWRES_QUEUE+1];
    for( int j = 0; j <= CUDA_ME_LOWRES_QUEUE; j++ )
    {
        sm[j] = (const int16_t (*)[2])stale;
        sc[j] = stale_c;
        q[j] = job[j & 1];
        q[j].i_fenc_id = 10 + 2 * j + (j & 1);
        q[j].i_ref_id = 10 + 2 * j + !(j & 1);
    }
#define SEARCH( jb, k, hit ) do { \
        cuda_me_stats_t s0, s1; \
        F.stats( h, &s0 ); \
        memcpy( out, stale, mb * sizeof(*stale) ); \
        memcpy( out_c, stale_c, mb * sizeof(int) ); \
        ck_assert_int_eq( F.lowres_search( h, (jb), out, out_c ), 0 ); \
        F.stats( h, &s1 ); \
        ck_assert_msg( s1.i_lowres_hits - s0.i_lowres_hits == (hit), "%s: line %d: hit %d, expected %d", name, \
                       __LINE__, (int)(s1.i_lowres_hits - s0.i_lowres_hits), (hit) ); \
        ck_assert_msg( !memcmp( out, ref[k], mb * sizeof(*out) ) && !memcmp( out_c, ref_c[k], mb * sizeof(int) ), \
                       "%s: line %d: results differ from a search at once", name, __LINE__ ); \
    } while( 0 )
    /* bad calls: nothing queued, not sticky */
    cuda_me_lowres_job_t bad[2] = { job[0], job[1] };
    bad[1].i_lambda = 3;
    ck_assert_int_eq( F.lowres_prefetch( h, bad, 2, sm, sc ), CUDA_ME_EINVAL );   /* two sets of values */
    bad[1] = job[1];
    bad[1].i_ref_id = 0;
    ck_assert_int_eq( F.lowres_prefetch( h, bad, 2, sm, sc ), CUDA_ME_EINVAL );   /* no id */
    ck_assert_int_eq( F.lowres_prefetch( h, q, CUDA_ME_LOWRES_QUEUE + 1, sm, sc ), CUDA_ME_EINVAL );
    ck_assert_int_eq( F.error( h ), 0 );
    SEARCH( &job[0], 0, 0 );   /* nothing was queued */
    /* queued, then taken once */
    ck_assert_int_eq( F.lowres_prefetch( h, job, 2, sm, sc ), 2 );
    ck_assert_int_eq( F.lowres_prefetch( h, job, 2, sm, sc ), 0 );
    SEARCH( &job[1], 1, 1 );
    SEARCH( &job[0], 0, 1 );
    SEARCH( &job[0], 0, 0 );
    /* queued for other values: searched then, with the values asked for */
    ck_assert_int_eq( F.lowres_prefetch( h, bad, 1, sm, sc ), 1 );   /* bad[0] is job[0] */
    cuda_me_lowres_job_t other = job[0];
    other.i_lambda = 3;
    {
        cuda_me_stats_t s0, s1;
        F.stats( h, &s0 );
        memcpy( out, stale, mb * sizeof(*stale) );
        memcpy( out_c, stale_c, mb * sizeof(int) );
        ck_assert_int_eq( F.lowres_search( h, &other, out, out_c ), 0 );
        F.stats( h, &s1 );
        ck_assert_int_eq( s1.i_lowres_hits, s0.i_lowres_hits );
        memcpy( ref[0], stale, mb * sizeof(*stale) );   /* its reference: lambda 3 at once */
        memcpy( ref_c[0], stale_c, mb * sizeof(int) );
        other.i_fenc_id = other.i_ref_id = 0;
        ck_assert_int_eq( F.lowres_search( h, &other, ref[0], ref_c[0] ), 0 );
        ck_assert( !memcmp( out, ref[0], mb * sizeof(*out) ) && !memcmp( out_c, ref_c[0], mb * sizeof(int) ) );
        memcpy( ref[0], stale, mb * sizeof(*stale) );   /* back to job[0]'s */
        memcpy( ref_c[0], stale_c, mb * sizeof(int) );
        ck_assert_int_eq( F.lowres_search( h, &(cuda_me_lowres_job_t){ .i_mb_width = 0 }, out, out_c ), CUDA_ME_EINVAL );
        cuda_me_lowres_job_t j0 = job[0];
        j0.i_fenc_id = j0.i_ref_id = 0;
        ck_assert_int_eq( F.lowres_search( h, &j0, ref[0], ref_c[0] ), 0 );
    }
    SEARCH( &job[0], 0, 0 );   /* taken by the search for other values */
    /* a full queue, then one more: the oldest is forgotten */
    ck_assert_int_eq( F.lowres_prefetch( h, q, CUDA_ME_LOWRES_QUEUE, sm, sc ), CUDA_ME_LOWRES_QUEUE );
    ck_assert_int_eq( F.lowres_prefetch( h, q + CUDA_ME_LOWRES_QUEUE, 1, sm, sc ), 1 );
    SEARCH( &q[0], 0, 0 );
    SEARCH( &q[1], 1, 1 );
    SEARCH( &q[CUDA_ME_LOWRES_QUEUE], CUDA_ME_LOWRES_QUEUE & 1, 1 );
    SEARCH( &q[CUDA_ME_LOWRES_QUEUE-1], (CUDA_ME_LOWRES_QUEUE - 1) & 1, 1 );
#undef SEARCH
    ck_assert_int_eq( F.error( h ), 0 );
    cuda_me_stats_t st;
    F.stats( h, &st );
    printf( "--- %s: %"PRId64" pairs queued, %"PRId64" taken, %"PRId64" searched\n", name, st.i_lowres_queued,
            st.i_lowres_hits, st.i_lowres_pairs );
    F.close( h );   /* with pairs still queued */
    for( int k = 0; k < 2; k++ )
    {
        free( ref[k] );
        free( ref_c[k] );
    }
    free( stale );
    free( stale_c );
    free( out );
    free( out_c );
    free( cost );
    free( a.buf );
    free( b.buf );
    tframe_free( &f[0] );
    tframe_free( &f[1] );
}
END_TEST

/* The whole library path (put, submit, get, done, release) with many frames
 * in flight and several references per frame: CUDA and C give the same,
 * without and with x264's frame-thread MV limit. */
static const struct { int thread, cands; } backend_cases[] = { { 0, 1 }, { 24, 1 }, { 72, 1 }, { 0, 2 }, { 24, 2 } };
#define BACKEND_CANDS2 3   /* the cases from here on have two candidates: test case pass2 */

START_TEST( test_backend_equal )
{
    const int thread = backend_cases[_i].thread, cands = backend_cases[_i].cands;
    char name[80];
    snprintf( name, sizeof(name), "backend CUDA == C (mv_range_thread %d, %d candidate%s)", thread, cands,
              cands > 1 ? "s" : "" );
    if( !have_gpu( name ) )
        return;
    char path[512];
    snprintf( path, sizeof(path), "%s/foreman_cif.y4m", test_data_dir() );
    tframe_t f[16];
    const int nf = getenv( "CUDA_ME_SANITIZE" ) ? 4 : 16;
    for( int i = 0; i < nf; i++ )
        if( tframe_read_y4m( &f[i], path, i ) )
            ck_abort_msg( "cannot read %s", path );
    cuda_me_function_t F;
    cuda_me_init( CUDA_ME_API_VERSION, &F );
    uint16_t cost[MV_COST_SIZE], cost30[MV_COST_SIZE];
    const int range = 24;
    test_mv_cost( cost, range );
    test_mv_cost_qp( cost30, range, 30 );
    uint32_t rng = test_seed() + 77;
    int16_t *centre = test_centres( (f[0].w / 16) * (f[0].h / 16), 40, &rng );
    /* odd frames: their own centres, costs and (x264's per-frame choice)
     * a smaller frame-thread limit */
    const cuda_me_job_t job = { centre, cost30, thread ? 24 : 40, 0, 0 };
    cuda_me_param_t p = { 0 };
    p.i_width = f[0].w;
    p.i_height = f[0].h;
    p.i_range = range;
    p.i_mv_range = 512;
    p.i_mv_range_thread = thread;
    p.i_parts = CUDA_ME_NPART;
    p.i_cands = cands;
    p.mv_cost = cost;
    cuda_me_t *h[2];
    open_cuda_and_c( &F, &p, h, name );
    /* put everything first, then search each frame against up to 4 earlier
     * and 1 later frame: 16 frames and ~60 jobs in flight at once */
    for( int k = 0; k < 2; k++ )
        for( int i = 0; i < nf; i++ )
            ck_assert_int_eq( F.put_frame( h[k], i, f[i].p, f[i].stride ), 0 );
    for( int k = 0; k < 2; k++ )
        for( int i = 0; i < nf; i++ )
            for( int r = -1; r <= 4; r++ )
                if( r && i - r >= 0 && i - r < nf )   /* odd frames: own centres and costs */
                    ck_assert_int_eq( F.submit( h[k], i, i - r, (i & 1) ? &job : NULL ), 0 );
    int jobs = 0;
    for( int i = nf - 1; i >= 0; i-- )
        for( int r = -1; r <= 4; r++ )
            if( r && i - r >= 0 && i - r < nf )
            {
                const cuda_me_result_t *a = F.get( h[0], i, i - r ), *b = F.get( h[1], i, i - r );
                char what[128];
                snprintf( what, sizeof(what), "backends, mv_range_thread %d, %d cands, frame %d ref %d (CUDA error %d, C error %d)",
                          thread, cands, i, i - r, F.error( h[0] ), F.error( h[1] ) );
                check_results( what, b, a, p.i_width / 16, p.i_height / 16, cands * p.i_parts );
                jobs++;
            }
    cuda_me_stats_t s;
    F.stats( h[0], &s );
    printf( "%s: %d jobs on %s, search %.3f ms/job, upload %.3f ms/frame, download %.3f ms/job, busy %.3f ms\n",
            name, jobs, s.device, s.f_search_ms / jobs, s.f_upload_ms / nf, s.f_download_ms / jobs, s.f_busy_ms );
    ck_assert( s.f_search_ms > 0 );
    /* the union of the work: at least the longest part, at most their sum */
    const double sum = s.f_search_ms + s.f_upload_ms + s.f_download_ms;
    ck_assert_msg( s.f_busy_ms >= s.f_search_ms / jobs && s.f_busy_ms <= sum * 1.0001 + 0.01,
                   "busy %.3f ms: not within [%.3f, %.3f]", s.f_busy_ms, s.f_search_ms / jobs, sum );
    cuda_me_stats_t sc;
    F.stats( h[1], &sc );
    ck_assert_msg( sc.f_busy_ms == sc.f_search_ms, "C backend: busy %.3f != search %.3f", sc.f_busy_ms, sc.f_search_ms );
    for( int i = 0; i < nf; i++ )
        for( int k = 0; k < 2; k++ )
        {
            F.release_frame( h[k], i );
            F.done( h[k], i );
        }
    F.stats( h[0], &s );
    ck_assert_int_eq( F.error( h[0] ), 0 );
    F.close( h[0] );
    F.close( h[1] );
    free( centre );
    for( int i = 0; i < nf; i++ )
        tframe_free( &f[i] );
}
END_TEST


/* Sub-pel refinement through the API (i_subme): CUDA (hpel_kernel at each
 * upload, jobs_kernel and refine_kernel after each search) and C give the
 * same integer and sub-pel results, for every pair of several frames in
 * flight, with the jobs' centres, integer costs, frame-thread limits and
 * sub-pel cost tables; sub: i_subpel_parts (0: to the last), first:
 * i_subpel_first. */
static const struct { int subme, satd, cands, thread, parts, sub, first; } sp_backend_cases[] =
{
    { 7, 0, 2, 0, CUDA_ME_NPART, 0, 0 }, { 2, 0, 1, 24, CUDA_ME_NPART_8x8, 0, 0 }, { 9, 1, 2, 24, CUDA_ME_NPART, 0, 0 },
    { 11, 0, 1, 0, CUDA_ME_NPART, 0, 0 }, { 5, 0, 2, 40, CUDA_ME_NPART_8x8, 0, 0 },
    { 9, 0, 2, 24, CUDA_ME_NPART, CUDA_ME_NPART_8x8, 0 }, { 7, 0, 1, 0, CUDA_ME_NPART, 1, 0 },
    { 8, 0, 2, 0, CUDA_ME_NPART_8x8, 5, 0 }, { 8, 0, 2, 24, CUDA_ME_NPART_8x8, 4, CUDA_ME_PART_8x8 },
    { 9, 0, 1, 0, CUDA_ME_NPART, 0, CUDA_ME_PART_8x4 + 3 }, { 7, 0, 2, 0, CUDA_ME_NPART, 7, CUDA_ME_PART_8x16 + 1 },
};

START_TEST( test_backend_subpel )
{
    const __typeof__(sp_backend_cases[0]) *c = &sp_backend_cases[_i];
    char name[128];
    const int sp = c->sub ? c->sub : c->parts - c->first;
    snprintf( name, sizeof(name), "backend CUDA == C, sub-pel (subme %d%s, %d candidate%s, mv_range_thread %d, %d parts, "
              "%d refined from %d)", c->subme, c->satd ? " tesa" : "", c->cands, c->cands > 1 ? "s" : "", c->thread,
              c->parts, sp, c->first );
    if( !have_gpu( name ) )
        return;
    char path[512];
    snprintf( path, sizeof(path), "%s/foreman_cif.y4m", test_data_dir() );
    enum { NF = 6 };
    tframe_t f[NF];
    for( int i = 0; i < NF; i++ )
        if( tframe_read_y4m( &f[i], path, i ) )
            ck_abort_msg( "cannot read %s", path );
    cuda_me_function_t F;
    cuda_me_init( CUDA_ME_API_VERSION, &F );
    const int range = 24, mv_range = 512, tsize = 16*mv_range + 1;
    uint16_t cost[MV_COST_SIZE], cost30[MV_COST_SIZE];
    test_mv_cost( cost, range );
    test_mv_cost_qp( cost30, range, 30 );
    uint16_t *tables = malloc( 2 * tsize * sizeof(uint16_t) );
    ck_assert_ptr_nonnull( tables );
    test_cost_mv_qpel( tables + 8*mv_range, 8*mv_range, 24 );
    test_cost_mv_qpel( tables + tsize + 8*mv_range, 8*mv_range, 34 );
    uint32_t rng = test_seed() + 1207;
    const int mb_w = f[0].w / 16, mb_h = f[0].h / 16;
    int16_t *centre = test_centres( mb_w * mb_h, 30, &rng );
    const cuda_me_job_t job = { centre, cost30, c->thread ? 16 : 40, 1, 0 };
    cuda_me_param_t p = { 0 };
    p.i_width = f[0].w;
    p.i_height = f[0].h;
    p.i_range = range;
    p.i_mv_range = mv_range;
    p.i_mv_range_thread = c->thread;
    p.i_parts = c->parts;
    p.i_cands = c->cands;
    p.mv_cost = cost;
    p.i_subme = c->subme;
    p.b_fpel_satd = c->satd;
    p.subpel_cost = tables;
    p.i_subpel_costs = 2;
    p.i_subpel_parts = c->sub;
    p.i_subpel_first = c->first;
    cuda_me_t *h[2];
    open_cuda_and_c( &F, &p, h, name );
    for( int k = 0; k < 2; k++ )
    {
        for( int i = 0; i < NF; i++ )
            ck_assert_int_eq( F.put_frame( h[k], i, f[i].p, f[i].stride ), 0 );
        for( int i = 0; i < NF; i++ )
            for( int r = -1; r <= 2; r++ )
                if( r && i - r >= 0 && i - r < NF )
                    ck_assert_int_eq( F.submit( h[k], i, i - r, (i & 1) ? &job : NULL ), 0 );
    }
    const size_t n = (size_t)mb_w * mb_h * c->cands * sp;
    int pairs = 0;
    for( int i = NF - 1; i >= 0; i-- )
        for( int r = -1; r <= 2; r++ )
            if( r && i - r >= 0 && i - r < NF )
            {
                char what[200];
                snprintf( what, sizeof(what), "%s, frame %d ref %d (CUDA error %d, C error %d)", name, i, i - r,
                          F.error( h[0] ), F.error( h[1] ) );
                check_results( what, F.get( h[1], i, i - r ), F.get( h[0], i, i - r ), mb_w, mb_h, c->cands * c->parts );
                const cuda_me_subpel_result_t *a = F.get_subpel( h[0], i, i - r ), *b = F.get_subpel( h[1], i, i - r );
                ck_assert_msg( a && b, "%s: no sub-pel results (CUDA %p, C %p)", what, (const void*)a, (const void*)b );
                for( size_t k = 0; k < n; k++ )
                    ck_assert_msg( SUBPEL_EQ( a[k], b[k] ),
                                   "%s (seed %u): sub-pel result %zu (mb %zu, cand %zu, part %zu): CUDA (%d,%d) %d hpel "
                                   "(%d,%d) %d, C (%d,%d) %d hpel (%d,%d) %d", what, test_seed(), k,
                                   k / (c->cands * sp), k / sp % c->cands, c->first + k % sp, a[k].mv[0],
                                   a[k].mv[1], a[k].cost, a[k].mv_hpel[0], a[k].mv_hpel[1], a[k].cost_hpel, b[k].mv[0],
                                   b[k].mv[1], b[k].cost, b[k].mv_hpel[0], b[k].mv_hpel[1], b[k].cost_hpel );
                pairs++;
            }
    cuda_me_stats_t s;
    F.stats( h[0], &s );
    printf( "%s: %d pairs on %s, search %.3f ms/pair, sub-pel %.3f ms/pair (%lld partitions), upload %.3f ms/frame\n",
            name, pairs, s.device, s.f_search_ms / pairs, s.f_subpel_ms / pairs, (long long)s.i_subpel_parts,
            s.f_upload_ms / NF );
    ck_assert( s.f_subpel_ms > 0 );
    ck_assert_int_eq( s.i_subpel_parts, (int64_t)pairs * (int64_t)n );
    for( int k = 0; k < 2; k++ )
    {
        for( int i = 0; i < NF; i++ )
        {
            F.release_frame( h[k], i );
            F.done( h[k], i );
        }
        ck_assert_int_eq( F.error( h[k] ), 0 );
        F.close( h[k] );
    }
    free( tables );
    free( centre );
    for( int i = 0; i < NF; i++ )
        tframe_free( &f[i] );
}
END_TEST

/* Log messages of one library handle, for tests that check what it said. */
typedef struct
{
    char buf[4096];
    size_t len;
} log_capture_t;

static void log_capture( void *opaque, int i_level, const char *fmt, va_list ap )
{
    log_capture_t *c = opaque;
    (void)i_level;
    if( c->len < sizeof(c->buf) - 1 )
    {
        int n = vsnprintf( c->buf + c->len, sizeof(c->buf) - c->len, fmt, ap );
        if( n > 0 )
            c->len = c->len + n < sizeof(c->buf) - 1 ? c->len + n : sizeof(c->buf) - 1;
    }
}

/* Parameters of a small test handle: w x h, range, mv_range 512, parts,
 * backend; log messages into log when not NULL. */
static cuda_me_param_t test_param( int w, int h, int range, int parts, int backend, log_capture_t *log )
{
    cuda_me_param_t p = { 0 };
    p.i_width = w;
    p.i_height = h;
    p.i_range = range;
    p.i_mv_range = 512;
    p.i_parts = parts;
    p.i_backend = backend;
    if( log )
    {
        p.pf_log = log_capture;
        p.p_log_opaque = log;
    }
    return p;
}

/* x264's frame-thread MV limit through the API, with the C backend (runs
 * without a GPU too): open() takes 0 and x264's values (>= 8) and refuses
 * the others, saying why; the results are cme_search_c()'s with the limit,
 * no vector points further down than it allows, and the limit bites. */
START_TEST( test_mv_range_thread_api )
{
    cuda_me_function_t F;
    ck_assert_int_eq( cuda_me_init( CUDA_ME_API_VERSION, &F ), 0 );
    log_capture_t log = { { 0 }, 0 };
    cuda_me_param_t p = test_param( 96, 80, 24, CUDA_ME_NPART, CUDA_ME_BACKEND_C, &log );
    static const int bad[] = { -1, -64, 1, 7 };
    for( unsigned i = 0; i < sizeof(bad)/sizeof(*bad); i++ )
    {
        int err = 0;
        log.len = 0;
        log.buf[0] = 0;
        p.i_mv_range_thread = bad[i];
        ck_assert_msg( !F.open( &p, &err ), "mv_range_thread %d accepted", bad[i] );
        ck_assert_int_eq( err, CUDA_ME_EINVAL );
        ck_assert_msg( strstr( log.buf, "mv_range_thread" ), "mv_range_thread %d: no reason given (log: '%s')", bad[i], log.buf );
    }

    const int mb_w = p.i_width / 16, mb_h = p.i_height / 16;
    const size_t n = (size_t)mb_w * mb_h * p.i_parts;
    uint32_t rng = test_seed() + 4242;
    tframe_t ref, cur;
    tframe_alloc( &ref, p.i_width, p.i_height );
    tframe_alloc( &cur, p.i_width, p.i_height );
    tframe_fill( &ref, PAT_RANDOM, &rng, NULL, 0, 0 );
    /* the content moved up by 20: the best match lies 20 rows down */
    tframe_fill( &cur, PAT_SHIFTED, &rng, &ref, 0, 20 );
    uint16_t cost[MV_COST_SIZE];
    test_mv_cost( cost, p.i_range );
    int16_t *centre = test_centres( mb_w * mb_h, 30, &rng );
    const cuda_me_job_t job = { centre, cost, 0, 0, 0 };
    cuda_me_result_t *want = malloc( n * sizeof(*want) );
    ck_assert_ptr_nonnull( want );
    static const int ok[] = { 0, 8, 24, 40, 64 };
    for( unsigned i = 0; i < sizeof(ok)/sizeof(*ok); i++ )
    {
        const int t = ok[i];
        int err = -1;
        p.i_mv_range_thread = t;
        cuda_me_t *h = F.open( &p, &err );
        ck_assert_msg( h != NULL, "mv_range_thread %d refused (log: '%s')", t, log.buf );
        ck_assert_int_eq( err, 0 );
        ck_assert_int_eq( F.put_frame( h, 0, ref.p, ref.stride ), 0 );
        ck_assert_int_eq( F.put_frame( h, 1, cur.p, cur.stride ), 0 );
        ck_assert_int_eq( F.submit( h, 1, 0, NULL ), 0 );
        ck_assert_int_eq( F.submit( h, 0, 1, &job ), 0 );
        for( int k = 0; k < 2; k++ )
        {
            const cuda_me_result_t *got = F.get( h, 1 - k, k );
            ck_assert_msg( got != NULL, "mv_range_thread %d: no results (error %d)", t, F.error( h ) );
            if( k )   /* frame 0 in frame 1, the job's centres and costs */
                cme_search_c( ref.p, ref.stride, cur.p, cur.stride, mb_w, mb_h, p.i_range, p.i_mv_range, t,
                              cost, centre, p.i_parts, 1, want );
            else
                cme_search_c( cur.p, cur.stride, ref.p, ref.stride, mb_w, mb_h, p.i_range, p.i_mv_range, t,
                              NULL, NULL, p.i_parts, 1, want );
            char what[96];
            snprintf( what, sizeof(what), "C backend, mv_range_thread %d, %s", t, k ? "centres" : "no centres" );
            check_results( what, want, got, mb_w, mb_h, p.i_parts );
            int deepest = -1000;
            for( size_t r = 0; r < n; r++ )
                deepest = cme_imax( deepest, got[r].mv[1] );
            if( t )
                ck_assert_msg( deepest <= t - 6, "%s: mv y %d beyond the limit %d", what, deepest, t - 6 );
            if( !k )   /* without centres most blocks find the motion, 20 rows down, unless the limit forbids it */
                ck_assert_msg( t && t - 6 < 20 ? deepest <= t - 6 : deepest >= 20, "%s: deepest mv y %d", what, deepest );
        }
        ck_assert_int_eq( F.error( h ), 0 );
        for( int k = 0; k < 2; k++ )
        {
            F.release_frame( h, k );
            F.done( h, k );
        }
        F.close( h );
    }

    /* per job: open()'s limit 64 (or none), each job its own; out of range:
     * refused, nothing done, no sticky error */
    static const int opened[] = { 64, 0 };
    for( unsigned o = 0; o < sizeof(opened)/sizeof(*opened); o++ )
    {
        p.i_mv_range_thread = opened[o];
        cuda_me_t *h = F.open( &p, NULL );
        ck_assert_ptr_nonnull( h );
        ck_assert_int_eq( F.put_frame( h, 0, ref.p, ref.stride ), 0 );
        ck_assert_int_eq( F.put_frame( h, 1, cur.p, cur.stride ), 0 );
        const int bad_job[] = { -1, 7, opened[o] ? opened[o] + 8 : 1 };
        for( unsigned i = 0; i < sizeof(bad_job)/sizeof(*bad_job); i++ )
        {
            cuda_me_job_t bj = { NULL, NULL, bad_job[i], 0, 0 };
            log.len = 0;
            log.buf[0] = 0;
            ck_assert_int_eq( F.submit( h, 1, 0, &bj ), CUDA_ME_EINVAL );
            ck_assert_msg( strstr( log.buf, "mv_range_thread" ), "job limit %d: no reason given", bad_job[i] );
            ck_assert_int_eq( F.error( h ), 0 );
        }
        cuda_me_job_t j1 = { NULL, NULL, 24, 0, 0 }, j2 = { centre, cost, 8, 0, 0 };
        ck_assert_int_eq( F.submit( h, 1, 0, &j1 ), 0 );
        ck_assert_int_eq( F.submit( h, 0, 1, &j2 ), 0 );
        for( int k = 0; k < 2; k++ )
        {
            const cuda_me_result_t *got = F.get( h, 1 - k, k );
            ck_assert_msg( got != NULL, "job limits: no results (error %d)", F.error( h ) );
            if( k )
                cme_search_c( ref.p, ref.stride, cur.p, cur.stride, mb_w, mb_h, p.i_range, p.i_mv_range, 8,
                              cost, centre, p.i_parts, 1, want );
            else
                cme_search_c( cur.p, cur.stride, ref.p, ref.stride, mb_w, mb_h, p.i_range, p.i_mv_range, 24,
                              NULL, NULL, p.i_parts, 1, want );
            char what[96];
            snprintf( what, sizeof(what), "C backend, open mv_range_thread %d, job's %d", opened[o], k ? 8 : 24 );
            check_results( what, want, got, mb_w, mb_h, p.i_parts );
        }
        F.close( h );
    }
    free( want );
    free( centre );
    tframe_free( &ref );
    tframe_free( &cur );
}
END_TEST

/* Opening the CUDA backend either works (a usable GPU: the stats say CUDA
 * ran) or fails with CUDA_ME_ENODEV and says why in words a user can act
 * on: no driver (as on machines without a GPU), no device, a GPU too old
 * for the build.  Runs everywhere, asserts in every case. */
START_TEST( test_cuda_open_or_why )
{
    cuda_me_function_t F;
    ck_assert_int_eq( cuda_me_init( CUDA_ME_API_VERSION, &F ), 0 );
    log_capture_t log = { { 0 }, 0 };
    cuda_me_param_t p = test_param( 64, 48, 16, CUDA_ME_NPART, CUDA_ME_BACKEND_CUDA, &log );
    int err = 1;
    cuda_me_t *h = F.open( &p, &err );
#if HAVE_CUDA
    void *libcuda = dlopen( "libcuda.so.1", RTLD_LAZY | RTLD_LOCAL );
    int major = -1;
    if( libcuda )
    {
        dlclose( libcuda );
        struct cudaDeviceProp prop;
        if( cme_cuda_device_count() > 0 && cudaGetDeviceProperties( &prop, 0 ) == cudaSuccess )
            major = prop.major;
        cudaGetLastError();
    }
    if( !libcuda )
    {
        printf( "--- CUDA open without a driver: '%.*s'\n", (int)strcspn( log.buf, "\n" ), log.buf );
        ck_assert_msg( h == NULL, "CUDA backend opened without libcuda.so.1" );
        ck_assert_int_eq( err, CUDA_ME_ENODEV );
        ck_assert_msg( strstr( log.buf, "no NVIDIA driver found" ) && strstr( log.buf, "--gpu-me-backend c" ),
                       "unhelpful message without a driver: '%s'", log.buf );
    }
    else if( major < 0 )
    {
        ck_assert_msg( h == NULL, "CUDA backend opened without a device" );
        ck_assert_int_eq( err, CUDA_ME_ENODEV );
        ck_assert_msg( strstr( log.buf, "NVIDIA driver supports CUDA" ), "unhelpful message without a device: '%s'", log.buf );
    }
    else if( major < 8 )
    {
        ck_assert_msg( h == NULL, "CUDA backend opened on compute capability %d", major );
        ck_assert_int_eq( err, CUDA_ME_ENODEV );
        ck_assert_msg( strstr( log.buf, "compute capability" ), "unhelpful message for an old GPU: '%s'", log.buf );
    }
    else
    {
        ck_assert_msg( h != NULL, "CUDA backend did not open: '%s'", log.buf );
        ck_assert_int_eq( err, 0 );
        cuda_me_stats_t s;
        F.stats( h, &s );
        ck_assert_int_eq( s.i_backend, CUDA_ME_BACKEND_CUDA );
        ck_assert_msg( strstr( s.device, "sm_" ), "device name '%s'", s.device );
    }
#else
    ck_assert_msg( h == NULL, "CUDA backend opened in a build without it" );
    ck_assert_int_eq( err, CUDA_ME_ENOTBUILT );
    ck_assert_msg( strstr( log.buf, "no CUDA backend" ), "unhelpful message: '%s'", log.buf );
#endif
    F.close( h );
}
END_TEST

START_TEST( test_cuda_device_choice )
{
    if( !have_gpu( "device choice" ) )
        return;
    cuda_me_function_t F;
    cuda_me_init( CUDA_ME_API_VERSION, &F );
    cuda_me_param_t p = test_param( 64, 48, 16, CUDA_ME_NPART, CUDA_ME_BACKEND_CUDA, NULL );
    p.i_device = 999;
    int err = 0;
    ck_assert_ptr_null( F.open( &p, &err ) );
    ck_assert_int_eq( err, CUDA_ME_ENODEV );
    p.i_device = -2;   /* neither an ordinal nor CUDA_ME_DEVICE_AUTO */
    ck_assert_ptr_null( F.open( &p, &err ) );
    ck_assert_int_eq( err, CUDA_ME_EINVAL );
    for( int d = CUDA_ME_DEVICE_AUTO; d <= 0; d++ )
    {
        p.i_device = d;
        cuda_me_t *h = F.open( &p, &err );
        ck_assert_msg( h != NULL, "device %d: open failed (%d)", d, err );
        F.close( h );
    }
}
END_TEST

static const char *gpu_faults[] = { "device:1", "alloc:1", "alloc:9", "copy:1", "copy:3", "launch:1", "launch:2", "launch:6" };

START_TEST( test_cuda_faults )
{
    if( !have_gpu( gpu_faults[_i] ) )
        return;
    setenv( "CUDA_ME_FAULT", gpu_faults[_i], 1 );
    cuda_me_function_t F;
    cuda_me_init( CUDA_ME_API_VERSION, &F );
    uint32_t rng = test_seed() + 21;
    cuda_me_param_t p = test_param( 64, 48, 8, CUDA_ME_NPART_8x8, CUDA_ME_BACKEND_CUDA, NULL );
    int err = 0;
    cuda_me_t *h = F.open( &p, &err );
    unsetenv( "CUDA_ME_FAULT" );
    if( !h )
    {
        ck_assert_int_lt( err, 0 );
        return;
    }
    tframe_t f;
    tframe_alloc( &f, 64, 48 );
    int failed = 0;
    for( int i = 0; i < 6; i++ )
    {
        tframe_fill( &f, PAT_RANDOM, &rng, NULL, 0, 0 );
        failed |= F.put_frame( h, i, f.p, f.stride ) < 0;
        if( i )
        {
            failed |= F.submit( h, i, i - 1, NULL ) < 0;
            failed |= !F.get( h, i, i - 1 );
        }
        F.release_frame( h, i );
        if( i )
            F.done( h, i - 1 );
    }
    ck_assert_msg( failed, "%s: no call reported the fault", gpu_faults[_i] );
    ck_assert_int_ne( F.error( h ), 0 );
    ck_assert_ptr_null( F.get( h, 5, 4 ) );
    F.close( h );
    tframe_free( &f );
}
END_TEST

Suite *checkasm_suite( void )
{
    Suite *s = suite_create( "gpu" );
    TCase *tc = tcase_create( "gpu" );
    tcase_set_timeout( tc, 900 );
#if HAVE_CUDA
    gcase_split();
    tcase_add_loop_test( tc, test_kernels, 0, gcase_n[0] );
#endif
    tcase_add_loop_test( tc, test_backend_equal, 0, BACKEND_CANDS2 );
    tcase_add_test( tc, test_mv_range_thread_api );
    tcase_add_test( tc, test_cuda_open_or_why );
    tcase_add_test( tc, test_cuda_device_choice );
    tcase_add_loop_test( tc, test_cuda_faults, 0, sizeof(gpu_faults)/sizeof(*gpu_faults) );
    suite_add_tcase( s, tc );
#if HAVE_CUDA
    /* the kernels on frames of 1080p and more (CK_RUN_CASE=big) */
    tc = tcase_create( "big" );
    tcase_set_timeout( tc, 900 );
    tcase_add_loop_test( tc, test_kernels_big, 0, gcase_n[1] );
    suite_add_tcase( s, tc );
    /* pass 2 of two candidates on its own (CK_RUN_CASE=pass2) */
    tc = tcase_create( "pass2" );
    tcase_set_timeout( tc, 900 );
    tcase_add_loop_test( tc, test_kernels_pass2, 0, sizeof(pass2_gcases)/sizeof(*pass2_gcases) );
    tcase_add_loop_test( tc, test_backend_equal, BACKEND_CANDS2, sizeof(backend_cases)/sizeof(*backend_cases) );
    suite_add_tcase( s, tc );
#endif
    /* the sub-pel kernels alone, and through the API (i_subme):
     * CK_RUN_SUITE=gpu CK_RUN_CASE=subpel */
    tc = tcase_create( "subpel" );
    tcase_set_timeout( tc, 300 );
#if HAVE_CUDA
    tcase_add_loop_test( tc, test_subpel_planes, 0, sizeof(sp_plane_cases)/sizeof(*sp_plane_cases) );
    tcase_add_loop_test( tc, test_subpel_refine, 0, sizeof(sp_refine_cases)/sizeof(*sp_refine_cases) );
#endif
    tcase_add_loop_test( tc, test_backend_subpel, 0, sizeof(sp_backend_cases)/sizeof(*sp_backend_cases) );
    /* the lookahead's search: CK_RUN_SUITE=gpu CK_RUN_CASE=subpel too */
    tcase_add_loop_test( tc, test_lowres, 0, sizeof(lr_cases)/sizeof(*lr_cases) );
    tcase_add_test( tc, test_lowres_queue );
    suite_add_tcase( s, tc );
    return s;
}
