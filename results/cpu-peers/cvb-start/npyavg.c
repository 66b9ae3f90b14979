// npyavg OUT IN... : elementwise mean of float32 npy files with the same header
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
    int n = argc - 2; long hdr = 0, cnt = 0; double *acc = NULL; char *h = NULL;
    for (int i = 0; i < n; i++) {
        FILE *f = fopen(argv[2 + i], "rb"); fseek(f, 0, SEEK_END); long sz = ftell(f); fseek(f, 0, SEEK_SET);
        unsigned char pre[10]; fread(pre, 1, 10, f); long hl = pre[8] | (pre[9] << 8); hdr = 10 + hl;
        fseek(f, 0, SEEK_SET); if (!h) { h = malloc(hdr); fread(h, 1, hdr, f); } else fseek(f, hdr, SEEK_SET);
        cnt = (sz - hdr) / 4; if (!acc) acc = calloc(cnt, 8);
        float *b = malloc(cnt * 4); fread(b, 4, cnt, f); fclose(f);
        for (long j = 0; j < cnt; j++) acc[j] += b[j];
        free(b);
    }
    FILE *o = fopen(argv[1], "wb"); fwrite(h, 1, hdr, o);
    for (long j = 0; j < cnt; j++) { float v = acc[j] / n; fwrite(&v, 4, 1, o); }
    fclose(o); return 0;
}
