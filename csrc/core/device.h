#pragma once
// Where a tensor's memory lives: the CPU or one CUDA device.
#include <cstdint>
#include <string>

namespace genesis {

enum class DeviceType : int8_t { CPU, CUDA };

struct Device {
  DeviceType type = DeviceType::CPU;
  int index = -1;  // -1: "the current device" for CUDA; always -1 for CPU

  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  std::string str() const;  // "cpu", "cuda", "cuda:1"
};

constexpr Device kCPU{DeviceType::CPU, -1};

// Parses "cpu", "cuda", "cuda:N"; raises ValueError for anything else.
Device parse_device(const std::string& text);

}  // namespace genesis
