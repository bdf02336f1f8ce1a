#pragma once
// Typed errors of the C++ core. The bindings translate each kind once into the matching Python
// exception; messages start with the op in brackets: "[view] shape (3, 4) is invalid ...".
#include <sstream>
#include <stdexcept>
#include <string>

namespace genesis {

enum class ErrorKind { Runtime, Index, Value, Type, OutOfMemory, Buffer, NotImplemented };

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

template <typename... Parts>
std::string str_cat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

[[noreturn]] void throw_error(ErrorKind kind, const char* op, const std::string& message);

}  // namespace genesis

#define GENESIS_CHECK_KIND_(kind, cond, op, ...)                         \
  do {                                                                   \
    if (!(cond)) [[unlikely]]                                            \
      ::genesis::throw_error(kind, op, ::genesis::str_cat(__VA_ARGS__)); \
  } while (0)

// GENESIS_CHECK(cond, "op", "message parts", ...) raises RuntimeError "[op] message parts".
#define GENESIS_CHECK(cond, op, ...) \
  GENESIS_CHECK_KIND_(::genesis::ErrorKind::Runtime, cond, op, __VA_ARGS__)
#define GENESIS_CHECK_INDEX(cond, op, ...) \
  GENESIS_CHECK_KIND_(::genesis::ErrorKind::Index, cond, op, __VA_ARGS__)
#define GENESIS_CHECK_VALUE(cond, op, ...) \
  GENESIS_CHECK_KIND_(::genesis::ErrorKind::Value, cond, op, __VA_ARGS__)
#define GENESIS_CHECK_TYPE(cond, op, ...) \
  GENESIS_CHECK_KIND_(::genesis::ErrorKind::Type, cond, op, __VA_ARGS__)
#define GENESIS_FAIL(kind, op, ...) \
  ::genesis::throw_error(kind, op, ::genesis::str_cat(__VA_ARGS__))
