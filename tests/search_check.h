/*****************************************************************************
 * search_check.h: host-side checks of the search kernel (search_check.cu)
 *****************************************************************************/

#ifndef CUDA_ME_SEARCH_CHECK_H
#define CUDA_ME_SEARCH_CHECK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The KEYS_FMA and KEYS_CHAIN key formation (row_keys(), row_keys_chain()):
 * random and extreme 4x4 SADs and MV costs against cme_merge(). */
int search_check_keys( uint32_t seed );

/* The KEYS_PAIR runs: for every window width 8..2*CUDA_ME_RANGE_MAX+1, the
 * column pairs cover each column, both columns of a pair lie in the
 * window, and a block's rows (every block of every run count up to 1536
 * runs) stay under raster_most()'s bound. */
int search_check_pairs( void );

/* The one-row runs of HROW() variants: for every window from 9 x 9 to
 * 257 x 257, the runs as the kernel maps them (run_pos()) cover every
 * position and none outside the window, and no warp holds runs of both
 * kinds. */
int search_check_hrow( void );

/* The search geometries: the library's default at every range, size and
 * MV limit it accepts, and every variant of dev/ (or its fallback), has a
 * geometry within the shared-memory limit, and every block's window rows
 * and key tables, computed as the kernel does, fit in it; the geometry
 * memo tells every field of its key apart. */
int search_check_geom( void );

#ifdef __cplusplus
}
#endif

#endif
