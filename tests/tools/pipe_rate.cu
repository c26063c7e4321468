/* pipe_rate.cu: warp-instruction throughput of the search kernel's
 * instructions on one GPU (which pipe limits the run loop).
 *
 *   nvcc -O3 -arch=sm_90 -o pipe_rate tests/tools/pipe_rate.cu && ./pipe_rate
 *
 * Each test kernel runs 8 independent dependency chains per thread of one
 * instruction kind (or a mix), enough warps to saturate the SM; prints the
 * achieved warp instructions per cycle per SM sub-partition (clock from
 * cudaDevAttrClockRate: read it as a ratio against VABSDIFF4's row, the
 * clock under load may differ).  Check the SASS (cuobjdump -sass) that each
 * loop body holds the intended instructions.  Modes 7-11: whether a float
 * minimum (FMNMX) issues on the ALU pipe as VIMNMX3 does, or beside it:
 * the mixes run at ~0.5 a cycle on one pipe, ~0.9 on two. */
#include <stdio.h>
#include <stdint.h>
#include <cuda_runtime.h>

#define ITERS 4096

static __device__ __forceinline__ uint32_t vad( uint32_t a, uint32_t b, uint32_t c )
{
    uint32_t d;
    asm volatile( "vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c) );
    return d;
}

/* a float minimum of the bit patterns (min.f32 without .ftz: FMNMX, exact
 * on subnormals) */
static __device__ __forceinline__ uint32_t fmn( uint32_t a, uint32_t b )
{
    uint32_t d;
    asm volatile( "min.f32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b) );
    return d;
}

static __device__ __forceinline__ uint32_t ffma( uint32_t a, uint32_t b, uint32_t c )
{
    uint32_t d;
    asm volatile( "fma.rn.f32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c) );
    return d;
}

template<int MODE, int N = 8>
__global__ void k( uint32_t *out, uint32_t p, uint32_t q )
{
    uint32_t x[N], y[N], z[N];
#pragma unroll
    for( int i = 0; i < N; i++ )
    {
        x[i] = threadIdx.x * 7 + i;
        y[i] = threadIdx.x * 3 + i * 5;
        z[i] = ~0u;
    }
    for( int it = 0; it < ITERS; it++ )
    {
#pragma unroll
        for( int i = 0; i < N; i++ )
        {
            if( MODE == 0 )        /* VABSDIFF4 */
                x[i] = vad( x[i], p, x[i] );
            else if( MODE == 1 )   /* VIMNMX3 */
                x[i] = __vimin3_u32( x[i], y[i], p + i );
            else if( MODE == 2 )   /* the run loop's mix: 3 VABSDIFF4, 3 IMAD, 1 VIMNMX3 */
            {
                x[i] = vad( x[i], p, x[i] );
                y[i] = y[i] * p + q;
                x[i] = vad( x[i], q, x[i] );
                y[i] = y[i] * q + p;
                x[i] = vad( x[i], p ^ q, x[i] );
                y[i] = y[i] * p + x[i];
                z[i] = __vimin3_u32( z[i], x[i], y[i] );
            }
            else if( MODE == 3 )   /* IMAD */
                x[i] = x[i] * p + q;
            else if( MODE == 4 )   /* VABSDIFF4 + IMAD, 1:1 */
            {
                x[i] = vad( x[i], p, x[i] );
                y[i] = y[i] * p + q;
            }
            else if( MODE == 5 )   /* VABSDIFF4 + VIMNMX3, 1:1 */
            {
                x[i] = vad( x[i], p, x[i] );
                y[i] = __vimin3_u32( y[i], x[i], q + i );
            }
            else if( MODE == 6 )   /* VIADDMNMX */
                x[i] = __viaddmin_u32( x[i], p, y[i] );
            /* which pipe takes a float minimum (keys < 0x7f800000 order
             * as floats do) */
            else if( MODE == 7 )   /* FMNMX */
                x[i] = fmn( x[i], y[i] + i );
            else if( MODE == 8 )   /* VABSDIFF4 + FMNMX, 1:1 */
            {
                x[i] = vad( x[i], p, x[i] );
                y[i] = fmn( y[i], z[i] );
            }
            else if( MODE == 9 )   /* IMAD + FMNMX, 1:1 */
            {
                x[i] = x[i] * p + q;
                y[i] = fmn( y[i], z[i] );
            }
            else if( MODE == 10 )  /* VABSDIFF4 + FFMA, 1:1 */
            {
                x[i] = vad( x[i], p, x[i] );
                y[i] = ffma( y[i], p, q );
            }
            else if( MODE == 11 )  /* VABSDIFF4 + IMAD + FMNMX, 1:1:1 */
            {
                x[i] = vad( x[i], p, x[i] );
                y[i] = y[i] * p + q;
                z[i] = fmn( z[i], y[i] );
            }
        }
    }
    uint32_t s = 0;
#pragma unroll
    for( int i = 0; i < N; i++ )
        s += x[i] + y[i] + z[i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

template<int MODE, int N = 8>
static void run( const char *name, int per_iter, int sms, int clk_khz, uint32_t *d, int warps = 16 )
{
    /* warps per SM sub-partition: blocks of 4*warps warps... one block of
     * 32 * 4 * warps threads per SM, at most 1024 */
    const int threads = warps <= 8 ? 128 * warps : 512, blocks = warps <= 8 ? sms : sms * warps / 4;
    cudaEvent_t a, b;
    cudaEventCreate( &a );
    cudaEventCreate( &b );
    k<MODE, N><<<blocks, threads>>>( d, 0x01020304u, 5 );
    cudaEventRecord( a );
    k<MODE, N><<<blocks, threads>>>( d, 0x01020304u, 5 );
    cudaEventRecord( b );
    cudaEventSynchronize( b );
    float ms;
    cudaEventElapsedTime( &ms, a, b );
    const double winst = (double)blocks * threads / 32 * ITERS * N * per_iter;
    const double cycles = ms * 1e-3 * clk_khz * 1e3;
    printf( "%-28s %2d warps/SMSP %d chains %8.3f ms  %.3f warp instructions per cycle per SMSP\n", name, warps, N, ms,
            winst / cycles / (sms * 4) );
}

int main( void )
{
    int sms, clk;
    cudaDeviceGetAttribute( &sms, cudaDevAttrMultiProcessorCount, 0 );
    cudaDeviceGetAttribute( &clk, cudaDevAttrClockRate, 0 );
    uint32_t *d;
    cudaMalloc( &d, (size_t)sms * 4 * 512 * 4 );
    printf( "%d SMs, %d MHz\n", sms, clk / 1000 );
    run<0>( "VABSDIFF4", 1, sms, clk, d );
    run<1>( "VIMNMX3", 1, sms, clk, d );
    run<2>( "3 VABSDIFF4+3 IMAD+VIMNMX3", 7, sms, clk, d );
    run<3>( "IMAD", 1, sms, clk, d );
    run<4>( "VABSDIFF4+IMAD", 2, sms, clk, d );
    run<5>( "VABSDIFF4+VIMNMX3", 2, sms, clk, d );
    run<6>( "VIADDMNMX", 1, sms, clk, d );
    run<7>( "FMNMX", 1, sms, clk, d );
    run<8>( "VABSDIFF4+FMNMX", 2, sms, clk, d );
    run<9>( "IMAD+FMNMX", 2, sms, clk, d );
    run<10>( "VABSDIFF4+FFMA", 2, sms, clk, d );
    run<11>( "VABSDIFF4+IMAD+FMNMX", 3, sms, clk, d );
    /* the mix against the warps per scheduler and the chains per thread (ILP):
     * the search kernel runs 3-4 warps per scheduler */
    for( int w = 1; w <= 16; w *= 2 )
    {
        run<2, 2>( "3 VABSDIFF4+3 IMAD+VIMNMX3", 7, sms, clk, d, w );
        run<2, 4>( "3 VABSDIFF4+3 IMAD+VIMNMX3", 7, sms, clk, d, w );
        run<2, 8>( "3 VABSDIFF4+3 IMAD+VIMNMX3", 7, sms, clk, d, w );
    }
    run<2, 8>( "3 VABSDIFF4+3 IMAD+VIMNMX3", 7, sms, clk, d, 3 );
    run<2, 4>( "3 VABSDIFF4+3 IMAD+VIMNMX3", 7, sms, clk, d, 3 );
    return cudaGetLastError() != cudaSuccess;
}
