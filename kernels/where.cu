// where(cond, a, b): a byte-level select, so one instantiation per item size serves all dtypes.
#include "kernels/elementwise_loops.cuh"

namespace genesis::kernels {

namespace {

template <typename W>
struct WhereBody {
  W* out;
  const bool* cond;
  const W* a;
  const W* b;
  W av, bv;
  bool a_scalar, b_scalar;

  template <int V>
  __device__ __forceinline__ void vec(int64_t i) const {
    for (int k = 0; k < V; ++k) one(i * V + k);
  }
  __device__ __forceinline__ void one(int64_t i) const {
    out[i] = cond[i] ? (a_scalar ? av : a[i]) : (b_scalar ? bv : b[i]);
  }
  template <typename Index>
  __device__ __forceinline__ void at(const Index* o) const {
    bool c = *(reinterpret_cast<const bool*>(reinterpret_cast<const char*>(cond) + o[1]));
    W v =
        c ? (a_scalar ? av : *reinterpret_cast<const W*>(reinterpret_cast<const char*>(a) + o[2]))
          : (b_scalar ? bv : *reinterpret_cast<const W*>(reinterpret_cast<const char*>(b) + o[3]));
    *reinterpret_cast<W*>(reinterpret_cast<char*>(out) + o[0]) = v;
  }
};

template <typename W>
void launch_where_typed(void* out, const void* cond, const void* a, const void* b, bool a_scalar,
                        uint64_t a_bits, bool b_scalar, uint64_t b_bits, const Geometry& g,
                        cudaStream_t stream) {
  WhereBody<W> body{static_cast<W*>(out),
                    static_cast<const bool*>(cond),
                    static_cast<const W*>(a),
                    static_cast<const W*>(b),
                    static_cast<W>(a_bits),
                    static_cast<W>(b_bits),
                    a_scalar,
                    b_scalar};
  run_loop<4, 4>(g, true, body, stream);
}

}  // namespace

void launch_where(int itemsize, void* out, const void* cond, const void* a, const void* b,
                  bool a_scalar, uint64_t a_bits, bool b_scalar, uint64_t b_bits, const Geometry& g,
                  void* stream_ptr) {
  cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
  switch (itemsize) {
    case 1:
      return launch_where_typed<uint8_t>(out, cond, a, b, a_scalar, a_bits, b_scalar, b_bits, g,
                                         stream);
    case 2:
      return launch_where_typed<uint16_t>(out, cond, a, b, a_scalar, a_bits, b_scalar, b_bits, g,
                                          stream);
    case 4:
      return launch_where_typed<uint32_t>(out, cond, a, b, a_scalar, a_bits, b_scalar, b_bits, g,
                                          stream);
    default:
      return launch_where_typed<uint64_t>(out, cond, a, b, a_scalar, a_bits, b_scalar, b_bits, g,
                                          stream);
  }
}

}  // namespace genesis::kernels
