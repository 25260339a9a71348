//===- CheckpointBindingTest.cpp - IR arguments and checkpoint tensors ----===//
//
// The name mapping (fused projections as their parts' rows, MiniMax-M2's
// expert names), and the bytes an argument is assembled from: parts
// concatenated by rows, a bf16 weight kept out of FP8 transposed.
//
//===----------------------------------------------------------------------===//

#include "fp8q/ModelGen/CheckpointBinding.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace fp8q;

namespace {

using Names = std::vector<std::vector<std::string>>;

TEST(CheckpointCandidates, PlainNames) {
  EXPECT_EQ(checkpointCandidates("layers.0.self_attn.o_proj.weight"),
            (Names{{"model.layers.0.self_attn.o_proj.weight"}}));
  EXPECT_EQ(checkpointCandidates("layers.3.input_layernorm.weight"),
            (Names{{"model.layers.3.input_layernorm.weight"}}));
}

TEST(CheckpointCandidates, FusedProjections) {
  EXPECT_EQ(checkpointCandidates("layers.1.self_attn.fused_qkv_a_proj.weight"),
            (Names{{"model.layers.1.self_attn.q_a_proj.weight",
                    "model.layers.1.self_attn.kv_a_proj_with_mqa.weight"},
                   {"model.layers.1.self_attn.fused_qkv_a_proj.weight"}}));
  EXPECT_EQ(checkpointCandidates("layers.0.mlp.gate_up_proj.weight"),
            (Names{{"model.layers.0.mlp.gate_proj.weight",
                    "model.layers.0.mlp.up_proj.weight"},
                   {"model.layers.0.mlp.gate_up_proj.weight"}}));
  EXPECT_EQ(checkpointCandidates("layers.0.self_attn.qkv_proj.weight"),
            (Names{{"model.layers.0.self_attn.q_proj.weight",
                    "model.layers.0.self_attn.k_proj.weight",
                    "model.layers.0.self_attn.v_proj.weight"},
                   {"model.layers.0.self_attn.qkv_proj.weight"}}));
}

TEST(CheckpointCandidates, MiniMaxExperts) {
  EXPECT_EQ(checkpointCandidates("layers.2.mlp.experts.5.gate_up_proj.weight"),
            (Names{{"model.layers.2.mlp.experts.5.gate_proj.weight",
                    "model.layers.2.mlp.experts.5.up_proj.weight"},
                   {"model.layers.2.block_sparse_moe.experts.5.w1.weight",
                    "model.layers.2.block_sparse_moe.experts.5.w3.weight"},
                   {"model.layers.2.mlp.experts.5.gate_up_proj.weight"}}));
  EXPECT_EQ(checkpointCandidates("layers.2.mlp.experts.5.down_proj.weight"),
            (Names{{"model.layers.2.block_sparse_moe.experts.5.w2.weight"},
                   {"model.layers.2.mlp.experts.5.down_proj.weight"}}));
}

/// A one-file checkpoint in a fresh directory, and a function to bind.
class CheckpointBindingTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("fp8q-binding", dir));
    ctx.loadDialect<func::FuncDialect>();
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  /// Writes model.safetensors from (name, dtype, shape, bytes).
  void writeCheckpoint(
      ArrayRef<std::tuple<std::string, std::string, std::vector<int64_t>,
                          std::vector<uint8_t>>>
          tensors) {
    std::string header = "{", data;
    for (auto &[name, dtype, shape, bytes] : tensors) {
      header += (header.size() > 1 ? "," : "") + ("\"" + name + "\":{") +
                "\"dtype\":\"" + dtype + "\",\"shape\":[";
      for (size_t i = 0; i < shape.size(); ++i)
        header += (i ? "," : "") + std::to_string(shape[i]);
      header += "],\"data_offsets\":[" + std::to_string(data.size()) + "," +
                std::to_string(data.size() + bytes.size()) + "]}";
      data.append(bytes.begin(), bytes.end());
    }
    header += "}";
    std::string file(8, '\0');
    for (int i = 0; i < 8; ++i)
      file[i] = char((header.size() >> (8 * i)) & 0xff);
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, "model.safetensors");
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    os << file << header << data;
  }

  /// A function whose arguments have these names and types.
  func::FuncOp makeFunction(ArrayRef<std::pair<StringRef, Type>> args) {
    OpBuilder b(&ctx);
    module = ModuleOp::create(b.getUnknownLoc());
    b.setInsertionPointToEnd(module->getBody());
    auto fn = func::FuncOp::create(b, b.getUnknownLoc(), "decode_step",
                                   b.getFunctionType({}, {}));
    Block *entry = fn.addEntryBlock();
    for (auto [name, type] : args)
      entry->addArgument(type, NameLoc::get(b.getStringAttr(name)));
    b.setInsertionPointToEnd(entry);
    func::ReturnOp::create(b, b.getUnknownLoc());
    fn.setFunctionType(b.getFunctionType(entry->getArgumentTypes(), {}));
    return fn;
  }

  llvm::SmallString<256> dir;
  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
};

TEST_F(CheckpointBindingTest, FusedWeightAndScaleConcatenateRows) {
  std::vector<uint8_t> gate(128 * 128, 1), up(64 * 128, 2);
  std::vector<uint8_t> gateScale(4, 3), upScale(4, 4);
  writeCheckpoint(
      {{"model.layers.0.mlp.gate_proj.weight", "F8_E4M3", {128, 128}, gate},
       {"model.layers.0.mlp.up_proj.weight", "F8_E4M3", {64, 128}, up},
       {"model.layers.0.mlp.gate_proj.weight_scale_inv",
        "F32",
        {1, 1},
        gateScale},
       {"model.layers.0.mlp.up_proj.weight_scale_inv",
        "F32",
        {1, 1},
        upScale}});
  Builder b(&ctx);
  func::FuncOp fn = makeFunction(
      {{"layers.0.mlp.gate_up_proj.weight",
        RankedTensorType::get({192, 128}, b.getType<Float8E4M3FNType>())},
       {"layers.0.mlp.gate_up_proj.weight_scale_inv",
        RankedTensorType::get({2, 1}, b.getF32Type())}});
  auto ckpt = SafetensorsCheckpoint::open(dir);
  ASSERT_TRUE(bool(ckpt)) << llvm::toString(ckpt.takeError());
  CheckpointBinding binding = bindCheckpoint(fn, *ckpt, false);
  ASSERT_TRUE(binding.errors.empty()) << binding.errors.front();
  ASSERT_EQ(binding.arguments.size(), 2u);
  EXPECT_EQ(binding.fp8Weights, 1);
  std::vector<uint8_t> w = assembleArgument(binding.arguments[0], *ckpt);
  ASSERT_EQ(w.size(), 192u * 128);
  EXPECT_EQ(w[0], 1);
  EXPECT_EQ(w[128 * 128], 2);
  std::vector<uint8_t> s = assembleArgument(binding.arguments[1], *ckpt);
  EXPECT_EQ(s, (std::vector<uint8_t>{3, 3, 3, 3, 4, 4, 4, 4}));
}

TEST_F(CheckpointBindingTest, FusedScaleNeedsBlockAlignedParts) {
  writeCheckpoint({{"model.layers.0.mlp.gate_proj.weight",
                    "F8_E4M3",
                    {64, 128},
                    std::vector<uint8_t>(64 * 128)},
                   {"model.layers.0.mlp.up_proj.weight",
                    "F8_E4M3",
                    {64, 128},
                    std::vector<uint8_t>(64 * 128)},
                   {"model.layers.0.mlp.gate_proj.weight_scale_inv",
                    "F32",
                    {1, 1},
                    std::vector<uint8_t>(4)},
                   {"model.layers.0.mlp.up_proj.weight_scale_inv",
                    "F32",
                    {1, 1},
                    std::vector<uint8_t>(4)}});
  Builder b(&ctx);
  func::FuncOp fn = makeFunction(
      {{"layers.0.mlp.gate_up_proj.weight",
        RankedTensorType::get({128, 128}, b.getType<Float8E4M3FNType>())},
       {"layers.0.mlp.gate_up_proj.weight_scale_inv",
        RankedTensorType::get({1, 1}, b.getF32Type())}});
  auto ckpt = SafetensorsCheckpoint::open(dir);
  ASSERT_TRUE(bool(ckpt));
  CheckpointBinding binding = bindCheckpoint(fn, *ckpt, false);
  ASSERT_EQ(binding.errors.size(), 1u);
  EXPECT_NE(binding.errors[0].find("has 64 rows, not a multiple of 128"),
            std::string::npos)
      << binding.errors[0];
}

TEST_F(CheckpointBindingTest, Bf16WeightIsTransposed) {
  // [N = 2, K = 3] in the checkpoint, [K, N] in the IR.
  std::vector<uint8_t> w;
  for (uint8_t v = 0; v < 6; ++v)
    w.insert(w.end(), {v, 0});
  writeCheckpoint({{"model.layers.0.mlp.down_proj.weight", "BF16", {2, 3}, w}});
  Builder b(&ctx);
  func::FuncOp fn =
      makeFunction({{"layers.0.mlp.down_proj.weight",
                     RankedTensorType::get({3, 2}, b.getBF16Type())}});
  auto ckpt = SafetensorsCheckpoint::open(dir);
  ASSERT_TRUE(bool(ckpt));
  CheckpointBinding binding = bindCheckpoint(fn, *ckpt, false);
  ASSERT_TRUE(binding.errors.empty()) << binding.errors.front();
  std::vector<uint8_t> t = assembleArgument(binding.arguments[0], *ckpt);
  EXPECT_EQ(t, (std::vector<uint8_t>{0, 0, 3, 0, 1, 0, 4, 0, 2, 0, 5, 0}));
}

TEST_F(CheckpointBindingTest, UnnamedArgumentsAndUncoveredTensors) {
  writeCheckpoint({{"model.layers.9.mlp.down_proj.weight",
                    "F8_E4M3",
                    {1, 1},
                    std::vector<uint8_t>(1)}});
  auto ckpt = SafetensorsCheckpoint::open(dir);
  ASSERT_TRUE(bool(ckpt));
  Builder b(&ctx);
  func::FuncOp fn = makeFunction({{"decode_step", b.getBF16Type()}});
  fn.getBody().front().getArgument(0).setLoc(b.getUnknownLoc());
  CheckpointBinding binding = bindCheckpoint(fn, *ckpt, false);
  ASSERT_EQ(binding.errors.size(), 1u);
  EXPECT_NE(binding.errors[0].find("carry no names"), std::string::npos);
  // The step's input is optional; the FP8 tensor nobody reads is reported.
  func::FuncOp named = makeFunction(
      {{"decode_step", RankedTensorType::get({1, 1}, b.getBF16Type())}});
  CheckpointBinding other = bindCheckpoint(named, *ckpt, false);
  EXPECT_TRUE(other.errors.empty());
  EXPECT_TRUE(other.arguments.empty());
  EXPECT_EQ(other.uncovered,
            (std::vector<std::string>{"model.layers.9.mlp.down_proj.weight"}));
}

} // namespace
