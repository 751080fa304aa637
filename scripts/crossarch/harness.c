/* Runs the dense features' C part (score/features/_dense.c, its compute()) without Python over the
 * pages pages.py dumped, and writes every page's matrix: built for another CPU (run.sh), its
 * output must be the package's byte for byte. */
#include "score/features/_dense.c"
#include <stdio.h>
void *PyMem_RawMalloc(size_t n) { return malloc(n ? n : 1); }
void *PyMem_RawCalloc(size_t a, size_t b) { return calloc(a ? a : 1, b ? b : 1); }
void PyMem_RawFree(void *p) { free(p); }
static void *rd(FILE *f, size_t bytes) { void *p = malloc(bytes ? bytes : 1); if (fread(p, 1, bytes, f) != bytes) exit(3); return p; }
int main(int argc, char **argv) {
    FILE *f = fopen(argv[1], "rb"), *o = fopen(argv[2], "wb");
    int64_t h[12];
    if (fread(h, 8, 12, f) != 12) return 2;
    int64_t *lut = rd(f, 8 * h[11]);
    long pages = 0;
    kernel_init();
    for (;;) {
        int64_t nr[2];
        if (fread(nr, 8, 2, f) != 2) return 2;
        Py_ssize_t n = nr[0], rx_w = nr[1], path = h[0];
        if (!n) break;
        page_t p = {.n = n, .path = path, .width = h[1], .n_lut = h[11], .lut = lut,
                    .o_st = h[2], .o_cetr = h[3], .o_dom = h[4], .o_rx = h[5], .o_kind = h[6],
                    .o_head = h[7], .head_group = h[8], .rx_u = h[9], .rx_n = h[10], .rx_w = rx_w};
        p.cnt = rd(f, 24 * n); p.tag = rd(f, 8 * n); p.ntags = rd(f, 8 * n); p.depth = rd(f, 8 * n);
        p.flags = rd(f, 8 * n); p.cont = rd(f, 8 * n * path); p.rx = rd(f, 8 * n * rx_w);
        p.lex = rd(f, n); p.kind = rd(f, 8 * N_KINDS);
        double *out = malloc(8 * n * h[1]);
        p.out = out;
        if (compute(&p) != OK) return 4;
        fwrite(out, 8, n * h[1], o);
        pages++;
    }
    fclose(o);
    printf("%ld pages\n", pages);
    return 0;
}
