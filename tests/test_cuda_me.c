/*****************************************************************************
 * test_cuda_me.c: unit tests of the cuda_me library (Check)
 *****************************************************************************
 * Suites:
 *   spec    the window against x264's own formulas; the merge (cme_merge);
 *           with CUDA, search_check.cu: the kernels' IMAD key formation, run
 *           mapping and launch geometry (host-side, no GPU)
 *   cref    the C reference against a brute-force oracle: all 41 partitions,
 *           random, real, flat (ties) and extreme frames, every frame edge,
 *           ranges 4..128, sizes that are not multiples of 16
 *   api     the hook table on the C backend: lifetimes, misuse, threads,
 *           memory that stops growing
 *   subpel  the C backend's sub-pel refinement (i_subme) against an oracle
 *           made of subpel_c.c's per-partition function: random and real
 *           frames (foreman CIF, street 1080p), one and two candidates,
 *           subme 2..11, tesa, limits; i_subme 0 as before; bad parameters
 *   fault   injected allocation, launch, copy and device failures, each
 *           at its call: C backend always, CUDA with a device (else SKIP)
 *   device  CUDA_ME_DEVICE_AUTO: the least-loaded GPU's ranking, NVML, and
 *           opening with it (with or without a GPU)
 *   gpu     checkasm_me.c: the CUDA kernels and backend against the C
 *           reference (skipped loudly without a GPU)
 * CUDA_ME_SEED repeats a run; CK_RUN_SUITE / CK_RUN_CASE select tests.
 *****************************************************************************/

#include <check.h>
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device_pick.h"
#include "internal.h"
#include "test_util.h"

Suite *checkasm_suite( void );

static cuda_me_function_t F;

/* ---------------------------------------------------------------- helpers */

/* Fails unless g's guards are intact and all its results were written. */
static void check_guards( const guarded_t *g, const char *what )
{
    const char *bad = guarded_check( g );
    ck_assert_msg( !bad, "%s: %s", what, bad );
}

/* cme_search_c of cur against ref into g (allocated here: free it), its
 * guards and its completeness checked. */
static const cuda_me_result_t *search_c( guarded_t *g, const tframe_t *cur, const tframe_t *ref, int range, int mv_range,
                                         const uint16_t *mv_cost, const int16_t *centre, int parts )
{
    const int mb_w = cur->w / 16, mb_h = cur->h / 16;
    ck_assert( !guarded_alloc( g, (size_t)mb_w * mb_h * parts ) );
    cme_search_c( cur->p, cur->stride, ref->p, ref->stride, mb_w, mb_h, range, mv_range, 0, mv_cost, centre, parts, 1, g->r );
    char what[96];
    snprintf( what, sizeof(what), "cme_search_c (%dx%d, range %d, mv_range %d, %d parts)", cur->w, cur->h, range, mv_range, parts );
    check_guards( g, what );
    return g->r;
}

/* get(), failing the test with a clear message where it returns NULL. */
#define get_ok( h, cur, ref ) get_ok_at( h, cur, ref, __LINE__ )
static const cuda_me_result_t *get_ok_at( cuda_me_t *h, int i_cur, int i_ref, int line )
{
    const cuda_me_result_t *r = F.get( h, i_cur, i_ref );
    ck_assert_msg( r, "line %d: get( %d, %d ) returned NULL (error() = %d: %s)", line, i_cur, i_ref,
                   F.error( h ), cuda_me_strerror( F.error( h ) ) );
    return r;
}

/* Fails, naming the difference, unless got == want. */
static void expect_results( const char *what, const cuda_me_result_t *want, const cuda_me_result_t *got,
                            int mb_w, int mb_h, int parts )
{
    ck_assert_msg( !results_compare( what, want, got, mb_w, mb_h, parts, test_seed() ),
                   "%s: results differ from the reference (map above)", what );
}

/* ---------------------------------------------------------------- spec */

START_TEST( test_window_x264 )
{
    /* Without a range limit the window is x264's fpel limits (analyse.c,
     * mb_analyse_init); with one, it is 2*range+1 wide (or all the limits
     * allow), inside the limits, around the centre clipped into them. */
    static const int sizes[][2] = { {1,1}, {2,1}, {3,5}, {22,18}, {120,68} };
    static const int ranges[] = { 4, 16, 18, 19, 64, 128 };
    static const int mvr[] = { 32, 64, 512, 2048 };
    uint32_t rng = test_seed() ^ 0x5555;
    for( unsigned s = 0; s < sizeof(sizes)/sizeof(*sizes); s++ )
        for( unsigned m = 0; m < sizeof(mvr)/sizeof(*mvr); m++ )
            for( int y = 0; y < sizes[s][1]; y++ )
                for( int x = 0; x < sizes[s][0]; x++ )
                {
                    const int mb_w = sizes[s][0], mb_h = sizes[s][1], fmv = 4 * mvr[m];
                    int x0 = (cme_imax( 4*(-16*x - 24), -fmv ) >> 2) + 6;
                    int x1 = (cme_imin( 4*(16*(mb_w - x - 1) + 24), fmv - 1 ) >> 2) - 6;
                    int y0 = (cme_imax( 4*(-16*y - 24), -fmv ) >> 2) + 6;
                    int y1 = (cme_imin( 4*(16*(mb_h - y - 1) + 24), fmv - 1 ) >> 2) - 6;
                    cme_window_t l = cme_get_window( x, y, mb_w, mb_h, 1 << 20, mvr[m], 0, 0, 0 );
                    ck_assert( l.x_min == x0 && l.x_max == x1 && l.y_min == y0 && l.y_max == y1 );
                    ck_assert( x0 <= -18 && x1 >= 18 && y0 <= -18 && y1 >= 18 );
                    for( unsigned r = 0; r < sizeof(ranges)/sizeof(*ranges); r++ )
                        for( int k = 0; k < 4; k++ )
                        {
                            const int R = ranges[r];
                            int cx = k ? (int)(test_rand( &rng ) % 601) - 300 : 0;
                            int cy = k ? (int)(test_rand( &rng ) % 601) - 300 : 0;
                            cme_window_t w = cme_get_window( x, y, mb_w, mb_h, R, mvr[m], 0, cx, cy );
                            ck_assert_int_eq( w.x_max - w.x_min + 1, cme_imin( 2*R + 1, x1 - x0 + 1 ) );
                            ck_assert_int_eq( w.y_max - w.y_min + 1, cme_imin( 2*R + 1, y1 - y0 + 1 ) );
                            ck_assert( w.x_min >= x0 && w.x_max <= x1 && w.y_min >= y0 && w.y_max <= y1 );
                            ck_assert_int_eq( w.cx, cme_iclip( cx, x0, x1 ) );
                            ck_assert_int_eq( w.cy, cme_iclip( cy, y0, y1 ) );
                            ck_assert( w.cx >= w.x_min && w.cx <= w.x_max && w.cy >= w.y_min && w.cy <= w.y_max );
                            ck_assert( w.x_max - w.cx <= 2*R && w.cx - w.x_min <= 2*R );
                            ck_assert( w.y_max - w.cy <= 2*R && w.cy - w.y_min <= 2*R );
                            if( cx >= x0 + R && cx <= x1 - R )   /* room on both sides: centred */
                                ck_assert( w.x_min == cx - R && w.x_max == cx + R );
                            /* no block may reach past the replicated border */
                            ck_assert_int_ge( 16*x + w.x_min, -CME_PAD + 4 );
                            ck_assert_int_le( 16*x + 15 + w.x_max, 16*mb_w - 1 + CME_PAD - 8 );
                            ck_assert_int_ge( 16*y + w.y_min, -CME_PAD + 4 );
                            ck_assert_int_le( 16*y + 15 + w.y_max, 16*mb_h - 1 + CME_PAD - 8 );
                        }
                }
}
END_TEST

START_TEST( test_merge )
{
    /* cme_merge against partition sums taken from the rectangle table */
    uint32_t rng = test_seed() ^ 0x1234;
    for( int iter = 0; iter < 1000; iter++ )
    {
        uint32_t s[16], cost[41], mvc = test_rand( &rng ) % 1000;
        uint32_t grid[4][4];
        for( int i = 0; i < 16; i++ )
        {
            s[i] = test_rand( &rng ) % 4081;
            grid[cme_blk4_y( i ) / 4][cme_blk4_x( i ) / 4] = s[i];
        }
        cme_merge( s, mvc, cost );
        for( int p = 0; p < 41; p++ )
        {
            int x, y, w, h;
            test_part_rect( p, &x, &y, &w, &h );
            uint32_t sum = mvc;
            for( int j = y / 4; j < (y + h) / 4; j++ )
                for( int i = x / 4; i < (x + w) / 4; i++ )
                    sum += grid[j][i];
            ck_assert_uint_eq( cost[p], sum );
        }
    }
}
END_TEST

#if HAVE_CUDA
#include "search_check.h"

START_TEST( test_merge_fma )
{
    /* the KEYS_FMA kernels' key formation (IMAD merges, search.cuh), run on
     * the host: every partition's key once per position, equal to
     * cme_merge()'s cost << 14 | raster, with extreme SADs and MV costs */
    ck_assert_int_eq( search_check_keys( test_seed() ^ 0x5a5a ), 0 );
}
END_TEST

START_TEST( test_pairs )
{
    /* the KEYS_PAIR kernels' column pairs and raster bound (search.cuh),
     * run on the host */
    ck_assert_int_eq( search_check_pairs(), 0 );
}
END_TEST

START_TEST( test_hrow )
{
    /* the K = 8 key-table variants' one-row runs for a window's last rows
     * (search.cuh, HROW()): every position covered, none outside */
    ck_assert_int_eq( search_check_hrow(), 0 );
}
END_TEST

START_TEST( test_geom )
{
    /* the search geometries and the kernels' shared-memory layout (window
     * rows, key tables, fixed strides and dev/'s fallbacks): the library's
     * default at every range, size and MV limit, every dev/ variant */
    ck_assert_int_eq( search_check_geom(), 0 );
}
END_TEST
#endif

/* ---------------------------------------------------------------- cref */

typedef struct
{
    int w, h;            /* frame content size before mod16 padding */
    int pattern;
    int range, mv_range, parts, cost;
    int spread;          /* random window centres within +-spread, -1: none */
} cref_case_t;

static const cref_case_t cref_cases[] =
{
    /* every frame edge, tiny frames, windows clipped on all sides */
    {  16,  16, PAT_RANDOM,   4,  512, 41, 1, -1 },
    {  16,  16, PAT_RANDOM,  32,  512, 41, 1, -1 },
    {  32,  16, PAT_MAXDIFF, 16,  512, 41, 1, -1 },
    {  48,  32, PAT_SHIFTED,  8,  512, 41, 1, -1 },
    {  64,  48, PAT_SHIFTED, 16,  512, 41, 1, -1 },
    {  64,  48, PAT_SHIFTED, 16,  512, 41, 0, -1 },
    {  80,  64, PAT_RANDOM,  24,   32, 41, 1, -1 },   /* mv_range 32 clips the window */
    /* ties everywhere: the first position in raster order must win */
    {  64,  48, PAT_FLAT,    16,  512, 41, 0, -1 },
    {  64,  48, PAT_FLAT,    16,  512, 41, 1, -1 },
    {  64,  48, PAT_GRADIENT, 8,  512, 41, 1, -1 },
    /* sizes that are not multiples of 16 (x264 pads them to mod16) */
    {  33,  17, PAT_RANDOM,   8,  512, 41, 1, -1 },
    {  50,  38, PAT_SHIFTED,  5,  512,  9, 1, -1 },
    /* ranges */
    {  96,  64, PAT_SHIFTED,  7,  512, 41, 1, -1 },
    {  96,  64, PAT_SHIFTED, 48,  512,  9, 1, -1 },
    { 320,  48, PAT_SHIFTED, 64,  512,  9, 1, -1 },
    { 320,  48, PAT_SHIFTED, 128, 512,  9, 1, -1 },
    /* window centres: inside, at and beyond every limit */
    {  96,  64, PAT_SHIFTED,  8,  512, 41, 1, 12 },
    {  96,  64, PAT_SHIFTED,  4,  512, 41, 1, 200 },
    { 160,  96, PAT_SHIFTED, 16,   64, 41, 1, 90 },
    {  64,  48, PAT_FLAT,    16,  512, 41, 1, 30 },
};

/* Builds a cur/ref pair: ref is random, cur is ref moved by a random vector
 * (or the pattern itself), both padded to mod16 as x264 does. */
static void make_pair( const cref_case_t *c, uint32_t *rng, tframe_t *cur, tframe_t *ref )
{
    tframe_t a, b;
    tframe_alloc( &a, c->w, c->h );
    tframe_alloc( &b, c->w, c->h );
    int pat = c->pattern == PAT_SHIFTED ? PAT_RANDOM : c->pattern;
    tframe_fill( &a, pat, rng, NULL, 0, 0 );
    if( c->pattern == PAT_SHIFTED )
        tframe_fill( &b, PAT_SHIFTED, rng, &a, (int)(test_rand( rng ) % 11) - 5, (int)(test_rand( rng ) % 7) - 3 );
    else
        tframe_fill( &b, pat, rng, NULL, 0, 0 );
    int w16 = (c->w + 15) & ~15, h16 = (c->h + 15) & ~15;
    tframe_t *out[2] = { ref, cur }, *in[2] = { &a, &b };
    for( int k = 0; k < 2; k++ )
    {
        tframe_alloc( out[k], w16, h16 );
        for( int y = 0; y < h16; y++ )
            for( int x = 0; x < w16; x++ )
                out[k]->p[y * out[k]->stride + x] = in[k]->p[cme_imin( y, c->h - 1 ) * in[k]->stride + cme_imin( x, c->w - 1 )];
        tframe_pad( out[k] );
    }
    tframe_free( &a );
    tframe_free( &b );
}

START_TEST( test_cref_oracle )
{
    const cref_case_t *c = &cref_cases[_i];
    uint32_t rng = test_seed() + 77 * _i;
    tframe_t cur, ref;
    make_pair( c, &rng, &cur, &ref );
    const int mb_w = cur.w / 16, mb_h = cur.h / 16;
    uint16_t mv_cost[MV_COST_SIZE];
    test_mv_cost_qp( mv_cost, c->range, c->spread > 0 ? 30 : 12 );
    const uint16_t *mvc = c->cost ? mv_cost : NULL;
    int16_t *centre = test_centres( mb_w * mb_h, c->spread, &rng );

    guarded_t g, o;
    const cuda_me_result_t *got = search_c( &g, &cur, &ref, c->range, c->mv_range, mvc, centre, c->parts );
    ck_assert( !guarded_alloc( &o, (size_t)mb_w * mb_h * c->parts ) );
    for( int y = 0; y < mb_h; y++ )
        for( int x = 0; x < mb_w; x++ )
            oracle_mb( &cur, &ref, x, y, c->range, c->mv_range, mvc, centre, c->parts, o.r + (y * mb_w + x) * c->parts );
    check_guards( &o, "oracle" );
    char name[96];
    snprintf( name, sizeof(name), "cref case %d (%dx%d range %d parts %d)", _i, c->w, c->h, c->range, c->parts );
    expect_results( name, o.r, got, mb_w, mb_h, c->parts );

    if( c->pattern == PAT_FLAT )
    {
        /* flat: every SAD ties, so the top-left of the window wins (with no
         * MV cost) or the centre, where the MV cost is smallest */
        for( int y = 0; y < mb_h; y++ )
            for( int x = 0; x < mb_w; x++ )
            {
                const int16_t *cc = centre ? centre + 2 * (y * mb_w + x) : NULL;
                cme_window_t w = cme_get_window( x, y, mb_w, mb_h, c->range, c->mv_range, 0, cc ? cc[0] : 0, cc ? cc[1] : 0 );
                const cuda_me_result_t *r = got + (y * mb_w + x) * c->parts;
                for( int p = 0; p < c->parts; p++ )
                    if( !c->cost )
                        ck_assert( r[p].mv[0] == w.x_min && r[p].mv[1] == w.y_min );
                    else
                        ck_assert( r[p].mv[0] == w.cx && r[p].mv[1] == w.cy );
            }
    }
    free( centre );
    guarded_free( &g );
    guarded_free( &o );
    tframe_free( &cur );
    tframe_free( &ref );
}
END_TEST

START_TEST( test_cref_real )
{
    /* Consecutive frames of real footage (foreman CIF), oracle on a band of
     * macroblocks that covers the top, left and right edges. */
    char path[512];
    snprintf( path, sizeof(path), "%s/foreman_cif.y4m", test_data_dir() );
    tframe_t cur, ref;
    if( tframe_read_y4m( &ref, path, 4 ) || tframe_read_y4m( &cur, path, 5 ) )
        ck_abort_msg( "cannot read %s (run tests/run.sh, which decodes the clips)", path );
    const int mb_w = cur.w / 16, parts = 41, range = 16;
    uint16_t mv_cost[MV_COST_SIZE];
    test_mv_cost( mv_cost, range );
    guarded_t g, o;
    const cuda_me_result_t *got = search_c( &g, &cur, &ref, range, 512, mv_cost, NULL, parts );
    ck_assert( !guarded_alloc( &o, parts ) );
    static const int mbs[][2] = { {0,0}, {1,0}, {21,0}, {0,1}, {10,9}, {21,9}, {0,17}, {11,17}, {21,17} };
    for( unsigned i = 0; i < sizeof(mbs)/sizeof(*mbs); i++ )
    {
        int x = mbs[i][0], y = mbs[i][1];
        char what[64];
        snprintf( what, sizeof(what), "real frame: mb (%d,%d)", x, y );
        guarded_reset( &o );
        oracle_mb( &cur, &ref, x, y, range, 512, mv_cost, NULL, parts, o.r );
        check_guards( &o, what );
        expect_results( what, o.r, got + (y * mb_w + x) * parts, 1, 1, parts );
    }
    guarded_free( &g );
    guarded_free( &o );
    tframe_free( &cur );
    tframe_free( &ref );
}
END_TEST

/* Two candidates: the C reference's pass 2 against the oracle (its
 * centres from tests' own loops, its window and costs searched by
 * oracle_mb with the re-centred sub-table), and its pass 1 against the
 * search with one candidate (layout: [mb][pass][parts]). */
static const cref_case_t pass2_cases[] =
{
    {  16,  16, PAT_RANDOM,   8,  512, 41, 1, -1 },   /* one macroblock: pass 1's centre */
    {  16,  64, PAT_RANDOM,  12,  512,  9, 1, 10 },   /* one column */
    {  64,  16, PAT_RANDOM,  20,  512,  9, 1, 10 },   /* one row */
    {  80,  64, PAT_RANDOM,  24,  512, 41, 1, -1 },   /* range 24: pass 2 at 12, sub-table */
    {  80,  64, PAT_RANDOM,  24,  512, 41, 1, 30 },
    {  80,  64, PAT_SHIFTED, 16,  512, 41, 1, 12 },
    {  96,  64, PAT_RANDOM,  10,  512,  9, 1, 40 },   /* range < 16: pass 2 at 8 */
    {  96,  64, PAT_RANDOM,   6,  512,  9, 1, 40 },   /* range < 8: pass 2 at range */
    {  96,  64, PAT_RANDOM,  40,   48,  9, 1, 60 },   /* mv_range clips centres and windows */
    {  64,  48, PAT_FLAT,    32,  512, 41, 1, 20 },   /* ties */
    {  64,  48, PAT_RANDOM,  20,  512,  9, 0, 20 },   /* pure SAD */
};

static void check_pass2( const char *name, const tframe_t *cur, const tframe_t *ref, int range, int mv_range,
                         const uint16_t *mvc, const int16_t *centre, int parts, const int (*mbs)[2], int n_mbs )
{
    const int mb_w = cur->w / 16, mb_h = cur->h / 16, mb_count = mb_w * mb_h;
    guarded_t g, one, o;
    ck_assert( !guarded_alloc( &g, (size_t)mb_count * 2 * parts ) );
    cme_search_c( cur->p, cur->stride, ref->p, ref->stride, mb_w, mb_h, range, mv_range, 0, mvc, centre, parts, 2, g.r );
    check_guards( &g, name );
    search_c( &one, cur, ref, range, mv_range, mvc, centre, parts );
    /* pass 1: the oracle's 16x16 of every macroblock, its centres */
    cuda_me_result_t *p1 = malloc( mb_count * sizeof(*p1) );
    int16_t *c2 = malloc( mb_count * 4 );
    ck_assert( p1 && c2 );
    for( int y = 0; y < mb_h; y++ )
        for( int x = 0; x < mb_w; x++ )
            oracle_mb( cur, ref, x, y, range, mv_range, mvc, centre, 1, p1 + y * mb_w + x );
    oracle_pass2_centres( cur, p1, 1, mv_range, centre, c2 );
    const int r2 = oracle_pass2_range( range );
    const uint16_t *cost2 = mvc ? mvc + 2*range - 2*r2 : NULL;
    ck_assert( !guarded_alloc( &o, parts ) );
    for( int i = 0; i < (mbs ? n_mbs : mb_count); i++ )
    {
        const int x = mbs ? mbs[i][0] : i % mb_w, y = mbs ? mbs[i][1] : i / mb_w, mb = y * mb_w + x;
        char what[160];
        snprintf( what, sizeof(what), "%s: mb (%d,%d) pass 1", name, x, y );
        expect_results( what, one.r + (size_t)mb * parts, g.r + (size_t)mb * 2 * parts, 1, 1, parts );
        ck_assert_msg( p1[mb].mv[0] == one.r[(size_t)mb * parts].mv[0] && p1[mb].mv[1] == one.r[(size_t)mb * parts].mv[1] &&
                       p1[mb].cost == one.r[(size_t)mb * parts].cost, "%s: oracle's 16x16 differs", what );
        snprintf( what, sizeof(what), "%s: mb (%d,%d) pass 2 (centre %d,%d)", name, x, y, c2[2*mb], c2[2*mb+1] );
        guarded_reset( &o );
        oracle_mb( cur, ref, x, y, r2, mv_range, cost2, c2, parts, o.r );
        check_guards( &o, what );
        expect_results( what, o.r, g.r + (size_t)mb * 2 * parts + parts, 1, 1, parts );
    }
    free( p1 );
    free( c2 );
    guarded_free( &g );
    guarded_free( &one );
    guarded_free( &o );
}

START_TEST( test_cref_pass2 )
{
    const cref_case_t *c = &pass2_cases[_i];
    uint32_t rng = test_seed() + 91 * _i;
    tframe_t cur, ref;
    make_pair( c, &rng, &cur, &ref );
    const int mb_w = cur.w / 16, mb_h = cur.h / 16;
    uint16_t mv_cost[MV_COST_SIZE];
    test_mv_cost_qp( mv_cost, c->range, c->spread > 0 ? 30 : 12 );
    int16_t *centre = test_centres( mb_w * mb_h, c->spread, &rng );
    char name[96];
    snprintf( name, sizeof(name), "pass 2 case %d (%dx%d range %d parts %d)", _i, c->w, c->h, c->range, c->parts );
    check_pass2( name, &cur, &ref, c->range, c->mv_range, c->cost ? mv_cost : NULL, centre, c->parts, NULL, 0 );
    free( centre );
    tframe_free( &cur );
    tframe_free( &ref );
}
END_TEST

START_TEST( test_cref_pass2_real )
{
    /* foreman CIF, range 24 (pass 2 at 16 with the sub-table), window
     * centres: a band of macroblocks on every edge and inside */
    char path[512];
    snprintf( path, sizeof(path), "%s/foreman_cif.y4m", test_data_dir() );
    tframe_t cur, ref;
    if( tframe_read_y4m( &ref, path, 4 ) || tframe_read_y4m( &cur, path, 6 ) )
        ck_abort_msg( "cannot read %s (run tests/run.sh, which decodes the clips)", path );
    uint32_t rng = test_seed() + 5;
    const int range = 24;
    uint16_t mv_cost[MV_COST_SIZE];
    test_mv_cost_qp( mv_cost, range, 26 );
    int16_t *centre = test_centres( (cur.w / 16) * (cur.h / 16), 8, &rng );
    static const int mbs[][2] = { {0,0}, {1,0}, {21,0}, {0,1}, {10,9}, {21,9}, {20,10}, {0,17}, {11,17}, {21,17} };
    check_pass2( "pass 2, real frames", &cur, &ref, range, 512, mv_cost, centre, 41, mbs, sizeof(mbs)/sizeof(*mbs) );
    free( centre );
    tframe_free( &cur );
    tframe_free( &ref );
}
END_TEST

/* ---------------------------------------------------------------- api */

/* Parameters of the API tests: all 41 partitions, x264's MV costs at QP 12
 * (in a static array: valid until the next call). */
static cuda_me_param_t api_param( int w, int h, int range, int backend )
{
    static uint16_t cost[MV_COST_SIZE];
    test_mv_cost( cost, range );
    return (cuda_me_param_t){ .i_width = w, .i_height = h, .i_range = range, .i_mv_range = 512,
                              .i_parts = CUDA_ME_NPART, .mv_cost = cost, .i_backend = backend };
}

static void quiet_log( void *opaque, int level, const char *fmt, va_list ap )
{
    (void)opaque; (void)level; (void)fmt; (void)ap;
}

/* n frames of w x h: the first random, each next the one before moved by
 * (dx, dy) plus noise. */
static void frames_make( tframe_t *f, int n, int w, int h, uint32_t *rng, int dx, int dy )
{
    for( int i = 0; i < n; i++ )
    {
        ck_assert( !tframe_alloc( &f[i], w, h ) );
        if( i )
            tframe_fill( &f[i], PAT_SHIFTED, rng, &f[i-1], dx, dy );
        else
            tframe_fill( &f[i], PAT_RANDOM, rng, NULL, 0, 0 );
    }
}

static void frames_free( tframe_t *f, int n )
{
    for( int i = 0; i < n; i++ )
        tframe_free( &f[i] );
}

/* The set-up the API tests share: an open handle with frames put. */
typedef struct
{
    cuda_me_param_t p;
    cuda_me_t *h;
    int n;
    tframe_t f[6];       /* f[i] is frame first + i */
} fixture_t;

/* Opens p's backend and puts n frames (frames_make) numbered first,
 * first + 1, ...; fails the test if any of it fails. */
static void fixture_open( fixture_t *x, const cuda_me_param_t *p, int n, int first, uint32_t *rng, int dx, int dy )
{
    ck_assert( n <= (int)(sizeof(x->f)/sizeof(*x->f)) );
    x->p = *p;
    x->n = n;
    int err = 1;
    x->h = F.open( p, &err );
    ck_assert_msg( x->h, "open of backend %s failed: %d (%s)", cuda_me_backend_name( p->i_backend ), err, cuda_me_strerror( err ) );
    ck_assert_int_eq( err, 0 );
    frames_make( x->f, n, p->i_width, p->i_height, rng, dx, dy );
    for( int i = 0; i < n; i++ )
    {
        int ret = F.put_frame( x->h, first + i, x->f[i].p, x->f[i].stride );
        ck_assert_msg( ret == 0, "put_frame( %d ) failed: %d (%s)", first + i, ret, cuda_me_strerror( ret ) );
    }
}

static void fixture_close( fixture_t *x )
{
    F.close( x->h );
    frames_free( x->f, x->n );
}

START_TEST( test_api_lifecycle )
{
    uint32_t rng = test_seed() + 5;
    cuda_me_param_t p = api_param( 64, 48, 8, CUDA_ME_BACKEND_C );
    p.pf_log = quiet_log;
    fixture_t x;
    fixture_open( &x, &p, 5, 10, &rng, 2, -1 );
    cuda_me_t *h = x.h;
    tframe_t *f = x.f;
    ck_assert_int_eq( F.put_frame( h, 10, f[0].p, f[0].stride ), CUDA_ME_EINVAL );   /* put twice */
    ck_assert_int_eq( F.error( h ), 0 );                                            /* not sticky */
    ck_assert_int_eq( F.submit( h, 11, 10, NULL ), 0 );
    ck_assert_int_eq( F.submit( h, 12, 11, NULL ), 0 );
    ck_assert_int_eq( F.submit( h, 12, 10, NULL ), 0 );
    ck_assert_int_eq( F.submit( h, 12, 10, NULL ), 1 );                                   /* once only */
    ck_assert_int_eq( F.submit( h, 99, 10, NULL ), 1 );                                   /* unknown frames */
    ck_assert_int_eq( F.submit( h, 12, 99, NULL ), 1 );
    ck_assert_int_eq( F.submit( h, 12, 12, NULL ), 1 );

    ck_assert_ptr_null( F.get( h, 11, 12 ) );                                       /* never submitted */
    const cuda_me_result_t *r = get_ok( h, 12, 10 );
    ck_assert_ptr_eq( F.get( h, 12, 10 ), r );                                      /* stable */
    guarded_t want, before, after;
    expect_results( "get( 12, 10 )", search_c( &want, &f[2], &f[0], 8, 512, p.mv_cost, NULL, 41 ), r, 4, 3, 41 );

    /* the copy was taken at put: changing the caller's plane changes nothing */
    search_c( &before, &f[2], &f[1], 8, 512, p.mv_cost, NULL, 41 );
    memset( f[1].buf, 0, f[1].stride * (48 + 2*CME_PAD) );
    search_c( &after, &f[2], &f[1], 8, 512, p.mv_cost, NULL, 41 );
    ck_assert_msg( memcmp( before.r, after.r, 12 * 41 * sizeof(*after.r) ), "clearing the plane changes no result" );
    expect_results( "get( 12, 11 ) after its reference plane was cleared", before.r, get_ok( h, 12, 11 ), 4, 3, 41 );
    guarded_free( &want );
    guarded_free( &before );
    guarded_free( &after );

    F.done( h, 12 );
    ck_assert_ptr_null( F.get( h, 12, 10 ) );
    /* a frame lives until it is released, done, and no job names it */
    F.release_frame( h, 10 );
    F.done( h, 10 );
    ck_assert_int_eq( F.submit( h, 13, 10, NULL ), 0 );   /* job (11,10) still holds it */
    F.done( h, 11 );
    F.done( h, 13 );
    ck_assert_int_eq( F.put_frame( h, 15, f[4].p, f[4].stride ), 0 );
    ck_assert_int_eq( F.submit( h, 15, 10, NULL ), 1 );   /* gone */
    ck_assert_int_eq( F.submit( h, 15, 14, NULL ), 0 );
    cuda_me_stats_t s;
    F.stats( h, &s );
    ck_assert_int_eq( s.i_frames, 6 );
    ck_assert_int_eq( s.i_backend, CUDA_ME_BACKEND_C );
    fixture_close( &x );
}
END_TEST

START_TEST( test_api_job_params )
{
    /* per-search centres and MV costs reach the search, and are copied */
    uint32_t rng = test_seed() + 17;
    cuda_me_param_t p = api_param( 96, 64, 12, CUDA_ME_BACKEND_C );
    fixture_t x;
    fixture_open( &x, &p, 2, 0, &rng, 9, -7 );
    cuda_me_t *h = x.h;
    int16_t *centre = test_centres( 24, 40, &rng );
    uint16_t cost[MV_COST_SIZE];
    test_mv_cost_qp( cost, 12, 34 );
    cuda_me_job_t job = { .centre = centre, .mv_cost = cost };
    ck_assert_int_eq( F.submit( h, 1, 0, &job ), 0 );
    guarded_t want, plain;
    search_c( &want, &x.f[1], &x.f[0], 12, 512, cost, centre, 41 );
    search_c( &plain, &x.f[1], &x.f[0], 12, 512, p.mv_cost, NULL, 41 );
    ck_assert_msg( memcmp( want.r, plain.r, 24 * 41 * sizeof(*want.r) ), "the job's centres and costs change no result" );
    memset( centre, 0, 24 * 4 );
    memset( cost, 0, sizeof(cost) );
    expect_results( "get with the job's centres and costs", want.r, get_ok( h, 1, 0 ), 6, 4, 41 );
    guarded_free( &want );
    guarded_free( &plain );
    free( centre );
    fixture_close( &x );
}
END_TEST

START_TEST( test_api_cands )
{
    /* i_cands 2: [mb][pass][parts], with the job's centres, costs and
     * frame-thread limit; 0 and 1 give one candidate; others refused */
    uint32_t rng = test_seed() + 23;
    cuda_me_param_t p = api_param( 96, 64, 20, CUDA_ME_BACKEND_C );
    p.pf_log = quiet_log;
    for( int bad = -1; bad <= 3; bad += 4 )
    {
        p.i_cands = bad;
        int err = 0;
        ck_assert_msg( !F.open( &p, &err ) && err == CUDA_ME_EINVAL, "i_cands %d accepted", bad );
    }
    p.pf_log = NULL;
    p.i_cands = 2;
    p.i_mv_range_thread = 40;
    fixture_t x;
    fixture_open( &x, &p, 2, 0, &rng, 11, -6 );
    cuda_me_t *h = x.h;
    const int mb_w = 6, mb_h = 4, n = mb_w * mb_h * 41;
    int16_t *centre = test_centres( mb_w * mb_h, 30, &rng );
    uint16_t cost[MV_COST_SIZE];
    test_mv_cost_qp( cost, 20, 30 );
    cuda_me_job_t job = { .centre = centre, .mv_cost = cost, .i_mv_range_thread = 24 };
    ck_assert_int_eq( F.submit( h, 1, 0, &job ), 0 );
    ck_assert_int_eq( F.submit( h, 0, 1, NULL ), 0 );
    cuda_me_result_t *want = malloc( 2 * n * sizeof(*want) ), *one = malloc( n * sizeof(*one) );
    ck_assert( want && one );
    const tframe_t *f = x.f;
    cme_search_c( f[1].p, f[1].stride, f[0].p, f[0].stride, mb_w, mb_h, 20, 512, 24, cost, centre, 41, 2, want );
    cme_search_c( f[1].p, f[1].stride, f[0].p, f[0].stride, mb_w, mb_h, 20, 512, 24, cost, centre, 41, 1, one );
    memset( centre, 0, mb_w * mb_h * 4 );
    memset( cost, 0, sizeof(cost) );
    const cuda_me_result_t *got = get_ok( h, 1, 0 );
    expect_results( "two candidates, the job's centres, costs and limit", want, got, mb_w, mb_h, 2 * 41 );
    int differ = 0;
    for( int mb = 0; mb < mb_w * mb_h; mb++ )
    {
        expect_results( "two candidates: pass 1", one + mb * 41, got + mb * 82, 1, 1, 41 );
        differ += memcmp( got + mb * 82, got + mb * 82 + 41, 41 * sizeof(*got) ) != 0;
        for( int q = 0; q < 82; q++ )
            ck_assert_msg( got[mb * 82 + q].mv[1] <= 24 - 6, "mb %d result %d: below the job's limit", mb, q );
    }
    ck_assert_msg( differ, "pass 2 equals pass 1 everywhere" );
    cme_search_c( f[0].p, f[0].stride, f[1].p, f[1].stride, mb_w, mb_h, 20, 512, 40, p.mv_cost, NULL, 41, 2, want );
    expect_results( "two candidates, open()'s costs and limit", want, get_ok( h, 0, 1 ), mb_w, mb_h, 2 * 41 );
    fixture_close( &x );

    /* i_cands 0: one candidate, as 1 */
    p.i_cands = 0;
    p.i_mv_range_thread = 0;
    fixture_open( &x, &p, 2, 0, &rng, 3, 2 );
    ck_assert_int_eq( F.submit( x.h, 1, 0, NULL ), 0 );
    cme_search_c( x.f[1].p, x.f[1].stride, x.f[0].p, x.f[0].stride, mb_w, mb_h, 20, 512, 0, p.mv_cost, NULL, 41, 1, one );
    expect_results( "i_cands 0", one, get_ok( x.h, 1, 0 ), mb_w, mb_h, 41 );
    fixture_close( &x );
    free( want );
    free( one );
    free( centre );
}
END_TEST

START_TEST( test_api_bad_params )
{
    static const int bad[][5] = {   /* w, h, range, mv_range, parts */
        { 0, 48, 16, 512, 41 }, { 64, 0, 16, 512, 41 }, { 65, 48, 16, 512, 41 }, { 64, 40, 16, 512, 41 },
        { 64, 48, 3, 512, 41 }, { 64, 48, 129, 512, 41 }, { 64, 48, 16, 16, 41 }, { 64, 48, 16, 512, 10 },
        { 32768, 48, 16, 512, 41 },
    };
    for( unsigned i = 0; i < sizeof(bad)/sizeof(*bad); i++ )
    {
        cuda_me_param_t p = { .i_width = bad[i][0], .i_height = bad[i][1], .i_range = bad[i][2],
                              .i_mv_range = bad[i][3], .i_parts = bad[i][4], .i_backend = CUDA_ME_BACKEND_C,
                              .pf_log = quiet_log };
        int err = 0;
        cuda_me_t *h = F.open( &p, &err );
        ck_assert_msg( !h, "bad parameters %u (%dx%d, range %d, mv_range %d, %d parts) accepted", i,
                       bad[i][0], bad[i][1], bad[i][2], bad[i][3], bad[i][4] );
        ck_assert_int_eq( err, CUDA_ME_EINVAL );
    }
    cuda_me_function_t g;
    ck_assert_int_lt( cuda_me_init( CUDA_ME_API_VERSION + 1, &g ), 0 );
}
END_TEST

/* Frames go through as x264 uses them: put, submit against the previous
 * two, get, done, release.  After the pipeline is full nothing grows. */
START_TEST( test_api_steady_memory )
{
    uint32_t rng = test_seed() + 9;
    cuda_me_param_t p = api_param( 48, 32, 4, CUDA_ME_BACKEND_C );
    cuda_me_t *h = F.open( &p, NULL );
    ck_assert_ptr_nonnull( h );
    tframe_t f;
    tframe_alloc( &f, 48, 32 );
    int64_t bytes_at_20 = 0;
    for( int i = 0; i < 200; i++ )
    {
        tframe_fill( &f, PAT_RANDOM, &rng, NULL, 0, 0 );
        ck_assert_int_eq( F.put_frame( h, i, f.p, f.stride ), 0 );
        for( int r = 1; r <= 2 && r <= i; r++ )
        {
            ck_assert_int_eq( F.submit( h, i, i - r, NULL ), 0 );
            get_ok( h, i, i - r );
        }
        if( i >= 3 )
            F.release_frame( h, i - 3 );
        F.done( h, i );
        cuda_me_stats_t s;
        F.stats( h, &s );
        if( i == 20 )
            bytes_at_20 = s.i_host_bytes;
        if( i > 20 )
            ck_assert_int_eq( s.i_host_bytes, bytes_at_20 );
    }
    F.close( h );
    tframe_free( &f );
}
END_TEST

typedef struct { cuda_me_t *h; const cuda_me_result_t *r; } getter_t;

static void *getter( void *arg )
{
    getter_t *g = arg;
    g->r = F.get( g->h, 1, 0 );
    return NULL;
}

START_TEST( test_api_threads )
{
    /* many consumers of one pending job: one search, one answer */
    uint32_t rng = test_seed() + 11;
    cuda_me_param_t p = api_param( 128, 96, 16, CUDA_ME_BACKEND_C );
    fixture_t x;
    fixture_open( &x, &p, 2, 0, &rng, 3, 1 );
    cuda_me_t *h = x.h;
    ck_assert_int_eq( F.submit( h, 1, 0, NULL ), 0 );
    pthread_t t[8];
    getter_t g[8];
    for( int i = 0; i < 8; i++ )
    {
        g[i].h = h;
        ck_assert_int_eq( pthread_create( &t[i], NULL, getter, &g[i] ), 0 );
    }
    for( int i = 0; i < 8; i++ )
        pthread_join( t[i], NULL );
    for( int i = 0; i < 8; i++ )
    {
        ck_assert_msg( g[i].r, "thread %d: get( 1, 0 ) returned NULL (error() = %d: %s)", i,
                       F.error( h ), cuda_me_strerror( F.error( h ) ) );
        ck_assert_ptr_eq( g[i].r, g[0].r );
    }
    guarded_t want;
    expect_results( "get( 1, 0 ) from 8 threads", search_c( &want, &x.f[1], &x.f[0], 16, 512, p.mv_cost, NULL, 41 ), g[0].r, 8, 6, 41 );
    guarded_free( &want );
    cuda_me_stats_t s;
    F.stats( h, &s );
    ck_assert_int_eq( s.i_jobs_got, 1 );
    fixture_close( &x );
}
END_TEST

START_TEST( test_api_cuda_open )
{
    /* Asking for CUDA (or AUTO, which means CUDA): with a device it opens and
     * runs CUDA; without one, the error says why (no device, or a build
     * without the backend), never a crash. */
    const int devices = cme_cuda_device_count(), built = cuda_me_have_cuda();
    static const int backends[] = { CUDA_ME_BACKEND_CUDA, CUDA_ME_BACKEND_AUTO };
    for( unsigned i = 0; i < sizeof(backends)/sizeof(*backends); i++ )
    {
        const char *name = cuda_me_backend_name( backends[i] );
        cuda_me_param_t p = api_param( 64, 48, 8, backends[i] );
        p.pf_log = quiet_log;
        int err = 1;
        cuda_me_t *h = F.open( &p, &err );
        if( devices > 0 && built )
        {
            ck_assert_msg( h, "backend %s: open failed with %d (%s) although %d CUDA device(s) were found",
                           name, err, cuda_me_strerror( err ), devices );
            ck_assert_int_eq( err, 0 );
            cuda_me_stats_t s;
            F.stats( h, &s );
            ck_assert_msg( s.i_backend == CUDA_ME_BACKEND_CUDA, "backend %s: stats say backend %d (%s) ran",
                           name, s.i_backend, cuda_me_backend_name( s.i_backend ) );
            F.close( h );
        }
        else
        {
            const int want = built ? CUDA_ME_ENODEV : CUDA_ME_ENOTBUILT;
            ck_assert_msg( !h, "backend %s: open succeeded without a CUDA device (%s)", name,
                           built ? "none found" : "backend not built" );
            ck_assert_msg( err == want, "backend %s without a CUDA device: error %d (%s), want %d (%s)", name,
                           err, cuda_me_strerror( err ), want, cuda_me_strerror( want ) );
        }
    }
}
END_TEST

/* ---------------------------------------------------------------- fault */

/* The calls of the fault test, numbered in the order they are made: open is
 * call 0; then for each frame i = 0 .. FAULT_FRAMES-1, put(i) and, for i > 0,
 * submit(i, i-1) and get(i, i-1), after which release(i-1) and done(i-1)
 * (they return nothing), so that frame and job slots are recycled from
 * frame 3 on. */
#define FAULT_FRAMES   6
#define AT_OPEN        0
#define AT_PUT( i )    ((i) ? 3*(i) - 1 : 1)
#define AT_SUBMIT( i ) (3*(i))
#define AT_GET( i )    (3*(i) + 1)

static const struct
{
    int backend;
    const char *spec;    /* CUDA_ME_FAULT */
    int at;              /* the call that does the failing operation */
    int err;             /* the sticky error it must leave */
} faults[] =
{
    /* C backend: every call does its work at once, so the fault shows at
     * call `at`.  Allocations: open's MV costs, then a frame slot per put and
     * a job slot per submit until slots are recycled; a copy per put; a
     * search per get. */
    { CUDA_ME_BACKEND_C, "alloc:1",  AT_OPEN,      CUDA_ME_ENOMEM },    /* open: the MV cost copy */
    { CUDA_ME_BACKEND_C, "alloc:2",  AT_PUT( 0 ),    CUDA_ME_ENOMEM },  /* the first frame slot */
    { CUDA_ME_BACKEND_C, "alloc:4",  AT_SUBMIT( 1 ), CUDA_ME_ENOMEM },  /* the first job's results */
    { CUDA_ME_BACKEND_C, "copy:2",   AT_PUT( 1 ),    CUDA_ME_EDEVICE }, /* the second frame's copy */
    { CUDA_ME_BACKEND_C, "copy:4",   AT_PUT( 3 ),    CUDA_ME_EDEVICE }, /* a copy into a recycled slot */
    { CUDA_ME_BACKEND_C, "launch:1", AT_GET( 1 ),    CUDA_ME_EDEVICE }, /* the first search */
    { CUDA_ME_BACKEND_C, "launch:3", AT_GET( 3 ),    CUDA_ME_EDEVICE }, /* a search in a recycled job */
    /* CUDA backend (needs a device): open and the allocations of put and
     * submit are synchronous; uploads (a copy, then the pad kernel and, at
     * this range, the 4-byte plane's: two launches, cuda.c b_xplane)
     * and searches (a launch, then the results' copy) run on the backend's
     * thread in the order queued, so their fault may show at any call from
     * `at` on, and must by the next get().  Counts from cuda.c: open makes
     * 13 allocations (api.c's MV cost copy, CME_STREAMS = 2 x 4 device
     * buffers, CME_STAGES = 3 pinned staging buffers, the device MV costs) and
     * 1 copy (the MV costs). */
    { CUDA_ME_BACKEND_CUDA, "device:1", AT_OPEN,        CUDA_ME_ENODEV },
    { CUDA_ME_BACKEND_CUDA, "alloc:1",  AT_OPEN,        CUDA_ME_ENOMEM },  /* api.c's MV cost copy */
    { CUDA_ME_BACKEND_CUDA, "alloc:2",  AT_OPEN,        CUDA_ME_ENOMEM },  /* the first device buffer */
    { CUDA_ME_BACKEND_CUDA, "alloc:10", AT_OPEN,        CUDA_ME_ENOMEM },  /* the first staging buffer */
    { CUDA_ME_BACKEND_CUDA, "copy:1",   AT_OPEN,        CUDA_ME_EDEVICE }, /* the MV costs' upload */
    { CUDA_ME_BACKEND_CUDA, "alloc:14", AT_PUT( 0 ),    CUDA_ME_ENOMEM },  /* the first device frame */
    { CUDA_ME_BACKEND_CUDA, "alloc:16", AT_SUBMIT( 1 ), CUDA_ME_ENOMEM },  /* the first job's results */
    { CUDA_ME_BACKEND_CUDA, "copy:2",   AT_PUT( 0 ),    CUDA_ME_EDEVICE }, /* frame 0's upload */
    { CUDA_ME_BACKEND_CUDA, "launch:1", AT_PUT( 0 ),    CUDA_ME_EDEVICE }, /* frame 0's pad kernel */
    { CUDA_ME_BACKEND_CUDA, "launch:2", AT_PUT( 0 ),    CUDA_ME_EDEVICE }, /* frame 0's 4-byte plane */
    { CUDA_ME_BACKEND_CUDA, "copy:3",   AT_PUT( 1 ),    CUDA_ME_EDEVICE }, /* frame 1's upload */
    { CUDA_ME_BACKEND_CUDA, "launch:5", AT_SUBMIT( 1 ), CUDA_ME_EDEVICE }, /* the first search */
    { CUDA_ME_BACKEND_CUDA, "copy:4",   AT_SUBMIT( 1 ), CUDA_ME_EDEVICE }, /* its results' download */
    { CUDA_ME_BACKEND_CUDA, "launch:9", AT_PUT( 3 ),    CUDA_ME_EDEVICE }, /* the pad of a recycled frame */
    { CUDA_ME_BACKEND_CUDA, "launch:10", AT_PUT( 3 ),   CUDA_ME_EDEVICE }, /* its 4-byte plane */
    { CUDA_ME_BACKEND_CUDA, "launch:11", AT_SUBMIT( 3 ), CUDA_ME_EDEVICE }, /* a search in a recycled job */
};

typedef struct
{
    const char *name;
    int at, b_async;
    int call;            /* the next call's number */
    int failed;          /* the first call that failed, or -1 */
} fault_run_t;

/* Books call fr->call, which succeeded or not: every call before `at`
 * succeeds; `at` fails (or, on an asynchronous backend, at the latest the
 * first get() from `at` on; open is always synchronous); once a call has
 * failed, every later one fails too (the error is sticky). */
static void fault_call( fault_run_t *fr, int ok, int b_sync, const char *what )
{
    const int n = fr->call++;
    if( fr->failed >= 0 )
        ck_assert_msg( !ok, "%s: call %d, %s, succeeded after call %d failed", fr->name, n, what, fr->failed );
    else if( n < fr->at )
        ck_assert_msg( ok, "%s: call %d, %s, failed: before the fault's call %d", fr->name, n, what, fr->at );
    else if( !fr->b_async || b_sync )
        ck_assert_msg( !ok, "%s: call %d, %s, succeeded: the fault (at call %d) is not reported", fr->name, n, what, fr->at );
    if( !ok && fr->failed < 0 )
        fr->failed = n;
}

START_TEST( test_fault )
{
    /* Each fault: it shows at its call, calls before it succeed (with the
     * right results), every call after it fails with the same sticky error,
     * and closing frees everything. */
    const int backend = faults[_i].backend, want = faults[_i].err;
    char name[64];
    snprintf( name, sizeof(name), "fault %s, backend %s", faults[_i].spec, cuda_me_backend_name( backend ) );
    if( backend == CUDA_ME_BACKEND_CUDA )
    {
        int gpu = test_have_gpu( name );
        ck_assert_msg( gpu >= 0, "%s: CUDA_ME_REQUIRE_GPU is set, but there is no usable CUDA device", name );
        if( !gpu )
            return;
    }
    /* on CUDA only uploads and searches (copies and launches after open) run
     * asynchronously; allocations are made by the calling thread */
    const char *spec = faults[_i].spec;
    fault_run_t fr = { .name = name, .at = faults[_i].at, .failed = -1,
                       .b_async = backend == CUDA_ME_BACKEND_CUDA && (!strncmp( spec, "copy", 4 ) || !strncmp( spec, "launch", 6 )) };
    uint32_t rng = test_seed() + 3;
    tframe_t f[FAULT_FRAMES];
    frames_make( f, FAULT_FRAMES, 48, 32, &rng, 2, 1 );
    cuda_me_param_t p = api_param( 48, 32, 4, backend );
    p.pf_log = quiet_log;
    setenv( "CUDA_ME_FAULT", spec, 1 );
    int err = 1;
    cuda_me_t *h = F.open( &p, &err );
    unsetenv( "CUDA_ME_FAULT" );
    fault_call( &fr, h != NULL, 1, "open" );
    if( !h )
    {
        ck_assert_msg( err == want, "%s: open failed with %d (%s), want %d (%s)", name, err, cuda_me_strerror( err ),
                       want, cuda_me_strerror( want ) );
        frames_free( f, FAULT_FRAMES );
        return;
    }
    ck_assert_int_eq( err, 0 );
    char what[64];
    for( int i = 0; i < FAULT_FRAMES; i++ )
    {
        snprintf( what, sizeof(what), "put( %d )", i );
        int ret = F.put_frame( h, i, f[i].p, f[i].stride );
        ck_assert_msg( ret == 0 || ret == want, "%s: %s gave %d (%s)", name, what, ret, cuda_me_strerror( ret ) );
        fault_call( &fr, !ret, 0, what );
        if( !i )
            continue;
        snprintf( what, sizeof(what), "submit( %d, %d )", i, i - 1 );
        ret = F.submit( h, i, i - 1, NULL );
        ck_assert_msg( ret == 0 || ret == want, "%s: %s gave %d (%s)", name, what, ret, cuda_me_strerror( ret ) );
        fault_call( &fr, !ret, 0, what );
        snprintf( what, sizeof(what), "get( %d, %d )", i, i - 1 );
        const cuda_me_result_t *r = F.get( h, i, i - 1 );
        fault_call( &fr, r != NULL, 1, what );
        if( r )
        {
            guarded_t ref;
            expect_results( what, search_c( &ref, &f[i], &f[i-1], 4, 512, p.mv_cost, NULL, 41 ), r, 3, 2, 41 );
            guarded_free( &ref );
        }
        F.release_frame( h, i - 1 );
        F.done( h, i - 1 );
    }
    ck_assert_msg( fr.failed >= 0, "%s: no call reported the fault", name );
    ck_assert_msg( F.error( h ) == want, "%s: error() = %d (%s), want %d (%s)", name, F.error( h ),
                   cuda_me_strerror( F.error( h ) ), want, cuda_me_strerror( want ) );
    ck_assert_int_eq( F.put_frame( h, 100, f[0].p, f[0].stride ), want );
    ck_assert_int_eq( F.submit( h, FAULT_FRAMES - 1, FAULT_FRAMES - 2, NULL ), want );
    F.close( h );
    frames_free( f, FAULT_FRAMES );
}
END_TEST

/* ---------------------------------------------------------------- device */

#define LOAD( ord, procs, util, free_gib ) \
    { .i_ordinal = (ord), .i_processes = (procs), .i_util = (util), \
      .i_free = (free_gib) < 0 ? -1 : (int64_t)(free_gib) << 30 }

static const struct
{
    const char *what;
    int n;
    cme_device_load_t d[4];
    int want;            /* the ordinal chosen */
} rank_cases[] =
{
    { "one GPU",                          1, { LOAD( 3, 7, 100, 0 ) }, 3 },
    { "all equal: lowest ordinal",        3, { LOAD( 2, 1, 5, 40 ), LOAD( 0, 1, 5, 40 ), LOAD( 1, 1, 5, 40 ) }, 0 },
    { "all idle: lowest ordinal",         4, { LOAD( 1, 0, 0, 79 ), LOAD( 0, 0, 0, 79 ), LOAD( 3, 0, 0, 79 ), LOAD( 2, 0, 0, 79 ) }, 0 },
    { "one busy",                         2, { LOAD( 0, 1, 60, 60 ), LOAD( 1, 0, 0, 79 ) }, 1 },
    { "processes before utilisation",     2, { LOAD( 0, 2, 0, 79 ), LOAD( 1, 1, 99, 1 ) }, 1 },
    { "utilisation breaks a process tie", 3, { LOAD( 0, 1, 30, 79 ), LOAD( 1, 1, 3, 10 ), LOAD( 2, 1, 4, 79 ) }, 1 },
    { "free memory breaks both ties",     3, { LOAD( 0, 1, 3, 10 ), LOAD( 1, 1, 3, 70 ), LOAD( 2, 1, 3, 69 ) }, 1 },
    { "equal loads, ordinal decides",     3, { LOAD( 2, 0, 3, 70 ), LOAD( 1, 0, 3, 70 ), LOAD( 3, 1, 0, 79 ) }, 1 },
    { "unknown processes rank last",      2, { LOAD( 0, -1, 0, 79 ), LOAD( 1, 5, 90, 1 ) }, 1 },
    { "unknown utilisation ranks last",   2, { LOAD( 0, 0, -1, 79 ), LOAD( 1, 0, 100, 1 ) }, 1 },
    { "unknown free memory ranks last",   2, { LOAD( 0, 0, 0, -1 ), LOAD( 1, 0, 0, 0 ) }, 1 },
    { "all unknown: lowest ordinal",      3, { LOAD( 2, -1, -1, -1 ), LOAD( 1, -1, -1, -1 ), LOAD( 4, -1, -1, -1 ) }, 1 },
    { "many processes, one busier",       4, { LOAD( 0, 4, 50, 20 ), LOAD( 1, 3, 90, 20 ), LOAD( 2, 3, 80, 20 ), LOAD( 3, 5, 0, 79 ) }, 2 },
};

START_TEST( test_device_rank )
{
    /* The least-loaded GPU wins, whatever the order of the list: every
     * rotation of each case picks the same ordinal. */
    ck_assert_int_eq( cme_device_rank( NULL, 0 ), -1 );
    for( unsigned c = 0; c < sizeof(rank_cases)/sizeof(*rank_cases); c++ )
    {
        const int n = rank_cases[c].n;
        for( int r = 0; r < n; r++ )
        {
            cme_device_load_t d[4];
            for( int i = 0; i < n; i++ )
                d[i] = rank_cases[c].d[(i + r) % n];
            const int best = cme_device_rank( d, n );
            ck_assert_msg( best >= 0 && best < n, "%s (rotated by %d): index %d of %d", rank_cases[c].what, r, best, n );
            ck_assert_msg( d[best].i_ordinal == rank_cases[c].want, "%s (rotated by %d): device %d chosen, want %d",
                           rank_cases[c].what, r, d[best].i_ordinal, rank_cases[c].want );
        }
    }
}
END_TEST

START_TEST( test_device_nvml )
{
    /* Without the NVIDIA driver NVML cannot be loaded, and says so; with it,
     * every GPU it lists has a PCI address and plausible loads. */
    void *lib = dlopen( "libnvidia-ml.so.1", RTLD_LAZY | RTLD_LOCAL );
    cme_nvml_gpu_t gpu[16];
    char why[64] = "";
    const int n = cme_nvml_query( gpu, 16, why, sizeof(why) );
    if( !lib )
    {
        ck_assert_int_eq( n, -1 );
        ck_assert_msg( strstr( why, "libnvidia-ml.so.1" ), "why: '%s'", why );
        return;
    }
    dlclose( lib );
    ck_assert_msg( n >= 0, "NVML is installed but cme_nvml_query failed: %s", why );
    for( int i = 0; i < n; i++ )
    {
        const cme_device_load_t *l = &gpu[i].load;
        ck_assert_msg( strlen( gpu[i].bus_id ) >= 12 && strchr( gpu[i].bus_id, ':' ), "GPU %d: bus id '%s'", i, gpu[i].bus_id );
        ck_assert_msg( l->i_processes >= -1 && l->i_util >= -1 && l->i_util <= 100 && l->i_free >= -1,
                       "GPU %d (%s): %d processes, %d%% busy, %lld bytes free", i, gpu[i].bus_id,
                       l->i_processes, l->i_util, (long long)l->i_free );
    }
}
END_TEST

START_TEST( test_device_picks )
{
    /* The recent-picks file: what is written is read back while it is
     * recent, and dropped once CME_PICK_RECENT_MS old (or from a later
     * clock); "off" disables it; a path that cannot be used gives -1. */
    char path[] = "/tmp/cuda_me-picks-test-XXXXXX", buf[256];
    int fd = mkstemp( path );
    ck_assert_int_ge( fd, 0 );
    close( fd );
    cme_pick_t p[CME_PICKS_MAX];
    const int64_t t0 = 1000000;
    ck_assert_int_ge( fd = cme_picks_lock( path ), 0 );
    ck_assert_int_eq( cme_picks_read( fd, p, t0 ), 0 );
    cme_picks_write_close( fd, p, 0, "00000000:3B:00.0", t0 );
    ck_assert_int_ge( fd = cme_picks_lock( path ), 0 );
    ck_assert_int_eq( cme_picks_read( fd, p, t0 + 500 ), 1 );
    ck_assert_str_eq( p[0].bus_id, "00000000:3B:00.0" );
    cme_picks_write_close( fd, p, 1, "00000000:5D:00.0", t0 + 500 );
    ck_assert_int_ge( fd = cme_picks_lock( path ), 0 );
    ck_assert_int_eq( cme_picks_read( fd, p, t0 + 500 ), 2 );
    ck_assert_int_eq( cme_picks_read( fd, p, t0 - 1 ), 0 );                     /* ahead of now */
    ck_assert_int_eq( cme_picks_read( fd, p, t0 + CME_PICK_RECENT_MS ), 1 );    /* the first is old */
    ck_assert_str_eq( p[0].bus_id, "00000000:5D:00.0" );
    /* more than CME_PICKS_MAX: the oldest go */
    for( int i = 0; i < CME_PICKS_MAX; i++ )
    {
        snprintf( p[i].bus_id, sizeof(p[i].bus_id), "gpu%d", i );
        p[i].i_time_ms = t0 + i;
    }
    cme_picks_write_close( fd, p, CME_PICKS_MAX, "last", t0 + CME_PICKS_MAX );
    ck_assert_int_ge( fd = cme_picks_lock( path ), 0 );
    ck_assert_int_eq( cme_picks_read( fd, p, t0 + CME_PICKS_MAX ), CME_PICKS_MAX );
    ck_assert_str_eq( p[0].bus_id, "gpu1" );
    ck_assert_str_eq( p[CME_PICKS_MAX - 1].bus_id, "last" );
    close( fd );
    unlink( path );
    ck_assert_int_eq( cme_picks_lock( "/nonexistent-dir/picks" ), -1 );
    setenv( "CUDA_ME_PICKS", "off", 1 );
    ck_assert_ptr_null( cme_picks_path( buf, sizeof(buf) ) );
    setenv( "CUDA_ME_PICKS", path, 1 );
    ck_assert_str_eq( cme_picks_path( buf, sizeof(buf) ), path );
    unsetenv( "CUDA_ME_PICKS" );
    ck_assert_msg( strstr( cme_picks_path( buf, sizeof(buf) ), "/cuda_me-picks." ), "default path %s", buf );
}
END_TEST

static char auto_log[1024];

static void keep_log( void *opaque, int level, const char *fmt, va_list ap )
{
    (void)opaque;
    if( level == CUDA_ME_LOG_ERROR )
    {
        size_t len = strlen( auto_log );
        vsnprintf( auto_log + len, sizeof(auto_log) - len, fmt, ap );
    }
}

START_TEST( test_device_auto_open )
{
    /* CUDA_ME_DEVICE_AUTO: with a GPU it opens one and says which and why;
     * without, the error says why (no driver: the message a user can act
     * on).  Below -1 is no device at all.  The C backend ignores it. */
    const int devices = cme_cuda_device_count(), built = cuda_me_have_cuda();
    cuda_me_param_t p = api_param( 64, 48, 8, CUDA_ME_BACKEND_CUDA );
    p.i_device = CUDA_ME_DEVICE_AUTO;
    p.pf_log = keep_log;
    auto_log[0] = 0;
    int err = 1;
    cuda_me_t *h = F.open( &p, &err );
    if( devices > 0 && built )
    {
        ck_assert_msg( h, "auto: open failed with %d (%s) although %d CUDA device(s) were found: %s",
                       err, cuda_me_strerror( err ), devices, auto_log );
        cuda_me_stats_t s;
        F.stats( h, &s );
        ck_assert_msg( strstr( s.device, " of " ) && strstr( s.device, "auto: " ), "stats.device '%s'", s.device );
        F.close( h );
    }
    else
    {
        ck_assert_msg( !h, "auto: open succeeded without a CUDA device" );
        ck_assert_int_eq( err, built ? CUDA_ME_ENODEV : CUDA_ME_ENOTBUILT );
        void *libcuda = dlopen( "libcuda.so.1", RTLD_LAZY | RTLD_LOCAL );
        if( built && !libcuda )
            ck_assert_msg( strstr( auto_log, "no NVIDIA driver found" ), "auto without a driver: '%s'", auto_log );
        if( libcuda )
            dlclose( libcuda );
    }

    p.i_device = -2;
    auto_log[0] = 0;
    h = F.open( &p, &err );
    ck_assert_msg( !h, "device -2 opened" );
    ck_assert_int_eq( err, built ? CUDA_ME_EINVAL : CUDA_ME_ENOTBUILT );

    p = api_param( 64, 48, 8, CUDA_ME_BACKEND_C );
    p.i_device = CUDA_ME_DEVICE_AUTO;
    p.pf_log = quiet_log;
    h = F.open( &p, &err );
    ck_assert_msg( h && !err, "C backend with CUDA_ME_DEVICE_AUTO: %d (%s)", err, cuda_me_strerror( err ) );
    F.close( h );
}
END_TEST

/* ---------------------------------------------------------------- busy */

/* The exact length of the union of n intervals, by brute force on a grid
 * of 1/8 ms (the intervals below lie on it). */
static double busy_exact( const double (*iv)[2], int n )
{
    double end = 0;
    for( int i = 0; i < n; i++ )
        end = iv[i][1] > end ? iv[i][1] : end;
    const int cells = (int)(end * 8 + .5);
    double total = 0;
    for( int c = 0; c < cells; c++ )
    {
        const double t = (c + .5) / 8;
        for( int i = 0; i < n; i++ )
            if( iv[i][0] <= t && t < iv[i][1] )
            {
                total += 1. / 8;
                break;
            }
    }
    return total;
}

/* --gpu-me-stats' GPU busy time: the union of intervals that overlap (two
 * search streams and the uploads) and arrive out of order (booked when
 * someone waits for them): in order, in blocks of CME_BUSY_LAG each
 * backwards, and shuffled by up to CME_BUSY_LAG / 2 places. */
static double busy_key[3000];
static int busy_cmp_idx( const void *x, const void *y )
{
    const double a = busy_key[*(const int*)x], b = busy_key[*(const int*)y];
    return (a > b) - (a < b);
}

START_TEST( test_busy_union )
{
    enum { N = 3000 };
    static double iv[N][2];
    static int idx[N];
    static cme_busy_t b;
    uint32_t rng = test_seed() + 99;
    for( int order = 0; order < 3; order++ )
    {
        double t = 0;
        for( int i = 0; i < N; i++ )   /* gaps, overlaps, nested ones */
        {
            t += test_rand( &rng ) % 9 / 8.;
            iv[i][0] = t;
            iv[i][1] = t + (1 + test_rand( &rng ) % 24) / 8.;
            idx[i] = i;
            busy_key[i] = order == 0 ? i
                        : order == 1 ? i / CME_BUSY_LAG * CME_BUSY_LAG + (CME_BUSY_LAG - 1 - i % CME_BUSY_LAG)
                        : i + (double)(test_rand( &rng ) % (CME_BUSY_LAG / 2));
        }
        qsort( idx, N, sizeof(int), busy_cmp_idx );
        memset( &b, 0, sizeof(b) );
        for( int k = 0; k < N; k++ )
            cme_busy_add( &b, iv[idx[k]][0], iv[idx[k]][1] );
        const double want = busy_exact( (const double (*)[2])iv, N ), got = cme_busy_total( &b );
        ck_assert_msg( fabs( got - want ) < 1e-6, "order %d: busy %.4f, union %.4f", order, got, want );
    }
}
END_TEST


/* ---------------------------------------------------------------- subpel */

/* Partition geometry of the sub-pel jobs (subpel_jobs.h) against the
 * tests' own rectangles. */
START_TEST( test_subpel_parts )
{
    for( int p = 0; p < CUDA_ME_NPART; p++ )
    {
        int x, y, w, h;
        test_part_rect( p, &x, &y, &w, &h );
        const int px = cme_part_pixel( p );
        ck_assert_msg( cme_part_x( p ) == x && cme_part_y( p ) == y && cme_pixel_w( px ) == w && cme_pixel_h( px ) == h,
                       "partition %d: (%d,%d) %dx%d, want (%d,%d) %dx%d", p, cme_part_x( p ), cme_part_y( p ),
                       cme_pixel_w( px ), cme_pixel_h( px ), x, y, w, h );
    }
}
END_TEST

/* The sub-pel oracle of one pair, written from cuda_me.h's description
 * with plain loops: for every macroblock, candidate and partition, the
 * predictor (the candidate's clipped window centre: pass 1's from the
 * centres, pass 2's from oracle_pass2_centres), x264's limits, the start
 * cost (fpel compare pixel by pixel + MV cost), then subpel_c.c's
 * per-partition cme_refine_subpel_c on half-pel planes made here.  ints
 * (the integer results to start from, [mb][cands][parts]) come from get().
 * Checks got (get_subpel) for the macroblocks of mbs (NULL: all);
 * returns how many results are at odd quarter-pels. */
typedef struct
{
    int range, mv_range, mvrt, parts, cands, subme, satd;
    const int16_t *centre;
    const uint16_t *table;       /* the job's table: entry 8*mv_range + d */
} sp_oracle_t;

static int subpel_oracle_check( const char *name, const sp_oracle_t *o, const tframe_t *cur, const tframe_t *ref,
                                const cuda_me_result_t *ints, const cuda_me_subpel_result_t *got,
                                const int (*mbs)[2], int n_mbs )
{
    const int mb_w = cur->w / 16, mb_h = cur->h / 16, mb_count = mb_w * mb_h, stride = o->cands * o->parts;
    /* half-pel planes of ref, CME_PAD border (== CME_HPEL_PAD) */
    tframe_t hp[3];
    for( int i = 0; i < 3; i++ )
        ck_assert( !tframe_alloc( &hp[i], ref->w, ref->h ) );
    uint8_t *dst[3] = { hp[0].p, hp[1].p, hp[2].p };
    ck_assert( hp[0].stride == ref->stride );
    cme_hpel_planes_c( ref->p, ref->stride, ref->w, ref->h, dst, ref->stride );
    /* pass 2's centres from pass 1's 16x16 vectors */
    cuda_me_result_t *p1 = malloc( mb_count * sizeof(*p1) );
    int16_t *c2 = malloc( mb_count * 4 );
    ck_assert( p1 && c2 );
    for( int mb = 0; mb < mb_count; mb++ )
        p1[mb] = ints[(size_t)mb * stride];
    oracle_pass2_centres( cur, p1, 1, o->mv_range, o->centre, c2 );
    const uint16_t *cmv = o->table + 8*o->mv_range;
    /* the jobs too (limits rarely bite in the refinement: the integer
     * window keeps 6 pixels inside them) */
    cme_subpel_job_t *jobs = malloc( (size_t)mb_count * stride * sizeof(*jobs) );
    ck_assert( jobs );
    cme_subpel_jobs_c( cur->p, cur->stride, ref->p, ref->stride, mb_w, mb_h, o->range, o->mv_range, o->mvrt, o->centre,
                       ints, o->parts, o->cands, 0, o->parts, o->table, 8*o->mv_range, o->subme, o->satd, jobs );
    int odd = 0;
    for( int i = 0; i < (mbs ? n_mbs : mb_count); i++ )
    {
        const int mb_x = mbs ? mbs[i][0] : i % mb_w, mb_y = mbs ? mbs[i][1] : i / mb_w, mb = mb_y * mb_w + mb_x;
        for( int cand = 0; cand < o->cands; cand++ )
        {
            const int16_t *c = cand ? c2 + 2*mb : o->centre ? o->centre + 2*mb : NULL;
            const cme_window_t w = cme_get_window( mb_x, mb_y, mb_w, mb_h, cand ? oracle_pass2_range( o->range ) : o->range,
                                                   o->mv_range, o->mvrt, c ? c[0] : 0, c ? c[1] : 0 );
            cme_subpel_param_t sp;
            sp.i_subme = o->subme;
            sp.b_fpel_satd = o->satd;
            sp.mvp[0] = 4*w.cx;
            sp.mvp[1] = 4*w.cy;
            sp.p_cost_mv = cmv;
            /* x264's mb_analyse_init, quarter-pel */
            sp.mv_min[0] = 4*(-16*mb_x - 24) > -4*o->mv_range ? 4*(-16*mb_x - 24) : -4*o->mv_range;
            sp.mv_max[0] = 4*(16*(mb_w - mb_x - 1) + 24) < 4*o->mv_range - 1 ? 4*(16*(mb_w - mb_x - 1) + 24) : 4*o->mv_range - 1;
            sp.mv_min[1] = 4*(-16*mb_y - 24) > -4*o->mv_range ? 4*(-16*mb_y - 24) : -4*o->mv_range;
            sp.mv_max[1] = 4*(16*(mb_h - mb_y - 1) + 24) < 4*o->mv_range - 1 ? 4*(16*(mb_h - mb_y - 1) + 24) : 4*o->mv_range - 1;
            if( o->mvrt && sp.mv_max[1] > 4*o->mvrt )
                sp.mv_max[1] = 4*o->mvrt;
            for( int p = 0; p < o->parts; p++ )
            {
                const size_t k = (size_t)mb * stride + cand * o->parts + p;
                int px, py, pw, ph;
                test_part_rect( p, &px, &py, &pw, &ph );
                sp.i_pixel = pw == 16 ? (ph == 16 ? 0 : 1) : pw == 8 ? (ph == 16 ? 2 : ph == 8 ? 3 : 4) : (ph == 8 ? 5 : 6);
                const int x = 16*mb_x + px, y = 16*mb_y + py, mvx = ints[k].mv[0], mvy = ints[k].mv[1];
                /* start cost: SAD or SATD at the integer vector, pixel by pixel */
                int fcost = 0;
                for( int by = 0; by < ph; by += 4 )
                    for( int bx = 0; bx < pw; bx += 4 )
                    {
                        int d[16];
                        for( int yy = 0; yy < 4; yy++ )
                            for( int xx = 0; xx < 4; xx++ )
                                d[4*yy+xx] = cur->p[(y+by+yy) * cur->stride + x+bx+xx]
                                           - ref->p[(y+by+yy+mvy) * ref->stride + x+bx+xx+mvx];
                        if( o->satd )
                            fcost += cme_satd_4x4( d );
                        else
                            for( int q = 0; q < 16; q++ )
                                fcost += abs( d[q] );
                    }
                const int cost = fcost + cmv[4*mvx - sp.mvp[0]] + cmv[4*mvy - sp.mvp[1]];
                const cme_subpel_job_t *j = &jobs[k];
                ck_assert_msg( j->x == x && j->y == y && j->mv[0] == 4*mvx && j->mv[1] == 4*mvy && j->cost == cost &&
                               j->mvp[0] == sp.mvp[0] && j->mvp[1] == sp.mvp[1] && j->mv_min[0] == sp.mv_min[0] &&
                               j->mv_min[1] == sp.mv_min[1] && j->mv_max[0] == sp.mv_max[0] &&
                               j->mv_max[1] == sp.mv_max[1] && j->i_cost_mv == 8*o->mv_range && j->i_pixel == sp.i_pixel &&
                               j->i_subme == o->subme && j->b_fpel_satd == o->satd && !j->reserved,
                               "%s (seed %u): mb (%d,%d) cand %d part %d: job (%d,%d) mv (%d,%d) cost %d mvp (%d,%d) "
                               "limits x %d..%d y %d..%d, want (%d,%d) (%d,%d) %d (%d,%d) x %d..%d y %d..%d", name,
                               test_seed(), mb_x, mb_y, cand, p, j->x, j->y, j->mv[0], j->mv[1], j->cost, j->mvp[0],
                               j->mvp[1], j->mv_min[0], j->mv_max[0], j->mv_min[1], j->mv_max[1], x, y, 4*mvx, 4*mvy,
                               cost, sp.mvp[0], sp.mvp[1], sp.mv_min[0], sp.mv_max[0], sp.mv_min[1], sp.mv_max[1] );
                const intptr_t off = (intptr_t)y * ref->stride + x;
                const uint8_t *const pl[4] = { ref->p + off, hp[0].p + off, hp[1].p + off, hp[2].p + off };
                cme_subpel_result_t want;
                cme_refine_subpel_c( cur->p + (intptr_t)y * cur->stride + x, cur->stride, pl, ref->stride, &sp,
                                     4*mvx, 4*mvy, cost, &want );
                const cuda_me_subpel_result_t *g = &got[k];
                ck_assert_msg( SUBPEL_EQ( *g, want ),
                               "%s (seed %u): mb (%d,%d) cand %d part %d from (%d,%d) mvp (%d,%d) cost %d: got (%d,%d) %d "
                               "hpel (%d,%d) %d, want (%d,%d) %d hpel (%d,%d) %d", name, test_seed(), mb_x, mb_y, cand, p,
                               4*mvx, 4*mvy, sp.mvp[0], sp.mvp[1], cost, g->mv[0], g->mv[1], g->cost, g->mv_hpel[0],
                               g->mv_hpel[1], g->cost_hpel, want.mv[0], want.mv[1], want.cost, want.mv_hpel[0],
                               want.mv_hpel[1], want.cost_hpel );
                odd += (want.mv[0] | want.mv[1]) & 1;
            }
        }
    }
    free( jobs );
    free( p1 );
    free( c2 );
    for( int i = 0; i < 3; i++ )
        tframe_free( &hp[i] );
    return odd;
}

/* Sub-pel tables at QPs qp0, qp0 + step, ...: n tables of 16*mv_range + 1
 * (cuda_me.h, subpel_cost); free() it. */
static uint16_t *subpel_tables( int n, int mv_range, int qp0, int step )
{
    const int size = 16*mv_range + 1;
    uint16_t *t = malloc( (size_t)n * size * sizeof(uint16_t) );
    ck_assert( t );
    for( int i = 0; i < n; i++ )
        test_cost_mv_qpel( t + (size_t)i * size + 8*mv_range, 8*mv_range, qp0 + i * step );
    return t;
}

/* The C backend with i_subme against the oracle: random frames moved by
 * sub-pel-ish amounts, every frame edge, one and two candidates, 9 and 41
 * partitions, subme 2..11, tesa, frame-thread limits, centres, several
 * cost tables. */
static const struct
{
    int w, h, range, mv_range, mvrt, parts, cands, subme, satd, spread, dx, dy;
} sp_api_cases[] =
{
    {  64,  48,  8,  512,  0, 41, 1,  7, 0, -1,  3, -2 },
    {  64,  48,  8,  512,  0, 41, 2,  2, 0, 10,  2,  1 },
    {  80,  64, 12,  512, 24, 41, 2,  5, 0, 20, -4,  5 },
    {  96,  64, 20,  512,  0,  9, 2,  9, 1, 30,  7, -3 },   /* tesa */
    {  48,  32,  4,   48,  0, 41, 1, 11, 0, 40,  1,  1 },   /* mv_range clips */
    {  96,  80, 24,  512,  8,  9, 2,  6, 0, 40,  0, 20 },   /* the smallest thread limit */
    {  16,  16,  8,  512,  0, 41, 2,  4, 0, -1,  5,  5 },   /* one macroblock */
    {  64,  48, 16,  512, 40, 41, 2,  3, 1, 12, -9,  6 },
};

START_TEST( test_api_subpel )
{
    const __typeof__(sp_api_cases[0]) *c = &sp_api_cases[_i];
    uint32_t rng = test_seed() + 313 * _i;
    uint16_t *tables = subpel_tables( 3, c->mv_range, 20, 6 );
    cuda_me_param_t p = api_param( c->w, c->h, c->range, CUDA_ME_BACKEND_C );
    p.i_mv_range = c->mv_range;
    p.i_mv_range_thread = c->mvrt;
    p.i_parts = c->parts;
    p.i_cands = c->cands;
    p.i_subme = c->subme;
    p.b_fpel_satd = c->satd;
    p.subpel_cost = tables;
    p.i_subpel_costs = 3;
    fixture_t x;
    fixture_open( &x, &p, 3, 0, &rng, c->dx, c->dy );
    memset( tables, 0, 3 * (16*c->mv_range + 1) * sizeof(uint16_t) );   /* copied at open */
    free( tables );
    tables = subpel_tables( 3, c->mv_range, 20, 6 );
    const int mb_w = c->w / 16, mb_h = c->h / 16, n = mb_w * mb_h * c->cands * c->parts;
    int16_t *centre = test_centres( mb_w * mb_h, c->spread, &rng );
    uint16_t cost[MV_COST_SIZE];
    test_mv_cost_qp( cost, c->range, 26 );
    const cuda_me_job_t job = { centre, cost, c->mvrt ? 8 + (c->mvrt - 8) / 2 : 0, 2, 0 };
    ck_assert_int_eq( F.submit( x.h, 1, 0, &job ), 0 );
    ck_assert_int_eq( F.submit( x.h, 2, 1, NULL ), 0 );
    for( int k = 0; k < 2; k++ )
    {
        const int i_cur = k ? 2 : 1, i_ref = i_cur - 1;
        const cuda_me_result_t *ints = get_ok( x.h, i_cur, i_ref );
        const cuda_me_subpel_result_t *sub = F.get_subpel( x.h, i_cur, i_ref );
        ck_assert_msg( sub, "get_subpel( %d, %d ) returned NULL (error %d)", i_cur, i_ref, F.error( x.h ) );
        ck_assert_ptr_eq( F.get_subpel( x.h, i_cur, i_ref ), sub );
        /* the integer results: as without sub-pel */
        cuda_me_result_t *want = malloc( n * sizeof(*want) );
        ck_assert( want );
        cme_search_c( x.f[i_cur].p, x.f[i_cur].stride, x.f[i_ref].p, x.f[i_ref].stride, mb_w, mb_h, c->range, c->mv_range,
                      k ? c->mvrt : job.i_mv_range_thread ? job.i_mv_range_thread : c->mvrt,
                      k ? p.mv_cost : cost, k ? NULL : centre, c->parts, c->cands, want );
        expect_results( "i_subme: integer results", want, ints, mb_w, mb_h, c->cands * c->parts );
        free( want );
        const sp_oracle_t o = { c->range, c->mv_range, k ? c->mvrt : job.i_mv_range_thread ? job.i_mv_range_thread : c->mvrt,
                                c->parts, c->cands, c->subme, c->satd, k ? NULL : centre,
                                tables + (size_t)(k ? 0 : 2) * (16*c->mv_range + 1) };
        char name[96];
        snprintf( name, sizeof(name), "sub-pel case %d pair %d", _i, k );
        /* frames moved by whole pixels plus noise: few odd quarter-pels
         * (the real frames below must have some) */
        subpel_oracle_check( name, &o, &x.f[i_cur], &x.f[i_ref], ints, sub, NULL, 0 );
    }
    cuda_me_stats_t st;
    F.stats( x.h, &st );
    ck_assert_int_eq( st.i_subpel_parts, 2 * n );
    ck_assert( st.f_subpel_ms >= 0 && st.f_busy_ms >= st.f_search_ms );
    free( tables );
    free( centre );
    fixture_close( &x );
}
END_TEST

/* Real frames: foreman CIF (all macroblocks) and street 1080p (a band of
 * macroblocks on every edge and inside), two candidates. */
START_TEST( test_api_subpel_real )
{
    static const struct { const char *file; int range, parts, subme, satd; } clips[] =
    {
        { "foreman_cif.y4m",    16, CUDA_ME_NPART,     7, 0 },
        { "street_1080p_2.y4m",  8, CUDA_ME_NPART_8x8, 9, 0 },
    };
    const int c = _i;
    char path[512];
    snprintf( path, sizeof(path), "%s/%s", test_data_dir(), clips[c].file );
    tframe_t f[2];
    /* street_1080p_2.y4m has 2 frames (tests/lib.sh decode_clips makes it,
     * and tests/e2e.sh); a machine without FFmpeg may lack it */
    if( c && access( path, R_OK ) )
    {
        if( test_require_gpu() )
            ck_abort_msg( "sub-pel, real frames: %s not found (CUDA_ME_REQUIRE_GPU=1: tests/device.sh data decodes it)", path );
        printf( "*** SKIP sub-pel, real frames: %s not found; this test did not run ***\n", path );
        return;
    }
    if( tframe_read_y4m( &f[0], path, 0 ) || tframe_read_y4m( &f[1], path, 1 ) )
        ck_abort_msg( "cannot read frames 0 and 1 of %s (run tests/run.sh, which decodes the clips)", path );
    const int mv_range = 512;
    uint16_t *tables = subpel_tables( 1, mv_range, 26, 0 );
    cuda_me_param_t p = api_param( f[0].w, f[0].h, clips[c].range, CUDA_ME_BACKEND_C );
    p.i_parts = clips[c].parts;
    p.i_cands = 2;
    p.i_subme = clips[c].subme;
    p.b_fpel_satd = clips[c].satd;
    p.subpel_cost = tables;
    p.i_subpel_costs = 1;
    cuda_me_t *h = F.open( &p, NULL );
    ck_assert_ptr_nonnull( h );
    uint32_t rng = test_seed() + 71;
    const int mb_w = f[0].w / 16, mb_h = f[0].h / 16;
    int16_t *centre = test_centres( mb_w * mb_h, 6, &rng );
    const cuda_me_job_t job = { centre, NULL, 0, 0, 0 };
    for( int i = 0; i < 2; i++ )
        ck_assert_int_eq( F.put_frame( h, i, f[i].p, f[i].stride ), 0 );
    ck_assert_int_eq( F.submit( h, 1, 0, &job ), 0 );
    const cuda_me_result_t *ints = get_ok( h, 1, 0 );
    const cuda_me_subpel_result_t *sub = F.get_subpel( h, 1, 0 );
    ck_assert_ptr_nonnull( sub );
    const sp_oracle_t o = { clips[c].range, mv_range, 0, clips[c].parts, 2, clips[c].subme, clips[c].satd, centre, tables };
    int mbs[12][2] = { {0,0}, {1,0}, {mb_w-1,0}, {0,1}, {mb_w/2,mb_h/2}, {mb_w-1,mb_h/2}, {mb_w/3,mb_h/3},
                       {0,mb_h-1}, {mb_w/2,mb_h-1}, {mb_w-1,mb_h-1}, {mb_w-2,mb_h-2}, {7,5} };
    char name[96];
    snprintf( name, sizeof(name), "sub-pel, real frames (%s)", clips[c].file );
    const int odd = subpel_oracle_check( name, &o, &f[1], &f[0], ints, sub, c ? (const int (*)[2])mbs : NULL, 12 );
    printf( "--- %s: %d results at odd quarter-pels\n", name, odd );
    ck_assert_msg( odd > 0, "%s: no result at an odd quarter-pel", name );
    F.close( h );
    free( centre );
    free( tables );
    tframe_free( &f[0] );
    tframe_free( &f[1] );
}
END_TEST

/* i_subme 0 (the default): the sub-pel fields mean nothing, results are
 * those of before (cme_search_c's), get_subpel gives NULL, nothing is
 * refined or counted; bad sub-pel parameters are refused with a reason. */
static char sp_log[1024];
static void sp_log_keep( void *opaque, int level, const char *fmt, va_list ap )
{
    (void)opaque; (void)level;
    vsnprintf( sp_log, sizeof(sp_log), fmt, ap );
}

START_TEST( test_api_subpel_params )
{
    uint32_t rng = test_seed() + 29;
    cuda_me_param_t p = api_param( 64, 48, 12, CUDA_ME_BACKEND_C );
    p.i_cands = 2;
    p.b_fpel_satd = 7;               /* ignored without i_subme */
    p.i_subpel_costs = -3;
    fixture_t x;
    fixture_open( &x, &p, 2, 0, &rng, 3, -2 );
    const cuda_me_job_t job = { NULL, NULL, 0, 99, 0 };   /* i_subpel_cost: ignored */
    ck_assert_int_eq( F.submit( x.h, 1, 0, &job ), 0 );
    guarded_t want;
    ck_assert( !guarded_alloc( &want, 12 * 2 * 41 ) );
    cme_search_c( x.f[1].p, x.f[1].stride, x.f[0].p, x.f[0].stride, 4, 3, 12, 512, 0, p.mv_cost, NULL, 41, 2, want.r );
    expect_results( "i_subme 0", want.r, get_ok( x.h, 1, 0 ), 4, 3, 2 * 41 );
    ck_assert_ptr_null( F.get_subpel( x.h, 1, 0 ) );
    cuda_me_stats_t st;
    F.stats( x.h, &st );
    ck_assert( st.f_subpel_ms == 0 && st.i_subpel_parts == 0 && st.f_busy_ms == st.f_search_ms );
    fixture_close( &x );
    guarded_free( &want );

    uint16_t *tables = subpel_tables( 2, 512, 26, 4 );
    static const struct { int subme, satd, n, b_tables; const char *why; } bad[] =
    {
        { 1, 0, 1, 1, "i_subme" }, { -1, 0, 1, 1, "i_subme" }, { 12, 0, 1, 1, "i_subme" },
        { 7, 0, 1, 0, "subpel_cost" }, { 7, 0, 0, 1, "i_subpel_costs" },
        { 7, 0, CUDA_ME_SUBPEL_COSTS_MAX + 1, 1, "i_subpel_costs" }, { 7, 2, 1, 1, "b_fpel_satd" },
    };
    for( unsigned i = 0; i < sizeof(bad)/sizeof(*bad); i++ )
    {
        cuda_me_param_t q = api_param( 64, 48, 12, CUDA_ME_BACKEND_C );
        q.i_subme = bad[i].subme;
        q.b_fpel_satd = bad[i].satd;
        q.i_subpel_costs = bad[i].n;
        q.subpel_cost = bad[i].b_tables ? tables : NULL;
        q.pf_log = sp_log_keep;
        sp_log[0] = 0;
        int err = 0;
        ck_assert_msg( !F.open( &q, &err ) && err == CUDA_ME_EINVAL, "bad sub-pel parameters %u accepted", i );
        ck_assert_msg( strstr( sp_log, bad[i].why ), "bad sub-pel parameters %u: '%s' does not say %s", i, sp_log,
                       bad[i].why );
    }
    /* a job's table out of range: refused, nothing done, not sticky */
    p = api_param( 64, 48, 12, CUDA_ME_BACKEND_C );
    p.i_subme = 5;
    p.subpel_cost = tables;
    p.i_subpel_costs = 2;
    p.pf_log = sp_log_keep;
    fixture_open( &x, &p, 2, 0, &rng, 1, 1 );
    for( int t = -1; t <= 2; t += 3 )
    {
        const cuda_me_job_t bj = { NULL, NULL, 0, t, 0 };
        sp_log[0] = 0;
        ck_assert_int_eq( F.submit( x.h, 1, 0, &bj ), CUDA_ME_EINVAL );
        ck_assert_msg( strstr( sp_log, "i_subpel_cost" ), "job table %d: no reason given ('%s')", t, sp_log );
        ck_assert_int_eq( F.error( x.h ), 0 );
    }
    const cuda_me_job_t j1 = { NULL, NULL, 0, 1, 0 };
    ck_assert_int_eq( F.submit( x.h, 1, 0, &j1 ), 0 );
    ck_assert_ptr_nonnull( F.get_subpel( x.h, 1, 0 ) );
    ck_assert_ptr_null( F.get_subpel( x.h, 0, 1 ) );   /* never submitted */
    F.done( x.h, 1 );
    ck_assert_ptr_null( F.get_subpel( x.h, 1, 0 ) );
    fixture_close( &x );
    free( tables );
}
END_TEST

/* i_subpel_parts (API 7) and i_subpel_first (API 8): N partitions from
 * the first refined, laid out [mb][cand][N], each equal to the refinement of
 * all partitions at the same macroblock, candidate and partition; the stats
 * count what was refined. */
START_TEST( test_api_subpel_parts )
{
    static const struct { int parts, cands, sub, first; } cases[] =
    {
        { CUDA_ME_NPART, 2, CUDA_ME_NPART_8x8, 0 }, { CUDA_ME_NPART, 1, 1, 0 }, { CUDA_ME_NPART_8x8, 2, 5, 0 },
        { CUDA_ME_NPART_8x8, 1, CUDA_ME_NPART_8x8, 0 }, { CUDA_ME_NPART_8x8, 2, 4, CUDA_ME_PART_8x8 },
        { CUDA_ME_NPART, 1, 0, CUDA_ME_PART_8x4 }, { CUDA_ME_NPART, 2, 3, CUDA_ME_PART_8x16 + 1 },
    };
    char path[512];
    snprintf( path, sizeof(path), "%s/foreman_cif.y4m", test_data_dir() );
    tframe_t f[2];
    if( tframe_read_y4m( &f[0], path, 0 ) || tframe_read_y4m( &f[1], path, 1 ) )
        ck_abort_msg( "cannot read frames 0 and 1 of %s (run tests/run.sh, which decodes the clips)", path );
    const int mb_count = (f[0].w / 16) * (f[0].h / 16);
    uint16_t *tables = subpel_tables( 1, 512, 22, 0 );
    for( unsigned ci = 0; ci < sizeof(cases)/sizeof(*cases); ci++ )
    {
        cuda_me_t *h[2];
        for( int k = 0; k < 2; k++ )
        {
            cuda_me_param_t p = api_param( f[0].w, f[0].h, 12, CUDA_ME_BACKEND_C );
            p.i_parts = cases[ci].parts;
            p.i_cands = cases[ci].cands;
            p.i_subme = 7;
            p.subpel_cost = tables;
            p.i_subpel_costs = 1;
            p.i_subpel_parts = k ? cases[ci].sub : 0;
            p.i_subpel_first = k ? cases[ci].first : 0;
            h[k] = F.open( &p, NULL );
            ck_assert_ptr_nonnull( h[k] );
            for( int i = 0; i < 2; i++ )
                ck_assert_int_eq( F.put_frame( h[k], i, f[i].p, f[i].stride ), 0 );
            ck_assert_int_eq( F.submit( h[k], 1, 0, NULL ), 0 );
        }
        const cuda_me_subpel_result_t *all = F.get_subpel( h[0], 1, 0 ), *some = F.get_subpel( h[1], 1, 0 );
        ck_assert( all && some );
        const int np = cases[ci].parts, nf = cases[ci].first, nc = cases[ci].cands;
        const int ns = cases[ci].sub ? cases[ci].sub : np - nf;
        int moved = 0;
        for( int mb = 0; mb < mb_count; mb++ )
            for( int c = 0; c < nc; c++ )
                for( int q = 0; q < ns; q++ )
                {
                    const cuda_me_subpel_result_t *a = &all[(mb * nc + c) * np + nf + q];
                    const cuda_me_subpel_result_t *b = &some[(mb * nc + c) * ns + q];
                    ck_assert_msg( SUBPEL_EQ( *a, *b ),
                                   "i_subpel_parts %d from %d of %d, %d cands: mb %d cand %d part %d: (%d,%d) %d, "
                                   "all: (%d,%d) %d", ns, nf, np, nc, mb, c, nf + q, b->mv[0], b->mv[1], b->cost,
                                   a->mv[0], a->mv[1], a->cost );
                    moved += (a->mv[0] & 3) || (a->mv[1] & 3);
                }
        ck_assert_msg( moved > 0, "i_subpel_parts %d from %d of %d: no quarter-pel vector to compare", ns, nf, np );
        cuda_me_stats_t st;
        F.stats( h[1], &st );
        ck_assert_int_eq( st.i_subpel_parts, (int64_t)mb_count * nc * ns );
        for( int k = 0; k < 2; k++ )
            F.close( h[k] );
    }
    tframe_free( &f[0] );
    tframe_free( &f[1] );
    /* parts out of 0..i_parts - first, first out of 0..i_parts - 1: refused,
     * and the reason given */
    static const int bad[][2] = { { -1, 0 }, { CUDA_ME_NPART_8x8 + 1, 0 }, { 0, -1 }, { 0, CUDA_ME_NPART_8x8 },
                                  { 5, CUDA_ME_PART_8x8 } };
    for( unsigned b = 0; b < sizeof(bad)/sizeof(*bad); b++ )
    {
        cuda_me_param_t q = api_param( 64, 48, 12, CUDA_ME_BACKEND_C );
        q.i_parts = CUDA_ME_NPART_8x8;
        q.i_subme = 7;
        q.subpel_cost = tables;
        q.i_subpel_costs = 1;   /* the one table made above */
        q.i_subpel_parts = bad[b][0];
        q.i_subpel_first = bad[b][1];
        q.pf_log = sp_log_keep;
        sp_log[0] = 0;
        int err = 0;
        ck_assert_msg( !F.open( &q, &err ) && err == CUDA_ME_EINVAL, "i_subpel_parts %d from %d accepted",
                       bad[b][0], bad[b][1] );
        ck_assert_msg( strstr( sp_log, "i_subpel_first" ) && strstr( sp_log, "i_subpel_parts" ),
                       "i_subpel_parts %d from %d: '%s' does not say why", bad[b][0], bad[b][1], sp_log );
    }
    free( tables );
}
END_TEST

/* b_no_subpel (API 11): a pair nobody reads refined is searched at full pel
 * only: the same integer results, get_subpel() NULL for it, its parts not
 * counted; the pairs beside it refined as before; values other than 0 and 1
 * refused.  C backend, and CUDA where there is a device. */
static void expect_unrefined( const char *name, cuda_me_t *h, int i_cur, int i_ref )
{
    ck_assert_msg( F.get( h, i_cur, i_ref ), "%s: get( %d, %d ) returned NULL (error %d)", name, i_cur, i_ref,
                   F.error( h ) );
    ck_assert_msg( !F.get_subpel( h, i_cur, i_ref ), "%s: get_subpel( %d, %d ) of a b_no_subpel pair is not NULL",
                   name, i_cur, i_ref );
}

START_TEST( test_api_subpel_per_job )
{
    const int backend = _i ? CUDA_ME_BACKEND_CUDA : CUDA_ME_BACKEND_C;
    char name[64];
    snprintf( name, sizeof(name), "b_no_subpel, backend %s", cuda_me_backend_name( backend ) );
    if( backend == CUDA_ME_BACKEND_CUDA )
    {
        int gpu = test_have_gpu( name );
        ck_assert_msg( gpu >= 0, "%s: CUDA_ME_REQUIRE_GPU is set, but there is no usable CUDA device", name );
        if( !gpu )
            return;
    }
    uint32_t rng = test_seed() + 37;
    const int w = 96, hgt = 64, mbs = (w / 16) * (hgt / 16), nparts = CUDA_ME_NPART_8x8;
    uint16_t *tables = subpel_tables( 2, 512, 24, 4 );
    tframe_t f[3];
    frames_make( f, 3, w, hgt, &rng, 3, -1 );
    cuda_me_t *h[2];   /* 0: every pair refined; 1: pair (1, 0) not */
    for( int k = 0; k < 2; k++ )
    {
        cuda_me_param_t p = api_param( w, hgt, 12, backend );
        p.i_parts = nparts;
        p.i_cands = 2;
        p.i_subme = 7;
        p.subpel_cost = tables;
        p.i_subpel_costs = 2;
        p.pf_log = sp_log_keep;
        h[k] = F.open( &p, NULL );
        ck_assert_ptr_nonnull( h[k] );
        for( int i = 0; i < 3; i++ )
            ck_assert_int_eq( F.put_frame( h[k], i, f[i].p, f[i].stride ), 0 );
        if( k )
            for( int bad = -1; bad <= 2; bad += 3 )
            {
                const cuda_me_job_t bj = { NULL, NULL, 0, 0, bad };
                sp_log[0] = 0;
                ck_assert_int_eq( F.submit( h[k], 1, 0, &bj ), CUDA_ME_EINVAL );
                ck_assert_msg( strstr( sp_log, "b_no_subpel" ), "%s %d: no reason given ('%s')", name, bad, sp_log );
                ck_assert_int_eq( F.error( h[k] ), 0 );
            }
        const cuda_me_job_t j10 = { NULL, NULL, 0, 1, k }, j21 = { NULL, NULL, 0, 0, 0 }, j20 = { NULL, NULL, 0, 1, 0 };
        ck_assert_int_eq( F.submit( h[k], 1, 0, &j10 ), 0 );
        ck_assert_int_eq( F.submit( h[k], 2, 1, &j21 ), 0 );
        ck_assert_int_eq( F.submit( h[k], 2, 0, &j20 ), 0 );
    }
    const int pairs[3][2] = { { 1, 0 }, { 2, 1 }, { 2, 0 } };
    for( int q = 0; q < 3; q++ )
    {
        const int c = pairs[q][0], r = pairs[q][1];
        const cuda_me_result_t *a = get_ok( h[0], c, r ), *b = get_ok( h[1], c, r );
        expect_results( name, a, b, w / 16, hgt / 16, 2 * nparts );
        if( !q )
        {
            expect_unrefined( name, h[1], c, r );
            continue;
        }
        const cuda_me_subpel_result_t *sa = F.get_subpel( h[0], c, r ), *sb = F.get_subpel( h[1], c, r );
        ck_assert_msg( sa && sb, "%s: pair (%d, %d): get_subpel returned NULL", name, c, r );
        for( int i = 0; i < mbs * 2 * nparts; i++ )
            ck_assert_msg( SUBPEL_EQ( sa[i], sb[i] ), "%s: pair (%d, %d), entry %d: (%d,%d) %d, want (%d,%d) %d", name, c,
                           r, i, sb[i].mv[0], sb[i].mv[1], sb[i].cost, sa[i].mv[0], sa[i].mv[1], sa[i].cost );
    }
    expect_unrefined( name, h[1], 1, 0 );   /* asked again: still none */
    cuda_me_stats_t st[2];
    for( int k = 0; k < 2; k++ )
        F.stats( h[k], &st[k] );
    ck_assert_int_eq( st[0].i_subpel_parts, 3 * (int64_t)mbs * 2 * nparts );
    ck_assert_int_eq( st[1].i_subpel_parts, 2 * (int64_t)mbs * 2 * nparts );
    for( int k = 0; k < 2; k++ )
        F.close( h[k] );
    for( int i = 0; i < 3; i++ )
        tframe_free( &f[i] );
    free( tables );
}
END_TEST

/* ---------------------------------------------------------------- main */

static TCase *add_tcase( Suite *s, const char *name, int timeout )
{
    TCase *tc = tcase_create( name );
    tcase_set_timeout( tc, timeout );
    suite_add_tcase( s, tc );
    return tc;
}

static Suite *cuda_me_suite( void )
{
    Suite *s = suite_create( "cuda_me" );
    TCase *tc = add_tcase( s, "spec", 120 );
    tcase_add_test( tc, test_window_x264 );
    tcase_add_test( tc, test_merge );
#if HAVE_CUDA
    tcase_add_test( tc, test_merge_fma );
    tcase_add_test( tc, test_pairs );
    tcase_add_test( tc, test_geom );
    tcase_add_test( tc, test_hrow );
#endif

    tc = add_tcase( s, "cref", 600 );
    tcase_add_loop_test( tc, test_cref_oracle, 0, sizeof(cref_cases)/sizeof(*cref_cases) );
    tcase_add_test( tc, test_cref_real );
    tcase_add_loop_test( tc, test_cref_pass2, 0, sizeof(pass2_cases)/sizeof(*pass2_cases) );
    tcase_add_test( tc, test_cref_pass2_real );

    tc = add_tcase( s, "api", 120 );
    tcase_add_test( tc, test_api_lifecycle );
    tcase_add_test( tc, test_api_job_params );
    tcase_add_test( tc, test_api_cands );
    tcase_add_test( tc, test_api_bad_params );
    tcase_add_test( tc, test_api_steady_memory );
    tcase_add_test( tc, test_api_threads );
    tcase_add_test( tc, test_api_cuda_open );
    tcase_add_test( tc, test_busy_union );

    tc = add_tcase( s, "subpel", 600 );
    tcase_add_test( tc, test_subpel_parts );
    tcase_add_loop_test( tc, test_api_subpel, 0, sizeof(sp_api_cases)/sizeof(*sp_api_cases) );
    tcase_add_loop_test( tc, test_api_subpel_real, 0, 2 );
    tcase_add_test( tc, test_api_subpel_params );
    tcase_add_test( tc, test_api_subpel_parts );
    tcase_add_loop_test( tc, test_api_subpel_per_job, 0, 2 );

    tc = add_tcase( s, "fault", 120 );
    tcase_add_loop_test( tc, test_fault, 0, sizeof(faults)/sizeof(*faults) );

    tc = add_tcase( s, "device", 60 );
    tcase_add_test( tc, test_device_rank );
    tcase_add_test( tc, test_device_nvml );
    tcase_add_test( tc, test_device_picks );
    tcase_add_test( tc, test_device_auto_open );
    return s;
}

int main( void )
{
    test_seed();   /* print it once, before the test processes fork */
    cuda_me_init( CUDA_ME_API_VERSION, &F );
    SRunner *sr = srunner_create( cuda_me_suite() );
    srunner_add_suite( sr, checkasm_suite() );
    srunner_run_all( sr, CK_NORMAL );
    int failed = srunner_ntests_failed( sr );
    srunner_free( sr );
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
