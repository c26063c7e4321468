/*****************************************************************************
 * me_spec.h: the integer search both backends compute, bit for bit
 *****************************************************************************
 * Included by the C reference (me_c.c), the CUDA kernels (me_cuda.cu), the
 * host code and the tests, so that the window, the partition merge and the
 * tie rule have exactly one definition.
 *****************************************************************************/

#ifndef CUDA_ME_ME_SPEC_H
#define CUDA_ME_ME_SPEC_H

#include <stdint.h>

#ifdef __CUDACC__
#define CME_SPEC static __host__ __device__ __forceinline__
#else
#define CME_SPEC static inline
#endif

/* Replicated border kept around every stored frame, in pixels.  The window
 * below never lets a block reach more than 18 pixels outside the frame
 * (x264's 24 pixel MV limit minus its 6 pixel fpel border).  The GPU's
 * window loads (me_cuda.cu) read aligned runs of 5 words: up to 3 pixels
 * more on the left and 19 more on the right, 37 at most; those past the
 * border are the next row's left border (never used, and inside the
 * plane: the lowest row read is 18 below the frame, in its 32-row border).
 * 32 keeps rows aligned. */
#define CME_PAD 32

typedef struct cme_window_t
{
    int x_min, x_max, y_min, y_max;   /* full-pel, inclusive */
    int cx, cy;                       /* the centre, inside the window */
} cme_window_t;

CME_SPEC int cme_imin( int a, int b ) { return a < b ? a : b; }
CME_SPEC int cme_imax( int a, int b ) { return a > b ? a : b; }
CME_SPEC int cme_iclip( int v, int lo, int hi ) { return v < lo ? lo : v > hi ? hi : v; }

/* The search window of macroblock (mb_x, mb_y).  x264's static limits
 * (mb_analyse_init in encoder/analyse.c: frame edges + 24 pixels,
 * +- i_mv_range, minus i_fpel_border = 6) always contain (0,0) and reach at
 * least 18 pixels each way.  With frame threads x264 also limits vertical
 * vectors to mv_range_thread (its param.analyse.i_mv_range_thread after
 * validation, >= 8): mv_max_spel[1] = MIN3( mv_max[1], 4*i_mv_range-1,
 * 4*i_mv_range_thread ), so the lowest full-pel row is at most
 * mv_range_thread - 6 (>= 2); mv_range_thread <= 0: no such limit.  In
 * deterministic mode that is x264's limit exactly, otherwise its live limit
 * is at least that, so the window is always legal.  The centre (cx, cy) is
 * clipped into the limits; the window is centre +- range, moved (not cut)
 * to fit inside them, so it is always min(2*range+1, limits) wide and high,
 * at least 9.  x264's intra-refresh limits are not static: the x264 glue
 * does not use a vector outside x264's live limits (x264 searches that
 * partition itself). */
CME_SPEC cme_window_t cme_get_window( int mb_x, int mb_y, int mb_w, int mb_h, int range, int mv_range,
                                      int mv_range_thread, int cx, int cy )
{
    const int lx0 = cme_imax( -16*mb_x - 24, -mv_range ) + 6;
    const int lx1 = cme_imin( 16*(mb_w - mb_x - 1) + 24, mv_range - 1 ) - 6;
    const int ly0 = cme_imax( -16*mb_y - 24, -mv_range ) + 6;
    int ly1 = cme_imin( 16*(mb_h - mb_y - 1) + 24, mv_range - 1 ) - 6;
    if( mv_range_thread > 0 )
        ly1 = cme_imin( ly1, mv_range_thread - 6 );
    cme_window_t w;
    w.cx = cme_iclip( cx, lx0, lx1 );
    w.cy = cme_iclip( cy, ly0, ly1 );
    w.x_min = cme_iclip( w.cx - range, lx0, cme_imax( lx0, lx1 - 2*range ) );
    w.x_max = cme_imin( w.x_min + 2*range, lx1 );
    w.y_min = cme_iclip( w.cy - range, ly0, cme_imax( ly0, ly1 - 2*range ) );
    w.y_max = cme_imin( w.y_min + 2*range, ly1 );
    return w;
}

/* The MV cost of position (dx, dy) of window w: each component's distance
 * to the centre (at most 2*range), looked up in a table of 4*range+1
 * entries. */
CME_SPEC uint32_t cme_mv_cost( const uint16_t *mv_cost, int range, const cme_window_t *w, int dx, int dy )
{
    return mv_cost ? (uint32_t)mv_cost[2*range + dx - w->cx] + mv_cost[2*range + dy - w->cy] : 0;
}

/* The second pass (cuda_me_param_t.i_cands = 2).  For macroblock (mb_x,
 * mb_y) its window is centred on the component-wise median of pass 1's
 * 16x16 winners (full-pel, relative to their macroblocks) of its neighbours
 * A = left (x-1, y), B = top (x, y-1), C = top-right (x+1, y-1), where C is
 * replaced by the top-left (x-1, y-1) in the last column (H.264's rule).
 * With fewer than 3 of them in the frame: the first of A, B, C that is
 * (left in the top row, top in the left column and in a one-column frame);
 * none (macroblock (0,0)): pass 1's own centre, clipped (cme_window_t cx,
 * cy).  That centre is clipped as any centre (cme_get_window) and searched
 * +- cme_pass2_range( range ): CME_PASS2_RANGE from range 32 on, half the
 * range below (at least 8, and at most the range), so that the second pass
 * costs a fraction of the first at every range (+-16: a +-8 pass, about
 * 1.5x the one-pass kernel time instead of 2x on an H200, the small pass
 * being mostly per-block set-up; x264's glue asks for two candidates only
 * from range 28); the same limits (the job's frame-thread limit too)
 * and tie rule.  Its MV cost: the same table
 * (4*range+1 entries), centred on the pass-2 centre: for the smaller range
 * r2 that is the sub-table mv_cost + 2*(range - r2), 4*r2+1 entries
 * (cme_pass2_cost). */
#define CME_PASS2_RANGE 16

CME_SPEC int cme_pass2_range( int range )
{
    return cme_imin( CME_PASS2_RANGE, cme_imax( range / 2, cme_imin( range, 8 ) ) );
}

CME_SPEC const uint16_t *cme_pass2_cost( const uint16_t *mv_cost, int range )
{
    return mv_cost ? mv_cost + 2*(range - cme_pass2_range( range )) : 0;
}

CME_SPEC int cme_median3( int a, int b, int c )
{
    return cme_imax( cme_imin( a, b ), cme_imin( cme_imax( a, b ), c ) );
}

/* The neighbours of macroblock (mb_x, mb_y) that the pass-2 centre comes
 * from, as macroblock indices (mb_y * mb_w + mb_x) in the order A, B, C;
 * returns how many (0..3). */
CME_SPEC int cme_pass2_neighbours( int mb_x, int mb_y, int mb_w, int nb[3] )
{
    int n = 0;
    if( mb_x > 0 )
        nb[n++] = mb_y * mb_w + mb_x - 1;
    if( mb_y > 0 )
    {
        nb[n++] = (mb_y - 1) * mb_w + mb_x;
        if( mb_x < mb_w - 1 )
            nb[n++] = (mb_y - 1) * mb_w + mb_x + 1;
        else if( mb_x > 0 )
            nb[n++] = (mb_y - 1) * mb_w + mb_x - 1;
    }
    return n;
}

/* The pass-2 centre from the n neighbours' 16x16 vectors v (A, B, C order,
 * from cme_pass2_neighbours) and pass 1's clipped centre (cx, cy). */
CME_SPEC void cme_pass2_centre( int n, const int v[3][2], int cx, int cy, int c[2] )
{
    for( int k = 0; k < 2; k++ )
        c[k] = n == 3 ? cme_median3( v[0][k], v[1][k], v[2][k] ) : n ? v[0][k] : k ? cy : cx;
}

/* Merge the 16 4x4 SADs of one position (x264 order, idx = 4*i8x8 + i4x4)
 * into the costs of all partitions, each plus the same MV cost.  Range: a
 * 16x16 SAD is at most 65280 and mv_cost at most 2*65535, so a cost fits in
 * 18 bits. */
CME_SPEC void cme_merge( const uint32_t s[16], uint32_t mvc, uint32_t cost[41] )
{
    uint32_t s8[4];
    for( int q = 0; q < 4; q++ )
    {
        const uint32_t *b = s + 4*q;
        s8[q] = b[0] + b[1] + b[2] + b[3];
        cost[ 9 + 2*q + 0] = b[0] + b[1] + mvc;   /* 8x4 top */
        cost[ 9 + 2*q + 1] = b[2] + b[3] + mvc;   /* 8x4 bottom */
        cost[17 + 2*q + 0] = b[0] + b[2] + mvc;   /* 4x8 left */
        cost[17 + 2*q + 1] = b[1] + b[3] + mvc;   /* 4x8 right */
        for( int i = 0; i < 4; i++ )
            cost[25 + 4*q + i] = b[i] + mvc;
        cost[5 + q] = s8[q] + mvc;
    }
    cost[1] = s8[0] + s8[1] + mvc;                /* 16x8 top */
    cost[2] = s8[2] + s8[3] + mvc;                /* 16x8 bottom */
    cost[3] = s8[0] + s8[2] + mvc;                /* 8x16 left */
    cost[4] = s8[1] + s8[3] + mvc;                /* 8x16 right */
    cost[0] = s8[0] + s8[1] + s8[2] + s8[3] + mvc;
}

/* Position of 4x4 block idx (x264 order) inside the macroblock, in pixels. */
CME_SPEC int cme_blk4_x( int idx ) { return 8*((idx>>2)&1) + 4*(idx&1); }
CME_SPEC int cme_blk4_y( int idx ) { return 8*(idx>>3) + 4*((idx>>1)&1); }

/* Reduction key: cost above, raster index inside the window below.  The
 * smallest key is the smallest cost, and among equal costs the first position
 * in raster order, whatever order the keys are combined in. */
CME_SPEC uint64_t cme_key( uint32_t cost, uint32_t raster )
{
    return ((uint64_t)cost << 32) | raster;
}

#define CME_KEY_NONE (~(uint64_t)0)

#endif
