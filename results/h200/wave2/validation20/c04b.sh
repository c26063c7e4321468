#!/bin/bash
# call 4b (session 20, warm after call 4, 82528d7's test binary): the GPU
# unit case pass2 (pass 2 at +-8 now with v6).  Run as one command line;
# the last lines of its output are in c4b/unit_pass2.txt.
tar xJf build/carry20/c3.tar.xz; tests/device.sh data > /dev/null 2>&1; CUDA_ME_REQUIRE_GPU=1 CK_RUN_SUITE=gpu CK_RUN_CASE=pass2 timeout 125 build/tests/test_cuda_me_static 2>&1 | tail -3
