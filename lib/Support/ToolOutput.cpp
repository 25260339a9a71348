//===- ToolOutput.cpp - Safe output files for fp8q tools ------------------===//

#include "fp8q/Support/ToolOutput.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

namespace {
/// A failure whose diagnostics were printed where it happened.
class AlreadyReportedError : public ErrorInfo<AlreadyReportedError> {
public:
  static char ID;
  void log(raw_ostream &os) const override { os << "failed"; }
  std::error_code convertToErrorCode() const override {
    return inconvertibleErrorCode();
  }
};
char AlreadyReportedError::ID = 0;
} // namespace

Error fp8q::checkOutputIsNotAnInput(StringRef outputPath,
                                    ArrayRef<StringRef> inputPaths) {
  if (outputPath == "-")
    return Error::success();
  for (StringRef input : inputPaths) {
    bool same = false;
    // `equivalent` fails when either file is missing: then they differ.
    if (input != "-" && !sys::fs::equivalent(input, outputPath, same) && same)
      return createStringError(
          std::errc::invalid_argument,
          "output file '%s' is the input file '%s'; refusing to overwrite an "
          "input (write to another path)",
          outputPath.str().c_str(), input.str().c_str());
  }
  return Error::success();
}

/// Runs `write` on `os`, then reports a failed flush as an error instead of
/// letting raw_fd_ostream abort the process when it is destroyed.
static Error writeAndFlush(StringRef outputPath, raw_fd_ostream &os,
                           function_ref<Error(raw_ostream &)> write) {
  Error error = write(os);
  os.flush();
  if (os.has_error()) {
    std::error_code code = os.error();
    os.clear_error();
    return joinErrors(std::move(error),
                      createStringError(code, "cannot write '%s': %s",
                                        outputPath.str().c_str(),
                                        code.message().c_str()));
  }
  return error;
}

Error fp8q::writeToolOutput(StringRef outputPath,
                            ArrayRef<StringRef> inputPaths,
                            function_ref<Error(raw_ostream &)> write) {
  if (Error error = checkOutputIsNotAnInput(outputPath, inputPaths))
    return error;
  if (outputPath == "-")
    return writeAndFlush(outputPath, outs(), write);

  // Devices and pipes (/dev/null, a FIFO) are written in place: there is no
  // file to replace atomically.
  sys::fs::file_status status;
  if (!sys::fs::status(outputPath, status) && sys::fs::exists(status) &&
      !sys::fs::is_regular_file(status)) {
    std::error_code code;
    raw_fd_ostream os(outputPath, code, sys::fs::OF_None);
    if (code)
      return createStringError(code, "cannot open output file '%s': %s",
                               outputPath.str().c_str(),
                               code.message().c_str());
    return writeAndFlush(outputPath, os, write);
  }

  // Same scheme as llvm::writeToOutput, plus write-error reporting: the text
  // goes to a temporary file in the destination's directory (removed on a
  // signal too), renamed over the destination only after a clean write.
  Expected<sys::fs::TempFile> temp = sys::fs::TempFile::create(
      outputPath + ".tmp-%%%%%%", sys::fs::all_read | sys::fs::all_write);
  if (!temp)
    return createStringError(
        inconvertibleErrorCode(), "cannot open output file '%s': %s",
        outputPath.str().c_str(), toString(temp.takeError()).c_str());
  Error result = [&] {
    raw_fd_ostream os(temp->FD, /*shouldClose=*/false);
    return writeAndFlush(outputPath, os, write);
  }();
  if (result)
    return joinErrors(std::move(result), temp->discard());
  if (Error error = temp->keep(outputPath))
    return createStringError(inconvertibleErrorCode(), "cannot write '%s': %s",
                             outputPath.str().c_str(),
                             toString(std::move(error)).c_str());
  return Error::success();
}

Error fp8q::makeAlreadyReportedError() {
  return make_error<AlreadyReportedError>();
}

int fp8q::reportToolError(StringRef tool, Error error) {
  int status = 0;
  handleAllErrors(
      std::move(error), [&](const AlreadyReportedError &) { status = 1; },
      [&](const ErrorInfoBase &info) {
        WithColor::error(errs(), tool) << info.message() << "\n";
        status = 1;
      });
  return status;
}
