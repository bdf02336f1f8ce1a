#pragma once
// Typed errors of the C++ core. The bindings translate each kind once into the matching Python
// exception; messages start with the op in brackets: "[view] shape (3, 4) is invalid ...".
#include <stdexcept>
#include <string>

namespace genesis {

// Shape: an invalid shape or size (broadcasting, view, expand, permute, split, negative sizes);
// raised as genesis.ShapeError, both a ValueError and a RuntimeError (Note [Shape errors] in
// python/errors.cpp).
enum class ErrorKind { Runtime, Index, Value, Type, OutOfMemory, Buffer, NotImplemented, Shape };

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

// Message building without iostreams: some toolchains link libstdc++ statically into the module,
// and its stream locale machinery then crashes beside the process's own libstdc++.
void append_part(std::string& out, const std::string& s);
void append_part(std::string& out, const char* s);
void append_part(std::string& out, char c);
void append_part(std::string& out, bool b);
void append_part(std::string& out, double d);
void append_part(std::string& out, long long i);
void append_part(std::string& out, unsigned long long i);
inline void append_part(std::string& out, float f) { append_part(out, static_cast<double>(f)); }
inline void append_part(std::string& out, int i) { append_part(out, static_cast<long long>(i)); }
inline void append_part(std::string& out, long i) { append_part(out, static_cast<long long>(i)); }
inline void append_part(std::string& out, unsigned i) {
  append_part(out, static_cast<unsigned long long>(i));
}
inline void append_part(std::string& out, unsigned long i) {
  append_part(out, static_cast<unsigned long long>(i));
}

template <typename... Parts>
std::string str_cat(const Parts&... parts) {
  std::string out;
  (append_part(out, parts), ...);
  return out;
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
#define GENESIS_CHECK_SHAPE(cond, op, ...) \
  GENESIS_CHECK_KIND_(::genesis::ErrorKind::Shape, cond, op, __VA_ARGS__)
#define GENESIS_CHECK_TYPE(cond, op, ...) \
  GENESIS_CHECK_KIND_(::genesis::ErrorKind::Type, cond, op, __VA_ARGS__)
#define GENESIS_FAIL(kind, op, ...) \
  ::genesis::throw_error(kind, op, ::genesis::str_cat(__VA_ARGS__))
