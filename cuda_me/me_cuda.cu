/*****************************************************************************
 * me_cuda.cu: the integer full search on the GPU: the library's kernels and
 * their launches
 *****************************************************************************
 * The paper: 章剑 (Zhang Jian), 仰枫帆 (Yang Fengfan),
 *   "一种基于异构系统的H.264/AVC运动估计算法" (an H.264/AVC motion
 *   estimation algorithm on a heterogeneous system), 电子科技 (Electronic
 *   Science and Technology), 2012.
 *
 * The method of the paper, three steps per frame pair:
 *   1. for each macroblock and each search position, the 16 SADs of its 4x4
 *      blocks, with the macroblock and the search window it needs loaded into
 *      shared memory once per thread block;
 *   2. the merge of the 4x4 SADs into the 41 partitions plus the MV cost, and
 *      the first reduction, over all the positions of a thread block;
 *   3. the second reduction, across the thread blocks of a macroblock.
 *
 * search_kernel (search.cuh) does steps 1 and 2 (fused: the 16 SADs never
 * leave registers), reduce_kernel (reduce.cuh) step 3.  This file builds
 * the search kernel's variants that the library runs, the default of each
 * range (cme_cuda_variant_default()), and launches them; the experimental
 * variants and the paper's unfused kernels are in dev/ (the benchmark and
 * the tests only); results/ has the numbers behind each choice.
 *
 * search_kernel<NP, ...>, NP = 9 or 41 partitions
 *   grid (macroblocks, blocks per macroblock), 64..128 threads (the host picks
 *   threads, runs per thread and blocks per macroblock for each range so that
 *   few threads idle: cme_cme_search_geom()).
 *   A macroblock's window (me_spec.h) of wx x wy positions is cut into "runs":
 *   K vertically adjacent positions of one column (or of two columns 4
 *   apart: KEYS_PAIR).  Run u of a macroblock is column u % wx, rows from
 *   K*(u / wx); the last run of each column is moved up to end on the
 *   window's last row (positions evaluated twice give equal keys, so the
 *   minimum is unchanged).  Thread t of a block does runs t, t + threads,
 *   ... of the block's share: per row of the macroblock, one broadcast
 *   shared load of the macroblock row, one load of a reference row into a
 *   rolling buffer of K rows, and 4 vabsdiff4 per position (one per 4x4
 *   block column).  After every 4th row the four finished 4x4 SADs of each
 *   position are merged into the partitions they complete.
 *   Keys: cost << 14 | raster index relative to the block's first window
 *   row, 32 bits, made by IMADs on the FMA pipe and folded two positions at
 *   a time with one 3-input min (VIMNMX3), which leaves the ALU pipe to the
 *   SADs (search.cuh, row_keys()); reduced with __reduce_min_sync per warp
 *   and then across the warps; across blocks cost << 32 | raster index in
 *   the window, 64 bits.
 *   The window is stored in shared memory as s_win[row][j] = the 4 bytes
 *   starting at column j, so every thread reads aligned words and the 32 lanes
 *   of a warp read 32 consecutive words: no bank conflicts.  From sm_90 on
 *   the fixed-stride variants copy it as one tensor copy (TMA).
 *
 * reduce_kernel<NP>: one thread per (macroblock, partition), min over the
 *   blocks of the macroblock, decodes the key into (mv, cost).  Not launched
 *   when a macroblock's window is one block (cme_cme_search_geom(): up to +-48
 *   at 1080p): search_kernel then stores the results itself (the reduce
 *   kernel was 5% of the search's time at +-16: results/kernel_steps.md).
 *
 * pass2_kernel: one thread per macroblock, the centre of its second pass
 *   (two candidates) from pass 1's 16x16 vectors (me_spec.h, cme_pass2_centre);
 *   then search_kernel (and reduce_kernel) run again at cme_pass2_range()
 *   (16 from range 32 on).
 *
 * pad_kernel: replicates frame edges into the CME_PAD border.
 * xplane_kernel: a reference's 4-byte plane (cme_cuda_xplane()).
 *****************************************************************************/

#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <cuda.h>            /* the tensor map's types (no libcuda link) */
#if CUDART_VERSION >= 12000
#include <cudaTypedefs.h>    /* PFN_cuTensorMapEncodeTiled */
#endif

#include "me_spec.h"
#include "kernels.h"
#include "search.cuh"

/* a: pass 1's launch (its centres, range and out with i_out_stride). */
__global__ void pass2_kernel( const cme_launch_t a, int16_t *__restrict__ centre2 )
{
    const int mb = blockIdx.x * blockDim.x + threadIdx.x;
    if( mb >= a.i_mb_width * a.i_mb_height )
        return;
    int mb_x, mb_y, nb[3], v[3][2], c[2];
    const cme_window_t w = cme_launch_window( a, mb, &mb_x, &mb_y );
    const int n = cme_pass2_neighbours( mb_x, mb_y, a.i_mb_width, nb );
    for( int k = 0; k < n; k++ )
    {
        const cuda_me_result_t r = a.out[(size_t)nb[k] * a.i_out_stride + CUDA_ME_PART_16x16];
        v[k][0] = r.mv[0];
        v[k][1] = r.mv[1];
    }
    cme_pass2_centre( n, (const int (*)[2])v, w.cx, w.cy, c );
    centre2[2*mb] = (int16_t)c[0];   /* inside x264's MV limits: fits */
    centre2[2*mb+1] = (int16_t)c[1];
}

__global__ void pad_kernel( uint8_t *plane, const int pitch, const int w, const int h )
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x - CME_PAD;
    const int y = blockIdx.y * blockDim.y + threadIdx.y - CME_PAD;
    if( x >= w + CME_PAD || y >= h + CME_PAD )
        return;
    if( x >= 0 && x < w && y >= 0 && y < h )
        return;
    plane[y * pitch + x] = plane[cme_imin( cme_imax( y, 0 ), h - 1 ) * pitch + cme_imin( cme_imax( x, 0 ), w - 1 )];
}

/* x[i] = the 4 bytes of p from byte i on (little-endian), for i < 4 * nw;
 * bytes past the end read as 0 */
__global__ void xplane_kernel( const uint32_t *__restrict__ p, const size_t nw, uint4 *__restrict__ x )
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if( i >= nw )
        return;
    const uint32_t lo = p[i], hi = i + 1 < nw ? p[i+1] : 0;
    x[i] = make_uint4( lo, __funnelshift_r( lo, hi, 8 ), __funnelshift_r( lo, hi, 16 ), __funnelshift_r( lo, hi, 24 ) );
}

/* ---------------------------------------------------------------- host */

/* The library's variants: positions per run K, the register budget (blocks
 * of MAX_THREADS per SM), the key path (KEYS_*) and the window row stride.
 * Each is the default of some range (cme_cuda_variant_default()), and a
 * launch of the library never needs another: every frame size, range and
 * MV limit it accepts has a geometry for its range's default
 * (tests/search_check.cu checks them all).  Their numbers are those of
 * the benchmark and of results/; dev/ has the other variants. */
#define KERNEL( np, k, minb, keys, s, x ) (const void*)search_kernel<np, k, minb, keys, s, x>
static const cme_variant_t variants[] =
{
    VARIANT_S(  4, KEYS_FMA, "fma-", 8, 3, 0 ),                /* +-65 to +-120 */
    VARIANT_X( 14, KEYS_PAIR, "pair-s48-", 3, 4, 48 ),        /* +-4 to +-16 */
    VARIANT_S( 17, KEYS_FMA, "fma-s272-", 8, 3, 272 ),        /* +-121 to +-128 */
    VARIANT_X( 24, KEYS_CHAIN, "chain-s80-", 6, 5, 80 ),      /* +-17 to +-32 but K5_RANGES */
    VARIANT_X( 26, KEYS_CHAIN, "chain-s144-", 8, 3, 144 ),    /* +-33 to +-64 */
    VARIANT_X( 31, KEYS_CHAIN, "chain-s80-", 5, 5, 80 ),      /* K5_RANGES */
};
#define NVARIANTS (int)(sizeof(variants) / sizeof(*variants))

/* The default: the fastest variant measured for the range
 * (results/kernel_steps.md, "Default variants"; 1080p, 41 partitions,
 * checked at 720p and 2160p):
 *   +-4..16   v14: runs of 3 rows in two columns 4 apart (KEYS_PAIR), +-16's
 *             fixed stride, the window one tensor copy on sm_90: H200,
 *             1080p +-16 0.0817 ms against 0.0895 without the stride and
 *             the copy (v12), 720p -7.9%, 2160p -8.4%; +-8 0.0389 against
 *             K=6 runs of one column (v6) 0.0436.  From +-32 on the pairs
 *             lose 1-10% (the ALU pipe is the limit there; they save issue
 *             slots, not ALU instructions).
 *   +-17..32  v24: K=6, KEYS_CHAIN's keys (44 IMADs a position instead of
 *             52), +-32's stride with the key tables, blocks of 96 threads
 *             without spills: H100, 1080p +-32 0.2487 ms against 0.2640
 *             for the same with KEYS_FMA (v15), -5.8%; +-28 -5.6%, +-24
 *             -6.1%, +-17 -4.6%; 720p +-32 -5.4%, 2160p -5.8%.  v31 (K=5:
 *             125 registers, 5 blocks an SM where v24's 135 allow 4) where
 *             it was faster at both 1080p and 720p (H100, 3 runs
 *             interleaved): +-17, 18, 19 -11% to -13%, +-24 -2.2% / -2.4%,
 *             +-27 -8.9% / -9.1% (v31 +12% / +13% at +-23, +0.8% to +3.8%
 *             at 20, 26, 28-31, within 2% either way at 21, 22, 25, 32).
 *   +-33..64  v26: K=8, KEYS_CHAIN, +-64's stride: 1080p +-64 0.9069 ms
 *             against 0.9260 with KEYS_FMA (v16), -2.1%.
 *   +-65..120 v4: K=8, 3 blocks an SM, the runtime stride: a fixed stride
 *             (v17's) would take more shared memory than these windows
 *             need, and fewer blocks per SM.
 *   +-121..128 v17: +-128's fixed stride with the key tables: 3.835 ms
 *             against v4's 3.896 (-1.6%). */
#define K5_RANGES ((1ull << 17) | (1ull << 18) | (1ull << 19) | (1ull << 24) | (1ull << 27))   /* bit r: range r (up to 32: 64 bits) */
extern "C" int cme_cuda_variant_default( int range )
{
    return range <= 16 ? 14 : range <= 32 ? (K5_RANGES >> range & 1 ? 31 : 24) : range <= 64 ? 26 : range <= 120 ? 4 : 17;
}

const cme_variant_t *cme_search_variant( int id )
{
    for( int i = 0; i < NVARIANTS; i++ )
        if( variants[i].id == id )
            return &variants[i];
    return NULL;
}

/* The most window rows a block of runs_per_block runs loads; per: runs per
 * run group (group_runs()). */
static int window_rows( int per, int wy, int runs_per_block, int K )
{
    return cme_imin( wy, ((runs_per_block + per - 2) / per + 1) * K ) + 15;
}

/* Window width of macroblock column x, height of macroblock row y: the
 * same for every centre and for every row (column) (me_spec.h). */
static int window_width( int x, int mb_w, int range, int mv_range )
{
    cme_window_t w = cme_get_window( x, 0, mb_w, 1, range, mv_range, 0, 0, 0 );
    return w.x_max - w.x_min + 1;
}

static int window_height( int y, int mb_h, int range, int mv_range, int mv_range_thread )
{
    cme_window_t w = cme_get_window( 0, y, 1, mb_h, range, mv_range, mv_range_thread, 0, 0 );
    return w.y_max - w.y_min + 1;
}

/* The distinct window widths and heights of a frame's macroblock columns
 * and rows (only edge columns and rows differ, but with x264's limits
 * there may be many of them), each at most 2*range+1; their counts in
 * *nwx, *nwy. */
void cme_search_window_sizes( int mb_w, int mb_h, int range, int mv_range, int mv_range_thread,
                              int wxs[MAX_WSIZE], int *nwx, int wys[MAX_WSIZE], int *nwy )
{
    uint8_t seen[MAX_WSIZE + 1] = { 0 };
    *nwx = *nwy = 0;
    for( int x = 0; x < mb_w; x++ )
    {
        const int v = window_width( x, mb_w, range, mv_range );
        if( !seen[v] )
            wxs[(*nwx)++] = v;
        seen[v] = 1;
    }
    memset( seen, 0, sizeof(seen) );
    for( int y = 0; y < mb_h; y++ )
    {
        const int v = window_height( y, mb_h, range, mv_range, mv_range_thread );
        if( !seen[v] )
            wys[(*nwy)++] = v;
        seen[v] = 1;
    }
}

/* The most words of window a block of pb runs loads: per window width, the
 * tallest window's rows (window_rows() grows with the height), each S
 * words apart (0: row_words()). */
static int block_words( const int *wxs, int nwx, int mwy, int pb, int K, int pair, int S )
{
    int words = 0;
    for( int i = 0; i < nwx; i++ )
        words = cme_imax( words, window_rows( group_runs( wxs[i], pair ), mwy, pb, K ) *
                                 (S ? S : row_words( wxs[i] )) );
    return words;
}

/* The rows of the key tables of a block of pb runs (step 1a': its runs'
 * window rows, the window_rows() of block_words() less the 15 below). */
static int key_rows( const int *wxs, int nwx, int mwy, int pb, int K, int pair )
{
    int rows = 0;
    for( int i = 0; i < nwx; i++ )
        rows = cme_imax( rows, window_rows( group_runs( wxs[i], pair ), mwy, pb, K ) - 15 );
    return rows;
}

/* Whether the raster indices of a block of pb runs fit the key's field
 * (raster_most()) for every window width. */
static int raster_fits( const int *wxs, int nwx, int pb, int K, int pair )
{
    for( int i = 0; i < nwx; i++ )
        if( raster_most( wxs[i], pb, K, pair ) > (1 << KEY_SHIFT) )
            return 0;
    return 1;
}

/* cme_cuda_geom_force(): a test's or benchmark's fixed threads and runs per thread */
static int force_nt, force_u;

extern "C" void cme_cuda_geom_force( int nt, int u )
{
    force_nt = nt > 0 && nt <= MAX_THREADS && !(nt & 31) && u > 0 ? nt : 0;
    force_u = force_nt ? u : 0;
}

/* Threads, runs per thread and blocks per macroblock for the largest
 * window: the fewest thread slots, plus a fixed cost per thread (set-up and
 * reduction, about 6 positions' worth of instructions), plus the window
 * rows each block loads (0.2 position per word: blocks of one macroblock
 * load overlapping rows).  Runs per thread beyond 8 only in blocks of 3 or 4
 * warps.  Measured on the H200 (results/kernel_steps.md, bench_me -g):
 * against the fixed-cost rule alone the same choices up to +-32, and 2.4%
 * / 7.0% / 4.5% / 0.5% / 7.2% / 8.1% less kernel time at +-40 / 48 / 64 /
 * 80 / 96 / 128 (1080p).  nb = 0: no
 * geometry (range out of bounds, or the keys' raster field or the shared
 * memory too small). */
search_geom_t cme_search_geom( int mb_w, int mb_h, int range, int mv_range, int mv_range_thread, int np,
                               const cme_variant_t *v )
{
    const int K = v->k, pair = v->keys == KEYS_PAIR, S = v->stride;
    search_geom_t g = { MAX_THREADS, 1, 0, 0, 1u << KEY_SHIFT, 1, 0, 0, 0, 0 };
    if( range < 1 || range > CUDA_ME_RANGE_MAX )
        return g;
    int wxs[MAX_WSIZE], wys[MAX_WSIZE], nwx, nwy;
    cme_search_window_sizes( mb_w, mb_h, range, mv_range, mv_range_thread, wxs, &nwx, wys, &nwy );
    int mwx = 0, mwy = 0, lwx = INT_MAX;
    for( int i = 0; i < nwx; i++ ) mwx = cme_imax( mwx, wxs[i] );
    for( int i = 0; i < nwx; i++ ) lwx = cme_imin( lwx, wxs[i] );
    for( int i = 0; i < nwy; i++ ) mwy = cme_imax( mwy, wys[i] );
    if( (pair && lwx < 8) ||   /* no column pairs (pair_col()) */
        (S && row_words( mwx ) > S) )   /* rows wider than the variant's stride */
        return g;
    /* the most runs of any window of the frame (with HROW() not always
     * the largest window's: +-64's 129 rows have 2209, 130 would have 2338,
     * 131 2193) */
    const int per = group_runs( mwx, pair );
    int runs = 0;
    for( int i = 0; i < nwx; i++ )
        for( int j = 0; j < nwy; j++ )
            runs = cme_imax( runs, run_total( group_runs( wxs[i], pair ), wys[j], K, HROW( K, S ) ) );
    const int positions = pair ? 2*K : K;   /* per run */
    long best = -1;
    for( int nt = 64; nt <= LB_THREADS( v->minb ); nt += 32 )
        for( int u = 1; u <= MAX_RUNS && (u <= 8 || nt >= 96); u++ )
        {
            const int nb = (runs + nt*u - 1) / (nt*u), pb = nt*u;
            const int words = block_words( wxs, nwx, mwy, pb, K, pair, S ) +
                              (KEY_TABLES( S ) ? key_rows( wxs, nwx, mwy, pb, K, pair ) + mwx : 0);
            if( !raster_fits( wxs, nwx, pb, K, pair ) ||   /* the key's raster field */
                (SMEM_WIN( np ) + words) * sizeof(uint32_t) > (96 << 10) )
                continue;
            const long cost = (long)nb * nt * (u * positions + 6) +
                              (long)nb * window_rows( per, mwy, pb, K ) * row_words( mwx ) / 5;
            if( best < 0 || cost < best )
            {
                best = cost;
                g.threads = nt;
                g.runs_per_thread = u;
                g.nb = nb;
            }
        }
    if( force_nt )
    {
        g.threads = force_nt;
        g.runs_per_thread = force_u;
        g.nb = (runs + force_nt*force_u - 1) / (force_nt*force_u);
    }
    if( g.threads > LB_THREADS( v->minb ) )   /* a forced geometry the kernel cannot launch */
        g.nb = 0;
    const int per_block = g.threads * g.runs_per_thread;
    const int max_words = block_words( wxs, nwx, mwy, per_block, K, pair, S );
    if( !raster_fits( wxs, nwx, per_block, K, pair ) )   /* a forced geometry, or none fits */
        g.nb = 0;
    g.runs = runs;
    g.keytab = SMEM_WIN( np ) + max_words;
    g.winrows = S ? max_words / S : 0;   /* block_words(): whole rows */
    g.keyrows = KEY_TABLES( S ) ? key_rows( wxs, nwx, mwy, per_block, K, pair ) : 0;
    g.smem = (g.keytab + (KEY_TABLES( S ) ? g.keyrows + mwx : 0)) * sizeof(uint32_t);
    if( g.smem > (96 << 10) )   /* cme_cuda_prepare()'s opt-in */
        g.nb = 0;
    return g;
}

/* Scratch of the launch of these dimensions (its range's default). */
extern "C" size_t cme_cuda_scratch_size( int mb_w, int mb_h, int range, int mv_range, int mv_range_thread, int np )
{
    const cme_variant_t *v = cme_search_variant( cme_cuda_variant_default( range ) );
    const search_geom_t g = cme_search_geom( mb_w, mb_h, range, mv_range, mv_range_thread, np, v );
    return g.nb ? (size_t)mb_w * mb_h * g.nb * np * sizeof(uint64_t) : 0;
}

const cme_variant_t *cme_search_pick( const cme_launch_t *l, search_geom_t *g )
{
    const cme_variant_t *v = cme_search_variant( l->i_variant < 0 ? cme_cuda_variant_default( l->i_range ) : l->i_variant );
    if( v )
        *g = cme_search_geom( l->i_mb_width, l->i_mb_height, l->i_range, l->i_mv_range, l->i_mv_range_thread,
                              l->i_parts, v );
    return v;
}

/* pick's answer, remembered per thread for the last GEOM_MEMO launches'
 * parameters: cme_cme_search_geom() takes 1.2-2.5 us of host time per launch
 * (the window sizes over the frame's columns and rows, then the geometry
 * search; 1080p, a 2-core development machine), spent between the
 * caller's last event and the kernel's launch, where an idle GPU waits for
 * it (bench_me's total; 2 launches per job with two candidates).  The
 * result depends only on the key's fields (and cme_cuda_geom_force()'s). */
#define GEOM_MEMO 4
typedef struct geom_memo_t
{
    int key[9];
    cme_search_pick_fn pick;
    const cme_variant_t *v;
    search_geom_t g;
} geom_memo_t;

const cme_variant_t *cme_search_pick_memo( const cme_launch_t *l, search_geom_t *g, cme_search_pick_fn pick )
{
    static thread_local geom_memo_t memo[GEOM_MEMO];
    static thread_local int n, next;
    const int key[9] = { l->i_mb_width, l->i_mb_height, l->i_range, l->i_mv_range, l->i_mv_range_thread,
                         l->i_parts, l->i_variant, force_nt, force_u };
    for( int i = 0; i < n; i++ )
        if( memo[i].pick == pick && !memcmp( memo[i].key, key, sizeof(key) ) )
        {
            *g = memo[i].g;
            return memo[i].v;
        }
    const cme_variant_t *v = pick( l, g );
    geom_memo_t *m = &memo[next];
    memcpy( m->key, key, sizeof(key) );
    m->pick = pick;
    m->v = v;
    m->g = *g;
    next = (next + 1) % GEOM_MEMO;
    n = n < GEOM_MEMO ? n + 1 : n;
    return v;
}


/* The tensor map of a launch's window copies (BULK_S()): l's 4-byte plane
 * from its allocation's first word, uint32 [i_xrows][i_pitch], boxes of
 * the variant's stride by g->winrows; the last TMA_MEMO maps remembered
 * per thread (a frame's plane serves many launches).  0: no tensor copies
 * for this launch (not such a variant, no plane rows, a box TMA cannot
 * take, a device before sm_90, or no driver entry point), which gives the
 * same results by the loads. */
#if BULK
typedef PFN_cuTensorMapEncodeTiled_v12000 tma_encode_fn;
static_assert( sizeof(tma_map_t) == sizeof(CUtensorMap) && alignof(tma_map_t) >= alignof(CUtensorMap), "tma_map_t" );

static tma_encode_fn tma_encoder( void )
{
    void *fn = NULL;
    cudaDriverEntryPointQueryResult q;
#if CUDART_VERSION >= 12050
    const cudaError_t e = cudaGetDriverEntryPointByVersion( "cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q );
#else
    const cudaError_t e = cudaGetDriverEntryPoint( "cuTensorMapEncodeTiled", &fn, cudaEnableDefault, &q );
#endif
    if( e != cudaSuccess || q != cudaDriverEntryPointSuccess )
    {
        cudaGetLastError();
        return NULL;
    }
    return (tma_encode_fn)fn;
}

/* map: the plane at base, uint32 [rows][pitch], boxes s x boxrows */
static int tma_encode( tma_map_t *map, const void *base, int pitch, int rows, int s, int boxrows )
{
    static const tma_encode_fn encode = tma_encoder();
    if( !encode )
        return 0;
    const cuuint64_t dims[2] = { (cuuint64_t)pitch, (cuuint64_t)rows };
    const cuuint64_t strides[1] = { (cuuint64_t)pitch * sizeof(uint32_t) };
    const cuuint32_t box[2] = { (cuuint32_t)s, (cuuint32_t)boxrows };
    const cuuint32_t elem[2] = { 1, 1 };
    return encode( (CUtensorMap*)map, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, (void*)base, dims, strides, box, elem,
                   CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE ) == CUDA_SUCCESS;
}
#else
static int tma_encode( tma_map_t *map, const void *base, int pitch, int rows, int s, int boxrows )
{
    return 0;
}
#endif

#define TMA_MEMO 4
typedef struct tma_memo_t
{
    const void *base;
    int pitch, rows, s, boxrows;
    tma_map_t map;
} tma_memo_t;

int cme_search_tma( const cme_launch_t *l, const cme_variant_t *v, const search_geom_t *g, tma_map_t *map )
{
    static thread_local tma_memo_t memo[TMA_MEMO];
    static thread_local int n, next;
    if( !BULK_S( v->stride ) || !v->fx[0] || !l->i_xrows || !l->xref || !g->winrows || g->winrows > TMA_BOX_MAX || (l->i_pitch & 3) )
        return 0;
    const uint32_t *base = l->xref - ((size_t)CME_PAD * l->i_pitch + CME_PAD);
    if( (uintptr_t)base & 15 )
        return 0;
    /* the device's compute capability, asked once per device a thread uses */
    static thread_local int cc_dev = -1, cc_major;
    int dev;
    if( cudaGetDevice( &dev ) != cudaSuccess )
    {
        cudaGetLastError();
        return 0;
    }
    if( dev != cc_dev )
    {
        if( cudaDeviceGetAttribute( &cc_major, cudaDevAttrComputeCapabilityMajor, dev ) != cudaSuccess )
        {
            cudaGetLastError();
            cc_dev = -1;
            return 0;
        }
        cc_dev = dev;
    }
    if( cc_major < 9 )
        return 0;
    for( int i = 0; i < n; i++ )
    {
        const tma_memo_t *m = &memo[i];
        if( m->base == base && m->pitch == l->i_pitch && m->rows == l->i_xrows && m->s == v->stride &&
            m->boxrows == g->winrows )
        {
            *map = m->map;
            return 1;
        }
    }
    if( !tma_encode( map, base, l->i_pitch, l->i_xrows, v->stride, g->winrows ) )
        return 0;
    tma_memo_t *m = &memo[next];
    m->base = base;
    m->pitch = l->i_pitch;
    m->rows = l->i_xrows;
    m->s = v->stride;
    m->boxrows = g->winrows;
    m->map = *map;
    next = (next + 1) % TMA_MEMO;
    n = n < TMA_MEMO ? n + 1 : n;
    return 1;
}

extern "C" int cme_cuda_search_blocks( const cme_launch_t *l )
{
    search_geom_t g;
    return cme_search_pick( l, &g ) ? g.nb : 0;
}

cudaError_t cme_search_launch( const cme_launch_t *l, const cme_variant_t *v, const search_geom_t *g,
                               cudaStream_t stream, cudaEvent_t *marks )
{
    const int mb_count = l->i_mb_width * l->i_mb_height;
    const int n3 = mb_count * l->i_parts;
    const int full = l->i_parts == CUDA_ME_NPART;
    cme_launch_t la = *l;
    search_geom_t ga = *g;
    tma_map_t tm;
    const int tma = cme_search_tma( &la, v, &ga, &tm );
    const void *fn = tma ? v->fx[full] : v->fn[full];
    if( !tma )
    {
        memset( &tm, 0, sizeof(tm) );
        la.i_xrows = 0;
        /* the 4-byte plane's 16-byte copies up to CME_XPLANE_RANGE_MAX;
         * they need 16-byte alignment (search_kernel) */
        if( la.i_range > CME_XPLANE_RANGE_MAX || ((uintptr_t)la.xref & 15) || (la.i_pitch & 3) )
            la.xref = NULL;
    }
    void *args[] = { &la, &ga, &tm };
    cudaError_t e = cudaLaunchKernel( fn, dim3( mb_count, ga.nb ), dim3( ga.threads ), args, ga.smem, stream );
    if( e != cudaSuccess )
        return e;
    if( marks )
        cudaEventRecord( marks[0], stream );
    if( ga.nb == 1 )   /* search_kernel stored the results */
        return cudaGetLastError();
    if( full )
        reduce_kernel<CUDA_ME_NPART><<<(n3 + 255) / 256, 256, 0, stream>>>( *l, ga.nb );
    else
        reduce_kernel<CUDA_ME_NPART_8x8><<<(n3 + 255) / 256, 256, 0, stream>>>( *l, ga.nb );
    return cudaGetLastError();
}

extern "C" cudaError_t cme_cuda_search( const cme_launch_t *l, cudaStream_t stream )
{
    search_geom_t g;
    const cme_variant_t *v = cme_search_pick_memo( l, &g, cme_search_pick );
    if( !v || !g.nb )
        return cudaErrorInvalidValue;
    return cme_search_launch( l, v, &g, stream, NULL );
}

extern "C" cudaError_t cme_cuda_search_pass2( const cme_launch_t *l, int16_t *centre2, cudaStream_t stream )
{
    if( l->i_out_stride != 2 * l->i_parts )
        return cudaErrorInvalidValue;
    const int mb_count = l->i_mb_width * l->i_mb_height;
    pass2_kernel<<<(mb_count + 127) / 128, 128, 0, stream>>>( *l, centre2 );
    cudaError_t e = cudaGetLastError();
    if( e != cudaSuccess )
        return e;
    cme_launch_t l2 = *l;
    l2.i_range = cme_pass2_range( l->i_range );
    l2.mv_cost = cme_pass2_cost( l->mv_cost, l->i_range );
    l2.centre = centre2;
    l2.out = l->out + l->i_parts;
    return cme_cuda_search( &l2, stream );
}

extern "C" cudaError_t cme_cuda_pad( uint8_t *plane, int pitch, int w, int h, cudaStream_t stream )
{
    const dim3 block( 32, 8 );
    const dim3 grid( (w + 2*CME_PAD + 31) / 32, (h + 2*CME_PAD + 7) / 8 );
    pad_kernel<<<grid, block, 0, stream>>>( plane, pitch, w, h );
    return cudaGetLastError();
}

extern "C" cudaError_t cme_cuda_xplane( const uint8_t *alloc, size_t bytes, uint32_t *x, cudaStream_t stream )
{
    if( ((uintptr_t)alloc & 3) || ((uintptr_t)x & 15) || (bytes & 3) || !bytes )
        return cudaErrorInvalidValue;
    const size_t nw = bytes / 4;
    xplane_kernel<<<(unsigned)((nw + 255) / 256), 256, 0, stream>>>( (const uint32_t*)alloc, nw, (uint4*)x );
    return cudaGetLastError();
}

cudaError_t cme_search_kernel_set( const void *fn, cudaFuncAttribute attr, int value )
{
    cudaFuncAttributes fa;
    cudaError_t e = cudaFuncGetAttributes( &fa, fn );
    if( e == cudaSuccess )
        e = cudaFuncSetAttribute( fn, attr, value );
    return e;
}

/* Whether every search kernel (each variant, 9 and 41 partitions, with and
 * without the tensor copy) has an image for this device, and their
 * shared-memory limit. */
extern "C" cudaError_t cme_cuda_prepare( void )
{
    for( int v = 0; v < NVARIANTS; v++ )
        for( int f = 0; f < 4; f++ )
        {
            const void *fn = f < 2 ? variants[v].fn[f] : variants[v].fx[f - 2];
            /* the largest block (range 128) needs about 60 KiB */
            const cudaError_t e = fn ? cme_search_kernel_set( fn, cudaFuncAttributeMaxDynamicSharedMemorySize, 96 << 10 )
                                     : cudaSuccess;
            if( e != cudaSuccess )
                return e;
        }
    return cudaSuccess;
}
