/* The anchor for bench_core.py: random Reversi playouts on bitboards in plain C,
 * the same algorithm as reversi_env/bitboard.py (direction fills, xorshift64*).
 * Usage: playout N SEED  ->  prints "<games> <seconds> <sum of disc differences>". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef uint64_t u64;
static const u64 EDGE = 0x7E7E7E7E7E7E7E7EULL;

#define FILL(dir, sh, p, o) do { u64 t = o & dir(p, sh); t |= o & dir(t, sh); t |= o & dir(t, sh); \
    t |= o & dir(t, sh); t |= o & dir(t, sh); t |= o & dir(t, sh); m |= dir(t, sh); } while (0)
#define SHL(x, s) ((x) << (s))
#define SHR(x, s) ((x) >> (s))

static inline u64 moves(u64 p, u64 o) {
    u64 m = 0, om = o & EDGE;
    FILL(SHL, 1, p, om); FILL(SHR, 1, p, om); FILL(SHL, 8, p, o); FILL(SHR, 8, p, o);
    FILL(SHL, 7, p, om); FILL(SHR, 7, p, om); FILL(SHL, 9, p, om); FILL(SHR, 9, p, om);
    return m & ~(p | o);
}

#define RAY(dir, sh, o) do { u64 f = o & dir(m, sh); f |= o & dir(f, sh); f |= o & dir(f, sh); \
    f |= o & dir(f, sh); f |= o & dir(f, sh); f |= o & dir(f, sh); if (p & dir(f, sh)) r |= f; } while (0)

static inline u64 flips(u64 p, u64 o, int sq) {
    u64 m = 1ULL << sq, r = 0, om = o & EDGE;
    RAY(SHL, 1, om); RAY(SHR, 1, om); RAY(SHL, 8, o); RAY(SHR, 8, o);
    RAY(SHL, 7, om); RAY(SHR, 7, om); RAY(SHL, 9, om); RAY(SHR, 9, om);
    return r;
}

static u64 rng;
static inline u64 next_random(void) {
    rng ^= rng >> 12; rng ^= rng << 25; rng ^= rng >> 27;
    return rng * 0x2545F4914F6CDD1DULL;
}

static int playout(u64 p, u64 o) {
    int sign = 1;
    for (;;) {
        u64 m = moves(p, o);
        if (!m) {
            if (!moves(o, p)) break;
            u64 t = p; p = o; o = t; sign = -sign; continue;
        }
        u64 k = ((next_random() >> 32) * (u64)__builtin_popcountll(m)) >> 32;
        while (k--) m &= m - 1;
        int sq = __builtin_ctzll(m);
        u64 f = flips(p, o, sq);
        u64 np = o ^ f, no = p | f | (1ULL << sq);
        p = np; o = no; sign = -sign;
    }
    return sign * (__builtin_popcountll(p) - __builtin_popcountll(o));
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 100000;
    rng = argc > 2 ? strtoull(argv[2], 0, 10) | 1 : 88172645463325252ULL;
    struct timespec a, b;
    long long total = 0;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long i = 0; i < n; i++) total += playout((1ULL << 28) | (1ULL << 35), (1ULL << 27) | (1ULL << 36));
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%ld %.6f %lld\n", n, (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9, total);
    return 0;
}
