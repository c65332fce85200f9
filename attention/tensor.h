// A dense row-major (C order) tensor that owns its data.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace attn {

template <class T>
struct Tensor {
  std::vector<std::int64_t> shape;
  std::vector<T> data;

  Tensor() = default;
  explicit Tensor(std::vector<std::int64_t> s) : shape(std::move(s)), data(numel_of(shape)) {}

  std::int64_t numel() const { return static_cast<std::int64_t>(data.size()); }
  int rank() const { return static_cast<int>(shape.size()); }
  std::int64_t dim(int i) const { return shape.at(static_cast<std::size_t>(i)); }
  T* ptr() { return data.data(); }
  const T* ptr() const { return data.data(); }

  static std::size_t numel_of(const std::vector<std::int64_t>& s) {
    std::size_t n = 1;
    for (auto d : s) n *= static_cast<std::size_t>(d);
    return n;
  }
};

using TensorF = Tensor<float>;
using TensorD = Tensor<double>;

std::string shape_string(const std::vector<std::int64_t>& shape);  // "[2, 54, 8, 128]"

}  // namespace attn
