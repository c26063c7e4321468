# Makefile: cuda_me library, tests and benchmarks (x264 is built by build.sh)

include config.mak

B = build
OBJ = $(B)/obj

LIB_C  = cuda_me/api.c cuda_me/common.c cuda_me/me_c.c cuda_me/subpel_c.c cuda_me/lowres_c.c cuda_me/cuda.c cuda_me/device_pick.c
LIB_CU = cuda_me/me_cuda.cu cuda_me/subpel_cuda.cu cuda_me/lowres_cuda.cu
# dev/: the experimental search kernels and the paper's, for bench_me and
# the tests only (never in libcuda_me.a)
DEV_CU = cuda_me/dev/me_cuda_paper.cu cuda_me/dev/me_cuda_variants.cu
HDR    = cuda_me/cuda_me.h cuda_me/me_spec.h cuda_me/subpel_spec.h cuda_me/subpel_jobs.h cuda_me/lowres_spec.h cuda_me/internal.h cuda_me/kernels.h cuda_me/device_pick.h
CU_HDR = cuda_me/reduce.cuh cuda_me/window.cuh cuda_me/search.cuh
DEV_HDR = cuda_me/dev/me_cuda_dev.h

LIB_OBJ = $(LIB_C:cuda_me/%.c=$(OBJ)/%.o)
ifeq ($(HAVE_CUDA),yes)
CFLAGS += -DHAVE_CUDA=1 $(CUDA_CFLAGS)
LIB_OBJ += $(LIB_CU:cuda_me/%.cu=$(OBJ)/%.o)
DEV_OBJ = $(DEV_CU:cuda_me/dev/%.cu=$(OBJ)/dev/%.o)
TEST_CU_OBJ = $(B)/tests/search_check.o
EXTRA_LIBS = $(CUDA_LIBS) -lstdc++ -lm
else
CFLAGS += -DHAVE_CUDA=0
DEV_OBJ =
TEST_CU_OBJ =
EXTRA_LIBS = -lpthread -ldl -lm
endif

all: lib tests bench

lib: $(B)/lib/libcuda_me.a $(B)/include/cuda_me.h $(B)/include/cuda_me_spec.h $(B)/include/cuda_me_subpel_spec.h \
     $(B)/lib/cuda_me.libs

$(OBJ)/%.o: cuda_me/%.c $(HDR) config.mak
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(OBJ)/%.o: cuda_me/%.cu $(HDR) $(CU_HDR) config.mak
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -Icuda_me -c $< -o $@

$(OBJ)/dev/%.o: cuda_me/dev/%.cu $(HDR) $(CU_HDR) $(DEV_HDR) config.mak
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -Icuda_me -Icuda_me/dev -c $< -o $@

$(B)/lib/libcuda_me.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(B)/include/cuda_me.h: cuda_me/cuda_me.h
	@mkdir -p $(dir $@)
	cp $< $@

# me_spec.h (the window and the cost of the integer search), for the x264
# glue's developer-only experiment (X264_GPU_ME_EXPERIMENT), which includes
# it as cuda_me_spec.h
$(B)/include/cuda_me_spec.h: cuda_me/me_spec.h
	@mkdir -p $(dir $@)
	cp $< $@

# subpel_spec.h (standalone), for the x264 glue's developer-only check of
# sub-pel refinement against x264's own (patches/experiments)
$(B)/include/cuda_me_subpel_spec.h: cuda_me/subpel_spec.h
	@mkdir -p $(dir $@)
	cp $< $@

# Extra libraries a program linking libcuda_me.a needs (read by x264's configure)
$(B)/lib/cuda_me.libs: config.mak
	@mkdir -p $(dir $@)
	echo "$(EXTRA_LIBS)" > $@

# ---------------------------------------------------------------- tests

TEST_BIN = $(B)/tests/test_cuda_me
TEST_SRC = tests/test_cuda_me.c tests/checkasm_me.c tests/test_util.c
TEST_HDR = tests/test_util.h tests/search_check.h $(DEV_HDR)

tests: $(TEST_BIN) $(B)/tests/header_test.o

$(B)/tests/header_test.o: tests/header_test.c cuda_me/cuda_me.h
	@mkdir -p $(dir $@)
	$(CC) -std=c99 -pedantic -Werror -Wall -Wextra -Icuda_me -c $< -o $@

# the search kernel's host-side checks (search.cuh), built by nvcc
$(B)/tests/search_check.o: tests/search_check.cu tests/search_check.h $(HDR) $(CU_HDR) $(DEV_HDR) config.mak
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -Icuda_me -Icuda_me/dev -c $< -o $@

$(TEST_BIN): $(TEST_SRC) $(TEST_HDR) $(HDR) $(B)/lib/libcuda_me.a $(DEV_OBJ) $(TEST_CU_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CHECK_CFLAGS) -Icuda_me -Icuda_me/dev $(TEST_SRC) $(TEST_CU_OBJ) $(DEV_OBJ) $(B)/lib/libcuda_me.a \
	    $(CHECK_LIBS) $(EXTRA_LIBS) $(LDFLAGS) -o $@

# Static variant for a GPU host without the Check library
$(B)/tests/test_cuda_me_static: $(TEST_SRC) $(TEST_HDR) $(HDR) $(B)/lib/libcuda_me.a $(DEV_OBJ) $(TEST_CU_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CHECK_CFLAGS) -Icuda_me -Icuda_me/dev $(TEST_SRC) $(TEST_CU_OBJ) $(DEV_OBJ) $(B)/lib/libcuda_me.a \
	    -Wl,-Bstatic -lcheck -lsubunit -Wl,-Bdynamic $(EXTRA_LIBS) -lm $(LDFLAGS) -o $@

# The sub-pel specification against x264's own C functions: linked with
# the patched build's libx264.a (so it is built after x264: tests/run.sh
# unit, not build.sh's first make), subpel_x264.c compiled as x264 compiles
# its 8-bit templated files.
X264_BUILD = $(B)/x264
X264_SRC   = $(B)/x264-src
SUBPEL_BIN = $(B)/tests/test_subpel

test-subpel: $(SUBPEL_BIN)

$(B)/tests/subpel_x264.o: tests/subpel_x264.c tests/subpel_x264.h $(X264_BUILD)/libx264.a
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -std=gnu99 -D_GNU_SOURCE -Wall -DHIGH_BIT_DEPTH=0 -DBIT_DEPTH=8 \
	    -I$(X264_BUILD) -I$(X264_SRC) -I$(B)/include -c $< -o $@

$(SUBPEL_BIN): tests/test_subpel.c tests/test_util.c $(TEST_HDR) tests/subpel_x264.h $(HDR) \
               $(B)/tests/subpel_x264.o $(B)/lib/libcuda_me.a $(X264_BUILD)/libx264.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CHECK_CFLAGS) -Icuda_me -Itests tests/test_subpel.c tests/test_util.c $(B)/tests/subpel_x264.o \
	    $(X264_BUILD)/libx264.a $(B)/lib/libcuda_me.a $(CHECK_LIBS) $(EXTRA_LIBS) -lm $(LDFLAGS) -o $@

# ---------------------------------------------------------------- benchmark

ifeq ($(HAVE_CUDA),yes)
bench: $(B)/bench/bench_me
else
bench:
	@echo "bench: no CUDA backend in this build"
endif

$(B)/bench/bench_me: tests/bench_me.c tests/test_util.c $(TEST_HDR) $(HDR) $(B)/lib/libcuda_me.a $(DEV_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Icuda_me -Icuda_me/dev tests/bench_me.c tests/test_util.c $(DEV_OBJ) $(B)/lib/libcuda_me.a \
	    $(EXTRA_LIBS) $(LDFLAGS) -o $@

# ---------------------------------------------------------------- check

check: lib tests
	$(TEST_BIN)

clean:
	rm -rf $(B)/obj $(B)/lib $(B)/include $(B)/tests $(B)/bench

.PHONY: all lib tests test-subpel bench check clean
