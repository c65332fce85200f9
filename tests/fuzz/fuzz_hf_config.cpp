// libFuzzer target: Hugging Face config.json import (attn::import_hf_config_text).
// Property: any text either imports to a model that validates and whose KV cache can be
// counted, or is rejected with attn::InputError. Anything else (another exception, a signal,
// a sanitizer report, an allocation past -malloc_limit_mb) is a crash.
#include <cstddef>
#include <cstdint>
#include <string>

#include "attention/error.h"
#include "attention/hf_import.h"
#include "attention/kv_cache.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  attn::ModelConfig model;
  try {
    model = attn::import_hf_config_text(text, "fuzz/config.json");
  } catch (const attn::InputError&) {
    return 0;
  }
  // An imported model is valid by contract, and its numbers stay within Limits.
  model.validate();
  if (model.num_layers < 1 || model.num_layers > attn::Limits::kMaxLayers ||
      static_cast<int>(model.layers.size()) != model.num_layers)
    __builtin_trap();
  for (int l = 0; l < model.num_layers; ++l) model.layer_shape(l).validate();
  (void)model.pattern_description();
  // Counting its cache must not overflow or throw anything but InputError, at the extremes too.
  const std::int64_t seqs[] = {1, model.max_seq > 0 ? model.max_seq : 1, attn::Limits::kMaxSeq};
  for (std::int64_t seq : seqs) {
    for (attn::DType dt : {attn::DType::kFp32, attn::DType::kMxfp4}) {
      try {
        const std::int64_t batch = attn::Limits::kMaxBatch;
        const attn::KvReport r = attn::kv_cache(model, seq, batch, dt, 3);
        if (r.per_device_bytes > r.total_bytes) __builtin_trap();
        // The exact total, in long double: a wrapped 64-bit count is a wrong answer, not a
        // big one (the accounting must refuse what it cannot count).
        long double want = 0;
        for (int l = 0; l < model.num_layers; ++l) {
          const attn::LayerShape shape = model.layer_shape(l);
          const std::int64_t tokens = shape.window > 0 && shape.window < seq ? shape.window : seq;
          want += static_cast<long double>(attn::kv_bytes_per_token(shape, dt, 1)) *
                  static_cast<long double>(tokens) * static_cast<long double>(batch);
        }
        const long double got = static_cast<long double>(r.total_bytes);
        if (got < want * 0.999999L || got > want * 1.000001L) __builtin_trap();
      } catch (const attn::InputError&) {
      }
    }
  }
  return 0;
}
