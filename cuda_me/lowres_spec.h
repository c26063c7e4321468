/*****************************************************************************
 * lowres_spec.h: the lookahead's lowres motion search, the specification
 *                (issue 12)
 *****************************************************************************
 * What x264 (baee400) computes for one frame pair in its lookahead
 * (encoder/slicetype.c: slicetype_frame_cost -> slicetype_slice_cost ->
 * slicetype_mb_cost with do_search[l], encoder/me.c: x264_me_search_ref),
 * written so that C (lowres_c.c) and CUDA compute it bit for bit: for every
 * 8x8 block of the half-resolution frame, in x264's reverse raster order
 * within each lookahead slice, the vector (quarter-pel, lowres pixels) and
 * its cost that x264 stores in fenc->lowres_mvs[l][d-1] and
 * fenc->lowres_mv_costs[l][d-1].
 *
 *   predictor  the component-wise median of the searched neighbours right,
 *              below, below-left and below-right (x264's reverse-order
 *              prediction; one neighbour: itself; none: zero)
 *   fast skip  a zero predictor whose SATD at (0,0) is below 64: vector 0,
 *              cost that SATD
 *   search     x264_me_search_ref at the lookahead's settings: the
 *              predictor and the neighbours' vectors tried at their
 *              quarter-pel positions (SAD + MV cost), the best rounded to
 *              full-pel, the zero vector, x264's hexagon (range / 2
 *              steps) and square refinement on SAD, then refine_subpel at
 *              subme 4 (subpel_spec.h: one half-pel step on SAD, SATD
 *              re-score, one quarter-pel step on SATD)
 *   cost       less p_cost_mv[0], plus 5 * lambda for a non-zero vector
 *
 * Reproduced: 8-bit luma, --me hex/umh/esa/tesa (the lookahead searches
 * with hex, subme 4 whenever --subme > 1), unweighted references (list 0
 * of a pair x264 weights is x264's), any number of lookahead threads
 * (slices), with and without the edge blocks (x264 skips the outer ring
 * without MB-tree and VBV: those entries then keep what the array held,
 * and are read as neighbours as x264 reads them).
 * Left out (x264 searches itself): --me dia or --subme <= 1 (the lookahead
 * then uses diamond search and subme 2), weighted list-0 references,
 * interlaced coding, high bit depth.
 *****************************************************************************/

#ifndef CUDA_ME_LOWRES_SPEC_H
#define CUDA_ME_LOWRES_SPEC_H

#include "subpel_spec.h"

/* Border of x264's lowres planes (PADH, PADV at lowres: x264 pads every
 * lowres plane by 32 pixels, frame.c x264_frame_expand_border_lowres).  The
 * search reads at most 12 + 3 + 1 full-pel pixels outside the frame (the
 * limits, hexagon and square overshoot, sub-pel), so 24 suffice. */
#define CME_LOWRES_PAD 32

typedef struct cme_lowres_param_t
{
    int i_mb_width;         /* 8x8 blocks per row of the lowres frame (x264's h->mb.i_mb_width) */
    int i_mb_height;        /* rows (h->mb.i_mb_height) */
    int i_me_range;         /* the lookahead's range: h->mb.i_me_range_la, else --merange */
    int i_mv_range;         /* param.analyse.i_mv_range */
    int i_lambda;           /* the lookahead's lambda (a->i_lambda) */
    int i_slices;           /* param.i_lookahead_threads */
    int b_edges;            /* x264's do_edges: MB-tree or VBV (or a frame of <= 2 block rows or columns) */
    /* a->p_cost_mv: the cost of a vector component d quarter-pels from the
     * predictor at p_cost_mv[d], both signs (d within +-4 * 2*i_mv_range) */
    const uint16_t *p_cost_mv;
} cme_lowres_param_t;

/* Rows of slice s: [start, end) (x264: i_threadslice_start/end). */
CME_SPEC int cme_lowres_slice_start( const cme_lowres_param_t *p, int s )
{
    return (p->i_mb_height * s + p->i_slices / 2) / p->i_slices;
}

/* The block rows and columns a slice searches, top to bottom bounds
 * (inclusive; x264 visits them from y1 down to y0, x1 down to x0). */
typedef struct cme_lowres_span_t { int x0, x1, y0, y1, y_end; } cme_lowres_span_t;

CME_SPEC cme_lowres_span_t cme_lowres_span( const cme_lowres_param_t *p, int s )
{
    const int e = p->b_edges;
    const int start = cme_lowres_slice_start( p, s ), end = cme_lowres_slice_start( p, s + 1 );
    cme_lowres_span_t r;
    r.y1 = end - 1 < p->i_mb_height - 2 + e ? end - 1 : p->i_mb_height - 2 + e;
    r.y0 = start > 1 - e ? start : 1 - e;
    r.x1 = p->i_mb_width - 2 + e;
    r.x0 = 1 - e;
    r.y_end = end;
    return r;
}

CME_SPEC int cme_lowres_median( int a, int b, int c )
{
    const int lo = a < b ? a : b, hi = a < b ? b : a;
    return c < lo ? lo : c > hi ? hi : c;
}

/* SAD (b_satd 0) or SATD of the 8x8 block of fenc against the reference at
 * quarter-pel vector (mx, my), without MV cost.  On the GPU a whole warp
 * computes it, every lane getting the sum: lane x + 8*y holds the pixels
 * (x, y) and (x, y+4), the 4x4 Hadamards are butterflies across lane bits
 * 0, 1 (x) and 3, 4 (y), and since every 4x4's sum of absolute
 * coefficients is even (subpel_spec.h), halving the total is halving each.
 * So cme_lowres_block on the GPU is a warp's: every lane runs it, with the
 * same values, in step. */
CME_SPEC int cme_lowres_cmp( const uint8_t *fenc, intptr_t i_fenc_stride, const uint8_t *const plane[4],
                             intptr_t stride, int b_satd, int mx, int my )
{
#ifdef __CUDA_ARCH__
    const int lane = threadIdx.x & 31, x = lane & 7, y = lane >> 3;
    int d0 = fenc[y * i_fenc_stride + x] - cme_qpel_sample( plane, stride, mx, my, x, y );
    int d1 = fenc[(y + 4) * i_fenc_stride + x] - cme_qpel_sample( plane, stride, mx, my, x, y + 4 );
    if( b_satd )
        for( int m = 1; m <= 16; m <<= 1 )
        {
            if( m == 4 )
                continue;
            const int o0 = __shfl_xor_sync( 0xffffffffu, d0, m ), o1 = __shfl_xor_sync( 0xffffffffu, d1, m );
            d0 = (lane & m) ? o0 - d0 : d0 + o0;
            d1 = (lane & m) ? o1 - d1 : d1 + o1;
        }
    int s = (d0 < 0 ? -d0 : d0) + (d1 < 0 ? -d1 : d1);
    for( int m = 16; m; m >>= 1 )
        s += __shfl_xor_sync( 0xffffffffu, s, m );
    return b_satd ? s >> 1 : s;
#else
    return cme_subpel_cmp( fenc, i_fenc_stride, plane, stride, CME_PIXEL_8x8, b_satd, mx, my );
#endif
}

/* Block (x, y) of a slice whose rows end at y_end: its vector and cost.
 * fenc: the lowres plane of the frame searched at pixel (0,0); ref[0..3]:
 * the reference's lowres planes F, H, V, C at pixel (0,0), one stride, a
 * border of CME_LOWRES_PAD; mvs: the pair's vector array (i_mb_width per
 * row), holding the neighbours already searched. */
CME_SPEC void cme_lowres_block( const cme_lowres_param_t *p, const uint8_t *fenc, intptr_t i_fenc_stride,
                                const uint8_t *const ref[4], intptr_t stride, const int16_t (*mvs)[2],
                                int x, int y, int y_end, int16_t mv_out[2], int *cost_out )
{
    const int w = p->i_mb_width, hgt = p->i_mb_height;
    const uint8_t *f = fenc + 8 * ((intptr_t)y * i_fenc_stride + x);
    const intptr_t o = 8 * ((intptr_t)y * stride + x);
    const uint8_t *const pl[4] = { ref[0] + o, ref[1] + o, ref[2] + o, ref[3] + o };
    const uint16_t *cost = p->p_cost_mv;

    /* limits (slicetype_mb_cost): quarter-pel, and full-pel (>> 2) */
    const int mv_range = 2 * p->i_mv_range;
    int lo = 4 * (-8 * x - 12), hi = 4 * (8 * (w - x - 1) + 12);
    const int min_x = lo > -mv_range ? lo : -mv_range, max_x = hi < mv_range - 1 ? hi : mv_range - 1;
    lo = 4 * (-8 * y - 12); hi = 4 * (8 * (hgt - y - 1) + 12);
    const int min_y = lo > -mv_range ? lo : -mv_range, max_y = hi < mv_range - 1 ? hi : mv_range - 1;
    const int fmin_x = min_x >> 2, fmax_x = max_x >> 2, fmin_y = min_y >> 2, fmax_y = max_y >> 2;

    /* the neighbours' vectors, reverse-order prediction */
    int mvc[4][2] = { { 0, 0 }, { 0, 0 }, { 0, 0 }, { 0, 0 } };
    int n = 0;
#define CME_MVC( dx, dy ) { mvc[n][0] = mvs[(y + (dy)) * w + x + (dx)][0]; mvc[n][1] = mvs[(y + (dy)) * w + x + (dx)][1]; n++; }
    if( x < w - 1 )
        CME_MVC( 1, 0 );
    if( y < y_end - 1 )
    {
        CME_MVC( 0, 1 );
        if( x > 0 )
            CME_MVC( -1, 1 );
        if( x < w - 1 )
            CME_MVC( 1, 1 );
    }
#undef CME_MVC
    int mvp[2];
    if( n <= 1 )
    {
        mvp[0] = mvc[0][0];
        mvp[1] = mvc[0][1];
    }
    else
    {
        mvp[0] = cme_lowres_median( mvc[0][0], mvc[1][0], mvc[2][0] );
        mvp[1] = cme_lowres_median( mvc[0][1], mvc[1][1], mvc[2][1] );
    }

    /* fast skip of near-zero residual */
    if( !mvp[0] && !mvp[1] )
    {
        const int c = cme_lowres_cmp( f, i_fenc_stride, pl, stride, 1, 0, 0 );
        if( c < 64 )
        {
            mv_out[0] = mv_out[1] = 0;
            *cost_out = c;
            return;
        }
    }

#define CME_HPEL_COST( mx, my ) \
    (cme_lowres_cmp( f, i_fenc_stride, pl, stride, 0, mx, my ) + cost[(mx) - mvp[0]] + cost[(my) - mvp[1]])
#define CME_FPEL_COST( mx, my ) \
    (cme_lowres_cmp( f, i_fenc_stride, pl, stride, 0, 4 * (mx), 4 * (my) ) + cost[4 * (mx) - mvp[0]] + cost[4 * (my) - mvp[1]])

    /* the predictor, then the candidates, at quarter-pel */
    int bpx = cme_sp_clip( mvp[0], 4 * fmin_x, 4 * fmax_x );
    int bpy = cme_sp_clip( mvp[1], 4 * fmin_y, 4 * fmax_y );
    const int pmvx = bpx, pmvy = bpy;
    int bpred_cost = CME_HPEL_COST( bpx, bpy );
    const int pmv_cost = bpred_cost;
    for( int i = 0; i < n; i++ )
    {
        if( (!mvc[i][0] && !mvc[i][1]) || (mvc[i][0] == pmvx && mvc[i][1] == pmvy) )
            continue;
        const int mx = cme_sp_clip( mvc[i][0], 4 * fmin_x, 4 * fmax_x );
        const int my = cme_sp_clip( mvc[i][1], 4 * fmin_y, 4 * fmax_y );
        const int c = CME_HPEL_COST( mx, my );
        if( c < bpred_cost )
        {
            bpred_cost = c;
            bpx = mx;
            bpy = my;
        }
    }

    /* full-pel start, the zero vector */
    int bmx = (bpx + 2) >> 2, bmy = (bpy + 2) >> 2, bcost;
    if( (bpx | bpy) & 3 )
        bcost = CME_FPEL_COST( bmx, bmy );
    else
        bcost = bpred_cost;
    if( pmvx || pmvy )
    {
        if( bmx | bmy )
        {
            const int c = CME_FPEL_COST( 0, 0 );
            if( c < bcost )
            {
                bcost = c;
                bmx = bmy = 0;
            }
        }
    }
    else if( pmv_cost < bcost )
    {
        bcost = pmv_cost;
        bmx = bmy = 0;
    }

    /* hexagon: the six points, then half hexagons in the direction taken
     * (x264's hex2[] and its (dir-1) % 6 walk), while the centre stays
     * within the full-pel limits */
    {
        const int hx[8] = { -1, -2, -1, 1, 2, 1, -1, -2 }, hy[8] = { -2, 0, 2, 2, 0, -2, -2, 0 };
        int best = 0;
        for( int k = 0; k < 6; k++ )
        {
            const int c = CME_FPEL_COST( bmx + hx[k+1], bmy + hy[k+1] );
            if( c < bcost )
            {
                bcost = c;
                best = k + 1;
            }
        }
        if( best )
        {
            int dir = best - 1;
            bmx += hx[dir+1];
            bmy += hy[dir+1];
            for( int i = (p->i_me_range >> 1) - 1;
                 i > 0 && bmx >= fmin_x && bmx <= fmax_x && bmy >= fmin_y && bmy <= fmax_y; i-- )
            {
                int r = 0;
                for( int k = 0; k < 3; k++ )
                {
                    const int c = CME_FPEL_COST( bmx + hx[dir+k], bmy + hy[dir+k] );
                    if( c < bcost )
                    {
                        bcost = c;
                        r = k + 1;
                    }
                }
                if( !r )
                    break;
                dir = (dir + r - 2 + 6) % 6;
                bmx += hx[dir+1];
                bmy += hy[dir+1];
            }
        }
    }
    /* square refinement */
    {
        const int sx[8] = { 0, 0, -1, 1, -1, -1, 1, 1 }, sy[8] = { -1, 1, 0, 0, -1, 1, -1, 1 };
        int best = -1;
        for( int k = 0; k < 8; k++ )
        {
            const int c = CME_FPEL_COST( bmx + sx[k], bmy + sy[k] );
            if( c < bcost )
            {
                bcost = c;
                best = k;
            }
        }
        if( best >= 0 )
        {
            bmx += sx[best];
            bmy += sy[best];
        }
    }
#undef CME_HPEL_COST
#undef CME_FPEL_COST

    /* the better of the sub-pel predictor and the full-pel search, refined */
    int mx, my, c;
    if( bpred_cost < bcost )
    {
        mx = bpx;
        my = bpy;
        c = bpred_cost;
    }
    else
    {
        mx = 4 * bmx;
        my = 4 * bmy;
        c = bcost;
    }
    cme_subpel_param_t sp;
    sp.i_pixel = CME_PIXEL_8x8;
    sp.i_subme = 4;
    sp.b_fpel_satd = 0;
    sp.mv_min[0] = min_x;
    sp.mv_min[1] = min_y;
    sp.mv_max[0] = max_x;
    sp.mv_max[1] = max_y;
    sp.mvp[0] = mvp[0];
    sp.mvp[1] = mvp[1];
    sp.p_cost_mv = cost;
    cme_subpel_result_t r;
    cme_refine_subpel( f, i_fenc_stride, pl, stride, &sp, mx, my, c, &r );

    c = r.cost - cost[0];
    if( r.mv[0] || r.mv[1] )
        c += 5 * p->i_lambda;
    mv_out[0] = r.mv[0];
    mv_out[1] = r.mv[1];
    *cost_out = c;
}

#endif
