//===- EmbeddedCodeObjects.h - Code objects inside the library --*- C++ -*-===//

#ifndef FP8Q_KERNELS_RUNTIME_EMBEDDEDCODEOBJECTS_H
#define FP8Q_KERNELS_RUNTIME_EMBEDDEDCODEOBJECTS_H

#include <stddef.h>

namespace fp8q::hiprt {

/// One code object built by kernels/CMakeLists.txt, embedded with .incbin
/// (the generated EmbeddedCodeObjects.cpp).
struct EmbeddedCodeObject {
  const char *arch; ///< "gfx950"
  const unsigned char *begin, *end;
};

/// The embedded code objects; the list ends with arch == nullptr.
extern const EmbeddedCodeObject kEmbeddedCodeObjects[];

} // namespace fp8q::hiprt

#endif // FP8Q_KERNELS_RUNTIME_EMBEDDEDCODEOBJECTS_H
