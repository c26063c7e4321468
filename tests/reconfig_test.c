/*****************************************************************************
 * reconfig_test.c: x264_encoder_reconfig() in the middle of a --gpu-me
 *                  encode, through libx264's public API
 *****************************************************************************
 *   reconfig_test IN.y4m OUT.264 OUT.rec.yuv THREADS [BACKEND]
 *
 * Opens the encoder with --gpu-me (C backend by default), without p4x4,
 * with b-pyramid, 3 references and CRF 23; after half the frames asks for
 * p4x4, no pyramid, 1 reference and CRF 30 (x264_encoder_reconfig), and for
 * one frame a per-picture parameter change as well.  The module cannot
 * follow the first two: they must be refused (parameters read back), the
 * others applied.  Writes the stream and the reconstruction (x264's own
 * dump, as --dump-yuv) for the caller to decode and compare; run under valgrind by
 * tests/reconfig.sh, where an out-of-bounds read of the results fails.
 *****************************************************************************/

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "x264.h"

static int fail( const char *msg )
{
    fprintf( stderr, "reconfig_test: %s\n", msg );
    return 1;
}

static int encode( x264_t *enc, x264_picture_t *in, FILE *out )
{
    x264_nal_t *nal;
    int i_nal;
    x264_picture_t pic_out;
    int size = x264_encoder_encode( enc, &nal, &i_nal, in, &pic_out );
    if( size < 0 )
        return -1;
    if( size > 0 )
    {
        fwrite( nal[0].p_payload, 1, size, out );
    }
    return size;
}

int main( int argc, char **argv )
{
    if( argc < 5 )
        return fail( "usage: reconfig_test IN.y4m OUT.264 OUT.rec.yuv THREADS [BACKEND]" );
    FILE *in = fopen( argv[1], "rb" ), *out = fopen( argv[2], "wb" );
    if( !in || !out )
        return fail( "cannot open the files" );
    int w = 0, h = 0;
    char line[512];
    if( !fgets( line, sizeof(line), in ) || strncmp( line, "YUV4MPEG2 ", 10 ) )
        return fail( "not a y4m file" );
    for( char *t = strtok( line, " \n" ); t; t = strtok( NULL, " \n" ) )
    {
        if( t[0] == 'W' ) w = atoi( t + 1 );
        if( t[0] == 'H' ) h = atoi( t + 1 );
    }
    if( w <= 0 || h <= 0 || (w & 1) || (h & 1) )
        return fail( "bad y4m size" );

    x264_param_t p;
    if( x264_param_default_preset( &p, "medium", NULL ) < 0 )
        return fail( "preset" );
    p.i_width = w;
    p.i_height = h;
    p.i_csp = X264_CSP_I420;
    p.i_fps_num = 25;
    p.i_fps_den = 1;
    p.i_threads = atoi( argv[4] );
    p.i_log_level = X264_LOG_WARNING;
    p.i_bframe = 3;
    p.i_bframe_pyramid = X264_B_PYRAMID_NORMAL;
    p.i_frame_reference = 3;
    p.rc.i_rc_method = X264_RC_CRF;
    p.rc.f_rf_constant = 23;
    p.analyse.inter &= ~X264_ANALYSE_PSUB8x8;
    p.b_repeat_headers = 1;
    p.cpu &= ~X264_CPU_AVX512;  /* valgrind does not know AVX-512 */
    p.psz_dump_yuv = argv[3];   /* the reconstruction, as x264 --dump-yuv */
    if( x264_param_parse( &p, "gpu-me", "1" ) || x264_param_parse( &p, "gpu-me-range", "8" ) ||
        x264_param_parse( &p, "gpu-me-backend", argc > 5 ? argv[5] : "c" ) )
        return fail( "this libx264 has no gpu-me options" );

    x264_t *enc = x264_encoder_open( &p );
    if( !enc )
        return fail( "x264_encoder_open failed" );
    x264_picture_t pic;
    if( x264_picture_alloc( &pic, X264_CSP_I420, w, h ) < 0 )
        return fail( "x264_picture_alloc failed" );
    const size_t luma = (size_t)w * h, chroma = luma / 4;
    int frames = 0, ret = 0;
    while( fgets( line, sizeof(line), in ) && !strncmp( line, "FRAME", 5 ) )
    {
        if( fread( pic.img.plane[0], 1, luma, in ) != luma || fread( pic.img.plane[1], 1, chroma, in ) != chroma ||
            fread( pic.img.plane[2], 1, chroma, in ) != chroma )
            break;
        pic.i_pts = frames;
        pic.param = NULL;
        if( frames == 8 )
        {
            x264_param_t q;
            x264_encoder_parameters( enc, &q );
            q.analyse.inter |= X264_ANALYSE_PSUB8x8;
            q.i_bframe_pyramid = X264_B_PYRAMID_NONE;
            q.i_frame_reference = 1;
            q.rc.f_rf_constant = 30;
            if( x264_encoder_reconfig( enc, &q ) < 0 )
                return fail( "x264_encoder_reconfig failed" );
        }
        if( frames == 14 )
        {
            /* the per-picture path of the same change */
            static x264_param_t q;
            x264_encoder_parameters( enc, &q );
            q.analyse.inter |= X264_ANALYSE_PSUB8x8;
            q.i_frame_reference = 1;
            q.rc.f_rf_constant = 26;
            pic.param = &q;
        }
        if( encode( enc, &pic, out ) < 0 )
            return fail( "x264_encoder_encode failed" );
        frames++;
    }
    while( x264_encoder_delayed_frames( enc ) )
        if( encode( enc, NULL, out ) < 0 )
            return fail( "x264_encoder_encode (flush) failed" );

    x264_param_t q;
    x264_encoder_parameters( enc, &q );
    printf( "frames %d; after reconfig: p4x4 %s, b-pyramid %d, ref %d, crf %.0f\n", frames,
            q.analyse.inter & X264_ANALYSE_PSUB8x8 ? "on" : "off", q.i_bframe_pyramid, q.i_frame_reference,
            q.rc.f_rf_constant );
    if( q.analyse.inter & X264_ANALYSE_PSUB8x8 )
        ret = fail( "p4x4 was switched on under gpu-me" );
    if( q.i_bframe_pyramid != X264_B_PYRAMID_NORMAL )
        ret = fail( "b-pyramid was changed under gpu-me" );
    if( q.i_frame_reference != 1 || q.rc.f_rf_constant != 26 )
        ret = fail( "the changes gpu-me can follow were not applied" );
    if( frames < 16 )
        ret = fail( "too few frames in the input (16 or more needed)" );
    x264_encoder_close( enc );
    x264_picture_clean( &pic );
    fclose( in );
    fclose( out );
    return ret;
}
