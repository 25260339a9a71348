//===- CheckpointBinding.cpp - Decode-step arguments and checkpoints ------===//

#include "fp8q/ModelGen/CheckpointBinding.h"

#include "fp8q/Dialect/IR/ScaleLayout.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <cstring>

using namespace mlir;
using llvm::formatv;

namespace fp8q {
namespace {

/// Weight and scale block along N and K (SPEC: 128 x 128).
constexpr int64_t kBlock = 128;

/// The split halves of a fused module name, or empty.
std::vector<std::vector<std::string>> splitsOf(StringRef stem) {
  std::vector<std::vector<std::string>> out;
  auto replaceTail = [&](StringRef tail, ArrayRef<StringRef> parts) {
    if (!stem.ends_with(tail))
      return;
    StringRef head = stem.drop_back(tail.size());
    std::vector<std::string> names;
    for (StringRef p : parts)
      names.push_back((head + p).str());
    out.push_back(std::move(names));
  };
  replaceTail(".fused_qkv_a_proj", {".q_a_proj", ".kv_a_proj_with_mqa"});
  replaceTail(".gate_up_proj", {".gate_proj", ".up_proj"});
  replaceTail(".qkv_proj", {".q_proj", ".k_proj", ".v_proj"});
  // MiniMax-M2 names its routed experts as Mixtral does.
  size_t at = stem.find(".mlp.experts.");
  if (at != StringRef::npos) {
    std::string moe = (stem.take_front(at) + ".block_sparse_moe.experts." +
                       stem.drop_front(at + strlen(".mlp.experts.")))
                          .str();
    StringRef m(moe);
    if (m.ends_with(".gate_up_proj"))
      out.push_back({(m.drop_back(strlen(".gate_up_proj")) + ".w1").str(),
                     (m.drop_back(strlen(".gate_up_proj")) + ".w3").str()});
    if (m.ends_with(".down_proj"))
      out.push_back({(m.drop_back(strlen(".down_proj")) + ".w2").str()});
  }
  return out;
}

std::string shapeText(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  llvm::interleaveComma(shape, os);
  os << "]";
  return text;
}

/// The safetensors dtype of an element type, or "" for none.
std::string dtypeOf(Type t) {
  if (t.isBF16())
    return "BF16";
  if (t.isF16())
    return "F16";
  if (t.isF32())
    return "F32";
  if (isa<Float8E4M3FNType, Float8E4M3FNUZType>(t))
    return "F8_E4M3";
  if (isa<Float8E5M2Type>(t))
    return "F8_E5M2";
  if (isa<Float8E8M0FNUType>(t))
    return "F8_E8M0";
  return "";
}

/// The generator's name of a block argument: its NameLoc.
std::optional<std::string> nameOf(BlockArgument arg) {
  if (auto name = dyn_cast<NameLoc>(arg.getLoc()))
    return name.getName().str();
  return std::nullopt;
}

/// The layer index of "layers.<l>.<rest>", or -1.
int64_t layerIndexOf(StringRef name) {
  if (!name.consume_front("layers."))
    return -1;
  auto [index, rest] = name.split('.');
  int64_t l;
  if (index.getAsInteger(10, l) || rest.empty())
    return -1;
  return l;
}

/// What one argument (or one stacked layer of it) holds.
enum class Role {
  /// A bf16 norm weight [K].
  Vector,
  /// An FP8 weight [N, K], possibly fused from several checkpoint tensors.
  Weight,
  /// The block scale of the Weight argument before it, from the same parts.
  Scale,
  /// A bf16 weight [K, N] of a modules_to_not_convert layer.
  TransposedWeight,
  /// The step's input: bound only if the checkpoint has a tensor of its name.
  Input,
};

/// The state of one bindCheckpoint call: what was read, what was seen.
class Binder {
public:
  Binder(func::FuncOp fn, const SafetensorsCheckpoint &ckpt, bool acceptFnuz)
      : fn(fn), ckpt(ckpt), acceptFnuz(acceptFnuz) {}

  CheckpointBinding run();

private:
  /// "<dir>/model.safetensors.index.json" or "<dir>/model.safetensors".
  std::string missingFile() const {
    llvm::SmallString<256> path(ckpt.dir);
    llvm::sys::path::append(
        path, ckpt.shards.size() == 1 &&
                      llvm::sys::path::filename(ckpt.shards[0].path) ==
                          "model.safetensors"
                  ? "model.safetensors"
                  : "model.safetensors.index.json");
    return std::string(path);
  }
  std::string argText(unsigned i, StringRef irName) {
    return formatv("argument #{0} '{1}' of @{2}", i, irName, fn.getSymName());
  }
  void bindArgument(unsigned i, BlockArgument arg, StringRef name);
  /// Resolves one per-layer slice; false after an error.
  bool bindLayer(unsigned i, StringRef irName, StringRef layerName, Role role,
                 StringRef dtype, ArrayRef<int64_t> shape,
                 std::vector<const SafetensorsTensor *> &parts);
  void record(const SafetensorsTensor *t, StringRef dtype,
              ArrayRef<int64_t> shape) {
    used[t->name] = {dtype.str(), SmallVector<int64_t>(shape)};
  }

  func::FuncOp fn;
  const SafetensorsCheckpoint &ckpt;
  bool acceptFnuz;
  CheckpointBinding out;
  int64_t loopStart = 0;
  /// Per-layer weight name -> its parts (for its scale).
  llvm::StringMap<std::vector<const SafetensorsTensor *>> weightParts;
  /// Checkpoint names read, with the dtype and shape each was checked for.
  llvm::StringMap<std::pair<std::string, SmallVector<int64_t>>> used;
  /// Checkpoint names some argument looked for, matching or not.
  llvm::StringSet<> seen;
};

bool Binder::bindLayer(unsigned i, StringRef irName, StringRef layerName,
                       Role role, StringRef dtype, ArrayRef<int64_t> shape,
                       std::vector<const SafetensorsTensor *> &parts) {
  std::vector<std::vector<std::string>> candidates;
  const std::vector<const SafetensorsTensor *> *weights = nullptr;
  if (role == Role::Input || role == Role::Vector) {
    candidates.push_back(
        {role == Role::Input ? layerName.str() : ("model." + layerName).str()});
  } else if (role == Role::Scale) {
    // The scale follows the parts its weight was read from.
    std::string weightName = (layerName.drop_back(strlen("_scale_inv"))).str();
    auto it = weightParts.find(weightName);
    if (it == weightParts.end())
      return false; // The weight's own error says it.
    weights = &it->second;
    for (StringRef suffix : {"_scale_inv", "_scale"}) {
      std::vector<std::string> names;
      for (const SafetensorsTensor *w : *weights)
        names.push_back(w->name + suffix.str());
      candidates.push_back(std::move(names));
    }
  } else {
    candidates = checkpointCandidates(layerName);
  }

  const std::vector<std::string> *found = nullptr;
  for (const std::vector<std::string> &names : candidates)
    if (llvm::all_of(names,
                     [&](const std::string &n) { return ckpt.lookup(n); })) {
      found = &names;
      break;
    }
  // What this argument looked at is reported here, not as unread.
  for (const std::vector<std::string> &names : candidates)
    if (!found || &names == found)
      for (const std::string &n : names)
        seen.insert(n);
  std::string wanted = dtype.str() + " " + shapeText(shape);
  if (role == Role::TransposedWeight)
    wanted = formatv("{0} [{1}, {2}] (the IR holds it transposed, {3})", dtype,
                     shape[1], shape[0], shapeText(shape));
  if (!found) {
    if (role == Role::Input)
      return false;
    const std::vector<std::string> &first = candidates.front();
    auto absent = llvm::find_if(
        first, [&](const std::string &n) { return !ckpt.lookup(n); });
    std::string msg = missingFile() + ": tensor '" + *absent + "': missing; " +
                      argText(i, irName) + " needs " + wanted;
    if (first.size() > 1) {
      msg += " as the rows of";
      for (const std::string &n : first)
        msg += " '" + n + "'";
      msg += " concatenated";
    }
    msg += "; the checkpoint does not hold this model as the config.json "
           "describes it";
    out.errors.push_back(msg);
    return false;
  }

  // dtype and shape: the parts' rows (dimension 0) add up to the argument's
  // rows (its columns when transposed); every other dimension is equal.
  SmallVector<int64_t> perPart(shape);
  if (role == Role::TransposedWeight)
    perPart = {shape[1], shape[0]};
  int64_t rows = 0;
  for (size_t p = 0; p < found->size(); ++p) {
    const SafetensorsTensor *t = ckpt.lookup((*found)[p]);
    std::string where = ckpt.fileOf(*t).str() + ": tensor '" + t->name + "': ";
    if (t->dtype != dtype) {
      std::string fix;
      if (role == Role::TransposedWeight && t->dtype.rfind("F8_", 0) == 0)
        fix = "; the config's quantization_config.modules_to_not_convert "
              "keeps this layer bf16, but the checkpoint stores it FP8: drop "
              "it from modules_to_not_convert";
      else if (role == Role::Weight && t->dtype == "BF16")
        fix = "; the checkpoint keeps this layer bf16: list it in "
              "quantization_config.modules_to_not_convert";
      else if (role == Role::Weight || role == Role::Scale)
        fix = "; generate the step in the checkpoint's format (--format, "
              "--target)";
      out.errors.push_back(where + "dtype " + t->dtype + ", but " +
                           argText(i, irName) + " reads " + wanted + fix);
      return false;
    }
    SmallVector<int64_t> expected(perPart);
    if (role == Role::Scale) {
      int64_t n = (*weights)[p]->shape[0];
      if (p + 1 < found->size() && n % kBlock != 0) {
        out.errors.push_back(formatv(
            "{0}'{1}' has {2} rows, not a multiple of {3}: the fused {4} "
            "cannot hold its block scale as one tensor",
            where, (*weights)[p]->name, n, kBlock, argText(i, irName)));
        return false;
      }
      expected[0] = llvm::divideCeil(n, kBlock);
    } else if (found->size() > 1) {
      expected[0] = t->shape.empty() ? 0 : t->shape[0];
    }
    bool rankOk = t->shape.size() == expected.size();
    bool shapeOk = rankOk && llvm::equal(ArrayRef(t->shape).drop_front(),
                                         ArrayRef(expected).drop_front());
    if (rankOk && found->size() == 1)
      shapeOk &= t->shape[0] == expected[0];
    if (role == Role::Scale)
      shapeOk &= rankOk && t->shape[0] == expected[0];
    if (!shapeOk) {
      std::string msg = where + "shape " + shapeText(t->shape) + ", but " +
                        argText(i, irName) + " reads " + wanted;
      if (found->size() > 1)
        msg +=
            formatv(" as the rows of {0} tensors concatenated", found->size());
      if (role == Role::Scale)
        msg += formatv(" (this part: {0})", shapeText(expected));
      out.errors.push_back(
          msg + "; generate the step at --tp=1 from the checkpoint's own "
                "config.json");
      return false;
    }
    rows += t->shape.empty() ? 1 : t->shape[0];
    parts.push_back(t);
  }
  if (found->size() > 1 && role != Role::Scale && rows != perPart[0]) {
    std::string msg = missingFile() + ": tensors";
    for (const std::string &n : *found)
      msg += " '" + n + "'";
    out.errors.push_back(msg +
                         formatv(" have {0} rows together, but ", rows).str() +
                         argText(i, irName) + " reads " + wanted +
                         " (their rows concatenated); generate the step at "
                         "--tp=1 from the checkpoint's own config.json");
    parts.clear();
    return false;
  }
  for (const SafetensorsTensor *t : parts)
    record(t, t->dtype, t->shape);
  if (role == Role::Weight)
    weightParts[layerName] = parts;
  return true;
}

void Binder::bindArgument(unsigned i, BlockArgument arg, StringRef name) {
  auto type = dyn_cast<RankedTensorType>(arg.getType());
  std::string dtype = type ? dtypeOf(type.getElementType()) : "";
  if (!type || !type.hasStaticShape() || dtype.empty()) {
    out.errors.push_back(formatv("{0} has type {1}, which no checkpoint "
                                 "tensor can hold (static bf16, f32 or FP8 "
                                 "tensors only)",
                                 argText(i, name), arg.getType()));
    return;
  }
  Type elt = type.getElementType();
  if (isa<Float8E4M3FNUZType>(elt) && !acceptFnuz) {
    out.errors.push_back(
        argText(i, name) +
        " is f8E4M3FNUZ (gfx942), but checkpoints store F8_E4M3 (OCP "
        "e4m3fn), which reads differently; generate the step for gfx950, "
        "sm90 or sm100");
    return;
  }
  BoundArgument bound;
  bound.argIndex = i;
  bound.irName = name.str();
  bound.dtype = dtype;
  if (!name.starts_with("layers.")) {
    std::vector<const SafetensorsTensor *> parts;
    if (bindLayer(i, name, name, Role::Input, dtype, type.getShape(), parts)) {
      bound.parts.push_back(parts);
      out.arguments.push_back(std::move(bound));
    }
    return;
  }
  // Stacked arguments hold layers [loopStart, loopStart + L).
  ArrayRef<int64_t> shape = type.getShape();
  std::vector<std::string> layerNames;
  StringRef rest = name;
  if (rest.consume_front("layers.stacked.")) {
    for (int64_t l = 0; l < shape[0]; ++l)
      layerNames.push_back(formatv("layers.{0}.{1}", loopStart + l, rest));
    shape = shape.drop_front();
  } else {
    layerNames.push_back(name.str());
  }
  Role role;
  if (shape.size() == 1 && elt.isBF16())
    role = Role::Vector;
  else if (shape.size() == 2 && isFp8Type(elt))
    role = Role::Weight;
  else if (shape.size() == 2 && name.ends_with(".weight_scale_inv"))
    role = Role::Scale;
  else if (shape.size() == 2 && elt.isBF16() && name.ends_with(".weight"))
    role = Role::TransposedWeight;
  else {
    out.errors.push_back(argText(i, name) + formatv(" ({0}) is none of the "
                                                    "parameters a checkpoint "
                                                    "holds",
                                                    arg.getType())
                                                .str());
    return;
  }
  bound.transposed = role == Role::TransposedWeight;
  for (const std::string &layerName : layerNames) {
    std::vector<const SafetensorsTensor *> parts;
    if (!bindLayer(i, name, layerName, role, dtype, shape, parts))
      return;
    bound.parts.push_back(std::move(parts));
    if (role == Role::Weight)
      ++out.fp8Weights;
  }
  out.arguments.push_back(std::move(bound));
}

CheckpointBinding Binder::run() {
  Block &body = fn.getBody().front();
  std::vector<std::optional<std::string>> names;
  for (BlockArgument arg : body.getArguments()) {
    names.push_back(nameOf(arg));
    if (names.back())
      loopStart = std::max(loopStart, layerIndexOf(*names.back()) + 1);
  }
  if (llvm::none_of(names, [](auto &n) { return n.has_value(); })) {
    out.errors.push_back(
        formatv("the arguments of @{0} carry no names, so none can be "
                "matched with a checkpoint tensor; write the module with "
                "fp8q-model-gen --mlir-print-debuginfo (argument names are "
                "locations)",
                fn.getSymName()));
    return std::move(out);
  }
  for (BlockArgument arg : body.getArguments()) {
    unsigned i = arg.getArgNumber();
    if (!names[i]) {
      out.errors.push_back(formatv("argument #{0} of @{1} has no name "
                                   "(location loc(\"...\")); name it as "
                                   "fp8q-model-gen does",
                                   i, fn.getSymName()));
      continue;
    }
    bindArgument(i, arg, *names[i]);
  }

  // Routed experts beyond the top-k the step models stand for the ones it
  // does: they must look the same. Other FP8 tensors are reported.
  for (const SafetensorsTensor *t : ckpt.tensors()) {
    if (seen.contains(t->name))
      continue;
    StringRef name = t->name;
    size_t at = name.find(".experts.");
    if (at != StringRef::npos) {
      StringRef tail = name.drop_front(at + strlen(".experts."));
      auto [index, rest] = tail.split('.');
      int64_t e;
      if (!index.getAsInteger(10, e)) {
        std::string rep = (name.take_front(at) + ".experts.0." + rest).str();
        auto it = used.find(rep);
        if (seen.contains(rep) && it == used.end())
          continue; // Expert 0's own error says it.
        if (it != used.end()) {
          if (t->dtype == it->second.first &&
              llvm::equal(t->shape, it->second.second)) {
            ++out.representedExperts;
          } else {
            out.errors.push_back(
                ckpt.fileOf(*t).str() + ": tensor '" + t->name +
                "': " + t->dtype + " " + shapeText(t->shape) +
                ", but routed expert 0, "
                "which the step models for every expert, has '" +
                rep + "' " + it->second.first + " " +
                shapeText(it->second.second) +
                "; every routed expert must have one shape");
          }
          continue;
        }
      }
    }
    if (StringRef(t->dtype).starts_with("F8_"))
      out.uncovered.push_back(t->name);
  }
  return std::move(out);
}

} // namespace

std::vector<std::vector<std::string>> checkpointCandidates(StringRef irName) {
  StringRef stem = irName;
  if (!stem.consume_back(".weight"))
    return {{("model." + irName).str()}};
  std::vector<std::vector<std::string>> out = splitsOf(stem);
  out.push_back({stem.str()});
  for (std::vector<std::string> &names : out)
    for (std::string &n : names)
      n = "model." + n + ".weight";
  return out;
}

CheckpointBinding bindCheckpoint(func::FuncOp fn,
                                 const SafetensorsCheckpoint &checkpoint,
                                 bool acceptFnuz) {
  return Binder(fn, checkpoint, acceptFnuz).run();
}

std::vector<uint8_t> assembleArgument(const BoundArgument &arg,
                                      const SafetensorsCheckpoint &ckpt) {
  std::vector<uint8_t> out;
  for (const std::vector<const SafetensorsTensor *> &layer : arg.parts) {
    if (!arg.transposed) {
      for (const SafetensorsTensor *t : layer) {
        ArrayRef<uint8_t> bytes = ckpt.bytes(*t);
        out.insert(out.end(), bytes.begin(), bytes.end());
      }
      continue;
    }
    // bf16 parts [n_p, k] -> [k, sum n_p].
    int64_t n = 0, k = layer.front()->shape[1];
    for (const SafetensorsTensor *t : layer)
      n += t->shape[0];
    size_t base = out.size();
    out.resize(base + 2 * n * k);
    int64_t col = 0;
    for (const SafetensorsTensor *t : layer) {
      const uint8_t *src = ckpt.bytes(*t).data();
      for (int64_t r = 0; r < t->shape[0]; ++r)
        for (int64_t c = 0; c < k; ++c)
          std::memcpy(&out[base + 2 * (c * n + col + r)], src + 2 * (r * k + c),
                      2);
      col += t->shape[0];
    }
  }
  return out;
}

} // namespace fp8q
