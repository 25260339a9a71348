//===- TunedShapesTest.cpp - Tuned-shape table parsing --------------------===//

#include "fp8q/Target/TunedShapes.h"

#include <gtest/gtest.h>

using namespace fp8q;

namespace {

/// Parses `json`, expecting failure; returns the error text.
std::string parseError(llvm::StringRef json) {
  llvm::Expected<TunedShapeTable> table =
      TunedShapeTable::parse(json, "t.json");
  if (table) {
    ADD_FAILURE() << "expected a parse error for " << json.str();
    return "";
  }
  return llvm::toString(table.takeError());
}

TEST(TunedShapes, DefaultHoldsReferenceValues) {
  const TunedShapeTable &table = TunedShapeTable::getDefault();
  // REFERENCE.md lists 14 tuned Triton shapes on gfx950.
  EXPECT_EQ(table.getNumTritonTuned(), 14u);
  for (auto [n, k] : {std::pair<int64_t, int64_t>{1024, 8192},
                      {16384, 1536},
                      {2112, 7168},
                      {3072, 1536},
                      {32768, 8192},
                      {4096, 7168},
                      {4608, 7168},
                      {512, 7168},
                      {7168, 2048},
                      {7168, 2304},
                      {7168, 16384},
                      {7168, 256},
                      {8192, 1024},
                      {8192, 32768}})
    EXPECT_TRUE(table.isTritonTuned(n, k)) << n << "x" << k;
  // (N, K) is ordered: the transpose of a tuned shape is not tuned.
  EXPECT_FALSE(table.isTritonTuned(8192, 1024 * 2));
  EXPECT_FALSE(table.isTritonTuned(7168, 4096));
  EXPECT_FALSE(table.isTritonTuned(28672, 512));
  EXPECT_EQ(table.getCkMaxM(4608, 4096), std::optional<int64_t>(512));
  EXPECT_EQ(table.getCkMaxM(4608, 7168), std::nullopt);
}

TEST(TunedShapes, ParsesAReplacementTable) {
  llvm::Expected<TunedShapeTable> table = TunedShapeTable::parse(
      R"({"triton_tuned": [[256, 512]],
          "ck_max_m": [{"n": 6144, "k": 4096, "max_m": 64}]})",
      "t.json");
  ASSERT_TRUE(static_cast<bool>(table)) << llvm::toString(table.takeError());
  EXPECT_EQ(table->getNumTritonTuned(), 1u);
  EXPECT_TRUE(table->isTritonTuned(256, 512));
  EXPECT_FALSE(table->isTritonTuned(1024, 8192));
  EXPECT_EQ(table->getCkMaxM(6144, 4096), std::optional<int64_t>(64));
  EXPECT_EQ(table->getCkMaxM(4608, 4096), std::nullopt);

  llvm::Expected<TunedShapeTable> empty = TunedShapeTable::parse("{}", "e");
  ASSERT_TRUE(static_cast<bool>(empty));
  EXPECT_EQ(empty->getNumTritonTuned(), 0u);
}

TEST(TunedShapes, ErrorsNameFileAndEntry) {
  EXPECT_EQ(parseError(R"({"triton_tuned": [[1, 2], [3]]})"),
            "tuned table 't.json': triton_tuned[1]: expected an [N, K] pair "
            "of positive integers");
  EXPECT_EQ(parseError(R"({"triton_tuned": [[1, 2], [3, -4]]})"),
            "tuned table 't.json': triton_tuned[1][1] (K): expected a "
            "positive integer");
  EXPECT_EQ(parseError(R"({"triton_tuned": [[1.5, 2]]})"),
            "tuned table 't.json': triton_tuned[0][0] (N): expected a "
            "positive integer");
  EXPECT_EQ(parseError(R"({"ck_max_m": [{"n": 1, "k": 2}]})"),
            "tuned table 't.json': ck_max_m[0].max_m: expected a positive "
            "integer");
  EXPECT_EQ(
      parseError(R"({"ck_max_m": [{"n": 1, "k": 2, "max_m": 3, "x": 1}]})"),
      "tuned table 't.json': ck_max_m[0].x: unknown key; expected "
      "\"n\", \"k\" or \"max_m\"");
  EXPECT_EQ(
      parseError(R"({"ck_max_m": [{"n": 1, "k": 2, "max_m": 3},
                                  {"n": 1, "k": 2, "max_m": 4}]})"),
      "tuned table 't.json': ck_max_m[1]: duplicate entry for [N, K] = [1, 2]");
  EXPECT_EQ(parseError(R"({"tuned": []})"),
            "tuned table 't.json': tuned: unknown key; expected "
            "\"triton_tuned\" or \"ck_max_m\"");
  EXPECT_EQ(parseError("[1, 2]"),
            "tuned table 't.json': <root>: expected a JSON object with keys "
            "\"triton_tuned\" and \"ck_max_m\"");
  EXPECT_EQ(parseError(R"({"triton_tuned": {}})"),
            "tuned table 't.json': triton_tuned: expected an array of [N, K] "
            "pairs");
  std::string syntax = parseError(R"({"triton_tuned": [[1, 2],]})");
  EXPECT_NE(syntax.find("tuned table 't.json': <file>: invalid JSON"),
            std::string::npos)
      << syntax;
}

TEST(TunedShapes, MissingFileIsAnError) {
  llvm::Expected<TunedShapeTable> table =
      TunedShapeTable::loadFile("/nonexistent/fp8q-table.json");
  ASSERT_FALSE(static_cast<bool>(table));
  std::string text = llvm::toString(table.takeError());
  EXPECT_NE(text.find("tuned table '/nonexistent/fp8q-table.json': cannot "
                      "read the file"),
            std::string::npos)
      << text;
}

} // namespace
