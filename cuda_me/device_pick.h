/*****************************************************************************
 * device_pick.h: which GPU CUDA_ME_DEVICE_AUTO opens (the least-loaded one)
 *****************************************************************************
 * Plain C, no CUDA: the ranking is unit-tested on machines without a GPU,
 * and NVML is loaded at run time (dlopen), never linked.
 *****************************************************************************/

#ifndef CUDA_ME_DEVICE_PICK_H
#define CUDA_ME_DEVICE_PICK_H

#include <stddef.h>
#include <stdint.h>

/* The load of one GPU.  -1 in a load field: not known (NVML could not say);
 * an unknown value ranks after every known one. */
typedef struct cme_device_load_t
{
    int     i_ordinal;      /* CUDA device ordinal */
    int     i_processes;    /* processes with a compute context on it */
    int     i_util;         /* percent of the last sample period a kernel ran */
    int64_t i_free;         /* free memory, bytes */
} cme_device_load_t;

/* Index in d[0..n-1] of the least-loaded GPU: fewest compute processes, then
 * lowest utilisation, then most free memory, then lowest ordinal.  -1 if
 * n <= 0.  Pure: the same input, the same answer. */
int cme_device_rank( const cme_device_load_t *d, int n );

/* One GPU as NVML sees it (NVML numbers GPUs its own way, ignoring
 * CUDA_VISIBLE_DEVICES: map bus_id to a CUDA ordinal with
 * cudaDeviceGetByPCIBusId). */
typedef struct cme_nvml_gpu_t
{
    char bus_id[32];        /* "00000000:3B:00.0" (NVML's busId) */
    unsigned i_domain, i_bus, i_device;   /* the same, as numbers */
    cme_device_load_t load; /* i_ordinal: -1 (not known to NVML) */
} cme_nvml_gpu_t;

/* The GPUs NVML (libnvidia-ml.so.1, loaded and unloaded here) sees, up to
 * max of them, with their loads.  Returns how many, or -1 when NVML cannot be
 * loaded or initialised (then why says why, in a few words). */
int cme_nvml_query( cme_nvml_gpu_t *gpu, int max, char *why, size_t why_size );

/* Recent picks.  NVML counts a process on a GPU only once its context
 * exists, a few hundred ms after the pick, so encodes that start together
 * would all see the same loads and pick the same GPU.  Each pick is
 * therefore recorded, with its time, in a small file of this user's
 * (/dev/shm/cuda_me-picks.UID; $CUDA_ME_PICKS names another, "off" none),
 * and a pick made less than CME_PICK_RECENT_MS ago counts as one more
 * process on its GPU.  A process whose context NVML already sees counts
 * twice until its pick is that old: harmless, the point is to spread.
 * Which GPU runs never changes the output. */
#define CME_PICK_RECENT_MS 2000
#define CME_PICKS_MAX 64

typedef struct cme_pick_t
{
    char    bus_id[32];     /* NVML's busId of the GPU picked */
    int64_t i_time_ms;      /* CLOCK_MONOTONIC (the same clock for every process of the host) */
} cme_pick_t;

/* The file's path in buf ($CUDA_ME_PICKS, else /dev/shm/cuda_me-picks.UID,
 * else /tmp/cuda_me-picks.UID), or NULL when $CUDA_ME_PICKS is "off". */
const char *cme_picks_path( char *buf, size_t size );

/* Opens and locks (flock, exclusive) the file at path, made mode 0600 if
 * missing; -1 if it cannot be (or is not a regular file of this user's):
 * then picks are not recorded, nothing else changes. */
int cme_picks_lock( const char *path );

/* The picks in the locked file younger than CME_PICK_RECENT_MS at now_ms,
 * into p[0..CME_PICKS_MAX-1]; returns how many. */
int cme_picks_read( int fd, cme_pick_t *p, int64_t now_ms );

/* Rewrites the file with p[0..n-1] and { bus_id, now_ms } (the oldest
 * dropped past CME_PICKS_MAX), then unlocks and closes it. */
void cme_picks_write_close( int fd, const cme_pick_t *p, int n, const char *bus_id, int64_t now_ms );

/* CLOCK_MONOTONIC in ms. */
int64_t cme_picks_now( void );

#endif
