/*****************************************************************************
 * me_cuda.cu: the full-search kernels
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
 * search_kernel does steps 1 and 2 (fused: the 16 SADs never leave
 * registers), reduce_kernel step 3.  dev/me_cuda_paper.cu keeps the unfused
 * three-kernel version; results/ has the numbers behind the fusion.
 *
 * search_kernel<NP>, NP = 9 or 41 partitions
 *   grid (macroblocks, blocks per macroblock), 64..128 threads (the host picks
 *   threads, runs per thread and blocks per macroblock for each range so that
 *   few threads idle: search_geom()).
 *   A macroblock's window (me_spec.h) of wx x wy positions is cut into "runs":
 *   K = 8 vertically adjacent positions of one column.  Run u of a
 *   macroblock is column u % wx, rows from 8*(u / wx); the last run of each
 *   column is moved up to end on the window's last row (positions evaluated
 *   twice give equal keys, so the minimum is unchanged).  Thread t of a block
 *   does runs t, t + threads, ... of the block's share: per row of the
 *   macroblock, one broadcast shared load of the macroblock row, one load of a
 *   reference row into a rolling buffer of K rows, and 4 vabsdiff4 per
 *   position (one per 4x4 block column).  After every 4th row the four
 *   finished 4x4 SADs of each position are merged into the partitions they
 *   complete.
 *   Keys: cost << 14 | raster index relative to the block's first window
 *   row, 32 bits; kept per thread with one min(a + b, c) per partition and
 *   position (__viaddmin_u32, a DPX instruction on sm_90) in the classic
 *   variants, or (KEYS_FMA variants, issue 13) made by IMADs on the FMA pipe
 *   and folded two positions at a time with one 3-input min (VIMNMX3),
 *   which leaves the ALU pipe to the SADs (see row_keys()); reduced with
 *   __reduce_min_sync per warp and then across the warps; across blocks
 *   cost << 32 | raster index in the window, 64 bits.
 *   The window is stored in shared memory as s_win[row][j] = the 4 bytes
 *   starting at column j, so every thread reads aligned words and the 32 lanes
 *   of a warp read 32 consecutive words: no bank conflicts.
 *
 * reduce_kernel<NP>: one thread per (macroblock, partition), min over the
 *   blocks of the macroblock, decodes the key into (mv, cost).  Not launched
 *   when a macroblock's window is one block (search_geom(): up to +-48 at
 *   1080p): search_kernel then stores the results itself (the reduce
 *   kernel was 5% of the search's time at +-16: results/kernel_steps.md).
 *
 * pass2_kernel: one thread per macroblock, the centre of its second pass
 *   (two candidates) from pass 1's 16x16 vectors (me_spec.h, cme_pass2_centre);
 *   then search_kernel (and reduce_kernel) run again at cme_pass2_range()
 *   (16 from range 32 on).
 *
 * pad_kernel: replicates frame edges into the CME_PAD border.
 *****************************************************************************/

#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <atomic>
#include <random>
#include <cuda.h>            /* the tensor map's types (no libcuda link) */
#if CUDART_VERSION >= 12000
#include <cudaTypedefs.h>    /* PFN_cuTensorMapEncodeTiled */
#endif

#include "me_spec.h"
#include "kernels.h"
#include "reduce.cuh"
#include "window.cuh"

#define MAX_THREADS 128
#define MAX_WARPS   (MAX_THREADS / 32)
/* A variant's threads per block at most, by its blocks per SM (MINB):
 * MAX_THREADS up to 4 blocks; 96 at 5 blocks, so that the compiler's
 * register cap is 65536 / (5 * 96) = 136 (with 128 threads a block, 5
 * blocks would cap it at 102), 64 from 6 blocks on. */
#define LB_THREADS( minb ) ((minb) <= 4 ? MAX_THREADS : (minb) == 5 ? 96 : 64)
/* and its register cap: 65536 / (minb * LB_THREADS( minb )), a multiple
 * of 8, at most 255 (__launch_bounds__( 96, 5 ) gets 128 from ptxas) */
#define LB_SHARE( minb ) (65536 / ((minb) * LB_THREADS( minb )))
#define LB_REGS( minb ) (LB_SHARE( minb ) > 255 ? 255 : LB_SHARE( minb ) & ~7)
#define MAX_RUNS     12 /* runs per thread (more than 8 only with 3 or 4 warps: search_geom()) */

/* Value ranges behind the 32-bit keys:
 *   cost <= 65280 + 2*65535 < 2^18, so cost << 14 < 2^32;
 *   a block of n runs spans at most (n + wx - 2) / wx + 1 run groups of K
 *   rows, so its raster indices are below (n + 2*wx) * K; search_geom()
 *   checks that this stays below 2^14. */
#define KEY_SHIFT 14

/* How a variant forms keys and keeps minima (search_run(), search_run_fma()). */
#define KEYS_CLASSIC 0   /* shifts and adds, one VIADDMNMX per partition and position */
#define KEYS_FMA     1   /* IMAD keys and merges, one VIMNMX3 per partition and 2 positions */
#define KEYS_PAIR    2   /* KEYS_FMA over runs of two columns 4 apart (search_run_fma(), C = 2) */
#define KEYS_CHAIN   3   /* KEYS_FMA with chained SADs and fewer IMADs (row_keys_chain()) */

static __device__ __forceinline__ uint32_t vabsdiff4_add( uint32_t a, uint32_t b, uint32_t c )
{
    uint32_t d;
    asm( "vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c) );
    return d;
}

/* best = min(x + kk, best): one instruction on sm_90. */
static __device__ __forceinline__ void upd( uint32_t &best, uint32_t x, uint32_t kk )
{
    best = __viaddmin_u32( x, kk, best );
}

/* First window row of run group g. */
static __host__ __device__ __forceinline__ int run_row( int g, int wy, int K )
{
    return cme_imin( g * K, wy - K );
}

static __host__ __device__ __forceinline__ int run_count( int wx, int wy, int K )
{
    return wx * ((wy + K - 1) / K);
}

/* One-row runs for a window's last rows (HROW() variants: K = 8 with the
 * key tables, v16 and v17).  Where a window's height leaves L = wy % K
 * rows, 1 <= L <= HROW_LMAX, after its full groups (+-48, +-64, +-128: 97,
 * 129, 257 rows, L = 1), those rows are not a group of K rows moved up
 * (7 of its 8 rows searched twice: 5.4% of +-64's positions) but runs of
 * one position each (search_run_fma() with K = 1), per of them a row.  Run
 * u of a macroblock: u < G*per (G = wy / K full groups) as before; then
 * up to the next multiple of 32, A, none (so that no warp runs both kinds:
 * A, u0 and the threads' strides are multiples of 32); from A, row
 * wy - L + (u - A) / per, column (u - A) % per.  A one-position run costs
 * about a quarter of a K = 8 run (its 16 rows' loads for one position, no
 * shared minima), so L rows of them against one group break even near
 * L = 4. */
#define HROW_LMAX 2
#define HROW( K, S ) ((K) == 8 && KEY_TABLES( S ))

static __host__ __device__ __forceinline__ int hrow_rows( int wy, int K )
{
    return wy % K <= HROW_LMAX ? wy % K : 0;
}

static __host__ __device__ __forceinline__ int hrow_start( int per, int wy, int K )
{
    return ((wy / K) * per + 31) & ~31;
}

/* Runs of a window: hr, whether the variant has HROW(). */
static __host__ __device__ __forceinline__ int run_total( int per, int wy, int K, int hr )
{
    const int L = hr ? hrow_rows( wy, K ) : 0;
    return L ? hrow_start( per, wy, K ) + L * per : run_count( per, wy, K );
}

/* Run u of a window with per runs a group (hr: HROW()): its first window
 * row, in *kr its rows (K, or 1 for a one-row run) and in *col its group
 * column (pair_col() of it with KEYS_PAIR), -1 for an idle run (HROW:
 * from the groups' end to A), whose rows are then those of the last
 * group's runs. */
static __host__ __device__ __forceinline__ int run_pos( int u, int per, int wy, int K, int hr, int *kr, int *col )
{
    const int L = hr ? hrow_rows( wy, K ) : 0;
    *kr = K;
    if( L && u >= hrow_start( per, wy, K ) )
    {
        const int v = u - hrow_start( per, wy, K ), r = (int)((unsigned)v / (unsigned)per);
        *kr = 1;
        *col = v - r * per;
        return wy - L + r;
    }
    if( L && u >= (wy / K) * per )
    {
        *col = -1;
        return wy - L - K;
    }
    const int g = (int)((unsigned)u / (unsigned)per);   /* unsigned: see cme_launch_window() */
    *col = u - g * per;
    return run_row( g, wy, K );
}

/* KEYS_PAIR: a run is two window columns a and a + 4 (search_run_fma()).
 * Column pairs of a window wx >= 8 wide: 4 per 8 columns (a = 8q + i,
 * i < 4), then E = min(wx % 8, 4) pairs for the last wx % 8 columns, moved
 * left to end on the window's last column (positions searched twice give
 * equal keys). */
static __host__ __device__ __forceinline__ int pair_count( int wx )
{
    return ((wx >> 3) << 2) + cme_imin( wx & 7, 4 );
}

static __host__ __device__ __forceinline__ int pair_col( int p, int wx )
{
    const int q4 = (wx >> 3) << 2;
    return p < q4 ? ((p >> 2) << 3) + (p & 3) : wx - 4 - cme_imin( wx & 7, 4 ) + (p - q4);
}

/* Words per shared row of the window.  The thread of window column c reads
 * s_win[row][c + off + 4*i], i = 0..3, c < wx, off <= 3: words j = 0 ..
 * wx + 14, so wx + 15 of them, rounded up to 16 words (the loads store
 * 4 uint4 of each row at a time, each from two aligned words of the frame:
 * they read up to 19 pixels right of the last one a block needs, see
 * CME_PAD). */
static __host__ __device__ __forceinline__ int row_words( int wx )
{
    return (wx + 30) & ~15;
}

/* Shared-memory layout, in 32-bit words.  s_win is 128-byte aligned: the
 * tensor copy's destination (BULK_S()). */
#define SMEM_CUR 0                          /* 16 rows x 4 words */
#define SMEM_RED 64                         /* [MAX_WARPS][NP] */
#define SMEM_BAR( np ) ((64 + MAX_WARPS * (np) + 1) & ~1)   /* the tensor copy's mbarrier, 8 bytes */
#define SMEM_WIN( np ) ((SMEM_BAR( np ) + 2 + 31) & ~31)
/* Variants with the key tables of step 1a': the fixed strides from +-32's
 * (80 words) on.  In small windows the tables' set-up weighs more than it
 * saves, so at +-16 (stride 48) and with the runtime stride the per-run
 * loads of the cost table stay (validation23, 1080p, without (call 1) and
 * with (call 3) tables: +-8 v15 0.0470 -> 0.0490 ms, +-16 v12 0.0929 ->
 * 0.0973, +-32 v15 0.2815 -> 0.2780). */
#define KEY_TABLES( s ) ((s) >= 80)
/* Variants that can copy the window from the 4-byte plane (cme_launch_t.xref,
 * launches up to CME_XPLANE_RANGE_MAX): all but those of the wide windows
 * (the key tables'), whose code stays as it was without the branch (with it
 * +-48/64 ran 0.5-0.8% slower without using it: validation24, call 3). */
#define XPLANE( s ) (!KEY_TABLES( s ))
/* Variants whose window can be one tensor copy (TMA, sm_90 on) from the
 * 4-byte plane: a fixed row stride, at most TMA's 256 elements a box row
 * (v14, v15, v16; v17's 272 keep their loads).  The launch asks for it
 * with cme_launch_t.i_xrows (the plane's rows) and a tensor map
 * (tma_map()); -DBULK=0 builds the kernels without it. */
#ifndef BULK
#define BULK (CUDART_VERSION >= 12000)   /* tensor maps: CUDA 12 */
#endif
#define TMA_BOX_MAX 256
#define BULK_S( s ) (BULK && (s) > 0 && (s) <= TMA_BOX_MAX)
/* after the window (search_geom_t.keytab): the key tables of step 1a',
 * search_geom_t.keyrows words for the rows of the block's runs, then one
 * word per window column (sized per launch: with a fixed 2 KB, +-64 at
 * 1080p lost its 4th block per SM to the shared memory) */

/* The 4x4 SADs of block row b (0..3) of one position are final: fold them
 * into every partition they complete.  s: SADs of block columns 0..3.
 * up: what the upper half of the current 8x8 row left behind; col: the 8x8
 * SADs of the top 8x8 row (for 8x16 and 16x16). */
template<int NP>
static __device__ __forceinline__ void block_row( const int b, const uint32_t s[4], uint32_t up[4],
                                                  uint32_t col[2], const uint32_t kk, uint32_t best[NP] )
{
    const uint32_t S0 = s[0] << KEY_SHIFT, S1 = s[1] << KEY_SHIFT, S2 = s[2] << KEY_SHIFT, S3 = s[3] << KEY_SHIFT;
    const int i8 = (b >> 1) * 2;   /* 8x8 on the left of this block row */
    const int j = b & 1;           /* upper or lower half of the 8x8 */
    const uint32_t h0 = S0 + S1, h1 = S2 + S3;
    uint32_t e0, e1;
    if( NP == CUDA_ME_NPART )
    {
        upd( best[CUDA_ME_PART_4x4 + 4*i8     + 2*j    ], S0, kk );
        upd( best[CUDA_ME_PART_4x4 + 4*i8     + 2*j + 1], S1, kk );
        upd( best[CUDA_ME_PART_4x4 + 4*i8 + 4 + 2*j    ], S2, kk );
        upd( best[CUDA_ME_PART_4x4 + 4*i8 + 4 + 2*j + 1], S3, kk );
        upd( best[CUDA_ME_PART_8x4 + 2*i8     + j], h0, kk );
        upd( best[CUDA_ME_PART_8x4 + 2*i8 + 2 + j], h1, kk );
        if( !j )
        {
            up[0] = S0; up[1] = S1; up[2] = S2; up[3] = S3;
            return;
        }
        const uint32_t v0 = up[0] + S0, v1 = up[1] + S1, v2 = up[2] + S2, v3 = up[3] + S3;
        upd( best[CUDA_ME_PART_4x8 + 2*i8    ], v0, kk );
        upd( best[CUDA_ME_PART_4x8 + 2*i8 + 1], v1, kk );
        upd( best[CUDA_ME_PART_4x8 + 2*i8 + 2], v2, kk );
        upd( best[CUDA_ME_PART_4x8 + 2*i8 + 3], v3, kk );
        e0 = v0 + v1;
        e1 = v2 + v3;
    }
    else
    {
        if( !j )
        {
            up[0] = h0; up[1] = h1;
            return;
        }
        e0 = up[0] + h0;
        e1 = up[1] + h1;
    }
    upd( best[CUDA_ME_PART_8x8 + i8    ], e0, kk );
    upd( best[CUDA_ME_PART_8x8 + i8 + 1], e1, kk );
    upd( best[CUDA_ME_PART_16x8 + (b >> 1)], e0 + e1, kk );
    if( b == 1 )
    {
        col[0] = e0;
        col[1] = e1;
    }
    else
    {
        const uint32_t l = col[0] + e0, r = col[1] + e1;
        upd( best[CUDA_ME_PART_8x16    ], l, kk );
        upd( best[CUDA_ME_PART_8x16 + 1], r, kk );
        upd( best[CUDA_ME_PART_16x16], l + r, kk );
    }
}

/* ---- KEYS_FMA: key formation and merges on the FMA pipe, two positions per min
 *
 * The classic path above spends about 124 ALU-pipe instructions per position
 * (sm_90 SASS, NP = 41): 64 VABSDIFF4, 41 min-updates (VIADDMNMX: the add of
 * kk and the min in one ALU instruction) and ~19 shifts and adds (LEA, SHF,
 * IADD3) for the merges.  The SADs and the mins have to stay on the ALU pipe,
 * which issues a warp instruction every other cycle; the FMA pipe (IMAD) is
 * as fast and was half idle.  So here:
 *   - every key is one IMAD: key = sad * sc + kk with sc = 1 << KEY_SHIFT a
 *     RUNTIME value (search_geom_t.key_scale: a constant shift would become
 *     LEA/SHF on the ALU pipe), and a merged partition's key is the key of
 *     one half plus the other half's SAD times sc (the same kk is added once:
 *     key(A+B) = sad_B * sc + key(A));
 *   - the raw SAD sums the larger partitions need are IMADs too (x * one + y,
 *     one = search_geom_t.one = 1 at run time, so the compiler cannot turn
 *     it into IADD3);
 *   - the keys of two positions k, k+1 enter a partition's best with one
 *     3-input min (VIMNMX3 on sm_90, two IMNMX emulated below): 1/2 ALU
 *     instruction per partition and position instead of 1.
 * Per position, NP = 41: 64 VABSDIFF4 + 20.5 VIMNMX3 on the ALU pipe, 52
 * IMAD on the FMA pipe (NP = 9: 64 + 4.5 ALU, 22 FMA).  Bit-identical keys:
 * sad * 2^14 + kk is the same number whichever way it is summed (no
 * overflow: cost << 14 < 2^32, see KEY_SHIFT). */

/* x * y + z, kept as one IMAD by runtime operands (y is sc or one). */
static __host__ __device__ __forceinline__ uint32_t mad( uint32_t x, uint32_t y, uint32_t z )
{
    return x * y + z;
}

/* Partitions whose keys block row b completes, in the order row_keys()
 * writes them (x264 partition numbers, me_spec.h). */
static __host__ __device__ constexpr int row_nkeys( int np, int b )
{
    return np == CUDA_ME_NPART ? (b & 1 ? (b == 1 ? 4+2+4+2+1 : 4+2+4+2+1+3) : 4+2)
                               : (b & 1 ? (b == 1 ? 2+1 : 2+1+3) : 0);
}

static __host__ __device__ constexpr int row_part( int np, int b, int n )
{
#define P4x4( q, i ) (CUDA_ME_PART_4x4 + 4*(q) + (i))
    /* 4x4 blocks of block row b: columns 0,1 in 8x8 i8, columns 2,3 in i8 + 1 */
    return np == CUDA_ME_NPART ?
        (n < 4  ? P4x4( (b >> 1)*2 + (n >> 1), 2*(b & 1) + (n & 1) ) :
         n < 6  ? CUDA_ME_PART_8x4 + 2*((b >> 1)*2 + (n - 4)) + (b & 1) :
         n < 10 ? CUDA_ME_PART_4x8 + 2*((b >> 1)*2 + ((n - 6) >> 1)) + ((n - 6) & 1) :
         n < 12 ? CUDA_ME_PART_8x8 + (b >> 1)*2 + (n - 10) :
         n < 13 ? CUDA_ME_PART_16x8 + (b >> 1) :
         n < 15 ? CUDA_ME_PART_8x16 + (n - 13) : CUDA_ME_PART_16x16)
      : (n < 2 ? CUDA_ME_PART_8x8 + (b >> 1)*2 + n :
         n < 3 ? CUDA_ME_PART_16x8 + (b >> 1) :
         n < 5 ? CUDA_ME_PART_8x16 + (n - 3) : CUDA_ME_PART_16x16);
#undef P4x4
}

/* What a position carries from one block row to the next (raw SADs). */
typedef struct fma_state_t
{
    uint32_t up[4];   /* 4x4 SADs of the upper block row of the 8x8 row (NP = 41) */
    uint32_t u[2];    /* 8x4 SADs of that row: left, right 8x8 */
    uint32_t col[2];  /* 8x8 SADs of the top 8x8 row: left, right */
    uint32_t top;     /* 16x8 SAD of the top row */
    /* row_keys_chain() (KEYS_CHAIN) */
    uint32_t q1;      /* SAD of the top right 8x8 times sc */
    uint32_t kq0;     /* key of the top left 8x8 */
    uint32_t t;       /* the top 16x8's SAD times sc */
} fma_state_t;

/* The keys of the partitions block row b completes, into key[row_nkeys()]
 * (order: row_part()).  s: the 4x4 SADs of block columns 0..3. */
template<int NP>
static __host__ __device__ __forceinline__ void row_keys( const int b, const uint32_t s[4], fma_state_t &st, const uint32_t kk,
                                                 const uint32_t sc, const uint32_t one, uint32_t key[16] )
{
    const int j = b & 1;
    if( NP == CUDA_ME_NPART )
    {
        const uint32_t k0 = mad( s[0], sc, kk ), k1 = mad( s[1], sc, kk );
        const uint32_t k2 = mad( s[2], sc, kk ), k3 = mad( s[3], sc, kk );
        key[0] = k0; key[1] = k1; key[2] = k2; key[3] = k3;
        const uint32_t hl = mad( s[1], sc, k0 ), hr = mad( s[3], sc, k2 );   /* 8x4 */
        key[4] = hl; key[5] = hr;
        if( !j )
        {
            st.up[0] = s[0]; st.up[1] = s[1]; st.up[2] = s[2]; st.up[3] = s[3];
            st.u[0] = mad( s[0], one, s[1] );
            st.u[1] = mad( s[2], one, s[3] );
            return;
        }
        key[6] = mad( st.up[0], sc, k0 );   /* 4x8 */
        key[7] = mad( st.up[1], sc, k1 );
        key[8] = mad( st.up[2], sc, k2 );
        key[9] = mad( st.up[3], sc, k3 );
        const uint32_t el = mad( st.u[0], sc, hl ), er = mad( st.u[1], sc, hr );   /* 8x8 */
        key[10] = el; key[11] = er;
        /* the right 8x8's SAD; the left one only where a later row needs it */
        const uint32_t sr = mad( s[2], one, mad( s[3], one, st.u[1] ) );
        const uint32_t row = mad( sr, sc, el );   /* 16x8 */
        key[12] = row;
        if( b == 1 )
        {
            st.col[0] = mad( s[0], one, mad( s[1], one, st.u[0] ) );
            st.col[1] = sr;
            st.top = mad( st.col[0], one, sr );
            return;
        }
        key[13] = mad( st.col[0], sc, el );    /* 8x16 */
        key[14] = mad( st.col[1], sc, er );
        key[15] = mad( st.top, sc, row );      /* 16x16 */
    }
    else
    {
        if( !j )
        {
            st.u[0] = mad( s[0], one, s[1] );
            st.u[1] = mad( s[2], one, s[3] );
            return;
        }
        const uint32_t sl = mad( s[0], one, mad( s[1], one, st.u[0] ) );
        const uint32_t sr = mad( s[2], one, mad( s[3], one, st.u[1] ) );
        const uint32_t el = mad( sl, sc, kk );
        key[0] = el;
        key[1] = mad( sr, sc, kk );
        const uint32_t row = mad( sr, sc, el );
        key[2] = row;
        if( b == 1 )
        {
            st.col[0] = sl;
            st.col[1] = sr;
            st.top = mad( sl, one, sr );
            return;
        }
        key[3] = mad( st.col[0], sc, el );
        key[4] = mad( st.col[1], sc, key[1] );
        key[5] = mad( st.top, sc, row );
    }
}

/* ---- KEYS_CHAIN: fewer IMADs from chained SADs (NP = 41, C = 1)
 *
 * vabsdiff4's accumulator makes a sum of 4x4 SADs free: the lower 4x4
 * block of block columns 0 and 2 in each 8x8 row accumulates on the upper
 * one's SAD (search_run_fma(): reset every 8 rows there, every 4 rows in
 * columns 1 and 3), so block row b = 1, 3 hands over s = (a0 + c0, c1,
 * a2 + c2, c3), with a0..a3 the upper row's SADs (kept in st.up).  A key
 * is then one IMAD from kk or from another key, where row_keys() also
 * makes the raw sums its merges need (52 IMADs a position): per 8x8 row
 * of a quadrant (a b / c d) the upper row's k_a = a sc + kk, k_b, k_ab =
 * b sc + k_a; the lower row's k_ac = (a+c) sc + kk, k_c = k_ac - a sc (nsc
 * = -sc modulo 2^32), k_d = d sc + kk, k_cd = d sc + k_c, k_bd = b sc +
 * k_d, k_abcd = (a+c) sc + k_bd: 9 IMADs for its 9 keys.  The 16x8s, 8x16s
 * and the 16x16 from the 8x8 keys k_Q0..k_Q3 and the SADs times sc of the
 * top right (Q1) and bottom left (Q2) 8x8, each one IMAD from its key
 * (q = k_Q - kk, m1 = -1): top = k_Q0 + q1, bottom = k_Q3 + q2, left =
 * k_Q0 + q2, right = k_Q3 + q1, 16x16 = bottom + (top - kk).  44 IMADs a
 * position, every key the same number as row_keys()'s: the sums are exact
 * modulo 2^32 and each key is below 2^32 (KEY_SHIFT). */
static __host__ __device__ __forceinline__ void row_keys_chain( const int b, const uint32_t s[4], fma_state_t &st,
                                                                const uint32_t kk, const uint32_t sc, const uint32_t nsc,
                                                                const uint32_t one, const uint32_t m1, uint32_t key[16] )
{
    if( !(b & 1) )
    {
        const uint32_t k0 = mad( s[0], sc, kk ), k2 = mad( s[2], sc, kk );
        key[0] = k0;
        key[1] = mad( s[1], sc, kk );
        key[2] = k2;
        key[3] = mad( s[3], sc, kk );
        key[4] = mad( s[1], sc, k0 );   /* 8x4 */
        key[5] = mad( s[3], sc, k2 );
        st.up[0] = s[0]; st.up[1] = s[1]; st.up[2] = s[2]; st.up[3] = s[3];
        return;
    }
    /* s[0], s[2]: 4x8 SADs (a + c); s[1], s[3]: 4x4 SADs (d) */
    const uint32_t kv0 = mad( s[0], sc, kk ), kv2 = mad( s[2], sc, kk );
    const uint32_t kc0 = mad( st.up[0], nsc, kv0 ), kc2 = mad( st.up[2], nsc, kv2 );
    const uint32_t kd1 = mad( s[1], sc, kk ), kd3 = mad( s[3], sc, kk );
    key[0] = kc0; key[1] = kd1; key[2] = kc2; key[3] = kd3;
    key[4] = mad( s[1], sc, kc0 );   /* 8x4 */
    key[5] = mad( s[3], sc, kc2 );
    const uint32_t kw1 = mad( st.up[1], sc, kd1 ), kw3 = mad( st.up[3], sc, kd3 );
    key[6] = kv0; key[7] = kw1; key[8] = kv2; key[9] = kw3;   /* 4x8 */
    const uint32_t el = mad( s[0], sc, kw1 ), er = mad( s[2], sc, kw3 );   /* 8x8 */
    key[10] = el; key[11] = er;
    if( b == 1 )
    {
        const uint32_t q1 = mad( kk, m1, er );   /* the top right 8x8's SAD times sc */
        const uint32_t top = mad( q1, one, el );   /* 16x8 */
        key[12] = top;
        st.q1 = q1;
        st.kq0 = el;
        st.t = mad( kk, m1, top );
        return;
    }
    const uint32_t q2 = mad( kk, m1, el );   /* the bottom left's */
    const uint32_t bottom = mad( q2, one, er );
    key[12] = bottom;
    key[13] = mad( q2, one, st.kq0 );   /* 8x16 */
    key[14] = mad( st.q1, one, er );
    key[15] = mad( st.t, one, bottom );   /* 16x16 */
}

/* 16 bytes from global to shared memory without registers (sm_80 on);
 * complete after cp.async.wait_all. */
static __device__ __forceinline__ void cp_async16( const uint32_t s, const void *g )
{
    asm volatile( "cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(s), "l"(g) : "memory" );
}

/* The window as one tensor copy (BULK_S()): thread 0 readies the mbarrier
 * at bar (shared-memory byte address) for one arrival and the copy's bytes,
 * then copies the box at element (x, y) of map to dst (128-byte aligned);
 * elements outside the tensor read as 0.  Thread 0 then waits with
 * tma_wait() (its acquire) before the block's __syncthreads(), which
 * orders the copy's writes before every other thread's reads.  sm_90 on. */
/* A tensor map, as CUtensorMap (CUDA 12 on) but for any toolkit. */
typedef struct __align__( 128 ) tma_map_t
{
    uint64_t opaque[16];
} tma_map_t;

static __device__ __forceinline__ void tma_init( const uint32_t bar )
{
#if __CUDA_ARCH__ >= 900
    asm volatile( "mbarrier.init.shared::cta.b64 [%0], 1;\n\t"
                  "fence.mbarrier_init.release.cluster;" :: "r"(bar) : "memory" );
#endif
}

/* INIT: the mbarrier readied here (a block's only copy); otherwise by
 * tma_init() once, before the first of the block's copies (SK: one a
 * macroblock, copy i completing the barrier's phase i, tma_wait()'s
 * parity i & 1).  The proxy fence orders the block's earlier generic reads
 * of dst (behind a __syncthreads()) before the copy's writes. */
template<int INIT>
static __device__ __forceinline__ void tma_issue( const tma_map_t *map, const uint32_t dst, const uint32_t bar,
                                                  const int x, const int y, const uint32_t bytes )
{
#if __CUDA_ARCH__ >= 900
    if( INIT )
        tma_init( bar );
    asm volatile( "fence.proxy.async.shared::cta;\n\t"
                  "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n\t"
                  "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%2], [%3, {%4, %5}], [%0];"
                  :: "r"(bar), "r"(bytes), "r"(dst), "l"(map), "r"(x), "r"(y) : "memory" );
#endif
}

static __device__ __forceinline__ void tma_wait( const uint32_t bar, const uint32_t parity )
{
#if __CUDA_ARCH__ >= 900
    asm volatile( "{\n\t.reg .pred P;\n"
                  "TMA_WAIT:\n\t"
                  "mbarrier.try_wait.parity.shared::cta.b64 P, [%0], %1;\n\t"
                  "@!P bra TMA_WAIT;\n\t}"
                  :: "r"(bar), "r"(parity) : "memory" );
#endif
}

static __device__ __forceinline__ void load_row( uint32_t r[4], const uint32_t *p )
{
    r[0] = p[0]; r[1] = p[4]; r[2] = p[8]; r[3] = p[12];
}

/* The same from a 32-bit shared-memory byte address (KEYS_FMA): the row
 * addresses are then a chain of IMADs (a + rowbytes * one) on the FMA pipe,
 * where the generic pointers above cost an add and a LEA (ALU) per row. */
static __device__ __forceinline__ void load_row_s( uint32_t r[4], const uint32_t a )
{
    asm volatile( "ld.shared.u32 %0, [%4];\n\t"
                  "ld.shared.u32 %1, [%4+16];\n\t"
                  "ld.shared.u32 %2, [%4+32];\n\t"
                  "ld.shared.u32 %3, [%4+48];"
                  : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a) );
}

/* Steps 1 and 2 for the K positions of one run, KEYS_CLASSIC (block_row()).
 * rw: the run's first reference row in s_win, at the run's column. */
template<int NP, int K>
static __device__ __forceinline__ void search_run( const uint4 *s_cur, const uint32_t *rw, const int rowlen,
                                                   const uint32_t kk[K], uint32_t best[NP] )
{
    uint32_t ref[K][4], acc[K][4], up[K][4], col[K][2];
#pragma unroll
    for( int i = 0; i < K - 1; i++ )
        load_row( ref[i], rw + i * rowlen );
#pragma unroll
    for( int m = 0; m < 16; m++ )
    {
        load_row( ref[(m + K - 1) % K], rw + (m + K - 1) * rowlen );
        const uint4 c = s_cur[m];
#pragma unroll
        for( int k = 0; k < K; k++ )
        {
            const uint32_t *r = ref[(m + k) % K];
            const bool first = !(m & 3);
            acc[k][0] = vabsdiff4_add( c.x, r[0], first ? 0u : acc[k][0] );
            acc[k][1] = vabsdiff4_add( c.y, r[1], first ? 0u : acc[k][1] );
            acc[k][2] = vabsdiff4_add( c.z, r[2], first ? 0u : acc[k][2] );
            acc[k][3] = vabsdiff4_add( c.w, r[3], first ? 0u : acc[k][3] );
        }
        if( (m & 3) == 3 )
        {
#pragma unroll
            for( int k = 0; k < K; k++ )
                block_row<NP>( m >> 2, acc[k], up[k], col[k], kk[k], best );
        }
    }
}

/* Five words of a window row for a pair of columns 4 apart: the first
 * column's four at [a], [a+16], [a+32], [a+48], the second's from [a+16]. */
static __device__ __forceinline__ void load_row5_s( uint32_t r[5], const uint32_t a )
{
    asm volatile( "ld.shared.u32 %0, [%5];\n\t"
                  "ld.shared.u32 %1, [%5+16];\n\t"
                  "ld.shared.u32 %2, [%5+32];\n\t"
                  "ld.shared.u32 %3, [%5+48];\n\t"
                  "ld.shared.u32 %4, [%5+64];"
                  : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]) : "r"(a) );
}

/* A window row's 3 + C words for C columns 4 apart (1 or 2). */
template<int C>
static __device__ __forceinline__ void load_row_c( uint32_t r[3 + C], const uint32_t a )
{
    if( C == 1 )
        load_row_s( r, a );
    else
        load_row5_s( r, a );
}

/* A window row's 3 + C words from a shared-memory pointer: with a stride
 * known at compile time (variants with a fixed row stride S) the rows of a
 * run are then one base register plus immediate offsets, where the 32-bit
 * addresses of load_row_c() cost an IMAD (and often a move) per row. */
template<int C>
static __device__ __forceinline__ void load_row_p( uint32_t r[3 + C], const uint32_t *p )
{
#pragma unroll
    for( int i = 0; i < 3 + C; i++ )
        r[i] = p[4*i];
}

/* Steps 1 and 2 for the C*K positions of a run of K rows in C columns 4
 * apart (KEYS_FMA: C = 1; KEYS_PAIR: C = 2), keys by row_keys() and a
 * 3-input min per pair of positions.  Position p = C*k + h is row k of
 * column h; kka, kkb: the keys' MV cost and raster parts of row k in the
 * first and the second column (kkb: C = 2 only).  With C = 2 the second
 * column's 4x4 blocks read 3 of the first's 4 words per row (s_win[row][j]
 * holds the 4 pixels from column j), so a row costs 5 shared loads for 2
 * positions instead of 8, and the window's rows are cut into runs of K as
 * for one column: more positions per row loaded without the taller runs'
 * rows searched twice at the window's bottom (+-16: 33 rows, 36 searched
 * in runs of 4, 40 in runs of 8); the two positions of a row share a min.
 * With C = 1 the pairs are rows k, k+1.  (One function for both since the
 * twenty-first session: the same SASS, instruction for instruction, as the
 * two it replaced, on every architecture built.) */
template<int NP, int K, int C, int S, int CH = 0>
static __device__ __forceinline__ void search_run_fma( const uint4 *s_cur, const uint32_t *rw, const int rowlen,
                                                       const uint32_t kka[K], const uint32_t kkb[K], const uint32_t sc,
                                                       const uint32_t one, uint32_t best[NP] )
{
    const int P = C * K;
    /* CH: KEYS_CHAIN's keys (row_keys_chain(): NP = 41, C = 1 only) */
    const bool CHN = CH && NP == CUDA_ME_NPART && C == 1;
    const uint32_t nsc = 0u - sc, m1 = 0u - one;
    uint32_t ref[K][3 + C], acc[P][4];
    fma_state_t st[P];
    uint32_t ra = (uint32_t)__cvta_generic_to_shared( rw );   /* address of the next row (S = 0) */
    const uint32_t rowbytes = 4 * rowlen;
#pragma unroll
    for( int i = 0; i < K - 1; i++ )
    {
        if( S )
            load_row_p<C>( ref[i], rw + S * i );
        else
        {
            load_row_c<C>( ref[i], ra );
            ra = mad( rowbytes, one, ra );
        }
    }
#pragma unroll
    for( int m = 0; m < 16; m++ )
    {
        if( S )
        {
            load_row_p<C>( ref[(m + K - 1) % K], rw + S * (m + K - 1) );
            asm volatile( "" ::: "memory" );   /* the row's loads here, as with load_row_c() */
        }
        else
        {
            load_row_c<C>( ref[(m + K - 1) % K], ra );
            ra = mad( rowbytes, one, ra );
        }
        const uint4 c = s_cur[m];
        const bool first = !(m & 3);
        /* KEYS_CHAIN: block columns 0 and 2 sum on over an 8x8 row */
        const bool first02 = CHN ? !(m & 7) : first;
#pragma unroll
        for( int k = 0; k < K; k++ )
        {
            const uint32_t *r = ref[(m + k) % K];
#pragma unroll
            for( int h = 0; h < C; h++ )
            {
                uint32_t *ac = acc[C*k + h];
                ac[0] = vabsdiff4_add( c.x, r[h    ], first02 ? 0u : ac[0] );
                ac[1] = vabsdiff4_add( c.y, r[h + 1], first ? 0u : ac[1] );
                ac[2] = vabsdiff4_add( c.z, r[h + 2], first02 ? 0u : ac[2] );
                ac[3] = vabsdiff4_add( c.w, r[h + 3], first ? 0u : ac[3] );
            }
        }
        if( (m & 3) == 3 )
        {
            const int b = m >> 2, n = row_nkeys( NP, b );
#pragma unroll
            for( int p = 0; p < P; p += 2 )
            {
                uint32_t ka[16], kb[16];
                /* the keys of position q (key base kq) */
                auto keys = [&]( const int q, const uint32_t kq, uint32_t key[16] )
                {
                    if( CHN )
                        row_keys_chain( b, acc[q], st[q], kq, sc, nsc, one, m1, key );
                    else
                        row_keys<NP>( b, acc[q], st[q], kq, sc, one, key );
                };
                keys( p, C == 1 ? kka[p] : kka[p/2], ka );
                if( p + 1 < P )
                    keys( p + 1, C == 1 ? kka[p+1] : kkb[p/2], kb );
#pragma unroll
                for( int i = 0; i < 16; i++ )
                    if( i < n )
                    {
                        uint32_t &bp = best[row_part( NP, b, i )];
                        bp = p + 1 < P ? __vimin3_u32( bp, ka[i], kb[i] ) : min( bp, ka[i] );
                    }
            }
        }
    }
}

typedef struct search_geom_t
{
    int threads;          /* per block, a multiple of 32 */
    int runs_per_thread;
    int nb;               /* blocks per macroblock */
    size_t smem;          /* dynamic shared memory, bytes */
    uint32_t key_scale;   /* 1 << KEY_SHIFT and 1, passed at run time so */
    uint32_t one;         /* that KEYS_FMA's products stay IMADs */
    int keytab, keyrows;  /* the key tables' offset in shared memory (words) and their rows */
    int winrows;          /* rows of the window's shared memory (S: its stride), 0: no S */
    int runs;             /* the most runs of a macroblock's window (SK: each one's share of the work) */
    int sk_n;             /* SK launches: blocks (set per launch) */
    unsigned long long epoch;   /* SK launches: this launch's number (set per launch) */
} search_geom_t;

/* Stream-K (SK variants, the thirty-seventh session): a launch of sk_n
 * blocks, as many as the device holds at once, each searching an equal
 * share of the frame's runs (macroblock mb's runs at mb * runs .. mb *
 * runs + its run count) in raster order, so that every block ends at
 * about the same time where one block per macroblock ends in a last,
 * part-filled wave (results/kernel_steps.md).  sk_n <= macroblocks, so a
 * share is at least a macroblock long and a macroblock is split between
 * at most two blocks: block b's last (the "head", keys of its runs) and
 * block b + 1's first (the "tail").  Split boundary b (1 .. sk_n - 1):
 * head and tail keys at blk_keys[(b - 1) * 2 * NP + {0, NP} + p], its
 * flag at blk_keys[(sk_n - 1) * 2 * NP + b - 1].  Each piece stores its
 * keys, then swaps the launch's epoch into the flag: the piece that finds
 * the epoch there already is the second, takes the minimum of both and
 * stores the results.  Epochs grow by one a launch from a random 64-bit
 * start, so a flag left by an earlier launch (or never written) is never
 * the current one. */
#define SK_SCRATCH( n, np ) ((size_t)((n) - 1) * (2 * (np) + 1))

/* A split macroblock's piece (SK): its keys (thread p < NP: partition p's,
 * k64) to its half of the boundary's scratch, then the flag; the second
 * piece stores the results.  SPLIT 1: the block's last macroblock (head),
 * 2: its first (tail).  Every thread of the block calls it. */
template<int NP>
static __device__ __forceinline__ void sk_finish( const cme_launch_t &a, const search_geom_t &geo,
                                                  const cme_window_t &w, const int mb, const int split,
                                                  const uint64_t k64, uint32_t *s_flag )
{
    const int t = threadIdx.x;
    const int bd = split == 1 ? blockIdx.x + 1 : blockIdx.x;   /* the boundary */
    uint64_t *keys = a.blk_keys + (size_t)(bd - 1) * 2 * NP;
    unsigned long long *flag = (unsigned long long*)a.blk_keys + (size_t)(geo.sk_n - 1) * 2 * NP + bd - 1;
    if( t < NP )
    {
        keys[(split == 1 ? 0 : NP) + t] = k64;
        __threadfence();
    }
    __syncthreads();
    if( !t )
        *s_flag = atomicExch( flag, geo.epoch ) == geo.epoch;
    __syncthreads();
    if( *s_flag )
    {
        __threadfence();
        if( t < NP )
        {
            const uint64_t o = __ldcg( keys + (split == 1 ? NP : 0) + t );
            cme_store_key<NP>( a, w, mb, t, min( k64, o ) );
        }
    }
}

/* SK: a block's state in shared memory (words from SMEM_BAR( NP ) + 3):
 * its current macroblock, the window copies it made, its share's first
 * and last run + 1.  Read where needed rather than kept in registers
 * across the runs (search_kernel's registers are all taken there). */
#define SK_MB 0
#define SK_IT 1
#define SK_W0 2
#define SK_W1 3

/* SK: the runs u0 .. u1 - 1 of macroblock mb that are the block's, and
 * whether the macroblock is split (sk_finish()'s split, 0: whole). */
static __device__ __forceinline__ int sk_piece( const int R, const volatile uint32_t *s_st, const int mb,
                                                int *u0, int *u1 )
{
    const int base = mb * R;
    *u0 = cme_imax( (int)s_st[SK_W0] - base, 0 );
    *u1 = cme_imin( (int)s_st[SK_W1] - base, R );
    return *u0 > 0 ? 2 : *u1 < R ? 1 : 0;
}

/* Macroblock mb's runs u0 .. u1max - 1 (at most its run count): one block
 * of search_kernel (SK 0); SK 1: the block's current macroblock and its
 * piece (sk_piece(); the arguments unused).  Returns 1 where it searched
 * (copied a window), 0 where the piece has no runs. */
template<int NP, int K, int MINB, int KEYS, int S, int X, int SK>
static __device__ __forceinline__ int search_mb( const cme_launch_t &a, const search_geom_t &geo, const tma_map_t &tm,
                                                  const int mb_arg, const int u0_arg, const int u1max_arg )
{
    extern __shared__ __align__( 128 ) uint4 smem4[];
    uint32_t *smem = (uint32_t*)smem4;
    const uint4 *s_cur = smem4 + SMEM_CUR / 4;
    uint32_t *s_red = smem + SMEM_RED;
    uint32_t *s_win = smem + SMEM_WIN( NP );
    uint32_t *s_rowkey = smem + geo.keytab, *s_colkey = s_rowkey + geo.keyrows;

    const int t = threadIdx.x, nt = blockDim.x;
    volatile uint32_t *s_st = smem + SMEM_BAR( NP ) + 3;
    const int mb = SK ? (int)s_st[SK_MB] : mb_arg;
    int u0 = u0_arg, u1max = u1max_arg, split = 0;
    if( SK )
        split = sk_piece( geo.runs, s_st, mb, &u0, &u1max );
    int mb_x, mb_y;
    const cme_window_t w = cme_launch_window( a, mb, &mb_x, &mb_y );
    const int wx = w.x_max - w.x_min + 1, wy = w.y_max - w.y_min + 1;
    const bool PAIR = KEYS == KEYS_PAIR;
    const int per = PAIR ? pair_count( wx ) : wx;   /* runs per run group (K window rows) */
    const bool HR = HROW( K, S );
    const int runs = run_total( per, wy, K, HR );
    uint64_t *bk = a.blk_keys + ((size_t)mb * geo.nb + blockIdx.y) * NP;
    uint32_t *s_flag = smem + SMEM_BAR( NP ) + 2;
    if( u0 >= runs )   /* edge macroblocks have smaller windows (never with nb = 1: u0 = 0) */
    {
        if( SK )   /* a piece with no runs (split: the others are in the other piece) */
        {
            if( split )
                sk_finish<NP>( a, geo, w, mb, split, CME_KEY_NONE, s_flag );
        }
        else
            for( int p = t; p < NP; p += nt )
                bk[p] = CME_KEY_NONE;
        return 0;
    }
    const int u1 = cme_imin( u1max, runs );
    int klo, khi, clo, chi;
    const int row_lo = run_pos( u0, per, wy, K, HR, &klo, &clo );
    const int nrows = run_pos( u1 - 1, per, wy, K, HR, &khi, &chi ) - row_lo + khi + 15;
    const int x0 = 16*mb_x + w.x_min, off = x0 & 3;
    /* words a row holds (row_words()); its stride in s_win: S if the
     * variant fixes it (at least row_words( wx ): search_geom()) */
    const int nq = row_words( wx ) / 4, rowlen = S ? S : 4 * nq;

    /* Step 1a: the macroblock and the window, once per block. */
    const uint32_t s0 = (uint32_t)__cvta_generic_to_shared( s_win );
    const uint32_t bar = (uint32_t)__cvta_generic_to_shared( smem + SMEM_BAR( NP ) );
#if __CUDA_ARCH__ >= 900
    const bool bulk = X && BULK_S( S );
#else
    const bool bulk = false;   /* never launched there (tma_map()) */
#endif
    if( bulk )
    {
        if( s0 & 127 )   /* the copy's destination (extern __shared__ __align__ above) */
            __trap();
        /* the window as one tensor copy of geo.winrows rows of S words
         * (what s_win holds: search_geom()) from the 4-byte plane, whose
         * tensor starts at its allocation (CME_PAD rows and columns before
         * pixel (0,0)): no instructions but thread 0's, where the loads
         * below cost every warp ~185 at +-32 and waited behind the other
         * blocks' SADs on the ALU pipe (results/kernel_steps.md) */
        if( !t )
            tma_issue<!SK>( &tm, s0, bar, CME_PAD + x0 - off, CME_PAD + 16*mb_y + w.y_min + row_lo,
                       (uint32_t)(geo.winrows * S * 4) );
        if( t < 16 )
            smem4[SMEM_CUR / 4 + t] = *(const uint4*)(a.cur + (16*mb_y + t) * a.i_pitch + 16*mb_x);
    }
    else if( XPLANE( S ) && a.xref )
    {
        /* from the reference's 4-byte plane (cme_cuda_xplane()):
         * its words are s_win's as they are, so a row is nq copies of 16
         * bytes, made by cp.async: no registers, no funnel shifts, and all
         * of a thread's copies in flight at once, where the loads below
         * wait on global memory once per quad (issue 13: with the window's
         * loads taken out, +-16 ran 7% faster, session 24, call 1).  The
         * copies' addresses are 16-byte aligned: x0 - off and the pitch
         * are multiples of 4 words (cme_cuda_search_marked()). */
        const uint32_t *xbase = a.xref + (16*mb_y + w.y_min + row_lo) * a.i_pitch + (x0 - off);
        const int n = nrows * nq, dr = nt / nq, dq = nt - dr * nq;
        int r = t / nq, q = t - r * nq;
        for( int i = t; i < n; i += nt )
        {
            cp_async16( s0 + 4 * (r * rowlen + 4 * q), xbase + r * a.i_pitch + 4 * q );
            r += dr;
            q += dq;
            if( q >= nq )
            {
                q -= nq;
                r++;
            }
        }
        if( t < 16 )
            cp_async16( (uint32_t)__cvta_generic_to_shared( smem4 + SMEM_CUR / 4 + t ),
                        a.cur + (16*mb_y + t) * a.i_pitch + 16*mb_x );
        asm volatile( "cp.async.wait_all;" ::: "memory" );
    }
    else
    {
        /* without it (xref NULL), from the plane itself: a row's nq
         * groups (4 window columns each, from 2 aligned words of the frame; nq a
         * multiple of 4, row_words()) are taken G = nq / 4 at a time: thread t
         * does "quads" (row r, group q < G), i.e. groups q, q + G, q + 2G, q + 3G
         * of row r, quads t, t + nt, ...  So the index walk is paid once per 4
         * groups, the addresses are IMADs (the ALU pipe is the one the SADs
         * need: results/kernel_steps.md), and the lanes of a warp store
         * consecutive uint4s (4 groups of one lane side by side would be 4-way
         * bank conflicts).  A quad's 8 loads are in flight together before any
         * is stored (with one group at a time the warps waited on memory and
         * then at the barrier: ncu, 1.1-1.9 of the 5.8-6.0 cycles per issued
         * instruction; two or four quads in flight were 2-4% slower than one:
         * results/kernel_steps.md); (r, q) advance without a division. */
        if( t < 16 )
            smem4[SMEM_CUR / 4 + t] = *(const uint4*)(a.cur + (16*mb_y + t) * a.i_pitch + 16*mb_x);
        const uint32_t *wbase = (const uint32_t*)(a.ref + (16*mb_y + w.y_min + row_lo) * a.i_pitch + (x0 - off));
        const uint32_t one = geo.one, pw = a.i_pitch >> 2;
        const int G = nq >> 2, n = nrows * G, dr = nt / G, dq = nt - dr * G;
        int r = t / G, q = t - r * G;
        for( int i = t; i < n; i += nt )
        {
            /* groups q + m*G: frame words q + m*G and the next */
            const uint32_t w0 = mad( (uint32_t)r, pw, (uint32_t)q );
            uint32_t lo[4], hi[4];
#pragma unroll
            for( int m = 0; m < 4; m++ )
            {
                const uint32_t *src = wbase + mad( (uint32_t)(m * G), one, w0 );
                lo[m] = __ldg( src );
                hi[m] = __ldg( src + 1 );
            }
            const uint32_t at = mad( (uint32_t)r, 4 * rowlen, mad( (uint32_t)q, 16, s0 ) );
            r += dr;
            q += dq;
            if( q >= G )
            {
                q -= G;
                r++;
            }
#pragma unroll
            for( int m = 0; m < 4; m++ )
                asm volatile( "st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::
                              "r"(mad( (uint32_t)(16 * m * G), one, at )), "r"(lo[m]),
                              "r"(__funnelshift_r( lo[m], hi[m], 8 )), "r"(__funnelshift_r( lo[m], hi[m], 16 )),
                              "r"(__funnelshift_r( lo[m], hi[m], 24 )) : "memory" );
        }
    }
    /* Step 1a': the keys' MV cost and raster parts, per window row of the
     * block's runs and per window column: a position's key base is the sum
     * of its row's and its column's, cost << 14 plus the raster index
     * relative to the block's first row (< 2^32: see KEY_SHIFT), so a run
     * costs a shared load per row and one for its column instead of the
     * cost table's global loads, the index and the key arithmetic.  Only
     * in the variants of KEY_TABLES(). */
    if( KEY_TABLES( S ) )
    {
        /* not unrolled: an unrolled loop's remainder arithmetic cost more
         * ALU instructions than the loop (twenty-ninth session) */
#pragma unroll 1
        for( int i = t; i < nrows - 15; i += nt )
        {
            const uint32_t mvc = a.mv_cost ? a.mv_cost[2*a.i_range + w.y_min + row_lo + i - w.cy] : 0;
            s_rowkey[i] = (mvc << KEY_SHIFT) + (uint32_t)(i * wx);
        }
#pragma unroll 1
        for( int i = t; i < wx; i += nt )
        {
            const uint32_t mvc = a.mv_cost ? a.mv_cost[2*a.i_range + w.x_min + i - w.cx] : 0;
            s_colkey[i] = (mvc << KEY_SHIFT) + (uint32_t)i;
        }
    }
    /* thread 0 waits for the tensor copy (its acquire), the barrier
     * then orders the copy's writes before every thread's reads */
    if( bulk && !t )
        tma_wait( bar, SK ? s_st[SK_IT] & 1 : 0 );
    __syncthreads();

    /* Steps 1b and 2a: this thread's runs u0 + t, u0 + t + nt, ...  Keys are
     * cost << 14 | raster index relative to the block's first row, which
     * orders positions exactly as the window's raster order does. */
    uint32_t best[NP];
#pragma unroll
    for( int p = 0; p < NP; p++ )
        best[p] = ~0u;
    /* run u = g * per + c: (g, c) advance by nt without a division; the
     * run's (first) window column is c, or pair_col( c ) with KEYS_PAIR */
    const int dg = (int)((unsigned)nt / (unsigned)per), dc = nt - dg * per;
    int g = (int)((unsigned)(u0 + t) / (unsigned)per), c = u0 + t - g * per;
    /* HROW: the full groups' runs end at ufull, the one-row runs start at ua */
    const int L = HR ? hrow_rows( wy, K ) : 0;
    const int ufull = L ? (wy / K) * per : u1, ua = L ? hrow_start( per, wy, K ) : u1;
    for( int u = u0 + t; u < u1; u += nt )
    {
        if( HR && u >= ua )   /* the same for the warp's 32 lanes */
        {
            int kr, col;
            const int rk = run_pos( u, per, wy, K, HR, &kr, &col ) - row_lo;
            const uint32_t k1 = mad( s_rowkey[rk], geo.one, s_colkey[col] );
            search_run_fma<NP, 1, 1, S>( s_cur, s_win + rk * rowlen + col + off, rowlen, &k1, &k1,
                                         geo.key_scale, geo.one, best );
            continue;   /* every later run of this thread is one too */
        }
        if( HR && u >= ufull )   /* idle up to ua */
        {
            g += dg;
            c += dc;
            if( c >= per )
            {
                c -= per;
                g++;
            }
            continue;
        }
        const int r0 = run_row( g, wy, K );
        const int col = PAIR ? pair_col( c, wx ) : c;
        /* key bases of the run's column (kk) and, with column pairs, of
         * column col + 4 (kkb; pair_col(): inside the window): from the
         * tables of step 1a' (IMADs: the FMA pipe), or the cost table's
         * entries and the raster index */
        uint32_t kk[K], kkb[K];
        const int rk = r0 - row_lo;
        if( KEY_TABLES( S ) )
        {
#pragma unroll
            for( int k = 0; k < K; k++ )
            {
                kk[k] = mad( s_rowkey[rk + k], geo.one, s_colkey[col] );
                if( PAIR )
                    kkb[k] = mad( s_rowkey[rk + k], geo.one, s_colkey[col + 4] );
            }
        }
        else
        {
            const uint32_t mvcx = a.mv_cost ? a.mv_cost[2*a.i_range + w.x_min + col - w.cx] : 0;
#pragma unroll
            for( int k = 0; k < K; k++ )
            {
                const uint32_t mvc = mvcx + (a.mv_cost ? a.mv_cost[2*a.i_range + w.y_min + r0 + k - w.cy] : 0);
                const uint32_t raster = (rk + k) * wx + col;
                /* the same number either way (raster < 2^KEY_SHIFT); IMAD for KEYS_FMA */
                kk[k] = KEYS == KEYS_CLASSIC ? mvc << KEY_SHIFT | raster : mad( mvc, geo.key_scale, raster );
            }
            if( PAIR )
            {
                /* col + 4's MV cost in place of col's, raster + 4 (exact
                 * modulo 2^32, and the key itself is below 2^32) */
                const uint32_t mvcb = a.mv_cost ? a.mv_cost[2*a.i_range + w.x_min + col + 4 - w.cx] : 0;
                const uint32_t d = mad( mvcb - mvcx, geo.key_scale, 4u );
#pragma unroll
                for( int k = 0; k < K; k++ )
                    kkb[k] = mad( d, geo.one, kk[k] );
            }
        }
        if( PAIR )
        {
            search_run_fma<NP, K, 2, S>( s_cur, s_win + (r0 - row_lo) * rowlen + col + off, rowlen, kk, kkb,
                                      geo.key_scale, geo.one, best );
        }
        else if( KEYS == KEYS_FMA || KEYS == KEYS_CHAIN )
            search_run_fma<NP, K, 1, S, KEYS == KEYS_CHAIN>( s_cur, s_win + (r0 - row_lo) * rowlen + col + off, rowlen,
                                                          kk, kk, geo.key_scale, geo.one, best );
        else
            search_run<NP, K>( s_cur, s_win + (r0 - row_lo) * rowlen + col + off, rowlen, kk, best );
        g += dg;
        c += dc;
        if( c >= per )
        {
            c -= per;
            g++;
        }
    }

    /* Step 2b: all threads to 1.  Per warp, 32 lanes to 1 with one
     * instruction per partition; then the first NP threads take the minimum
     * over the warps. */
    const int lane = t & 31, warp = t >> 5, nwarps = nt >> 5;
#pragma unroll
    for( int p = 0; p < NP; p++ )
    {
        const uint32_t key = __reduce_min_sync( 0xffffffffu, best[p] );
        if( !lane )
            s_red[warp * NP + p] = key;
    }
    __syncthreads();
    /* SK: the macroblock, its window and piece again from shared memory */
    int mbe = mb, sple = split, rle = row_lo, wxe = wx;
    cme_window_t we = w;
    if( SK )
    {
        mbe = s_st[SK_MB];
        we = cme_launch_window( a, mbe, NULL, NULL );
        wxe = we.x_max - we.x_min + 1;
        int u0e, u1e, kd, cd;
        sple = sk_piece( geo.runs, s_st, mbe, &u0e, &u1e );
        rle = run_pos( u0e, PAIR ? pair_count( wxe ) : wxe, we.y_max - we.y_min + 1, K, HR, &kd, &cd );
    }
    uint64_t k64 = CME_KEY_NONE;
    for( int p = t; p < NP; p += nt )   /* one pass, except in blocks of one warp (not SK: nt >= 64) */
    {
        uint32_t key = s_red[p];
        for( int i = 1; i < nwarps; i++ )
            key = min( key, s_red[i * NP + p] );
        k64 = cme_key( key >> KEY_SHIFT, rle * wxe + (key & ((1u << KEY_SHIFT) - 1)) );
        /* the macroblock's only block: its result (no reduce_kernel) */
        if( SK ? !sple : geo.nb == 1 )
            cme_store_key<NP>( a, we, mbe, p, k64 );
        else if( !SK )
            bk[p] = k64;
    }
    if( SK && sple )
        sk_finish<NP>( a, geo, we, mbe, sple, k64, s_flag );
    return 1;
}

/* cme_cuda_trace(): where search_kernel's blocks stamp their times (NULL:
 * nowhere), in builds with CME_TRACE 1 only (./configure
 * --extra-nvccflags=-DCME_TRACE=1): with the stamps' code in, if unused,
 * v24 ran 1.5% slower (its SASS scheduled otherwise; validation39/c2) */
#ifndef CME_TRACE
#define CME_TRACE 0
#endif
#if CME_TRACE
static __constant__ uint64_t *c_trace;

/* The block's stamp (CME_TRACE_WORDS words at block (x, y)'s place): the
 * global timer (ns) and the SM's clock at its start, then at its end, and
 * the SM it ran on. */
static __device__ __forceinline__ void trace_stamp( const int end )
{
    uint64_t gt, clk = clock64();
    uint32_t sm;
    asm volatile( "mov.u64 %0, %%globaltimer;" : "=l"(gt) );
    asm volatile( "mov.u32 %0, %%smid;" : "=r"(sm) );
    uint64_t *e = c_trace + (size_t)CME_TRACE_WORDS * (blockIdx.y * gridDim.x + blockIdx.x);
    e[2*end] = gt;
    e[2*end + 1] = clk;
    if( end )
        e[4] = sm;
}
#endif

/* X = 1 (BULK_S( S ) only): the window is one tensor copy, by tm, the
 * tensor map of the launch's 4-byte plane (tma_map()); X = 0: tm unused.
 * Two kernels, not a branch: with both window paths in one kernel, v15's
 * spill grew from 60 to 108 bytes and its run loop took 6 more local
 * loads and stores a run. */
template<int NP, int K, int MINB, int KEYS, int S, int X>
__global__ void __launch_bounds__( LB_THREADS( MINB ) ) __maxnreg__( LB_REGS( MINB ) )
search_kernel( const cme_launch_t a, const search_geom_t geo, const __grid_constant__ tma_map_t tm )
{
#if CME_TRACE
    if( c_trace && !threadIdx.x )
        trace_stamp( 0 );
#endif
    const int u0 = blockIdx.y * blockDim.x * geo.runs_per_thread;
    search_mb<NP, K, MINB, KEYS, S, X, 0>( a, geo, tm, blockIdx.x, u0, u0 + blockDim.x * geo.runs_per_thread );
#if CME_TRACE
    if( c_trace )   /* the same for every thread */
    {
        __syncthreads();
        if( !threadIdx.x )
            trace_stamp( 1 );
    }
#endif
}

/* Stream-K (see search_geom_t): block b's share of the frame's runs, its
 * macroblocks one after the other. */
template<int NP, int K, int MINB, int KEYS, int S, int X>
__global__ void __launch_bounds__( LB_THREADS( MINB ) ) __maxnreg__( LB_REGS( MINB ) )
search_kernel_sk( const cme_launch_t a, const search_geom_t geo, const __grid_constant__ tma_map_t tm )
{
    extern __shared__ __align__( 128 ) uint4 smem4[];
    uint32_t *smem = (uint32_t*)smem4;
    volatile uint32_t *s_st = smem + SMEM_BAR( NP ) + 3;
    const int R = geo.runs;
    if( !threadIdx.x )
    {
        const long long W = (long long)a.i_mb_width * a.i_mb_height * R;
        const int w0 = (int)(W * blockIdx.x / gridDim.x);
        s_st[SK_W0] = w0;
        s_st[SK_W1] = (int)(W * (blockIdx.x + 1) / gridDim.x);
        s_st[SK_MB] = w0 / R;
        s_st[SK_IT] = 0;
#if __CUDA_ARCH__ >= 900
        if( X && BULK_S( S ) )
            tma_init( (uint32_t)__cvta_generic_to_shared( smem + SMEM_BAR( NP ) ) );
#endif
    }
    __syncthreads();
    while( (int)s_st[SK_MB] * R < (int)s_st[SK_W1] )
    {
        const int did = search_mb<NP, K, MINB, KEYS, S, X, 1>( a, geo, tm, 0, 0, 0 );
        __syncthreads();   /* every thread past its reads of s_st */
        if( !threadIdx.x )
        {
            s_st[SK_MB] = s_st[SK_MB] + 1;
            s_st[SK_IT] = s_st[SK_IT] + did;
        }
        __syncthreads();
    }
}

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

/* Kernel variants: positions per run K, the register budget (blocks of
 * MAX_THREADS per SM) and the key path (KEYS_*).  All give the same results;
 * the benchmark times each, the tests check each (cme_launch_t.i_variant
 * picks one).  Indices are stable: results/ and the default refer to them;
 * new variants go at the end. */
typedef struct variant_t
{
    int k, minb, keys;
    int stride;                  /* words per window row in shared memory, fixed at compile time; 0: row_words( wx ) */
    const char *name;            /* for the benchmark: "K8/3", "fma K8/3", ... */
    const void *fn[2];           /* 9 and 41 partitions */
    const void *fx[2];           /* the same with the window as a tensor copy (BULK_S()), or NULL */
    const void *sk[2], *skx[2];  /* SK variants: search_kernel_sk's (fn, fx) where a macroblock is one block */
} variant_t;

#define KERNEL( np, k, minb, keys, s, x ) (const void*)search_kernel<np, k, minb, keys, s, x>
#define VARIANT_S( keys, tag, k, minb, s ) \
    { k, minb, keys, s, tag "K" #k "/" #minb, { KERNEL( CUDA_ME_NPART_8x8, k, minb, keys, s, 0 ), \
                                                KERNEL( CUDA_ME_NPART, k, minb, keys, s, 0 ) }, { NULL, NULL } }
#define VARIANT_X( keys, tag, k, minb, s ) \
    { k, minb, keys, s, tag "K" #k "/" #minb, { KERNEL( CUDA_ME_NPART_8x8, k, minb, keys, s, 0 ), \
                                                KERNEL( CUDA_ME_NPART, k, minb, keys, s, 0 ) }, \
                                              { KERNEL( CUDA_ME_NPART_8x8, k, minb, keys, s, BULK ), \
                                                KERNEL( CUDA_ME_NPART, k, minb, keys, s, BULK ) } }
#define VARIANT( keys, tag, k, minb ) VARIANT_S( keys, tag, k, minb, 0 )
#define KERNEL_SK( np, k, minb, keys, s, x ) (const void*)search_kernel_sk<np, k, minb, keys, s, x>
#define VARIANT_SK( keys, tag, k, minb, s ) \
    { k, minb, keys, s, "sk-" tag "K" #k "/" #minb, { KERNEL( CUDA_ME_NPART_8x8, k, minb, keys, s, 0 ), \
                                                      KERNEL( CUDA_ME_NPART, k, minb, keys, s, 0 ) }, \
                                                    { KERNEL( CUDA_ME_NPART_8x8, k, minb, keys, s, BULK ), \
                                                      KERNEL( CUDA_ME_NPART, k, minb, keys, s, BULK ) }, \
                                                    { KERNEL_SK( CUDA_ME_NPART_8x8, k, minb, keys, s, 0 ), \
                                                      KERNEL_SK( CUDA_ME_NPART, k, minb, keys, s, 0 ) }, \
                                                    { KERNEL_SK( CUDA_ME_NPART_8x8, k, minb, keys, s, BULK ), \
                                                      KERNEL_SK( CUDA_ME_NPART, k, minb, keys, s, BULK ) } }
static const variant_t variants[] =
{
    VARIANT( KEYS_CLASSIC, "", 8, 3 ),      /* 0 */
    VARIANT( KEYS_CLASSIC, "", 8, 4 ),      /* 1 */
    VARIANT( KEYS_CLASSIC, "", 6, 4 ),      /* 2: the default beyond +-16 until issue 13 */
    VARIANT( KEYS_CLASSIC, "", 4, 4 ),      /* 3: the default up to +-16 until issue 13 */
    /* issue 13: IMAD keys and merges, VIMNMX3 over pairs of positions */
    VARIANT( KEYS_FMA, "fma-", 8, 3 ),      /* 4: default beyond +-32 */
    VARIANT( KEYS_FMA, "fma-", 8, 4 ),      /* 5 */
    VARIANT( KEYS_FMA, "fma-", 6, 4 ),      /* 6: default from +-17 to +-32 */
    VARIANT( KEYS_FMA, "fma-", 4, 4 ),      /* 7: default up to +-16 */
    VARIANT( KEYS_FMA, "fma-", 8, 2 ),      /* 8: all 255 registers, 8 warps per SM */
    VARIANT( KEYS_FMA, "fma-", 6, 3 ),      /* 9 */
    /* KEYS_PAIR: runs of K rows in two columns 4 apart (2K positions); on
     * windows under 8 columns wide the KEYS_FMA variant of the same K and
     * blocks per SM runs instead (launch_variant()) */
    VARIANT( KEYS_PAIR, "pair-", 4, 3 ),    /* 10 */
    VARIANT( KEYS_PAIR, "pair-", 4, 4 ),    /* 11 */
    VARIANT( KEYS_PAIR, "pair-", 3, 4 ),    /* 12 */
    VARIANT( KEYS_PAIR, "pair-", 3, 3 ),    /* 13 */
    /* a window row's stride fixed at compile time (the twenty-third
     * session): the run's rows are one shared-memory base plus immediate
     * offsets, ~7 fewer instructions a position.  S is the interior window's
     * row_words() at +-16, +-32, +-64 and +-128, so the window takes the
     * same shared memory as with the runtime stride there; on wider windows
     * the variant of the same K, blocks per SM and keys with the runtime
     * stride runs instead (launch_variant()).  From stride 80 on also the
     * key tables (KEY_TABLES()). */
    VARIANT_X( KEYS_PAIR, "pair-s48-", 3, 4, 48 ),   /* 14 */
    VARIANT_X( KEYS_FMA, "fma-s80-", 6, 4, 80 ),     /* 15: the default from +-17 to +-32 until v24 */
    VARIANT_X( KEYS_FMA, "fma-s144-", 8, 3, 144 ),   /* 16: the default from +-33 to +-64 until v26 */
    VARIANT_S( KEYS_FMA, "fma-s272-", 8, 3, 272 ),   /* 17 */
    /* +-32's stride with the tensor copy (thirty-first session): K = 8
     * (65 rows: 8 groups and one row of one-row runs, HROW()) and K = 6
     * without spills (3 blocks an SM) */
    VARIANT_X( KEYS_FMA, "fma-s80-", 8, 3, 80 ),     /* 18 */
    VARIANT_X( KEYS_FMA, "fma-s80-", 6, 3, 80 ),     /* 19 */
    VARIANT_X( KEYS_FMA, "fma-s80-", 6, 5, 80 ),     /* 20 */
    VARIANT( KEYS_FMA, "fma-", 6, 5 ),               /* 21 */
    /* KEYS_CHAIN (row_keys_chain()) */
    VARIANT_X( KEYS_CHAIN, "chain-s80-", 6, 4, 80 ), /* 22 */
    VARIANT( KEYS_CHAIN, "chain-", 6, 4 ),           /* 23 */
    VARIANT_X( KEYS_CHAIN, "chain-s80-", 6, 5, 80 ), /* 24: default from +-17 to +-32 */
    VARIANT( KEYS_CHAIN, "chain-", 6, 5 ),           /* 25 */
    VARIANT_X( KEYS_CHAIN, "chain-s144-", 8, 3, 144 ), /* 26: default from +-33 to +-64 */
    VARIANT( KEYS_CHAIN, "chain-", 8, 3 ),             /* 27 */
    /* stream-K launches (search_kernel_sk(), thirty-seventh session) of
     * v24, v26 and v14's kernels; launch_variant()'s fallbacks (wider
     * windows) are v25, v27 and v12 as they are.  Measured 14-35% slower
     * than the same kernels launched a block a macroblock (validation37/c1;
     * why is open: results/kernel_steps.md): not defaults. */
    VARIANT_SK( KEYS_CHAIN, "chain-s80-", 6, 5, 80 ),  /* 28 */
    VARIANT_SK( KEYS_CHAIN, "chain-s144-", 8, 3, 144 ), /* 29 */
    VARIANT_SK( KEYS_PAIR, "pair-s48-", 3, 4, 48 ),    /* 30 */
    /* K = 5 (thirty-eighth session): +-32's 65 rows are 13 groups, 845
     * runs, 27 chunks of 32 (9 for each of 3 warps), where K = 6 takes
     * 715 (row 59 twice) in 23 chunks, 8 + 8 + 7; and 125 registers, 5
     * blocks an SM, where v24's 135 allow 4.  Level with v24 at +-32 (the
     * ALU pipe the limit), faster at some ranges below (K5_RANGES) */
    VARIANT_X( KEYS_CHAIN, "chain-s80-", 5, 5, 80 ),   /* 31: default at +-17-19, 24, 27 */
    VARIANT( KEYS_CHAIN, "chain-", 5, 5 ),             /* 32: v31's fallback (wider windows) */
};
#define NVARIANTS (int)(sizeof(variants) / sizeof(*variants))

/* The default: the fastest variant measured on an H200 for the range
 * (results/kernel_steps.md, "Default variants"; 1080p, 41 partitions, one
 * bench_me run per range, device calls 47 and 50): keys on the FMA pipe,
 * K=6 to +-32 (v9, K6/3, within 1% of it there), K=8 with 3 blocks an SM
 * beyond: against v6 -3.2% at +-40, -0.9% at +-64, -5.3% at +-96, -3.2% at
 * +-128 (v9 -4.8% there).  Up to +-16 column pairs of 3 rows (v12,
 * twentieth session): 0.093 ms at 1080p against v7's (K=4) 0.103, -10% at
 * 720p, -12% at 2160p; from +-32 on the pairs lose 1-10% (the ALU pipe is
 * the limit there, and they save issue slots, not ALU instructions).  Up
 * to +-8 (pass 2 of two candidates at range 16) v6 again: 0.048 ms at
 * 1080p against v12's 0.054 and v7's 0.054 (17 rows: 3 runs of 6).  The
 * twenty-third session's fixed strides with the key tables (v15-v17,
 * validation23/c4, 3 runs against the kernels before): +-32 v15 0.276 ms
 * against v6's 0.288 (-4.4%; 720p -3.9%, 2160p -4.8%), +-48 and +-64 v16
 * -0.9% and -1.6% against v4 (1.006 ms at +-64), +-128 v17 3.835 against
 * 3.896 (-1.6%); from +-65 to +-120 v17's stride would take more shared
 * memory than the window needs (fewer blocks per SM), so v4 stays there.
 * From range 4 to 16 v14 (v12 with +-16's fixed stride) since the
 * thirty-first session: its window is one tensor copy on sm_90
 * (validation31/c1: 1080p +-16 0.0817 ms against v12's 0.0895, 720p
 * -7.9%, 2160p -8.4%, +-8 0.0389 against v6's 0.0436); without the copy
 * level with v12 at +-16 and 3% faster than v6 at +-8.  v14 cannot run
 * windows under 8 columns (ranges 1-3): v6 there.  v19 (v15 at 3 blocks
 * an SM, no spills) is level with v15 from 17 to 32 (thirty-fourth
 * session, validation33/c1, c2: -1.1% to +1.4% by size and range, the
 * sign changing between calls): v15 stays.  From 17 to 32 v24 (v15 with
 * KEYS_CHAIN's keys in blocks of 96 threads, no spills; built for 5
 * blocks an SM, its 135 registers allow 4: ncu, thirty-eighth session)
 * since the thirty-sixth session (validation36/c1, H100, 3 runs
 * interleaved: 1080p +-32 0.2487 ms against v15's 0.2640, -5.8%; +-28
 * -5.6%, +-24 -6.1%, +-17 -4.6%; 720p +-32 -5.4%, 2160p -5.8%), from 33
 * to 64 v26 (v16 with KEYS_CHAIN: 1080p +-64 0.9069 against 0.9260,
 * -2.1%).  Since the thirty-eighth session v31 (v24 with K = 5: 125
 * registers, 5 blocks an SM) at the ranges where it was faster at both
 * 1080p and 720p (validation38/c7, H100, 3 runs interleaved): +-17, 18,
 * 19 -11% to -13%, +-24 -2.2% / -2.4%, +-27 -8.9% / -9.1%; v24 at the
 * others (v31 +12% / +13% at +-23, +0.8% to +3.8% at 20, 26, 28-31,
 * within 2% either way at 21, 22, 25, 32). */
#define K5_RANGES ((1ull << 17) | (1ull << 18) | (1ull << 19) | (1ull << 24) | (1ull << 27))   /* bit r: range r (up to 32: 64 bits) */
extern "C" int cme_cuda_variant_default( int range )
{
    return range <= 3 ? 6 : range <= 16 ? 14 : range <= 32 ? (K5_RANGES >> range & 1 ? 31 : 24) :
           range <= 64 ? 26 : range <= 120 ? 4 : 17;
}

/* row_keys() (CH: row_keys_chain(), its block columns 0 and 2 summed
 * over each 8x8 row as search_run_fma() sums them) on the host against
 * the spec's merge (cme_merge): every partition's key made exactly once
 * per position, equal to cost << KEY_SHIFT | raster.  Runs without a GPU
 * (tests: spec suite). */
template<int NP, int CH>
static int selftest_keys( uint32_t *rng, int n )
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

extern "C" int cme_cuda_selftest_keys( uint32_t seed )
{
    uint32_t rng = seed;
    return selftest_keys<CUDA_ME_NPART, 0>( &rng, 2000 ) + selftest_keys<CUDA_ME_NPART_8x8, 0>( &rng, 2000 ) +
           selftest_keys<CUDA_ME_NPART, 1>( &rng, 2000 );
}

/* The bound on the raster indices of a block of pb runs, window width wx:
 * it spans at most (pb - 2) / per + 2 run groups of K rows (per: runs per
 * group, pair_count( wx ) with column pairs), raster < rows * wx.  One
 * column per run: the bound (pb + 2 wx) K, as before KEYS_PAIR. */
static long raster_most( int wx, int pb, int K, int pair )
{
    return pair ? (long)((pb + pair_count( wx ) - 2) / pair_count( wx ) + 1) * K * wx : (long)(pb + 2*wx) * K;
}

extern "C" int cme_cuda_selftest_pairs( void )
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

extern "C" int cme_cuda_selftest_hrow( void )
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

extern "C" const char *cme_cuda_variant_name( int v )
{
    return v < 0 || v >= NVARIANTS ? NULL : variants[v].name;
}

extern "C" int cme_cuda_variant_info( int v, int *k, int *minb )
{
    if( v < 0 || v >= NVARIANTS )
        return -1;
    if( k )
        *k = variants[v].k;
    if( minb )
        *minb = variants[v].minb;
    return v;
}

/* Runs per run group (K window rows) of a window wx wide. */
static int group_runs( int wx, int pair )
{
    return pair ? pair_count( wx ) : wx;
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

#define MAX_WSIZE (2*CUDA_ME_RANGE_MAX + 1)

/* The distinct window widths and heights of a frame's macroblock columns
 * and rows (only edge columns and rows differ, but with x264's limits
 * there may be many of them), each at most 2*range+1; their counts in
 * *nwx, *nwy. */
static void window_sizes( int mb_w, int mb_h, int range, int mv_range, int mv_range_thread,
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

/* cme_cuda_geom_force(): a benchmark's fixed threads and runs per thread */
static int force_nt, force_u;

extern "C" cudaError_t cme_cuda_trace( uint64_t *buf )
{
#if CME_TRACE
    return cudaMemcpyToSymbol( c_trace, &buf, sizeof(buf) );
#else
    return buf ? cudaErrorNotSupported : cudaSuccess;
#endif
}

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
 * warps.  Measured on the H200 (results/kernel_steps.md, nineteenth
 * session, bench_me -g): against the fixed-cost rule alone the same
 * choices up to +-32, and 2.4% / 7.0% / 4.5% / 0.5% / 7.2% / 8.1% less
 * kernel time at +-40 / 48 / 64 / 80 / 96 / 128 (1080p).  nb = 0: no
 * geometry (range out of bounds, or the keys' raster field or the shared
 * memory too small). */
static search_geom_t search_geom( int mb_w, int mb_h, int range, int mv_range, int mv_range_thread, int np,
                                  const variant_t *v )
{
    const int K = v->k, pair = v->keys == KEYS_PAIR, S = v->stride;
    search_geom_t g = { MAX_THREADS, 1, 0, 0, 1u << KEY_SHIFT, 1, 0, 0, 0, 0, 0, 0 };
    if( range < 1 || range > CUDA_ME_RANGE_MAX )
        return g;
    int wxs[MAX_WSIZE], wys[MAX_WSIZE], nwx, nwy;
    window_sizes( mb_w, mb_h, range, mv_range, mv_range_thread, wxs, &nwx, wys, &nwy );
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

extern "C" size_t cme_cuda_scratch_size( int mb_w, int mb_h, int range, int mv_range, int mv_range_thread, int np )
{
    size_t most = 0;
    for( int v = 0; v < NVARIANTS; v++ )   /* enough for any variant */
    {
        search_geom_t g = search_geom( mb_w, mb_h, range, mv_range, mv_range_thread, np, &variants[v] );
        if( !g.nb && (variants[v].keys == KEYS_PAIR || variants[v].stride) )   /* its fallback is one of the others */
            continue;
        if( !g.nb )
            return 0;
        size_t s = (size_t)mb_w * mb_h * g.nb * np * sizeof(uint64_t);
        const size_t sk = SK_SCRATCH( mb_w * mb_h, np ) * sizeof(uint64_t);
        if( variants[v].sk[0] && sk > s )   /* an SK launch's pieces: at most a block a macroblock */
            s = sk;
        most = s > most ? s : most;
    }
    return most;
}

/* The variant a launch runs and its geometry (g->nb = 0: none): l's; where
 * a variant with a fixed row stride has no geometry (rows wider than its
 * stride), the same variant with the runtime stride; where a KEYS_PAIR
 * variant has none (windows under 8 columns wide), the KEYS_FMA variant of
 * the same blocks per SM and the least K not below its K (every MINB of a
 * KEYS_PAIR variant has KEYS_FMA variants up to K 8). */
static const variant_t *launch_variant( const cme_launch_t *l, search_geom_t *g )
{
    const int vi = l->i_variant < 0 ? cme_cuda_variant_default( l->i_range ) : l->i_variant;
    if( vi >= NVARIANTS )
        return NULL;
    const variant_t *v = &variants[vi];
    *g = search_geom( l->i_mb_width, l->i_mb_height, l->i_range, l->i_mv_range, l->i_mv_range_thread, l->i_parts, v );
    for( int step = 0; !g->nb && step < 2; step++ )
    {
        const variant_t *f = NULL;
        for( int i = 0; i < NVARIANTS; i++ )
        {
            const variant_t *c = &variants[i];
            if( c->stride || c->minb != v->minb )
                continue;
            if( v->stride ? c->keys == v->keys && c->k == v->k :
                v->keys == KEYS_PAIR && c->keys == KEYS_FMA && c->k >= v->k && (!f || c->k < f->k) )
                f = c;
        }
        if( !f )
            return NULL;
        v = f;
        *g = search_geom( l->i_mb_width, l->i_mb_height, l->i_range, l->i_mv_range, l->i_mv_range_thread,
                          l->i_parts, v );
    }
    return v;
}

/* launch_variant(), remembered per thread for the last GEOM_MEMO launches'
 * parameters: search_geom() takes 1.2-2.5 us of host time per launch
 * (window_sizes() over the frame's columns and rows, then the geometry
 * search; 1080p, this development machine), spent between the caller's
 * last event and the kernel's launch, where an idle GPU waits for it
 * (bench_me's total; 2 launches per job with two candidates).  The result
 * depends only on the key's fields (and cme_cuda_geom_force()'s). */
#define GEOM_MEMO 4
typedef struct geom_memo_t
{
    int key[9];
    const variant_t *v;
    search_geom_t g;
} geom_memo_t;

static int geom_equal( const search_geom_t *a, const search_geom_t *b )
{
    return a->threads == b->threads && a->runs_per_thread == b->runs_per_thread && a->nb == b->nb &&
           a->smem == b->smem && a->key_scale == b->key_scale && a->one == b->one && a->keytab == b->keytab &&
           a->keyrows == b->keyrows && a->winrows == b->winrows && a->runs == b->runs;
}

static const variant_t *launch_variant_memo( const cme_launch_t *l, search_geom_t *g )
{
    static thread_local geom_memo_t memo[GEOM_MEMO];
    static thread_local int n, next;
    const int key[9] = { l->i_mb_width, l->i_mb_height, l->i_range, l->i_mv_range, l->i_mv_range_thread,
                         l->i_parts, l->i_variant, force_nt, force_u };
    for( int i = 0; i < n; i++ )
        if( !memcmp( memo[i].key, key, sizeof(key) ) )
        {
            *g = memo[i].g;
            return memo[i].v;
        }
    const variant_t *v = launch_variant( l, g );
    geom_memo_t *m = &memo[next];
    memcpy( m->key, key, sizeof(key) );
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

static int tma_map( const cme_launch_t *l, const variant_t *v, const search_geom_t *g, tma_map_t *map )
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

/* Every block of a launch against its geometry, as search_kernel computes
 * them (every window size of the frame's macroblock columns and rows): the
 * rows it loads within the window's shared memory, its key tables' rows
 * and columns within theirs.  Returns the number of violations. */
static int check_launch_geom( const cme_launch_t *l, int want_vi )
{
    search_geom_t g;
    const variant_t *v = launch_variant( l, &g );
    if( !v || !g.nb || g.smem > (96 << 10) )
        return 1;
    /* a fixed-stride default runs itself at the ranges it is the default for */
    int bad = want_vi >= 0 && v != &variants[want_vi];
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
    window_sizes( l->i_mb_width, l->i_mb_height, l->i_range, l->i_mv_range, l->i_mv_range_thread,
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

extern "C" int cme_cuda_selftest_geom( void )
{
    static const int sizes[][2] = { { 120, 68 }, { 80, 45 }, { 240, 135 }, { 22, 18 }, { 3, 2 }, { 1, 1 } };
    static const int limits[][2] = { { 512, 0 }, { 32, 0 }, { 512, 8 }, { 128, 24 } };   /* mv_range, thread (api.c's least) */
    int bad = 0;
    for( int si = 0; si < 6; si++ )
        for( int li = 0; li < 4; li++ )
            for( int range = CUDA_ME_RANGE_MIN; range <= CUDA_ME_RANGE_MAX; range += range < 20 ? 1 : 3 )
                for( int np = 0; np < 2; np++ )
                    for( int vi = -1; vi < NVARIANTS; vi++ )
                    {
                        cme_launch_t l;
                        memset( &l, 0, sizeof(l) );
                        l.i_mb_width = sizes[si][0];
                        l.i_mb_height = sizes[si][1];
                        l.i_range = range;
                        l.i_mv_range = limits[li][0];
                        l.i_mv_range_thread = limits[li][1];
                        l.i_parts = np ? CUDA_ME_NPART : CUDA_ME_NPART_8x8;
                        l.i_variant = vi;
                        /* 1080p, no thread limit: the default runs itself */
                        const int want = vi < 0 && si == 0 && li == 0 ? cme_cuda_variant_default( range ) : -1;
                        bad += check_launch_geom( &l, want );
                    }
    /* launch_variant_memo(): each of its key's fields told apart.  Launches
     * A and B that differ in one field only (each pair with two geometries,
     * else the check could not fail; the frame-thread limit changes the
     * geometry only in frames a few rows tall), alternated: every answer,
     * remembered or computed, is launch_variant()'s.  Omitting any one
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
            case 6: b.i_variant = 9; break;
            default: break;   /* 7: a forced geometry */
        }
        search_geom_t ga, gb, g;
        const variant_t *va = launch_variant( &a, &ga );
        if( f == 7 )
            cme_cuda_geom_force( 64, 1 );
        const variant_t *vb = launch_variant( &b, &gb );
        bad += va == vb && geom_equal( &ga, &gb );   /* B must differ */
        for( int k = 0; k < 3; k++ )
        {
            bad += launch_variant_memo( &b, &g ) != vb || !geom_equal( &g, &gb );
            if( f == 7 )
                cme_cuda_geom_force( 0, 0 );
            bad += launch_variant_memo( &a, &g ) != va || !geom_equal( &g, &ga );
            if( f == 7 )
                cme_cuda_geom_force( 64, 1 );
        }
        cme_cuda_geom_force( 0, 0 );
    }
    return bad;
}

extern "C" int cme_cuda_search_blocks( const cme_launch_t *l )
{
    return cme_cuda_search_geometry( l, NULL, NULL );
}

extern "C" int cme_cuda_search_geometry( const cme_launch_t *l, int *threads, int *runs_per_thread )
{
    search_geom_t g;
    if( !launch_variant( l, &g ) )
        return 0;
    if( threads )
        *threads = g.threads;
    if( runs_per_thread )
        *runs_per_thread = g.runs_per_thread;
    return g.nb;
}

/* cme_cuda_sk_force(): -1 SK launches of the device's size, 0 none, n: n blocks */
static int sk_force = -1;

extern "C" void cme_cuda_sk_force( int n )
{
    sk_force = n;
}

/* The blocks the device holds at once of kernel fn in blocks of threads
 * with smem bytes of shared memory (0: unknown), remembered per thread for
 * the last 4 kernels and devices. */
static int sk_slots( const void *fn, int threads, size_t smem )
{
    static thread_local struct { int dev; const void *fn; int threads; size_t smem; int n; } memo[4];
    static thread_local int n, next;
    int dev, per = 0, sms = 0;
    if( cudaGetDevice( &dev ) != cudaSuccess )
    {
        cudaGetLastError();
        return 0;
    }
    for( int i = 0; i < n; i++ )
        if( memo[i].dev == dev && memo[i].fn == fn && memo[i].threads == threads && memo[i].smem == smem )
            return memo[i].n;
    if( cudaOccupancyMaxActiveBlocksPerMultiprocessor( &per, fn, threads, smem ) != cudaSuccess ||
        cudaDeviceGetAttribute( &sms, cudaDevAttrMultiProcessorCount, dev ) != cudaSuccess )
    {
        cudaGetLastError();
        return 0;
    }
    memo[next].dev = dev;
    memo[next].fn = fn;
    memo[next].threads = threads;
    memo[next].smem = smem;
    memo[next].n = per * sms;
    next = (next + 1) % 4;
    n = n < 4 ? n + 1 : n;
    return per * sms;
}

/* A launch's kernel and grid: search_kernel_sk's of sk_n blocks (SK
 * variants where a macroblock is one block and the frame has at least 2
 * macroblocks; sk_n = the device's blocks at once, at most the
 * macroblocks) or search_kernel's; *tma: whether it copies its windows
 * (tma_map()). */
static const void *launch_kernel( const cme_launch_t *l, const variant_t *v, search_geom_t *g, tma_map_t *tm,
                                  int *tma, dim3 *grid )
{
    const int full = l->i_parts == CUDA_ME_NPART, mbs = l->i_mb_width * l->i_mb_height;
    *tma = tma_map( l, v, g, tm );
    const void *fn = *tma ? v->fx[full] : v->fn[full];
    const void *skf = *tma ? v->skx[full] : v->sk[full];
    *grid = dim3( mbs, g->nb );
    g->sk_n = 0;
    if( skf && g->nb == 1 && g->threads >= 64 && sk_force && (long long)mbs * g->runs < INT_MAX )
    {
        const int n = cme_imin( sk_force > 0 ? sk_force : sk_slots( skf, g->threads, g->smem ), mbs );
        if( n >= 2 )
        {
            g->sk_n = n;
            *grid = dim3( n );
            return skf;
        }
    }
    return fn;
}

/* A launch's number, for SK's flags: one more each launch, from a random
 * start (search_geom_t). */
static unsigned long long sk_epoch( void )
{
    static std::atomic<unsigned long long> next( []
    {
        std::random_device rd;
        return (unsigned long long)rd() << 32 ^ rd() ^ (unsigned long long)time( NULL ) << 20;
    }() );
    return next.fetch_add( 1, std::memory_order_relaxed );
}

extern "C" int cme_cuda_search_sk( const cme_launch_t *l, size_t *keys )
{
    search_geom_t g;
    tma_map_t tm;
    int tma;
    dim3 grid;
    const variant_t *v = launch_variant( l, &g );
    const int n = v && g.nb && launch_kernel( l, v, &g, &tm, &tma, &grid ) ? g.sk_n : 0;
    if( keys )
        *keys = n ? SK_SCRATCH( n, l->i_parts ) : 0;
    return n;
}

extern "C" cudaError_t cme_cuda_search( const cme_launch_t *l, cudaStream_t stream )
{
    return cme_cuda_search_marked( l, stream, NULL );
}

extern "C" cudaError_t cme_cuda_search_marked( const cme_launch_t *l, cudaStream_t stream, cudaEvent_t *marks )
{
    search_geom_t g;
    const variant_t *v = launch_variant_memo( l, &g );
    if( !v || !g.nb )
        return cudaErrorInvalidValue;
    const int mb_count = l->i_mb_width * l->i_mb_height;
    const int n3 = mb_count * l->i_parts;
    const int full = l->i_parts == CUDA_ME_NPART;
    cme_launch_t la = *l;
    tma_map_t tm;
    int tma;
    dim3 grid;
    const void *fn = launch_kernel( &la, v, &g, &tm, &tma, &grid );
    if( g.sk_n )
        g.epoch = sk_epoch();
    if( !tma )
    {
        memset( &tm, 0, sizeof(tm) );
        la.i_xrows = 0;
        /* the 4-byte plane's 16-byte copies up to CME_XPLANE_RANGE_MAX;
         * they need 16-byte alignment (search_kernel) */
        if( la.i_range > CME_XPLANE_RANGE_MAX || ((uintptr_t)la.xref & 15) || (la.i_pitch & 3) )
            la.xref = NULL;
    }
    void *args[] = { &la, &g, &tm };
    cudaError_t e = cudaLaunchKernel( fn, grid, dim3( g.threads ), args, g.smem, stream );
    if( e != cudaSuccess )
        return e;
    if( marks )
        cudaEventRecord( marks[0], stream );
    if( g.nb == 1 )   /* search_kernel stored the results */
        return cudaGetLastError();
    if( full )
        reduce_kernel<CUDA_ME_NPART><<<(n3 + 255) / 256, 256, 0, stream>>>( *l, g.nb );
    else
        reduce_kernel<CUDA_ME_NPART_8x8><<<(n3 + 255) / 256, 256, 0, stream>>>( *l, g.nb );
    return cudaGetLastError();
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

/* attr = value on every search kernel (each variant, 9 and 41 partitions),
 * each first asked for its attributes: an error there says that the kernel
 * has no image for this device. */
static cudaError_t search_kernels_set( cudaFuncAttribute attr, int value )
{
    for( int v = 0; v < NVARIANTS; v++ )
        for( int f = 0; f < 8; f++ )
        {
            const variant_t *va = &variants[v];
            const void *fn = f < 2 ? va->fn[f] : f < 4 ? va->fx[f - 2] : f < 6 ? va->sk[f - 4] : va->skx[f - 6];
            cudaFuncAttributes fa;
            if( !fn )
                continue;
            cudaError_t e = cudaFuncGetAttributes( &fa, fn );
            if( e == cudaSuccess )
                e = cudaFuncSetAttribute( fn, attr, value );
            if( e != cudaSuccess )
                return e;
        }
    return cudaSuccess;
}

extern "C" cudaError_t cme_cuda_carveout( int pct )
{
    return search_kernels_set( cudaFuncAttributePreferredSharedMemoryCarveout, pct );
}

extern "C" cudaError_t cme_cuda_prepare( void )
{
    /* the largest block (range 128) needs about 60 KiB */
    return search_kernels_set( cudaFuncAttributeMaxDynamicSharedMemorySize, 96 << 10 );
}
