import numpy as np
import fp8q

x = np.random.default_rng(0).standard_normal((16, 7168), dtype=np.float32)

# Quantize per 1x128 group, writing the scale column-major (strides (1, M)).
q, scale = fp8q.quantize(x, group_size=128, layout="col_major")
fp8q.check("ck_bpreshuffle", scale)  # what the gfx950 CK kernel reads

# A row-major scale holds the same values but would be read scrambled.
_, row_major = fp8q.quantize(x, group_size=128)
try:
    fp8q.check("ck_bpreshuffle", row_major)
except fp8q.ContractError as e:
    print(e)  # ... reads x_scale col_major (strides (1, 16)) ... fix: ...
