/*
 * The machine's limit for the Crusader Rex reference battle (scenarios/crusader-rex/
 * reference-field-battle.yaml's baseline: no castle, no charge, no harrying, first-listed ties):
 * scalar C, one core. Saracens (attacker) Saladin A3, Al Adil A2, Turks 3 A1, Kurds 1 C1; Franks
 * King Guy B2, Conrad B3, Jerusalem Templars B3 (3 steps), Genoa Pilgrims C2; the defender fires
 * first in each letter (6.2), so a round is three runs of volleys: the Saracens' A blocks, the
 * Franks' B and C blocks, the Saracens' C block. Each run is one draw from the exact sum of its
 * blocks' binomials (an alias table per firing state, probabilities to 2^-32), each side's
 * steps one base-5 number, hits on the strongest block (ties: first listed) one table look-up,
 * an eliminated side absorbing, two battles interleaved. Prints battles per second (wall and CPU) and p(attacker wins)
 * (0.08227 exactly, siegesim exact) as JSON.
 *
 *   gcc -O2 -march=native -o cr-limit bench/cr-limit.c -lm && ./cr-limit 200000000
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NS 625 /* 5^4 states a side */
#define HS 21
#define K 32

static uint16_t app[2][NS * HS];
static uint8_t sum[2][NS];
static uint32_t thr[3][NS * K];
static uint8_t ali[3][NS * K];

static const int steps[2][4] = {{4, 4, 4, 4}, {4, 4, 3, 4}}; /* side 0 Saracens, 1 Franks */
static const int fp[2][4] = {{3, 2, 1, 1}, {2, 3, 3, 2}};
/* runs: side, first block, last block + 1 */
static const int runSide[3] = {0, 1, 0};
static const int runFrom[3] = {0, 0, 3};
static const int runTo[3] = {3, 4, 4};

static int digit(int x, int j) {
  for (int i = 0; i < j; i++) x /= 5;
  return x % 5;
}

static void alias(const double *p, int n, uint32_t *t, uint8_t *a) {
  double w[K];
  int small[K], large[K], ns = 0, nl = 0;
  for (int i = 0; i < K; i++) {
    w[i] = i < n ? p[i] * K : 0;
    t[i] = 0xffffffffu;
    a[i] = i;
  }
  for (int i = 0; i < K; i++) {
    if (w[i] < 1) small[ns++] = i;
    else large[nl++] = i;
  }
  while (ns && nl) {
    int s = small[--ns], l = large[nl - 1];
    t[s] = (uint32_t)llround(w[s] * 134217728.0);
    a[s] = l;
    w[l] -= 1 - w[s];
    if (w[l] < 1) {
      nl--;
      small[ns++] = l;
    }
  }
}

static uint32_t x0, x1, x2, x3;
static inline uint32_t rotl(uint32_t v, int k) { return (v << k) | (v >> (32 - k)); }

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000000;
  for (int sd = 0; sd < 2; sd++) {
    for (int x = 0; x < NS; x++) {
      int s = 0;
      for (int j = 0; j < 4; j++) s += digit(x, j);
      sum[sd][x] = s;
      app[sd][x * HS] = x;
      int best = -1;
      for (int j = 0; j < 4; j++)
        if (digit(x, j) > 0 && (best < 0 || digit(x, j) > digit(x, best))) best = j;
      int p5 = 1;
      for (int j = 0; j < best; j++) p5 *= 5;
      for (int h = 1; h < HS; h++) app[sd][x * HS + h] = best < 0 ? 0 : app[sd][(x - p5) * HS + h - 1];
    }
  }
  for (int r = 0; r < 3; r++) {
    int sd = runSide[r];
    for (int x = 0; x < NS; x++) {
      double d[HS] = {1};
      int len = 1;
      for (int b = runFrom[r]; b < runTo[r]; b++) {
        double p = fp[sd][b] / 6.0;
        for (int k = 0; k < digit(x, b); k++) {
          for (int h = len; h > 0; h--) d[h] = d[h] * (1 - p) + d[h - 1] * p;
          d[0] *= 1 - p;
          len++;
        }
      }
      alias(d, len, &thr[r][x * K], &ali[r][x * K]);
    }
  }
  int a0 = 0, b0 = 0, p5 = 1;
  for (int j = 0; j < 4; j++, p5 *= 5) {
    a0 += steps[0][j] * p5;
    b0 += steps[1][j] * p5;
  }
  x0 = 1, x1 = 2, x2 = 3, x3 = 4;
  long wins = 0;
  struct timespec t0, t1, c0, c1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
  for (long i = 0; i < n; i += 2) {
    int a = a0, b = b0, c = a0, d = b0;
    for (int round = 0; round < 3; round++) {
      for (int r = 0; r < 3; r++) {
        uint32_t u = rotl(x1 * 5, 7) * 9;
        uint32_t t = x1 << 9;
        x2 ^= x0; x3 ^= x1; x1 ^= x2; x0 ^= x3; x2 ^= t; x3 = rotl(x3, 11);
        uint32_t v = rotl(x1 * 5, 7) * 9;
        t = x1 << 9;
        x2 ^= x0; x3 ^= x1; x1 ^= x2; x0 ^= x3; x2 ^= t; x3 = rotl(x3, 11);
        int su = u >> 27, sv = v >> 27;
        if (runSide[r] == 0) {
          int ia = a * K + su, ic = c * K + sv;
          int h = (u & 0x7ffffff) < thr[r][ia] ? su : ali[r][ia];
          int j = (v & 0x7ffffff) < thr[r][ic] ? sv : ali[r][ic];
          b = app[1][b * HS + h];
          d = app[1][d * HS + j];
        } else {
          int ib = b * K + su, id = d * K + sv;
          int h = (u & 0x7ffffff) < thr[r][ib] ? su : ali[r][ib];
          int j = (v & 0x7ffffff) < thr[r][id] ? sv : ali[r][id];
          a = app[0][a * HS + h];
          c = app[0][c * HS + j];
        }
      }
    }
    wins += (b == 0 && a != 0) + (d == 0 && c != 0);
  }
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double sec = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
  double cpu = (c1.tv_sec - c0.tv_sec) + (c1.tv_nsec - c0.tv_nsec) / 1e9;
  printf("{\"battles\": %ld, \"seconds\": %.4f, \"cpu_seconds\": %.4f, \"battles_per_second\": %.0f, \"battles_per_cpu_second\": %.0f, \"p_attacker_wins\": %.5f}\n", n, sec, cpu, n / sec, n / cpu, (double)wins / n);
  return 0;
}
