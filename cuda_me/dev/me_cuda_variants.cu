/*****************************************************************************
 * me_cuda_variants.cu: the search kernel's experimental variants (dev)
 *****************************************************************************
 * Kernel work in the manner of llm.c's dev/cuda: every variant of the
 * search kernel that the library does not run, kept buildable, checked
 * against the C reference (tests/checkasm_me.c) and timed against the
 * defaults (tests/bench_me.c, -v N).  Not linked into libcuda_me.a; a
 * variant that should replace a default moves to ../me_cuda.cu with a
 * results/ entry and the tests.
 *
 *   KEYS_CLASSIC    keys by shifts and adds, one VIADDMNMX (__viaddmin_u32,
 *                   DPX on sm_90) per partition and position: the key path
 *                   before KEYS_FMA (search.cuh), ~124 ALU-pipe
 *                   instructions a position against KEYS_FMA's ~85
 *   stream-K (sk-)  launches of as many blocks as the device holds at
 *                   once, each an equal share of the frame's runs
 *                   (search_kernel_sk)
 *   CME_TRACE       with -DCME_TRACE=1 every variant's blocks stamp their
 *                   start and end (cme_dev_trace(), bench_me -T)
 * and the other variants of the library's key paths: other K, register
 * budgets and strides.  cme_dev_search() launches any of them, and the
 * library's own, through me_cuda.cu's launch machinery.
 *****************************************************************************/

#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <atomic>
#include <random>

#include "search.cuh"
#include "me_cuda_dev.h"

/* ---------------------------------------------------------------- KEYS_CLASSIC */

/* best = min(x + kk, best): one instruction on sm_90. */
static __device__ __forceinline__ void upd( uint32_t &best, uint32_t x, uint32_t kk )
{
    best = __viaddmin_u32( x, kk, best );
}



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


static __device__ __forceinline__ void load_row( uint32_t r[4], const uint32_t *p )
{
    r[0] = p[0]; r[1] = p[4]; r[2] = p[8]; r[3] = p[12];
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


template<>
struct keys_path<KEYS_CLASSIC>
{
    static __device__ __forceinline__ uint32_t base( const uint32_t mvc, const uint32_t raster, const uint32_t sc )
    {
        return mvc << KEY_SHIFT | raster;
    }

    template<int NP, int K, int S>
    static __device__ __forceinline__ void run( const uint4 *s_cur, const uint32_t *rw, const int rowlen,
                                                const uint32_t kk[K], const uint32_t kkb[K], const uint32_t sc,
                                                const uint32_t one, uint32_t best[NP] )
    {
        search_run<NP, K>( s_cur, rw, rowlen, kk, best );
    }
};

/* ---------------------------------------------------------------- stream-K
 *
 * A launch of sk.n blocks, as many as the device holds at once, each
 * searching an equal share of the frame's runs (macroblock mb's runs at mb
 * * runs .. mb * runs + its run count) in raster order, so that every
 * block ends at about the same time where one block per macroblock ends in
 * a last, part-filled wave (results/kernel_steps.md).  sk.n <= macroblocks,
 * so a share is at least a macroblock long and a macroblock is split
 * between at most two blocks: block b's last (the "head", keys of its
 * runs) and block b + 1's first (the "tail").  Split boundary b (1 ..
 * sk.n - 1): head and tail keys at blk_keys[(b - 1) * 2 * NP + {0, NP} +
 * p], its flag at blk_keys[(sk.n - 1) * 2 * NP + b - 1].  Each piece
 * stores its keys, then swaps the launch's epoch into the flag: the piece
 * that finds the epoch there already is the second, takes the minimum of
 * both and stores the results.  Epochs grow by one a launch from a random
 * 64-bit start, so a flag left by an earlier launch (or never written) is
 * never the current one.  Measured 14-35% slower than the same kernels
 * launched a block a macroblock (H100; why is open:
 * results/kernel_steps.md). */
#define SK_SCRATCH( n, np ) ((size_t)((n) - 1) * (2 * (np) + 1))

typedef struct sk_launch_t
{
    int n;                       /* the launch's blocks */
    unsigned long long epoch;    /* the launch's number */
} sk_launch_t;

/* A block's state in shared memory (words from SMEM_BAR( NP ) + 3): its
 * current macroblock, the window copies it made, its share's first and
 * last run + 1.  Read where needed rather than kept in registers across
 * the runs (search_kernel's registers are all taken there). */
#define SK_MB 0
#define SK_IT 1
#define SK_W0 2
#define SK_W1 3

/* The runs u0 .. u1 - 1 of macroblock mb that are the block's, and
 * whether the macroblock is split (sk_finish()'s split, 0: whole). */
static __device__ __forceinline__ int sk_piece( const int R, const volatile uint32_t *s_st, const int mb,
                                                int *u0, int *u1 )
{
    const int base = mb * R;
    *u0 = cme_imax( (int)s_st[SK_W0] - base, 0 );
    *u1 = cme_imin( (int)s_st[SK_W1] - base, R );
    return *u0 > 0 ? 2 : *u1 < R ? 1 : 0;
}

/* A split macroblock's piece: its keys (thread p < NP: partition p's,
 * k64) to its half of the boundary's scratch, then the flag; the second
 * piece stores the results.  split 1: the block's last macroblock (head),
 * 2: its first (tail).  Every thread of the block calls it. */
template<int NP>
static __device__ __forceinline__ void sk_finish( const cme_launch_t &a, const sk_launch_t &sk,
                                                  const cme_window_t &w, const int mb, const int split,
                                                  const uint64_t k64 )
{
    extern __shared__ __align__( 128 ) uint4 smem4[];
    uint32_t *s_flag = (uint32_t*)smem4 + SMEM_BAR( NP ) + 2;
    const int t = threadIdx.x;
    const int bd = split == 1 ? blockIdx.x + 1 : blockIdx.x;   /* the boundary */
    uint64_t *keys = a.blk_keys + (size_t)(bd - 1) * 2 * NP;
    unsigned long long *flag = (unsigned long long*)a.blk_keys + (size_t)(sk.n - 1) * 2 * NP + bd - 1;
    if( t < NP )
    {
        keys[(split == 1 ? 0 : NP) + t] = k64;
        __threadfence();
    }
    __syncthreads();
    if( !t )
        *s_flag = atomicExch( flag, sk.epoch ) == sk.epoch;
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

/* search_mb()'s role for a stream-K block: its piece of each macroblock
 * from its share (sk_piece()), the mbarrier readied once by the kernel
 * (copy i completes phase i), the keys of a split macroblock's piece
 * through sk_finish(). */
template<int NP, int K, int KEYS, int S>
struct sk_role_t
{
    sk_launch_t sk;
    enum { TMA_INIT = 0, PIECES = 1 };

    static __device__ __forceinline__ volatile uint32_t *state()
    {
        extern __shared__ __align__( 128 ) uint4 smem4[];
        return (uint32_t*)smem4 + SMEM_BAR( NP ) + 3;
    }

    __device__ __forceinline__ uint32_t parity() const
    {
        return state()[SK_IT] & 1;
    }

    __device__ __forceinline__ int piece( const search_geom_t &geo, const int mb, int *u0, int *u1max ) const
    {
        return sk_piece( geo.runs, state(), mb, u0, u1max );
    }

    /* a piece with no runs (split: the others are in the other piece) */
    template<int NP_>
    __device__ __forceinline__ void empty( const cme_launch_t &a, const search_geom_t &geo, const cme_window_t &w,
                                           const int mb, const int split, uint64_t *bk, const int t, const int nt ) const
    {
        if( split )
            sk_finish<NP>( a, sk, w, mb, split, CME_KEY_NONE );
    }

    /* the macroblock, its window and piece again from shared memory (not
     * kept in registers across the runs) */
    template<int NP_>
    __device__ __forceinline__ void finish( const cme_launch_t &a, const search_geom_t &geo, const uint32_t *s_red,
                                            const int nwarps, const int mb_reg, const int split_reg, const cme_window_t &w_reg,
                                            const int wx_reg, const int row_lo_reg, uint64_t *bk, const int t, const int nt ) const
    {
        volatile uint32_t *s_st = state();
        const int mb = s_st[SK_MB];
        const cme_window_t w = cme_launch_window( a, mb, NULL, NULL );
        const int wx = w.x_max - w.x_min + 1;
        int u0, u1, kd, cd;
        const int split = sk_piece( geo.runs, s_st, mb, &u0, &u1 );
        const int row_lo = run_pos( u0, KEYS == KEYS_PAIR ? pair_count( wx ) : wx, w.y_max - w.y_min + 1, K,
                                    HROW( K, S ), &kd, &cd );
        uint64_t k64 = CME_KEY_NONE;
        for( int p = t; p < NP; p += nt )   /* one pass: nt >= 64 */
        {
            uint32_t key = s_red[p];
            for( int i = 1; i < nwarps; i++ )
                key = min( key, s_red[i * NP + p] );
            k64 = cme_key( key >> KEY_SHIFT, row_lo * wx + (key & ((1u << KEY_SHIFT) - 1)) );
            if( !split )
                cme_store_key<NP>( a, w, mb, p, k64 );
        }
        if( split )
            sk_finish<NP>( a, sk, w, mb, split, k64 );
    }
};

/* Block b's share of the frame's runs, its macroblocks one after the other. */
template<int NP, int K, int MINB, int KEYS, int S, int X>
__global__ void __launch_bounds__( LB_THREADS( MINB ) ) __maxnreg__( LB_REGS( MINB ) )
search_kernel_sk( const cme_launch_t a, const search_geom_t geo, const __grid_constant__ tma_map_t tm,
                  const sk_launch_t sk )
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
    const sk_role_t<NP, K, KEYS, S> role = { sk };
    while( (int)s_st[SK_MB] * R < (int)s_st[SK_W1] )
    {
        const int did = search_mb<NP, K, MINB, KEYS, S, X>( a, geo, tm, (int)s_st[SK_MB], 0, 0, role );
        __syncthreads();   /* every thread past its reads of s_st */
        if( !threadIdx.x )
        {
            s_st[SK_MB] = s_st[SK_MB] + 1;
            s_st[SK_IT] = s_st[SK_IT] + did;
        }
        __syncthreads();
    }
}

/* ---------------------------------------------------------------- trace
 *
 * cme_dev_trace(): where the search blocks stamp their times (NULL:
 * nowhere), in builds with CME_TRACE 1 only (./configure
 * --extra-nvccflags=-DCME_TRACE=1), which build every variant here with
 * the stamps, the library's too: with the stamps' code in, if unused, v24
 * ran 1.5% slower (its SASS scheduled otherwise). */
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

/* search_kernel with the stamps */
template<int NP, int K, int MINB, int KEYS, int S, int X>
__global__ void __launch_bounds__( LB_THREADS( MINB ) ) __maxnreg__( LB_REGS( MINB ) )
search_kernel_traced( const cme_launch_t a, const search_geom_t geo, const __grid_constant__ tma_map_t tm )
{
    if( c_trace && !threadIdx.x )
        trace_stamp( 0 );
    const int u0 = blockIdx.y * blockDim.x * geo.runs_per_thread;
    search_mb<NP, K, MINB, KEYS, S, X>( a, geo, tm, blockIdx.x, u0, u0 + blockDim.x * geo.runs_per_thread, mb_role_t() );
    if( c_trace )   /* the same for every thread */
    {
        __syncthreads();
        if( !threadIdx.x )
            trace_stamp( 1 );
    }
}
#define SEARCH_KERNEL search_kernel_traced
#else
#define SEARCH_KERNEL search_kernel
#endif

extern "C" cudaError_t cme_dev_trace( uint64_t *buf )
{
#if CME_TRACE
    return cudaMemcpyToSymbol( c_trace, &buf, sizeof(buf) );
#else
    return buf ? cudaErrorNotSupported : cudaSuccess;
#endif
}

/* ---------------------------------------------------------------- variants
 *
 * The variants the library does not run (its own are me_cuda.cu's, by the
 * same numbers; here too with CME_TRACE, as traced copies).  Numbers are
 * stable: results/ refers to them; new variants take the next. */
#define KERNEL( np, k, minb, keys, s, x ) (const void*)SEARCH_KERNEL<np, k, minb, keys, s, x>
#define VARIANT( id, keys, tag, k, minb ) VARIANT_S( id, keys, tag, k, minb, 0 )
static const cme_variant_t own[] =
{
    VARIANT(  0, KEYS_CLASSIC, "", 8, 3 ),
    VARIANT(  1, KEYS_CLASSIC, "", 8, 4 ),
    VARIANT(  2, KEYS_CLASSIC, "", 6, 4 ),      /* the default beyond +-16 before KEYS_FMA */
    VARIANT(  3, KEYS_CLASSIC, "", 4, 4 ),      /* the default up to +-16 before KEYS_FMA */
    VARIANT(  5, KEYS_FMA, "fma-", 8, 4 ),
    VARIANT(  6, KEYS_FMA, "fma-", 6, 4 ),      /* the default from +-17 to +-32 before the fixed strides */
    VARIANT(  7, KEYS_FMA, "fma-", 4, 4 ),      /* the default up to +-16 before KEYS_PAIR */
    VARIANT(  8, KEYS_FMA, "fma-", 8, 2 ),      /* all 255 registers, 8 warps per SM */
    VARIANT(  9, KEYS_FMA, "fma-", 6, 3 ),      /* v6 at 3 blocks an SM: within 1% of it at +-32 */
    /* KEYS_PAIR: runs of K rows in two columns 4 apart (2K positions); on
     * windows under 8 columns wide the KEYS_FMA variant of the same K and
     * blocks per SM runs instead (cme_dev_pick()) */
    VARIANT( 10, KEYS_PAIR, "pair-", 4, 3 ),
    VARIANT( 11, KEYS_PAIR, "pair-", 4, 4 ),
    VARIANT( 12, KEYS_PAIR, "pair-", 3, 4 ),    /* the default up to +-16 before v14 (v14's runtime stride) */
    VARIANT( 13, KEYS_PAIR, "pair-", 3, 3 ),
    /* a window row's stride fixed at compile time: the run's rows are one
     * shared-memory base plus immediate offsets, ~7 fewer instructions a
     * position.  S is the interior window's row_words() at +-16, +-32,
     * +-64 and +-128, so the window takes the same shared memory as with
     * the runtime stride there; on wider windows the variant of the same
     * K, blocks per SM and keys with the runtime stride runs instead
     * (cme_dev_pick()).  From stride 80 on also the key tables
     * (KEY_TABLES()). */
    VARIANT_X( 15, KEYS_FMA, "fma-s80-", 6, 4, 80 ),     /* the default from +-17 to +-32 before v24 */
    VARIANT_X( 16, KEYS_FMA, "fma-s144-", 8, 3, 144 ),   /* the default from +-33 to +-64 before v26 */
    /* +-32's stride with the tensor copy: K = 8 (65 rows: 8 groups and
     * one row of one-row runs, HROW()) and K = 6 without spills (3 blocks
     * an SM: level with v15, -1.1% to +1.4% by size and range) */
    VARIANT_X( 18, KEYS_FMA, "fma-s80-", 8, 3, 80 ),
    VARIANT_X( 19, KEYS_FMA, "fma-s80-", 6, 3, 80 ),
    VARIANT_X( 20, KEYS_FMA, "fma-s80-", 6, 5, 80 ),
    VARIANT(   21, KEYS_FMA, "fma-", 6, 5 ),
    /* KEYS_CHAIN (row_keys_chain()); the runtime-stride ones are the
     * fallbacks of the library's v24, v26 and v31 on windows wider than
     * their strides (none at their default ranges) */
    VARIANT_X( 22, KEYS_CHAIN, "chain-s80-", 6, 4, 80 ),
    VARIANT(   23, KEYS_CHAIN, "chain-", 6, 4 ),
    VARIANT(   25, KEYS_CHAIN, "chain-", 6, 5 ),
    VARIANT(   27, KEYS_CHAIN, "chain-", 8, 3 ),
    VARIANT(   32, KEYS_CHAIN, "chain-", 5, 5 ),
#if CME_TRACE
    VARIANT(    4, KEYS_FMA, "fma-", 8, 3 ),
    VARIANT_X( 14, KEYS_PAIR, "pair-s48-", 3, 4, 48 ),
    VARIANT_S( 17, KEYS_FMA, "fma-s272-", 8, 3, 272 ),
    VARIANT_X( 24, KEYS_CHAIN, "chain-s80-", 6, 5, 80 ),
    VARIANT_X( 26, KEYS_CHAIN, "chain-s144-", 8, 3, 144 ),
    VARIANT_X( 31, KEYS_CHAIN, "chain-s80-", 5, 5, 80 ),
#endif
};
#define NOWN (int)(sizeof(own) / sizeof(*own))

/* Stream-K launches of a variant's kernels (its base: where a launch is
 * not one, the base's kernels run, and the base's fallback on wider
 * windows) */
typedef struct sk_variant_t
{
    int id, base;
    const char *name;
    const void *sk[2], *skx[2];  /* search_kernel_sk's: 9 and 41 partitions, without and with the tensor copy */
} sk_variant_t;

#define KERNEL_SK( np, k, minb, keys, s, x ) (const void*)search_kernel_sk<np, k, minb, keys, s, x>
#define VARIANT_SK( id, base, keys, tag, k, minb, s ) \
    { id, base, "sk-" tag "K" #k "/" #minb, { KERNEL_SK( CUDA_ME_NPART_8x8, k, minb, keys, s, 0 ), \
                                              KERNEL_SK( CUDA_ME_NPART, k, minb, keys, s, 0 ) }, \
                                            { KERNEL_SK( CUDA_ME_NPART_8x8, k, minb, keys, s, BULK ), \
                                              KERNEL_SK( CUDA_ME_NPART, k, minb, keys, s, BULK ) } }
static const sk_variant_t sks[] =
{
    VARIANT_SK( 28, 24, KEYS_CHAIN, "chain-s80-", 6, 5, 80 ),
    VARIANT_SK( 29, 26, KEYS_CHAIN, "chain-s144-", 8, 3, 144 ),
    VARIANT_SK( 30, 14, KEYS_PAIR, "pair-s48-", 3, 4, 48 ),
};
#define NSK (int)(sizeof(sks) / sizeof(*sks))
#define NVARIANTS 33

static const sk_variant_t *sk_variant( int id )
{
    for( int i = 0; i < NSK; i++ )
        if( sks[i].id == id )
            return &sks[i];
    return NULL;
}

/* Variant id's kernels (a stream-K variant's: its base's), or NULL. */
static const cme_variant_t *variant( int id )
{
    for( int i = 0; i < NOWN; i++ )
        if( own[i].id == id )
            return &own[i];
    const sk_variant_t *s = sk_variant( id );
    return s ? variant( s->base ) : cme_search_variant( id );
}

extern "C" int cme_dev_variant_count( void )
{
    return NVARIANTS;
}

extern "C" int cme_dev_variant_info( int v, int *k, int *minb )
{
    const cme_variant_t *va = v >= 0 && v < NVARIANTS ? variant( v ) : NULL;
    if( !va )
        return -1;
    if( k )
        *k = va->k;
    if( minb )
        *minb = va->minb;
    return v;
}

extern "C" const char *cme_dev_variant_name( int v )
{
    const sk_variant_t *s = sk_variant( v );
    const cme_variant_t *va = v >= 0 && v < NVARIANTS ? variant( v ) : NULL;
    return s ? s->name : va ? va->name : NULL;
}

/* ---------------------------------------------------------------- launches */

/* The variant a launch runs and its geometry (g->nb = 0: none): l's; where
 * a variant with a fixed row stride has no geometry (rows wider than its
 * stride), the same variant with the runtime stride; where a KEYS_PAIR
 * variant has none (windows under 8 columns wide), the KEYS_FMA variant of
 * the same blocks per SM and the least K not below its K (every MINB of a
 * KEYS_PAIR variant has KEYS_FMA variants up to K 8). */
const cme_variant_t *cme_dev_pick( const cme_launch_t *l, search_geom_t *g )
{
    const cme_variant_t *v = variant( l->i_variant < 0 ? cme_cuda_variant_default( l->i_range ) : l->i_variant );
    if( !v )
        return NULL;
    *g = cme_search_geom( l->i_mb_width, l->i_mb_height, l->i_range, l->i_mv_range, l->i_mv_range_thread, l->i_parts, v );
    for( int step = 0; !g->nb && step < 2; step++ )
    {
        const cme_variant_t *f = NULL;
        for( int i = 0; i < NVARIANTS; i++ )
        {
            const cme_variant_t *c = variant( i );
            if( !c || c->stride || c->minb != v->minb )
                continue;
            if( v->stride ? c->keys == v->keys && c->k == v->k :
                v->keys == KEYS_PAIR && c->keys == KEYS_FMA && c->k >= v->k && (!f || c->k < f->k) )
                f = c;
        }
        if( !f )
            return NULL;
        v = f;
        *g = cme_search_geom( l->i_mb_width, l->i_mb_height, l->i_range, l->i_mv_range, l->i_mv_range_thread,
                              l->i_parts, v );
    }
    return v;
}

extern "C" size_t cme_dev_scratch_size( int mb_w, int mb_h, int range, int mv_range, int mv_range_thread, int np )
{
    size_t most = 0;
    for( int i = 0; i < NVARIANTS; i++ )   /* enough for any variant */
    {
        const cme_variant_t *v = variant( i );
        search_geom_t g = cme_search_geom( mb_w, mb_h, range, mv_range, mv_range_thread, np, v );
        if( !g.nb && (v->keys == KEYS_PAIR || v->stride) )   /* its fallback is one of the others */
            continue;
        if( !g.nb )
            return 0;
        size_t s = (size_t)mb_w * mb_h * g.nb * np * sizeof(uint64_t);
        const size_t sk = SK_SCRATCH( mb_w * mb_h, np ) * sizeof(uint64_t);
        if( sk_variant( i ) && sk > s )   /* a stream-K launch's pieces: at most a block a macroblock */
            s = sk;
        most = s > most ? s : most;
    }
    return most;
}

extern "C" int cme_dev_search_geometry( const cme_launch_t *l, int *threads, int *runs_per_thread )
{
    search_geom_t g;
    if( !cme_dev_pick( l, &g ) )
        return 0;
    if( threads )
        *threads = g.threads;
    if( runs_per_thread )
        *runs_per_thread = g.runs_per_thread;
    return g.nb;
}

extern "C" int cme_dev_search_blocks( const cme_launch_t *l )
{
    return cme_dev_search_geometry( l, NULL, NULL );
}

/* cme_dev_sk_force(): -1 stream-K launches of the device's size, 0 none, n: n blocks */
static int sk_force = -1;

extern "C" void cme_dev_sk_force( int n )
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

/* A launch's stream-K kernel and blocks (*n), where it is one: a stream-K
 * variant whose base runs (no fallback), a macroblock one block, at least
 * 2 macroblocks; *tma: whether it copies its windows (cme_search_tma()).
 * NULL: not a stream-K launch. */
static const void *sk_kernel( const cme_launch_t *l, const cme_variant_t *v, const search_geom_t *g, tma_map_t *tm,
                              int *tma, int *n )
{
    const sk_variant_t *s = sk_variant( l->i_variant );
    const int full = l->i_parts == CUDA_ME_NPART, mbs = l->i_mb_width * l->i_mb_height;
    *n = 0;
    if( !s || !v || v->id != s->base || !g->nb )
        return NULL;
    *tma = cme_search_tma( l, v, g, tm );
    const void *skf = *tma ? s->skx[full] : s->sk[full];
    if( g->nb == 1 && g->threads >= 64 && sk_force && (long long)mbs * g->runs < INT_MAX )
    {
        const int c = cme_imin( sk_force > 0 ? sk_force : sk_slots( skf, g->threads, g->smem ), mbs );
        if( c >= 2 )
        {
            *n = c;
            return skf;
        }
    }
    return NULL;
}

/* A launch's number, for stream-K's flags: one more each launch, from a
 * random start (sk_launch_t). */
static unsigned long long sk_epoch( void )
{
    static std::atomic<unsigned long long> next( []
    {
        std::random_device rd;
        return (unsigned long long)rd() << 32 ^ rd() ^ (unsigned long long)time( NULL ) << 20;
    }() );
    return next.fetch_add( 1, std::memory_order_relaxed );
}

extern "C" int cme_dev_search_sk( const cme_launch_t *l, size_t *keys )
{
    search_geom_t g;
    tma_map_t tm;
    int tma, n;
    const cme_variant_t *v = cme_dev_pick( l, &g );
    sk_kernel( l, v, &g, &tm, &tma, &n );
    if( keys )
        *keys = n ? SK_SCRATCH( n, l->i_parts ) : 0;
    return n;
}

extern "C" cudaError_t cme_dev_search_marked( const cme_launch_t *l, cudaStream_t stream, cudaEvent_t *marks )
{
    search_geom_t g;
    const cme_variant_t *v = cme_search_pick_memo( l, &g, cme_dev_pick );
    if( !v || !g.nb )
        return cudaErrorInvalidValue;
    cme_launch_t la = *l;
    tma_map_t tm;
    int tma, n;
    const void *fn = sk_kernel( &la, v, &g, &tm, &tma, &n );
    if( !fn )
        return cme_search_launch( l, v, &g, stream, marks );
    const sk_launch_t sk = { n, sk_epoch() };
    if( !tma )
    {
        memset( &tm, 0, sizeof(tm) );
        la.i_xrows = 0;
        /* as cme_search_launch() */
        if( la.i_range > CME_XPLANE_RANGE_MAX || ((uintptr_t)la.xref & 15) || (la.i_pitch & 3) )
            la.xref = NULL;
    }
    void *args[] = { &la, &g, &tm, (void*)&sk };
    cudaError_t e = cudaLaunchKernel( fn, dim3( n ), dim3( g.threads ), args, g.smem, stream );
    if( e != cudaSuccess )
        return e;
    if( marks )
        cudaEventRecord( marks[0], stream );
    return cudaGetLastError();   /* a macroblock is one block: no reduce_kernel */
}

extern "C" cudaError_t cme_dev_search( const cme_launch_t *l, cudaStream_t stream )
{
    return cme_dev_search_marked( l, stream, NULL );
}

/* attr = value on every variant's kernels (9 and 41 partitions, with and
 * without the tensor copy, stream-K). */
static cudaError_t kernels_set( cudaFuncAttribute attr, int value )
{
    for( int i = 0; i < NVARIANTS; i++ )
    {
        const cme_variant_t *v = variant( i );
        const sk_variant_t *s = sk_variant( i );
        const void *fn[8] = { v->fn[0], v->fn[1], v->fx[0], v->fx[1], s ? s->sk[0] : NULL, s ? s->sk[1] : NULL,
                              s ? s->skx[0] : NULL, s ? s->skx[1] : NULL };
        for( int f = 0; f < 8; f++ )
        {
            const cudaError_t e = fn[f] ? cme_search_kernel_set( fn[f], attr, value ) : cudaSuccess;
            if( e != cudaSuccess )
                return e;
        }
    }
    return cudaSuccess;
}

extern "C" cudaError_t cme_dev_carveout( int pct )
{
    return kernels_set( cudaFuncAttributePreferredSharedMemoryCarveout, pct );
}

extern "C" cudaError_t cme_dev_prepare( void )
{
    /* the largest block (range 128) needs about 60 KiB */
    return kernels_set( cudaFuncAttributeMaxDynamicSharedMemorySize, 96 << 10 );
}
