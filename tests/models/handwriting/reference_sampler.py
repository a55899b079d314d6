"""The reference sampler for normrt's MixtureSample op, written from its
specification in docs/handwriting.md ("The sampler"), not from the C++.

Every value is a Python float (an IEEE double), every +, -, *, / rounded
once, as the specification requires; math.log and math.cos call the C
library's log and cos, math.sqrt is correctly rounded. The float32 inputs
are widened exactly and the outputs rounded to float32 once (numpy).
"""
import math

import numpy as np

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
UNIFORMS_PER_STEP = 6
TWO_PI = 2 * math.pi  # 6.283185307179586


def splitmix64_at(seed, n):
    """The (n + 1)-th output of splitmix64 started at state `seed`."""
    z = (seed + (n + 1) * GOLDEN) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def uniform_at(seed, n):
    return (splitmix64_at(seed, n) >> 11) * 2.0 ** -53


def uniforms(seed, step):
    return [uniform_at(seed, step * UNIFORMS_PER_STEP + j) for j in range(UNIFORMS_PER_STEP)]


def sample_point(params, m, seed, step):
    """params: float32 array [1 + 6M] (e, π, μ1, μ2, σ1, σ2, ρ); returns
    (float32 point [3], the component k, the margins of the two discrete
    choices: the distance of u0·Σπ to the nearest cumulative sum, of u5 to e)."""
    p = [float(v) for v in np.asarray(params, dtype=np.float32)]
    u = uniforms(seed & MASK, step)
    pi = p[1:1 + m]
    total = 0.0
    for w in pi:
        total = total + w
    target = u[0] * total
    k = m - 1
    cumulative = 0.0
    sums = []
    for j in range(m):
        cumulative = cumulative + pi[j]
        sums.append(cumulative)
    for j in range(m):
        if target < sums[j]:
            k = j
            break
    z1 = math.sqrt(-2.0 * math.log(1.0 - u[1])) * math.cos(TWO_PI * u[2])
    z2 = math.sqrt(-2.0 * math.log(1.0 - u[3])) * math.cos(TWO_PI * u[4])
    mu1, mu2 = p[1 + m + k], p[1 + 2 * m + k]
    s1, s2, rho = p[1 + 3 * m + k], p[1 + 4 * m + k], p[1 + 5 * m + k]
    x1 = mu1 + s1 * z1
    x2 = mu2 + s2 * (rho * z1 + math.sqrt(1.0 - rho * rho) * z2)
    eos = 1.0 if u[5] < p[0] else 0.0
    point = np.array([x1, x2, eos], dtype=np.float32)
    margins = (min(abs(target - s) for s in sums[:-1]) / total if m > 1 else 1.0,
               abs(u[5] - p[0]))
    return point, k, margins
