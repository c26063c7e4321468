/*****************************************************************************
 * test_subpel.c: the sub-pel refinement specification against x264 (Check)
 *****************************************************************************
 * Suite subpel, linked with x264's own functions (subpel_x264.c: the
 * patched build's libx264.a, C versions):
 *   x264     the half-pel planes (cme_hpel_planes_c, including the whole
 *            32-pixel border) against x264_frame_filter +
 *            x264_frame_expand_border_filtered, in one call and row by row
 *            as the encoder calls them; quarter-pel samples against
 *            get_ref and mc_luma for all 16 fractions and 7 sizes; SATD and
 *            SAD against pixf.satd / pixf.sad
 *   formula  the planes against an independent implementation of the
 *            H.264 6-tap formulas (the centre from horizontal intermediates,
 *            the spec's other order) on an unpadded copy
 *   refine   cme_refine_subpel_c against an oracle: x264's refine_subpel
 *            transcribed (its packed bcost codes, COPY*_IF_LT, odir) on
 *            x264's get_ref, SAD and SATD, for --subme 2..11, --me tesa,
 *            every partition size, random, extreme and real frames
 *            (foreman_cif.y4m), vectors at the limits
 * CUDA_ME_SEED repeats a run.
 *****************************************************************************/

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "subpel_x264.h"
#include "test_util.h"

/* ---------------------------------------------------------------- helpers */

typedef struct
{
    tframe_t f[4];                 /* F, H, V, C (same size, same stride) */
    uint8_t *plane[4];             /* at (0,0) */
} planes_t;

/* H, V, C of pl->f[0] by the C reference. */
static void planes_make( planes_t *pl )
{
    const tframe_t *s = &pl->f[0];
    for( int i = 1; i < 4; i++ )
    {
        ck_assert( !tframe_alloc( &pl->f[i], s->w, s->h ) );
        ck_assert_int_eq( pl->f[i].stride, s->stride );
    }
    for( int i = 0; i < 4; i++ )
        pl->plane[i] = pl->f[i].p;
    cme_hpel_planes_c( s->p, s->stride, s->w, s->h, pl->plane + 1, s->stride );
}

static void planes_free( planes_t *pl )
{
    for( int i = 0; i < 4; i++ )
        tframe_free( &pl->f[i] );
}

/* Compares two planes with their 32-pixel border; prints the first
 * difference. */
static int plane_diff( const char *what, const uint8_t *a, const uint8_t *b, intptr_t stride, int w, int h )
{
    for( int y = -CME_HPEL_PAD; y < h + CME_HPEL_PAD; y++ )
        for( int x = -CME_HPEL_PAD; x < w + CME_HPEL_PAD; x++ )
            if( a[y*stride + x] != b[y*stride + x] )
            {
                printf( "%s: %dx%d plane differs at (%d,%d): %d, want %d (seed %u)\n", what, w, h, x, y,
                        a[y*stride + x], b[y*stride + x], test_seed() );
                return 1;
            }
    return 0;
}

static const int patterns[] = { PAT_RANDOM, PAT_MAXDIFF, PAT_GRADIENT, PAT_FLAT };
static const char *const pattern_names[] = { "random", "maxdiff", "gradient", "flat" };
static const int sizes[][2] = { {16,16}, {32,48}, {176,144}, {64,16} };

/* ---------------------------------------------------------------- x264 */

START_TEST( test_hpel_x264 )
{
    uint32_t rng = test_seed() ^ 0x3141;
    for( unsigned s = 0; s < sizeof(sizes)/sizeof(*sizes); s++ )
        for( unsigned pt = 0; pt < sizeof(patterns)/sizeof(*patterns); pt++ )
            for( int b_rows = 0; b_rows < 2; b_rows++ )
            {
                planes_t pl = { 0 };
                tframe_t x[3] = { { 0 } };
                ck_assert( !tframe_alloc( &pl.f[0], sizes[s][0], sizes[s][1] ) );
                tframe_fill( &pl.f[0], patterns[pt], &rng, NULL, 0, 0 );
                planes_make( &pl );
                uint8_t *xp[3];
                for( int i = 0; i < 3; i++ )
                {
                    ck_assert( !tframe_alloc( &x[i], pl.f[0].w, pl.f[0].h ) );
                    memset( x[i].buf, CANARY_BYTE, x[i].stride * (x[i].h + 2*CME_PAD) );
                    xp[i] = x[i].p;
                }
                ck_assert( !x264ref_hpel_planes( pl.f[0].p, pl.f[0].stride, pl.f[0].w, pl.f[0].h, xp, x[0].stride, b_rows ) );
                for( int i = 0; i < 3; i++ )
                {
                    char what[96];
                    snprintf( what, sizeof(what), "hpel plane %c, %s, %s", "HVC"[i], pattern_names[pt],
                              b_rows ? "x264 row by row" : "x264 whole frame" );
                    ck_assert_msg( !plane_diff( what, pl.plane[i+1], xp[i], pl.f[0].stride, pl.f[0].w, pl.f[0].h ),
                                   "%s: differs from x264", what );
                }
                for( int i = 0; i < 3; i++ )
                    tframe_free( &x[i] );
                planes_free( &pl );
            }
}
END_TEST

START_TEST( test_hpel_x264_real )
{
    char path[1024];
    snprintf( path, sizeof(path), "%s/foreman_cif.y4m", test_data_dir() );
    planes_t pl = { 0 };
    if( tframe_read_y4m( &pl.f[0], path, 3 ) )
    {
        printf( "*** SKIP hpel_x264_real: %s not found (tests/run.sh decodes it)\n", path );
        return;
    }
    planes_make( &pl );
    tframe_t x[3] = { { 0 } };
    uint8_t *xp[3];
    for( int i = 0; i < 3; i++ )
    {
        ck_assert( !tframe_alloc( &x[i], pl.f[0].w, pl.f[0].h ) );
        xp[i] = x[i].p;
    }
    ck_assert( !x264ref_hpel_planes( pl.f[0].p, pl.f[0].stride, pl.f[0].w, pl.f[0].h, xp, x[0].stride, 1 ) );
    for( int i = 0; i < 3; i++ )
        ck_assert_msg( !plane_diff( "foreman", pl.plane[i+1], xp[i], pl.f[0].stride, pl.f[0].w, pl.f[0].h ),
                       "foreman frame 3: hpel plane %c differs from x264", "HVC"[i] );
    for( int i = 0; i < 3; i++ )
        tframe_free( &x[i] );
    planes_free( &pl );
}
END_TEST

/* Every fraction, every size, vectors reaching into the border. */
START_TEST( test_qpel_x264 )
{
    uint32_t rng = test_seed() ^ 0x2718;
    planes_t pl = { 0 };
    ck_assert( !tframe_alloc( &pl.f[0], 64, 48 ) );
    tframe_fill( &pl.f[0], _i ? PAT_MAXDIFF : PAT_RANDOM, &rng, NULL, 0, 0 );
    planes_make( &pl );
    const intptr_t stride = pl.f[0].stride;
    for( int iter = 0; iter < 2000; iter++ )
    {
        const int i_pixel = iter % CME_PIXEL_COUNT;
        const int bw = cme_pixel_w( i_pixel ), bh = cme_pixel_h( i_pixel );
        /* block origin and vector: the block stays 2 pixels inside the border */
        const int bx = (int)(test_rand( &rng ) % (64 - bw + 1)), by = (int)(test_rand( &rng ) % (48 - bh + 1));
        const int mvx = 4*(-bx - 29) + (int)(test_rand( &rng ) % (4*(64 + 58 - bw - 1) + 1));
        const int mvy = 4*(-by - 29) + (int)(test_rand( &rng ) % (4*(48 + 58 - bh - 1) + 1));
        uint8_t *const pp[4] = { pl.plane[0] + by*stride + bx, pl.plane[1] + by*stride + bx,
                                 pl.plane[2] + by*stride + bx, pl.plane[3] + by*stride + bx };
        uint8_t buf[16*16], buf2[16*16];
        intptr_t st = 16;
        const uint8_t *ref = x264ref_get_ref( buf, &st, pp, stride, mvx, mvy, bw, bh );
        x264ref_mc_luma( buf2, 16, pp, stride, mvx, mvy, bw, bh );
        for( int y = 0; y < bh; y++ )
            for( int x = 0; x < bw; x++ )
            {
                int v = cme_qpel_sample( (const uint8_t *const *)pp, stride, mvx, mvy, x, y );
                ck_assert_msg( v == ref[y*st + x] && v == buf2[16*y + x],
                               "%dx%d at (%d,%d) mv (%d,%d): pixel (%d,%d) %d, x264 get_ref %d, mc_luma %d (seed %u)",
                               bw, bh, bx, by, mvx, mvy, x, y, v, ref[y*st + x], buf2[16*y + x], test_seed() );
            }
    }
    planes_free( &pl );
}
END_TEST

START_TEST( test_satd_x264 )
{
    uint32_t rng = test_seed() ^ 0x1618;
    uint8_t a[16*48], b[16*48];
    for( int iter = 0; iter < 20000; iter++ )
    {
        const int i_pixel = iter % CME_PIXEL_COUNT;
        const int mode = (iter / CME_PIXEL_COUNT) % 4;
        const intptr_t sa = 16 + 16 * (int)(test_rand( &rng ) % 3), sb = 16 + 16 * (int)(test_rand( &rng ) % 3);
        for( int i = 0; i < 16*48; i++ )
        {
            switch( mode )
            {
                case 0: a[i] = (uint8_t)test_rand( &rng ); b[i] = (uint8_t)test_rand( &rng ); break;
                /* x264 checkasm's "maximize sum": extremes in opposite phase */
                case 1: a[i] = (test_rand( &rng ) & 1) ? 255 : 0; b[i] = 255 - a[i]; break;
                case 2: a[i] = 255; b[i] = 0; break;
                default: a[i] = (uint8_t)test_rand( &rng ); b[i] = (uint8_t)(a[i] + (int)(test_rand( &rng ) % 5) - 2); break;
            }
        }
        const uint8_t *const pb[4] = { b, NULL, NULL, NULL };
        int satd = cme_subpel_cmp( a, sa, pb, sb, i_pixel, 1, 0, 0 );
        int sad = cme_subpel_cmp( a, sa, pb, sb, i_pixel, 0, 0, 0 );
        int xs = x264ref_satd( i_pixel, a, sa, b, sb ), xd = x264ref_sad( i_pixel, a, sa, b, sb );
        ck_assert_msg( satd == xs && sad == xd, "%dx%d mode %d: SATD %d (x264 %d), SAD %d (x264 %d), seed %u",
                       cme_pixel_w( i_pixel ), cme_pixel_h( i_pixel ), mode, satd, xs, sad, xd, test_seed() );
    }
}
END_TEST

/* ---------------------------------------------------------------- formula */

/* The H.264 formulas (8.4.2.2.1) on an unpadded copy with clamped reads:
 * b1 = E - 5F + 20G + 20H - 5I + J horizontally, h1 the same vertically,
 * j1 from the b1 of six rows (the spec allows either order: this is the
 * other one than x264's), b = Clip1((b1 + 16) >> 5), j = Clip1((j1 + 512) >> 10);
 * outside [-4, w+3] x [-8, h+7] the nearest such sample (x264's border). */
static const uint8_t *fo_pix;
static int fo_w, fo_h;
static int fo_F( int x, int y )
{
    x = x < 0 ? 0 : x >= fo_w ? fo_w - 1 : x;
    y = y < 0 ? 0 : y >= fo_h ? fo_h - 1 : y;
    return fo_pix[y * fo_w + x];
}
static int fo_b1( int x, int y )
{
    return fo_F( x-2, y ) - 5*fo_F( x-1, y ) + 20*fo_F( x, y ) + 20*fo_F( x+1, y ) - 5*fo_F( x+2, y ) + fo_F( x+3, y );
}
static int fo_h1( int x, int y )
{
    return fo_F( x, y-2 ) - 5*fo_F( x, y-1 ) + 20*fo_F( x, y ) + 20*fo_F( x, y+1 ) - 5*fo_F( x, y+2 ) + fo_F( x, y+3 );
}
static int fo_clip( int v ) { return v < 0 ? 0 : v > 255 ? 255 : v; }
static int fo_sample( int p, int x, int y )
{
    x = x < -4 ? -4 : x > fo_w + 3 ? fo_w + 3 : x;
    y = y < -8 ? -8 : y > fo_h + 7 ? fo_h + 7 : y;
    if( p == 1 )
        return fo_clip( (fo_b1( x, y ) + 16) >> 5 );
    if( p == 2 )
        return fo_clip( (fo_h1( x, y ) + 16) >> 5 );
    int j1 = fo_b1( x, y-2 ) - 5*fo_b1( x, y-1 ) + 20*fo_b1( x, y ) + 20*fo_b1( x, y+1 ) - 5*fo_b1( x, y+2 ) + fo_b1( x, y+3 );
    return fo_clip( (j1 + 512) >> 10 );
}

START_TEST( test_hpel_formula )
{
    uint32_t rng = test_seed() ^ 0x4242;
    for( unsigned s = 0; s < sizeof(sizes)/sizeof(*sizes); s++ )
        for( unsigned pt = 0; pt < 3; pt++ )
        {
            planes_t pl = { 0 };
            ck_assert( !tframe_alloc( &pl.f[0], sizes[s][0], sizes[s][1] ) );
            tframe_fill( &pl.f[0], patterns[pt], &rng, NULL, 0, 0 );
            planes_make( &pl );
            const int w = pl.f[0].w, h = pl.f[0].h;
            uint8_t *copy = malloc( w * h );
            for( int y = 0; y < h; y++ )
                memcpy( copy + y*w, pl.f[0].p + y*pl.f[0].stride, w );
            fo_pix = copy; fo_w = w; fo_h = h;
            for( int p = 1; p < 4; p++ )
                for( int y = -CME_HPEL_PAD; y < h + CME_HPEL_PAD; y++ )
                    for( int x = -CME_HPEL_PAD; x < w + CME_HPEL_PAD; x++ )
                    {
                        int v = pl.plane[p][y*pl.f[0].stride + x], want = fo_sample( p, x, y );
                        ck_assert_msg( v == want, "%s %dx%d plane %c (%d,%d): %d, the formula %d (seed %u)",
                                       pattern_names[pt], w, h, "FHVC"[p], x, y, v, want, test_seed() );
                    }
            free( copy );
            planes_free( &pl );
        }
}
END_TEST

/* ---------------------------------------------------------------- refine */

/* x264's h->cost_mv[qp] (analyse.c init_costs), centred, +-COST_RANGE. */
#define COST_RANGE 8192
static uint16_t cost_tab[2*COST_RANGE + 1];
static void cost_init( int qp )
{
    test_cost_mv_qpel( cost_tab + COST_RANGE, COST_RANGE, qp );
}

/* The oracle's view of one partition. */
typedef struct
{
    const uint8_t *fenc;
    intptr_t i_fenc;
    uint8_t *plane[4];
    intptr_t stride;
    int i_pixel;
    const cme_subpel_param_t *p;
    int n_evals;
} orc_t;

static int orc_cmp( orc_t *o, int mx, int my, int b_satd )
{
    uint8_t buf[16*16];
    intptr_t st = 16;
    const int bw = cme_pixel_w( o->i_pixel ), bh = cme_pixel_h( o->i_pixel );
    const uint8_t *src = x264ref_get_ref( buf, &st, o->plane, o->stride, mx, my, bw, bh );
    o->n_evals++;
    return (b_satd ? x264ref_satd : x264ref_sad)( o->i_pixel, o->fenc, o->i_fenc, src, st )
         + o->p->p_cost_mv[mx - o->p->mvp[0]] + o->p->p_cost_mv[my - o->p->mvp[1]];
}

/* encoder/me.c refine_subpel( h, m, hpel, qpel, NULL, 0 ), luma, no
 * weights, as written there (the packed bcost, COPY*_IF_LT, odir). */
static void orc_refine( orc_t *o, int mvx, int mvy, int cost, cme_subpel_result_t *r )
{
    static const uint8_t subpel_iterations[][4] =
       {{0,0,0,0}, {1,1,0,0}, {0,1,1,0}, {0,2,1,0}, {0,2,1,1}, {0,2,1,2},
        {0,0,2,2}, {0,0,2,2}, {0,0,4,10}, {0,0,4,10}, {0,0,4,10}, {0,0,4,10}};
    const cme_subpel_param_t *p = o->p;
    const int subme = p->i_subme, fpel_satd = p->b_fpel_satd;
    const int hpel_iters = subpel_iterations[subme][2], qpel_iters = subpel_iterations[subme][3];
    int bmx = mvx, bmy = mvy, bcost = cost, odir = -1, bdir;
    int costs[4];
#define COPY1_IF_LT(x,y) if( (y) < (x) ) (x) = (y);
#define COST_MV_SATD( mx, my, dir ) \
    if( (dir^1) != odir ) \
    { \
        int c_ = orc_cmp( o, mx, my, 1 ); \
        if( c_ < bcost ) { bcost = c_; bmx = mx; bmy = my; bdir = dir; } \
    }
    if( hpel_iters )
    {
        if( subme < 3 )
        {
            int mx = p->mvp[0] < p->mv_min[0]+2 ? p->mv_min[0]+2 : p->mvp[0] > p->mv_max[0]-2 ? p->mv_max[0]-2 : p->mvp[0];
            int my = p->mvp[1] < p->mv_min[1]+2 ? p->mv_min[1]+2 : p->mvp[1] > p->mv_max[1]-2 ? p->mv_max[1]-2 : p->mvp[1];
            if( (mx-bmx)|(my-bmy) )
            {
                int c = orc_cmp( o, mx, my, fpel_satd );
                if( c < bcost ) { bcost = c; bmx = mx; bmy = my; }
            }
        }
        bcost <<= 6;
        for( int i = hpel_iters; i > 0; i-- )
        {
            int omx = bmx, omy = bmy;
            costs[0] = orc_cmp( o, omx, omy-2, fpel_satd );
            costs[1] = orc_cmp( o, omx, omy+2, fpel_satd );
            costs[2] = orc_cmp( o, omx-2, omy, fpel_satd );
            costs[3] = orc_cmp( o, omx+2, omy, fpel_satd );
            COPY1_IF_LT( bcost, (costs[0]<<6)+2 );
            COPY1_IF_LT( bcost, (costs[1]<<6)+6 );
            COPY1_IF_LT( bcost, (costs[2]<<6)+16 );
            COPY1_IF_LT( bcost, (costs[3]<<6)+48 );
            if( !(bcost&63) )
                break;
            bmx -= (int32_t)((uint32_t)bcost<<26)>>29;
            bmy -= (int32_t)((uint32_t)bcost<<29)>>29;
            bcost &= ~63;
        }
        bcost >>= 6;
    }
    if( !fpel_satd )
    {
        bcost = CME_COST_MAX;
        COST_MV_SATD( bmx, bmy, -1 );
    }
    r->mv_hpel[0] = bmx; r->mv_hpel[1] = bmy; r->cost_hpel = bcost;
    bdir = -1;
    for( int i = qpel_iters; i > 0; i-- )
    {
        if( bmy <= p->mv_min[1] || bmy >= p->mv_max[1] || bmx <= p->mv_min[0] || bmx >= p->mv_max[0] )
            break;
        odir = bdir;
        int omx = bmx, omy = bmy;
        COST_MV_SATD( omx, omy - 1, 0 );
        COST_MV_SATD( omx, omy + 1, 1 );
        COST_MV_SATD( omx - 1, omy, 2 );
        COST_MV_SATD( omx + 1, omy, 3 );
        if( (bmx == omx) & (bmy == omy) )
            break;
    }
    r->mv[0] = bmx; r->mv[1] = bmy; r->cost = bcost;
#undef COST_MV_SATD
#undef COPY1_IF_LT
}

/* Refines n partitions of cur against ref (its planes), comparing with the
 * oracle.  start: 0 integer vectors from the full search (cme_search_c,
 * +-range around 0, x264's fpel cost), 1 random integer vectors across the
 * fpel limits, 2 random quarter-pel vectors across the spel limits.
 * Returns how many of them moved (the test must exercise the search). */
static int refine_check( const char *what, const tframe_t *cur, planes_t *ref, uint32_t *rng, int start, int n )
{
    const int mb_w = cur->w / 16, mb_h = cur->h / 16;
    cuda_me_result_t *fs = NULL;
    uint16_t fpel_cost[MV_COST_SIZE];
    const int range = 8;
    if( start == 0 )
    {
        fs = malloc( sizeof(*fs) * mb_w * mb_h * CUDA_ME_NPART );
        test_mv_cost_qp( fpel_cost, range, 26 );
        cme_search_c( cur->p, cur->stride, ref->plane[0], ref->f[0].stride, mb_w, mb_h, range, 512, 0,
                      fpel_cost, NULL, CUDA_ME_NPART, 1, fs );
    }
    int moved = 0;
    for( int k = 0; k < n; k++ )
    {
        const int mb_x = (int)(test_rand( rng ) % mb_w), mb_y = (int)(test_rand( rng ) % mb_h);
        const int part = (int)(test_rand( rng ) % CUDA_ME_NPART);
        int px, py, pw, ph;
        test_part_rect( part, &px, &py, &pw, &ph );
        const int i_pixel = pw == 16 ? (ph == 16 ? CME_PIXEL_16x16 : CME_PIXEL_16x8)
                          : pw == 8 ? (ph == 16 ? CME_PIXEL_8x16 : ph == 8 ? CME_PIXEL_8x8 : CME_PIXEL_8x4)
                          : ph == 8 ? CME_PIXEL_4x8 : CME_PIXEL_4x4;
        const int mv_range = (test_rand( rng ) & 3) ? 512 : 32 + (int)(test_rand( rng ) % 32);
        cme_subpel_param_t p;
        p.i_pixel = i_pixel;
        p.i_subme = 2 + (int)(test_rand( rng ) % 10);
        p.b_fpel_satd = (test_rand( rng ) % 5) == 0;
        /* x264's mb_analyse_init, quarter-pel */
        p.mv_min[0] = cme_imax( 4*(-16*mb_x - 24), -4*mv_range );
        p.mv_max[0] = cme_imin( 4*(16*(mb_w - mb_x - 1) + 24), 4*mv_range - 1 );
        p.mv_min[1] = cme_imax( 4*(-16*mb_y - 24), -4*mv_range );
        p.mv_max[1] = cme_imin( 4*(16*(mb_h - mb_y - 1) + 24), 4*mv_range - 1 );
        if( !(test_rand( rng ) & 3) )   /* a frame-thread limit */
            p.mv_max[1] = cme_imin( p.mv_max[1], 4*(8 + (int)(test_rand( rng ) % 24)) );
        const int lx[2] = { p.mv_min[0], p.mv_max[0] }, ly[2] = { p.mv_min[1], p.mv_max[1] };
        int mvx, mvy;
        test_subpel_start( start, fs + (mb_y * mb_w + mb_x) * CUDA_ME_NPART + part, lx, ly, rng, &mvx, &mvy );
        /* the predictor: near the start, or anywhere in the limits */
        if( test_rand( rng ) & 1 )
        {
            p.mvp[0] = mvx + (int)(test_rand( rng ) % 17) - 8;
            p.mvp[1] = mvy + (int)(test_rand( rng ) % 17) - 8;
        }
        else
        {
            p.mvp[0] = p.mv_min[0] + (int)(test_rand( rng ) % (p.mv_max[0] - p.mv_min[0] + 1));
            p.mvp[1] = p.mv_min[1] + (int)(test_rand( rng ) % (p.mv_max[1] - p.mv_min[1] + 1));
        }
        p.p_cost_mv = cost_tab + COST_RANGE;

        const intptr_t stride = ref->f[0].stride;
        const int ox = 16*mb_x + px, oy = 16*mb_y + py;
        orc_t o = { cur->p + oy * cur->stride + ox, cur->stride, { NULL }, stride, i_pixel, &p, 0 };
        for( int i = 0; i < 4; i++ )
            o.plane[i] = ref->plane[i] + oy * stride + ox;
        /* m->cost at the start: fpelcmp + MV cost (x264_me_search_ref), or
         * now and then any cost */
        int cost = orc_cmp( &o, mvx, mvy, p.b_fpel_satd );
        if( !(test_rand( rng ) % 8) )
            cost = (int)(test_rand( rng ) % 3000);

        cme_subpel_result_t want, got;
        memset( &got, CANARY_BYTE, sizeof(got) );
        orc_refine( &o, mvx, mvy, cost, &want );
        cme_refine_subpel_c( o.fenc, o.i_fenc, (const uint8_t *const *)o.plane, stride, &p, mvx, mvy, cost, &got );
        ck_assert_msg( SUBPEL_EQ( got, want ),
                       "%s: MB (%d,%d) partition %d (%dx%d), subme %d%s, start (%d,%d) cost %d, mvp (%d,%d), "
                       "limits x %d..%d y %d..%d: got (%d,%d) %d [hpel (%d,%d) %d], x264 (%d,%d) %d [hpel (%d,%d) %d] (seed %u)",
                       what, mb_x, mb_y, part, pw, ph, p.i_subme, p.b_fpel_satd ? " tesa" : "", mvx, mvy, cost,
                       p.mvp[0], p.mvp[1], p.mv_min[0], p.mv_max[0], p.mv_min[1], p.mv_max[1],
                       got.mv[0], got.mv[1], got.cost, got.mv_hpel[0], got.mv_hpel[1], got.cost_hpel,
                       want.mv[0], want.mv[1], want.cost, want.mv_hpel[0], want.mv_hpel[1], want.cost_hpel, test_seed() );
        moved += got.mv[0] != mvx || got.mv[1] != mvy;
    }
    free( fs );
    return moved;
}

START_TEST( test_refine_random )
{
    uint32_t rng = test_seed() ^ (0x5a5a + _i);
    static const int pats[] = { PAT_RANDOM, PAT_MAXDIFF, PAT_SHIFTED, PAT_FLAT };
    planes_t ref = { 0 };
    tframe_t cur = { 0 };
    ck_assert( !tframe_alloc( &ref.f[0], 80, 64 ) && !tframe_alloc( &cur, 80, 64 ) );
    tframe_fill( &ref.f[0], _i == 2 ? PAT_GRADIENT : pats[_i], &rng, NULL, 0, 0 );
    tframe_fill( &cur, _i == 2 ? PAT_SHIFTED : pats[_i], &rng, &ref.f[0], 3, -2 );
    planes_make( &ref );
    cost_init( 26 );
    for( int start = 0; start < 3; start++ )
        refine_check( pattern_names[_i < 3 ? _i : 3], &cur, &ref, &rng, start, 600 );
    planes_free( &ref );
    tframe_free( &cur );
}
END_TEST

START_TEST( test_refine_real )
{
    char path[1024];
    snprintf( path, sizeof(path), "%s/foreman_cif.y4m", test_data_dir() );
    planes_t ref = { 0 };
    tframe_t cur = { 0 };
    if( tframe_read_y4m( &ref.f[0], path, 4 ) || tframe_read_y4m( &cur, path, 6 ) )
    {
        printf( "*** SKIP refine_real: %s not found (tests/run.sh decodes it)\n", path );
        tframe_free( &ref.f[0] );
        return;
    }
    planes_make( &ref );
    uint32_t rng = test_seed() ^ 0x6666;
    static const int qps[] = { 18, 26, 36 };
    int moved = 0, n = 0;
    for( int q = 0; q < 3; q++ )
    {
        cost_init( qps[q] );
        for( int start = 0; start < 3; start++, n += 500 )
            moved += refine_check( "foreman", &cur, &ref, &rng, start, 500 );
    }
    printf( "refine_real: %d of %d refinements moved the vector\n", moved, n );
    ck_assert_int_gt( moved, n / 4 );
    planes_free( &ref );
    tframe_free( &cur );
}
END_TEST

/* ---------------------------------------------------------------- main */

int main( void )
{
    x264ref_init();
    test_seed();
    Suite *s = suite_create( "subpel" );
    TCase *tc = tcase_create( "x264" );
    tcase_set_timeout( tc, 120 );
    tcase_add_test( tc, test_hpel_x264 );
    tcase_add_test( tc, test_hpel_x264_real );
    tcase_add_loop_test( tc, test_qpel_x264, 0, 2 );
    tcase_add_test( tc, test_satd_x264 );
    suite_add_tcase( s, tc );
    tc = tcase_create( "formula" );
    tcase_set_timeout( tc, 120 );
    tcase_add_test( tc, test_hpel_formula );
    suite_add_tcase( s, tc );
    tc = tcase_create( "refine" );
    tcase_set_timeout( tc, 300 );
    tcase_add_loop_test( tc, test_refine_random, 0, 4 );
    tcase_add_test( tc, test_refine_real );
    suite_add_tcase( s, tc );
    SRunner *sr = srunner_create( s );
    srunner_run_all( sr, CK_NORMAL );
    int failed = srunner_ntests_failed( sr );
    srunner_free( sr );
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
