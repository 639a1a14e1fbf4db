/*
 * Gaussian Filter (userland/apps/README.md): what gf (MPI), gf_ikc (raw
 * IKC) and their sequential --verify path share: the arguments, the input
 * images, the halo of a band of rows, the convolution of a band, the
 * result line and the check. Portable C, no MPI.
 *
 * Images are S x S pixels of 8 bits, row-major, S bytes a row. The K x K
 * mask is the outer product of the binomial row C(K-1, 0..K-1), so its
 * weights sum to 4^(K-1): an output pixel is the weighted sum of the K x K
 * pixels around it, rounded, shifted right by 2 (K-1). Rows and columns
 * past the image's edge repeat its border pixels.
 */
#ifndef GF_KERNEL_H
#define GF_KERNEL_H

#include <stdint.h>

#define GF_MIN_MASK 3
#define GF_MAX_MASK 15
#define GF_MAX_SIZE 4096L
/* The global master's cluster holds every input and output image, with
 * --verify the master's own output images too, the bands LWMPI packs and
 * with few ranks large bands of its other ranks: bounded so all this fits
 * in a cluster's 16 MB (4 MiB does not, with --verify and -np 2 compact). */
#define GF_MAX_PIXELS (2L << 20)

/* A run's arguments: N images of S x S pixels, a K x K mask. */
struct gf_params {
    long images, size;
    int mask;
};

/* Parses argv[1..argc-1] (--verify already taken out): [N [S [K]]],
 * defaults 16 256 7. Returns 0, or -1 on a bad or out-of-range argument
 * (*p is then undefined). */
int gf_parse(int argc, char **argv, struct gf_params *p);

/* The usage line, on stderr. */
void gf_usage(const char *prog);

/* Input image number `index` (0-based): size * size pixels written to
 * img, the same on every machine. */
void gf_generate(uint8_t *img, long size, long index);

/* The rows a band of output rows [first, first + count) needs: the band
 * and K/2 rows each side, clamped to the image: [*hfirst, *hfirst +
 * *hcount). An empty band needs no row (*hcount = 0, *hfirst = first). */
void gf_halo(long size, int mask, long first, long count, long *hfirst, long *hcount);

/* Rows [first, first + rows) of every one of the N images, held in
 * memory: image n's at base + n * stride (bytes), S bytes a row. */
struct gf_band {
    uint8_t *base;
    long first, rows, stride;
};

/* The N whole images at base, one after the other. */
struct gf_band gf_images(const struct gf_params *p, uint8_t *base);
/* Rows [first, first + rows) of the N images packed at base, one image's
 * rows after the other's (N * rows * S bytes). */
struct gf_band gf_packed(const struct gf_params *p, uint8_t *base, long first, long rows);
/* Where row `row` of image `image` of b is. */
uint8_t *gf_row(const struct gf_params *p, const struct gf_band *b, long image, long row);

/* The convolution: output rows [first, first + rows) of every image into
 * `out` (which holds them), from `in`, which holds at least the rows
 * gf_halo names for them. */
void gf_convolve(const struct gf_params *p, const struct gf_band *in, const struct gf_band *out, long first,
                 long rows);

/* Prints "gf: images=N size=S mask=K checksum=0x..." for the N output
 * images at out (consecutive, S * S bytes each). */
void gf_print_result(const struct gf_params *p, const uint8_t *out);

/* The check of --verify: compares the N output images at out with those
 * the master convolved alone at ref. Prints "verify: OK" and returns 0,
 * or prints "verify: MISMATCH image I row R" (the first row that differs)
 * and returns 1. */
int gf_compare(const struct gf_params *p, const uint8_t *ref, const uint8_t *out);

#endif
