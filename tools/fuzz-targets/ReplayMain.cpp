// Standalone driver for the fuzz targets when they are not linked with libFuzzer (the normal and the
// ASan builds): runs LLVMFuzzerTestOneInput once on every file named on the command line and on every
// file inside every folder named (recursively, in sorted order, so a failure reproduces the same
// way). A crash is the driver dying; a clean pass prints how many inputs ran and exits 0.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::vector<std::filesystem::path> inputsOf(const std::filesystem::path& arg) {
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(arg)) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(arg))
      if (entry.is_regular_file()) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
  } else {
    files.push_back(arg);
  }
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: " << argv[0] << " FILE_OR_FOLDER...\n"
              << "Runs the fuzz target once on every file (folders are read recursively).\n";
    return 2;
  }
  size_t ran = 0;
  for (int i = 1; i < argc; ++i) {
    if (!std::filesystem::exists(argv[i])) {
      std::cerr << "error: " << argv[i] << ": no such file or folder\n";
      return 2;
    }
    for (const auto& file : inputsOf(argv[i])) {
      std::ifstream in(file, std::ios::binary);
      if (!in) {
        std::cerr << "error: " << file.string() << ": cannot read\n";
        return 2;
      }
      const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      // Named before it runs: when an input crashes the driver, the last line says which one.
      std::cerr << "running " << file.string() << "\n";
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      ++ran;
    }
  }
  std::cout << "replayed " << ran << " input(s) without a crash\n";
  return 0;
}
