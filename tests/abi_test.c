/* tests/abi_test.c: a program built against the PATCHED x264.h and linked
 * with the shared patched library (libx264-gpu-me.so.164) through its
 * x264.pc (tests/abi.sh builds and runs it).
 *
 * It sets every gpu-me option with x264_param_parse, checks the fields the
 * patch added to x264_param_t, checks that a bad value is refused, then
 * encodes a few frames of a moving synthetic picture on the C backend and
 * counts x264's "gpu-me-stats: frames=" statistics line through its own
 * pf_log.
 *
 *   abi_test [FRAMES]      prints "abi_test: ok ..." and exits 0, or names
 *                          what failed and exits 1
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x264.h>

static int stats_lines;

static void log_cb( void *priv, int level, const char *fmt, va_list ap )
{
    char line[1024];
    (void)priv;
    vsnprintf( line, sizeof(line), fmt, ap );
    if( strstr( line, "gpu-me-stats: frames=" ) )
        stats_lines++;
    if( level <= X264_LOG_INFO )
        fprintf( stderr, "x264 [%d]: %s", level, line );
}

#define FAIL(...) do { fprintf( stderr, "abi_test: FAIL: " __VA_ARGS__ ); fputc( '\n', stderr ); return 1; } while( 0 )

int main( int argc, char **argv )
{
    static const char *const opts[][2] = {
        { "gpu-me", "1" }, { "gpu-me-backend", "c" }, { "gpu-me-range", "8" },
        { "gpu-me-device", "0" }, { "gpu-me-stats", "1" }, { "mvrange-thread", "auto" },
    };
    const int frames = argc > 1 ? atoi( argv[1] ) : 6;
    const int w = 176, h = 144;
    x264_param_t param, check;
    x264_picture_t pic, pic_out;
    x264_t *enc;
    x264_nal_t *nal;
    int i_nal, encoded = 0;
    long bytes = 0;

    if( x264_param_default_preset( &param, "fast", NULL ) < 0 )
        FAIL( "x264_param_default_preset" );
    for( size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++ )
        if( x264_param_parse( &param, opts[i][0], opts[i][1] ) != 0 )
            FAIL( "x264_param_parse(%s=%s)", opts[i][0], opts[i][1] );
    /* the fields of the patched x264_param_t */
    if( param.b_gpu_me != 1 || param.i_gpu_me_backend != 2 || param.i_gpu_me_range != 8 ||
        param.i_gpu_me_device != 0 || param.b_gpu_me_stats != 1 ||
        param.analyse.i_mv_range_thread != X264_MV_RANGE_THREAD_AUTO )
        FAIL( "gpu-me fields not set: me %d backend %d range %d device %d stats %d mvrange-thread %d",
              param.b_gpu_me, param.i_gpu_me_backend, param.i_gpu_me_range,
              param.i_gpu_me_device, param.b_gpu_me_stats, param.analyse.i_mv_range_thread );
    check = param;
    if( x264_param_parse( &check, "gpu-me-backend", "bogus" ) != X264_PARAM_BAD_VALUE )
        FAIL( "gpu-me-backend=bogus was not refused with X264_PARAM_BAD_VALUE" );

    param.i_width = w;
    param.i_height = h;
    param.i_csp = X264_CSP_I420;
    param.i_fps_num = 25;
    param.i_fps_den = 1;
    param.pf_log = log_cb;
    param.i_log_level = X264_LOG_INFO;
    if( x264_param_apply_profile( &param, "high" ) < 0 )
        FAIL( "x264_param_apply_profile" );

    if( x264_picture_alloc( &pic, X264_CSP_I420, w, h ) < 0 )
        FAIL( "x264_picture_alloc" );
    if( !(enc = x264_encoder_open( &param )) )
        FAIL( "x264_encoder_open" );
    x264_encoder_parameters( enc, &check );
    if( !check.b_gpu_me || check.i_gpu_me_range != 8 || check.i_gpu_me_backend != 2 )
        FAIL( "x264_encoder_parameters: gpu-me %d range %d backend %d",
              check.b_gpu_me, check.i_gpu_me_range, check.i_gpu_me_backend );

    for( int f = 0; f < frames + 64 && (f < frames || x264_encoder_delayed_frames( enc )); f++ )
    {
        x264_picture_t *in = NULL;
        if( f < frames )
        {
            /* a texture moving by (2,1) per frame, flat chroma */
            for( int y = 0; y < h; y++ )
                for( int x = 0; x < w; x++ )
                {
                    int u = x + 2 * f, v = y + f;
                    pic.img.plane[0][y * pic.img.i_stride[0] + x] = (uint8_t)(((u * 7) ^ (v * 13)) + ((u / 8 + v / 8) & 1) * 64);
                }
            for( int p = 1; p < 3; p++ )
                for( int y = 0; y < h / 2; y++ )
                    memset( pic.img.plane[p] + y * pic.img.i_stride[p], 128, w / 2 );
            pic.i_pts = f;
            in = &pic;
        }
        int size = x264_encoder_encode( enc, &nal, &i_nal, in, &pic_out );
        if( size < 0 )
            FAIL( "x264_encoder_encode, frame %d", f );
        if( size > 0 )
        {
            bytes += size;
            encoded++;
        }
    }
    x264_encoder_close( enc );
    x264_picture_clean( &pic );

    if( encoded != frames || bytes <= 0 )
        FAIL( "%d frames out (%ld bytes), %d in", encoded, bytes, frames );
    if( stats_lines != 1 )
        FAIL( "%d 'gpu-me: frames' statistics lines", stats_lines );
    printf( "abi_test: ok, %d frames, %ld bytes, sizeof(x264_param_t) %zu, X264_BUILD %d\n",
            encoded, bytes, sizeof(x264_param_t), X264_BUILD );
    return 0;
}
