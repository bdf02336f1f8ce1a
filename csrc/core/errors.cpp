#include "core/errors.h"

namespace genesis {

void throw_error(ErrorKind kind, const char* op, const std::string& message) {
  throw Error(kind, str_cat("[", op, "] ", message));
}

}  // namespace genesis
