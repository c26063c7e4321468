/* warp_slots.c: the search kernel's run loop as warp-iterations, per frame,
 * for two variants, from the library's own geometry (no GPU needed;
 * results/kernel_steps.md).
 *
 *   cc -O1 -Icuda_me -Icuda_me/dev -I/usr/local/cuda/include tests/tools/warp_slots.c \
 *      build/obj/dev/me_cuda_variants.o build/lib/libcuda_me.a -L/usr/local/cuda/lib64 \
 *      -lcudart_static -lstdc++ -lpthread -ldl -lrt -lm -o build/warp_slots
 *   build/warp_slots [V1 [V2]]        (variants, default 15 and 19)
 *
 * Per size and range: runs (K = the variants' K) and the rows searched
 * twice; per variant the warp-iterations of its blocks (every warp
 * instruction of the run loop is issued once per warp-iteration, for 32
 * lanes or fewer: "lanes" is the share of them holding a run) and the warp
 * slots its blocks hold while their longest warp runs ("slots": warps x
 * that warp's iterations; a block's registers stay allocated until its
 * last warp ends).  Thread t of a block runs t, t + nt, ... of its
 * macroblock's runs, one block a macroblock.  Variants with runs of one
 * column and no one-row runs only: not the column pairs ("pair-"), not
 * K = 8 with a fixed stride (HROW() in search.cuh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernels.h"
#include "me_cuda_dev.h"
#include "me_spec.h"

int main( int argc, char **argv )
{
    static const int sizes[3][2] = { { 120, 68 }, { 80, 45 }, { 240, 135 } };
    static const char *names[3] = { "1080p", "720p", "2160p" };
    static const int ranges[] = { 17, 24, 28, 32 };
    const int vs[2] = { argc > 1 ? atoi( argv[1] ) : 15, argc > 2 ? atoi( argv[2] ) : 19 };
    for( int si = 0; si < 3; si++ )
        for( int ri = 0; ri < 4; ri++ )
        {
            const int mw = sizes[si][0], mh = sizes[si][1], r = ranges[ri];
            printf( "%-5s +-%-3d", names[si], r );
            for( int vi = 0; vi < 2; vi++ )
            {
                int K = 0, minb, nt, u;
                const char *name = cme_dev_variant_name( vs[vi] );
                cme_launch_t l;
                memset( &l, 0, sizeof(l) );
                l.i_mb_width = mw;
                l.i_mb_height = mh;
                l.i_range = r;
                l.i_mv_range = 512;
                l.i_parts = CUDA_ME_NPART;
                l.i_variant = vs[vi];
                if( cme_dev_variant_info( vs[vi], &K, &minb ) < 0 || strstr( name, "pair-" ) ||
                    (K == 8 && strstr( name, "-s" )) || cme_dev_search_geometry( &l, &nt, &u ) != 1 )
                {
                    printf( " | v%d: not counted (column pairs, one-row runs or blocks per macroblock)", vs[vi] );
                    continue;
                }
                long useful = 0, pos = 0, wit = 0, slots = 0;
                for( int i = 0; i < mw * mh; i++ )
                {
                    const cme_window_t w = cme_get_window( i % mw, i / mw, mw, mh, r, 512, 0, 0, 0 );
                    const int wx = w.x_max - w.x_min + 1, wy = w.y_max - w.y_min + 1;
                    const int runs = wx * ((wy + K - 1) / K);
                    useful += runs;
                    pos += wx * wy;
                    /* warp w's iterations: its lanes' first runs 32 w .. 32 w + 31, then + nt */
                    int life = 0;
                    for( int wi = 0; wi < nt / 32; wi++ )
                    {
                        const int c = runs > 32 * wi ? (runs - 32 * wi + nt - 1) / nt : 0;
                        wit += c;
                        life = cme_imax( life, c );
                    }
                    slots += (long)(nt / 32) * life;
                }
                if( !vi )
                    printf( " runs %8ld, rows twice %4.1f%%", useful, 100.0 * (useful * K - pos) / pos );
                printf( " | v%d %3dx%-2d warp-its %7ld (lanes %5.1f%%) slots %7ld (busy %5.1f%%)", vs[vi], nt, u,
                        wit, 100.0 * useful / (32.0 * wit), slots, 100.0 * wit / slots );
            }
            printf( "\n" );
        }
    return 0;
}
