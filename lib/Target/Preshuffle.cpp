//===- Preshuffle.cpp - preshuffle_16x16 on buffers and constants ---------===//

#include "fp8q/Target/Preshuffle.h"
#include "fp8q/Dialect/IR/Fp8qDialect.h"

#include <cassert>
#include <cstring>

using namespace mlir;

namespace fp8q {

/// Copies element (row, col) between a row-major and a preshuffled buffer;
/// `toShuffled` says which side is the source.
static void permute(ArrayRef<char> src, MutableArrayRef<char> dst, int64_t n,
                    int64_t k, size_t elemBytes, bool toShuffled) {
  assert(fp8q_preshuffle_ok(n, k) && "shape cannot be preshuffled");
  assert(src.size() == static_cast<size_t>(n * k) * elemBytes &&
         dst.size() == src.size() && "buffer sizes must be n * k elements");
  for (int64_t row = 0; row < n; ++row) {
    for (int64_t col = 0; col < k; ++col) {
      int64_t plain = row * k + col;
      int64_t shuffled = fp8q_preshuffle_offset(row, col, n, k);
      int64_t from = toShuffled ? plain : shuffled;
      int64_t to = toShuffled ? shuffled : plain;
      std::memcpy(dst.data() + to * elemBytes, src.data() + from * elemBytes,
                  elemBytes);
    }
  }
}

void preshuffleBuffer(ArrayRef<char> src, MutableArrayRef<char> dst, int64_t n,
                      int64_t k, size_t elemBytes) {
  permute(src, dst, n, k, elemBytes, /*toShuffled=*/true);
}

void unpreshuffleBuffer(ArrayRef<char> src, MutableArrayRef<char> dst,
                        int64_t n, int64_t k, size_t elemBytes) {
  permute(src, dst, n, k, elemBytes, /*toShuffled=*/false);
}

RankedTensorType getPreshuffledType(RankedTensorType type) {
  return RankedTensorType::get(
      type.getShape(), type.getElementType(),
      WeightLayoutAttr::get(type.getContext(), WeightLayout::Preshuffle16x16));
}

int64_t getPreshuffleKMultiple(RankedTensorType type) {
  return isa<Float4E2M1FNType>(type.getElementType()) ? 64 : 32;
}

bool canPreshuffle(RankedTensorType type) {
  if (type.getRank() != 2 || !type.hasStaticShape() || type.getEncoding())
    return false;
  int64_t n = type.getDimSize(0), k = type.getDimSize(1);
  // fp4: the [N, K/2] bytes are what is shuffled.
  if (isa<Float4E2M1FNType>(type.getElementType()))
    return k % 2 == 0 && fp8q_preshuffle_ok(n, k / 2);
  return fp8q_preshuffle_ok(n, k);
}

DenseElementsAttr preshuffleConstant(DenseElementsAttr value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !canPreshuffle(type))
    return {};
  RankedTensorType resultType = getPreshuffledType(type);
  // A splat stores the same value everywhere: every permutation keeps it.
  if (value.isSplat())
    return DenseElementsAttr::get(resultType, value.getSplatValue<Attribute>());
  unsigned bits = type.getElementTypeBitWidth();
  if (bits % 8 != 0)
    return {};
  ArrayRef<char> raw = value.getRawData();
  std::vector<char> shuffled(raw.size());
  preshuffleBuffer(raw, shuffled, type.getDimSize(0), type.getDimSize(1),
                   bits / 8);
  return DenseElementsAttr::getFromRawBuffer(resultType, shuffled);
}

} // namespace fp8q
