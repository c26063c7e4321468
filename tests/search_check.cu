/*****************************************************************************
 * search_check.cu: the search kernel's host-side parts against the spec
 *****************************************************************************
 * No GPU needed: search.cuh's key formation, run mapping and launch
 * geometry run on the host, as the kernels compute them, against
 * me_spec.h and the shared-memory limits; the library's launch path
 * (me_cuda.cu) at every range it accepts, and every variant of dev/.
 * Called by the spec suite (test_cuda_me.c); each returns the number of
 * violations.
 *****************************************************************************/

#include <stdint.h>
#include <string.h>

#include "search.cuh"
#include "me_cuda_dev.h"
#include "search_check.h"


/* row_keys() (CH: row_keys_chain(), its block columns 0 and 2 summed
 * over each 8x8 row as search_run_fma() sums them) on the host against
 * the spec's merge (cme_merge): every partition's key made exactly once
 * per position, equal to cost << KEY_SHIFT | raster. */
template<int NP, int CH>
static int keys_check( uint32_t *rng, int n )
{
    int bad = 0;
    for( int it = 0; it < n; it++ )
    {
        uint32_t s16[16], cost[CUDA_ME_NPART];
        for( int i = 0; i < 16; i++ )
        {
            *rng = *rng * 1664525u + 1013904223u;
            /* extremes often: 0 and the largest 4x4 SAD, 16 * 255 */
            s16[i] = it % 3 == 0 ? 4080 : it % 7 == 0 ? 0 : (*rng >> 8) % 4081;
        }
        *rng = *rng * 1664525u + 1013904223u;
        const uint32_t mvc = it % 3 == 0 ? 2*65535 : (*rng >> 4) % (2*65535 + 1);
        const uint32_t raster = it % 5 == 0 ? (1u << KEY_SHIFT) - 1 : (*rng >> 2) & ((1u << KEY_SHIFT) - 1);
        cme_merge( s16, mvc, cost );
        fma_state_t st;
        int seen[CUDA_ME_NPART] = { 0 };
        for( int b = 0; b < 4; b++ )
        {
            uint32_t s[4], key[16];
            for( int c = 0; c < 4; c++ )   /* block column c of block row b, x264 order */
            {
                s[c] = s16[4*((b >> 1)*2 + (c >> 1)) + 2*(b & 1) + (c & 1)];
                if( CH && (b & 1) && !(c & 1) )   /* on the upper block's SAD */
                    s[c] += s16[4*((b >> 1)*2 + (c >> 1)) + (c & 1)];
            }
            if( CH )
                row_keys_chain( b, s, st, mvc << KEY_SHIFT | raster, 1u << KEY_SHIFT, 0u - (1u << KEY_SHIFT), 1, ~0u, key );
            else
                row_keys<NP>( b, s, st, mvc << KEY_SHIFT | raster, 1u << KEY_SHIFT, 1, key );
            for( int i = 0; i < row_nkeys( NP, b ); i++ )
            {
                const int p = row_part( NP, b, i );
                bad += p < 0 || p >= NP || seen[p]++ || key[i] != (cost[p] << KEY_SHIFT | raster);
            }
        }
        for( int p = 0; p < NP; p++ )
            bad += seen[p] != 1;
    }
    return bad;
}

extern "C" int search_check_keys( uint32_t seed )
{
    uint32_t rng = seed;
    return keys_check<CUDA_ME_NPART, 0>( &rng, 2000 ) + keys_check<CUDA_ME_NPART_8x8, 0>( &rng, 2000 ) +
           keys_check<CUDA_ME_NPART, 1>( &rng, 2000 );
}

extern "C" int search_check_pairs( void )
{
    int bad = 0;
    static const int Ks[2] = { 3, 4 };
    for( int wx = 8; wx <= 2*CUDA_ME_RANGE_MAX + 1; wx++ )
    {
        const int np = pair_count( wx );
        uint8_t seen[2*CUDA_ME_RANGE_MAX + 1] = { 0 };
        for( int p = 0; p < np; p++ )
        {
            const int a = pair_col( p, wx );
            if( a < 0 || a + 4 > wx - 1 )
                bad++;
            else
                seen[a] = seen[a + 4] = 1;
        }
        for( int x = 0; x < wx; x++ )
            bad += !seen[x];
        /* the rows a block of pb runs spans, against raster_fits()'s bound
         * (raster_most(); a square window: wy = wx) */
        for( int ki = 0; ki < 2; ki++ )
            for( int pb = 1; pb <= 1536; pb += pb < 64 ? 1 : 37 )
            {
                const int K = Ks[ki], runs = run_count( np, wx, K );
                const long bound = raster_most( wx, pb, K, 1 );
                for( int u0 = 0; u0 < runs; u0 += pb )
                {
                    const int u1 = cme_imin( u0 + pb, runs );
                    const int lo = run_row( u0 / np, wx, K ), hi = run_row( (u1 - 1) / np, wx, K ) + K;
                    bad += (long)(hi - lo) * wx > bound;
                }
            }
    }
    return bad;
}

extern "C" int search_check_hrow( void )
{
    static uint8_t seen[257][257];
    int bad = 0;
    for( int wx = 9; wx <= 257; wx++ )
        for( int wy = 9; wy <= 257; wy++ )
        {
            const int K = 8, runs = run_total( wx, wy, K, 1 );
            memset( seen, 0, sizeof(seen) );
            for( int u = 0; u < runs; u++ )
            {
                int kr, col;
                const int r = run_pos( u, wx, wy, K, 1, &kr, &col );
                if( col < 0 )
                    continue;
                /* a one-row run's warp (32 runs from a multiple of 32) holds no K-row run */
                for( int v = u & ~31; v < (u | 31) + 1 && v < runs; v++ )
                {
                    int kv, cv;
                    run_pos( v, wx, wy, K, 1, &kv, &cv );
                    bad += cv >= 0 && kv != kr;
                }
                bad += r < 0 || r + kr > wy || col >= wx || (kr != K && kr != 1);
                for( int k = 0; k < kr && r + k < wy && col < wx; k++ )
                    seen[r + k][col] = 1;
            }
            for( int y = 0; y < wy; y++ )
                for( int x = 0; x < wx; x++ )
                    bad += !seen[y][x];
        }
    return bad;
}


static int check_launch_geom( const cme_launch_t *l, cme_search_pick_fn pick, int want_vi )
{
    search_geom_t g;
    const cme_variant_t *v = pick( l, &g );
    if( !v || !g.nb || g.smem > (96 << 10) )
        return 1;
    /* the default runs itself (never a fallback) */
    int bad = want_vi >= 0 && v->id != want_vi;
    const int K = v->k, pair = v->keys == KEYS_PAIR, S = v->stride, pb = g.threads * g.runs_per_thread;
    const int win_words = g.keytab - SMEM_WIN( l->i_parts );
    const int tab_words = (int)(g.smem / sizeof(uint32_t)) - g.keytab;
    /* the tensor copy's box (BULK_S()): exactly s_win, whole rows, from a
     * 128-byte aligned word, the mbarrier before it; within TMA's box
     * limit at the defaults (elsewhere a launch without it takes the loads) */
    if( BULK_S( S ) )
        bad += g.winrows * S != win_words || (SMEM_WIN( l->i_parts ) * 4) % 128 ||
               SMEM_BAR( l->i_parts ) + 2 > SMEM_WIN( l->i_parts ) || SMEM_BAR( l->i_parts ) & 1 ||
               SMEM_BAR( l->i_parts ) < SMEM_RED + MAX_WARPS * l->i_parts ||
               (want_vi >= 0 && g.winrows > TMA_BOX_MAX);
    int wxs[MAX_WSIZE], wys[MAX_WSIZE], nwx, nwy;
    cme_search_window_sizes( l->i_mb_width, l->i_mb_height, l->i_range, l->i_mv_range, l->i_mv_range_thread,
                  wxs, &nwx, wys, &nwy );
    for( int i = 0; i < nwx; i++ )
        for( int j = 0; j < nwy; j++ )
        {
            const int wx = wxs[i], wy = wys[j];
            const int per = group_runs( wx, pair ), hr = HROW( K, S ), runs = run_total( per, wy, K, hr );
            const int rowlen = S ? S : row_words( wx );
            bad += rowlen < row_words( wx ) || (pair && wx < 8) || (long)g.nb * pb < runs;
            for( int b = 0; b < g.nb; b++ )
            {
                const int u0 = b * pb;
                if( u0 >= runs )
                    break;
                const int u1 = cme_imin( u0 + pb, runs );
                int klo, khi, clo, chi;
                const int row_lo = run_pos( u0, per, wy, K, hr, &klo, &clo );
                const int nrows = run_pos( u1 - 1, per, wy, K, hr, &khi, &chi ) - row_lo + khi + 15;
                /* the shared memory, the first run not idle, the keys' raster field */
                bad += nrows * rowlen > win_words || clo < 0 || (long)(nrows - 15) * wx > (1 << KEY_SHIFT);
                if( KEY_TABLES( S ) )
                    bad += nrows - 15 > g.keyrows || g.keyrows + wx > tab_words;
            }
        }
    return bad;
}

static int geom_equal( const search_geom_t *a, const search_geom_t *b )
{
    return a->threads == b->threads && a->runs_per_thread == b->runs_per_thread && a->nb == b->nb &&
           a->smem == b->smem && a->key_scale == b->key_scale && a->one == b->one && a->keytab == b->keytab &&
           a->keyrows == b->keyrows && a->winrows == b->winrows && a->runs == b->runs;
}

static cme_launch_t launch( int mb_w, int mb_h, int range, int mv_range, int mv_range_thread, int np, int vi )
{
    cme_launch_t l;
    memset( &l, 0, sizeof(l) );
    l.i_mb_width = mb_w;
    l.i_mb_height = mb_h;
    l.i_range = range;
    l.i_mv_range = mv_range;
    l.i_mv_range_thread = mv_range_thread;
    l.i_parts = np;
    l.i_variant = vi;
    return l;
}

extern "C" int search_check_geom( void )
{
    int bad = 0;
    /* The library's launches (me_cuda.cu): at every range it accepts, from
     * one macroblock to the largest frame, with x264's least MV limits
     * (api.c: mv_range >= 32, mv_range_thread 0 or >= 8), the default
     * variant itself has a geometry that fits (the library holds no
     * fallback for it); dev/'s pick of the default is the same. */
    {
        static const int sizes[][2] = { { 120, 68 }, { 80, 45 }, { 240, 135 }, { 22, 18 }, { 3, 2 }, { 1, 1 },
                                        { 1, 68 }, { 120, 1 }, { 1024, 1024 } };
        static const int limits[][2] = { { 512, 0 }, { 32, 0 }, { 512, 8 }, { 128, 24 }, { 32, 8 }, { 8192, 0 },
                                         { 48, 13 } };   /* mv_range, thread */
        for( int si = 0; si < 9; si++ )
            for( int li = 0; li < 7; li++ )
                for( int range = CUDA_ME_RANGE_MIN; range <= CUDA_ME_RANGE_MAX; range++ )
                    for( int np = 0; np < 2; np++ )
                    {
                        const cme_launch_t l = launch( sizes[si][0], sizes[si][1], range, limits[li][0], limits[li][1],
                                                       np ? CUDA_ME_NPART : CUDA_ME_NPART_8x8, -1 );
                        /* 1080p, no thread limit: also the tensor copy's box */
                        const int want = cme_cuda_variant_default( range );
                        bad += check_launch_geom( &l, cme_search_pick, si == 0 && li == 0 ? want : -1 );
                        search_geom_t g, gd;
                        const cme_variant_t *v = cme_search_pick( &l, &g ), *vd = cme_dev_pick( &l, &gd );
                        bad += !v || v->id != want || !vd || vd->id != want || !geom_equal( &g, &gd );
                    }
    }
    /* Every variant of dev/ (or its fallback), as the benchmark and the
     * tests launch them. */
    {
        static const int sizes[][2] = { { 120, 68 }, { 80, 45 }, { 240, 135 }, { 22, 18 }, { 3, 2 }, { 1, 1 } };
        static const int limits[][2] = { { 512, 0 }, { 32, 0 }, { 512, 8 }, { 128, 24 } };   /* mv_range, thread */
        for( int si = 0; si < 6; si++ )
            for( int li = 0; li < 4; li++ )
                for( int range = CUDA_ME_RANGE_MIN; range <= CUDA_ME_RANGE_MAX; range += range < 20 ? 1 : 3 )
                    for( int np = 0; np < 2; np++ )
                        for( int vi = 0; vi < cme_dev_variant_count(); vi++ )
                        {
                            const cme_launch_t l = launch( sizes[si][0], sizes[si][1], range, limits[li][0],
                                                           limits[li][1], np ? CUDA_ME_NPART : CUDA_ME_NPART_8x8, vi );
                            bad += check_launch_geom( &l, cme_dev_pick, -1 );
                        }
    }
    /* cme_search_pick_memo(): each of its key's fields told apart.
     * Launches A and B that differ in one field only (each pair with two
     * geometries, else the check could not fail; the frame-thread limit
     * changes the geometry only in frames a few rows tall), alternated:
     * every answer, remembered or computed, is the pick's.  Omitting any one
     * field from the key fails this (checked when it was written). */
    for( int f = 0; f < 8; f++ )
    {
        cme_launch_t a;
        memset( &a, 0, sizeof(a) );
        a.i_mb_width = 120;
        a.i_mb_height = f == 4 ? 2 : 68;
        a.i_range = f == 4 ? 32 : 48;
        a.i_mv_range = 512;
        a.i_parts = CUDA_ME_NPART;
        a.i_variant = -1;
        cme_launch_t b = a;
        switch( f )
        {
            case 0: b.i_mb_width = 3; break;
            case 1: b.i_mb_height = 2; break;
            case 2: b.i_range = 16; break;
            case 3: b.i_mv_range = 32; break;
            case 4: b.i_mv_range_thread = 8; break;
            case 5: b.i_parts = CUDA_ME_NPART_8x8; break;
            case 6: b.i_variant = 4; break;   /* the library's v4 where v26 is the default */
            default: break;   /* 7: a forced geometry */
        }
        search_geom_t ga, gb, g;
        const cme_variant_t *va = cme_search_pick( &a, &ga );
        if( f == 7 )
            cme_cuda_geom_force( 64, 1 );
        const cme_variant_t *vb = cme_search_pick( &b, &gb );
        bad += va == vb && geom_equal( &ga, &gb );   /* B must differ */
        for( int k = 0; k < 3; k++ )
        {
            bad += cme_search_pick_memo( &b, &g, cme_search_pick ) != vb || !geom_equal( &g, &gb );
            if( f == 7 )
                cme_cuda_geom_force( 0, 0 );
            bad += cme_search_pick_memo( &a, &g, cme_search_pick ) != va || !geom_equal( &g, &ga );
            if( f == 7 )
                cme_cuda_geom_force( 64, 1 );
        }
        cme_cuda_geom_force( 0, 0 );
    }
    return bad;
}
