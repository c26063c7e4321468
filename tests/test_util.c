/*****************************************************************************
 * test_util.c: inputs, oracle and comparison helpers
 *****************************************************************************/

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "test_util.h"

uint32_t test_seed( void )
{
    static uint32_t seed;
    static int done;
    if( !done )
    {
        const char *env = getenv( "CUDA_ME_SEED" );
        seed = env && *env ? (uint32_t)strtoul( env, NULL, 0 ) : (uint32_t)time( NULL ) ^ ((uint32_t)clock() << 16);
        if( !seed )
            seed = 1;
        printf( "cuda_me tests: using random seed %u (set CUDA_ME_SEED to repeat)\n", seed );
        fflush( stdout );
        done = 1;
    }
    return seed;
}

uint32_t test_rand( uint32_t *s )
{
    /* xorshift32 */
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

int tframe_alloc( tframe_t *f, int w, int h )
{
    f->w = w;
    f->h = h;
    f->stride = (w + 2*CME_PAD + 63) & ~63;
    f->buf = calloc( 1, f->stride * (h + 2*CME_PAD) );
    f->p = f->buf ? f->buf + CME_PAD * f->stride + CME_PAD : NULL;
    return f->buf ? 0 : -1;
}

void tframe_free( tframe_t *f )
{
    free( f->buf );
    memset( f, 0, sizeof(*f) );
}

void tframe_pad( tframe_t *f )
{
    for( int y = -CME_PAD; y < f->h + CME_PAD; y++ )
    {
        uint8_t *row = f->p + y * f->stride;
        const uint8_t *src = f->p + cme_imin( cme_imax( y, 0 ), f->h - 1 ) * f->stride;
        for( int x = -CME_PAD; x < f->w + CME_PAD; x++ )
            if( y < 0 || y >= f->h || x < 0 || x >= f->w )
                row[x] = src[cme_imin( cme_imax( x, 0 ), f->w - 1 )];
    }
}

void tframe_fill( tframe_t *f, int pattern, uint32_t *rng, const tframe_t *ref, int dx, int dy )
{
    for( int y = 0; y < f->h; y++ )
        for( int x = 0; x < f->w; x++ )
        {
            uint8_t v;
            switch( pattern )
            {
                case PAT_FLAT:     v = 128; break;
                /* worst cases of x264's checkasm: extremes only */
                case PAT_MAXDIFF:  v = (test_rand( rng ) & 1) ? 255 : 0; break;
                case PAT_GRADIENT: v = (uint8_t)(x + 2*y); break;
                case PAT_SHIFTED:
                {
                    int sx = cme_imin( cme_imax( x + dx, 0 ), ref->w - 1 );
                    int sy = cme_imin( cme_imax( y + dy, 0 ), ref->h - 1 );
                    int n = (int)(test_rand( rng ) % 7) - 3;
                    v = (uint8_t)cme_imin( cme_imax( ref->p[sy * ref->stride + sx] + n, 0 ), 255 );
                    break;
                }
                default:           v = (uint8_t)test_rand( rng ); break;
            }
            f->p[y * f->stride + x] = v;
        }
    tframe_pad( f );
}

int tframe_read_y4m( tframe_t *f, const char *path, int n )
{
    FILE *fp = fopen( path, "rb" );
    if( !fp )
        return -1;
    char line[512];
    int w = 0, h = 0, ret = -1;
    if( !fgets( line, sizeof(line), fp ) || strncmp( line, "YUV4MPEG2 ", 10 ) )
        goto end;
    for( char *t = strtok( line + 10, " \n" ); t; t = strtok( NULL, " \n" ) )
    {
        if( t[0] == 'W' ) w = atoi( t + 1 );
        if( t[0] == 'H' ) h = atoi( t + 1 );
    }
    if( w <= 0 || h <= 0 )
        goto end;
    size_t frame = (size_t)w * h * 3 / 2;
    for( int i = 0; i <= n; i++ )
    {
        if( !fgets( line, sizeof(line), fp ) || strncmp( line, "FRAME", 5 ) )
            goto end;
        if( i < n && fseek( fp, (long)frame, SEEK_CUR ) )
            goto end;
    }
    if( tframe_alloc( f, (w + 15) & ~15, (h + 15) & ~15 ) )
        goto end;
    for( int y = 0; y < h; y++ )
        if( fread( f->p + y * f->stride, 1, w, fp ) != (size_t)w )
        {
            tframe_free( f );
            goto end;
        }
    /* x264_frame_expand_border_mod16: replicate into the mod16 area */
    for( int y = 0; y < f->h; y++ )
        for( int x = (y < h ? w : 0); x < f->w; x++ )
            f->p[y * f->stride + x] = f->p[cme_imin( y, h - 1 ) * f->stride + cme_imin( x, w - 1 )];
    tframe_pad( f );
    ret = 0;
end:
    fclose( fp );
    return ret;
}

const char *test_data_dir( void )
{
    const char *env = getenv( "CUDA_ME_TEST_DATA" );
    return env && *env ? env : "build/data";
}

void test_subpel_start( int start, const cuda_me_result_t *r, const int x[2], const int y[2], uint32_t *rng,
                        int *mvx, int *mvy )
{
    const int fx0 = (x[0] >> 2) + 6, fx1 = (x[1] >> 2) - 6;
    const int fy0 = (y[0] >> 2) + 6, fy1 = (y[1] >> 2) - 6;
    if( start == 0 )
    {
        *mvx = 4 * cme_iclip( r->mv[0], fx0, fx1 );
        *mvy = 4 * cme_iclip( r->mv[1], fy0, fy1 );
    }
    else if( start == 1 )
    {
        *mvx = 4 * (fx0 + (int)(test_rand( rng ) % (fx1 - fx0 + 1)));
        *mvy = 4 * (fy0 + (int)(test_rand( rng ) % (fy1 - fy0 + 1)));
    }
    else
    {
        *mvx = x[0] + (int)(test_rand( rng ) % (x[1] - x[0] + 1));
        *mvy = y[0] + (int)(test_rand( rng ) % (y[1] - y[0] + 1));
    }
}

void test_part_rect( int p, int *x, int *y, int *w, int *h )
{
    if( p == 0 )       { *x = 0; *y = 0; *w = 16; *h = 16; }
    else if( p < 3 )   { *x = 0; *y = 8*(p-1); *w = 16; *h = 8; }
    else if( p < 5 )   { *x = 8*(p-3); *y = 0; *w = 8; *h = 16; }
    else if( p < 9 )   { int q = p-5; *x = 8*(q&1); *y = 8*(q>>1); *w = 8; *h = 8; }
    else if( p < 17 )  { int q = (p-9)>>1, j = (p-9)&1; *x = 8*(q&1); *y = 8*(q>>1) + 4*j; *w = 8; *h = 4; }
    else if( p < 25 )  { int q = (p-17)>>1, j = (p-17)&1; *x = 8*(q&1) + 4*j; *y = 8*(q>>1); *w = 4; *h = 8; }
    else               { int q = (p-25)>>2, i = (p-25)&3; *x = 8*(q&1) + 4*(i&1); *y = 8*(q>>1) + 4*(i>>1); *w = 4; *h = 4; }
}

static int clampi( int v, int lo, int hi ) { return v < lo ? lo : v > hi ? hi : v; }

/* One axis of the window, re-derived from the description in me_spec.h:
 * limits from x264's mb_analyse_init (in quarter pels), the centre clipped
 * into them, then the 2*range+1 box slid until it fits. */
static void axis( int mb, int mbs, int range, int mv_range, int c, int *lo, int *hi, int *cc )
{
    int fmv = 4 * mv_range;
    int l0 = (cme_imax( 4*(-16*mb - 24), -fmv ) >> 2) + 6;
    int l1 = (cme_imin( 4*(16*(mbs - mb - 1) + 24), fmv - 1 ) >> 2) - 6;
    *cc = c < l0 ? l0 : c > l1 ? l1 : c;
    int a = *cc - range, b = *cc + range;
    if( b > l1 ) { a -= b - l1; b = l1; }
    if( a < l0 ) { b += l0 - a; a = l0; }
    *lo = a;
    *hi = b < l1 ? b : l1;
}

void oracle_mb( const tframe_t *cur, const tframe_t *ref, int mb_x, int mb_y, int range, int mv_range,
                const uint16_t *mv_cost, const int16_t *centre, int parts, cuda_me_result_t *out )
{
    const int mb_w = cur->w / 16, mb_h = cur->h / 16;
    const int16_t *c = centre ? centre + 2 * (mb_y * mb_w + mb_x) : NULL;
    int x0, x1, y0, y1, cx, cy;
    axis( mb_x, mb_w, range, mv_range, c ? c[0] : 0, &x0, &x1, &cx );
    axis( mb_y, mb_h, range, mv_range, c ? c[1] : 0, &y0, &y1, &cy );
    for( int p = 0; p < parts; p++ )
    {
        int px, py, pw, ph;
        test_part_rect( p, &px, &py, &pw, &ph );
        uint32_t best = UINT32_MAX;
        int bx = 0, by = 0;
        for( int dy = y0; dy <= y1; dy++ )
            for( int dx = x0; dx <= x1; dx++ )
            {
                uint32_t sad = 0;
                for( int y = 0; y < ph; y++ )
                    for( int x = 0; x < pw; x++ )
                    {
                        int ix = 16*mb_x + px + x, iy = 16*mb_y + py + y;
                        int rx = clampi( ix + dx, 0, ref->w - 1 ), ry = clampi( iy + dy, 0, ref->h - 1 );
                        sad += abs( cur->p[iy * cur->stride + ix] - ref->p[ry * ref->stride + rx] );
                    }
                uint32_t cost = sad + (mv_cost ? mv_cost[2*range + dx - cx] + mv_cost[2*range + dy - cy] : 0);
                if( cost < best )
                {
                    best = cost;
                    bx = dx;
                    by = dy;
                }
            }
        out[p].mv[0] = bx;
        out[p].mv[1] = by;
        out[p].cost = best;
    }
}

int oracle_pass2_range( int range )
{
    if( range >= 32 )
        return 16;
    if( range < 8 )
        return range;
    return range / 2 < 8 ? 8 : range / 2;
}

void oracle_pass2_centres( const tframe_t *cur, const cuda_me_result_t *pass1, int stride, int mv_range,
                           const int16_t *centre, int16_t *centre2 )
{
    const int mb_w = cur->w / 16, mb_h = cur->h / 16;
    for( int y = 0; y < mb_h; y++ )
        for( int x = 0; x < mb_w; x++ )
        {
            /* neighbours left, top, top-right (top-left in the last column) */
            int nx[3], ny[3], n = 0;
            if( x > 0 ) { nx[n] = x - 1; ny[n++] = y; }
            if( y > 0 ) { nx[n] = x; ny[n++] = y - 1; }
            if( y > 0 && x < mb_w - 1 ) { nx[n] = x + 1; ny[n++] = y - 1; }
            if( y > 0 && x == mb_w - 1 && x > 0 ) { nx[n] = x - 1; ny[n++] = y - 1; }
            int16_t *c2 = centre2 + 2 * (y * mb_w + x);
            for( int k = 0; k < 2; k++ )
            {
                int v[3];
                for( int i = 0; i < n; i++ )
                    v[i] = pass1[(size_t)(ny[i] * mb_w + nx[i]) * stride].mv[k];
                if( n == 3 )
                {
                    /* the middle one of the three, by sorting */
                    for( int i = 0; i < 2; i++ )
                        for( int j = 0; j < 2 - i; j++ )
                            if( v[j] > v[j+1] ) { int t = v[j]; v[j] = v[j+1]; v[j+1] = t; }
                    c2[k] = v[1];
                }
                else if( n )
                    c2[k] = v[0];
                else
                {
                    /* pass 1's centre, clipped */
                    const int16_t *c = centre ? centre + 2 * (y * mb_w + x) : NULL;
                    int lo, hi, cc;
                    axis( k ? y : x, k ? mb_h : mb_w, 4, mv_range, c ? c[k] : 0, &lo, &hi, &cc );
                    c2[k] = cc;
                }
            }
        }
}

void test_mv_cost_qp( uint16_t *cost, int range, int qp )
{
    /* x264's init_costs(), full-pel samples; lambda = x264_lambda_tab[qp] */
    static const uint8_t lambda_tab[52] = {     /* x264's values, QP 0..51 */
        1, 1, 1, 1, 1, 1, 1, 1,  1, 1, 1, 1, 1, 1, 1, 1,  2, 2, 2, 2, 3, 3, 3, 4,
        4, 4, 5, 6, 6, 7, 8, 9,  10, 11, 13, 14, 16, 18, 20, 23,  25, 29, 32, 36, 40, 45, 51, 57,
        64, 72, 81, 91 };
    int lambda = lambda_tab[qp < 0 ? 0 : qp > 51 ? 51 : qp];
    for( int d = -2*range; d <= 2*range; d++ )
    {
        int i = 4 * abs( d );
        float l = i ? log2f( i + 1 ) * 2.0f + 1.718f : 0.718f;
        cost[2*range + d] = (uint16_t)(int)(lambda * l + .5f);
    }
}

void test_cost_mv_qpel( uint16_t *centre, int span, int qp )
{
    /* x264's init_costs(): h->cost_mv[qp][+-i], quarter-pel */
    static const uint8_t lambda_tab[52] = {
        1, 1, 1, 1, 1, 1, 1, 1,  1, 1, 1, 1, 1, 1, 1, 1,  2, 2, 2, 2, 3, 3, 3, 4,
        4, 4, 5, 6, 6, 7, 8, 9,  10, 11, 13, 14, 16, 18, 20, 23,  25, 29, 32, 36, 40, 45, 51, 57,
        64, 72, 81, 91 };
    int lambda = lambda_tab[qp < 0 ? 0 : qp > 51 ? 51 : qp];
    for( int i = 0; i <= span; i++ )
    {
        float l = i ? log2f( i + 1 ) * 2.0f + 1.718f : 0.718f;
        int c = (int)(lambda * l + .5f);
        centre[i] = centre[-i] = (uint16_t)(c > 65535 ? 65535 : c);
    }
}

int16_t *test_centres( int mb_count, int spread, uint32_t *rng )
{
    if( spread < 0 )
        return NULL;
    int16_t *c = malloc( mb_count * 2 * sizeof(int16_t) );
    for( int i = 0; i < 2 * mb_count; i++ )
        c[i] = (int16_t)((int)(test_rand( rng ) % (2*spread + 1)) - spread);
    return c;
}

int results_compare( const char *name, const cuda_me_result_t *want, const cuda_me_result_t *got,
                     int mb_w, int mb_h, int parts, uint32_t seed )
{
    int bad = 0, shown = 0;
    for( int i = 0; i < mb_w * mb_h; i++ )
        if( memcmp( want + i * parts, got + i * parts, parts * sizeof(*want) ) )
            bad++;
    if( !bad )
        return 0;
    printf( "%s: %d of %d macroblocks differ (seed %u)\n", name, bad, mb_w * mb_h, seed );
    if( mb_w <= 128 )
        for( int y = 0; y < mb_h && y < 72; y++ )
        {
            printf( "  " );
            for( int x = 0; x < mb_w; x++ )
                putchar( memcmp( want + (y*mb_w + x) * parts, got + (y*mb_w + x) * parts, parts * sizeof(*want) ) ? 'x' : '.' );
            putchar( '\n' );
        }
    for( int i = 0; i < mb_w * mb_h && shown < 8; i++ )
        for( int p = 0; p < parts && shown < 8; p++ )
        {
            const cuda_me_result_t *a = want + i * parts + p, *b = got + i * parts + p;
            if( memcmp( a, b, sizeof(*a) ) )
            {
                printf( "  mb (%d,%d) part %d: want (%d,%d) cost %u, got (%d,%d) cost %u\n", i % mb_w, i / mb_w, p,
                        a->mv[0], a->mv[1], a->cost, b->mv[0], b->mv[1], b->cost );
                shown++;
            }
        }
    fflush( stdout );
    return bad;
}

int canary_intact( const void *p, size_t n )
{
    const uint8_t *b = p;
    for( size_t i = 0; i < n; i++ )
        if( b[i] != CANARY_BYTE )
            return 0;
    return 1;
}

long results_unwritten( const cuda_me_result_t *r, size_t n )
{
    cuda_me_result_t c;
    memset( &c, CANARY_BYTE, sizeof(c) );
    for( size_t i = 0; i < n; i++ )
        if( r[i].mv[0] == c.mv[0] || r[i].mv[1] == c.mv[1] || r[i].cost == c.cost )
            return (long)i;
    return -1;
}

int guarded_alloc( guarded_t *g, size_t n )
{
    g->n = n;
    g->alloc = malloc( 2*GUARD_BYTES + n * sizeof(cuda_me_result_t) );
    g->r = g->alloc ? (cuda_me_result_t*)(g->alloc + GUARD_BYTES) : NULL;
    if( !g->alloc )
        return -1;
    guarded_reset( g );
    return 0;
}

void guarded_reset( guarded_t *g )
{
    memset( g->alloc, CANARY_BYTE, 2*GUARD_BYTES + g->n * sizeof(cuda_me_result_t) );
}

const char *guarded_check( const guarded_t *g )
{
    static char msg[160];
    const uint8_t *before = g->alloc, *after = (const uint8_t*)(g->r + g->n);
    for( int i = GUARD_BYTES - 1; i >= 0; i-- )
        if( before[i] != CANARY_BYTE )
        {
            snprintf( msg, sizeof(msg), "write before the %zu results: byte %d (of the guard's %d) is 0x%02x",
                      g->n, i - GUARD_BYTES, GUARD_BYTES, before[i] );
            return msg;
        }
    for( int i = 0; i < GUARD_BYTES; i++ )
        if( after[i] != CANARY_BYTE )
        {
            snprintf( msg, sizeof(msg), "write past the %zu results: byte %d after them (of the guard's %d) is 0x%02x",
                      g->n, i, GUARD_BYTES, after[i] );
            return msg;
        }
    long u = results_unwritten( g->r, g->n );
    if( u >= 0 )
    {
        snprintf( msg, sizeof(msg), "result %ld of %zu never written (still the canary 0x%02x)", u, g->n, CANARY_BYTE );
        return msg;
    }
    return NULL;
}

void guarded_free( guarded_t *g )
{
    free( g->alloc );
    memset( g, 0, sizeof(*g) );
}

int test_require_gpu( void )
{
    const char *req = getenv( "CUDA_ME_REQUIRE_GPU" );
    return req && atoi( req );
}

int test_have_gpu( const char *name )
{
    if( cme_cuda_device_count() > 0 )
        return 1;
    const char *why = cuda_me_have_cuda() ? "none found" : "CUDA backend not built";
    const char *req = getenv( "CUDA_ME_REQUIRE_GPU" );
    if( req && atoi( req ) )
    {
        printf( "*** FAIL %s: CUDA_ME_REQUIRE_GPU=%s but no usable CUDA device (%s) ***\n", name, req, why );
        fflush( stdout );
        return -1;
    }
    printf( "*** SKIP %s: no usable CUDA device (%s); this test did not run ***\n", name, why );
    fflush( stdout );
    return 0;
}
