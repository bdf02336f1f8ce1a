#include "core/device.h"

#include <cctype>

#include "core/errors.h"

namespace genesis {

std::string Device::str() const {
  if (is_cpu()) return "cpu";
  return index < 0 ? "cuda" : "cuda:" + std::to_string(index);
}

Device parse_device(const std::string& text) {
  if (text == "cpu") return kCPU;
  if (text == "cuda") return Device{DeviceType::CUDA, -1};
  const std::string prefix = "cuda:";
  if (text.size() > prefix.size() && text.compare(0, prefix.size(), prefix) == 0 &&
      text.size() - prefix.size() <= 6) {
    int index = 0;
    for (size_t i = prefix.size(); i < text.size(); ++i) {
      if (!std::isdigit(static_cast<unsigned char>(text[i]))) index = -1;
      if (index >= 0) index = index * 10 + (text[i] - '0');
    }
    if (index >= 0) return Device{DeviceType::CUDA, index};
  }
  GENESIS_FAIL(ErrorKind::Value, "device", "unknown device '", text,
               "'; expected 'cpu', 'cuda' or 'cuda:N'");
}

}  // namespace genesis
