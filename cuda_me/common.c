/*****************************************************************************
 * common.c: what both backends and the hook table use: the clock, the
 * union of device busy intervals, logging, the sticky error, fault injection
 *****************************************************************************/

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

double cme_time_ms( void )
{
    struct timespec ts;
    clock_gettime( CLOCK_MONOTONIC, &ts );
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int busy_cmp( const void *x, const void *y )
{
    const double a = *(const double*)x, b = *(const double*)y;
    return (a > b) - (a < b);
}

/* Folds all but the keep latest-starting intervals. */
static void busy_fold( cme_busy_t *b, int keep )
{
    qsort( b->span, b->n, sizeof(b->span[0]), busy_cmp );
    const int n = b->n - keep;
    for( int i = 0; i < n; i++ )
        if( b->span[i].b > b->end )
        {
            b->total += b->span[i].b - (b->span[i].a > b->end ? b->span[i].a : b->end);
            b->end = b->span[i].b;
        }
    memmove( b->span, b->span + n, keep * sizeof(b->span[0]) );
    b->n = keep;
}

void cme_busy_add( cme_busy_t *b, double start, double end )
{
    b->span[b->n].a = start;
    b->span[b->n].b = end;
    if( ++b->n == 2*CME_BUSY_LAG )
        busy_fold( b, CME_BUSY_LAG );
}

double cme_busy_total( cme_busy_t *b )
{
    busy_fold( b, 0 );
    return b->total;
}

void cme_log( cuda_me_t *h, int i_level, const char *fmt, ... )
{
    va_list ap;
    va_start( ap, fmt );
    if( h && h->param.pf_log )
        h->param.pf_log( h->param.p_log_opaque, i_level, fmt, ap );
    else
    {
        static const char *names[] = { "error", "warning", "info", "debug" };
        fprintf( stderr, "cuda_me [%s]: ", names[i_level < 0 ? 0 : i_level > 3 ? 3 : i_level] );
        vfprintf( stderr, fmt, ap );
    }
    va_end( ap );
}

int cme_set_error( cuda_me_t *h, int err )
{
    pthread_mutex_lock( &h->lock );
    cme_error_put( h, err );
    pthread_cond_broadcast( &h->cv );
    pthread_mutex_unlock( &h->lock );
    return err;
}

/* ---------------------------------------------------------------- faults */

void cme_fault_parse( cuda_me_t *h )
{
    static const char *names[CME_FAULT_KINDS] = { "alloc", "launch", "copy", "device" };
    const char *env = getenv( "CUDA_ME_FAULT" );
    if( !env || !*env )
        return;
    char buf[256];
    snprintf( buf, sizeof(buf), "%s", env );
    for( char *save = NULL, *tok = strtok_r( buf, ",", &save ); tok; tok = strtok_r( NULL, ",", &save ) )
    {
        char *colon = strchr( tok, ':' );
        int known = 0;
        if( colon )
        {
            *colon = 0;
            for( int k = 0; k < CME_FAULT_KINDS; k++ )
                if( !strcmp( tok, names[k] ) )
                {
                    h->fault_at[k] = strtoll( colon + 1, NULL, 10 );
                    known = 1;
                }
        }
        if( !known )
            cme_log( h, CUDA_ME_LOG_WARNING, "CUDA_ME_FAULT: ignoring '%s' (want alloc|launch|copy|device:N)\n", tok );
    }
}

int cme_fault( cuda_me_t *h, int kind )
{
    if( !h->fault_at[kind] )
        return 0;
    pthread_mutex_lock( &h->lock );
    int hit = ++h->fault_count[kind] == h->fault_at[kind];
    pthread_mutex_unlock( &h->lock );
    if( hit )
        cme_log( h, CUDA_ME_LOG_DEBUG, "injected fault %d at operation %lld\n", kind, (long long)h->fault_at[kind] );
    return hit;
}
