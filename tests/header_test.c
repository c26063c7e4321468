/* The public header alone, as a C99 user sees it: compiled with
 * -std=c99 -pedantic -Werror and no CUDA include path. */
#include "cuda_me.h"

int cuda_me_header_test( void );
int cuda_me_header_test( void )
{
    cuda_me_function_t f;
    cuda_me_param_t p = { 0 };
    cuda_me_result_t r = { { 0, 0 }, 0 };
    (void)f; (void)p;
    return CUDA_ME_API_VERSION + CUDA_ME_NPART + (int)r.cost;
}
