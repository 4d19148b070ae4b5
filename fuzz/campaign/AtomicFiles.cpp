#include "fuzz/campaign/AtomicFiles.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
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

/// Writes and fsyncs `path`; errors name `shownAs` (the final name of a temporary).
void writeAndSync(const fs::path& path, const fs::path& shownAs, const std::string& content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("create", shownAs);
  // Every step reports its own errno: a full disk shows as ENOSPC from write, fsync or close.
  const char* data = content.data();
  size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      const int saved = errno;
      ::close(fd);
      errno = saved;
      fail("write", shownAs);
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const int saved = errno;
    ::close(fd);
    errno = saved;
    fail("fsync", shownAs);
  }
  if (::close(fd) != 0) fail("close", shownAs);
}

}  // namespace

void writeFileDurably(const fs::path& path, const std::string& content) { writeAndSync(path, path, content); }

void writeFileAtomically(const fs::path& path, const std::string& content) {
  const fs::path temp = temporarySibling(path);
  try {
    writeAndSync(temp, path, content);
    renameOver(temp, path);
  } catch (...) {
    ::unlink(temp.c_str());  // the old `path` is untouched
    throw;
  }
  fsyncPath(parentOrDot(path), O_RDONLY | O_DIRECTORY);
}

void checkWritableFolder(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create output folder '" + dir.string() + "': " + ec.message());
  const fs::path probe = dir / (std::string(kTemporaryPrefix) + "write-probe-" + std::to_string(::getpid()));
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    throw std::runtime_error("output folder '" + dir.string() + "' is not writable: cannot create '" + probe.string() +
                             "': " + std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());
}

void writeFolderAtomically(const fs::path& path, const std::function<void(const fs::path& tempDir)>& fill) {
  const fs::path temp = temporarySibling(path);
  std::error_code created;
  fs::create_directories(temp, created);
  if (created) throw std::runtime_error("cannot create '" + temp.string() + "': " + created.message());
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
