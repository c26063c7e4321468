/*****************************************************************************
 * test_util.h: inputs, oracle and comparison helpers for the tests and the
 *              benchmark
 *****************************************************************************/

#ifndef CUDA_ME_TEST_UTIL_H
#define CUDA_ME_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "cuda_me.h"
#include "spec.h"

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

/* x264's mv cost at QP qp (lambda from x264's table), sampled at full pels:
 * 4*range+1 entries, cost[2*range + d]. */
void test_mv_cost_qp( uint16_t *cost, int range, int qp );
#define test_mv_cost( cost, range ) test_mv_cost_qp( cost, range, 12 )
#define MV_COST_SIZE (4*CUDA_ME_RANGE_MAX+1)

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

#endif
