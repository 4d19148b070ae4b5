// Crash-safe output: a campaign killed at any instant (SIGKILL included) leaves either the old or
// the new version of a file or reproducer folder, never a half-written one. Files and folders are
// written under a temporary name, fsynced, then renamed into place (rename is atomic on POSIX), and
// the parent folder is fsynced so the rename itself survives a power cut.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

namespace ptodiff::fuzz {

/// The prefix of every temporary name; removeStaleTemporaries deletes what a kill left behind.
inline constexpr const char* kTemporaryPrefix = ".tmp-";

/// Replaces `path` with `content` atomically. Throws std::runtime_error naming the path and the
/// errno text on failure ("cannot write 'o/.tmp-report.json-..': No space left on device"); the
/// temporary is removed and `path` keeps its old content.
void writeFileAtomically(const std::filesystem::path& path, const std::string& content);

/// Writes `content` to `path` (created or truncated) and fsyncs it; not atomic (for files inside a
/// folder written with writeFolderAtomically). Throws std::runtime_error as writeFileAtomically.
void writeFileDurably(const std::filesystem::path& path, const std::string& content);

/// Creates folder `dir` if needed and checks that a file can be created in it. Throws
/// std::runtime_error naming the folder and the errno text otherwise (a read-only folder, a path
/// under a file), so a campaign refuses to start instead of failing at its first result.
void checkWritableFolder(const std::filesystem::path& dir);

/// Creates folder `path` atomically: `fill` writes the folder's files into a temporary sibling
/// folder, every file is fsynced, then the folder is renamed to `path` (an existing `path` is
/// replaced). Throws std::runtime_error on failure (the temporary folder is removed).
void writeFolderAtomically(const std::filesystem::path& path,
                           const std::function<void(const std::filesystem::path& tempDir)>& fill);

/// Deletes the temporary files and folders (kTemporaryPrefix) directly inside `dir`.
void removeStaleTemporaries(const std::filesystem::path& dir);

}  // namespace ptodiff::fuzz
