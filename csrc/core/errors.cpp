#include "core/errors.h"

#include <cstdio>

namespace genesis {

void append_part(std::string& out, const std::string& s) { out += s; }
void append_part(std::string& out, const char* s) { out += s; }
void append_part(std::string& out, char c) { out += c; }
void append_part(std::string& out, bool b) { out += b ? "true" : "false"; }
void append_part(std::string& out, long long i) { out += std::to_string(i); }
void append_part(std::string& out, unsigned long long i) { out += std::to_string(i); }
void append_part(std::string& out, double d) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", d);
  out += buf;
}

void throw_error(ErrorKind kind, const char* op, const std::string& message) {
  throw Error(kind, str_cat("[", op, "] ", message));
}

}  // namespace genesis
