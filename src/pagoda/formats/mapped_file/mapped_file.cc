#include "pagoda/formats/mapped_file/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace pagoda::formats {
namespace {

Status ErrnoError(const std::string& what, const std::string& path, int err) {
  std::string message = what + " '" + path + "': " + std::strerror(err);
  if (err == ENOENT) return NotFoundError(std::move(message));
  return FailedPreconditionError(std::move(message));
}

}  // namespace

StatusOr<std::unique_ptr<MappedFile>> MappedFile::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError("cannot open", path, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return ErrnoError("cannot stat", path, err);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return FailedPreconditionError("'" + path + "' is not a regular file");
  }
  const auto size = static_cast<size_t>(st.st_size);
  void* addr = nullptr;
  if (size > 0) {
    addr = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (addr == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      return ErrnoError("cannot map", path, err);
    }
  }
  ::close(fd);  // the mapping keeps the file's pages reachable
  return std::unique_ptr<MappedFile>(new MappedFile(addr, size));
}

void ReleasePages(std::span<const uint8_t> bytes) {
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<uintptr_t>(bytes.data()) + page - 1) / page * page;
  const auto end = (reinterpret_cast<uintptr_t>(bytes.data()) + bytes.size()) / page * page;
  // Advice only: a refusal leaves the pages resident, which is still correct.
  if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

MappedFile::~MappedFile() {
  if (addr_ != nullptr) ::munmap(addr_, size_);
}

}  // namespace pagoda::formats
