/*****************************************************************************
 * subpel_spec.h: sub-pel refinement, the specification
 *****************************************************************************
 * What x264 (baee400) computes for one partition's sub-pel refinement in
 * x264_me_search_ref (encoder/me.c: refine_subpel( h, m, hpel, qpel,
 * p_halfpel_thresh, 0 ) with hpel, qpel = subpel_iterations[subme][2..3]),
 * written so that C (subpel_c.c) and CUDA (subpel_cuda.cu) compute it bit
 * for bit, from these very functions:
 *
 *   planes   the half-pel planes H, V, C of a luma plane: x264's 6-tap
 *            filter (common/mc.c hpel_filter) and its border rule
 *            (x264_frame_filter + x264_frame_expand_border_filtered)
 *   samples  a block at a quarter-pel vector: x264's get_ref/mc_luma, the
 *            rounded average of two of F, H, V, C (x264_hpel_ref0/1)
 *   costs    x264's SATD (pixel_satd_WxH: 4x4 Hadamards, |coeffs|/2) and
 *            SAD, plus p_cost_mv[mx - mvp_x] + p_cost_mv[my - mvp_y]
 *   search   refine_subpel's loop: half-pel diamond on SAD (fpelcmp), a SATD
 *            re-score, quarter-pel diamond on SATD, its candidate order,
 *            strict '<' and the "don't go back" rule
 *
 * Reproduced: luma, 8-bit, progressive, partitions 16x16..4x4, --subme 2..11
 * with x264's mbcmp = SATD (i.e. not lossless), fpelcmp = SAD (every --me
 * but tesa) or SATD (--me tesa: cme_subpel_param_t.b_fpel_satd).
 * Left out (the caller's business, or x264's): chroma ME (x264's
 * b_chroma_me: P slices at subme >= 5 and B slices at subme >= 9 unless
 * --no-chroma-me add chroma SATD to every candidate, so this matches x264
 * only where chroma ME is off), weighted prediction (weightfn), the
 * multi-reference early exit (p_halfpel_thresh: the result carries the
 * half-pel stage's vector and cost, which is what x264 tests), subme 0/1,
 * RD refinement (subme >= 8's x264_me_refine_qpel_rd), bidir refinement,
 * x264_me_refine_qpel (b_refine_qpel = 1: at subme >= 6 it runs no
 * iteration),
 * interlaced and high bit depth.
 *****************************************************************************/

#ifndef CUDA_ME_SUBPEL_SPEC_H
#define CUDA_ME_SUBPEL_SPEC_H

#include <stdint.h>

/* Standalone (the x264 glue includes it without me_spec.h); the same
 * CME_SPEC as me_spec.h's. */
#ifndef CME_SPEC
#ifdef __CUDACC__
#define CME_SPEC static __host__ __device__ __forceinline__
#else
#define CME_SPEC static inline
#endif
#endif

CME_SPEC int cme_sp_clip( int v, int lo, int hi ) { return v < lo ? lo : v > hi ? hi : v; }

/* Partitions, x264's enum (common/common.h PIXEL_16x16 ...): luma ME only. */
enum
{
    CME_PIXEL_16x16 = 0,
    CME_PIXEL_16x8  = 1,
    CME_PIXEL_8x16  = 2,
    CME_PIXEL_8x8   = 3,
    CME_PIXEL_8x4   = 4,
    CME_PIXEL_4x8   = 5,
    CME_PIXEL_4x4   = 6,
    CME_PIXEL_COUNT = 7,
};

CME_SPEC int cme_pixel_w( int i_pixel ) { return i_pixel == 0 || i_pixel == 1 ? 16 : i_pixel <= 4 ? 8 : 4; }
CME_SPEC int cme_pixel_h( int i_pixel ) { return i_pixel == 0 || i_pixel == 2 ? 16 : i_pixel == 1 || i_pixel == 3 || i_pixel == 5 ? 8 : 4; }

/* ---------------------------------------------------------------- planes */

/* Border of the half-pel planes (and of x264's planes: PADH, PADV), pixels.
 * Plane p (1 H, 2 V, 3 C) of a w x h luma plane F (w, h: x264's
 * 16*i_mb_width, 16*i_mb_height) at (x, y), |x|, |y| within this border:
 *
 *   (x', y') = ( clip(x, -4, w+3), clip(y, -8, h+7) )     border rule
 *   H = clip( (TAP(F, x'-2..x'+3; y')   +  16) >>  5 )     horizontal half
 *   V = clip( (TAP(F, x'; y'-2..y'+3)   +  16) >>  5 )     vertical half
 *   C = clip( (TAP(V', x'-2..x'+3; y') + 512) >> 10 )     centre, V' = the
 *                                                           unrounded V sums
 *   TAP(a..f) = a + f - 5*(b + e) + 20*(c + d),  F read with x264's
 *   replicated border: F(clip(x, 0, w-1), clip(y, 0, h-1))
 *
 * x264 filters [-8, w+8) x [-8, h+8) of its padded plane and replicates
 * the border from [-4, w+4) x [-8, h+8) (common/frame.c: "up to 3 of the
 * horizontal ones may be wrong", for SIMD).  Since F is constant beyond the
 * frame, H, V and C are constant from 3 pixels beyond it outwards, so
 * that clip changes no value (tested: moving it in by one is invisible,
 * moving it to -2 is not): it only bounds the reads of F to 6 pixels left,
 * 7 right, 10 up and 11 down of the frame, inside any replicated border of
 * 11 or more (CME_PAD is 32).  The planes are thus the formulas on the
 * endlessly replicated F, out to x264's border of 32.  Ranges: a V' sum is
 * in [-2550, 10710] (fits int16_t, as in x264's buffer); a C sum's
 * magnitude is below 42*10710 + 10*2550 = 475320. */
#define CME_HPEL_PAD 32

CME_SPEC int cme_tap6( int a, int b, int c, int d, int e, int f )
{
    return a + f - 5*(b + e) + 20*(c + d);
}

CME_SPEC uint8_t cme_clip_pixel( int v ) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

/* F at (x, y) of a w x h plane (at (0,0), with a replicated border of at
 * least 11 pixels: the reads below never need more). */
CME_SPEC int cme_fpel( const uint8_t *f, intptr_t stride, int x, int y )
{
    return f[y * stride + x];
}

/* The unrounded vertical 6-tap sum at (x, y) (x264's buf[] in hpel_filter). */
CME_SPEC int cme_hpel_vsum( const uint8_t *f, intptr_t stride, int x, int y )
{
    return cme_tap6( cme_fpel( f, stride, x, y-2 ), cme_fpel( f, stride, x, y-1 ), cme_fpel( f, stride, x, y ),
                     cme_fpel( f, stride, x, y+1 ), cme_fpel( f, stride, x, y+2 ), cme_fpel( f, stride, x, y+3 ) );
}

/* Plane p (1 H, 2 V, 3 C) at (x, y), by the rule above.  f is the fpel plane
 * at (0,0) with a replicated border of at least 11 pixels (CME_PAD is 32). */
CME_SPEC uint8_t cme_hpel_sample( const uint8_t *f, intptr_t stride, int w, int h, int p, int x, int y )
{
    x = cme_sp_clip( x, -4, w + 3 );
    y = cme_sp_clip( y, -8, h + 7 );
    if( p == 1 )
        return cme_clip_pixel( (cme_tap6( cme_fpel( f, stride, x-2, y ), cme_fpel( f, stride, x-1, y ),
                                          cme_fpel( f, stride, x, y ), cme_fpel( f, stride, x+1, y ),
                                          cme_fpel( f, stride, x+2, y ), cme_fpel( f, stride, x+3, y ) ) + 16) >> 5 );
    if( p == 2 )
        return cme_clip_pixel( (cme_hpel_vsum( f, stride, x, y ) + 16) >> 5 );
    return cme_clip_pixel( (cme_tap6( cme_hpel_vsum( f, stride, x-2, y ), cme_hpel_vsum( f, stride, x-1, y ),
                                      cme_hpel_vsum( f, stride, x, y ), cme_hpel_vsum( f, stride, x+1, y ),
                                      cme_hpel_vsum( f, stride, x+2, y ), cme_hpel_vsum( f, stride, x+3, y ) ) + 512) >> 10 );
}

/* ---------------------------------------------------------------- samples */

/* x264's tables.c x264_hpel_ref0/1: the two planes (0 F, 1 H, 2 V, 3 C)
 * averaged for quarter-pel position ((mvy&3)<<2) + (mvx&3). */
CME_SPEC int cme_hpel_ref0( int qpel_idx ) { return (int)((0x0111011123330111ull >> (4 * (15 - qpel_idx))) & 0xf); }
CME_SPEC int cme_hpel_ref1( int qpel_idx ) { return (int)((0x0010223222322232ull >> (4 * (15 - qpel_idx))) & 0xf); }

/* plane[i], i in 0..3, chosen without indexing the array: a GPU then keeps
 * the four pointers in registers (an indexed array goes to local memory). */
CME_SPEC const uint8_t *cme_plane( const uint8_t *const plane[4], int i )
{
    return i == 0 ? plane[0] : i == 1 ? plane[1] : i == 2 ? plane[2] : plane[3];
}

/* Pixel (x, y) of the block at quarter-pel vector (mvx, mvy), as x264's
 * get_ref/mc_luma write it (without weighting).  plane[0..3] = F, H, V, C at
 * the block's full-pel position, one stride. */
CME_SPEC uint8_t cme_qpel_sample( const uint8_t *const plane[4], intptr_t stride, int mvx, int mvy, int x, int y )
{
    const int qpel_idx = ((mvy & 3) << 2) + (mvx & 3);
    const intptr_t offset = (intptr_t)(mvy >> 2) * stride + (mvx >> 2) + y * stride + x;
    const int a = cme_plane( plane, cme_hpel_ref0( qpel_idx ) )[offset + ((mvy & 3) == 3) * stride];
    if( !(qpel_idx & 5) )
        return (uint8_t)a;
    const int b = cme_plane( plane, cme_hpel_ref1( qpel_idx ) )[offset + ((mvx & 3) == 3)];
    return (uint8_t)((a + b + 1) >> 1);
}

/* ---------------------------------------------------------------- costs */

/* SATD of one 4x4 block of differences d[4*y + x]: the sum of the absolute
 * values of its 4x4 Hadamard transform, halved.  That sum always is even
 * (the 16 coefficients have the parity of the sum of d), so x264's
 * "sum >> 1" per 4x4 or per 8x4 pair is the same as halving each 4x4.
 * Range: |coeff| <= 16*255, sum/2 <= 32640. */
CME_SPEC int cme_satd_4x4( const int d[16] )
{
    int t[16], sum = 0;
    for( int y = 0; y < 4; y++ )
    {
        const int *r = d + 4*y;
        int s01 = r[0] + r[1], d01 = r[0] - r[1], s23 = r[2] + r[3], d23 = r[2] - r[3];
        t[4*y+0] = s01 + s23;
        t[4*y+1] = s01 - s23;
        t[4*y+2] = d01 + d23;
        t[4*y+3] = d01 - d23;
    }
    for( int x = 0; x < 4; x++ )
    {
        int s01 = t[x] + t[4+x], d01 = t[x] - t[4+x], s23 = t[8+x] + t[12+x], d23 = t[8+x] - t[12+x];
        int a0 = s01 + s23, a1 = s01 - s23, a2 = d01 + d23, a3 = d01 - d23;
        sum += (a0 < 0 ? -a0 : a0) + (a1 < 0 ? -a1 : a1) + (a2 < 0 ? -a2 : a2) + (a3 < 0 ? -a3 : a3);
    }
    return sum >> 1;
}

/* ---------------------------------------------------------------- search */

/* x264's subpel_iterations[subme][2..3] (encoder/me.c): half-pel and
 * quarter-pel iterations of the refinement every searched partition gets. */
CME_SPEC int cme_subpel_hpel_iters( int subme )
{
    return subme >= 8 ? 4 : subme >= 6 ? 2 : subme >= 2 ? 1 : 0;
}
CME_SPEC int cme_subpel_qpel_iters( int subme )
{
    return subme >= 8 ? 10 : subme >= 6 ? 2 : subme == 5 ? 2 : subme == 4 ? 1 : 0;
}

/* Half-pel diamond, in x264's order; code is what x264 packs into the low 6
 * bits of bcost (the smallest packed value wins, so on equal cost the
 * centre, then the earlier candidate). */
CME_SPEC int cme_hpel_dx( int i ) { return i == 2 ? -2 : i == 3 ? 2 : 0; }
CME_SPEC int cme_hpel_dy( int i ) { return i == 0 ? -2 : i == 1 ? 2 : 0; }
/* Quarter-pel diamond: dir 0 up, 1 down, 2 left, 3 right; dir^1 is the
 * opposite, skipped when it leads back to the previous centre. */
CME_SPEC int cme_qpel_dx( int dir ) { return dir == 2 ? -1 : dir == 3 ? 1 : 0; }
CME_SPEC int cme_qpel_dy( int dir ) { return dir == 0 ? -1 : dir == 1 ? 1 : 0; }

#define CME_COST_MAX (1 << 28)   /* x264's COST_MAX */

/* One partition's refinement (inputs as x264's x264_me_t and h->mb hold
 * them when refine_subpel is called from x264_me_search_ref). */
typedef struct cme_subpel_param_t
{
    int i_pixel;            /* CME_PIXEL_16x16 .. CME_PIXEL_4x4 */
    int i_subme;            /* x264's --subme, 2..11 */
    int b_fpel_satd;        /* x264's fpelcmp is SATD (--me tesa), else SAD */
    int mv_min[2];          /* h->mb.mv_min_spel, quarter-pel, inclusive */
    int mv_max[2];          /* h->mb.mv_max_spel */
    int mvp[2];             /* m->mvp, quarter-pel */
    /* m->p_cost_mv: cost of a vector component d quarter-pels from the
     * predictor at p_cost_mv[d], both signs (x264's h->cost_mv[qp]) */
    const uint16_t *p_cost_mv;
} cme_subpel_param_t;

typedef struct cme_subpel_result_t
{
    int16_t mv[2];          /* the refined vector, quarter-pel */
    int32_t cost;           /* its SATD (fpelcmp with tesa) + MV cost: m->cost */
    int16_t mv_hpel[2];     /* after the half-pel stage and its SATD re-score */
    int32_t cost_hpel;      /* (what x264 compares with *p_halfpel_thresh) */
} cme_subpel_result_t;

/* The partition's cost at quarter-pel vector (mx, my) without MV cost:
 * SATD (b_satd) or SAD of fenc against the block cme_qpel_sample gives.
 * SATD is summed over the 4x4 blocks (x264's pixel_satd_WxH). */
CME_SPEC int cme_subpel_cmp( const uint8_t *fenc, intptr_t i_fenc_stride, const uint8_t *const plane[4],
                             intptr_t stride, int i_pixel, int b_satd, int mx, int my )
{
    const int bw = cme_pixel_w( i_pixel ), bh = cme_pixel_h( i_pixel );
    int sum = 0;
    for( int by = 0; by < bh; by += 4 )
        for( int bx = 0; bx < bw; bx += 4 )
        {
            int d[16];
            for( int y = 0; y < 4; y++ )
                for( int x = 0; x < 4; x++ )
                    d[4*y+x] = fenc[(by+y) * i_fenc_stride + bx+x]
                             - cme_qpel_sample( plane, stride, mx, my, bx+x, by+y );
            if( b_satd )
                sum += cme_satd_4x4( d );
            else
                for( int i = 0; i < 16; i++ )
                    sum += d[i] < 0 ? -d[i] : d[i];
        }
    return sum;
}

/* x264's p_cost_mvx[mx] + p_cost_mvy[my] (p_cost_mv - mvp). */
CME_SPEC int cme_subpel_mv_cost( const cme_subpel_param_t *p, int mx, int my )
{
    return p->p_cost_mv[mx - p->mvp[0]] + p->p_cost_mv[my - p->mvp[1]];
}

/* refine_subpel( h, m, hpel, qpel, NULL, 0 ) on the partition at fenc
 * (stride i_fenc_stride; x264: FENC_STRIDE) whose planes F, H, V, C at the
 * partition's full-pel position are plane[0..3], from vector (mvx, mvy)
 * (quarter-pel: x264's m->mv) of cost `cost` (m->cost: at subme >= 3 the
 * fpelcmp cost plus the MV cost of that vector).  Every vector it reads
 * stays within 2 pixels (half-pel stage: 4 iterations of 2 quarter-pels)
 * of the start, or inside mv_min..mv_max (quarter-pel stage); the caller
 * keeps that inside the planes' border, as x264's limits do.
 *
 *   subme < 3   first the predictor, clipped to mv_min+2 .. mv_max-2, on
 *               fpelcmp, if it differs from the start
 *   half-pel    up to cme_subpel_hpel_iters: (0,-2) (0,+2) (-2,0) (+2,0)
 *               around the centre on fpelcmp + MV cost; the first strictly
 *               smaller cost wins; stop when the centre stays
 *   re-score    unless fpelcmp is SATD: the cost becomes SATD + MV cost
 *   quarter-pel up to cme_subpel_qpel_iters, stopping first where the centre
 *               is on or beyond a limit: (0,-1) (0,+1) (-1,0) (+1,0), except
 *               the one opposite the previous iteration's winning direction,
 *               SATD + MV cost, strict '<'; stop when the centre stays */
CME_SPEC void cme_refine_subpel( const uint8_t *fenc, intptr_t i_fenc_stride, const uint8_t *const plane[4],
                                 intptr_t stride, const cme_subpel_param_t *p, int mvx, int mvy, int cost,
                                 cme_subpel_result_t *r )
{
    const int hpel_iters = cme_subpel_hpel_iters( p->i_subme );
    const int qpel_iters = cme_subpel_qpel_iters( p->i_subme );
    int bmx = mvx, bmy = mvy, bcost = cost;

    if( hpel_iters )
    {
        if( p->i_subme < 3 )
        {
            int mx = cme_sp_clip( p->mvp[0], p->mv_min[0] + 2, p->mv_max[0] - 2 );
            int my = cme_sp_clip( p->mvp[1], p->mv_min[1] + 2, p->mv_max[1] - 2 );
            if( (mx - bmx) | (my - bmy) )
            {
                int c = cme_subpel_cmp( fenc, i_fenc_stride, plane, stride, p->i_pixel, p->b_fpel_satd, mx, my )
                      + cme_subpel_mv_cost( p, mx, my );
                if( c < bcost )
                {
                    bcost = c;
                    bmx = mx;
                    bmy = my;
                }
            }
        }
        for( int i = hpel_iters; i > 0; i-- )
        {
            const int omx = bmx, omy = bmy;
            int best = -1;
            for( int k = 0; k < 4; k++ )
            {
                const int mx = omx + cme_hpel_dx( k ), my = omy + cme_hpel_dy( k );
                int c = cme_subpel_cmp( fenc, i_fenc_stride, plane, stride, p->i_pixel, p->b_fpel_satd, mx, my )
                      + cme_subpel_mv_cost( p, mx, my );
                if( c < bcost )
                {
                    bcost = c;
                    best = k;
                }
            }
            if( best < 0 )
                break;
            bmx = omx + cme_hpel_dx( best );
            bmy = omy + cme_hpel_dy( best );
        }
    }

    if( !p->b_fpel_satd )
        bcost = cme_subpel_cmp( fenc, i_fenc_stride, plane, stride, p->i_pixel, 1, bmx, bmy )
              + cme_subpel_mv_cost( p, bmx, bmy );
    r->mv_hpel[0] = (int16_t)bmx;
    r->mv_hpel[1] = (int16_t)bmy;
    r->cost_hpel = bcost;

    int bdir = -1;
    for( int i = qpel_iters; i > 0; i-- )
    {
        if( bmy <= p->mv_min[1] || bmy >= p->mv_max[1] || bmx <= p->mv_min[0] || bmx >= p->mv_max[0] )
            break;
        const int odir = bdir, omx = bmx, omy = bmy;
        for( int dir = 0; dir < 4; dir++ )
        {
            if( (dir ^ 1) == odir )
                continue;
            const int mx = omx + cme_qpel_dx( dir ), my = omy + cme_qpel_dy( dir );
            int c = cme_subpel_cmp( fenc, i_fenc_stride, plane, stride, p->i_pixel, 1, mx, my )
                  + cme_subpel_mv_cost( p, mx, my );
            if( c < bcost )
            {
                bcost = c;
                bmx = mx;
                bmy = my;
                bdir = dir;
            }
        }
        if( bmx == omx && bmy == omy )
            break;
    }
    r->mv[0] = (int16_t)bmx;
    r->mv[1] = (int16_t)bmy;
    r->cost = bcost;
}

/* ---------------------------------------------------------------- batches */

/* One partition of a batch (the CUDA kernel's input, cme_cuda_refine_subpel
 * in kernels.h; the C reference cme_refine_subpel_batch_c): what
 * cme_refine_subpel takes, packed into 32 bytes, with the partition's place
 * in the frame instead of pointers.  Ranges: x, y < 32768 (frames up to
 * 8K); vectors and limits are x264's, |v| <= 4*2048 quarter-pels; cost
 * (m->cost) is x264's, below CME_COST_MAX. */
typedef struct cme_subpel_job_t
{
    int16_t x, y;           /* the partition's top-left pixel in the frame */
    int16_t mv[2];          /* start vector, quarter-pel (x264's m->mv) */
    int32_t cost;           /* its cost (m->cost) */
    int16_t mvp[2];         /* m->mvp, quarter-pel */
    int16_t mv_min[2];      /* h->mb.mv_min_spel, quarter-pel, inclusive */
    int16_t mv_max[2];      /* h->mb.mv_max_spel */
    int32_t i_cost_mv;      /* p_cost_mv = the batch's cost buffer + i_cost_mv:
                             * the centre of this partition's table (x264's
                             * h->cost_mv[qp], which spans +-8*i_mv_range) */
    uint8_t i_pixel;        /* CME_PIXEL_16x16 .. CME_PIXEL_4x4 */
    uint8_t i_subme;        /* 2..11 */
    uint8_t b_fpel_satd;    /* --me tesa */
    uint8_t reserved;       /* 0 */
} cme_subpel_job_t;

/* The parameters of job j, its MV costs in the batch's buffer cost_mv. */
CME_SPEC cme_subpel_param_t cme_subpel_job_param( const cme_subpel_job_t *j, const uint16_t *cost_mv )
{
    cme_subpel_param_t p;
    p.i_pixel = j->i_pixel;
    p.i_subme = j->i_subme;
    p.b_fpel_satd = j->b_fpel_satd;
    p.mv_min[0] = j->mv_min[0];
    p.mv_min[1] = j->mv_min[1];
    p.mv_max[0] = j->mv_max[0];
    p.mv_max[1] = j->mv_max[1];
    p.mvp[0] = j->mvp[0];
    p.mvp[1] = j->mvp[1];
    p.p_cost_mv = cost_mv + j->i_cost_mv;
    return p;
}

/* Job j of a batch: cme_refine_subpel on the partition at (j->x, j->y) of
 * cur (pixel (0,0), stride i_cur_stride), in the reference whose planes F,
 * H, V, C have pixel (0,0) at plane[0..3] (one stride, the border of
 * CME_HPEL_PAD that cme_hpel_planes_c writes and CME_PAD of F). */
CME_SPEC void cme_refine_subpel_job( const uint8_t *cur, intptr_t i_cur_stride, const uint8_t *const plane[4],
                                     intptr_t stride, const uint16_t *cost_mv, const cme_subpel_job_t *j,
                                     cme_subpel_result_t *r )
{
    const cme_subpel_param_t p = cme_subpel_job_param( j, cost_mv );
    const intptr_t o = (intptr_t)j->y * stride + j->x;
    const uint8_t *const pl[4] = { plane[0] + o, plane[1] + o, plane[2] + o, plane[3] + o };
    cme_refine_subpel( cur + (intptr_t)j->y * i_cur_stride + j->x, i_cur_stride, pl, stride, &p,
                       j->mv[0], j->mv[1], j->cost, r );
}

#endif
