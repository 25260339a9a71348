//===- Fp8qKernels.hip - All fp8q kernels in one code object --------------===//
//
// One translation unit per target, so each architecture gets a single code
// object (fp8q_kernels.<arch>.hsaco) that the HIP runtime library embeds.
//
//===----------------------------------------------------------------------===//

#include "DecodeGemm.hip"
#include "GemmBlockScale.hip"
#include "GemmMx.hip"
#include "GemmV2.hip"
#include "Materialize.hip"
#include "MaterializeV2.hip"
#include "Preshuffle.hip"
#include "Quantize.hip"
#include "QuantizeV2.hip"
#include "RmsNormQuantize.hip"
#include "SiluMulQuantize.hip"
