"""ABI codes of the fp8q runtime, by SPEC name.

/// The values mirror include/fp8q/Runtime/fp8q_contracts.h and
/// fp8q_formats.h (they are ABI); tests/test_codes.py parses those headers
/// so a renumbering there fails here instead of silently mis-calling C.
"""

KERNELS = {
    "ck_bpreshuffle": 0,
    "ck": 1,
    "triton": 2,
    "deepgemm": 3,
    "cublas": 4,
    "reference": 5,
    "aiter_mxfp4": 6,
    "cublas_mx": 7,
    "deepgemm_sm100": 8,
}

# fp8q_q_type (the first two are fp8q_fp8_type's codes).
Q_TYPES = {"f8E4M3FN": 0, "f8E4M3FNUZ": 1, "f8E5M2": 2, "f4E2M1FN": 3}

# fp8q_scale_type and the bytes of one scale element.
SCALE_TYPES = {"f32": 0, "f8E8M0FNU": 1, "f8E4M3FN": 2}
SCALE_TYPE_BYTES = {0: 4, 1: 1, 2: 1}

# fp8q_scale_rounding.
ROUNDINGS = {"exact": 0, "pow2_ceil": 1, "pow2_floor": 2, "e4m3": 3}

# fp8q_scale_layout.
LAYOUT_CODES = {
    "row_major": 0,
    "col_major": 1,
    "col_major_pack4": 2,
    "swizzle_32_4_4": 3,
    "cdna4_mx": 4,
}

# fp8q_weight_layout.
WEIGHT_LAYOUTS = {"plain": 0, "preshuffle_16x16": 1}

# fp8q_status names (fp8q_runtime.h).
STATUS_NAMES = {
    0: "FP8Q_OK",
    1: "FP8Q_ERR_NULL",
    2: "FP8Q_ERR_ALIGN",
    3: "FP8Q_ERR_SHAPE",
    4: "FP8Q_ERR_EMPTY",
    5: "FP8Q_ERR_ARG",
    6: "FP8Q_ERR_LAYOUT",
    7: "FP8Q_ERR_CONTRACT",
    8: "FP8Q_ERR_DEVICE",
}
FP8Q_ERR_CONTRACT = 7

# SPEC v2's formats: (q_type, scale_type, default rounding, group size).
FORMATS = {
    "fp8": ("f8E4M3FN", "f32", "exact", 128),
    "ue8m0": ("f8E4M3FN", "f8E8M0FNU", "pow2_ceil", 128),
    "mxfp8": ("f8E4M3FN", "f8E8M0FNU", "pow2_ceil", 32),
    "mxfp4": ("f4E2M1FN", "f8E8M0FNU", "pow2_ceil", 32),
    "nvfp4": ("f4E2M1FN", "f8E4M3FN", "e4m3", 16),
}


def lookup(table, name, what):
    """/// A code by name, with the valid names in the error (bad input never
    /// reaches C as an out-of-range integer)."""
    if isinstance(name, str) and name in table:
        return table[name]
    raise ValueError(f"unknown {what} {name!r}; expected one of "
                     f"{', '.join(sorted(table))}")
