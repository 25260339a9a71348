//===- ScaleLayoutInterfaces.cpp - Ops that carry a scale layout ----------===//

#include "fp8q/Interfaces/ScaleLayoutInterfaces.h"

#include "fp8q/Interfaces/ScaleLayoutInterfaces.cpp.inc"
