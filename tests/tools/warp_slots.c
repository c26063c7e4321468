/* warp_slots.c: the search kernel's run loop as warp-iterations, per frame,
 * for two variants, from the library's own geometry (no GPU needed; issue
 * 13).  Two-macroblock blocks (variant names "mb2-...": search_mbs(), v20
 * and v21 of commit f3ac2ec, measured slower and reverted in the
 * thirty-fifth session, results/kernel_steps.md) are counted as that
 * kernel took its runs; the library has none since.
 *
 *   cc -O1 -Icuda_me -I/usr/local/cuda/include tests/tools/warp_slots.c \
 *      build/lib/libcuda_me.a -L/usr/local/cuda/lib64 -lcudart_static \
 *      -lstdc++ -lpthread -ldl -lrt -lm -o build/warp_slots
 *   build/warp_slots [V1 [V2]]        (variants, default 15 and 19)
 *
 * Per size and range: runs (K = the variants' K) and positions, the rows
 * searched twice; per variant the warp-iterations of its blocks (every
 * warp instruction of the run loop is issued once per warp-iteration, for
 * 32 lanes or fewer: "lanes" is the share of them holding a run) and the
 * warp slots its blocks hold while the longest warp runs ("slots": warps x
 * that warp's iterations; a block's registers stay allocated until its
 * last warp ends).  One-macroblock blocks: thread t runs t, t + nt, ...;
 * two-macroblock blocks: warp w takes iterations w U .. w U + U - 1 of the
 * pair's runs, 32 a iteration. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernels.h"
#include "spec.h"

static int run_count( int wx, int wy, int K )
{
    return wx * ((wy + K - 1) / K);
}

int main( int argc, char **argv )
{
    static const int sizes[3][2] = { { 120, 68 }, { 80, 45 }, { 240, 135 } };
    static const char *names[3] = { "1080p", "720p", "2160p" };
    static const int ranges[] = { 17, 24, 28, 32 };
    const int vs[2] = { argc > 1 ? atoi( argv[1] ) : 15, argc > 2 ? atoi( argv[2] ) : 19 };
    for( int si = 0; si < 3; si++ )
        for( int ri = 0; ri < 4; ri++ )
        {
            const int mw = sizes[si][0], mh = sizes[si][1], n = mw * mh, r = ranges[ri];
            int *runs = malloc( n * sizeof(int) );
            printf( "%-5s +-%-3d", names[si], r );
            for( int vi = 0; vi < 2; vi++ )
            {
                int K = 0, minb, nt, u;
                cme_launch_t l;
                memset( &l, 0, sizeof(l) );
                l.i_mb_width = mw;
                l.i_mb_height = mh;
                l.i_range = r;
                l.i_mv_range = 512;
                l.i_parts = CUDA_ME_NPART;
                l.i_variant = vs[vi];
                if( cme_cuda_variant_info( vs[vi], &K, &minb ) < 0 || cme_cuda_search_geometry( &l, &nt, &u ) != 1 )
                {
                    printf( " | v%d: no one-block geometry", vs[vi] );
                    continue;
                }
                const int two = !strncmp( cme_cuda_variant_name( vs[vi] ), "mb2-", 4 );
                long useful = 0, pos = 0, twice = 0, wit = 0, slots = 0;
                for( int i = 0; i < n; i++ )
                {
                    const cme_window_t w = cme_get_window( i % mw, i / mw, mw, mh, r, 512, 0, 0, 0 );
                    const int wx = w.x_max - w.x_min + 1, wy = w.y_max - w.y_min + 1;
                    runs[i] = run_count( wx, wy, K );
                    useful += runs[i];
                    pos += wx * wy;
                    twice += (long)runs[i] * K - wx * wy;
                }
                const int W = nt / 32;
                for( int b = 0; b < (two ? (n + 1) / 2 : n); b++ )
                {
                    int life = 0;
                    const int all = two ? runs[2*b] + (2*b + 1 < n ? runs[2*b + 1] : 0) : runs[b];
                    for( int w = 0; w < W; w++ )
                    {
                        int c = 0;
                        if( two )
                            c = cme_imax( 0, cme_imin( u, (all + 31) / 32 - w * u ) );
                        else
                            for( int it = 0; it * nt + 32 * w < all; it++ )
                                c++;
                        wit += c;
                        life = cme_imax( life, c );
                    }
                    slots += (long)W * life;
                }
                if( !vi )
                    printf( " runs %8ld, rows twice %4.1f%%", useful, 100.0 * twice / pos );
                printf( " | v%d %3dx%-2d warp-its %7ld (lanes %5.1f%%) slots %7ld (busy %5.1f%%)", vs[vi], nt, u,
                        wit, 100.0 * useful / (32.0 * wit), slots, 100.0 * wit / slots );
            }
            printf( "\n" );
            free( runs );
        }
    return 0;
}
