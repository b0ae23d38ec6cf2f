/* zlib against Debian's libdeflate on the pages we store, per page (issue 32's choice of a
 * faster deflate for cached pages; not part of the tests). Each page is compressed 25 times by
 * each and the fastest time kept; prints the median and 90th percentile over pages and the bytes.
 *
 *   apt-get install libdeflate-dev zlib1g-dev
 *   gcc -O2 -o /tmp/deflate_libs bench/deflate_libs.c -lz -ldeflate
 *   /tmp/deflate_libs PAGE_FILE...     (pages exported from the demo catalog, e.g. p1 to p300)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>
#include <libdeflate.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec/1e3;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){
  int n=argc-1; unsigned char*bufs[400]; size_t lens[400];
  for(int i=0;i<n;i++){FILE*f=fopen(argv[i+1],"rb");bufs[i]=malloc(65536);lens[i]=fread(bufs[i],1,65536,f);fclose(f);}
  unsigned char out[65536];
  z_stream zs; memset(&zs,0,sizeof zs); deflateInit2(&zs,6,Z_DEFLATED,31,8,Z_DEFAULT_STRATEGY);
  struct libdeflate_compressor*c6=libdeflate_alloc_compressor(6),*c1=libdeflate_alloc_compressor(1),*c9=libdeflate_alloc_compressor(9);
  double tz[400],t6[400],t1[400],t9[400]; size_t sz=0,s6=0,s1=0,s9=0;
  for(int i=0;i<n;i++){ double best=1e9,b6=1e9,b1=1e9,b9=1e9; size_t o=0,o6=0,o1=0,o9=0;
    for(int r=0;r<25;r++){
      double a=now(); deflateReset(&zs); zs.next_in=bufs[i];zs.avail_in=lens[i];zs.next_out=out;zs.avail_out=sizeof out; deflate(&zs,Z_FINISH); o=sizeof out-zs.avail_out; double b=now(); if(b-a<best)best=b-a;
      a=now(); o6=libdeflate_gzip_compress(c6,bufs[i],lens[i],out,sizeof out); b=now(); if(b-a<b6)b6=b-a;
      a=now(); o1=libdeflate_gzip_compress(c1,bufs[i],lens[i],out,sizeof out); b=now(); if(b-a<b1)b1=b-a;
      a=now(); o9=libdeflate_gzip_compress(c9,bufs[i],lens[i],out,sizeof out); b=now(); if(b-a<b9)b9=b-a;
    }
    tz[i]=best;t6[i]=b6;t1[i]=b1;t9[i]=b9; sz+=o;s6+=o6;s1+=o1;s9+=o9; }
  size_t total=0; for(int i=0;i<n;i++) total+=lens[i];
  qsort(tz,n,sizeof(double),cmp);qsort(t6,n,sizeof(double),cmp);qsort(t1,n,sizeof(double),cmp);qsort(t9,n,sizeof(double),cmp);
  printf("pages %d, %zu bytes\n",n,total);
  printf("zlib 6 reused stream: median %.1f us p90 %.1f us, %zu bytes\n",tz[n/2],tz[n*9/10],sz);
  printf("libdeflate 1: median %.1f us p90 %.1f us, %zu bytes\n",t1[n/2],t1[n*9/10],s1);
  printf("libdeflate 6: median %.1f us p90 %.1f us, %zu bytes\n",t6[n/2],t6[n*9/10],s6);
  printf("libdeflate 9: median %.1f us p90 %.1f us, %zu bytes\n",t9[n/2],t9[n*9/10],s9);
}
