// where(cond, a, b): a byte-level select, so one instantiation per item size serves all dtypes.
//
// Note [Vector where]: a contiguous where() moves 16 bytes of each tensor operand per thread
// (16 / itemsize items, and as many mask bytes in one load) when every pointer is aligned to
// its vector; item-by-item loads there ran a float32 where() at half of copy bandwidth, as each
// warp load touched every sector but used a quarter of it. Unaligned pointers keep the
// item-by-item loop. masked_fill out of place is this kernel too (Note [masked_fill out of
// place]).
#include <type_traits>

#include "kernels/elementwise_loops.cuh"

namespace genesis::kernels {

namespace {

template <typename W, bool kVector>
struct WhereBody {
  W* out;
  const bool* cond;
  const W* a;
  const W* b;
  W av, bv;
  bool a_scalar, b_scalar;

  template <int V>
  __device__ __forceinline__ void vec(int64_t i) const {
    if constexpr (kVector) {
      using Items = Vector<W, V>;
      Vector<uint8_t, V> c = reinterpret_cast<const Vector<uint8_t, V>*>(cond)[i];
      Items x, y, r;
      if (!a_scalar) x = reinterpret_cast<const Items*>(a)[i];
      if (!b_scalar) y = reinterpret_cast<const Items*>(b)[i];
#pragma unroll
      for (int k = 0; k < V; ++k)
        r.v[k] = c.v[k] ? (a_scalar ? av : x.v[k]) : (b_scalar ? bv : y.v[k]);
      reinterpret_cast<Items*>(out)[i] = r;
    } else {
      for (int k = 0; k < V; ++k) one(i * V + k);
    }
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
  constexpr int V = 16 / sizeof(W);
  bool aligned = aligned_to(out, 16) && aligned_to(cond, V) && (a_scalar || aligned_to(a, 16)) &&
                 (b_scalar || aligned_to(b, 16));
  auto run = [&](auto vector_tag, auto width_tag) {
    constexpr bool kVector = decltype(vector_tag)::value;
    WhereBody<W, kVector> body{static_cast<W*>(out),
                               static_cast<const bool*>(cond),
                               static_cast<const W*>(a),
                               static_cast<const W*>(b),
                               static_cast<W>(a_bits),
                               static_cast<W>(b_bits),
                               a_scalar,
                               b_scalar};
    run_loop<4, decltype(width_tag)::value>(g, true, body, stream);
  };
  if (g.contiguous && aligned)
    run(std::true_type{}, std::integral_constant<int, V>{});
  else
    run(std::false_type{}, std::integral_constant<int, 4>{});
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
