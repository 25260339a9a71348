//===- SafetensorsTest.cpp - Safetensors header and checkpoint reader -----===//
//
// Well-formed headers parse; each kind of malformed file (truncated, header
// length past the end, invalid JSON, offsets out of range or overlapping,
// byte count against dtype and shape, an index naming a missing shard) is a
// located error and never a crash.
//
//===----------------------------------------------------------------------===//

#include "fp8q/Support/Safetensors.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace fp8q;

namespace {

/// A safetensors file: the 8-byte length, `header`, then `dataBytes` bytes.
std::string makeFile(StringRef header, size_t dataBytes) {
  std::string out(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i)
    out[i] = char((n >> (8 * i)) & 0xff);
  out += header.str();
  out.append(dataBytes, '\x01');
  return out;
}

/// The error text of `parse`, or "" when it succeeds.
std::string parseError(StringRef contents) {
  uint64_t dataStart = 0;
  auto tensors =
      parseSafetensorsHeader(contents, "shard.safetensors", dataStart);
  if (tensors)
    return "";
  return toString(tensors.takeError());
}

TEST(SafetensorsHeader, ParsesTensorsAndMetadata) {
  std::string file = makeFile(
      R"({"__metadata__":{"format":"pt"},)"
      R"("w":{"dtype":"F8_E4M3","shape":[2,128],"data_offsets":[0,256]},)"
      R"("s":{"dtype":"F32","shape":[1,1],"data_offsets":[256,260]},)"
      R"("e":{"dtype":"BF16","shape":[0],"data_offsets":[260,260]}})",
      260);
  uint64_t dataStart = 0;
  auto tensors = parseSafetensorsHeader(file, "f", dataStart);
  ASSERT_TRUE(bool(tensors)) << toString(tensors.takeError());
  ASSERT_EQ(tensors->size(), 3u);
  // Sorted by name.
  EXPECT_EQ((*tensors)[0].name, "e");
  EXPECT_EQ((*tensors)[2].name, "w");
  EXPECT_EQ((*tensors)[2].dtype, "F8_E4M3");
  EXPECT_EQ((*tensors)[2].numElements(), 256);
  EXPECT_EQ((*tensors)[1].begin, 256u);
  EXPECT_EQ(dataStart, file.size() - 260);
}

TEST(SafetensorsHeader, PackedFp4CountsHalfBytes) {
  std::string file = makeFile(
      R"({"w":{"dtype":"F4","shape":[2,32],"data_offsets":[0,32]}})", 32);
  EXPECT_EQ(parseError(file), "");
}

TEST(SafetensorsHeader, Truncated) {
  EXPECT_NE(parseError("abc").find("shard.safetensors: truncated: 3 bytes"),
            std::string::npos);
  EXPECT_NE(parseError("").find("truncated"), std::string::npos);
}

TEST(SafetensorsHeader, HeaderLengthBeyondFile) {
  std::string file = makeFile(R"({})", 0);
  file.resize(file.size() - 1);
  EXPECT_NE(parseError(file).find("header length 2 exceeds the 1 bytes"),
            std::string::npos);
  // A length near 2^64 must not wrap around.
  std::string huge(8, '\xff');
  huge += "{}";
  EXPECT_NE(parseError(huge).find("exceeds"), std::string::npos);
}

TEST(SafetensorsHeader, InvalidJson) {
  EXPECT_NE(parseError(makeFile("{\"w\":", 0)).find("invalid JSON header"),
            std::string::npos);
  EXPECT_NE(parseError(makeFile("[1]", 0)).find("must be a JSON object"),
            std::string::npos);
  EXPECT_NE(parseError(makeFile(R"({"w":3})", 0)).find("tensor 'w'"),
            std::string::npos);
  EXPECT_NE(
      parseError(makeFile(R"({"__metadata__":1})", 0)).find("__metadata__"),
      std::string::npos);
}

TEST(SafetensorsHeader, BadFields) {
  EXPECT_NE(
      parseError(makeFile(R"({"w":{"shape":[],"data_offsets":[0,0]}})", 0))
          .find("missing string field 'dtype'"),
      std::string::npos);
  EXPECT_NE(
      parseError(
          makeFile(R"({"w":{"dtype":"Q7","shape":[1],"data_offsets":[0,1]}})",
                   1))
          .find("unknown dtype 'Q7'"),
      std::string::npos);
  EXPECT_NE(
      parseError(
          makeFile(R"({"w":{"dtype":"U8","shape":[-1],"data_offsets":[0,1]}})",
                   1))
          .find("not a non-negative integer"),
      std::string::npos);
  EXPECT_NE(
      parseError(
          makeFile(R"({"w":{"dtype":"U8","shape":[1],"data_offsets":[0]}})", 1))
          .find("data_offsets"),
      std::string::npos);
  // Dimensions whose product overflows.
  EXPECT_NE(
      parseError(makeFile(R"({"w":{"dtype":"U8","shape":[4611686018427387904,)"
                          R"(4611686018427387904],"data_offsets":[0,1]}})",
                          1))
          .find("more than 2^62 elements"),
      std::string::npos);
}

TEST(SafetensorsHeader, OffsetsOutOfRange) {
  std::string err = parseError(
      makeFile(R"({"w":{"dtype":"U8","shape":[8],"data_offsets":[0,8]}})", 4));
  EXPECT_NE(err.find("shard.safetensors: tensor 'w': data_offsets [0, 8] end "
                     "past the data section (4 bytes"),
            std::string::npos)
      << err;
  EXPECT_NE(
      parseError(
          makeFile(R"({"w":{"dtype":"U8","shape":[0],"data_offsets":[4,2]}})",
                   4))
          .find("end before they begin"),
      std::string::npos);
  EXPECT_NE(parseError(makeFile(R"({"w":{"dtype":"U8","shape":[1],)"
                                R"("data_offsets":[0,18446744073709551615]}})",
                                4))
                .find("past the data section"),
            std::string::npos);
}

TEST(SafetensorsHeader, Overlap) {
  std::string err = parseError(
      makeFile(R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},)"
               R"("b":{"dtype":"U8","shape":[4],"data_offsets":[2,6]}})",
               6));
  EXPECT_NE(err.find("tensor 'b': data_offsets [2, 6] overlap those of 'a'"),
            std::string::npos)
      << err;
}

TEST(SafetensorsHeader, ByteCountMismatch) {
  std::string err = parseError(makeFile(
      R"({"s":{"dtype":"F32","shape":[2,2],"data_offsets":[0,8]}})", 8));
  EXPECT_NE(err.find("tensor 's': F32 [2, 2] is 16 bytes, but data_offsets "
                     "[0, 8] hold 8"),
            std::string::npos)
      << err;
}

/// A fresh temporary directory for checkpoint tests.
class SafetensorsCheckpointTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(sys::fs::createUniqueDirectory("fp8q-safetensors", dir));
  }
  void TearDown() override { sys::fs::remove_directories(dir); }
  void write(StringRef name, StringRef contents) {
    SmallString<256> path(dir);
    sys::path::append(path, name);
    std::error_code ec;
    raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    os << contents;
  }
  SmallString<256> dir;
};

TEST_F(SafetensorsCheckpointTest, SingleFile) {
  write(
      "model.safetensors",
      makeFile(R"({"w":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})", 4));
  auto ckpt = SafetensorsCheckpoint::open(dir);
  ASSERT_TRUE(bool(ckpt)) << toString(ckpt.takeError());
  const SafetensorsTensor *w = ckpt->lookup("w");
  ASSERT_NE(w, nullptr);
  ArrayRef<uint8_t> bytes = ckpt->bytes(*w);
  ASSERT_EQ(bytes.size(), 4u);
  EXPECT_EQ(bytes[0], 1);
  EXPECT_EQ(ckpt->lookup("x"), nullptr);
}

TEST_F(SafetensorsCheckpointTest, ShardedIndex) {
  write(
      "a.safetensors",
      makeFile(R"({"w":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})", 4));
  write(
      "b.safetensors",
      makeFile(R"({"v":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})", 2));
  write("model.safetensors.index.json",
        R"({"metadata":{},"weight_map":{"w":"a.safetensors",)"
        R"("v":"b.safetensors"}})");
  auto ckpt = SafetensorsCheckpoint::open(dir);
  ASSERT_TRUE(bool(ckpt)) << toString(ckpt.takeError());
  EXPECT_EQ(ckpt->shards.size(), 2u);
  ASSERT_NE(ckpt->lookup("v"), nullptr);
  EXPECT_EQ(ckpt->bytes(*ckpt->lookup("v")).size(), 2u);
  EXPECT_EQ(ckpt->tensors().size(), 2u);
}

TEST_F(SafetensorsCheckpointTest, MissingShard) {
  write("model.safetensors.index.json",
        R"({"weight_map":{"w":"gone.safetensors"}})");
  auto ckpt = SafetensorsCheckpoint::open(dir);
  ASSERT_FALSE(bool(ckpt));
  std::string err = toString(ckpt.takeError());
  EXPECT_NE(err.find("model.safetensors.index.json: tensor 'w': its shard"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("gone.safetensors does not exist"), std::string::npos);
}

TEST_F(SafetensorsCheckpointTest, IndexNamesTensorNotInShard) {
  write(
      "a.safetensors",
      makeFile(R"({"w":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})", 4));
  write("model.safetensors.index.json",
        R"({"weight_map":{"w":"a.safetensors","q":"a.safetensors"}})");
  auto ckpt = SafetensorsCheckpoint::open(dir);
  ASSERT_FALSE(bool(ckpt));
  EXPECT_NE(toString(ckpt.takeError()).find("tensor 'q': the index places it"),
            std::string::npos);
}

TEST_F(SafetensorsCheckpointTest, BadIndexAndEmptyDirectory) {
  auto none = SafetensorsCheckpoint::open(dir);
  ASSERT_FALSE(bool(none));
  EXPECT_NE(toString(none.takeError()).find("neither"), std::string::npos);
  write("model.safetensors.index.json", "{");
  auto bad = SafetensorsCheckpoint::open(dir);
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(toString(bad.takeError()).find("invalid JSON"), std::string::npos);
  write("model.safetensors.index.json", R"({"weight_map":{"w":"../x"}})");
  auto escape = SafetensorsCheckpoint::open(dir);
  ASSERT_FALSE(bool(escape));
  EXPECT_NE(toString(escape.takeError()).find("not a file name"),
            std::string::npos);
}

TEST_F(SafetensorsCheckpointTest, TruncatedShard) {
  std::string file =
      makeFile(R"({"w":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})", 4);
  write("model.safetensors", StringRef(file).drop_back(2));
  auto ckpt = SafetensorsCheckpoint::open(dir);
  ASSERT_FALSE(bool(ckpt));
  EXPECT_NE(toString(ckpt.takeError()).find("end past the data section"),
            std::string::npos);
}

} // namespace
