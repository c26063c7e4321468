/*****************************************************************************
 * me_cuda_dev.h: the search kernels for kernel work (dev/), callable from C
 *****************************************************************************
 * Every variant of the search kernel (the library's defaults and the
 * experimental ones of me_cuda_variants.cu), the paper's unfused kernels
 * (me_cuda_paper.cu) and the benchmark's switches.  Linked into the
 * benchmark (bench_me) and the test binary only, never into libcuda_me.a.
 *****************************************************************************/

#ifndef CUDA_ME_ME_CUDA_DEV_H
#define CUDA_ME_ME_CUDA_DEV_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Variants 0 .. cme_dev_variant_count() - 1, by the numbers of
 * cme_launch_t.i_variant, bench_me -v and results/ (the library's own
 * among them: cme_cuda_variant_default()).  All give the same results.
 * cme_dev_variant_info returns v, or -1 if there is no such variant; *k
 * and *minb (if not NULL) get its positions per run and register budget
 * (blocks per SM).  cme_dev_variant_name: e.g. "fma-K8/3", or NULL. */
int cme_dev_variant_count( void );
int cme_dev_variant_info( int v, int *k, int *minb );
const char *cme_dev_variant_name( int v );

/* Scratch enough for any variant's launch with these dimensions (stream-K
 * launches' pieces too); 0: a variant without geometry and fallback. */
size_t cme_dev_scratch_size( int i_mb_width, int i_mb_height, int i_range, int i_mv_range,
                             int i_mv_range_thread, int i_parts );

/* The search of l with variant l->i_variant (-1: the default of its
 * range); where the variant has no geometry for l's frame (rows wider than
 * a fixed stride, windows under 8 columns for column pairs) its fallback:
 * the same variant with the runtime stride, or for KEYS_PAIR the KEYS_FMA
 * variant of the same blocks per SM and the least K not below its K.
 * marks (may be NULL): marks[0] is recorded between the search and the
 * reduce kernel. */
cudaError_t cme_dev_search( const cme_launch_t *l, cudaStream_t stream );
cudaError_t cme_dev_search_marked( const cme_launch_t *l, cudaStream_t stream, cudaEvent_t *marks );

/* Thread blocks per macroblock of that search (0: none), and its threads
 * per block and runs per thread. */
int cme_dev_search_blocks( const cme_launch_t *l );
int cme_dev_search_geometry( const cme_launch_t *l, int *threads, int *runs_per_thread );

/* Stream-K launches (the "sk-" variants): the blocks of l's launch, 0 where
 * it is not one (a variant without stream-K, a macroblock in more than one
 * block, fewer than 2 macroblocks), and in *keys (if not NULL) the scratch
 * keys it may write (its split macroblocks' keys and flags; the rest of
 * blk_keys stays untouched).  cme_dev_sk_force( n ): every later stream-K
 * launch has n blocks (at most the macroblocks) instead of as many as the
 * device holds at once; 0: no stream-K launches; -1: the default.  Not
 * thread-safe. */
int cme_dev_search_sk( const cme_launch_t *l, size_t *keys );
void cme_dev_sk_force( int n );

/* Every later search block (not the stream-K ones) stamps CME_TRACE_WORDS
 * words at buf + CME_TRACE_WORDS * (its blockIdx.y * gridDim.x +
 * blockIdx.x): the global timer (ns) and its SM's clock64() at its start,
 * the same at its end (after a barrier), and its SM; buf NULL: no stamps
 * (the default).  Only in builds with -DCME_TRACE=1 (./configure
 * --extra-nvccflags=...; otherwise cudaErrorNotSupported for any buf but
 * NULL).  Not thread-safe. */
#define CME_TRACE_WORDS 5
cudaError_t cme_dev_trace( uint64_t *buf );

/* The search kernels' preferred shared-memory carveout, pct percent of the
 * largest (cudaFuncAttributePreferredSharedMemoryCarveout; -1: the
 * driver's choice, as the library leaves it). */
cudaError_t cme_dev_carveout( int pct );

/* cme_cuda_prepare() for every variant's kernels: whether they have an
 * image for this device, and their shared-memory limit. */
cudaError_t cme_dev_prepare( void );

/* The paper's three unfused kernels (me_cuda_paper.cu); needs
 * cme_dev_paper_scratch_size() bytes of scratch in l->blk_keys. */
size_t cme_dev_paper_scratch_size( int i_mb_width, int i_mb_height, int i_range, int i_mv_range,
                                   int i_mv_range_thread, int i_parts );
cudaError_t cme_dev_search_paper( const cme_launch_t *l, cudaStream_t stream, cudaEvent_t *marks );

/* A register-only loop of vabsdiff4 over n_blocks x 256 threads, the peak
 * the benchmark compares against; *absdiffs gets the number of pixel
 * absolute differences done. */
cudaError_t cme_dev_peak_absdiff( int n_blocks, cudaStream_t stream, uint32_t *d_sink, double *absdiffs );

#ifdef __cplusplus
}

#ifdef CUDA_ME_SEARCH_CUH
/* The variant the search of l runs (after any fallback) and its geometry,
 * as cme_dev_search() picks them (tests/search_check.cu). */
const cme_variant_t *cme_dev_pick( const cme_launch_t *l, search_geom_t *g );
#endif
#endif

#endif
