"""An fp8 codec written for the tests, independent of the runtime's code.

/// Value tables built from the E4M3 formulas and round-to-nearest-even by
/// searching the table (not the runtime's bit tricks), so a wrong rounding
/// rule in either is visible as a byte mismatch.
"""

import numpy as np


def decode_table(fnuz=False):
    """/// float32 value of each of the 256 codes (NaN codes are NaN)."""
    bias = 8 if fnuz else 7
    out = np.zeros(256, dtype=np.float64)
    for c in range(256):
        s, e, m = c >> 7, (c >> 3) & 0xF, c & 7
        if e == 0:
            v = m / 8.0 * 2.0 ** (1 - bias)
        else:
            v = (1 + m / 8.0) * 2.0 ** (e - bias)
        out[c] = -v if s else v
    if fnuz:
        out[0x80] = np.nan
    else:
        out[0x7F] = out[0xFF] = np.nan
    return out.astype(np.float32)


def encode(v, fnuz=False):
    """/// RNE encode of finite float32 values, saturating at +-max."""
    table = decode_table(fnuz).astype(np.float64)
    max_code = 0x7F if fnuz else 0x7E
    pos = table[:max_code + 1]  # codes 0..max, increasing
    a = np.abs(v.astype(np.float64))
    hi = np.clip(np.searchsorted(pos, a, side="left"), 0, max_code)
    lo = np.clip(hi - 1, 0, max_code)
    dlo, dhi = a - pos[lo], pos[hi] - a
    pick_hi = (dhi < dlo) | ((dhi == dlo) & (hi % 2 == 0))
    mag = np.where(pick_hi, hi, lo)
    mag = np.where(a >= pos[max_code], max_code, mag).astype(np.uint8)
    neg = np.signbit(v)
    if fnuz:
        return np.where(neg & (mag != 0), mag | 0x80, mag).astype(np.uint8)
    return np.where(neg, mag | 0x80, mag).astype(np.uint8)


def quantize(x, group=128, fnuz=False):
    """/// (q codes, f32 scales [M, K/group]) as SPEC defines the quantize."""
    x = x.astype(np.float32)
    M, K = x.shape
    g = x.reshape(M, K // group, group)
    amax = np.abs(g).max(axis=2)
    qmax = np.float32(240.0 if fnuz else 448.0)
    scale = np.maximum(amax, np.float32(1e-10)).astype(np.float32) / qmax
    q = encode((g / scale[:, :, None]).astype(np.float32), fnuz)
    return q.reshape(M, K), scale.astype(np.float32)
