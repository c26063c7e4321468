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

#endif
