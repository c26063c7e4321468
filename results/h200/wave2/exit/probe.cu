// exit-cost probe: how long the CUDA context's teardown takes at process exit
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <unistd.h>
#include <cuda_runtime.h>
static double now(){ timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec+t.tv_nsec*1e-9; }
int main(int argc,char**argv){
  int mode=atoi(argv[1]); double t0=now();
  if(mode>=1){ cudaFree(0); fprintf(stderr,"init %.3f\n",now()-t0); }
  if(mode>=2){ void*d[40]; void*hp[4];
    for(int i=0;i<40;i++) cudaMalloc(&d[i], 16<<20);
    for(int i=0;i<4;i++) cudaHostAlloc(&hp[i], 16<<20, 0);
    double t1=now();
    for(int i=0;i<40;i++) cudaFree(d[i]);
    for(int i=0;i<4;i++) cudaFreeHost(hp[i]);
    fprintf(stderr,"free %.3f\n",now()-t1); }
  if(mode==3){ double t1=now(); cudaDeviceReset(); fprintf(stderr,"reset %.3f\n",now()-t1); }
  fprintf(stderr,"main-end %.3f\n",now()-t0);
  if(mode==4){ _exit(0); }
  return 0;
}
