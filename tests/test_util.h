/*****************************************************************************
 * test_util.h: inputs, oracle and comparison helpers for the tests and the
 *              benchmark
 *****************************************************************************/

#ifndef CUDA_ME_TEST_UTIL_H
#define CUDA_ME_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "cuda_me.h"
#include "me_spec.h"

/* A luma plane of w x h (multiples of 16), stored with a CME_PAD border. */
typedef struct
{
    int w, h;
    intptr_t stride;
    uint8_t *buf;
    uint8_t *p;          /* pixel (0,0) */
} tframe_t;

/* Seed: CUDA_ME_SEED if set, else from the clock; printed once. */
uint32_t test_seed( void );
uint32_t test_rand( uint32_t *state );

int  tframe_alloc( tframe_t *f, int w, int h );
void tframe_free( tframe_t *f );
/* Re-creates the border from the w x h area (x264's edge replication). */
void tframe_pad( tframe_t *f );

enum { PAT_RANDOM, PAT_FLAT, PAT_MAXDIFF, PAT_GRADIENT, PAT_SHIFTED };
/* Fills f with a pattern; PAT_SHIFTED copies ref moved by (dx, dy) plus noise. */
void tframe_fill( tframe_t *f, int pattern, uint32_t *rng, const tframe_t *ref, int dx, int dy );

/* Reads luma frame n of a y4m file into f (allocated, size rounded up to
 * 16 and padded as x264 pads: mod16 then border).  Returns 0 on success. */
int tframe_read_y4m( tframe_t *f, const char *path, int n );

/* Directory of the decoded test clips (CUDA_ME_TEST_DATA or build/data). */
const char *test_data_dir( void );

/* The brute-force oracle for one macroblock: every partition's SAD taken
 * pixel by pixel over the partition, with clamped (not padded) reads. */
void oracle_mb( const tframe_t *cur, const tframe_t *ref, int mb_x, int mb_y, int range, int mv_range,
                const uint16_t *mv_cost, const int16_t *centre, int parts, cuda_me_result_t *out );

/* Pass 2's range for pass 1's, written out: 16 from 32 on; below, half the
 * range, but 8 where that is less than 8, and the range itself below 8. */
int oracle_pass2_range( int range );

/* The oracle's pass-2 centres (cuda_me.h, i_cands 2) from pass 1's results
 * (16x16 at pass1[mb * stride]), written with plain loops: the median of
 * left, top and top-right (top-left in the last column), else the first
 * there is, at (0,0) pass 1's centre clipped to the limits. */
void oracle_pass2_centres( const tframe_t *cur, const cuda_me_result_t *pass1, int stride, int mv_range,
                           const int16_t *centre, int16_t *centre2 );

/* x264's mv cost at QP qp (lambda from x264's table), sampled at full pels:
 * 4*range+1 entries, cost[2*range + d]. */
void test_mv_cost_qp( uint16_t *cost, int range, int qp );
#define test_mv_cost( cost, range ) test_mv_cost_qp( cost, range, 12 )
#define MV_COST_SIZE (4*CUDA_ME_RANGE_MAX+1)

/* Two sub-pel results (cuda_me_subpel_result_t or the library's
 * cme_subpel_result_t, the same fields) equal in every field. */
#define SUBPEL_EQ( a, b ) ((a).mv[0] == (b).mv[0] && (a).mv[1] == (b).mv[1] && (a).cost == (b).cost &&\
                           (a).mv_hpel[0] == (b).mv_hpel[0] && (a).mv_hpel[1] == (b).mv_hpel[1] &&\
                           (a).cost_hpel == (b).cost_hpel)

/* x264's quarter-pel MV cost table h->cost_mv[qp] (init_costs), for
 * sub-pel refinement: centre[-span..span]. */
void test_cost_mv_qpel( uint16_t *centre, int span, int qp );

/* Random window centres, |c| <= spread, or NULL for spread < 0. */
int16_t *test_centres( int mb_count, int spread, uint32_t *rng );

/* Compares two result arrays; on mismatch prints the name, seed, a
 * '.'/'x' macroblock map and the first differences.  Returns the number of
 * differing macroblocks. */
int results_compare( const char *name, const cuda_me_result_t *want, const cuda_me_result_t *got,
                     int mb_w, int mb_h, int parts, uint32_t seed );

#define CANARY_BYTE 0x99
/* 1 if the n bytes at p are all CANARY_BYTE. */
int canary_intact( const void *p, size_t n );

/* Index of the first of n results of which a field (mv[0], mv[1] or cost)
 * still holds the canary, i.e. was never written, or -1.  No real result can
 * hold it: |mv| <= CUDA_ME_MAX_SIZE + 24 (x264's limits), while 0x9999 is
 * -26215, and a cost is at most 16*16*255 + 2*65535, far below 0x99999999. */
long results_unwritten( const cuda_me_result_t *r, size_t n );

/* A result array with a guard of GUARD_BYTES canary bytes on each side, in
 * the manner of dav1d's checkasm: before a call everything (the results too)
 * is CANARY_BYTE; after it, both guards must be intact and no result may
 * still hold the canary. */
#define GUARD_BYTES 256
typedef struct
{
    cuda_me_result_t *r;     /* the n results, between the guards */
    size_t n;
    uint8_t *alloc;
} guarded_t;

/* Returns 0, or -1 if out of memory.  Results and guards are all canary. */
int  guarded_alloc( guarded_t *g, size_t n );
/* Everything back to canary, before another call writes the results. */
void guarded_reset( guarded_t *g );
/* NULL if both guards are intact and every result was written; otherwise
 * what is wrong (a static buffer, overwritten by the next call). */
const char *guarded_check( const guarded_t *g );
void guarded_free( guarded_t *g );

/* Partition p's rectangle inside its macroblock, in pixels (cuda_me.h's
 * order). */
void test_part_rect( int p, int *x, int *y, int *w, int *h );
/* A sub-pel search's start vector (quarter-pel) inside the limits x[0..1],
 * y[0..1] (quarter-pel, inclusive): start 0 the full-pel search's vector r,
 * 1 a random full-pel vector, both kept 6 pixels inside; 2 any random
 * quarter-pel vector. */
void test_subpel_start( int start, const cuda_me_result_t *r, const int x[2], const int y[2], uint32_t *rng,
                        int *mvx, int *mvy );

/* For tests that need a CUDA device: 1 if there is one; otherwise prints a
 * loud "*** SKIP name ..." line and returns 0, or, when CUDA_ME_REQUIRE_GPU
 * is set to a non-zero number, prints why and returns -1: the caller must
 * then fail. */
int test_have_gpu( const char *name );
/* CUDA_ME_REQUIRE_GPU=1: a GPU test that cannot run (no device, a missing
 * clip) is a failure, never a skip. */
int test_require_gpu( void );

#endif
