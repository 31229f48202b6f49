#pragma once
// Special functions on 8-lane packets for core/vi (internal): each lane's value is a pure function
// of that lane's input, so results never depend on which buffer, position or neighbour a value
// comes with (estep.h states the method and its accuracy).
#include <Eigen/Dense>

namespace dplda::vi_detail {

using A8 = Eigen::Array<double, 8, 1>;  // one AVX-512 packet (two AVX2 packets)

// g(x) = ψ(x) − ln(x + 8) = −Σ_{i=0}^{7} 1/(x + i) − 1/(2z) − Σ_{n=1}^{8} B_2n/(2n z^2n), z = x + 8:
// ψ without its logarithm, so that exp(ψ(x) − ψ(y)) = (x + 8)/(y + 8) · exp(g(x) − g(y)) needs no log.
// (GCC 12 flags the _mm512_undefined_pd inside AVX-512's min intrinsic as uninitialised where this
// is inlined: a false positive, as the -Wno-maybe-uninitialized in CMakeLists.txt.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
inline A8 psiMinusLog8(const A8& x) {
  // Σ_{i=0}^{7} 1/(x + i) = P/Q from two independent chains (i < 4, i >= 4; short latency), each
  // by p ← p t + q, q ← q t, then P/Q = (p1 q2 + p2 q1)/(q1 q2). All terms are positive.
  const A8 xc = x.min(1e15);
  A8 t1 = xc, t2 = xc + 4.0;
  A8 p1 = A8::Ones(), q1 = t1, p2 = A8::Ones(), q2 = t2;
  for (int i = 1; i < 4; ++i) {
    t1 += 1.0;
    t2 += 1.0;
    p1 = p1 * t1 + q1;
    q1 = q1 * t1;
    p2 = p2 * t2 + q2;
    q2 = q2 * t2;
  }
  const A8 r = (x + 8.0).inverse();
  const A8 f = r * r;
  // Σ_{n=1}^{8} B_2n/(2n z^2n) = f·poly(f), poly evaluated by Estrin's scheme (short latency).
  const A8 f2 = f * f, f4 = f2 * f2;
  const A8 e01 = 1.0 / 12 - f * (1.0 / 120);
  const A8 e23 = 1.0 / 252 - f * (1.0 / 240);
  const A8 e45 = 1.0 / 132 - f * (691.0 / 32760);
  const A8 e67 = 1.0 / 12 - f * (3617.0 / 8160);
  const A8 series = f * ((e01 + f2 * e23) + f4 * (e45 + f2 * e67));
  return -(0.5 * r) - series - (p1 * q2 + p2 * q1) / (q1 * q2);
}
#pragma GCC diagnostic pop

inline A8 digamma8(const A8& x) { return (x + 8.0).log() + psiMinusLog8(x); }

// exp(ψ(x) − ψ(y)) for 8 lanes of x, given g(y) and 1/(y + 8) per lane.
inline A8 expPsiDifference8(const A8& x, const A8& gy, const A8& invShiftY) {
  return ((x + 8.0) * invShiftY) * (psiMinusLog8(x) - gy).exp();
}

}  // namespace dplda::vi_detail
