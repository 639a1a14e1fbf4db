/* Gaussian Filter: the part every form shares (gf_kernel.h). */
#include "gf_kernel.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "capbench.h"

#define GF_SEED 0x4746u /* image i is generated from GF_SEED + i */

int gf_parse(int argc, char **argv, struct gf_params *p) {
    static const long min[3] = {1, GF_MIN_MASK, GF_MIN_MASK};
    static const long max[3] = {GF_MAX_PIXELS, GF_MAX_SIZE, GF_MAX_MASK};
    long v[3] = {16, 256, 7};
    if (argc > 4) return -1;
    for (int i = 1; i < argc; ++i)
        if (capb_parse_long(argv[i], min[i - 1], max[i - 1], &v[i - 1])) return -1;
    p->images = v[0];
    p->size = v[1];
    p->mask = (int)v[2];
    if (p->mask % 2 == 0 || p->size < p->mask || p->images > GF_MAX_PIXELS / (p->size * p->size)) return -1;
    return 0;
}

void gf_usage(const char *prog) {
    fprintf(stderr,
            "usage: %s [--verify] [N [S [K]]]  (N images >= 1, K odd in %d..%d, K <= S <= %ld, "
            "N*S*S <= %ld; defaults 16 256 7)\n",
            prog, GF_MIN_MASK, GF_MAX_MASK, GF_MAX_SIZE, GF_MAX_PIXELS);
}

void gf_generate(uint8_t *img, long size, long index) {
    uint64_t state = GF_SEED + (uint64_t)index, bits = 0;
    for (long i = 0; i < size * size; ++i) {
        if (i % 8 == 0) bits = capb_random(&state);
        img[i] = (uint8_t)bits;
        bits >>= 8;
    }
}

static long clamp(long v, long size) { return v < 0 ? 0 : v >= size ? size - 1 : v; }

void gf_halo(long size, int mask, long first, long count, long *hfirst, long *hcount) {
    if (count == 0) {
        *hfirst = first;
        *hcount = 0;
        return;
    }
    *hfirst = clamp(first - mask / 2, size);
    *hcount = clamp(first + count - 1 + mask / 2, size) + 1 - *hfirst;
}

/* The K x K weights, row-major: C(K-1, i) * C(K-1, j), at most 3432^2. */
static void mask_weights(int mask, uint32_t *m) {
    uint32_t row[GF_MAX_MASK];
    row[0] = 1;
    for (int i = 1; i < mask; ++i)
        row[i] = row[i - 1] * (uint32_t)(mask - i) / (uint32_t)i;
    for (int i = 0; i < mask; ++i)
        for (int j = 0; j < mask; ++j)
            m[i * mask + j] = row[i] * row[j];
}

/* One row of the mask (weights w) against `pixels`, centred on column x;
 * only the columns near the edges pay for the clamping. */
static uint64_t taps(const uint8_t *pixels, const uint32_t *w, int mask, long x, long size) {
    const long left = x - mask / 2;
    uint64_t sum = 0;
    if (left >= 0 && left + mask <= size) {
        for (int j = 0; j < mask; ++j)
            sum += (uint64_t)w[j] * pixels[left + j];
    } else {
        for (int j = 0; j < mask; ++j)
            sum += (uint64_t)w[j] * pixels[clamp(left + j, size)];
    }
    return sum;
}

struct gf_band gf_images(const struct gf_params *p, uint8_t *base) {
    struct gf_band b = {base, 0, p->size, p->size * p->size};
    return b;
}

struct gf_band gf_packed(const struct gf_params *p, uint8_t *base, long first, long rows) {
    struct gf_band b = {base, first, rows, rows * p->size};
    return b;
}

uint8_t *gf_row(const struct gf_params *p, const struct gf_band *b, long image, long row) {
    return b->base + image * b->stride + (row - b->first) * p->size;
}

/* Output rows [first, first + count) of one image, whose rows from
 * in_first on are at `in`, into out (count rows). */
static void convolve_image(const uint8_t *in, long in_first, long size, int mask, long first, long count,
                           uint8_t *out) {
    uint32_t m[GF_MAX_MASK * GF_MAX_MASK];
    const uint8_t *rows[GF_MAX_MASK];
    const unsigned shift = 2u * (unsigned)(mask - 1); /* the weights sum to 2^shift */
    mask_weights(mask, m);
    for (long y = first; y < first + count; ++y) {
        for (int i = 0; i < mask; ++i)
            rows[i] = in + (clamp(y - mask / 2 + i, size) - in_first) * size;
        uint8_t *o = out + (y - first) * size;
        for (long x = 0; x < size; ++x) {
            uint64_t sum = 0;
            for (int i = 0; i < mask; ++i)
                sum += taps(rows[i], m + i * mask, mask, x, size);
            o[x] = (uint8_t)((sum + (1ull << (shift - 1))) >> shift);
        }
    }
}

void gf_convolve(const struct gf_params *p, const struct gf_band *in, const struct gf_band *out, long first,
                 long rows) {
    for (long n = 0; n < p->images; ++n)
        convolve_image(gf_row(p, in, n, in->first), in->first, p->size, p->mask, first, rows,
                       gf_row(p, out, n, first));
}

void gf_print_result(const struct gf_params *p, const uint8_t *out) {
    const uint64_t h = capb_hash(CAPB_HASH_INIT, out, (unsigned long)(p->images * p->size * p->size));
    printf("gf: images=%ld size=%ld mask=%d checksum=0x%016" PRIx64 "\n", p->images, p->size, p->mask, h);
}

int gf_compare(const struct gf_params *p, const uint8_t *ref, const uint8_t *out) {
    const long s = p->size;
    for (long n = 0; n < p->images; ++n)
        for (long r = 0; r < s; ++r)
            if (memcmp(ref + (n * s + r) * s, out + (n * s + r) * s, (size_t)s)) {
                printf("verify: MISMATCH image %ld row %ld\n", n, r);
                return 1;
            }
    printf("verify: OK\n");
    return 0;
}
