/*****************************************************************************
 * lowres_spec.h: the lookahead's lowres motion search, the specification
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
 *
 * The refinement is written out here at subme 4 (the decisions of
 * cme_refine_subpel at subme 4), and the costs are asked for in batches of
 * independent vectors
 * (cme_lowres_costs), so that a warp computes a batch at once; where one
 * more cost saves a round trip (a candidate's full-pel rounding, the
 * half-pel centre's SATD) it is computed and used only where x264 uses
 * it.  Tested: CUDA == C (tests/checkasm_me.c, test_lowres), C == x264
 * (tests/e2e.sh, --gpu-me-lookahead 1 and 0 encode the same bytes).
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

/* The 8x8 block being searched: its pixels and the reference's planes at
 * its full-pel position.  On the GPU a warp searches one block, and each
 * lane keeps its four pixels of fenc (see cme_lowres_costs). */
typedef struct cme_lowres_blk_t
{
    const uint8_t *f;
    intptr_t i_fenc_stride;
    const uint8_t *pl[4];
    intptr_t stride;
#ifdef __CUDA_ARCH__
    int fe[4];
#endif
} cme_lowres_blk_t;

/* out[k] = SAD, or SATD where bit k of satd_mask is set, of the block
 * against the reference at quarter-pel vector (mx[k], my[k]), without MV
 * cost, k < n.  The search asks for independent costs together (a batch),
 * so that the GPU computes them at once: n is a constant where it is
 * called, and the arrays stay in registers.  On the GPU the warp evaluates
 * two vectors at a time, one per half warp: lane x + 8*r (r = 0, 1) of a
 * half holds the differences at (x, r + 2*j), j = 0..3; the 4x4 Hadamards
 * are butterflies across lane bits 0, 1 (x), bit 3 (y bit 0) and between
 * registers j, j^1 (y bit 1), and as every 4x4's sum of absolute
 * coefficients is even (subpel_spec.h), halving the total is halving each.
 * Every lane gets every result. */
CME_SPEC void cme_lowres_costs( const cme_lowres_blk_t *b, int n, const int *mx, const int *my, int satd_mask,
                                int *out )
{
#ifdef __CUDA_ARCH__
    const unsigned all = 0xffffffffu;
    const int lane = threadIdx.x & 31, half = lane >> 4, x = lane & 7, r = (lane >> 3) & 1;
#pragma unroll
    for( int k = 0; k < n; k += 2 )
    {
        const int k1 = k + 1 < n ? k + 1 : k;
        const int vx = half ? mx[k1] : mx[k], vy = half ? my[k1] : my[k];
        int d[4];
#pragma unroll
        for( int j = 0; j < 4; j++ )
            d[j] = b->fe[j] - cme_qpel_sample( b->pl, b->stride, vx, vy, x, r + 2 * j );
        int s = 0, b_satd = 0;
        if( (satd_mask >> k) & 3 )
        {
            int t[4] = { d[0] + d[1], d[0] - d[1], d[2] + d[3], d[2] - d[3] };
#pragma unroll
            for( int m = 1; m <= 8; m <<= 1 )
            {
                if( m == 4 )
                    continue;
#pragma unroll
                for( int j = 0; j < 4; j++ )
                {
                    const int o = __shfl_xor_sync( all, t[j], m );
                    t[j] = (lane & m) ? o - t[j] : t[j] + o;
                }
            }
            b_satd = half ? (satd_mask >> k1) & 1 : (satd_mask >> k) & 1;
#pragma unroll
            for( int j = 0; j < 4; j++ )
                s += b_satd ? (t[j] < 0 ? -t[j] : t[j]) : (d[j] < 0 ? -d[j] : d[j]);
        }
        else
#pragma unroll
            for( int j = 0; j < 4; j++ )
                s += d[j] < 0 ? -d[j] : d[j];
#pragma unroll
        for( int m = 8; m; m >>= 1 )
            s += __shfl_xor_sync( all, s, m );
        s >>= b_satd;
        out[k] = __shfl_sync( all, s, 0 );
        if( k + 1 < n )
            out[k+1] = __shfl_sync( all, s, 16 );
    }
#else
    for( int k = 0; k < n; k++ )
        out[k] = cme_subpel_cmp( b->f, b->i_fenc_stride, b->pl, b->stride, CME_PIXEL_8x8, (satd_mask >> k) & 1,
                                 mx[k], my[k] );
#endif
}

/* x264's neighbours of block (x, y) (reverse-order prediction: right,
 * below, below-left, below-right, those inside the frame and the slice
 * whose rows end at y_end) from the pair's vector array mvs: returns n,
 * the first n entries of mvc (the rest zero).  On the GPU mvs is read past
 * the L1 cache (other warps write it). */
CME_SPEC int cme_lowres_neighbours( const cme_lowres_param_t *p, const int16_t (*mvs)[2], int x, int y, int y_end,
                                    int mvc[4][2] )
{
    const int w = p->i_mb_width;
    /* right, below, below-left, below-right; the n present ones first, in
     * that order (no indexing by n: a GPU keeps mvc in registers) */
    const int ok[4] = { x < w - 1, y < y_end - 1, y < y_end - 1 && x > 0, y < y_end - 1 && x < w - 1 };
    const int dx[4] = { 1, 0, -1, 1 }, dy[4] = { 0, 1, 1, 1 };
    int n = 0;
    for( int j = 0; j < 4; j++ )
        mvc[j][0] = mvc[j][1] = 0;
    for( int i = 0; i < 4; i++ )
    {
        int v0 = 0, v1 = 0;
        if( ok[i] )
        {
            const int16_t *m = mvs[(y + dy[i]) * w + x + dx[i]];
#ifdef __CUDA_ARCH__
            const int v = __ldcg( (const int *)m );   /* other warps write mvs */
            v0 = (int16_t)(v & 0xffff);
            v1 = v >> 16;
#else
            v0 = m[0];
            v1 = m[1];
#endif
        }
        for( int j = 0; j < 4; j++ )
            if( ok[i] && n == j )
            {
                mvc[j][0] = v0;
                mvc[j][1] = v1;
            }
        n += ok[i];
    }
    return n;
}

/* x264's COPY_IF_LT over n costed vectors (px, py; costs pc without the
 * MV cost) in their order, those of mask only: the last one whose cost
 * plus MV cost (table cost around mvp) is below *c, which it lowers, as its
 * index + 1, and into (*bx, *by) unless bx is NULL; 0 if none is.  (The
 * winner is selected, not indexed: on a GPU the arrays stay in registers.) */
CME_SPEC int cme_lowres_better( const uint16_t *cost, const int mvp[2], int n, const int *px, const int *py,
                                const int *pc, unsigned mask, int *c, int *bx, int *by )
{
    int r = 0;
    for( int k = 0; k < n; k++ )
    {
        const int ck = pc[k] + cost[px[k] - mvp[0]] + cost[py[k] - mvp[1]];
        if( ((mask >> k) & 1) && ck < *c )
        {
            *c = ck;
            r = k + 1;
            if( bx )
            {
                *bx = px[k];
                *by = py[k];
            }
        }
    }
    return r;
}

/* Block (x, y) of a slice: its vector and cost, from its n neighbours'
 * vectors mvc (cme_lowres_neighbours).  fenc: the lowres plane of the
 * frame searched at pixel (0,0); ref[0..3]: the reference's lowres planes
 * F, H, V, C at pixel (0,0), one stride, a border of CME_LOWRES_PAD.
 * The costs are asked for in batches (cme_lowres_costs), a few more than
 * x264 computes where that saves a round trip on the GPU (a candidate's
 * full-pel rounding, SATD at the half-pel centre); x264's decisions are
 * made from them in x264's order. */
CME_SPEC void cme_lowres_block( const cme_lowres_param_t *p, const uint8_t *fenc, intptr_t i_fenc_stride,
                                const uint8_t *const ref[4], intptr_t stride, const int mvc[4][2], int n,
                                int x, int y, int16_t mv_out[2], int *cost_out )
{
    const int w = p->i_mb_width, hgt = p->i_mb_height;
    const intptr_t o = 8 * ((intptr_t)y * stride + x);
    cme_lowres_blk_t b;
    b.f = fenc + 8 * ((intptr_t)y * i_fenc_stride + x);
    b.i_fenc_stride = i_fenc_stride;
    for( int i = 0; i < 4; i++ )
        b.pl[i] = ref[i] + o;
    b.stride = stride;
#ifdef __CUDA_ARCH__
    {
        const int lane = threadIdx.x & 31, r = (lane >> 3) & 1;
        for( int j = 0; j < 4; j++ )
            b.fe[j] = b.f[(r + 2 * j) * i_fenc_stride + (lane & 7)];
    }
#endif
    const uint16_t *cost = p->p_cost_mv;

    /* limits (slicetype_mb_cost): quarter-pel, and full-pel (>> 2) */
    const int mv_range = 2 * p->i_mv_range;
    int lo = 4 * (-8 * x - 12), hi = 4 * (8 * (w - x - 1) + 12);
    const int min_x = lo > -mv_range ? lo : -mv_range, max_x = hi < mv_range - 1 ? hi : mv_range - 1;
    lo = 4 * (-8 * y - 12); hi = 4 * (8 * (hgt - y - 1) + 12);
    const int min_y = lo > -mv_range ? lo : -mv_range, max_y = hi < mv_range - 1 ? hi : mv_range - 1;
    const int fmin_x = min_x >> 2, fmax_x = max_x >> 2, fmin_y = min_y >> 2, fmax_y = max_y >> 2;

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
#define CME_MVCOST( mx, my ) (cost[(mx) - mvp[0]] + cost[(my) - mvp[1]])

    /* the predictor (clipped to the full-pel limits) and the neighbours,
     * at quarter-pel; a neighbour that is zero or the clipped predictor is
     * not a candidate (its slot repeats the predictor) */
    const int pmvx = cme_sp_clip( mvp[0], 4 * fmin_x, 4 * fmax_x );
    const int pmvy = cme_sp_clip( mvp[1], 4 * fmin_y, 4 * fmax_y );
    int qx[5], qy[5], qc[5], cand = 0;
    qx[0] = pmvx;
    qy[0] = pmvy;
    for( int i = 0; i < 4; i++ )
    {
        const int ok = i < n && (mvc[i][0] || mvc[i][1]) && (mvc[i][0] != pmvx || mvc[i][1] != pmvy);
        qx[1+i] = ok ? cme_sp_clip( mvc[i][0], 4 * fmin_x, 4 * fmax_x ) : pmvx;
        qy[1+i] = ok ? cme_sp_clip( mvc[i][1], 4 * fmin_y, 4 * fmax_y ) : pmvy;
        cand |= ok << i;
    }
    if( !mvp[0] && !mvp[1] )
    {
        /* fast skip of near-zero residual: SATD at (0,0), with the
         * predictor's SAD (also at (0,0)) */
        int zx[2] = { 0, 0 }, zy[2] = { 0, 0 }, zc[2];
        cme_lowres_costs( &b, 2, zx, zy, 1, zc );
        if( zc[0] < 64 )
        {
            mv_out[0] = mv_out[1] = 0;
            *cost_out = zc[0];
            return;
        }
        qc[0] = zc[1];
        cme_lowres_costs( &b, 4, qx + 1, qy + 1, 0, qc + 1 );
    }
    else
        cme_lowres_costs( &b, 5, qx, qy, 0, qc );
    int bpred_cost = qc[0] + CME_MVCOST( pmvx, pmvy );
    const int pmv_cost = bpred_cost;
    int bpx = pmvx, bpy = pmvy;
    cme_lowres_better( cost, mvp, 4, qx + 1, qy + 1, qc + 1, cand, &bpred_cost, &bpx, &bpy );

    /* full-pel start, the zero vector */
    int bmx = (bpx + 2) >> 2, bmy = (bpy + 2) >> 2, bcost = bpred_cost;
    {
        const int b_round = (bpx | bpy) & 3, b_zero = (pmvx || pmvy) && (bmx | bmy);
        if( b_round || b_zero )
        {
            int fx[2] = { 4 * bmx, 0 }, fy[2] = { 4 * bmy, 0 }, fc[2];
            cme_lowres_costs( &b, 2, fx, fy, 0, fc );
            if( b_round )
                bcost = fc[0] + CME_MVCOST( 4 * bmx, 4 * bmy );
            if( b_zero && fc[1] + CME_MVCOST( 0, 0 ) < bcost )
            {
                bcost = fc[1] + CME_MVCOST( 0, 0 );
                bmx = bmy = 0;
            }
        }
        if( !pmvx && !pmvy && pmv_cost < bcost )
        {
            bcost = pmv_cost;
            bmx = bmy = 0;
        }
    }

    /* hexagon: the six points, then half hexagons in the direction taken
     * (x264's hex2[] and its (dir-1) % 6 walk), while the centre stays
     * within the full-pel limits */
    {
        /* hex2[i] = (-1,-2) (-2,0) (-1,2) (1,2) (2,0) (1,-2) (-1,-2) (-2,0),
         * i = 0..7, packed 3 bits per coordinate, +2 */
#define CME_HEX_X( i ) ((int)((0x05c641u >> (3 * (i))) & 7) - 2)
#define CME_HEX_Y( i ) ((int)((0x402910u >> (3 * (i))) & 7) - 2)
        int px[6], py[6], pc[6];
        for( int k = 0; k < 6; k++ )
        {
            px[k] = 4 * (bmx + CME_HEX_X( k + 1 ));
            py[k] = 4 * (bmy + CME_HEX_Y( k + 1 ));
        }
        cme_lowres_costs( &b, 6, px, py, 0, pc );
        const int best = cme_lowres_better( cost, mvp, 6, px, py, pc, 0x3f, &bcost, NULL, NULL );
        if( best )
        {
            int dir = best - 1;
            bmx += CME_HEX_X( dir + 1 );
            bmy += CME_HEX_Y( dir + 1 );
            for( int i = (p->i_me_range >> 1) - 1;
                 i > 0 && bmx >= fmin_x && bmx <= fmax_x && bmy >= fmin_y && bmy <= fmax_y; i-- )
            {
                for( int k = 0; k < 3; k++ )
                {
                    px[k] = 4 * (bmx + CME_HEX_X( dir + k ));
                    py[k] = 4 * (bmy + CME_HEX_Y( dir + k ));
                }
                cme_lowres_costs( &b, 3, px, py, 0, pc );
                const int r = cme_lowres_better( cost, mvp, 3, px, py, pc, 7, &bcost, NULL, NULL );
                if( !r )
                    break;
                dir = (dir + r - 2 + 6) % 6;
                bmx += CME_HEX_X( dir + 1 );
                bmy += CME_HEX_Y( dir + 1 );
            }
        }
#undef CME_HEX_X
#undef CME_HEX_Y
    }
    /* square refinement */
    {
        const int sx[8] = { 0, 0, -1, 1, -1, -1, 1, 1 }, sy[8] = { -1, 1, 0, 0, -1, 1, -1, 1 };
        int px[8], py[8], pc[8];
        for( int k = 0; k < 8; k++ )
        {
            px[k] = 4 * (bmx + sx[k]);
            py[k] = 4 * (bmy + sy[k]);
        }
        cme_lowres_costs( &b, 8, px, py, 0, pc );
        int bx = 4 * bmx, by = 4 * bmy;
        cme_lowres_better( cost, mvp, 8, px, py, pc, 0xff, &bcost, &bx, &by );
        bmx = bx >> 2;   /* px, py: full-pel, times 4 */
        bmy = by >> 2;
    }

    /* the better of the sub-pel predictor and the full-pel search, refined
     * as refine_subpel at subme 4 (subpel_spec.h, cme_refine_subpel): one
     * half-pel step on SAD, the SATD re-score, one quarter-pel step on SATD,
     * stopping at the limits */
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
    {
        /* the diamond on SAD, and the centre's SATD for the re-score */
        int px[5], py[5], pc[5];
        for( int k = 0; k < 4; k++ )
        {
            px[k] = mx + cme_hpel_dx( k );
            py[k] = my + cme_hpel_dy( k );
        }
        px[4] = mx;
        py[4] = my;
        cme_lowres_costs( &b, 5, px, py, 1 << 4, pc );
        int bx = mx, by = my;
        if( !cme_lowres_better( cost, mvp, 4, px, py, pc, 0xf, &c, &bx, &by ) )
            c = pc[4] + CME_MVCOST( mx, my );
        else
        {
            mx = bx;
            my = by;
            cme_lowres_costs( &b, 1, &mx, &my, 1, pc );
            c = pc[0] + CME_MVCOST( mx, my );
        }
    }
    if( !(my <= min_y || my >= max_y || mx <= min_x || mx >= max_x) )
    {
        int px[4], py[4], pc[4];
        for( int k = 0; k < 4; k++ )
        {
            px[k] = mx + cme_qpel_dx( k );
            py[k] = my + cme_qpel_dy( k );
        }
        cme_lowres_costs( &b, 4, px, py, 0xf, pc );
        cme_lowres_better( cost, mvp, 4, px, py, pc, 0xf, &c, &mx, &my );
    }
#undef CME_MVCOST

    c -= cost[0];
    if( mx || my )
        c += 5 * p->i_lambda;
    mv_out[0] = (int16_t)mx;
    mv_out[1] = (int16_t)my;
    *cost_out = c;
}

#endif
