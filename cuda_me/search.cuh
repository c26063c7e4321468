/*****************************************************************************
 * search.cuh: the integer search kernel (steps 1 and 2), as a template
 *****************************************************************************
 * me_cuda.cu instantiates it for the library's variants (the default of
 * every range, cme_cuda_variant_default()) and launches them; dev/
 * instantiates the experimental variants from the same code, for the
 * benchmark and the tests; tests/search_check.cu runs the host-side parts
 * (key formation, run mapping, geometry) against the specification.
 *
 * search_kernel<NP, K, MINB, KEYS, S, X> searches, per thread block, a
 * share of one macroblock's window (me_cuda.cu's header says how): NP
 * partitions (9 or 41), runs of K positions, a register budget of MINB
 * blocks per SM (LB_REGS()), key path KEYS (KEYS_*), a window row stride
 * of S words fixed at compile time (0: per launch), the window as one
 * tensor copy (X = 1, sm_90 on) or by loads (X = 0).
 *
 * search_mb() is the search of one macroblock's share; its caller's
 * "role" (mb_role_t here: blocks per macroblock from the grid) says which
 * share, and stores the block's keys.  keys_path<KEYS> forms the keys and
 * searches a run for the library's key paths; dev/ adds its own roles and
 * key paths by the same two seams.
 *****************************************************************************/

#ifndef CUDA_ME_SEARCH_CUH
#define CUDA_ME_SEARCH_CUH

#include <stdint.h>

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
#define MAX_RUNS     12 /* runs per thread (more than 8 only with 3 or 4 warps: cme_search_geom()) */

/* Value ranges behind the 32-bit keys:
 *   cost <= 65280 + 2*65535 < 2^18, so cost << 14 < 2^32;
 *   a block of n runs spans at most (n + wx - 2) / wx + 1 run groups of K
 *   rows, so its raster indices are below (n + 2*wx) * K; cme_search_geom()
 *   checks that this stays below 2^14. */
#define KEY_SHIFT 14

/* How a variant forms keys and keeps minima (keys_path, search_run_fma()). */
#define KEYS_CLASSIC 0   /* shifts and adds, one VIADDMNMX per partition and position (dev/) */
#define KEYS_FMA     1   /* IMAD keys and merges, one VIMNMX3 per partition and 2 positions */
#define KEYS_PAIR    2   /* KEYS_FMA over runs of two columns 4 apart (search_run_fma(), C = 2) */
#define KEYS_CHAIN   3   /* KEYS_FMA with chained SADs and fewer IMADs (row_keys_chain()) */

static __device__ __forceinline__ uint32_t vabsdiff4_add( uint32_t a, uint32_t b, uint32_t c )
{
    uint32_t d;
    asm( "vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c) );
    return d;
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
 * loads of the cost table stay (H200, 1080p, without and with tables:
 * +-8 v15 0.0470 -> 0.0490 ms, +-16 v12 0.0929 -> 0.0973, +-32 v15
 * 0.2815 -> 0.2780). */
#define KEY_TABLES( s ) ((s) >= 80)
/* Variants that can copy the window from the 4-byte plane (cme_launch_t.xref,
 * launches up to CME_XPLANE_RANGE_MAX): all but those of the wide windows
 * (the key tables'), whose code stays as it was without the branch (with it
 * +-48/64 ran 0.5-0.8% slower without using it, H200). */
#define XPLANE( s ) (!KEY_TABLES( s ))
/* Variants whose window can be one tensor copy (TMA, sm_90 on) from the
 * 4-byte plane: a fixed row stride, at most TMA's 256 elements a box row
 * (v14, v15, v16; v17's 272 keep their loads).  The launch asks for it
 * with cme_launch_t.i_xrows (the plane's rows) and a tensor map
 * (cme_search_tma()); -DBULK=0 builds the kernels without it. */
#ifndef BULK
#define BULK (CUDART_VERSION >= 12000)   /* tensor maps: CUDA 12 */
#endif
#define TMA_BOX_MAX 256
#define BULK_S( s ) (BULK && (s) > 0 && (s) <= TMA_BOX_MAX)
/* after the window (search_geom_t.keytab): the key tables of step 1a',
 * search_geom_t.keyrows words for the rows of the block's runs, then one
 * word per window column (sized per launch: with a fixed 2 KB, +-64 at
 * 1080p lost its 4th block per SM to the shared memory) */

/* ---- KEYS_FMA: key formation and merges on the FMA pipe, two positions per min
 *
 * The classic path (KEYS_CLASSIC, dev/) spends about 124 ALU-pipe instructions per position
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
 * tma_init() once, before the first of the block's copies (a block that
 * copies several windows, one a macroblock: copy i completes the
 * barrier's phase i, tma_wait()'s parity i & 1).  The proxy fence orders the block's earlier generic reads
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
 * With C = 1 the pairs are rows k, k+1.  (One function for both: the same
 * SASS, instruction for instruction, as two separate ones, on every
 * architecture built.) */
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
    int runs;             /* the most runs of a macroblock's window */
} search_geom_t;

/* The key path of variants with keys KEYS: a position's key base from its
 * MV cost and raster index (both below 2^KEY_SHIFT-shifted bounds, see
 * KEY_SHIFT), and the search of one run (steps 1 and 2) from its first row
 * rw in s_win, the key bases of its column kk (and, KEYS_PAIR, of the
 * column 4 to the right, kkb).  dev/ specialises it for KEYS_CLASSIC. */
template<int KEYS>
struct keys_path
{
    static_assert( KEYS == KEYS_FMA || KEYS == KEYS_PAIR || KEYS == KEYS_CHAIN, "a key path of dev/" );

    /* the same number as mvc << KEY_SHIFT | raster (raster < 2^KEY_SHIFT),
     * as an IMAD: the FMA pipe */
    static __device__ __forceinline__ uint32_t base( const uint32_t mvc, const uint32_t raster, const uint32_t sc )
    {
        return mad( mvc, sc, raster );
    }

    template<int NP, int K, int S>
    static __device__ __forceinline__ void run( const uint4 *s_cur, const uint32_t *rw, const int rowlen,
                                                const uint32_t kk[K], const uint32_t kkb[K], const uint32_t sc,
                                                const uint32_t one, uint32_t best[NP] )
    {
        if( KEYS == KEYS_PAIR )
            search_run_fma<NP, K, 2, S>( s_cur, rw, rowlen, kk, kkb, sc, one, best );
        else
            search_run_fma<NP, K, 1, S, KEYS == KEYS_CHAIN>( s_cur, rw, rowlen, kk, kk, sc, one, best );
    }
};

/* The role of a search_kernel block: the share of macroblock mb's runs
 * that blockIdx.y names (search_kernel()), and its keys stored in blk_keys
 * for reduce_kernel, or, where the macroblock is one block, its results.
 * dev/'s stream-K blocks have a role of their own, whose blocks search
 * pieces of macroblocks (PIECES). */
struct mb_role_t
{
    /* TMA_INIT: the mbarrier of a block's tensor copy readied with each
     * copy (a block makes one) and waited on with parity 0 */
    enum { TMA_INIT = 1, PIECES = 0 };
    __device__ __forceinline__ uint32_t parity() const
    {
        return 0;
    }

    /* PIECES: the block's piece of macroblock mb's runs u0 .. u1max - 1,
     * and whether the macroblock is split between blocks (*u0, *u1max
     * narrowed; returns 0: whole) */
    __device__ __forceinline__ int piece( const search_geom_t &geo, const int mb, int *u0, int *u1max ) const
    {
        return 0;
    }

    /* a block past its macroblock's runs (edge macroblocks have smaller
     * windows; never with nb = 1, where u0 = 0) */
    template<int NP>
    __device__ __forceinline__ void empty( const cme_launch_t &a, const search_geom_t &geo, const cme_window_t &w,
                                           const int mb, const int split, uint64_t *bk, const int t, const int nt ) const
    {
        for( int p = t; p < NP; p += nt )
            bk[p] = CME_KEY_NONE;
    }

    /* Step 2b's end: the first NP threads take the minimum over the warps
     * (s_red[warp][NP]); keys relative to the block's first window row
     * row_lo become raster indices in the window (wx wide) */
    template<int NP>
    __device__ __forceinline__ void finish( const cme_launch_t &a, const search_geom_t &geo, const uint32_t *s_red,
                                            const int nwarps, const int mb, const int split, const cme_window_t &w,
                                            const int wx, const int row_lo, uint64_t *bk, const int t, const int nt ) const
    {
        for( int p = t; p < NP; p += nt )   /* one pass, except in blocks of one warp */
        {
            uint32_t key = s_red[p];
            for( int i = 1; i < nwarps; i++ )
                key = min( key, s_red[i * NP + p] );
            const uint64_t k64 = cme_key( key >> KEY_SHIFT, row_lo * wx + (key & ((1u << KEY_SHIFT) - 1)) );
            /* the macroblock's only block: its result (no reduce_kernel) */
            if( geo.nb == 1 )
                cme_store_key<NP>( a, w, mb, p, k64 );
            else
                bk[p] = k64;
        }
    }
};

/* Macroblock mb's runs u0_arg .. u1max_arg - 1 (at most its run count),
 * or the piece of them role gives the block (PIECES).  Returns 1 where it
 * searched (copied a window), 0 where the share has no runs. */
template<int NP, int K, int MINB, int KEYS, int S, int X, class R>
static __device__ __forceinline__ int search_mb( const cme_launch_t &a, const search_geom_t &geo, const tma_map_t &tm,
                                                  const int mb, const int u0_arg, const int u1max_arg, const R &role )
{
    extern __shared__ __align__( 128 ) uint4 smem4[];
    uint32_t *smem = (uint32_t*)smem4;
    const uint4 *s_cur = smem4 + SMEM_CUR / 4;
    uint32_t *s_red = smem + SMEM_RED;
    uint32_t *s_win = smem + SMEM_WIN( NP );
    uint32_t *s_rowkey = smem + geo.keytab, *s_colkey = s_rowkey + geo.keyrows;

    const int t = threadIdx.x, nt = blockDim.x;
    int u0 = u0_arg, u1max = u1max_arg, split = 0;
    if( R::PIECES )
        split = role.piece( geo, mb, &u0, &u1max );
    int mb_x, mb_y;
    const cme_window_t w = cme_launch_window( a, mb, &mb_x, &mb_y );
    const int wx = w.x_max - w.x_min + 1, wy = w.y_max - w.y_min + 1;
    const bool PAIR = KEYS == KEYS_PAIR;
    const int per = PAIR ? pair_count( wx ) : wx;   /* runs per run group (K window rows) */
    const bool HR = HROW( K, S );
    const int runs = run_total( per, wy, K, HR );
    uint64_t *bk = a.blk_keys + ((size_t)mb * geo.nb + blockIdx.y) * NP;
    if( u0 >= runs )
    {
        role.template empty<NP>( a, geo, w, mb, split, bk, t, nt );
        return 0;
    }
    const int u1 = cme_imin( u1max, runs );
    int klo, khi, clo, chi;
    const int row_lo = run_pos( u0, per, wy, K, HR, &klo, &clo );
    const int nrows = run_pos( u1 - 1, per, wy, K, HR, &khi, &chi ) - row_lo + khi + 15;
    const int x0 = 16*mb_x + w.x_min, off = x0 & 3;
    /* words a row holds (row_words()); its stride in s_win: S if the
     * variant fixes it (at least row_words( wx ): cme_search_geom()) */
    const int nq = row_words( wx ) / 4, rowlen = S ? S : 4 * nq;

    /* Step 1a: the macroblock and the window, once per block. */
    const uint32_t s0 = (uint32_t)__cvta_generic_to_shared( s_win );
    const uint32_t bar = (uint32_t)__cvta_generic_to_shared( smem + SMEM_BAR( NP ) );
#if __CUDA_ARCH__ >= 900
    const bool bulk = X && BULK_S( S );
#else
    const bool bulk = false;   /* never launched there (cme_search_tma()) */
#endif
    if( bulk )
    {
        if( s0 & 127 )   /* the copy's destination (extern __shared__ __align__ above) */
            __trap();
        /* the window as one tensor copy of geo.winrows rows of S words
         * (what s_win holds: cme_search_geom()) from the 4-byte plane, whose
         * tensor starts at its allocation (CME_PAD rows and columns before
         * pixel (0,0)): no instructions but thread 0's, where the loads
         * below cost every warp ~185 at +-32 and waited behind the other
         * blocks' SADs on the ALU pipe (results/kernel_steps.md) */
        if( !t )
            tma_issue<R::TMA_INIT>( &tm, s0, bar, CME_PAD + x0 - off, CME_PAD + 16*mb_y + w.y_min + row_lo,
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
         * wait on global memory once per quad (with the window's loads
         * taken out, +-16 ran 7% faster, H200).  The copies' addresses
         * are 16-byte aligned: x0 - off and the pitch are multiples of 4
         * words (cme_search_launch()). */
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
         * ALU instructions than the loop */
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
        tma_wait( bar, role.parity() );
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
                kk[k] = keys_path<KEYS>::base( mvc, raster, geo.key_scale );
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
        keys_path<KEYS>::template run<NP, K, S>( s_cur, s_win + (r0 - row_lo) * rowlen + col + off, rowlen, kk, kkb,
                                                 geo.key_scale, geo.one, best );
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
    role.template finish<NP>( a, geo, s_red, nwarps, mb, split, w, wx, row_lo, bk, t, nt );
    return 1;
}

/* X = 1 (BULK_S( S ) only): the window is one tensor copy, by tm, the
 * tensor map of the launch's 4-byte plane (cme_search_tma()); X = 0: tm unused.
 * Two kernels, not a branch: with both window paths in one kernel, v15's
 * spill grew from 60 to 108 bytes and its run loop took 6 more local
 * loads and stores a run. */
template<int NP, int K, int MINB, int KEYS, int S, int X>
__global__ void __launch_bounds__( LB_THREADS( MINB ) ) __maxnreg__( LB_REGS( MINB ) )
search_kernel( const cme_launch_t a, const search_geom_t geo, const __grid_constant__ tma_map_t tm )
{
    const int u0 = blockIdx.y * blockDim.x * geo.runs_per_thread;
    search_mb<NP, K, MINB, KEYS, S, X>( a, geo, tm, blockIdx.x, u0, u0 + blockDim.x * geo.runs_per_thread, mb_role_t() );
}

/* ---------------------------------------------------------------- host
 *
 * me_cuda.cu's launch machinery, shared with dev/ and the tests. */

/* A variant of the search: its kernels (search_kernel<NP, K, MINB, KEYS,
 * S, X>, or dev/'s) and what the host's geometry needs of them. */
typedef struct cme_variant_t
{
    int id;                      /* its number: cme_cuda_variant_default(), bench_me -v and
                                  * results/ name variants by it */
    int k, minb, keys;
    int stride;                  /* words per window row in shared memory, fixed at compile time; 0: row_words( wx ) */
    const char *name;            /* for the benchmark: "fma-K8/3", "chain-s80-K6/5", ... */
    const void *fn[2];           /* 9 and 41 partitions */
    const void *fx[2];           /* the same with the window as a tensor copy (BULK_S()), or NULL */
} cme_variant_t;

/* A row of a variant table (me_cuda.cu's, dev/'s): its kernels for 9 and 41
 * partitions, through the KERNEL( np, k, minb, keys, s, x ) of the file
 * that expands it; VARIANT_X also those that copy the window as one tensor
 * copy (BULK_S(): a stride of at most TMA_BOX_MAX). */
#define VARIANT_S( id, keys, tag, k, minb, s ) \
    { id, k, minb, keys, s, tag "K" #k "/" #minb, { KERNEL( CUDA_ME_NPART_8x8, k, minb, keys, s, 0 ), \
                                                    KERNEL( CUDA_ME_NPART, k, minb, keys, s, 0 ) }, { NULL, NULL } }
#define VARIANT_X( id, keys, tag, k, minb, s ) \
    { id, k, minb, keys, s, tag "K" #k "/" #minb, { KERNEL( CUDA_ME_NPART_8x8, k, minb, keys, s, 0 ), \
                                                    KERNEL( CUDA_ME_NPART, k, minb, keys, s, 0 ) }, \
                                                  { KERNEL( CUDA_ME_NPART_8x8, k, minb, keys, s, BULK ), \
                                                    KERNEL( CUDA_ME_NPART, k, minb, keys, s, BULK ) } }

#define MAX_WSIZE (2*CUDA_ME_RANGE_MAX + 1)

/* Runs per run group (K window rows) of a window wx wide. */
static inline int group_runs( int wx, int pair )
{
    return pair ? pair_count( wx ) : wx;
}

/* The bound on the raster indices of a block of pb runs, window width wx:
 * it spans at most (pb - 2) / per + 2 run groups of K rows (per: runs per
 * group, pair_count( wx ) with column pairs), raster < rows * wx.  One
 * column per run: the bound (pb + 2 wx) K. */
static inline long raster_most( int wx, int pb, int K, int pair )
{
    return pair ? (long)((pb + pair_count( wx ) - 2) / pair_count( wx ) + 1) * K * wx : (long)(pb + 2*wx) * K;
}

/* The library's variant number id, or NULL (dev/ has the others). */
const cme_variant_t *cme_search_variant( int id );

/* The distinct window widths and heights of a frame's macroblock columns
 * and rows, each at most 2*range+1; their counts in *nwx, *nwy. */
void cme_search_window_sizes( int mb_w, int mb_h, int range, int mv_range, int mv_range_thread,
                              int wxs[MAX_WSIZE], int *nwx, int wys[MAX_WSIZE], int *nwy );

/* Threads, runs per thread and blocks per macroblock of variant v for a
 * frame (nb = 0: none), and its shared-memory layout. */
search_geom_t cme_search_geom( int mb_w, int mb_h, int range, int mv_range, int mv_range_thread, int np,
                               const cme_variant_t *v );

/* The variant a launch runs and its geometry: the library's l->i_variant,
 * or its range's default for -1; NULL where the library has no such
 * variant.  cme_search_pick_memo(): pick's answer, remembered per thread
 * for the last few launches' parameters (pick: cme_search_pick or dev/'s). */
typedef const cme_variant_t *(*cme_search_pick_fn)( const cme_launch_t *l, search_geom_t *g );
const cme_variant_t *cme_search_pick( const cme_launch_t *l, search_geom_t *g );
const cme_variant_t *cme_search_pick_memo( const cme_launch_t *l, search_geom_t *g, cme_search_pick_fn pick );

/* The tensor map of a launch's window copies; 0: the launch takes the
 * loads (not a BULK_S() variant, no plane rows, a box TMA cannot take, a
 * device before sm_90, no driver entry point). */
int cme_search_tma( const cme_launch_t *l, const cme_variant_t *v, const search_geom_t *g, tma_map_t *map );

/* Variant v's search kernel with geometry g, then reduce_kernel where a
 * macroblock is more than one block; marks (may be NULL): marks[0] is
 * recorded between the two. */
cudaError_t cme_search_launch( const cme_launch_t *l, const cme_variant_t *v, const search_geom_t *g,
                               cudaStream_t stream, cudaEvent_t *marks );

/* attr = value on kernel fn, first asked for its attributes: an error
 * there says that the kernel has no image for this device. */
cudaError_t cme_search_kernel_set( const void *fn, cudaFuncAttribute attr, int value );

#endif
