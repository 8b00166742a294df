#include "pkg/client/file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ksched::client {

util::StatusOr<std::string> ReadFileToString(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    int err = errno;
    std::string reason = err != 0 ? std::strerror(err) : "cannot open";
    if (err == ENOENT) return util::NotFound("reading " + path + ": " + reason);
    return util::InvalidArgument("reading " + path + ": " + reason);
  }
  std::ostringstream out;
  out << in.rdbuf();
  if (in.bad()) return util::InvalidArgument("reading " + path + ": read error");
  return out.str();
}

std::string ResolvePath(const std::string& base_dir, const std::string& path) {
  if (path.empty() || base_dir.empty()) return path;
  std::filesystem::path p(path);
  if (p.is_absolute()) return path;
  return (std::filesystem::path(base_dir) / p).lexically_normal().string();
}

}  // namespace ksched::client
