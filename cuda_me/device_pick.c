/*****************************************************************************
 * device_pick.c: the least-loaded GPU, for CUDA_ME_DEVICE_AUTO
 *****************************************************************************
 * The ranking, and the loads as NVML reports them.  NVML is the NVIDIA
 * driver's own library (libnvidia-ml.so.1, installed with the driver, like
 * libcuda.so.1): it is loaded with dlopen when a device is picked and
 * unloaded after, so the library has no link-time dependency on it and works
 * (with a fallback: cuda.c) where it is missing.
 *****************************************************************************/

#include <dlfcn.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "device_pick.h"

/* ---------------------------------------------------------------- ranking */

/* a < b as loads: -1 (unknown) is larger than every known value. */
static int less_known( int64_t a, int64_t b )
{
    if( a < 0 || b < 0 )
        return a >= 0 && b < 0;
    return a < b;
}

/* Whether load a is lighter than load b. */
static int lighter( const cme_device_load_t *a, const cme_device_load_t *b )
{
    if( a->i_processes != b->i_processes )
        return less_known( a->i_processes, b->i_processes );
    if( a->i_util != b->i_util )
        return less_known( a->i_util, b->i_util );
    if( a->i_free != b->i_free )   /* more free memory is lighter; unknown is heaviest */
        return b->i_free < 0 || (a->i_free >= 0 && a->i_free > b->i_free);
    return a->i_ordinal < b->i_ordinal;
}

int cme_device_rank( const cme_device_load_t *d, int n )
{
    if( n <= 0 )
        return -1;
    int best = 0;
    for( int i = 1; i < n; i++ )
        if( lighter( &d[i], &d[best] ) )
            best = i;
    return best;
}

/* ---------------------------------------------------------------- NVML */

/* The little of NVML's public header (nvml.h) used here, declared by hand as
 * the CUDA driver is: the types are part of NVML's stable ABI (the _v2/_v3
 * entry points exist so that they never change under a caller). */
typedef struct nvml_device *nvml_device_t;   /* nvmlDevice_t: opaque */
typedef int nvml_return_t;                   /* nvmlReturn_t: an enum */
#define NVML_SUCCESS                 0
#define NVML_ERROR_INSUFFICIENT_SIZE 7

typedef struct                               /* nvmlUtilization_t */
{
    unsigned int gpu;                        /* percent of time a kernel ran */
    unsigned int memory;                     /* percent of time memory was read or written */
} nvml_utilization_t;

typedef struct                               /* nvmlMemory_t (v1, nvmlDeviceGetMemoryInfo) */
{
    unsigned long long total;                /* bytes */
    unsigned long long free;
    unsigned long long used;
} nvml_memory_t;

typedef struct                               /* nvmlPciInfo_t (nvmlDeviceGetPciInfo_v3) */
{
    char busIdLegacy[16];                    /* NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE */
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    char busId[32];                          /* NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE: "%08X:%02X:%02X.0" */
} nvml_pci_info_t;

/* nvml.h's layout (compared with the header of NVIDIA's nvidia-nvml-dev 13.5:
 * busId at 36, 68 bytes in all); a compiler that laid these out differently
 * fails here rather than misread busId. */
typedef char nvml_pci_layout_check[offsetof( nvml_pci_info_t, domain ) == 16 &&
                                   offsetof( nvml_pci_info_t, busId ) == 36 &&
                                   sizeof(nvml_pci_info_t) == 68 ? 1 : -1];
typedef char nvml_memory_layout_check[offsetof( nvml_memory_t, free ) == 8 && sizeof(nvml_memory_t) == 24 ? 1 : -1];
typedef char nvml_util_layout_check[sizeof(nvml_utilization_t) == 8 ? 1 : -1];

typedef struct
{
    nvml_return_t (*init)( void );                                          /* nvmlInit_v2 */
    nvml_return_t (*shutdown)( void );                                      /* nvmlShutdown */
    nvml_return_t (*count)( unsigned int *n );                              /* nvmlDeviceGetCount_v2 */
    nvml_return_t (*handle)( unsigned int i, nvml_device_t *dev );          /* nvmlDeviceGetHandleByIndex_v2 */
    nvml_return_t (*pci)( nvml_device_t dev, nvml_pci_info_t *pci );        /* nvmlDeviceGetPciInfo_v3 */
    nvml_return_t (*util)( nvml_device_t dev, nvml_utilization_t *u );      /* nvmlDeviceGetUtilizationRates */
    nvml_return_t (*memory)( nvml_device_t dev, nvml_memory_t *m );         /* nvmlDeviceGetMemoryInfo */
    /* nvmlDeviceGetComputeRunningProcesses_v3: called with *count = 0 and no
     * buffer, it only counts (NVML_SUCCESS: none; NVML_ERROR_INSUFFICIENT_SIZE:
     * *count of them), so the process info struct is never needed. */
    nvml_return_t (*procs)( nvml_device_t dev, unsigned int *count, void *infos );
} nvml_t;

static int nvml_load( void *lib, nvml_t *f )
{
    static const struct { const char *name; size_t off; } syms[] =
    {
        { "nvmlInit_v2",                             offsetof( nvml_t, init ) },
        { "nvmlShutdown",                            offsetof( nvml_t, shutdown ) },
        { "nvmlDeviceGetCount_v2",                   offsetof( nvml_t, count ) },
        { "nvmlDeviceGetHandleByIndex_v2",           offsetof( nvml_t, handle ) },
        { "nvmlDeviceGetPciInfo_v3",                 offsetof( nvml_t, pci ) },
        { "nvmlDeviceGetUtilizationRates",           offsetof( nvml_t, util ) },
        { "nvmlDeviceGetMemoryInfo",                 offsetof( nvml_t, memory ) },
        { "nvmlDeviceGetComputeRunningProcesses_v3", offsetof( nvml_t, procs ) },
    };
    for( size_t i = 0; i < sizeof(syms)/sizeof(*syms); i++ )
    {
        void *p = dlsym( lib, syms[i].name );
        if( !p )
            return -1;
        /* POSIX: a function pointer converts from dlsym's void * */
        memcpy( (char*)f + syms[i].off, &p, sizeof(p) );
    }
    return 0;
}

int cme_nvml_query( cme_nvml_gpu_t *gpu, int max, char *why, size_t why_size )
{
    void *lib = dlopen( "libnvidia-ml.so.1", RTLD_LAZY | RTLD_LOCAL );
    if( !lib )
    {
        snprintf( why, why_size, "libnvidia-ml.so.1 cannot be loaded" );
        return -1;
    }
    nvml_t f;
    nvml_return_t r;
    unsigned int n = 0;
    if( nvml_load( lib, &f ) < 0 )
    {
        snprintf( why, why_size, "libnvidia-ml.so.1 lacks a function" );
        dlclose( lib );
        return -1;
    }
    if( (r = f.init()) != NVML_SUCCESS )
    {
        snprintf( why, why_size, "nvmlInit_v2 failed (%d)", r );
        dlclose( lib );
        return -1;
    }
    if( (r = f.count( &n )) != NVML_SUCCESS )
    {
        snprintf( why, why_size, "nvmlDeviceGetCount_v2 failed (%d)", r );
        f.shutdown();
        dlclose( lib );
        return -1;
    }
    int k = 0;
    for( unsigned int i = 0; i < n && k < max; i++ )
    {
        nvml_device_t dev;
        nvml_pci_info_t pci;
        memset( &pci, 0, sizeof(pci) );
        if( f.handle( i, &dev ) != NVML_SUCCESS || f.pci( dev, &pci ) != NVML_SUCCESS )
            continue;   /* cannot be mapped to a CUDA device */
        cme_nvml_gpu_t *g = &gpu[k++];
        memset( g, 0, sizeof(*g) );
        memcpy( g->bus_id, pci.busId, sizeof(g->bus_id) );
        g->bus_id[sizeof(g->bus_id) - 1] = 0;
        g->i_domain = pci.domain;
        g->i_bus = pci.bus;
        g->i_device = pci.device;
        g->load.i_ordinal = -1;

        unsigned int procs = 0;
        r = f.procs( dev, &procs, NULL );
        g->load.i_processes = r == NVML_SUCCESS ? 0 : r == NVML_ERROR_INSUFFICIENT_SIZE ? (int)procs : -1;
        nvml_utilization_t u;
        g->load.i_util = f.util( dev, &u ) == NVML_SUCCESS ? (int)u.gpu : -1;
        nvml_memory_t m;
        g->load.i_free = f.memory( dev, &m ) == NVML_SUCCESS ? (int64_t)m.free : -1;
    }
    f.shutdown();
    dlclose( lib );
    if( !k )
        snprintf( why, why_size, "NVML sees no GPU" );
    return k;
}

/* ---------------------------------------------------------------- recent picks */

const char *cme_picks_path( char *buf, size_t size )
{
    const char *env = getenv( "CUDA_ME_PICKS" );
    if( env && !strcmp( env, "off" ) )
        return NULL;
    if( env && *env )
        snprintf( buf, size, "%s", env );
    else
        snprintf( buf, size, "%s/cuda_me-picks.%u", access( "/dev/shm", W_OK ) ? "/tmp" : "/dev/shm",
                  (unsigned)getuid() );
    return buf;
}

int cme_picks_lock( const char *path )
{
    /* O_NOFOLLOW and the owner check: a file planted by another user in a
     * shared directory is not used */
    int fd = open( path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600 );
    if( fd < 0 )
        return -1;
    struct stat st;
    if( fstat( fd, &st ) || !S_ISREG( st.st_mode ) || st.st_uid != getuid() || flock( fd, LOCK_EX ) )
    {
        close( fd );
        return -1;
    }
    return fd;
}

int cme_picks_read( int fd, cme_pick_t *p, int64_t now_ms )
{
    cme_pick_t all[CME_PICKS_MAX];
    ssize_t got = pread( fd, all, sizeof(all), 0 );
    int n = 0;
    for( int i = 0; got > 0 && i < (int)(got / (ssize_t)sizeof(*all)); i++ )
    {
        all[i].bus_id[sizeof(all[i].bus_id) - 1] = 0;
        /* a time ahead of now: not this boot's clock, dropped */
        if( all[i].i_time_ms <= now_ms && now_ms - all[i].i_time_ms < CME_PICK_RECENT_MS )
            p[n++] = all[i];
    }
    return n;
}

void cme_picks_write_close( int fd, const cme_pick_t *p, int n, const char *bus_id, int64_t now_ms )
{
    cme_pick_t all[CME_PICKS_MAX];
    int k = 0;
    for( int i = n >= CME_PICKS_MAX ? n - CME_PICKS_MAX + 1 : 0; i < n; i++ )
        all[k++] = p[i];
    memset( &all[k], 0, sizeof(all[k]) );
    snprintf( all[k].bus_id, sizeof(all[k].bus_id), "%s", bus_id );
    all[k++].i_time_ms = now_ms;
    const size_t bytes = k * sizeof(*all);
    int ok = !ftruncate( fd, 0 ) && pwrite( fd, all, bytes, 0 ) == (ssize_t)bytes;
    (void)ok;   /* not recorded (a full disk): the next pick sees one process fewer, nothing else */
    close( fd );   /* releases the lock */
}

int64_t cme_picks_now( void )
{
    struct timespec ts;
    clock_gettime( CLOCK_MONOTONIC, &ts );
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
