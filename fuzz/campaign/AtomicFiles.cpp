#include "fuzz/campaign/AtomicFiles.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <atomic>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <vector>

namespace ptodiff::fuzz {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& what, const fs::path& path) {
  throw std::runtime_error("cannot " + what + " '" + path.string() + "': " + std::strerror(errno));
}

void fsyncPath(const fs::path& path, int flags) {
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0) fail("open", path);
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) fail("fsync", path);
}

/// A name unique to this process and call, next to `path`.
fs::path temporarySibling(const fs::path& path) {
  static std::atomic<unsigned> counter{0};
  return path.parent_path() / (std::string(kTemporaryPrefix) + path.filename().string() + "-" +
                               std::to_string(::getpid()) + "-" + std::to_string(counter++));
}

void renameOver(const fs::path& from, const fs::path& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) fail("rename to", to);
}

fs::path parentOrDot(const fs::path& path) { return path.parent_path().empty() ? fs::path(".") : path.parent_path(); }

}  // namespace

void writeFileAtomically(const fs::path& path, const std::string& content) {
  const fs::path temp = temporarySibling(path);
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) fail("create", temp);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) fail("write", temp);
  }
  fsyncPath(temp, O_RDONLY);
  renameOver(temp, path);
  fsyncPath(parentOrDot(path), O_RDONLY | O_DIRECTORY);
}

void writeFolderAtomically(const fs::path& path, const std::function<void(const fs::path& tempDir)>& fill) {
  const fs::path temp = temporarySibling(path);
  fs::create_directories(temp);
  try {
    fill(temp);
    for (const fs::directory_entry& e : fs::directory_iterator(temp))
      if (e.is_regular_file()) fsyncPath(e.path(), O_RDONLY);
    fsyncPath(temp, O_RDONLY | O_DIRECTORY);
    // rename(2) replaces only an empty folder: an older copy (a campaign killed after writing this
    // reproducer but before its checkpoint, then resumed) is moved aside and deleted afterwards.
    if (fs::exists(path)) {
      const fs::path old = temporarySibling(path);
      renameOver(path, old);
      renameOver(temp, path);
      fs::remove_all(old);
    } else {
      renameOver(temp, path);
    }
    fsyncPath(parentOrDot(path), O_RDONLY | O_DIRECTORY);
  } catch (...) {
    std::error_code ec;
    fs::remove_all(temp, ec);
    throw;
  }
}

void removeStaleTemporaries(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  std::vector<fs::path> stale;
  for (const fs::directory_entry& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind(kTemporaryPrefix, 0) == 0) stale.push_back(e.path());
  for (const fs::path& p : stale) fs::remove_all(p, ec);
}

}  // namespace ptodiff::fuzz
